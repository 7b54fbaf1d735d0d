//! Connections cannot hold a descriptor for ever without using it: an idle fresh
//! connection, a half-sent request head and an idle keep-alive connection are closed
//! after `header_read_timeout`; a body that stops arriving gets 408 after
//! `request_body_timeout`; beyond `max_connections` a new client waits for a place
//! instead of exhausting descriptors; an idle but live WebSocket or gRPC stream stays
//! open, while an HTTP/2 peer that stops answering pings is dropped, and an HTTP/2
//! connection with nothing in progress is closed after `idle_timeout`.

use terrain_tests as common;

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use common::{
    TestServer,
    events::{
        events_client, grpc_subscribe, grpc_tile_event, put_zone, raised, revision, ws_connect,
        ws_event,
    },
};
use terrain_proto::v1::{self as pb, terrain_events_client::TerrainEventsClient};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::{oneshot, watch},
};
use tonic::transport::Endpoint;

/// The header timeout the tests configure.
const HEADER: Duration = Duration::from_millis(500);
/// The body timeout the tests configure.
const BODY: Duration = Duration::from_millis(500);
/// How long past a timeout the server may take to close.
const SLACK: Duration = Duration::from_secs(3);

async fn server() -> TestServer {
    TestServer::start_with(|c| {
        c.connections.header_read_timeout = HEADER;
        c.connections.request_body_timeout = BODY;
    })
    .await
}

async fn connect(addr: SocketAddr) -> TcpStream {
    tokio::time::timeout(SLACK, TcpStream::connect(addr))
        .await
        .expect("connects in time")
        .expect("connects")
}

/// Reads `tcp` until the server closes it (EOF or reset), for at most `wait`;
/// answers what was read, or `None` if it was still open after `wait`.
async fn read_until_closed(tcp: &mut TcpStream, wait: Duration) -> Option<String> {
    let mut seen = Vec::new();
    let read = async {
        let mut buf = [0u8; 4096];
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(wait, read).await.ok()?;
    Some(String::from_utf8_lossy(&seen).into_owned())
}

/// Scrapes `terrain_connections_open` over a connection of its own (closed after the
/// answer) until that connection is the only one open.
async fn wait_until_only_the_scrape_is_open(addr: SocketAddr) {
    let deadline = Instant::now() + SLACK;
    loop {
        let mut tcp = connect(addr).await;
        tcp.write_all(b"GET /metrics HTTP/1.1\r\nHost: terrain\r\nConnection: close\r\n\r\n")
            .await
            .expect("writes");
        let seen = read_until_closed(&mut tcp, SLACK).await.expect("answered");
        let open = common::metric_sample(&seen, "terrain_connections_open");
        if open == Some(1.0) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "connections still open after {SLACK:?}: {open:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether the server has already closed `tcp` (it reads EOF or an error at once).
async fn is_closed(tcp: &mut TcpStream) -> bool {
    read_until_closed(tcp, Duration::from_millis(50))
        .await
        .is_some()
}

#[tokio::test]
async fn an_idle_connection_is_closed_after_the_header_timeout() {
    let server = server().await;
    let started = Instant::now();
    let mut tcp = connect(server.addr).await;
    let seen = read_until_closed(&mut tcp, HEADER + SLACK).await;
    assert!(
        seen.is_some(),
        "an idle connection is still open after {:?}",
        started.elapsed()
    );
    assert!(started.elapsed() >= HEADER - Duration::from_millis(50));
    server.stop().await;
}

#[tokio::test]
async fn a_half_sent_request_head_is_closed_after_the_header_timeout() {
    let server = server().await;
    let mut tcp = connect(server.addr).await;
    tcp.write_all(b"GET /v1/worlds HTTP/1.1\r\nHost: terrain\r\nX-Slow: 1\r\n")
        .await
        .expect("writes");
    let seen = read_until_closed(&mut tcp, HEADER + SLACK).await;
    assert!(seen.is_some(), "a half-sent head keeps its connection open");
    // Half an HTTP/2 preface: the protocol is not even known yet.
    let mut tcp = connect(server.addr).await;
    tcp.write_all(b"PRI * HTTP/2.0\r\n").await.expect("writes");
    let seen = read_until_closed(&mut tcp, HEADER + SLACK).await;
    assert!(seen.is_some(), "half a preface keeps its connection open");
    server.stop().await;
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_header_timeout() {
    let server = server().await;
    let mut tcp = connect(server.addr).await;
    tcp.write_all(b"GET /v1/worlds HTTP/1.1\r\nHost: terrain\r\n\r\n")
        .await
        .expect("writes");
    // The answer comes, then the connection idles: it is closed, answer included.
    let seen = read_until_closed(&mut tcp, HEADER + SLACK).await;
    let seen = seen.expect("an idle keep-alive connection is closed");
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    server.stop().await;
}

#[tokio::test]
async fn a_body_that_never_arrives_gets_408_and_the_connection_closes() {
    let server = server().await;
    let mut tcp = connect(server.addr).await;
    let head = "POST /v1/worlds/main/heights HTTP/1.1\r\nHost: terrain\r\n\
                Content-Type: application/json\r\nContent-Length: 999999999999\r\n\r\n";
    tcp.write_all(head.as_bytes()).await.expect("writes");
    tcp.write_all(b"{\"points\": [[0, 0]")
        .await
        .expect("writes");
    let started = Instant::now();
    let seen = read_until_closed(&mut tcp, BODY + SLACK).await;
    let seen = seen.expect("a stalled body is answered and closed in time");
    assert!(seen.starts_with("HTTP/1.1 408"), "{seen}");
    assert!(seen.contains("request_body_timeout"), "{seen}");
    assert!(started.elapsed() >= BODY - Duration::from_millis(50));
    server.stop().await;
}

#[tokio::test]
async fn beyond_max_connections_a_new_client_waits_for_an_idle_one_to_be_closed() {
    let server = TestServer::start_with(|c| {
        c.connections.header_read_timeout = Duration::from_secs(1);
        c.connections.max_connections = 2;
    })
    .await;
    // The harness's own keep-alive connection (readiness) closes first: only the
    // scrape's own connection is left open. The listener's backlog is first in, first
    // accepted, so the two idle connections hold both places before the new client.
    wait_until_only_the_scrape_is_open(server.addr).await;
    let mut idle = [connect(server.addr).await, connect(server.addr).await];
    let started = Instant::now();
    let mut tcp = connect(server.addr).await;
    tcp.write_all(b"GET /v1/worlds HTTP/1.1\r\nHost: terrain\r\nConnection: close\r\n\r\n")
        .await
        .expect("writes");
    let seen = read_until_closed(&mut tcp, Duration::from_secs(1) + SLACK).await;
    let seen = seen.expect("the new client is answered once the idle ones are closed");
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    for (i, tcp) in idle.iter_mut().enumerate() {
        assert!(
            is_closed(tcp).await,
            "idle connection {i} still open when the new client was answered after {:?}",
            started.elapsed()
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_websocket_idle_past_the_header_timeout_still_gets_its_event() {
    let server = server().await;
    let mut ws = ws_connect(&server, "main", "").await;
    let mut idle = connect(server.addr).await;
    tokio::time::sleep(HEADER * 3).await;
    assert!(is_closed(&mut idle).await, "the header timeout is in force");
    put_zone(&server, "pad", &raised(70.0, 92.0)).await;
    let event = ws_event(&mut ws).await;
    assert_eq!(revision(&event), 1, "{event}");
    server.stop().await;
}

fn subscribe_all() -> pb::SubscribeRequest {
    pb::SubscribeRequest {
        world: "main".into(),
        area: None,
        from_revision: None,
        from_epoch: None,
    }
}

#[tokio::test]
async fn a_grpc_subscription_idle_past_the_header_timeout_still_gets_its_event() {
    let server = server().await;
    let mut client = events_client(&server).await;
    let (mut stream, _) = grpc_subscribe(&mut client, subscribe_all()).await;
    let mut idle = connect(server.addr).await;
    tokio::time::sleep(HEADER * 3).await;
    assert!(is_closed(&mut idle).await, "the header timeout is in force");
    put_zone(&server, "pad", &raised(70.0, 92.0)).await;
    assert_eq!(grpc_tile_event(&mut stream).await.revision, 1);
    server.stop().await;
}

/// A loopback proxy for one connection to `target` that forwards until `freeze`
/// fires, then goes silent both ways (a stopped peer) while keeping both sockets
/// open; it then reports whether the server closed its side within `wait`.
async fn freezable(
    target: SocketAddr,
    wait: Duration,
) -> (SocketAddr, watch::Sender<bool>, oneshot::Receiver<bool>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (freeze, mut frozen) = watch::channel(false);
    let (report, closed) = oneshot::channel();
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
        let closed = read_until_closed(&mut outbound, wait).await.is_some();
        report.send(closed).ok();
        drop(inbound);
    });
    (addr, freeze, closed)
}

#[tokio::test]
async fn an_http2_peer_that_stops_answering_pings_is_dropped() {
    let keepalive = Duration::from_millis(300);
    let server = TestServer::start_with(|c| {
        c.connections.http2_keepalive_interval = keepalive;
        c.connections.http2_keepalive_timeout = keepalive;
    })
    .await;
    let (proxy, freeze, closed) = freezable(server.addr, keepalive * 2 + SLACK).await;
    let channel = Endpoint::from_shared(format!("http://{proxy}"))
        .expect("endpoint")
        .connect()
        .await
        .expect("gRPC connects");
    let mut client = TerrainEventsClient::new(channel);
    // A live stream with its pings answered stays open past several intervals.
    let (mut stream, _) = grpc_subscribe(&mut client, subscribe_all()).await;
    tokio::time::sleep(keepalive * 4).await;
    put_zone(&server, "pad", &raised(70.0, 92.0)).await;
    assert_eq!(grpc_tile_event(&mut stream).await.revision, 1);
    // Then the peer stops: the server closes the connection once a ping goes unanswered.
    freeze.send(true).expect("proxy runs");
    let closed = tokio::time::timeout(keepalive * 4 + SLACK * 2, closed)
        .await
        .expect("the proxy reports")
        .expect("the proxy reports");
    assert!(closed, "a peer that answers no ping keeps its connection");
    server.stop().await;
}

/// A loopback proxy for one connection to `target`; reports when the connection
/// ends (either side closes it).
async fn watched(target: SocketAddr) -> (SocketAddr, oneshot::Receiver<Instant>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (report, ended) = oneshot::channel();
    tokio::spawn(async move {
        let Ok((mut inbound, _)) = listener.accept().await else {
            return;
        };
        let Ok(mut outbound) = TcpStream::connect(target).await else {
            return;
        };
        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
        report.send(Instant::now()).ok();
    });
    (addr, ended)
}

#[tokio::test]
async fn an_idle_http2_connection_is_closed_after_the_idle_timeout() {
    let idle = Duration::from_millis(500);
    let server = TestServer::start_with(|c| c.connections.idle_timeout = idle).await;
    // A connection with a stream in progress is not idle, however quiet it is.
    let (proxy, mut ended) = watched(server.addr).await;
    let channel = Endpoint::from_shared(format!("http://{proxy}"))
        .expect("endpoint")
        .connect()
        .await
        .expect("gRPC connects");
    let mut client = TerrainEventsClient::new(channel.clone());
    let (mut stream, _) = grpc_subscribe(&mut client, subscribe_all()).await;
    tokio::time::sleep(idle * 3).await;
    assert!(
        ended.try_recv().is_err(),
        "a connection with a stream was closed"
    );
    put_zone(&server, "pad", &raised(70.0, 92.0)).await;
    assert_eq!(grpc_tile_event(&mut stream).await.revision, 1);
    // Once its last stream ends, the connection is idle and closed after the timeout.
    drop(stream);
    let quiet = Instant::now();
    let closed_at = tokio::time::timeout(idle + SLACK, ended)
        .await
        .expect("an idle HTTP/2 connection stayed open")
        .expect("the proxy reports");
    let after = closed_at.duration_since(quiet);
    assert!(after >= idle / 2, "closed {after:?} after going idle");
    // The client's next call reconnects.
    let mut terrain = terrain_proto::v1::terrain_service_client::TerrainServiceClient::new(
        server.channel().await,
    );
    let height = terrain
        .get_height(pb::GetHeightRequest {
            world: "main".into(),
            x: 1.0,
            z: 2.0,
            ..Default::default()
        })
        .await
        .expect("a new connection answers");
    assert!(height.into_inner().height.is_finite());
    server.stop().await;
}
