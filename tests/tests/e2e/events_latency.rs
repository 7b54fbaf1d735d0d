//! Benchmark (ignored by default): latency from a mutation's PUT being sent to its
//! event arriving at WebSocket subscribers, with 1 and 1,000 subscribers.
//!
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture events_latency::`

use terrain_tests as common;

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use common::{
    TestServer,
    events::{put_zone, raised, revision, ws_connect, ws_next},
};
use hdrhistogram::Histogram;

async fn measure(subscribers: usize, mutations: u64) {
    let server = Arc::new(TestServer::start_with(|c| c.limits.subscriber_queue = 4096).await);
    let mut readers = Vec::new();
    for _ in 0..subscribers {
        let mut ws = ws_connect(&server, "main", "").await;
        readers.push(tokio::spawn(async move {
            let mut arrivals = Vec::new();
            while let Some(event) = ws_next(&mut ws).await {
                arrivals.push((revision(&event), Instant::now()));
                if arrivals.len() as u64 == mutations {
                    break;
                }
            }
            arrivals
        }));
    }
    let mut sent = Vec::new();
    for i in 0..mutations {
        sent.push(Instant::now());
        put_zone(
            &server,
            &format!("z{i}"),
            &raised((i % 50) as f64 * 40.0, 0.0),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let mut histogram = Histogram::<u64>::new(3).expect("histogram");
    for reader in readers {
        for (r, at) in reader.await.expect("reader") {
            let micros = at.duration_since(sent[(r - 1) as usize]).as_micros();
            histogram.record(micros as u64).expect("record");
        }
    }
    assert_eq!(
        histogram.len(),
        subscribers as u64 * mutations,
        "every event arrived"
    );
    println!(
        "{subscribers} subscriber(s), {mutations} mutations: mutation -> event p50 {} us, p99 {} us, max {} us",
        histogram.value_at_quantile(0.5),
        histogram.value_at_quantile(0.99),
        histogram.max()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
async fn mutation_to_event_latency() {
    measure(1, 300).await;
    measure(1000, 50).await;
}
