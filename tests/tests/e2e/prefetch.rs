//! Prefetch in the direction of travel: a viewer that reports its velocity has the
//! tiles its active ring will reach within `lookahead` built ahead of it, so a game
//! client moving at 30 m/s over fresh ground never asks for a mesh that is not
//! cached; bad velocities are refused naming the field.

use terrain_tests as common;

use std::time::Duration;

use common::{TestServer, assert_http_error};
use serde_json::json;
use terrain_server::config::Rings;

const VIEWER: &str = "/v1/worlds/main/viewers/runner";
/// Hyperscape tiles: 100 m, centred on multiples of 100.
const TILE: f64 = 100.0;
/// Far from the spawn point, so nothing here was baked.
const Z: f64 = 1000.0;

fn tile_of(c: f64) -> i64 {
    (c / TILE + 0.5).floor() as i64
}

/// Whether the mesh of tile `(tx, tz)` was served from the cache.
async fn cached(server: &TestServer, tx: i64, tz: i64) -> bool {
    let answer = server
        .http
        .get(server.url(&format!("/v1/worlds/main/tiles/{tx}/{tz}/mesh")))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let hit = answer.headers()["x-terrain-cache"] == "hit";
    answer.bytes().await.unwrap();
    hit
}

/// Runs east at 30 m/s from x = 0 to x = 300 in 3 m steps (one every 20 ms), each
/// report carrying `velocity`. Before each step that enters a new tile the client
/// asks for that tile's mesh (the ground it is about to stand on), and after each
/// step for the mesh of the tile it stands on. Returns the tiles entered and the
/// requests that missed the cache.
async fn run(lookahead: Duration, velocity: f64) -> (Vec<i64>, Vec<String>) {
    let server = TestServer::start_with(|c| {
        // The active ring is the tile under the viewer: each tile entered is fresh.
        c.lifecycle.rings = Rings {
            sim: 0.0,
            spawn: 0.0,
            active: 0.0,
        };
        c.lifecycle.warm_radius = None;
        c.lifecycle.lookahead = lookahead;
    })
    .await;
    let mut misses = Vec::new();
    let mut entered = Vec::new();
    let mut x: f64 = 0.0;
    let body =
        |x: f64| json!({"x": x, "z": Z, "viewWidth": 0.0, "viewDepth": 0.0, "velocityX": velocity});
    let (status, answer) = server.put_json(VIEWER, &body(x), None).await;
    assert_eq!(status, 200, "{answer}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    while x < 300.0 {
        let next = x + 3.0;
        let tz = tile_of(Z);
        if tile_of(next) != tile_of(x) {
            entered.push(tile_of(next));
            if !cached(&server, tile_of(next), tz).await {
                misses.push(format!("before entering ({}, {tz})", tile_of(next)));
            }
        }
        let (status, answer) = server.put_json(VIEWER, &body(next), None).await;
        assert_eq!(status, 200, "{answer}");
        x = next;
        if !cached(&server, tile_of(x), tz).await {
            misses.push(format!("standing on ({}, {tz}) at x = {x}", tile_of(x)));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (entered, misses)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_viewer_running_at_30_m_s_asks_for_no_mesh_that_is_not_cached() {
    let (entered, misses) = run(Duration::from_secs(2), 30.0).await;
    assert_eq!(entered, vec![1, 2, 3]);
    assert!(misses.is_empty(), "{misses:?}");
    // Without the velocity (or without a look-ahead), the ground ahead is fresh: each
    // tile asked for before entering it misses.
    let (_, misses) = run(Duration::from_secs(2), 0.0).await;
    assert!(misses.len() >= 3, "{misses:?}");
    let (_, misses) = run(Duration::ZERO, 30.0).await;
    assert!(misses.len() >= 3, "{misses:?}");
}

#[tokio::test]
async fn bad_velocities_are_refused_naming_the_field() {
    let server = TestServer::start().await;
    for (body, field) in [
        (
            json!({"x": 0, "z": 0, "viewWidth": 1, "viewDepth": 1, "velocityX": "fast"}),
            "velocityX",
        ),
        (
            json!({"x": 0, "z": 0, "viewWidth": 1, "viewDepth": 1, "velocityZ": 1e6}),
            "velocityZ",
        ),
        (
            json!({"x": 0, "z": 0, "viewWidth": 1, "viewDepth": 1, "velocityX": -20000}),
            "velocityX",
        ),
    ] {
        let answer = server.put_json(VIEWER, &body, None).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some(field));
    }
    // Nothing was added.
    let (status, answer) = server.get("/v1/worlds/main/live-tiles").await;
    assert_eq!(status, 200);
    assert_eq!(answer["active"], json!([]), "{answer}");
}
