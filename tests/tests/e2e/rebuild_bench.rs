//! Benchmark (ignored by default): how long a zone PUT takes to be acknowledged when
//! it changes 25 cached ("hot") tile meshes against one that changes a single cached
//! tile, alternating in one run. The rebuilds run on the compute pool after the
//! acknowledgement; the benchmark also reports how long after the PUT was sent the
//! last of them was in the cache, and waits for them before the next PUT.
//!
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture rebuild_bench::`

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{TestServer, events::put_zone};
use serde_json::json;

fn stats(label: &str, mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = ms(samples[samples.len() / 2]);
    println!(
        "{label}: median {median:.2} ms, min {:.2} ms, max {:.2} ms ({} PUTs)",
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
        samples.len()
    );
    median
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
async fn zone_over_25_hot_tiles_vs_one() {
    let server = TestServer::start().await;
    for tx in -2..=2 {
        for tz in -2..=2 {
            let (status, _) = server
                .get(&format!("/v1/worlds/main/tiles/{tx}/{tz}/mesh"))
                .await;
            assert_eq!(status, 200);
        }
    }
    let regenerated = r#"terrain_tiles_regenerated_total{world="main"}"#;
    let (mut one, mut many) = (Vec::new(), Vec::new());
    let (mut one_rebuilt, mut many_rebuilt) = (Vec::new(), Vec::new());
    for round in 0..21 {
        let offset = 1.0 + f64::from(round % 5);
        // Inside tile (0, 0) only.
        let small = json!({"centerX": 0.0, "centerZ": 0.0, "width": 12.0, "depth": 12.0,
                           "heightOffset": offset, "blendRadius": 2.0});
        // Over tiles -2..=2 x -2..=2 (100 m tiles centred on multiples of 100 m): all
        // 25 cached tiles.
        let large = json!({"centerX": 0.0, "centerZ": 0.0, "width": 480.0, "depth": 480.0,
                           "heightOffset": offset, "blendRadius": 2.0});
        for (zone, body, tiles, acked, rebuilt) in [
            ("one", &small, 1.0, &mut one, &mut one_rebuilt),
            ("many", &large, 25.0, &mut many, &mut many_rebuilt),
        ] {
            let before = server.metric(regenerated).await;
            let start = Instant::now();
            put_zone(&server, zone, body).await;
            acked.push(start.elapsed());
            let deadline = start + Duration::from_secs(10);
            while server.metric(regenerated).await < before + tiles {
                assert!(
                    Instant::now() < deadline,
                    "{tiles} hot tiles not rebuilt in 10 s"
                );
                tokio::time::sleep(Duration::from_micros(200)).await;
            }
            rebuilt.push(start.elapsed());
            assert_eq!(server.metric(regenerated).await - before, tiles, "{zone}");
        }
    }
    let a = stats("zone over 1 hot tile, acknowledged", one);
    let b = stats("zone over 25 hot tiles, acknowledged", many);
    println!("ratio of medians: {:.2}", b / a);
    stats("zone over 1 hot tile, rebuilt (polled)", one_rebuilt);
    stats("zone over 25 hot tiles, rebuilt (polled)", many_rebuilt);
    server.stop().await;
}
