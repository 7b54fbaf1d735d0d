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
    let resync = ws_event(&mut ws).await;
    assert_eq!(
        (&resync["type"], &resync["revision"]),
        (&json!("resync"), &json!(6))
    );
    assert_eq!(resync["epoch"].as_str().map(str::len), Some(16), "{resync}");
    // Within the kept history a resume still replays.
    let mut kept = ws_connect(&server, "main", "fromRevision=3").await;
    assert_eq!(revision(&ws_event(&mut kept).await), 4);

    let mut client = events_client(&server).await;
    let request = pb::SubscribeRequest {
        world: "main".into(),
        area: None,
        from_revision: Some(1),
        from_epoch: None,
    };
    let (mut stream, _) = grpc_subscribe(&mut client, request).await;
    let first = grpc_next(&mut stream).await.and_then(|e| e.kind);
    let Some(pb::event::Kind::Resync(pb::Resync { revision: 6, epoch })) = first else {
        panic!("resync at 6 first, got {first:?}");
    };
    assert_eq!(epoch.len(), 16, "the world's epoch: {epoch:?}");

    put_zone(&server, "live", &raised(500.0, 500.0)).await;
    assert_eq!(revision(&ws_event(&mut ws).await), 7);
    server.stop().await;
}

/// A server restarted on an empty data directory counts the same revisions again with
/// other changes. A resume naming the old history's epoch is answered with `resync`
/// at the new revision on both surfaces (a resume without one would be taken at its
/// word and replay the new history's events after it, which are not the ones after
/// what the client holds); the new epoch's resume replays as usual.
#[tokio::test]
async fn a_resume_from_another_history_is_answered_with_a_resync() {
    let mut server = TestServer::start().await;
    let mut ws = ws_connect(&server, "main", "").await;
    put_zone(&server, "old", &raised(70.0, 92.0)).await;
    let first = ws_event(&mut ws).await;
    let old_epoch = first["epoch"]
        .as_str()
        .expect("events carry the epoch")
        .to_string();
    assert_eq!(old_epoch.len(), 16, "{first}");
    drop(ws);

    // The same address, an empty data directory: revisions 1..3 name other zones.
    server
        .restart_empty(|c| {
            c.worlds = c.worlds.drain(..).map(|w| w.without_zones()).collect();
            c.lifecycle.warm_radius = None;
        })
        .await;
    for (i, x) in [-300.0, 0.0, 270.0].into_iter().enumerate() {
        put_zone(&server, &format!("new{i}"), &raised(x, 40.0)).await;
    }
    let (_, list) = server.get("/v1/worlds/main/flat-zones").await;
    let new_epoch = list["epoch"]
        .as_str()
        .expect("the list names its epoch")
        .to_string();
    assert_ne!(new_epoch, old_epoch, "another history, another epoch");

    let mut ws = ws_connect(
        &server,
        "main",
        &format!("fromRevision=1&fromEpoch={old_epoch}"),
    )
    .await;
    let resync = ws_event(&mut ws).await;
    assert_eq!(
        resync,
        json!({"type": "resync", "revision": 3, "epoch": new_epoch}),
        "not a replay of the new history's revisions 2 and 3"
    );
    // The new history's own epoch replays.
    let mut ws = ws_connect(
        &server,
        "main",
        &format!("fromRevision=1&fromEpoch={new_epoch}"),
    )
    .await;
    let replayed = ws_event(&mut ws).await;
    assert_eq!(
        (revision(&replayed), replayed["epoch"].as_str()),
        (2, Some(new_epoch.as_str()))
    );

    // gRPC: `Subscribed` names the epoch, and the old one is answered with `resync`.
    let mut client = events_client(&server).await;
    let request = pb::SubscribeRequest {
        world: "main".into(),
        area: None,
        from_revision: Some(1),
        from_epoch: Some(old_epoch.clone()),
    };
    let mut stream = client
        .subscribe(request)
        .await
        .expect("subscribe")
        .into_inner();
    let subscribed = grpc_next(&mut stream).await.and_then(|e| e.kind);
    let Some(pb::event::Kind::Subscribed(subscribed)) = subscribed else {
        panic!("subscribed first, got {subscribed:?}");
    };
    assert_eq!(
        (subscribed.revision, subscribed.epoch),
        (3, new_epoch.clone())
    );
    let first = grpc_next(&mut stream).await.and_then(|e| e.kind);
    assert_eq!(
        first,
        Some(pb::event::Kind::Resync(pb::Resync {
            revision: 3,
            epoch: new_epoch.clone()
        }))
    );
    // A revision ahead of the new history, from the old one: a resync too, not a 400.
    let mut ws = ws_connect(
        &server,
        "main",
        &format!("fromRevision=9&fromEpoch={old_epoch}"),
    )
    .await;
    assert_eq!(ws_event(&mut ws).await["type"], "resync");
    // A malformed epoch is refused naming the field.
    let (status, body) = server
        .get("/v1/worlds/main/events?fromRevision=1&fromEpoch=nothex")
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["field"], "fromEpoch", "{body}");
    server.stop().await;
}
