//! The cap on open streams: gRPC `Subscribe`, WebSocket event subscriptions and
//! `TrackViewers` share `max_subscriptions_per_connection` (per connection) and
//! `max_subscriptions` (per server). A stream beyond either is refused at once
//! (gRPC `RESOURCE_EXHAUSTED`; WebSocket 503 with `Retry-After` and the JSON error
//! body, before the upgrade), and a place is given back when a stream ends.
//!
//! A `TrackViewers` client that stops (behind a frozen proxy: no reads, no ping
//! answers) loses its viewer and its active tiles once an HTTP/2 keep-alive ping goes
//! unanswered: within `http2_keepalive_interval` + `http2_keepalive_timeout`. A
//! stream that is alive but sends nothing ends after `viewer_ttl`, with its viewers.
//! A WebSocket subscriber that stops (the same proxy) stops answering the server's
//! pings and is closed within `websocket_ping_interval` + `websocket_ping_timeout`,
//! giving its place back.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{
    TestServer,
    events::{grpc_subscribe, ws_connect},
};
use futures::StreamExt as _;
use serde_json::Value;
use terrain_proto::v1::{
    self as pb, terrain_events_client::TerrainEventsClient,
    terrain_lifecycle_client::TerrainLifecycleClient, viewer_update::Update,
};
use tokio::{
    net::{TcpListener, TcpStream},
    sync::{mpsc, watch},
};
use tokio_stream::wrappers::ReceiverStream;
use tokio_tungstenite::tungstenite::Message;
use tonic::{
    Code, Status,
    transport::{Channel, Endpoint},
};

/// How long a freed place may take to be seen.
const WAIT: Duration = Duration::from_secs(10);

fn subscribe_all() -> pb::SubscribeRequest {
    pb::SubscribeRequest {
        world: "main".into(),
        area: None,
        from_revision: None,
        from_epoch: None,
    }
}

/// Tries to subscribe over `channel`: the stream, or the refusal.
async fn try_subscribe(channel: &Channel) -> Result<tonic::Streaming<pb::Event>, Status> {
    let mut client = TerrainEventsClient::new(channel.clone());
    client
        .subscribe(subscribe_all())
        .await
        .map(tonic::Response::into_inner)
}

/// Tries to open a `TrackViewers` stream over `channel` with one viewer: the update
/// sender (the stream lives while it does) and the answer, or the refusal.
async fn try_track(
    channel: &Channel,
    id: &str,
) -> Result<
    (
        mpsc::Sender<pb::ViewerUpdate>,
        tonic::Streaming<pb::LifecycleEvent>,
    ),
    Status,
> {
    let (tx, rx) = mpsc::channel(4);
    let upsert = pb::ViewerUpdate {
        world: "main".into(),
        update: Some(Update::Upsert(pb::Viewer {
            id: id.into(),
            x: 0.0,
            z: 0.0,
            view_width: 10.0,
            view_depth: 10.0,
            ..Default::default()
        })),
    };
    tx.send(upsert).await.expect("queued");
    let mut client = TerrainLifecycleClient::new(channel.clone());
    let stream = client.track_viewers(ReceiverStream::new(rx)).await?;
    Ok((tx, stream.into_inner()))
}

fn assert_refused(status: &Status, key: &str) {
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().starts_with("streams: "), "{status:?}");
    assert!(status.message().contains(&format!("({key})")), "{status:?}");
}

#[tokio::test]
async fn the_per_connection_cap_refuses_a_stream_until_one_ends() {
    let server =
        TestServer::start_with(|c| c.connections.max_subscriptions_per_connection = 2).await;
    let channel = server.channel().await;
    let (first, _) = grpc_subscribe(
        &mut TerrainEventsClient::new(channel.clone()),
        subscribe_all(),
    )
    .await;
    let (_tx, mut track) = try_track(&channel, "v").await.expect("second stream");
    track.message().await.expect("snapshot").expect("snapshot");
    assert_eq!(
        server
            .metric("terrain_open_streams{kind=\"grpc_events\"}")
            .await,
        1.0
    );
    assert_eq!(
        server
            .metric("terrain_open_streams{kind=\"track_viewers\"}")
            .await,
        1.0
    );
    // Both kinds count against the one budget of the connection.
    let status = try_subscribe(&channel).await.expect_err("third stream");
    assert_refused(&status, "max_subscriptions_per_connection");
    let status = try_track(&channel, "w").await.expect_err("third stream");
    assert_refused(&status, "max_subscriptions_per_connection");
    // Another connection has its own budget.
    let other = server.channel().await;
    let _elsewhere = try_subscribe(&other).await.expect("another connection");
    // Once a stream ends, the connection may open another.
    drop(first);
    let deadline = Instant::now() + WAIT;
    let _again = loop {
        match try_subscribe(&channel).await {
            Ok(stream) => break stream,
            Err(status) => {
                assert_refused(&status, "max_subscriptions_per_connection");
                assert!(
                    Instant::now() < deadline,
                    "the ended stream keeps its place"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    };
    server.stop().await;
}

/// Tries a WebSocket subscription: the socket, or the refusal's status, headers
/// and JSON body.
async fn try_ws(server: &TestServer) -> Result<common::events::Ws, (u16, Option<String>, Value)> {
    let url = format!("ws://{}/v1/worlds/main/events", server.addr);
    match tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(url))
        .await
        .expect("answered in time")
    {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let body = response.body().as_deref().unwrap_or_default();
            let body = serde_json::from_slice(body).expect("a JSON body");
            Err((response.status().as_u16(), retry_after, body))
        }
        Err(e) => panic!("WebSocket: {e}"),
    }
}

#[tokio::test]
async fn the_server_cap_refuses_a_websocket_with_503_until_one_ends() {
    let server = TestServer::start_with(|c| c.connections.max_subscriptions = 2).await;
    let mut ws = ws_connect(&server, "main", "").await;
    let channel = server.channel().await;
    let _grpc = try_subscribe(&channel).await.expect("second stream");
    let (status, retry_after, body) = try_ws(&server).await.expect_err("third stream");
    assert_eq!(status, 503, "{body}");
    assert_eq!(retry_after.as_deref(), Some("1"));
    assert_eq!(body["error"]["code"], "RESOURCE_EXHAUSTED", "{body}");
    let message = body["error"]["message"].as_str().expect("a message");
    assert!(message.contains("(max_subscriptions)"), "{body}");
    // gRPC streams on a fresh connection are refused as well.
    let fresh = server.channel().await;
    let status = try_track(&fresh, "v").await.expect_err("third stream");
    assert_refused(&status, "max_subscriptions");
    // Once the WebSocket closes, a new one is accepted.
    ws.close(None).await.expect("close");
    while ws.next().await.is_some() {}
    drop(ws);
    let deadline = Instant::now() + WAIT;
    loop {
        match try_ws(&server).await {
            Ok(_ws) => break,
            Err((status, _, body)) => {
                assert_eq!(status, 503, "{body}");
                assert!(
                    Instant::now() < deadline,
                    "the closed socket keeps its place"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    server.stop().await;
}

/// A loopback proxy for one connection to `target` that forwards until `freeze`
/// fires, then goes silent both ways (a stopped peer), keeping both sockets open.
async fn freezable(target: std::net::SocketAddr) -> (std::net::SocketAddr, watch::Sender<bool>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (freeze, mut frozen) = watch::channel(false);
    tokio::spawn(async move {
        let Ok((mut inbound, _)) = listener.accept().await else {
            return;
        };
        let Ok(mut outbound) = TcpStream::connect(target).await else {
            return;
        };
        tokio::select! {
            _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => return,
            _ = frozen.changed() => {}
        }
        // Silent both ways, both sockets held open (the test ends before this does).
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(outbound);
        drop(inbound);
    });
    (addr, freeze)
}

#[tokio::test]
async fn a_stopped_websocket_client_gives_its_place_back_within_the_ping_bound() {
    let interval = Duration::from_millis(300);
    let timeout = Duration::from_millis(300);
    let server = TestServer::start_with(|c| {
        c.connections.websocket_ping_interval = interval;
        c.connections.websocket_ping_timeout = timeout;
        c.connections.max_subscriptions = 1;
    })
    .await;
    let (proxy, freeze) = freezable(server.addr).await;
    let url = format!("ws://{proxy}/v1/worlds/main/events");
    let (mut ws, _) = tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(url))
        .await
        .expect("connects in time")
        .expect("WebSocket upgrade");
    // A live client (reading, so tungstenite answers the pings) keeps its place past
    // several intervals, and is pinged about once an interval.
    let until = tokio::time::Instant::now() + interval * 5;
    let mut pings = 0;
    while let Ok(frame) = tokio::time::timeout_at(until, ws.next()).await {
        match frame {
            Some(Ok(Message::Ping(_))) => pings += 1,
            Some(Ok(_)) => {}
            other => panic!("the live client's socket ended: {other:?}"),
        }
    }
    assert!((2..=6).contains(&pings), "{pings} pings in 5 intervals");
    let (status, _, body) = try_ws(&server).await.expect_err("the place is taken");
    assert_eq!(status, 503, "{body}");
    let released = stop_peer(&freeze, interval + timeout, || async {
        match try_ws(&server).await {
            Ok(_ws) => Ok(()),
            Err((status, _, body)) => {
                assert_eq!(status, 503, "{body}");
                Err("the stopped client still holds its place".to_string())
            }
        }
    })
    .await;
    eprintln!("the stopped WebSocket client's place was given back {released:?} after it stopped");
    assert!(released >= timeout, "released at {released:?}");
    server.stop().await;
}

/// Freezes the proxy (its peer stops), then checks `released` every 20 ms until it
/// answers `Ok`: how long after the freeze that was. Fails, with what `released` last
/// said, once `bound` and 2 s more have passed.
async fn stop_peer<F, Fut>(
    freeze: &watch::Sender<bool>,
    bound: Duration,
    mut released: F,
) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    freeze.send(true).expect("proxy runs");
    let frozen = Instant::now();
    let bound = bound + Duration::from_secs(2);
    loop {
        match released().await {
            Ok(()) => return frozen.elapsed(),
            Err(state) => {
                assert!(
                    frozen.elapsed() < bound,
                    "after {:?}: {state}",
                    frozen.elapsed()
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
}

/// The viewers and active tiles of world `main`.
async fn live(channel: &Channel) -> (u32, usize) {
    let mut client = TerrainLifecycleClient::new(channel.clone());
    let live = client
        .get_live_tiles(pb::GetLiveTilesRequest {
            world: "main".into(),
        })
        .await
        .expect("live tiles")
        .into_inner();
    let active = live.tiles.map_or(0, |t| t.active.len());
    (live.viewers, active)
}

#[tokio::test]
async fn a_stopped_track_viewers_client_loses_its_viewer_within_the_keepalive_bound() {
    let interval = Duration::from_millis(300);
    let timeout = Duration::from_millis(300);
    let server = TestServer::start_with(|c| {
        c.connections.http2_keepalive_interval = interval;
        c.connections.http2_keepalive_timeout = timeout;
    })
    .await;
    let direct = server.channel().await;
    let (proxy, freeze) = freezable(server.addr).await;
    let channel = Endpoint::from_shared(format!("http://{proxy}"))
        .expect("endpoint")
        .connect()
        .await
        .expect("gRPC connects");
    let (_tx, mut track) = try_track(&channel, "stopped").await.expect("stream opens");
    track.message().await.expect("snapshot").expect("snapshot");
    track.message().await.expect("a step").expect("a step");
    let (viewers, active) = live(&direct).await;
    assert_eq!(viewers, 1);
    assert!(active > 0, "the viewer has active tiles");
    // A live peer answering pings keeps its viewer past several intervals.
    tokio::time::sleep(interval * 4).await;
    assert_eq!(live(&direct).await.0, 1, "a live stream keeps its viewer");
    let released = stop_peer(&freeze, interval + timeout, || async {
        match live(&direct).await {
            (0, 0) => Ok(()),
            (viewers, active) => Err(format!("{viewers} viewers, {active} active tiles")),
        }
    })
    .await;
    eprintln!("viewer and active tiles released {released:?} after the peer stopped");
    assert!(released >= timeout, "released at {released:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_silent_track_viewers_stream_ends_after_the_viewer_ttl_with_its_viewers() {
    let ttl = Duration::from_millis(600);
    let server = TestServer::start_with(|c| c.lifecycle.viewer_ttl = ttl).await;
    let channel = server.channel().await;
    // A stream that keeps updating lives on past several TTLs.
    let (tx, mut talking) = try_track(&channel, "talking").await.expect("stream opens");
    talking
        .message()
        .await
        .expect("snapshot")
        .expect("snapshot");
    let (stop, mut stopped) = watch::channel(false);
    let updates = tokio::spawn(async move {
        let mut ticks = tokio::time::interval(ttl / 3);
        while !*stopped.borrow() {
            tokio::select! {
                _ = ticks.tick() => {}
                _ = stopped.changed() => break,
            }
            let again = pb::ViewerUpdate {
                world: "main".into(),
                update: Some(Update::Upsert(pb::Viewer {
                    id: "talking".into(),
                    view_width: 10.0,
                    view_depth: 10.0,
                    ..Default::default()
                })),
            };
            if tx.send(again).await.is_err() {
                break;
            }
        }
        tx
    });
    // A silent one (its sender held open, nothing sent after the first update). Its
    // silence is timed by the server from when it read that update, which is after
    // this instant and before the stream is open here.
    let opened = Instant::now();
    let (_silent_tx, mut silent) = try_track(&channel, "silent").await.expect("stream opens");
    let status = loop {
        match tokio::time::timeout(WAIT, silent.message()).await {
            Ok(Ok(Some(_))) => continue,
            Ok(Ok(None)) => panic!("the silent stream ended without a status"),
            Ok(Err(status)) => break status,
            Err(_) => panic!("the silent stream was not ended within {WAIT:?}"),
        }
    };
    let ended = opened.elapsed();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert!(status.message().contains("viewer_ttl"), "{status:?}");
    assert!(ended >= ttl, "ended after {ended:?}, before the TTL");
    // Its viewer went with it; the talking stream's stayed.
    let deadline = Instant::now() + WAIT;
    while live(&channel).await.0 != 1 {
        assert!(Instant::now() < deadline, "the silent viewer stayed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(ttl * 2).await;
    assert_eq!(
        live(&channel).await.0,
        1,
        "the talking stream keeps its viewer"
    );
    stop.send(true).expect("updater runs");
    drop(updates.await.expect("updater"));
    server.stop().await;
}
