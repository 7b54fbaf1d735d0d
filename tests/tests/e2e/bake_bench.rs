//! Benchmark (ignored by default): how long the start-up bake takes for the default
//! world (`main`: 28 zones, 5 x 5 tiles warmed) and for the example layout world
//! (`frontier`: layout within 3 chunks of the spawn point, 5 x 5 tiles warmed), each on
//! a fresh server, from `terrain_bake_seconds`. Target: under 2 s each.
//!
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture bake_bench::`

use terrain_tests as common;

use std::{
    path::Path,
    time::{Duration, Instant},
};

use clap::Parser;
use common::TestServer;
use terrain_server::{Cli, Config};

const RUNS: usize = 5;

async fn bake_seconds(world: &str) -> f64 {
    let example = {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../worlds/frontier.toml");
        let cli = Cli::parse_from(["terrain-server", "--config", path.to_str().unwrap()]);
        Config::load(&cli).expect("example configuration")
    };
    let data = tempfile::tempdir().unwrap();
    let server = TestServer::start_in(data, |c| {
        c.lifecycle = example.lifecycle;
        c.worlds = example.worlds;
        c.worlds.retain(|w| w.id == world);
    })
    .await;
    let series = format!(r#"terrain_bake_seconds{{world="{world}"}}"#);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(s) = common::metric_sample(&server.metrics().await, &series) {
            server.stop().await;
            return s;
        }
        assert!(Instant::now() < deadline, "{world} baked");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
async fn bake_time() {
    for world in ["main", "frontier"] {
        let mut runs = Vec::new();
        for _ in 0..RUNS {
            runs.push(bake_seconds(world).await);
        }
        runs.sort_by(f64::total_cmp);
        let median = runs[RUNS / 2];
        println!(
            "bake {world}: median {:.0} ms over {RUNS} runs (min {:.0} ms, max {:.0} ms)",
            median * 1e3,
            runs[0] * 1e3,
            runs[RUNS - 1] * 1e3
        );
        assert!(median < 2.0, "{world} bakes in under 2 s: {median} s");
    }
}
