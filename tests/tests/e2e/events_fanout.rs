//! Fan-out: every subscriber of an event gets the same encoded bytes. Each event is
//! encoded once per wire format however many WebSocket and gRPC subscribers it
//! reaches (`terrain_event_encodings_total{format}`), and an event outside a
//! subscriber's area still does not reach it.
//!
//! The ignored benchmark measures, with 1,000 WebSocket and then 1,000 gRPC
//! subscribers, the time from a zone PUT being sent to its event reaching the last
//! subscriber:
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture events_fanout::`

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{
    TestServer,
    events::{
        events_client, grpc_subscribe, grpc_tile_event, put_zone, raised, revision, ws_connect,
        ws_event, ws_next,
    },
};
use hdrhistogram::Histogram;
use terrain_proto::v1::{self as pb, subscription_area::Area};
use tokio::sync::mpsc;

fn request(area: Option<pb::SubscriptionArea>) -> pb::SubscribeRequest {
    pb::SubscribeRequest {
        world: "main".into(),
        area,
        from_revision: None,
        from_epoch: None,
    }
}

fn tile_1_1() -> Option<pb::SubscriptionArea> {
    Some(pb::SubscriptionArea {
        area: Some(Area::Tiles(pb::AreaTiles {
            min_tx: 1,
            min_tz: 1,
            max_tx: 1,
            max_tz: 1,
        })),
    })
}

#[tokio::test]
async fn each_event_is_encoded_once_per_format_and_areas_still_filter() {
    let server = TestServer::start().await;
    let mut client = events_client(&server).await;
    let (mut all_ws, mut all_grpc) = (Vec::new(), Vec::new());
    for _ in 0..8 {
        all_ws.push(ws_connect(&server, "main", "").await);
        all_grpc.push(grpc_subscribe(&mut client, request(None)).await.0);
    }
    let mut far_ws = ws_connect(&server, "main", "tiles=1,1,1,1").await;
    let (mut far_grpc, _) = grpc_subscribe(&mut client, request(tile_1_1())).await;

    for (i, x) in [0.0, 70.0, 140.0].into_iter().enumerate() {
        put_zone(&server, &format!("near{i}"), &raised(x, 0.0)).await;
    }
    // Inside the other area: its subscribers' first event.
    put_zone(&server, "far", &raised(70.0, 92.0)).await;
    for ws in &mut all_ws {
        let mut revisions = Vec::new();
        for _ in 0..4 {
            revisions.push(revision(&ws_event(ws).await));
        }
        assert_eq!(revisions, [1, 2, 3, 4]);
    }
    for stream in &mut all_grpc {
        let mut revisions = Vec::new();
        for _ in 0..4 {
            revisions.push(grpc_tile_event(stream).await.revision);
        }
        assert_eq!(revisions, [1, 2, 3, 4]);
    }
    assert_eq!(
        revision(&ws_event(&mut far_ws).await),
        4,
        "1-3 are outside the area"
    );
    assert_eq!(grpc_tile_event(&mut far_grpc).await.revision, 4);

    for format in ["json", "protobuf"] {
        let series = format!("terrain_event_encodings_total{{format=\"{format}\"}}");
        assert_eq!(
            server.metric(&series).await,
            4.0,
            "{format}: one encoding per event, not per subscriber"
        );
    }
    assert_eq!(
        server
            .metric("terrain_events_sent_total{world=\"main\"}")
            .await,
        (8 * 4 * 2 + 2) as f64
    );
    server.stop().await;
}

/// One subscriber's arrivals: (revision, when).
type Arrivals = mpsc::UnboundedSender<(u64, Instant)>;

/// Sends `mutations` zone PUTs, each after the previous event reached all
/// `subscribers`; prints, per mutation, the time from sending to the last arrival.
async fn measure(
    server: &TestServer,
    label: &str,
    subscribers: usize,
    mutations: u64,
    rx: &mut mpsc::UnboundedReceiver<(u64, Instant)>,
    first_revision: u64,
) {
    let mut last = Histogram::<u64>::new(3).expect("histogram");
    let mut each = Histogram::<u64>::new(3).expect("histogram");
    for i in 0..mutations {
        let sent = Instant::now();
        put_zone(
            server,
            &format!("{label}{i}"),
            &raised((i % 50) as f64 * 40.0, 0.0),
        )
        .await;
        let want = first_revision + i;
        let mut received = 0;
        let mut latest = sent;
        while received < subscribers {
            let (r, at) = tokio::time::timeout(Duration::from_secs(30), rx.recv())
                .await
                .expect("events arrive")
                .expect("subscribers alive");
            assert_eq!(r, want, "one mutation at a time");
            received += 1;
            latest = latest.max(at);
            each.record(at.duration_since(sent).as_micros() as u64)
                .expect("record");
        }
        last.record(latest.duration_since(sent).as_micros() as u64)
            .expect("record");
    }
    let ms = |us: u64| us as f64 / 1e3;
    println!(
        "{label}: {subscribers} subscribers, {mutations} mutations: PUT sent -> last subscriber's event \
         p50 {:.1} ms, p99 {:.1} ms, min {:.1} ms, max {:.1} ms; every event p50 {:.1} ms, p99 {:.1} ms",
        ms(last.value_at_quantile(0.5)),
        ms(last.value_at_quantile(0.99)),
        ms(last.min()),
        ms(last.max()),
        ms(each.value_at_quantile(0.5)),
        ms(each.value_at_quantile(0.99)),
    );
}

async fn ws_subscribers(server: &TestServer, n: usize, tx: &Arrivals) {
    for _ in 0..n {
        let mut ws = ws_connect(server, "main", "").await;
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some(event) = ws_next(&mut ws).await {
                if tx.send((revision(&event), Instant::now())).is_err() {
                    break;
                }
            }
        });
    }
}

async fn grpc_subscribers(server: &TestServer, n: usize, tx: &Arrivals) {
    let mut client = events_client(server).await;
    for i in 0..n {
        // 100 streams per HTTP/2 connection (the server allows 200).
        if i % 100 == 0 {
            client = events_client(server).await;
        }
        let (mut stream, _) = grpc_subscribe(&mut client, request(None)).await;
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Ok(Some(message)) = stream.message().await {
                if let Some(pb::event::Kind::Tiles(t)) = message.kind
                    && tx.send((t.revision, Instant::now())).is_err()
                {
                    break;
                }
            }
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
async fn mutation_to_last_subscriber() {
    const SUBSCRIBERS: usize = 1000;
    const MUTATIONS: u64 = 100;
    let start = |c: &mut terrain_server::Config| {
        c.limits.subscriber_queue = 4096;
        c.connections.max_subscriptions = 4096;
        c.connections.max_subscriptions_per_connection = 4096;
    };
    let server = TestServer::start_with(start).await;
    let (tx, mut rx) = mpsc::unbounded_channel();
    ws_subscribers(&server, SUBSCRIBERS, &tx).await;
    measure(&server, "websocket", SUBSCRIBERS, MUTATIONS, &mut rx, 1).await;
    server.stop().await;

    let server = TestServer::start_with(start).await;
    let (tx, mut rx) = mpsc::unbounded_channel();
    grpc_subscribers(&server, SUBSCRIBERS, &tx).await;
    measure(&server, "grpc", SUBSCRIBERS, MUTATIONS, &mut rx, 1).await;
    server.stop().await;
}
