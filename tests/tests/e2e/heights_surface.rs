//! Surface-mode batches (`POST .../heights?mode=surface`, `GetHeights` with
//! `mode = SURFACE`): every height is bit for bit `terrain-core`'s `surface_height`
//! (the single-point surface answer), whether its tile's mesh is cached (its vertex
//! heights are read, nothing is evaluated) or not (evaluated), small batches and
//! large, after a zone change rebuilt the cached tiles; zone ids are not given; a bad
//! mode is refused naming the field. The benchmark (ignored) compares surface and
//! exact batches over cached tiles:
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture heights_surface::`

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{events::put_zone, *};
use serde_json::json;
use terrain_core::{Generator, Overlap, mesh::surface_height};
use terrain_proto::v1::{GetHeightsRequest, HeightMode};
use tonic::Code;

/// The meshes of tiles (0, 0) and (1, 0), which the test caches.
const MESHES: [&str; 2] = [
    "/v1/worlds/main/tiles/0/0/mesh",
    "/v1/worlds/main/tiles/1/0/mesh",
];

const CACHED: &str = r#"terrain_surface_tiles_read_total{world="main"}"#;

/// `n` points spread over tile `(tx, tz)` of world `main` (100 m tiles centred on
/// multiples of 100 m), from a fixed seed.
fn points_in(tx: i64, tz: i64, n: usize, seed: u64) -> Vec<(f64, f64)> {
    random_points(n, 49.9, seed)
        .into_iter()
        .map(|(x, z)| (x + 100.0 * tx as f64, z + 100.0 * tz as f64))
        .collect()
}

/// `POST .../heights?mode=surface` as binary: the heights.
async fn surface_binary(server: &TestServer, points: &[(f64, f64)]) -> Vec<f64> {
    let response = server
        .post_points_binary("/v1/worlds/main/heights?mode=surface", points)
        .await;
    assert_eq!(response.status(), 200);
    let bytes = response.bytes().await.expect("body");
    bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn surface_batches_are_the_single_point_surface_cached_or_not() {
    let server = TestServer::start().await;
    let generator = main_generator();
    // Tiles (0, 0) and (1, 0) are cached; a zone over both rebuilds them at its revision.
    for path in MESHES {
        assert_eq!(server.get(path).await.0, 200);
    }
    let body = json!({"centerX": 50.0, "centerZ": 10.0, "width": 40.0, "depth": 30.0,
                      "heightOffset": 1.5, "blendRadius": 6.0});
    put_zone(&server, "pad", &body).await;
    // The commit rebuilds both tiles in the background; asking for them joins those
    // rebuilds, so the batches below find them cached at the zone's revision.
    for path in MESHES {
        assert_eq!(server.get(path).await.0, 200);
    }
    let core = terrain(
        &generator,
        Overlap::Hyperscape,
        &[resolve(&generator, "pad", &body)],
    );
    let mut points = points_in(0, 0, 2000, 1);
    points.extend(points_in(1, 0, 2000, 2));
    // Tile (4, 3) is not cached: evaluated.
    points.extend(points_in(4, 3, 500, 3));
    let want: Vec<f64> = points
        .iter()
        .map(|&(x, z)| surface_height(&core, x, z))
        .collect();
    assert!(
        points
            .iter()
            .zip(&want)
            .any(|(&(x, z), &s)| s != core.height(x, z)),
        "the surface equals the exact field everywhere: the test shows nothing"
    );
    // Large (on the pool) and small (in place), binary and JSON, gRPC; each batch
    // reads the cached tiles it touches and evaluates the rest.
    for (range, cached) in [(0..4500, 2.0), (0..7, 1.0), (4000..4500, 0.0)] {
        let batch = &points[range.clone()];
        let before = server.metric(CACHED).await;
        let got = surface_binary(&server, batch).await;
        for (i, (&g, &w)) in got.iter().zip(&want[range.clone()]).enumerate() {
            assert_same(g, w, &format!("binary point {i} of {range:?}"));
        }
        let read = server.metric(CACHED).await - before;
        assert_eq!(read, cached, "cached tiles read for points {range:?}");
    }
    let json_points: Vec<[f64; 2]> = points.iter().map(|&(x, z)| [x, z]).collect();
    let (status, answer) = server
        .post_json(
            "/v1/worlds/main/heights?mode=surface",
            &json!({"points": json_points}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["revision"], 1);
    assert_eq!(
        answer["zones"],
        json!([]),
        "surface answers carry no zone ids"
    );
    for (i, (g, &w)) in nums(&answer["heights"]).iter().zip(&want).enumerate() {
        assert_same(*g, w, &format!("JSON point {i}"));
    }
    let mut grpc = server.grpc().await;
    let answer = grpc
        .get_heights(GetHeightsRequest {
            world: "main".into(),
            coordinates: points.iter().flat_map(|&(x, z)| [x, z]).collect(),
            mode: HeightMode::Surface as i32,
            revision: None,
        })
        .await
        .expect("GetHeights")
        .into_inner();
    assert!(answer.zones.is_empty());
    for (i, (&g, &w)) in answer.heights.iter().zip(&want).enumerate() {
        assert_same(g, w, &format!("gRPC point {i}"));
    }
    // The single-point surface answer agrees, on a sample.
    for &(x, z) in points.iter().step_by(450) {
        let (_, one) = server
            .get(&format!("/v1/worlds/main/height?x={x}&z={z}&mode=surface"))
            .await;
        assert_same(
            num(&one["height"]),
            surface_height(&core, x, z),
            "GET surface",
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_bad_batch_mode_is_refused_naming_the_field() {
    let server = TestServer::start().await;
    let answer = server
        .post_json(
            "/v1/worlds/main/heights?mode=mesh",
            &json!({"points": [[0.0, 0.0]]}),
        )
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("mode"));
    let mut grpc = server.grpc().await;
    let status = grpc
        .get_heights(GetHeightsRequest {
            world: "main".into(),
            coordinates: vec![0.0, 0.0],
            mode: 9,
            revision: None,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status.message().starts_with("mode: "),
        "{}",
        status.message()
    );
    server.stop().await;
}

fn median(mut samples: Vec<Duration>) -> (f64, f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (
        ms(samples[samples.len() / 2]),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
async fn surface_vs_exact_batches_over_cached_tiles() {
    let server = TestServer::start().await;
    let mut points = Vec::new();
    for tx in -1..=1 {
        for tz in -1..=1 {
            let path = format!("/v1/worlds/main/tiles/{tx}/{tz}/mesh");
            assert_eq!(server.get(&path).await.0, 200);
            points.extend(points_in(tx, tz, 100_000 / 9, (tx * 3 + tz + 10) as u64));
        }
    }
    let coordinates: Vec<f64> = points.iter().flat_map(|&(x, z)| [x, z]).collect();
    let mut grpc = server.grpc().await;
    let (mut exact, mut surface) = (Vec::new(), Vec::new());
    for _ in 0..21 {
        for (mode, out) in [
            (HeightMode::Exact, &mut exact),
            (HeightMode::Surface, &mut surface),
        ] {
            let request = GetHeightsRequest {
                world: "main".into(),
                coordinates: coordinates.clone(),
                mode: mode as i32,
                revision: None,
            };
            let start = Instant::now();
            grpc.get_heights(request).await.expect("GetHeights");
            out.push(start.elapsed());
        }
    }
    let n = points.len() as f64;
    for (label, samples) in [("exact", exact), ("surface", surface)] {
        let (med, min, max) = median(samples);
        println!(
            "GetHeights {label}, {n} points over 9 cached tiles: median {med:.2} ms (min {min:.2}, max {max:.2}), {:.1} M heights/s",
            n / med / 1e3
        );
    }
    server.stop().await;
}
