//! Benchmark (ignored by default): voxel chunk requests per second over HTTP, cold
//! (each request a chunk never asked for) and warm (a small set asked for again and
//! again), for the blocks (JSON and binary), instances and mesh routes, with `C`
//! concurrent requests on one server in this process. The gRPC figures come from
//! `terrain-load` (commands in docs/src/benchmarks.md).
//!
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture voxel_bench::`

use terrain_tests as common;

use std::{
    sync::{
        Arc,
        atomic::{AtomicI64, Ordering},
    },
    time::{Duration, Instant},
};

use common::TestServer;

use common::voxel::*;

/// Concurrent requests.
const C: usize = 8;
/// How long each scenario runs.
const RUN: Duration = Duration::from_secs(3);
/// The warm set: chunks (0..4, 0..4), fetched once before timing.
const WARM: i64 = 4;

/// Runs `C` workers for `RUN`, each asking for `route` of the next chunk: along row
/// `cold` (chunks never asked for), or cycling through the warm set; prints requests
/// per second and latency percentiles.
async fn run(server: &Arc<TestServer>, label: &str, route: &str, cold: Option<i64>) {
    let counter = Arc::new(AtomicI64::new(0));
    let start = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..C {
        let (server, counter, route) =
            (Arc::clone(server), Arc::clone(&counter), route.to_string());
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            while start.elapsed() < RUN {
                let n = counter.fetch_add(1, Ordering::Relaxed);
                // Cold chunks march off along a row never visited; warm ones cycle.
                let (cx, cz) = match cold {
                    Some(row) => (n, row),
                    None => (n % WARM, (n / WARM) % WARM),
                };
                let t = Instant::now();
                let response = server
                    .http
                    .get(server.url(&format!("/v1/worlds/{VOXEL}/tiles/{cx}/{cz}/{route}")))
                    .send()
                    .await
                    .expect("GET");
                assert_eq!(response.status(), 200);
                response.bytes().await.expect("body");
                latencies.push(t.elapsed());
            }
            latencies
        }));
    }
    let mut all = Vec::new();
    for w in workers {
        all.extend(w.await.unwrap());
    }
    let elapsed = start.elapsed().as_secs_f64();
    all.sort();
    let pct =
        |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)].as_secs_f64() * 1e3;
    println!(
        "{label:<28} {:>8.0} req/s  p50 {:>6.2} ms  p99 {:>6.2} ms  ({} requests, c={C})",
        all.len() as f64 / elapsed,
        pct(0.5),
        pct(0.99),
        all.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark: run in release with --ignored --nocapture"]
async fn chunk_requests_per_second() {
    let server = Arc::new(TestServer::start_with(voxel_worlds).await);
    let routes = [
        "blocks",
        "blocks?format=binary",
        "instances",
        "mesh",
        "mesh.glb",
    ];
    for (row, route) in (1000..).zip(routes) {
        for cz in 0..WARM {
            for cx in 0..WARM {
                let url = server.url(&format!("/v1/worlds/{VOXEL}/tiles/{cx}/{cz}/{route}"));
                server
                    .http
                    .get(url)
                    .send()
                    .await
                    .unwrap()
                    .bytes()
                    .await
                    .unwrap();
            }
        }
        run(&server, &format!("{route} warm"), route, None).await;
        run(&server, &format!("{route} cold"), route, Some(row)).await;
    }
}
