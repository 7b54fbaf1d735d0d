//! The mesh cache's promise under large views: live tiles (in some active ring, or
//! waiting out their grace) are pinned, so a mesh asked for right after its tile
//! turned active is a hit however much other traffic churns the cache; and the live
//! tiles of every world together must fit in `mesh_cache_bytes`, so a view whose
//! rings cannot be held is refused (429, `viewWidth`) and changes nothing.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{TestServer, assert_http_error, metric_sample};
use serde_json::{Value, json};

/// What the budget counts for one hyperscape tile mesh (64 x 64 vertices).
const TILE_BYTES: usize = 64 * 64 * 32 + 63 * 63 * 6 * 4;

fn viewer(x: f64, z: f64, w: f64, d: f64) -> Value {
    json!({"x": x, "z": z, "viewWidth": w, "viewDepth": d})
}

/// A server whose mesh budget holds 30 hyperscape tiles.
async fn server() -> TestServer {
    TestServer::start_with(|c| c.limits.mesh_cache_bytes = 30 * TILE_BYTES).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_whose_rings_cannot_be_held_is_refused() {
    let server = server().await;
    // A point viewer: its active ring is 5 x 5 = 25 tiles, which fit.
    let (status, body) = server
        .put_json(
            "/v1/worlds/main/viewers/a",
            &viewer(0.0, 0.0, 0.0, 0.0),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // Another 25 elsewhere would make 50.
    let answer = server
        .put_json(
            "/v1/worlds/main/viewers/b",
            &viewer(5000.0, 0.0, 0.0, 0.0),
            None,
        )
        .await;
    assert_http_error(&answer, 429, "RESOURCE_EXHAUSTED", Some("viewWidth"));
    let message = answer.1["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("50 tiles") && message.contains("mesh_cache_bytes"),
        "{message}"
    );
    // The probe's 12 km view: 15,625 tiles.
    let answer = server
        .put_json(
            "/v1/worlds/main/viewers/c",
            &viewer(0.0, 0.0, 12_000.0, 12_000.0),
            None,
        )
        .await;
    assert_http_error(&answer, 429, "RESOURCE_EXHAUSTED", Some("viewWidth"));
    // Nothing changed: one viewer, its 25 tiles.
    let (_, live) = server.get("/v1/worlds/main/live-tiles").await;
    assert_eq!(live["viewers"], 1, "{live}");
    assert_eq!(live["active"].as_array().unwrap().len(), 25, "{live}");
    // Overlapping the first viewer costs only the new tiles: 5 more.
    let (status, body) = server
        .put_json(
            "/v1/worlds/main/viewers/d",
            &viewer(100.0, 0.0, 0.0, 0.0),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_tiles_stay_hits_while_other_traffic_churns_the_cache() {
    let server = server().await;
    let (status, body) = server
        .put_json(
            "/v1/worlds/main/viewers/a",
            &viewer(0.0, 0.0, 0.0, 0.0),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let active: Vec<(i64, i64)> = body["active"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t[0].as_i64().unwrap(), t[1].as_i64().unwrap()))
        .collect();
    assert_eq!(active.len(), 25);
    // Wait until the lifecycle has built all 25.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = server
            .http
            .get(server.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let built = metric_sample(&text, "terrain_lifecycle_generated_total{world=\"main\"}");
        if built.is_some_and(|n| n >= 25.0) {
            break;
        }
        assert!(Instant::now() < deadline, "25 tiles not generated in time");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // 60 other tiles, each asked for twice (more popular than the live ones), in a
    // cache of 30: the cache evicts live tiles.
    let mesh = |x: i64, z: i64| server.url(&format!("/v1/worlds/main/tiles/{x}/{z}/mesh"));
    for round in 0..2 {
        for k in 0..60 {
            let answer = server.http.get(mesh(50 + k, 40)).send().await.unwrap();
            assert_eq!(answer.status(), 200, "round {round}, tile {k}");
        }
    }
    let mut misses = Vec::new();
    for &(x, z) in &active {
        let answer = server.http.get(mesh(x, z)).send().await.unwrap();
        assert_eq!(answer.status(), 200);
        if answer.headers()["x-terrain-cache"] != "hit" {
            misses.push((x, z));
        }
    }
    assert!(misses.is_empty(), "live tiles missed: {misses:?}");
    server.stop().await;
}
