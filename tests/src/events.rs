//! Helpers for the event tests: WebSocket and gRPC subscribers with timeouts, and
//! zones that visibly change the ground.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use terrain_proto::v1::{self as pb, terrain_events_client::TerrainEventsClient};
use tokio::{
    io::{AsyncRead, AsyncWrite},
    net::TcpStream,
};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, tungstenite::Message};
use tonic::{Streaming, transport::Channel};

use super::TestServer;

/// How long a test waits for an event that should come.
pub const EVENT_WAIT: Duration = Duration::from_secs(10);

/// An open WebSocket.
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens `GET /v1/worlds/{world}/events?{query}` as a WebSocket.
pub async fn ws_connect(server: &TestServer, world: &str, query: &str) -> Ws {
    let url = format!("ws://{}/v1/worlds/{world}/events?{query}", server.addr);
    let (ws, _) = tokio::time::timeout(EVENT_WAIT, tokio_tungstenite::connect_async(url))
        .await
        .expect("WebSocket connects in time")
        .expect("WebSocket upgrade");
    ws
}

/// The next JSON text frame, or `None` when the server closed the socket.
pub async fn ws_next<S: AsyncRead + AsyncWrite + Unpin>(
    ws: &mut WebSocketStream<S>,
) -> Option<Value> {
    loop {
        let frame = tokio::time::timeout(EVENT_WAIT, ws.next())
            .await
            .expect("a WebSocket message in time");
        match frame {
            Some(Ok(Message::Text(text))) => {
                return Some(serde_json::from_str(text.as_str()).expect("JSON frame"));
            }
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            Some(Ok(_)) => {}
        }
    }
}

/// The next frame, which must be a JSON message.
pub async fn ws_event<S: AsyncRead + AsyncWrite + Unpin>(ws: &mut WebSocketStream<S>) -> Value {
    ws_next(ws)
        .await
        .expect("an event, not the end of the stream")
}

/// Asserts nothing arrives on `ws` for `wait`.
pub async fn ws_silent<S: AsyncRead + AsyncWrite + Unpin>(
    ws: &mut WebSocketStream<S>,
    wait: Duration,
) {
    if let Ok(frame) = tokio::time::timeout(wait, ws.next()).await {
        panic!("expected silence, got {frame:?}");
    }
}

/// Sends a text frame (an area change).
pub async fn ws_send<S: AsyncRead + AsyncWrite + Unpin>(
    ws: &mut WebSocketStream<S>,
    value: &Value,
) {
    ws.send(Message::Text(value.to_string().into()))
        .await
        .expect("send");
}

/// A `TerrainEvents` client.
pub async fn events_client(server: &TestServer) -> TerrainEventsClient<Channel> {
    TerrainEventsClient::new(server.channel().await)
}

/// Subscribes over gRPC; answers the stream and its subscription id.
pub async fn grpc_subscribe(
    client: &mut TerrainEventsClient<Channel>,
    request: pb::SubscribeRequest,
) -> (Streaming<pb::Event>, String) {
    let mut stream = client
        .subscribe(request)
        .await
        .expect("subscribe")
        .into_inner();
    let first = grpc_next(&mut stream).await.expect("a first message");
    let Some(pb::event::Kind::Subscribed(s)) = first.kind else {
        panic!("the first message announces the subscription, got {first:?}");
    };
    (stream, s.subscription_id)
}

/// A live WebSocket subscription and a live gRPC one to `world`'s events (the gRPC
/// client too: the stream needs its channel kept).
pub async fn subscribe_both(
    server: &TestServer,
    world: &str,
) -> (Ws, TerrainEventsClient<Channel>, Streaming<pb::Event>) {
    let ws = ws_connect(server, world, "").await;
    let mut events = events_client(server).await;
    let (stream, _) = grpc_subscribe(
        &mut events,
        pb::SubscribeRequest {
            world: world.into(),
            ..Default::default()
        },
    )
    .await;
    (ws, events, stream)
}

/// The next message of a gRPC stream, or `None` at its (clean) end.
pub async fn grpc_next(stream: &mut Streaming<pb::Event>) -> Option<pb::Event> {
    tokio::time::timeout(EVENT_WAIT, stream.message())
        .await
        .expect("a gRPC message in time")
        .expect("no stream error")
}

/// The next message, which must be a tile event.
pub async fn grpc_tile_event(stream: &mut Streaming<pb::Event>) -> pb::TileEvent {
    match grpc_next(stream).await.and_then(|e| e.kind) {
        Some(pb::event::Kind::Tiles(t)) => t,
        other => panic!("expected a tile event, got {other:?}"),
    }
}

/// A 20 m x 20 m zone raised 5 m above the terrain at its centre.
pub fn raised(x: f64, z: f64) -> Value {
    json!({"centerX": x, "centerZ": z, "width": 20.0, "depth": 20.0,
           "heightOffset": 5.0, "blendRadius": 2.0})
}

/// `PUT`s zone `id` into world `main`; answers the registry's answer.
pub async fn put_zone(server: &TestServer, id: &str, body: &Value) -> Value {
    let (status, answer) = server
        .put_json(&format!("/v1/worlds/main/flat-zones/{id}"), body, None)
        .await;
    assert!(status.is_success(), "PUT {id}: {status} {answer}");
    answer
}

/// Registers `n` overlapping zones `stack-0..n`, each `width` m square and centred on
/// `(x, z)`, with rising priorities and wide blends: every height under them weighs
/// all of them, which makes a request over them slow to compute on purpose.
///
/// Tests that stack zones run their server with a short `request_timeout`; on a loaded
/// machine a PUT may outlast it (504) or find the server busy (503). The PUT is
/// idempotent (the same zone under the same id), so it is sent again, a few times.
pub async fn stack_zones(server: &TestServer, n: usize, (x, z): (f64, f64), width: f64) {
    for i in 0..n {
        let mut body = raised(x, z);
        body["width"] = width.into();
        body["depth"] = width.into();
        body["priority"] = i.into();
        body["blendRadius"] = (width / 5.0).into();
        let path = format!("/v1/worlds/main/flat-zones/stack-{i}");
        let mut tries = 0;
        loop {
            let (status, answer) = server.put_json(&path, &body, None).await;
            tries += 1;
            let busy = status.as_u16() == 503 || status.as_u16() == 504;
            if status.is_success() || !busy || tries == 5 {
                assert!(status.is_success(), "PUT stack-{i}: {status} {answer}");
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

/// The revision of a JSON event.
#[track_caller]
pub fn revision(event: &Value) -> u64 {
    event["revision"]
        .as_u64()
        .unwrap_or_else(|| panic!("revision in {event}"))
}
