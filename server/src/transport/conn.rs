//! The accept loop and how each connection is served, so that no client can hold a
//! connection (a descriptor) for ever without using it:
//!
//! - at most `max_connections` are open, and never more than the process's open-file
//!   limit less a reserve ([`connection_cap`]): beyond that the loop stops accepting
//!   (new clients wait in the listen backlog) until one closes, and says so in the log;
//! - a connection with no request and no stream in progress for `idle_timeout` is
//!   closed (HTTP/2 `GOAWAY`), so an idle HTTP/2 connection does not keep its
//!   descriptor for ever;
//! - a connection must send its first request head within `header_read_timeout`
//!   (idle fresh connections, half-sent heads), and an HTTP/1.1 connection each next
//!   one too (slowloris, idle keep-alive);
//! - a request body (not a gRPC stream: those are HTTP/2, watched by pings) must
//!   arrive in full within `request_body_timeout`, or the request is answered
//!   `408 Request Timeout` and the connection closed;
//! - HTTP/2 connections are pinged; one whose ping goes unanswered is closed (a dead
//!   peer), while an idle but live stream (WebSocket, gRPC server stream,
//!   `TrackViewers`) stays open.
//!
//! [`serve`] also drains: once its token fires it stops accepting, asks every open
//! connection to close (HTTP/2 `GOAWAY`, idle HTTP/1.1 closed) and returns when the
//! last one has.

use std::{
    convert::Infallible,
    io,
    net::SocketAddr,
    pin::{Pin, pin},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use axum::{
    Router,
    body::{Body, Bytes, HttpBody},
    http::Request,
    response::{IntoResponse, Response},
};
use hyper::{
    body::{Frame, Incoming, SizeHint},
    upgrade::{OnUpgrade, Upgraded},
};
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::conn::auto::Builder,
};
use tokio::{
    io::{AsyncRead, AsyncWrite},
    net::{TcpListener, TcpStream},
    sync::{Notify, OwnedSemaphorePermit, Semaphore, watch},
    time::Sleep,
};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;
use tracing::{debug, error, info, warn};

use super::{
    parse_errors::{ErrorBodies, MAX_HEAD_BYTES, MAX_HEADERS},
    tls::Tls,
};
use crate::{
    api::{
        ApiError,
        http::events::{upgrade::Peer, wire::PlainSocket},
    },
    config::ConnectionConfig,
    events::ConnectionStreams,
    metrics::Metrics,
};

/// How long the loop waits after an accept error that is not the client's (such as
/// `EMFILE`, too many open files) before accepting again.
const ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Accepts connections on `listener` and serves `router` on each until `stop` fires,
/// then waits for the open connections to close (the caller bounds that wait).
/// With `tls`, every connection is TLS (its handshake due within
/// `header_read_timeout`).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    config: ConnectionConfig,
    tls: Option<Tls>,
    stop: CancellationToken,
    metrics: Arc<Metrics>,
) {
    let max = config.max_connections;
    let permits = Arc::new(Semaphore::new(max));
    let builder = Arc::new(builder(&config));
    loop {
        let permit = match Arc::clone(&permits).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                warn!(
                    max_connections = max,
                    "max_connections open: new connections wait until one closes"
                );
                tokio::select! {
                    () = stop.cancelled() => break,
                    permit = Arc::clone(&permits).acquire_owned() => match permit {
                        Ok(permit) => permit,
                        Err(_) => break,
                    },
                }
            }
        };
        let (tcp, peer) = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) if is_connection_error(&e) => continue,
                Err(e) => {
                    error!(error = %e, "accept error; accepting again in {ACCEPT_BACKOFF:?}");
                    tokio::select! {
                        () = stop.cancelled() => break,
                        () = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                    }
                }
            },
        };
        let permit = Slot::taken(permit, &metrics);
        let (router, builder, stop) = (router.clone(), Arc::clone(&builder), stop.clone());
        let Some(tls) = tls.clone() else {
            tokio::spawn(connection(tcp, peer, router, builder, config, stop, permit));
            continue;
        };
        tokio::spawn(async move {
            // No Nagle, set before the handshake (see `connection`).
            let _ = tcp.set_nodelay(true);
            let handshake = tokio::time::timeout(config.header_read_timeout, tls.0.accept(tcp));
            match handshake.await {
                Ok(Ok(stream)) => {
                    connection(stream, peer, router, builder, config, stop, permit).await;
                }
                Ok(Err(e)) => debug!(error = %e, "TLS handshake failed"),
                Err(_) => debug!("no TLS handshake within header_read_timeout: closing"),
            }
        });
    }
    drop(listener);
    // Every connection holds a permit until it closes: all back means all closed.
    let all = u32::try_from(max).unwrap_or(u32::MAX);
    drop(permits.acquire_many(all).await);
}

/// An accepted connection's place under `max_connections`, counted in
/// `terrain_connections_open` until it is dropped with the connection.
struct Slot {
    _permit: OwnedSemaphorePermit,
    metrics: Arc<Metrics>,
}

impl Slot {
    fn taken(permit: OwnedSemaphorePermit, metrics: &Arc<Metrics>) -> Self {
        metrics.connections_open(1.0);
        Slot {
            _permit: permit,
            metrics: Arc::clone(metrics),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.metrics.connections_open(-1.0);
    }
}

/// What a connection is served over: plain TCP, or TLS over it.
trait Connection: AsyncRead + AsyncWrite + Unpin + Send + 'static {
    /// Turns Nagle's algorithm off on the socket.
    fn no_delay(&self) -> io::Result<()>;

    /// How an upgraded connection gives its TCP socket back, if it is a plain one.
    const PLAIN: Option<PlainSocket>;
}

impl Connection for TcpStream {
    fn no_delay(&self) -> io::Result<()> {
        self.set_nodelay(true)
    }

    const PLAIN: Option<PlainSocket> = Some(PlainSocket(plain_socket));
}

impl Connection for tokio_rustls::server::TlsStream<TcpStream> {
    fn no_delay(&self) -> io::Result<()> {
        // Set on the socket before the handshake.
        Ok(())
    }

    const PLAIN: Option<PlainSocket> = None;
}

/// The TCP socket of an upgraded plain connection, as [`connection`] hands it to
/// hyper, and what hyper read past the request.
fn plain_socket(upgraded: Upgraded) -> Result<(TcpStream, Bytes), Upgraded> {
    type Served = TokioIo<ErrorBodies<TcpStream>>;
    hyper_util::server::conn::auto::upgrade::downcast::<Served>(upgraded)
        .map(|parts| (parts.io.into_inner().into_inner(), parts.read_buf))
}

/// Descriptors kept free of connections for the store, the logs and the listener.
const DESCRIPTOR_RESERVE: u64 = 64;

/// The number of connections to allow: `max_connections`, lowered to the process's
/// open-file limit less `DESCRIPTOR_RESERVE` when that is smaller (Linux:
/// `/proc/self/limits`; elsewhere the limit is unknown and `max_connections` stands).
/// Logs both, and warns when it lowers the cap.
pub fn connection_cap(max_connections: usize) -> usize {
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| soft_open_files(&text));
    let cap = cap_below(max_connections, limit);
    match limit {
        Some(limit) if cap < max_connections => warn!(
            max_connections,
            descriptor_limit = limit,
            connections = cap,
            "max_connections is lowered to {cap}: the open-file limit less {DESCRIPTOR_RESERVE} \
             for the store, the logs and the listener; raise the limit (ulimit -n) to allow more"
        ),
        Some(limit) => info!(
            max_connections,
            descriptor_limit = limit,
            "connection limit"
        ),
        None => info!(
            max_connections,
            "connection limit (open-file limit unknown)"
        ),
    }
    cap
}

/// `max_connections`, at most `limit` less [`DESCRIPTOR_RESERVE`] (and at least 1).
fn cap_below(max_connections: usize, limit: Option<u64>) -> usize {
    let Some(limit) = limit else {
        return max_connections;
    };
    let room = usize::try_from(limit.saturating_sub(DESCRIPTOR_RESERVE)).unwrap_or(usize::MAX);
    max_connections.min(room).max(1)
}

/// The soft "Max open files" of a `/proc/self/limits` text (`None` if unlimited or
/// absent).
fn soft_open_files(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// HTTP/1.1 and HTTP/2 on one port, with the timeouts of `config`.
fn builder(config: &ConnectionConfig) -> Builder<TokioExecutor> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .max_headers(MAX_HEADERS)
        .max_buf_size(MAX_HEAD_BYTES)
        .header_read_timeout(config.header_read_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(config.http2_keepalive_interval)
        .keep_alive_timeout(config.http2_keepalive_timeout)
        // CONNECT protocol, for WebSockets over HTTP/2.
        .enable_connect_protocol();
    builder
}

/// Serves one connection until it ends, is closed for a missing first request, or
/// has drained after `stop`; `_slot` is its place under `max_connections`, `peer`
/// the client's address.
async fn connection<IO: Connection>(
    io: IO,
    peer: SocketAddr,
    router: Router,
    builder: Arc<Builder<TokioExecutor>>,
    config: ConnectionConfig,
    stop: CancellationToken,
    _slot: Slot,
) {
    // No Nagle: a response written in pieces (a large mesh, its trailers) would
    // otherwise wait for the client's delayed ACK, 40 ms on Linux.
    if let Err(e) = io.no_delay() {
        warn!(error = %e, "TCP_NODELAY");
    }
    let started = Arc::new(Notify::new());
    let in_progress = InProgress::default();
    let service = {
        let started = Arc::clone(&started);
        let in_progress = in_progress.clone();
        let body_timeout = config.request_body_timeout;
        // This connection's open streams, counted under max_subscriptions_per_connection.
        let streams = ConnectionStreams::default();
        hyper::service::service_fn(move |mut request: Request<Incoming>| {
            started.notify_one();
            // Busy until the answer's body has been sent (or dropped): a stream is
            // in progress for as long as it lasts.
            let busy = in_progress.start();
            request.extensions_mut().insert(streams.clone());
            // Only requests hyper may upgrade need these (no allocation for the rest).
            if request.extensions().get::<OnUpgrade>().is_some() {
                request.extensions_mut().insert(Peer(peer));
                if let Some(plain) = IO::PLAIN {
                    request.extensions_mut().insert(plain);
                }
            }
            let router = router.clone();
            async move {
                let response = call(router, request, body_timeout).await;
                Ok::<_, Infallible>(
                    response.map(|inner| Body::new(BusyBody { inner, _busy: busy })),
                )
            }
        })
    };
    let mut conn =
        pin!(builder.serve_connection_with_upgrades(TokioIo::new(ErrorBodies::new(io)), service));
    // hyper's header timeout starts once it knows the protocol; this one covers the
    // bytes before (an idle connection, a half-sent HTTP/2 preface) and an HTTP/2
    // connection that never opens a stream.
    let mut first = pin!(tokio::time::timeout(
        config.header_read_timeout,
        started.notified()
    ));
    let mut waiting = true;
    let mut draining = false;
    let mut busy = in_progress.0.subscribe();
    let mut idle = pin!(tokio::time::sleep(config.idle_timeout));
    loop {
        let idle_now = *busy.borrow() == 0;
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    debug!(error = %e, "connection ended");
                }
                break;
            }
            waited = &mut first, if waiting => {
                waiting = false;
                if waited.is_err() {
                    debug!(timeout = ?config.header_read_timeout, "no request within header_read_timeout: closing");
                    break;
                }
            }
            () = stop.cancelled(), if !draining => {
                draining = true;
                conn.as_mut().graceful_shutdown();
            }
            changed = busy.changed() => {
                // The sender lives as long as `in_progress`, which outlives the loop.
                if changed.is_ok() && *busy.borrow_and_update() == 0 {
                    idle.as_mut().reset(tokio::time::Instant::now() + config.idle_timeout);
                }
            }
            () = &mut idle, if idle_now && !draining => {
                debug!(timeout = ?config.idle_timeout, "nothing in progress for idle_timeout: closing");
                draining = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// The requests and streams in progress on one connection.
#[derive(Debug, Clone)]
struct InProgress(Arc<watch::Sender<usize>>);

impl Default for InProgress {
    fn default() -> Self {
        InProgress(Arc::new(watch::Sender::new(0)))
    }
}

impl InProgress {
    /// One more in progress, until the guard is dropped.
    fn start(&self) -> Busy {
        self.0.send_modify(|n| *n += 1);
        Busy(self.clone())
    }
}

/// One request or stream in progress.
#[derive(Debug)]
struct Busy(InProgress);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// An answer's body, holding its request's place in [`InProgress`] until it has been
/// sent or dropped.
struct BusyBody {
    inner: Body,
    _busy: Busy,
}

impl HttpBody for BusyBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Routes `request`; a body that is not a gRPC stream and has not arrived in full
/// within `body_timeout` gets 408.
async fn call(router: Router, request: Request<Incoming>, body_timeout: Duration) -> Response {
    if super::is_grpc(request.headers()) || request.body().is_end_stream() {
        let request = request.map(Body::new);
        return router.oneshot(request).await.unwrap_or_else(|e| match e {});
    }
    let expired = Arc::new(AtomicBool::new(false));
    let request = request.map(|inner| {
        Body::new(TimedBody {
            inner,
            deadline: Box::pin(tokio::time::sleep(body_timeout)),
            expired: Arc::clone(&expired),
        })
    });
    let response = router.oneshot(request).await.unwrap_or_else(|e| match e {});
    if expired.load(Ordering::Acquire) {
        return body_timed_out(body_timeout);
    }
    response
}

/// `408` with the API's JSON error body; the connection closes, as the rest of the
/// body will never be read.
fn body_timed_out(timeout: Duration) -> Response {
    ApiError::BodyTimedOut { timeout }.into_response()
}

/// The error a [`TimedBody`] ends with once its deadline passes.
#[derive(Debug, thiserror::Error)]
#[error("request body not received within request_body_timeout")]
struct BodyTimedOut;

/// A request body that fails with [`BodyTimedOut`] if it is still waiting for data
/// after its deadline (data already received is still delivered).
struct TimedBody {
    inner: Incoming,
    deadline: Pin<Box<Sleep>>,
    expired: Arc<AtomicBool>,
}

impl HttpBody for TimedBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => Poll::Ready(frame.map(|f| f.map_err(Into::into))),
            Poll::Pending => {
                if this.deadline.as_mut().poll(cx).is_ready() {
                    this.expired.store(true, Ordering::Release);
                    Poll::Ready(Some(Err(BodyTimedOut.into())))
                } else {
                    Poll::Pending
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Errors of one client's connection attempt, not of the listener.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

#[cfg(test)]
mod tests {
    use super::{DESCRIPTOR_RESERVE, cap_below, soft_open_files};

    #[test]
    fn connections_stay_below_the_open_file_limit() {
        // The probe's case: 1,024 descriptors, the default 10,000 connections.
        assert_eq!(
            cap_below(10_000, Some(1024)),
            1024 - DESCRIPTOR_RESERVE as usize
        );
        assert_eq!(cap_below(500, Some(1024)), 500);
        assert_eq!(cap_below(10_000, None), 10_000);
        assert_eq!(cap_below(10_000, Some(10)), 1);
        assert_eq!(cap_below(10_000, Some(u64::MAX)), 10_000);
    }

    #[test]
    fn the_soft_open_file_limit_is_read() {
        let text = "Limit                     Soft Limit           Hard Limit           Units\n\
                    Max processes             63704                63704                processes\n\
                    Max open files            1024                 524288               files\n";
        assert_eq!(soft_open_files(text), Some(1024));
        let unlimited =
            "Max open files            unlimited            unlimited            files\n";
        assert_eq!(soft_open_files(unlimited), None);
        assert_eq!(soft_open_files(""), None);
    }
}
