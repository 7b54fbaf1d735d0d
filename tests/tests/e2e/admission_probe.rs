//! The heavy-request probe, as a benchmark (ignored; run it on a release build):
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture admission_probe::`
//!
//! With the default `request_timeout` (30 s) on the voxel world: 30 concurrent cold map
//! tiles, two concurrent 1,000,000-point batches, the largest heightmap alone, and cold
//! hyperscape meshes asked for during that load. Each answer is either served or
//! refused at once (503 with `Retry-After`); nothing times out.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::*;

use common::voxel::voxel_worlds;

/// Status and time of one GET.
async fn timed_get(http: reqwest::Client, url: String) -> (u16, Duration) {
    let started = Instant::now();
    let answer = http.get(url).send().await.unwrap();
    let status = answer.status().as_u16();
    let _ = answer.bytes().await;
    (status, started.elapsed())
}

/// Status and time of one POST of a JSON body.
async fn timed_post(http: reqwest::Client, url: String, body: String) -> (u16, Duration) {
    let started = Instant::now();
    let answer = http
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let _ = answer.bytes().await;
    (status, started.elapsed())
}

fn summary(what: &str, answers: &[(u16, Duration)]) {
    let count = |s: u16| answers.iter().filter(|a| a.0 == s).count();
    let slowest = answers.iter().map(|a| a.1).max().unwrap_or_default();
    let slowest_refusal = answers
        .iter()
        .filter(|a| a.0 == 503)
        .map(|a| a.1)
        .max()
        .unwrap_or_default();
    println!(
        "{what}: {} answered 200, {} refused 503 (slowest refusal {slowest_refusal:?}), {} timed out 504; slowest answer {slowest:?}",
        count(200),
        count(503),
        count(504)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
async fn heavy_requests_are_served_or_refused_at_once() {
    let server = TestServer::start_with(voxel_worlds).await;

    // 30 concurrent cold map tiles (zoom 1), with cold hyperscape meshes during them.
    let maps = futures::future::join_all((0..30).map(|i| {
        let url = server.url(&format!(
            "/v1/worlds/blocks/map/1/{}/{}.png",
            i % 6 - 3,
            i / 6 - 3
        ));
        timed_get(server.http.clone(), url)
    }));
    let meshes = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut answers = Vec::new();
        for t in 0..5 {
            let url = server.url(&format!("/v1/worlds/main/tiles/{t}/{}/mesh.glb", -t));
            answers.push(timed_get(server.http.clone(), url).await);
        }
        answers
    };
    let (maps, meshes) = tokio::join!(maps, meshes);
    summary("30 cold voxel map tiles", &maps);
    summary("cold hyperscape meshes meanwhile", &meshes);
    assert!(maps.iter().all(|a| a.0 != 504), "{maps:?}");
    assert!(
        maps.iter()
            .all(|a| a.0 != 503 || a.1 < Duration::from_millis(500)),
        "{maps:?}"
    );

    // Two concurrent 1,000,000-point batches over 4 km.
    let batch = |seed: u64| {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 4000.0 - 2000.0
        };
        let points: Vec<[f64; 2]> = (0..1_000_000).map(|_| [next(), next()]).collect();
        serde_json::json!({ "points": points }).to_string()
    };
    let url = server.url("/v1/worlds/blocks/heights");
    let batches = futures::future::join_all(
        [1, 2].map(|s| timed_post(server.http.clone(), url.clone(), batch(s))),
    )
    .await;
    summary("two concurrent 1,000,000-point voxel batches", &batches);
    assert!(batches.iter().all(|a| a.0 != 504), "{batches:?}");
    assert!(batches.iter().any(|a| a.0 == 200), "{batches:?}");

    // The largest heightmap the limits allow, alone.
    let url = server.url("/v1/worlds/blocks/heightmap?x0=-10000&z0=-10000&nx=2048&nz=2048&step=9");
    let alone = timed_get(server.http.clone(), url).await;
    summary("the largest voxel heightmap alone", &[alone]);
    assert_eq!(alone.0, 200, "{alone:?}");
}

/// The largest legal `tileset_extent` (1,000 km) on a hyperscape and a voxel world:
/// their tilesets, roots and the heaviest contents of their coarse levels, all cold and
/// at once, with heights of another world asked for meanwhile. Each answer is served
/// or refused at once; nothing times out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
async fn the_largest_tileset_extent_is_served_or_refused_at_once() {
    let server = TestServer::start_with(|c| {
        let mut big = terrain_server::config::WorldConfig::new(
            "big",
            terrain_core::GeneratorKind::Hyperscape,
            0,
        );
        big.tileset_extent = 1_000_000.0;
        let mut cubes = terrain_server::config::WorldConfig::new(
            "cubes",
            terrain_core::GeneratorKind::Voxel,
            3,
        );
        cubes.voxel = Some(common::voxel::voxel_config());
        cubes.tileset_extent = 1_000_000.0;
        c.worlds = vec![
            terrain_server::config::WorldConfig::new(
                "main",
                terrain_core::GeneratorKind::Hyperscape,
                0,
            ),
            big,
            cubes,
        ];
        c.lifecycle.warm_radius = None;
    })
    .await;
    // Near the centre: the root, sampled levels, and the heaviest contents (level 7
    // of the hyperscape square, 128 x 128 tiles; level 10 of the voxel one, 32 x 32
    // chunks).
    let mut paths = Vec::new();
    for (world, levels) in [
        ("big", [(0u32, 1u64), (1, 2), (4, 2), (6, 2), (7, 4)]),
        ("cubes", [(0, 1), (1, 2), (5, 2), (8, 2), (10, 4)]),
    ] {
        paths.push(format!("/v1/worlds/{world}/3dtiles/tileset.json"));
        for (level, n) in levels {
            // The contents around the square's centre.
            let first = (1u64 << level >> 1).saturating_sub(1);
            for i in 0..n {
                let (x, y) = (first + i % 2, first + i / 2);
                paths.push(format!(
                    "/v1/worlds/{world}/3dtiles/content/{level}/{x}/{y}.glb"
                ));
            }
        }
    }
    let contents = futures::future::join_all(
        paths
            .iter()
            .map(|p| timed_get(server.http.clone(), server.url(p))),
    );
    let heights = async {
        let mut answers = Vec::new();
        for i in 0..20 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let url = server.url(&format!("/v1/worlds/main/height?x={}&z=0", 700_000 + i));
            answers.push(timed_get(server.http.clone(), url).await);
        }
        answers
    };
    let (contents, heights) = tokio::join!(contents, heights);
    for (path, answer) in paths.iter().zip(&contents) {
        println!("{path}: {} in {:?}", answer.0, answer.1);
    }
    summary(
        "two 1,000 km tilesets and 22 cold contents at once",
        &contents,
    );
    summary(
        "heights of another world meanwhile, one every 100 ms",
        &heights,
    );
    assert!(
        contents.iter().all(|a| a.0 == 200 || a.0 == 503),
        "{contents:?}"
    );
    assert!(
        contents
            .iter()
            .all(|a| a.0 != 503 || a.1 < Duration::from_millis(500)),
        "{contents:?}"
    );
    assert!(heights.iter().all(|a| a.0 == 200), "{heights:?}");
    server.stop().await;
}
