//! A large batch computes on a snapshot of the world: a registration that arrives
//! while a 1,000,000-point `heights` batch is being computed is acknowledged without
//! waiting for it, and the batch answers with the revision it started on.
//!
//! The benchmark (ignored by default) alternates registrations on an idle server and
//! registrations sent halfway through such a batch, in one run:
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture snapshot::`

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{
    TestServer,
    events::{put_zone, raised, stack_zones},
    random_points,
};

/// The points of the batch: all under 64 stacked zones, so computing them, not
/// moving them, takes the time.
fn million_points() -> Vec<(f64, f64)> {
    random_points(1_000_000, 60.0, 7)
}

/// Posts the batch; answers its revision header and how long it took.
async fn batch(server: &TestServer, points: &[(f64, f64)]) -> (String, Duration) {
    let start = Instant::now();
    let response = server
        .post_points_binary("/v1/worlds/main/heights", points)
        .await;
    assert_eq!(response.status(), 200);
    let revision = response.headers()["x-terrain-revision"]
        .to_str()
        .expect("revision header")
        .to_string();
    let bytes = response.bytes().await.expect("heights body");
    assert_eq!(bytes.len(), 8_000_000);
    (revision, start.elapsed())
}

/// Registers zone `id` and answers how long its acknowledgement took, and its
/// revision.
async fn register(server: &TestServer, id: &str, offset: f64) -> (u64, Duration) {
    let mut body = raised(0.0, 0.0);
    body["heightOffset"] = offset.into();
    let start = Instant::now();
    let answer = put_zone(server, id, &body).await;
    (
        answer["revision"].as_u64().expect("revision"),
        start.elapsed(),
    )
}

/// Registers zone `id` again and again, one after another, while a batch runs;
/// answers the slowest acknowledgement and the batch's revision header and time.
async fn during_batch(
    server: &TestServer,
    points: &[(f64, f64)],
    id: &str,
) -> (Duration, (String, Duration)) {
    let done = std::sync::atomic::AtomicBool::new(false);
    let running = async {
        let answer = batch(server, points).await;
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        answer
    };
    let registering = async {
        let mut slowest = Duration::ZERO;
        let mut offset = 1.0;
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            slowest = slowest.max(register(server, id, offset).await.1);
            offset += 1.0;
        }
        slowest
    };
    let (batch, slowest) = tokio::join!(running, registering);
    (slowest, batch)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registration_during_a_million_point_batch_does_not_wait_for_it() {
    let server = TestServer::start().await;
    stack_zones(&server, 64, (0.0, 0.0), 150.0).await;
    let points = million_points();
    // Registrations one after another for as long as the batch runs: one that had to
    // wait for the batch would wait for as long as it computes. Three rounds, the
    // best counted.
    let mut best = f64::INFINITY;
    let mut revision = 64;
    for _ in 0..3 {
        let (_, alone) = batch(&server, &points).await;
        let (slowest, (batch_revision, took)) = during_batch(&server, &points, "pad").await;
        println!(
            "batch alone {alone:?}; during the next ({took:?}) the slowest registration took {slowest:?}"
        );
        let now = server.get("/v1/worlds/main/height?x=0&z=0").await.1["revision"]
            .as_u64()
            .expect("revision");
        // The batch answered one state, from before the last registrations.
        let answered: u64 = batch_revision.parse().expect("a revision");
        assert!(
            (revision..now).contains(&answered),
            "{answered} not in {revision}..{now}"
        );
        revision = now;
        best = best.min(slowest.as_secs_f64() / alone.as_secs_f64());
    }
    assert!(
        best < 0.25,
        "a registration waited {:.0} % of a batch's time",
        best * 100.0
    );
    server.stop().await;
}

fn stats(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{label}: median {:.2} ms, min {:.2} ms, max {:.2} ms ({} PUTs)",
        ms(samples[samples.len() / 2]),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
        samples.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release -- --ignored --nocapture"]
async fn registration_idle_vs_during_a_million_point_batch() {
    let server = TestServer::start().await;
    let points = million_points();
    let (mut idle, mut busy, mut batches) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..15 {
        let offset = 1.0 + f64::from(round % 5);
        idle.push(register(&server, "idle", offset).await.1);
        let (slowest, (_, took)) = during_batch(&server, &points, "busy").await;
        busy.push(slowest);
        batches.push(took);
    }
    stats("registration, idle", idle);
    stats("slowest registration during a 1,000,000-point batch", busy);
    stats("the batch (binary, 1,000,000 points)", batches);
    server.stop().await;
}
