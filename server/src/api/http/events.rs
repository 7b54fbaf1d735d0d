//! `GET /v1/worlds/{world}/events`: tile events over a WebSocket.
//!
//! Query: the initial area, `tiles=minTx,minTz,maxTx,maxTz` (inclusive) or
//! `x=&z=&radius=` (metres, the centre within `max_coordinate`), and the resume
//! point `fromRevision=N` with the epoch it was heard in, `fromEpoch=E` (another
//! history's epoch opens with `resync`); any other key is refused (a misspelt `fromrevision` would
//! otherwise stream live events without resuming). Bad input is a
//! 400 before the upgrade (`fromRevision` after the current revision included). A
//! subscription beyond `max_subscriptions_per_connection` or `max_subscriptions` is
//! refused before the upgrade with 503, `Retry-After` and the JSON error body
//! (`RESOURCE_EXHAUSTED`).
//!
//! Server to client, one JSON text frame per message: events
//! `{"type": "event", "world", "revision", "cause": {"zone", "kind"}, "tiles",
//! "tileRects", "tileCount", "bounds", "maxHeightDelta", "tilesetContents"}` (`tiles`
//! listed only up to 256 tiles, `tileRects` always; `tilesetContents` the 3D Tiles
//! contents the change changed, `[level, minX, minY, maxX, maxY]`, `epoch` the
//! world's history's) and `{"type": "resync", "revision", "epoch"}`. Client to
//! server: a new area, `{"tiles": [...]}`, `{"x", "z", "radius"}` or `{}`
//! (everything), acknowledged once it applies with
//! `{"type": "area", "area", "revision"}` (every event after `revision` is matched
//! against the new area; those up to it touching the new area and never sent follow,
//! replayed: [`crate::events::subscription`]); a bad one is answered with
//! `{"type": "error", "error": {"code", "message", "field"}}` and the area stays.
//! The server closes the socket (close frame) after a cut-off `resync` and at
//! shutdown, and when the client stops answering pings ([`liveness`]). It echoes a
//! client's close frame, and closes the socket on a client message it does not take
//! (RFC 6455 7.4.1, `refusal`): 1009 over [`upgrade::MAX_CLIENT_MESSAGE_BYTES`]
//! (on the frame header that says so), 1003 binary, 1007 text that is not UTF-8, 1002 a
//! frame breaking the protocol. The frames are built and read in [`frames`].

pub mod frames;
pub mod liveness;
pub mod upgrade;
pub mod wire;

use std::{net::SocketAddr, pin::pin, sync::Arc, task::Poll, time::Duration};

use futures::{
    FutureExt as _, SinkExt as _, StreamExt as _,
    stream::{SplitSink, SplitStream},
};
use terrain_core::quote::Quoted;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::{
    Extension,
    extract::{State, ws::WebSocketUpgrade},
    http::{HeaderValue, header::RETRY_AFTER},
    response::{IntoResponse, Response},
};
use tokio::io::AsyncWriteExt as _;
use tokio::{sync::mpsc, task::JoinHandle};
use tokio_tungstenite::{
    WebSocketStream,
    tungstenite::{
        Bytes, Error as WsError, Message as WsMessage, Utf8Bytes,
        error::ProtocolError,
        protocol::{CloseFrame, frame::coding::CloseCode},
    },
};
use tokio_util::sync::CancellationToken;

use super::extract::{Query, World};
use crate::{
    api::{ApiError, ApiState},
    events::{
        Area, ConnectionStreams, EventError, Outlet, Resume, StreamKind, StreamPermit, Subscription,
    },
};
use liveness::{Check, Heard, Liveness};
use upgrade::{MAX_CLIENT_MESSAGE_BYTES, Peer, Upgrade};
use wire::{Transport, WireSink};

/// The socket the stream writes its own frames to.
type Socket = WebSocketStream<Transport>;

/// The initial area and resume point of a WebSocket subscription.
#[derive(Debug, PartialEq)]
struct Opening {
    area: Area,
    from: Option<Resume>,
}

/// The value of `name`, given at most once, without surrounding spaces.
fn single<'a>(query: &'a Query, name: &'static str) -> Result<Option<&'a str>, ApiError> {
    Ok(query.at_most_once(name)?.map(str::trim))
}

fn number(query: &Query, name: &'static str) -> Result<f64, ApiError> {
    let raw = single(query, name)?
        .ok_or_else(|| ApiError::invalid(name, "required with x, z and radius"))?;
    raw.parse()
        .map_err(|_| ApiError::invalid(name, format!("expected a number, got {}", Quoted(raw))))
}

/// The query keys the route takes.
const KEYS: [&str; 6] = ["tiles", "x", "z", "radius", "fromRevision", "fromEpoch"];

fn opening(query: &Query, max_coordinate: f64) -> Result<Opening, ApiError> {
    let pairs = query.pairs()?;
    if let Some((key, _)) = pairs.iter().find(|(k, _)| !KEYS.contains(&k.as_str())) {
        return Err(ApiError::invalid(
            key.clone(),
            "unknown query parameter: expected tiles, x, z, radius, fromRevision or fromEpoch",
        ));
    }
    let from = match single(query, "fromRevision")? {
        None => None,
        Some(raw) => Some(raw.parse().map_err(|_| {
            ApiError::invalid(
                "fromRevision",
                format!("expected a revision (integer >= 0), got {}", Quoted(raw)),
            )
        })?),
    };
    let epoch = single(query, "fromEpoch")?.map(str::to_string);
    let from = match (from, epoch) {
        (Some(revision), epoch) => Some(Resume::new(revision, epoch)?),
        (None, Some(_)) => {
            return Err(ApiError::invalid(
                "fromEpoch",
                "given without fromRevision (the revision it names)",
            ));
        }
        (None, None) => None,
    };
    let circle = ["x", "z", "radius"]
        .iter()
        .any(|k| pairs.iter().any(|(name, _)| name == k));
    let area = match single(query, "tiles")? {
        Some(_) if circle => {
            return Err(ApiError::invalid(
                "tiles",
                "give tiles or x, z and radius, not both",
            ));
        }
        Some(raw) => {
            let parts: Vec<i64> = raw
                .split(',')
                .map(|p| p.trim().parse())
                .collect::<Result<_, _>>()
                .map_err(|_| ApiError::invalid("tiles", "expected minTx,minTz,maxTx,maxTz"))?;
            let rect: [i64; 4] = parts
                .try_into()
                .map_err(|_| ApiError::invalid("tiles", "expected minTx,minTz,maxTx,maxTz"))?;
            Area::tiles(rect, "tiles")?
        }
        None if circle => Area::circle(
            number(query, "x")?,
            number(query, "z")?,
            number(query, "radius")?,
        )?,
        None => Area::All,
    };
    let area = area.within(max_coordinate)?;
    Ok(Opening { area, from })
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/events",
    tag = "events",
    description = "Tile events over a WebSocket (RFC 6455 upgrade of this GET; over HTTP/2, \
        RFC 8441's extended CONNECT to the same path, answered 200). The area starts as \
        `tiles=minTx,minTz,maxTx,maxTz` (inclusive), or `x`, `z`, `radius` (metres), or everything; \
        `fromRevision` resumes after that revision, of the history `fromEpoch` (a resume from \
        another history, after a restore or an empty restart, opens with `resync`). Server to \
        client, one JSON text frame per \
        message: `{\"type\": \"event\", \"world\", \"revision\", \"epoch\", \"cause\": {\"zone\", \"kind\"}, \
        \"tiles\", \"tileRects\", \"tileCount\", \"bounds\", \"maxHeightDelta\", \"tilesetContents\"}` \
        (`tiles` listed only up to 256 tiles, `tileRects` always; `tilesetContents` the 3D Tiles \
        contents the change changed, `[level, minX, minY, maxX, maxY]` in tileset indices) and \
        `{\"type\": \"resync\", \"revision\", \"epoch\"}`. Client \
        to server: a new area (`{\"tiles\": [...]}`, `{\"x\", \"z\", \"radius\"}` or `{}`), \
        acknowledged by `{\"type\": \"area\", \"area\", \"revision\"}`, or refused by \
        `{\"type\": \"error\", \"error\": {\"code\", \"message\", \"field\"}}`. A client \
        message is JSON text of at most 4096 bytes: a larger one is closed with 1009, a binary \
        one with 1003, text that is not UTF-8 with 1007, a frame breaking the protocol with \
        1002; a client's close frame is echoed. Every refusal of the request comes before the \
        upgrade, as the JSON error body.",
    params(
        ("tiles" = Option<String>, Query, description = "`minTx,minTz,maxTx,maxTz` (not with x, z, radius)", example = "0,0,3,3"),
        ("x" = Option<f64>, Query, description = "Circle centre, metres (with z and radius)"),
        ("z" = Option<f64>, Query, description = "Circle centre, metres (with x and radius)"),
        ("radius" = Option<f64>, Query, description = "Circle radius, metres (with x and z)"),
        ("fromRevision" = Option<u64>, Query, description = "Resume after this revision (at most the current one). Any other query key is refused (400, the field names it)"),
        ("fromEpoch" = Option<String>, Query, description = "The epoch of the history `fromRevision` was heard in (an event's, a resync's or the zone list's `epoch`: 16 hex digits); another history's opens the stream with `resync`. Only with `fromRevision`"),
        ("Upgrade" = String, Header, description = "`websocket`"),
        ("Connection" = String, Header, description = "`Upgrade`"),
        ("Sec-WebSocket-Key" = String, Header, description = "RFC 6455 handshake key"),
        ("Sec-WebSocket-Version" = String, Header, description = "`13`"),
    ),
    responses(
        (status = 101, description = "Switched to the WebSocket protocol"),
        (status = 400, description = "A bad area, `fromRevision` or `fromEpoch` (the field names it), or not a WebSocket upgrade (field `upgrade`)"),
        (status = 403, description = "A browser page's `Origin` not among `cors_origins`, when they are listed (`PERMISSION_DENIED`, field `origin`)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 503, description = "Over `max_subscriptions_per_connection` or `max_subscriptions` (`RESOURCE_EXHAUSTED`), or starting", headers(("Retry-After" = u32))),
    ),
)]
pub async fn events(
    State(state): State<Arc<ApiState>>,
    connection: Option<Extension<ConnectionStreams>>,
    peer: Option<Extension<Peer>>,
    World(world): World,
    query: Query,
    raw: Upgrade,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let opening = opening(&query, state.engine.limits().max_coordinate)?;
    let who = Who {
        peer: peer.map(|Extension(Peer(address))| address),
        world,
    };
    let world = state.engine.world(&who.world)?;
    let connection = connection.map(|Extension(c)| c);
    let permit = match state
        .events
        .streams()
        .admit(connection.as_ref(), StreamKind::WebSocketEvents)
    {
        Ok(permit) => permit,
        Err(err) => return Ok(refused(err)),
    };
    let direct = Arc::new(Outlet::new(WireSink::default()));
    let sub = Subscription::open_with(
        &state.events,
        world,
        opening.area,
        opening.from,
        Some(Arc::clone(&direct) as Arc<Outlet>),
    )
    .await?;
    // axum's extractor checks the request; this route answers it (`upgrade`).
    drop(upgrade.map_err(|r| ApiError::invalid("upgrade", r.body_text()))?);
    let pings = (
        state.connections.websocket_ping_interval,
        state.connections.websocket_ping_timeout,
    );
    raw.on_upgrade(move |socket| serve(socket, sub, direct, permit, pings, who))
        .ok_or_else(|| ApiError::invalid("upgrade", "the connection offers no upgrade"))
}

/// Whom a stream serves, for its logs: the world, and the client's address (absent
/// when the transport layer did not give it).
struct Who {
    world: String,
    peer: Option<SocketAddr>,
}

/// How long a client refused for the stream caps is asked to wait.
const RETRY_AFTER_SECONDS: u32 = 1;

/// A subscription over the stream caps: 503 with `Retry-After` and the JSON error
/// body, before the upgrade.
fn refused(err: EventError) -> Response {
    let mut response = ApiError::from(err).into_response();
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    response
}

/// Most queued messages written to the socket before it is flushed: a subscriber
/// that fell behind catches up in writes of many frames, never holding its task for
/// long.
const BATCH: usize = 64;

/// Pumps messages to the socket and area changes from it until either side ends;
/// `_permit` is the subscription's place under the stream caps. Each message the
/// subscription gives is written with whatever else is already queued behind it, then
/// flushed once: one `write` per batch, not per event.
///
/// Over a plain TCP socket ([`wire::wire`]), whenever the stream has nothing left to send
/// it hands live events to the hub's writer ([`Subscription::go_direct`],
/// [`crate::events::outlet`]), which writes their frames to the socket without
/// waking this task ([`wire`]), and waits until the writer gives the stream back (a
/// write that did not complete, an area change, shutdown) or the client sends an
/// area. Then it takes back what the writer left, flushes what the socket had not
/// taken, and goes on from the subscription's queue. Other transports are served
/// from the queue alone.
///
/// The socket's reading side is a task of its own ([`read_client`]) that hands each
/// client text message over and ends when the client does: waiting for client
/// messages beside events in this loop would poll the socket for reading after every
/// event sent (a read attempt through every layer of the connection), a sixth of the
/// server's own time per delivered event. Its handover holds one message, so a client
/// sending area changes faster than their acknowledgements go out is read no faster
/// than that.
///
/// Beside both, the loop keeps the client's [`liveness`]: a ping once it has been
/// silent for the interval, the socket closed when the ping goes unanswered.
async fn serve(
    socket: Socket,
    mut sub: Subscription,
    direct: Arc<Outlet<WireSink>>,
    _permit: StreamPermit,
    (ping_interval, ping_timeout): (Duration, Duration),
    who: Who,
) {
    let closed = sub.closed();
    let mut liveness = Liveness::new(ping_interval, ping_timeout);
    let outlet = match wire::wire(socket.get_ref()) {
        Some(wire) => {
            direct.sink().install(wire, Arc::clone(sub.epoch()));
            sub.outlet().cloned()
        }
        None => None,
    };
    let (mut sink, stream) = socket.split();
    let (handover, mut incoming) = mpsc::channel(1);
    let reader = AbortOnDrop(tokio::spawn(read_client(
        stream,
        handover,
        liveness.heard(),
    )));
    loop {
        // Idle, over a socket of its own: the hub's writer takes the live events.
        if let Some(outlet) = &outlet
            && sub.go_direct()
        {
            let text = tokio::select! {
                () = outlet.settled() => None,
                text = incoming.recv() => Some(text),
                () = liveness.due() => {
                    // A ping goes out beside the writer's frames (the socket's
                    // buffer keeps frames whole): the outlet stays direct.
                    if !keep_alive(&mut liveness, &mut sink, (&sub, &who), &closed).await {
                        return;
                    }
                    if outlet.is_direct() {
                        continue;
                    }
                    // The writer handed the socket back while the ping waited for it
                    // (a send it could not finish): take the stream back as when
                    // that happens first. Going direct again instead would drop
                    // what the writer left unsent.
                    outlet.settled().await;
                    None
                }
            };
            if let Some(from) = text {
                // None: the client failed or went away.
                let Some(from) = from else { return };
                // The stream's own again before it answers.
                sub.leave_direct();
                outlet.settled().await;
                sub.take_back();
                let text = match from {
                    FromClient::Text(text) => text,
                    from => return finish(sink, reader, from, ping_timeout, (&sub, &closed)).await,
                };
                let reply = change_area(&sub, text.as_str()).into();
                if !unless_closed(sink.send(WsMessage::Text(reply)), &sub, &closed).await {
                    return;
                }
                continue;
            }
            sub.take_back();
            // What the socket did not take of the writer's frames goes out first.
            if !unless_closed(sink.flush(), &sub, &closed).await {
                return;
            }
        }
        tokio::select! {
            message = sub.next() => {
                let Some(mut message) = message else { break };
                let mut batch = 0;
                loop {
                    let text = match frames::message(&message, sub.epoch()) {
                        Ok(text) => text,
                        Err(e) => {
                            // Never an empty frame: end the stream; the client resumes.
                            tracing::error!(error = %e, "serialising an event frame");
                            close(sink, CloseCode::Error, "event not serialisable").await;
                            return;
                        }
                    };
                    if !unless_closed(sink.feed(WsMessage::Text(text)), &sub, &closed).await {
                        return;
                    }
                    batch += 1;
                    if batch == BATCH {
                        break;
                    }
                    match sub.try_next() {
                        Some(next) => message = next,
                        None => break,
                    }
                }
                if !unless_closed(sink.flush(), &sub, &closed).await {
                    return;
                }
            }
            from = incoming.recv() => {
                // None: the client failed or went away.
                let text = match from {
                    Some(FromClient::Text(text)) => text,
                    Some(from) => return finish(sink, reader, from, ping_timeout, (&sub, &closed)).await,
                    None => return,
                };
                let reply = change_area(&sub, text.as_str()).into();
                if !unless_closed(sink.send(WsMessage::Text(reply)), &sub, &closed).await {
                    return;
                }
            }
            () = liveness.due() => {
                if !keep_alive(&mut liveness, &mut sink, (&sub, &who), &closed).await {
                    return;
                }
            }
        }
    }
    drop(reader);
    close(sink, CloseCode::Normal, "stream ended").await;
}

/// What the socket's reader hands the stream.
#[derive(Debug)]
enum FromClient {
    /// A text message: an area.
    Text(Utf8Bytes),
    /// The client's close frame: its echo (RFC 6455 5.5.1, the client's code, or
    /// 1002 for a code a close frame may not carry) is queued by tungstenite, to be
    /// flushed.
    Closed,
    /// A message the route does not take, or a frame breaking the protocol: the close
    /// frame that answers it (`refusal`).
    Refused(CloseFrame),
}

/// Hands each text message of the client to `handover`, then what ended the client's
/// side: its close frame, or the close frame refusing what it sent; ends there, when
/// the client goes away (nothing handed over) or when the stream ends (`handover`
/// closed), and gives the socket's reading half back. Pings and pongs are not handed
/// over (tungstenite answers pings itself). Every message, pongs included, is `heard`.
async fn read_client(
    mut stream: SplitStream<Socket>,
    handover: mpsc::Sender<FromClient>,
    heard: Arc<Heard>,
) -> SplitStream<Socket> {
    loop {
        let from = match stream.next().await {
            Some(Ok(message)) => {
                heard.now();
                match message {
                    WsMessage::Text(text) => FromClient::Text(text),
                    WsMessage::Close(_) => FromClient::Closed,
                    WsMessage::Binary(_) => FromClient::Refused(close_frame(
                        CloseCode::Unsupported,
                        "binary messages are not taken: send areas as JSON text",
                    )),
                    WsMessage::Ping(_) | WsMessage::Pong(_) | WsMessage::Frame(_) => continue,
                }
            }
            Some(Err(e)) => match refusal(&e) {
                Some(frame) => FromClient::Refused(frame),
                None => break,
            },
            None => break,
        };
        let last = !matches!(from, FromClient::Text(_));
        if handover.send(from).await.is_err() || last {
            break;
        }
    }
    stream
}

/// The close frame answering a read error (RFC 6455 7.4.1): 1009 for a message or
/// frame over [`MAX_CLIENT_MESSAGE_BYTES`], 1007 for a text message that is not
/// UTF-8, 1002 for a frame breaking the protocol (unmasked, reserved bits or opcode,
/// a bad close frame). `None` when the client went away: nothing to answer.
fn refusal(error: &WsError) -> Option<CloseFrame> {
    Some(match error {
        WsError::Capacity(_) => close_frame(
            CloseCode::Size,
            &format!("a message may hold at most {MAX_CLIENT_MESSAGE_BYTES} bytes"),
        ),
        WsError::Utf8(_) => close_frame(CloseCode::Invalid, "a text message is not UTF-8"),
        WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => return None,
        WsError::Protocol(e) => close_frame(CloseCode::Protocol, &e.to_string()),
        _ => return None,
    })
}

/// A close frame, its reason cut to the 123 bytes a close frame holds.
fn close_frame(code: CloseCode, reason: &str) -> CloseFrame {
    let mut end = reason.len().min(123);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    CloseFrame {
        code,
        reason: reason[..end].into(),
    }
}

/// A task that ends with the stream it serves.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> AbortOnDrop<T> {
    /// What the task gave back, once it ends by itself (`None` if it failed).
    async fn join(mut self) -> Option<T> {
        (&mut self.0).await.ok()
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Ends the stream on the client's word: flushes the echo of its close frame, or
/// sends the close frame refusing what it sent, then whatever of it the transport
/// still holds (tungstenite leaves the end of an echo there). Within `wait` (the ping
/// timeout), so a client that stops reading holds its socket no longer, and never
/// past shutdown.
async fn finish(
    mut sink: SplitSink<Socket, WsMessage>,
    reader: AbortOnDrop<SplitStream<Socket>>,
    from: FromClient,
    wait: Duration,
    (sub, closed): (&Subscription, &CancellationToken),
) {
    let close = async move {
        match from {
            FromClient::Refused(frame) => sink.send(WsMessage::Close(Some(frame))).await,
            FromClient::Closed | FromClient::Text(_) => sink.flush().await,
        }
        .map_err(drop)?;
        let stream = reader.join().await.ok_or(())?;
        let mut socket = sink.reunite(stream).map_err(drop)?;
        socket.get_mut().flush().await.map_err(drop)
    };
    // The peer may be gone already; nothing more to do either way.
    let _ = tokio::time::timeout(wait, unless_closed(close, sub, closed)).await;
}

/// Does what a due liveness check asks: nothing, a ping, or closing the socket of a
/// client that stopped answering. False when the stream is over.
async fn keep_alive(
    liveness: &mut Liveness,
    sink: &mut SplitSink<Socket, WsMessage>,
    (sub, who): (&Subscription, &Who),
    closed: &CancellationToken,
) -> bool {
    match liveness.check() {
        Check::Alive => true,
        Check::Ping => unless_closed(sink.send(WsMessage::Ping(Bytes::new())), sub, closed).await,
        Check::Gone => {
            tracing::info!(
                world = who.world,
                peer = who.peer.map(tracing::field::display),
                subscription = sub.id(),
                "closing a WebSocket subscription whose client stopped answering pings"
            );
            let frame = CloseFrame {
                code: CloseCode::Away,
                reason: "ping timeout".into(),
            };
            // The peer is most likely gone: a close the socket does not take at once is
            // not waited for.
            let _ = sink.send(WsMessage::Close(Some(frame))).now_or_never();
            false
        }
    }
}

/// Sends a close frame.
async fn close(mut sink: SplitSink<Socket, WsMessage>, code: CloseCode, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    // The peer may already be gone; nothing more to do either way.
    let _ = sink.send(WsMessage::Close(Some(frame))).await;
}

/// Runs a socket write (queueing a frame, flushing, or both); false when the peer is
/// gone or the server shuts down, before it or while the write is blocked (a client
/// that stopped reading never holds up shutdown). A write that completes at once,
/// the usual case, waits on nothing else: only a blocked one waits on `closed` too.
async fn unless_closed<E>(
    write: impl Future<Output = Result<(), E>>,
    sub: &Subscription,
    closed: &CancellationToken,
) -> bool {
    if sub.is_closed() {
        return false;
    }
    let mut write = pin!(write);
    if let Poll::Ready(written) = futures::poll!(write.as_mut()) {
        return written.is_ok();
    }
    tokio::select! {
        biased;
        () = closed.cancelled() => false,
        written = write => written.is_ok(),
    }
}

/// Applies an area message; answers its acknowledgement, or the error frame for a
/// bad one.
fn change_area(sub: &Subscription, text: &str) -> String {
    match frames::area(text).and_then(|a| Ok(a.within(sub.max_coordinate())?)) {
        Ok(area) => {
            let revision = sub.set_area(area);
            frames::area_applied(&area, revision)
        }
        Err(err) => frames::error(&err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Query {
        Query::from_pairs(list)
    }

    #[test]
    fn openings_parse_and_name_their_field() {
        let opening = |query: &Query| opening(query, 1e9);
        let got = opening(&pairs(&[("tiles", "0,-1,2,3"), ("fromRevision", "7")])).unwrap();
        assert_eq!(got.from, Some(Resume::new(7, None).unwrap()));
        assert_eq!(got.area, Area::tiles([0, -1, 2, 3], "t").unwrap());
        let got = opening(&pairs(&[
            ("fromRevision", "7"),
            ("fromEpoch", "00AB00cd00ef0012"),
        ]))
        .unwrap();
        assert_eq!(
            got.from.and_then(|f| f.epoch).as_deref(),
            Some("00ab00cd00ef0012")
        );
        let got = opening(&pairs(&[("x", "1.5"), ("z", "2"), ("radius", "10")])).unwrap();
        assert_eq!(got.area, Area::circle(1.5, 2.0, 10.0).unwrap());
        assert_eq!(
            opening(&pairs(&[])).unwrap(),
            Opening {
                area: Area::All,
                from: None
            }
        );
        let field =
            |list: &[(&str, &str)]| opening(&pairs(list)).unwrap_err().field().map(String::from);
        assert_eq!(
            field(&[("fromRevision", "-1")]).as_deref(),
            Some("fromRevision")
        );
        assert_eq!(field(&[("tiles", "1,2,3")]).as_deref(), Some("tiles"));
        for bad in [
            &[("fromRevision", "3"), ("fromEpoch", "xyz")][..],
            &[("fromRevision", "3"), ("fromEpoch", "00ab00cd00ef00123")],
            &[("fromEpoch", "00ab00cd00ef0012")],
        ] {
            assert_eq!(field(bad).as_deref(), Some("fromEpoch"), "{bad:?}");
        }
        assert_eq!(field(&[("x", "1"), ("z", "2")]).as_deref(), Some("radius"));
        assert_eq!(
            field(&[("tiles", "0,0,1,1"), ("x", "1")]).as_deref(),
            Some("tiles")
        );
    }

    /// A misspelt key is refused, not ignored (`fromrevision` would stream live
    /// events without resuming), and so is a centre beyond `max_coordinate`.
    #[test]
    fn openings_refuse_unknown_keys_and_far_centres() {
        let err = |list: &[(&str, &str)]| opening(&pairs(list), 1e9).unwrap_err();
        let e = err(&[("fromrevision", "5")]);
        assert_eq!(e.field(), Some("fromrevision"));
        assert!(e.to_string().contains("unknown query parameter"), "{e}");
        assert_eq!(err(&[("tiles", "0,0,1,1"), ("y", "1")]).field(), Some("y"));
        let e = err(&[("x", "1e10"), ("z", "0"), ("radius", "1")]);
        assert_eq!(e.field(), Some("x"));
        assert!(e.to_string().contains("max_coordinate"), "{e}");
        assert_eq!(
            err(&[("x", "0"), ("z", "-1e10"), ("radius", "1")]).field(),
            Some("z")
        );
        assert!(opening(&pairs(&[("x", "1e9"), ("z", "0"), ("radius", "1")]), 1e9).is_ok());
    }
}
