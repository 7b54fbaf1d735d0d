//! The WebSocket's own TCP socket, for direct delivery.
//!
//! A subscription over a plain HTTP/1.1 connection keeps its TCP socket after the
//! upgrade ([`Transport`]'s left side, [`WireIo`]). tungstenite reads the client's frames from it and
//! writes the stream's own (replays, acknowledgements, `resync`, pongs, close), and
//! the hub's writer writes live events to it directly ([`WireSink`]): each event's
//! frame is made once for every subscriber ([`frames::event_wire`]), and writing it
//! to one subscriber is one `send`, with no task woken, no waker registered and no
//! frame formatted.
//!
//! Every byte goes out through [`Wire`]'s buffer: whoever writes takes its lock,
//! writes what is left of earlier frames first, then its own, and keeps what the
//! socket did not take. Both writers hand it whole frames (tungstenite writes its
//! whole buffer of frames, which this transport always takes), so frames never
//! interleave, whoever wrote them. The buffer holds at most [`OUT_LIMIT`] bytes of
//! the stream's own frames, plus the rest of one event when the client reads slowly
//! (the outlet then goes back to the stream, which flushes it).
//!
//! Other transports (TLS, HTTP/2's WebSockets) are hyper's upgraded connection
//! (the right side of [`Transport`]); their subscribers are served from their queues.

use std::{
    io,
    pin::Pin,
    sync::{Arc, Mutex, MutexGuard, OnceLock},
    task::{Context, Poll, ready},
};

use bytes::{Buf as _, Bytes, BytesMut};
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use tokio::{
    io::{AsyncRead, AsyncWrite, Interest, ReadBuf},
    net::TcpStream,
};
use tokio_util::either::Either;

use super::frames;
use crate::events::{DirectSink, Offer, Published};
use crate::sync::locked;

/// Most bytes of the stream's own frames held before its writes wait for the
/// socket.
pub const OUT_LIMIT: usize = 64 * 1024;

/// A WebSocket's TCP socket, written by its stream and the hub's writer.
#[derive(Debug)]
pub struct Wire {
    tcp: TcpStream,
    /// Bytes taken for writing that the socket has not taken yet, in order.
    out: Mutex<BytesMut>,
}

/// One `send` of some bytes without waiting, as one of the socket's two writers
/// makes it.
type SendFn = fn(&TcpStream, &[u8]) -> io::Result<usize>;

/// The stream's send: through tokio, so that `WouldBlock` clears the socket's
/// readiness (as `try_write` would) and the stream's next poll for writing
/// registers for the next.
fn polled_send(tcp: &TcpStream, bytes: &[u8]) -> io::Result<usize> {
    tcp.try_io(Interest::WRITABLE, || bare_send(tcp, bytes))
}

/// The hub writer's send: rustix's system call alone (the C library's wrapper adds
/// two cancellation-point calls to each of the writer's thousand sends per event).
/// The writer never waits for readiness, so it need not read or clear tokio's: a
/// `WouldBlock` here leaves that readiness stale at worst, which costs the stream's
/// next flush one more send (a polled one, which clears it), never a wake-up.
fn bare_send(tcp: &TcpStream, bytes: &[u8]) -> io::Result<usize> {
    rustix::net::send(tcp, bytes, rustix::net::SendFlags::NOSIGNAL).map_err(io::Error::from)
}

/// Writes as much of `bytes` as the socket takes now through `send`; answers how
/// much.
fn write_some(tcp: &TcpStream, bytes: &[u8], send: SendFn) -> io::Result<usize> {
    let mut written = 0;
    while written < bytes.len() {
        match send(tcp, &bytes[written..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) => return Err(e),
        }
    }
    Ok(written)
}

impl Wire {
    /// The socket `tcp`, nothing buffered.
    pub fn new(tcp: TcpStream) -> Self {
        Wire {
            tcp,
            out: Mutex::new(BytesMut::new()),
        }
    }

    fn out(&self) -> MutexGuard<'_, BytesMut> {
        // Plain bytes appended and consumed in single steps: usable after a panic.
        locked(&self.out)
    }

    /// Writes what `out` holds through `send`, without waiting; true when nothing
    /// is left.
    fn drain(&self, out: &mut BytesMut, send: SendFn) -> io::Result<bool> {
        let n = write_some(&self.tcp, out, send)?;
        out.advance(n);
        Ok(out.is_empty())
    }

    /// Writes `bytes` after what `out` holds through `send`, without waiting, and
    /// keeps in `out` what the socket does not take; true when all of it is written.
    fn put(&self, out: &mut BytesMut, bytes: &[u8], send: SendFn) -> io::Result<bool> {
        if !out.is_empty() && !self.drain(out, send)? {
            out.extend_from_slice(bytes);
            return Ok(false);
        }
        let n = write_some(&self.tcp, bytes, send)?;
        out.extend_from_slice(&bytes[n..]);
        Ok(n == bytes.len())
    }

    /// Writes everything buffered, waiting for the socket as needed.
    fn poll_drain(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            if self.drain(&mut self.out(), polled_send)? {
                return Poll::Ready(Ok(()));
            }
            // The failed write cleared the socket's readiness: this registers.
            ready!(self.tcp.poll_write_ready(cx))?;
        }
    }
}

/// The socket as tungstenite's stream: reads what hyper read past the request
/// first, then the socket; writes through the [`Wire`]'s buffer.
#[derive(Debug)]
pub struct WireIo {
    wire: Arc<Wire>,
    read_first: Bytes,
}

impl AsyncRead for WireIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.read_first.is_empty() {
            let n = this.read_first.len().min(buf.remaining());
            buf.put_slice(&this.read_first.split_to(n));
            return Poll::Ready(Ok(()));
        }
        loop {
            ready!(this.wire.tcp.poll_read_ready(cx))?;
            match this.wire.tcp.try_read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                // The failed read cleared the socket's readiness: poll again.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for WireIo {
    /// Takes all of `buf` (tungstenite's whole buffer of frames) unless
    /// [`OUT_LIMIT`] bytes wait already.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let wire = &self.wire;
        loop {
            {
                let mut out = wire.out();
                if out.len() >= OUT_LIMIT {
                    wire.drain(&mut out, polled_send)?;
                }
                if out.len() < OUT_LIMIT {
                    wire.put(&mut out, buf, polled_send)?;
                    return Poll::Ready(Ok(buf.len()));
                }
            }
            // The failed write cleared the socket's readiness: this registers.
            ready!(wire.tcp.poll_write_ready(cx))?;
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.wire.poll_drain(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.wire.poll_drain(cx))?;
        Poll::Ready(
            rustix::net::shutdown(&self.wire.tcp, rustix::net::Shutdown::Write)
                .map_err(io::Error::from),
        )
    }
}

/// What a WebSocket stream runs over: its own TCP socket, shared with the hub's
/// writer, or hyper's upgraded connection (TLS, HTTP/2).
pub type Transport = Either<WireIo, TokioIo<Upgraded>>;

/// How a connection's upgraded IO gives back its plain TCP socket (and what hyper
/// read past the request): put in each request's extensions by the transport
/// layer, which knows how it wrapped the socket; absent under TLS.
#[derive(Debug, Clone, Copy)]
pub struct PlainSocket(pub fn(Upgraded) -> Result<(TcpStream, Bytes), Upgraded>);

/// The transport of `upgraded`: its TCP socket if `plain` gives it back, else the
/// connection itself.
pub fn transport(upgraded: Upgraded, plain: Option<PlainSocket>) -> Transport {
    let Some(PlainSocket(plain)) = plain else {
        return Either::Right(TokioIo::new(upgraded));
    };
    match plain(upgraded) {
        Ok((tcp, read_first)) => Either::Left(WireIo {
            wire: Arc::new(Wire::new(tcp)),
            read_first,
        }),
        Err(upgraded) => Either::Right(TokioIo::new(upgraded)),
    }
}

/// The socket under `transport`, if it is its own TCP socket.
pub fn wire(transport: &Transport) -> Option<Arc<Wire>> {
    match transport {
        Either::Left(io) => Some(Arc::clone(&io.wire)),
        Either::Right(_) => None,
    }
}

/// The hub's way to a [`Wire`]: set once the upgrade completed over a plain
/// socket (never for other transports, whose streams do not go direct).
#[derive(Debug, Default)]
pub struct WireSink {
    /// The socket, and the epoch every event frame of this stream names (its
    /// world's): one cell, so an offer reads one line of the sink.
    installed: OnceLock<(Arc<Wire>, Arc<str>)>,
}

impl WireSink {
    /// Installs the socket, and the epoch its event frames name.
    pub fn install(&self, wire: Arc<Wire>, epoch: Arc<str>) {
        // Set once: a stream has one socket and one epoch.
        let _ = self.installed.set((wire, epoch));
    }
}

impl DirectSink for WireSink {
    /// The event's shared frame, written at once or kept for the stream to flush:
    /// never waits.
    fn offer(&self, event: &Arc<Published>) -> Offer {
        let Some((wire, epoch)) = self.installed.get() else {
            return Offer::Refused;
        };
        let Ok(frame) = frames::event_wire(event, epoch) else {
            // The stream meets the same error and ends.
            return Offer::Refused;
        };
        match wire.put(&mut wire.out(), frame, bare_send) {
            Ok(true) => Offer::Sent,
            Ok(false) => Offer::Unflushed,
            // The stream's next write meets the error too, and ends.
            Err(_) => Offer::Refused,
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::{SinkExt as _, StreamExt as _};
    use tokio::net::TcpSocket;
    use tokio_tungstenite::{
        WebSocketStream,
        tungstenite::{Message, protocol::Role},
    };

    use super::*;
    use crate::{events::sample_event, metrics::Metrics};

    fn event(revision: u64, metrics: &Arc<Metrics>) -> Arc<Published> {
        // A frame of a few kilobytes: the small socket buffers fill in a few.
        let event = sample_event(revision, (0..200).map(|i| (i, -i)).collect());
        Arc::new(Published::new(event, Arc::clone(metrics)))
    }

    /// A server end over a [`Wire`] with small socket buffers, and the client end.
    async fn pair() -> (Socket, Arc<Wire>, WebSocketStream<TcpStream>) {
        let listener = TcpSocket::new_v4().unwrap();
        listener.set_recv_buffer_size(4096).unwrap();
        listener.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let address = listener.local_addr().unwrap();
        let listener = listener.listen(1).unwrap();
        let connecting = TcpSocket::new_v4().unwrap();
        connecting.set_send_buffer_size(4096).unwrap();
        let (tcp, accepted) = tokio::join!(connecting.connect(address), listener.accept());
        let wire = Arc::new(Wire::new(tcp.unwrap()));
        let io = Either::Left(WireIo {
            wire: Arc::clone(&wire),
            read_first: Bytes::new(),
        });
        let server = WebSocketStream::from_raw_socket(io, Role::Server, None).await;
        let client = WebSocketStream::from_raw_socket(accepted.unwrap().0, Role::Client, None);
        (server, wire, client.await)
    }

    type Socket = WebSocketStream<Transport>;

    /// The hub's frames and the stream's own share the socket without interleaving:
    /// offered until the client, not reading, leaves the socket full, then the
    /// stream's own frame; the client reads every event whole and in order, then the
    /// stream's frame.
    #[tokio::test]
    async fn frames_from_both_writers_arrive_whole_and_in_order() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let (mut server, wire, mut client) = pair().await;
        let sink = WireSink::default();
        assert_eq!(
            sink.offer(&event(1, &metrics)),
            Offer::Refused,
            "no socket installed yet"
        );
        sink.install(wire, Arc::from("0000000000000001"));
        let mut offered = 0;
        loop {
            offered += 1;
            match sink.offer(&event(offered, &metrics)) {
                Offer::Sent => assert!(offered < 10_000, "the socket never filled"),
                Offer::Unflushed => break,
                Offer::Refused => panic!("refused event {offered}"),
            }
        }
        let own = tokio::spawn(async move {
            server
                .send(Message::Text("the stream's own".into()))
                .await
                .unwrap();
            server
        });
        let within = std::time::Duration::from_secs(10);
        for revision in 1..=offered {
            let read = tokio::time::timeout(within, client.next()).await;
            let Ok(Some(Ok(Message::Text(text)))) = read else {
                panic!("event {revision} is not a whole text frame: {read:?}");
            };
            let json: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
            assert_eq!(json["revision"].as_u64(), Some(revision));
            assert_eq!(json["tileCount"].as_u64(), Some(200));
        }
        let read = tokio::time::timeout(within, client.next()).await;
        let Ok(Some(Ok(Message::Text(text)))) = read else {
            panic!("the stream's frame is missing: {read:?}");
        };
        assert_eq!(text.as_str(), "the stream's own");
        // And the socket reads too: the client's message reaches the server.
        let mut server = own.await.unwrap();
        client.send(Message::Text("area".into())).await.unwrap();
        let Some(Ok(Message::Text(text))) = server.next().await else {
            panic!("the client's message is missing");
        };
        assert_eq!(text.as_str(), "area");
    }

    /// An event's frame is made once and is the one every subscriber gets.
    #[test]
    fn an_events_frame_is_shared() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let e = event(7, &metrics);
        let a = frames::event_wire(&e, "0000000000000001").unwrap();
        let b = frames::event_wire(&e, "0000000000000001").unwrap();
        assert_eq!(a.as_ptr(), b.as_ptr());
        let text = frames::event_frame(&e, "0000000000000001").unwrap();
        // FIN + text opcode, a 16-bit length, then the event's JSON unmasked.
        assert_eq!(a[0], 0x81);
        assert_eq!(a[1], 126);
        assert_eq!(usize::from(u16::from_be_bytes([a[2], a[3]])), text.len());
        assert_eq!(&a[4..], text.as_bytes());
    }
}
