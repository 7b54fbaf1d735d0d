//! Resuming event streams from a revision: the missed events exactly once and in
//! order, then live ones; `resync` when the history is pruned.

use terrain_tests as common;

use common::{
    TestServer,
    events::{
        events_client, grpc_next, grpc_subscribe, put_zone, raised, revision, ws_connect, ws_event,
    },
};
use serde_json::json;
use terrain_proto::v1 as pb;

#[tokio::test]
async fn a_resumed_stream_replays_the_missed_events_then_goes_live() {
    let server = TestServer::start().await;
    let mut ws = ws_connect(&server, "main", "").await;
    put_zone(&server, "a", &raised(70.0, 92.0)).await;
    let seen = revision(&ws_event(&mut ws).await);
    drop(ws);

    // Missed: a registration, a replacement (moving "a" two tiles away) and a removal.
    let b = put_zone(&server, "b", &raised(-300.0, 40.0)).await;
    let a = put_zone(&server, "a", &raised(270.0, 92.0)).await;
    let (status, removed) = server.delete("/v1/worlds/main/flat-zones/b", None).await;
    assert!(status.is_success(), "{removed}");

    let mut ws = ws_connect(&server, "main", &format!("fromRevision={seen}")).await;
    let replayed = [
        ws_event(&mut ws).await,
        ws_event(&mut ws).await,
        ws_event(&mut ws).await,
    ];
    let revisions: Vec<u64> = replayed.iter().map(revision).collect();
    assert_eq!(revisions, [seen + 1, seen + 2, seen + 3]);
    let causes: Vec<_> = replayed.iter().map(|e| e["cause"].clone()).collect();
    assert_eq!(
        causes,
        [
            json!({"zone": "b", "kind": "registered"}),
            json!({"zone": "a", "kind": "replaced"}),
            json!({"zone": "b", "kind": "removed"}),
        ]
    );
    // Rebuilt from the log, tiles are what the registry reported (old and new zone
    // for the replacement), and the measured delta was recorded.
    assert_eq!(replayed[0]["tiles"], b["tiles"]);
    assert_eq!(replayed[1]["tiles"], a["tiles"]);
    assert_eq!(replayed[2]["tiles"], removed["tiles"]);
    for event in &replayed {
        let delta = event["maxHeightDelta"].as_f64().expect("recorded delta");
        assert!(delta > 4.0, "{event}");
    }
    put_zone(&server, "c", &raised(0.0, 0.0)).await;
    assert_eq!(revision(&ws_event(&mut ws).await), seen + 4);
    server.stop().await;
}

#[tokio::test]
async fn resuming_while_mutations_continue_has_no_gap_and_no_duplicate() {
    let server = std::sync::Arc::new(TestServer::start().await);
    for i in 0..5 {
        put_zone(&server, &format!("z{i}"), &raised(i as f64 * 30.0, 0.0)).await;
    }
    let writer = {
        let server = std::sync::Arc::clone(&server);
        tokio::spawn(async move {
            for i in 5..40 {
                put_zone(&server, &format!("z{i}"), &raised(i as f64 * 30.0, 0.0)).await;
            }
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let mut ws = ws_connect(&server, "main", "fromRevision=2").await;
    let got: Vec<u64> = {
        let mut got = Vec::new();
        while got.last() != Some(&40) {
            got.push(revision(&ws_event(&mut ws).await));
        }
        got
    };
    writer.await.expect("writer");
    assert_eq!(got, (3..=40).collect::<Vec<_>>());
}

#[tokio::test]
async fn pruned_history_opens_with_a_resync_then_goes_live() {
    let server = TestServer::start_with(|c| c.limits.event_history = 3).await;
    for i in 0..6 {
        put_zone(&server, &format!("z{i}"), &raised(i as f64 * 30.0, 0.0)).await;
    }
    let mut ws = ws_connect(&server, "main", "fromRevision=0").await;
    assert_eq!(
        ws_event(&mut ws).await,
        json!({"type": "resync", "revision": 6})
    );
    // Within the kept history a resume still replays.
    let mut kept = ws_connect(&server, "main", "fromRevision=3").await;
    assert_eq!(revision(&ws_event(&mut kept).await), 4);

    let mut client = events_client(&server).await;
    let request = pb::SubscribeRequest {
        world: "main".into(),
        area: None,
        from_revision: Some(1),
    };
    let (mut stream, _) = grpc_subscribe(&mut client, request).await;
    let first = grpc_next(&mut stream).await.and_then(|e| e.kind);
    assert_eq!(
        first,
        Some(pb::event::Kind::Resync(pb::Resync { revision: 6 }))
    );

    put_zone(&server, "live", &raised(500.0, 500.0)).await;
    assert_eq!(revision(&ws_event(&mut ws).await), 7);
    server.stop().await;
}
