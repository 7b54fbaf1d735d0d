//! A subscriber that stops reading is cut off with a `resync`; the registry and the
//! other subscribers never wait for it.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{
    TestServer,
    events::{grpc_next, put_zone, raised, revision, ws_connect, ws_event},
};
use futures::StreamExt as _;
use terrain_proto::v1::{self as pb, terrain_events_client::TerrainEventsClient};
use tokio_tungstenite::tungstenite::Message;
use tonic::transport::Endpoint;

#[tokio::test]
async fn a_stalled_subscriber_is_cut_off_and_nobody_waits() {
    let server = TestServer::start_with(|c| c.limits.subscriber_queue = 2).await;
    // A tiny HTTP/2 window: once a few events are in flight the server cannot write
    // more, so the subscriber's queue fills as it would for a stalled client.
    let channel = Endpoint::from_shared(format!("http://{}", server.addr))
        .expect("endpoint")
        .initial_stream_window_size(Some(1024))
        .initial_connection_window_size(Some(1024))
        .connect()
        .await
        .expect("connects");
    let mut client = TerrainEventsClient::new(channel);
    let request = pb::SubscribeRequest {
        world: "main".into(),
        area: None,
        from_revision: None,
        from_epoch: None,
    };
    let mut slow = client
        .subscribe(request)
        .await
        .expect("subscribe")
        .into_inner();
    let mut fast = ws_connect(&server, "main", "").await;

    let started = Instant::now();
    for i in 0..50 {
        let put = Instant::now();
        put_zone(&server, &format!("z{i}"), &raised(i as f64 * 10.0, 0.0)).await;
        assert!(
            put.elapsed() < Duration::from_secs(2),
            "PUT {i} took {:?}",
            put.elapsed()
        );
        // The reading subscriber keeps up, revision by revision.
        assert_eq!(revision(&ws_event(&mut fast).await), i + 1);
    }
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );

    // Now read: what made it out, then a resync, then the end of the stream.
    let mut last = 0;
    let resync = loop {
        match grpc_next(&mut slow).await.and_then(|e| e.kind) {
            Some(pb::event::Kind::Subscribed(_)) => {}
            Some(pb::event::Kind::Tiles(t)) => {
                assert_eq!(t.revision, last + 1, "in order, no gap");
                last = t.revision;
            }
            Some(pb::event::Kind::Resync(r)) => break r.revision,
            None => panic!("the stream ended without a resync after revision {last}"),
        }
    };
    assert!(
        last < 50,
        "the subscriber was cut off before the end ({last})"
    );
    assert!(
        resync > last && resync <= 50,
        "resync {resync} after {last}"
    );
    assert!(
        grpc_next(&mut slow).await.is_none(),
        "the stream ends after the resync"
    );

    let metrics = server
        .http
        .get(server.url("/metrics"))
        .send()
        .await
        .expect("GET");
    let text = metrics.text().await.expect("text");
    assert!(
        text.contains("terrain_event_subscribers_dropped_total{world=\"main\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("terrain_events_published_total{world=\"main\"} 50"),
        "{text}"
    );
    server.stop().await;
}

/// A WebSocket subscriber that stops reading while events flow and it is pinged every
/// few milliseconds, then reads again: every revision arrives once, in order, the
/// pings between them. The pings meet the full socket beside the hub's writer and the
/// stream's own flushes, while the outlet goes from direct delivery back to the queue.
#[tokio::test]
async fn a_websocket_reader_that_pauses_while_pinged_still_gets_every_revision_in_order() {
    const ZONES: u64 = 300;
    let server = TestServer::start_with(|c| {
        c.limits.subscriber_queue = 100_000;
        c.connections.websocket_ping_interval = Duration::from_millis(2);
        c.connections.websocket_ping_timeout = Duration::from_secs(60);
    })
    .await;
    // A small receive buffer: the server's socket fills after a few dozen events.
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(2048).expect("SO_RCVBUF");
    let tcp = socket.connect(server.addr).await.expect("connects");
    let url = format!("ws://{}/v1/worlds/main/events", server.addr);
    let (mut ws, _) = tokio_tungstenite::client_async(url, tcp)
        .await
        .expect("WebSocket upgrade");
    // Not read while the zones go in.
    for i in 0..ZONES {
        put_zone(&server, &format!("p{i}"), &raised(i as f64 * 30.0, 500.0)).await;
    }
    let mut last = 0;
    while last < ZONES {
        let frame = tokio::time::timeout(Duration::from_secs(30), ws.next())
            .await
            .unwrap_or_else(|_| panic!("revision {} in time", last + 1));
        match frame {
            Some(Ok(Message::Text(text))) => {
                let event: serde_json::Value = serde_json::from_str(text.as_str()).expect("JSON");
                assert_eq!(event["type"], "event", "{event}");
                assert_eq!(revision(&event), last + 1, "in order, no gap, none twice");
                last += 1;
            }
            Some(Ok(_)) => {} // pings
            other => panic!("the stream ended after revision {last}: {other:?}"),
        }
    }
    server.stop().await;
}
