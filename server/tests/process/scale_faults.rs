//! Faults of replicas over NATS JetStream, with real processes:
//!
//! - a replica killed with SIGKILL in the middle of a stream of registrations and
//!   restarted converges, and a subscriber that resumes on it from the last revision
//!   it saw gets every later event exactly once;
//! - with one node of a 3-node NATS cluster stopped (the bucket's stream leader;
//!   buckets with 3 replicas), mutations keep succeeding and nothing acknowledged is
//!   lost;
//! - with all of NATS stopped, mutations fail fast with `UNAVAILABLE`, reads go on,
//!   `/readyz` is 503, and once NATS is back everything converges.

use crate::common;
use crate::scale;

use std::{
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

use scale::*;

/// What a writer saw: the acknowledged (id, revision) pairs and the refused statuses
/// (0: no answer).
type Written = (Vec<(String, u64)>, Vec<u16>);

/// The writer's result, waited for off the runtime's threads.
async fn joined(writer: thread::JoinHandle<Written>) -> Written {
    tokio::task::spawn_blocking(move || writer.join().expect("writer"))
        .await
        .expect("join")
}

/// Runs a blocking step (the scale helpers poll and start processes with blocking
/// calls) without holding up the runtime's other tasks.
fn blocking<T>(step: impl FnOnce() -> T) -> T {
    tokio::task::block_in_place(step)
}

/// Registers `prefix0, prefix1, ...` on `addr` until `stop`.
fn write_until(
    addr: std::net::SocketAddr,
    prefix: &'static str,
    stop: Arc<AtomicBool>,
) -> thread::JoinHandle<Written> {
    thread::spawn(move || {
        let (mut acked, mut refused) = (Vec::new(), Vec::new());
        let mut i = 0;
        while !stop.load(Ordering::Acquire) {
            let id = format!("{prefix}{i}");
            let path = format!("/v1/worlds/main/flat-zones/{id}");
            match common::http(addr, "PUT", &path, &zone(i, i as f64 * 0.25)) {
                Ok((200, body)) => {
                    let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
                    acked.push((id, v["revision"].as_u64().expect("revision")));
                }
                Ok((status, _)) => refused.push(status),
                Err(_) => refused.push(0),
            }
            i += 1;
        }
        (acked, refused)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(nats_server),
    ignore = "needs nats-server: set TERRAIN_TEST_NATS_SERVER"
)]
async fn a_killed_replica_converges_and_its_resumed_subscribers_miss_nothing() {
    let bin = nats_binary();
    let dir = tempfile::tempdir().expect("tempdir");
    let nats = Nats::single(&bin, &dir.path().join("nats"));
    let url = nats.url();
    let a = replica(&url, "kill", 1, &dir.path().join("a"));
    let b_data = dir.path().join("b");
    let b = replica(&url, "kill", 1, &b_data);
    let mut ws = subscribe(b.addr, "").await;

    let stop = Arc::new(AtomicBool::new(false));
    let writer = write_until(a.addr, "k", Arc::clone(&stop));
    // Events reach B while A registers; then B dies mid-stream.
    let mut last_seen = 28;
    for _ in 0..10 {
        let e = event(&mut ws).await;
        assert_eq!(e["revision"], last_seen + 1);
        last_seen += 1;
    }
    drop(ws);
    b.kill_9();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let b = replica(&url, "kill", 1, &b_data);
    // Resume from the last revision heard: everything after it, once, in order.
    let mut ws = subscribe(b.addr, &format!("fromRevision={last_seen}")).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::Release);
    let (acked, refused) = joined(writer).await;
    assert!(refused.is_empty(), "A refused writes: {refused:?}");
    let last = acked.last().expect("acknowledged writes").1;
    assert_eq!(last, 28 + acked.len() as u64, "one revision per write");
    for r in last_seen + 1..=last {
        let e = event(&mut ws).await;
        assert_eq!(e["revision"], r, "{e}");
        let (id, _) = acked.iter().find(|(_, rev)| *rev == r).expect("acked");
        assert_eq!(e["cause"]["zone"].as_str(), Some(id.as_str()));
    }
    blocking(|| wait_revision(b.addr, last));
    assert_eq!(zones(b.addr), zones(a.addr), "B converged to A");
    // No duplicate after the last one.
    put_zone(a.addr, "after", &zone(500, 1.0));
    assert_eq!(event(&mut ws).await["revision"], last + 1);
    drop(ws);
    blocking(|| a.stop());
    blocking(|| b.stop());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(nats_server),
    ignore = "needs nats-server: set TERRAIN_TEST_NATS_SERVER"
)]
async fn one_nats_node_down_loses_nothing_acknowledged() {
    let bin = nats_binary();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docker/nats/nats.conf");
    let mut nodes = Nats::cluster(&bin, &config, dir.path());
    let url = urls(&nodes);
    let a = replica(&url, "ha", 3, &dir.path().join("a"));
    let b = replica(&url, "ha", 3, &dir.path().join("b"));

    // The node to stop: the bucket's stream leader, the hardest one to lose.
    let client = async_nats::connect(nodes[0].url())
        .await
        .expect("nats client");
    let info = async_nats::jetstream::new(client)
        .get_stream("KV_ha-main")
        .await
        .expect("bucket ha-main")
        .get_info()
        .await
        .expect("stream info");
    assert_eq!(info.config.num_replicas, 3);
    let leader = info
        .cluster
        .and_then(|c| c.leader)
        .expect("a stream leader");
    let leader: usize = leader
        .strip_prefix("nats-")
        .and_then(|n| n.parse().ok())
        .expect("leader named nats-N");

    let stop = Arc::new(AtomicBool::new(false));
    let writer = write_until(a.addr, "h", Arc::clone(&stop));
    tokio::time::sleep(Duration::from_millis(500)).await;
    nodes[leader - 1].kill();
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::Release);
    let (acked, refused) = joined(writer).await;
    if !refused.is_empty() {
        for line in a
            .lines
            .try_iter()
            .filter(|l| !l.contains("flat zone registered"))
        {
            eprintln!("A: {line}");
        }
    }
    assert!(
        refused.is_empty(),
        "refused while one node was down: {refused:?}"
    );
    let (more, refused) = {
        let stop = Arc::new(AtomicBool::new(false));
        let writer = write_until(b.addr, "after", Arc::clone(&stop));
        tokio::time::sleep(Duration::from_millis(500)).await;
        stop.store(true, Ordering::Release);
        joined(writer).await
    };
    assert!(refused.is_empty(), "refused on B: {refused:?}");
    assert!(!acked.is_empty() && !more.is_empty());
    let last = more.last().expect("writes").1;
    for r in [&a, &b] {
        blocking(|| wait_revision(r.addr, last));
        let list = zones(r.addr);
        for (id, revision) in acked.iter().chain(&more) {
            let found = list["zones"]
                .as_array()
                .expect("zones")
                .iter()
                .find(|z| z["id"] == id.as_str())
                .unwrap_or_else(|| panic!("{id} (revision {revision}) lost on {}", r.addr));
            assert_eq!(found["revision"], *revision, "{id}");
        }
    }
    assert_eq!(zones(a.addr), zones(b.addr));
    blocking(|| a.stop());
    blocking(|| b.stop());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(nats_server),
    ignore = "needs nats-server: set TERRAIN_TEST_NATS_SERVER"
)]
async fn without_nats_mutations_fail_fast_reads_go_on_and_then_everything_converges() {
    let bin = nats_binary();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut nats = Nats::single(&bin, &dir.path().join("nats"));
    let url = nats.url();
    let a = replica(&url, "away", 1, &dir.path().join("a"));
    let b = replica(&url, "away", 1, &dir.path().join("b"));
    put_zone(a.addr, "before", &zone(3, 7.0));
    blocking(|| wait_revision(b.addr, 29));

    blocking(|| nats.kill());
    let started = Instant::now();
    let (status, body) = call(
        a.addr,
        "PUT",
        "/v1/worlds/main/flat-zones/during",
        &zone(4, 1.0),
    );
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"]["code"], "UNAVAILABLE");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "fails fast: {:?}",
        started.elapsed()
    );
    let (status, body) = call(b.addr, "DELETE", "/v1/worlds/main/flat-zones/before", "");
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (503, Some("UNAVAILABLE"))
    );
    for r in [&a, &b] {
        blocking(|| wait_ready(r.addr, 503));
        // Reads answer from the last applied state.
        let z = common::get_json(r.addr, "/v1/worlds/main/flat-zones/before");
        assert_eq!(z["revision"], 29);
        let h = common::get_json(r.addr, "/v1/worlds/main/height?x=-255&z=-300");
        assert_eq!(h["height"].as_f64(), Some(7.0));
    }

    blocking(|| nats.start());
    for r in [&a, &b] {
        blocking(|| wait_ready(r.addr, 200));
    }
    let answer = put_zone(b.addr, "during", &zone(4, 1.0));
    assert_eq!(answer["revision"], 30);
    blocking(|| wait_revision(a.addr, 30));
    assert_eq!(zones(a.addr), zones(b.addr));
    let mut ws = subscribe(a.addr, "fromRevision=28").await;
    for r in [29, 30] {
        assert_eq!(event(&mut ws).await["revision"], r);
    }
    drop(ws);
    blocking(|| a.stop());
    blocking(|| b.stop());
}
