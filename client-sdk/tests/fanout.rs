//! Fan-out latency over gRPC: the time from sending a zone registration to the last
//! of 1,000 `Subscribe` streams receiving its event. A measurement, not a check of
//! speed: run it in release mode and read the printed figures.
//!
//! ```text
//! cargo test --release --workspace --test fanout -- --ignored --nocapture
//! ```

mod common;

use std::time::{Duration, Instant};

use common::{TIMEOUT, TestServer, plain_config, rect};
use terrain_client::{Area, StreamMessage};

const SUBSCRIBERS: usize = 1000;
const ROUNDS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement; run with --release --ignored --nocapture"]
async fn mutation_to_last_of_1000_grpc_subscribers() {
    let server = TestServer::start(plain_config).await;
    let mut client = server.client().await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(u64, Instant)>();
    for _ in 0..SUBSCRIBERS {
        let mut stream = client
            .subscribe("main", Area::All, None)
            .await
            .expect("subscribe");
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Ok(Some(m)) = stream.next().await {
                if let StreamMessage::Tiles(e) = m {
                    let _ = tx.send((e.revision, Instant::now()));
                }
            }
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut samples = Vec::new();
    for round in 0..ROUNDS {
        let sent = Instant::now();
        let spec = rect(round as f64 * 20.0, 0.0, 6.0, 6.0, 1.0);
        let rev = client
            .register_flat_zone("main", &format!("z{round}"), &spec)
            .await
            .unwrap()
            .revision;
        let mut last = sent;
        for _ in 0..SUBSCRIBERS {
            let (r, at) = tokio::time::timeout(TIMEOUT, rx.recv())
                .await
                .expect("in time")
                .expect("open");
            assert_eq!(r, rev);
            last = last.max(at);
        }
        samples.push(last - sent);
    }
    samples.sort();
    println!(
        "{SUBSCRIBERS} gRPC subscribers, {ROUNDS} mutations: mutation -> last event p50 {:?}, max {:?}",
        samples[ROUNDS / 2],
        samples[ROUNDS - 1]
    );
}
