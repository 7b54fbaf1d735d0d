//! Durability across a clean restart, in process: a new server on the same data
//! directory serves the same zones (with their revisions), the same world revision and
//! the same heights; the store holds the ordered mutation log. (A `kill -9` in the
//! middle of a stream of registrations is `server/tests/binary.rs`.)

use terrain_tests as common;

use common::*;
use serde_json::{Value, json};
use terrain_server::{
    Config,
    store::{MutationKind, ZoneStore},
};

const ZONES: &str = "/v1/worlds/main/flat-zones";

fn bare(config: &mut Config) {
    config.worlds = config.worlds.drain(..).map(|w| w.without_zones()).collect();
}

/// Heights and deciding zones at `points`, as the server answers them.
async fn heights(server: &TestServer, points: &[(f64, f64)]) -> Value {
    let body = json!({"points": points.iter().map(|&(x, z)| json!([x, z])).collect::<Vec<_>>()});
    let (status, answer) = server.post_json("/v1/worlds/main/heights", &body).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zones_and_revision_survive_a_restart() {
    let data = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start_in(data, bare).await;
    let zones = [
        (
            "a",
            json!({"centerX": 0.0, "centerZ": 0.0, "width": 10.0, "depth": 10.0, "height": 5.0, "blendRadius": 3.0}),
        ),
        (
            "b",
            json!({"centerX": 60.0, "centerZ": -20.0, "radius": 6.5, "heightOffset": 0.3, "blendRadius": 2.5, "carveInset": 1.0}),
        ),
        (
            "c",
            json!({"centerX": -80.0, "centerZ": 45.5, "width": 4.0, "depth": 9.0, "height": 22.25, "blendRadius": 0.0, "priority": 7}),
        ),
        (
            "b",
            json!({"centerX": 61.0, "centerZ": -20.0, "radius": 6.5, "heightOffset": 0.3, "blendRadius": 2.5}),
        ),
    ];
    for (id, body) in &zones {
        let (status, answer) = server.put_json(&format!("{ZONES}/{id}"), body, None).await;
        assert_eq!(status, 200, "{answer}");
    }
    let (status, _) = server.delete(&format!("{ZONES}/a"), None).await;
    assert_eq!(status, 200);
    let (_, before) = server.get(ZONES).await;
    assert_eq!(before["revision"], 5);
    let core = main_generator();
    let resolved: Vec<_> = zones
        .iter()
        .map(|(id, body)| resolve(&core, id, body))
        .collect();
    let points = probe_points(&resolved);
    let heights_before = heights(&server, &points).await;
    assert!(
        heights_before["zones"]
            .as_array()
            .expect("zones")
            .iter()
            .any(|z| z == "b")
    );

    let data = server.stop_keeping_data().await;
    let server = TestServer::start_in(data, bare).await;
    let (_, after) = server.get(ZONES).await;
    assert_eq!(
        after, before,
        "the same zones, zone revisions and world revision"
    );
    assert_eq!(
        heights(&server, &points).await,
        heights_before,
        "the same heights, bit for bit"
    );
    let (status, worlds) = server.get("/v1/worlds").await;
    assert_eq!(
        (status.as_u16(), worlds["worlds"][0]["revision"].as_u64()),
        (200, Some(5))
    );

    // Registration goes on from the reloaded revision.
    let d = json!({"centerX": 300.0, "centerZ": 300.0, "radius": 2.0, "height": 1.0, "blendRadius": 1.0});
    let (_, answer) = server.put_json(&format!("{ZONES}/d"), &d, None).await;
    assert_eq!(answer["revision"], 6, "{answer}");

    let data = server.stop_keeping_data().await;
    let store = ZoneStore::open(&data.path().join("data")).expect("store");
    let log: Vec<_> = store
        .log("main", 1)
        .expect("log")
        .into_iter()
        .map(|(revision, m)| (revision, m.kind, m.zone.id))
        .collect();
    use MutationKind::*;
    let want = [
        (1, Registered, "a"),
        (2, Registered, "b"),
        (3, Registered, "c"),
        (4, Replaced, "b"),
        (5, Removed, "a"),
        (6, Registered, "d"),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|&(r, k, id)| (r, k, id.to_string()))
        .collect();
    assert_eq!(log, want);
    let stored = store.load("main").expect("load");
    assert_eq!(stored.revision, 6);
    let ids: Vec<_> = stored
        .zones
        .iter()
        .map(|(z, r)| (z.id.as_str(), *r))
        .collect();
    assert_eq!(ids, [("c", 3), ("b", 4), ("d", 6)]);
    assert_eq!(
        stored.zones[1].0, resolved[3],
        "stored bit for bit as resolved"
    );
}
