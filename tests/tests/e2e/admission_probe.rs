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
