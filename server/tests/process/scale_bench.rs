//! Benchmark (ignored by default): how long from a mutation sent to replica A until a
//! subscriber of replica B hears of it, over one local NATS server. Run with
//!
//! ```sh
//! cargo test --release -p terrain-server --test process -- --ignored --nocapture scale_bench::
//! ```
//!
//! Each sample is one `PUT` of a new zone on A (HTTP/1.1, fresh connection) and the
//! matching event on B's WebSocket; mutations run one after another. The figure
//! includes A's CAS write to JetStream and its ack, A applying it (the answer waits for
//! that), and B applying it from the change feed and publishing the event.

use crate::scale;

use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use scale::*;

const WARM_UP: usize = 20;
const SAMPLES: usize = 500;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --ignored --nocapture, preferably --release"]
async fn mutation_to_event_on_another_replica() {
    let bin = nats_binary();
    let dir = tempfile::tempdir().expect("tempdir");
    let nats = Nats::single(&bin, &dir.path().join("nats"));
    let url = nats.url();
    let a = replica(&url, "bench", 1, &dir.path().join("a"));
    let b = replica(&url, "bench", 1, &dir.path().join("b"));
    let mut ws = subscribe(b.addr, "").await;
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("histogram");
    let mut put_only = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("histogram");
    for i in 0..WARM_UP + SAMPLES {
        let addr = a.addr;
        let body = zone(i, 1.0 + i as f64 * 0.01);
        let started = Instant::now();
        let put = tokio::task::spawn_blocking(move || {
            let answer = put_zone(addr, &format!("bench{i}"), &body);
            (answer, started.elapsed())
        });
        let e = event(&mut ws).await;
        let heard = started.elapsed();
        let (answer, acked) = put.await.expect("writer");
        assert_eq!(e["revision"], answer["revision"], "sample {i}");
        if i >= WARM_UP {
            histogram.record(micros(heard)).expect("record");
            put_only.record(micros(acked)).expect("record");
        }
    }
    let ms = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q) as f64 / 1000.0;
    println!(
        "mutation on A -> event on B, {SAMPLES} samples: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(&histogram, 0.5),
        ms(&histogram, 0.99),
        histogram.max() as f64 / 1000.0
    );
    println!(
        "mutation acknowledged by A: p50 {:.2} ms, p99 {:.2} ms",
        ms(&put_only, 0.5),
        ms(&put_only, 0.99)
    );
    drop(ws);
    a.stop();
    b.stop();
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1)
}
