//! The HTTP/1.1 surface against the real server: answers equal `terrain_core`'s bit for
//! bit, batches keep their order (JSON and binary), heightmaps have the documented
//! layout, and the world list has the documented fields. Refusals: `http_errors.rs`.

use terrain_tests as common;

use common::*;
use serde_json::{Value, json};
use terrain_core::Generator;

/// The query-string form of a coordinate: Rust's shortest round-trip representation.
fn q(v: f64) -> String {
    format!("{v}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_height_matches_core_bit_for_bit() {
    let server = TestServer::start().await;
    let core = main_generator();
    for &(x, z) in POINTS {
        let (status, body) = server
            .get(&format!("/v1/worlds/main/height?x={}&z={}", q(x), q(z)))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_same(num(&body["x"]), x, "x echoed");
        assert_same(num(&body["z"]), z, "z echoed");
        assert_same(
            num(&body["height"]),
            core.height(x, z),
            &format!("height at ({x}, {z})"),
        );
        assert_eq!(body["zone"], json!(null), "no zone decides");
        assert_eq!(body["revision"], 0);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_batch_json_keeps_order() {
    let server = TestServer::start().await;
    let core = main_generator();
    // Small (answered in place) and large (offloaded to the pool, split into chunks).
    for points in [POINTS.to_vec(), spiral(5000)] {
        let body =
            json!({ "points": points.iter().map(|&(x, z)| json!([x, z])).collect::<Vec<_>>() });
        let (status, answer) = server.post_json("/v1/worlds/main/heights", &body).await;
        assert_eq!(status, 200, "{answer}");
        let heights = nums(&answer["heights"]);
        assert_eq!(heights.len(), points.len());
        for (i, (&(x, z), &h)) in points.iter().zip(&heights).enumerate() {
            assert_same(h, core.height(x, z), &format!("heights[{i}] at ({x}, {z})"));
        }
        assert_eq!(answer["zones"], json!(vec![Value::Null; points.len()]));
        assert_eq!(answer["revision"], 0);
    }
    let (status, answer) = server
        .post_json("/v1/worlds/main/heights", &json!({ "points": [] }))
        .await;
    assert_eq!(
        (status.as_u16(), answer["heights"].clone()),
        (200, json!([]))
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_batch_binary_keeps_order() {
    let server = TestServer::start().await;
    let core = main_generator();
    for points in [POINTS.to_vec(), spiral(4099)] {
        let response = server
            .post_points_binary("/v1/worlds/main/heights", &points)
            .await;
        assert_eq!(response.status(), 200);
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], "application/octet-stream");
        assert_eq!(headers["x-terrain-revision"], "0");
        let bytes = response.bytes().await.expect("body");
        assert_eq!(bytes.len(), points.len() * 8);
        for (i, (&(x, z), h)) in points.iter().zip(bytes.chunks_exact(8)).enumerate() {
            let h = f64::from_le_bytes(h.try_into().expect("8 bytes"));
            assert_same(h, core.height(x, z), &format!("heights[{i}] at ({x}, {z})"));
        }
    }
    server.stop().await;
}

/// Checks a heightmap answer cell by cell against per-point `height`.
fn check_heightmap(
    answer: &Value,
    core: &impl Generator,
    (x0, z0, step, nx, nz): (f64, f64, f64, usize, usize),
) {
    assert_same(num(&answer["x0"]), x0, "x0");
    assert_same(num(&answer["z0"]), z0, "z0");
    assert_same(num(&answer["step"]), step, "step");
    assert_eq!(
        (answer["nx"].as_u64(), answer["nz"].as_u64()),
        (Some(nx as u64), Some(nz as u64))
    );
    assert_eq!(answer["revision"], 0);
    let heights = nums(&answer["heights"]);
    assert_eq!(heights.len(), nx * nz);
    for iz in 0..nz {
        for ix in 0..nx {
            let (x, z) = (x0 + ix as f64 * step, z0 + iz as f64 * step);
            assert_same(
                heights[iz * nx + ix],
                core.height(x, z),
                &format!("cell ({ix}, {iz})"),
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_heightmap_layout() {
    let server = TestServer::start().await;
    let core = main_generator();
    // Small, non-square (x fastest must matter); large (row bands on the pool); one
    // long row (split point by point).
    for grid in [
        (-10.5, 20.25, 0.75, 7, 5),
        (-300.0, 125.125, 100.0 / 63.0, 150, 60),
        (3.5, -8.0, 0.1, 5000, 1),
    ] {
        let (x0, z0, step, nx, nz) = grid;
        let path = format!(
            "/v1/worlds/main/heightmap?x0={}&z0={}&step={}&nx={nx}&nz={nz}",
            q(x0),
            q(z0),
            q(step)
        );
        let (status, answer) = server.get(&path).await;
        assert_eq!(status, 200, "{answer}");
        check_heightmap(&answer, &core, grid);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_list_worlds_fields() {
    let server = TestServer::start().await;
    let (status, body) = server.get("/v1/worlds").await;
    assert_eq!(status, 200);
    let core = main_generator();
    let expected = json!({ "worlds": [{
        "id": "main",
        "generator": "hyperscape",
        "seed": 0,
        "tileSize": core.tile_size(),
        "tileResolution": core.tile_resolution(),
        "revision": 0,
        "overlap": "layered",
        "zones": 0,
        "walkability": body["worlds"][0]["walkability"].clone(),
    }]});
    assert_eq!(body, expected);
    // The rule in full is `worlds::`'s test; here its name.
    assert_eq!(body["worlds"][0]["walkability"]["name"], "slope");
    assert_eq!(num(&body["worlds"][0]["tileSize"]), 100.0);
    assert_eq!(body["worlds"][0]["tileResolution"], 64);
    server.stop().await;
}
