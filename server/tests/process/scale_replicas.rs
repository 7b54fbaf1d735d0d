//! Several `terrain-server` replicas over one NATS JetStream: a zone registered on one
//! is read on the others, every replica's subscribers get the same event (revision
//! and content), and concurrent writes of one zone from different replicas are
//! decided by compare-and-swap: each answer describes what really happened, and no
//! revision is lost or taken twice.

use crate::common;
use crate::scale;

use std::{collections::BTreeSet, thread};

use scale::*;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(nats_server),
    ignore = "needs nats-server: set TERRAIN_TEST_NATS_SERVER"
)]
async fn a_change_on_one_replica_reaches_every_replica_with_the_same_revision() {
    let bin = nats_binary();
    let dir = tempfile::tempdir().expect("tempdir");
    let nats = Nats::single(&bin, &dir.path().join("nats"));
    let url = nats.url();
    let a = replica(&url, "t", 1, &dir.path().join("a"));
    let b = replica(&url, "t", 1, &dir.path().join("b"));
    let c = replica(&url, "t", 1, &dir.path().join("c"));
    // The first replica registered the island's 28 start-up zones; the others found
    // them already there (no new revisions).
    for r in [&a, &b, &c] {
        assert_eq!(revision(r.addr), 28, "{}", r.addr);
        wait_ready(r.addr, 200);
    }
    let mut subscribers = Vec::new();
    for r in [&a, &b, &c] {
        subscribers.push(subscribe(r.addr, "").await);
    }

    let body = r#"{"centerX": -40, "centerZ": 10, "width": 12, "depth": 8, "heightOffset": 0.5, "blendRadius": 3}"#;
    let answer = put_zone(b.addr, "arena_pad", body);
    assert_eq!(answer["revision"], 29, "{answer}");
    assert_eq!(answer["change"], "registered");
    let mut events = Vec::new();
    for ws in &mut subscribers {
        events.push(event(ws).await);
    }
    for e in &events {
        assert_eq!(e, &events[0], "every replica announces the same event");
    }
    assert_eq!(events[0]["revision"], 29);
    assert_eq!(events[0]["cause"]["zone"], "arena_pad");
    // One history, one epoch: the bucket's, whichever replica answers.
    let epoch = events[0]["epoch"].as_str().expect("events carry the epoch");
    assert_eq!(epoch.len(), 16, "{epoch}");
    for r in [&a, &b, &c] {
        let list = common::get_json(r.addr, "/v1/worlds/main/flat-zones");
        assert_eq!(list["epoch"], epoch, "{}", r.addr);
    }
    assert_eq!(events[0]["tiles"], answer["tiles"]);
    let delta = events[0]["maxHeightDelta"].as_f64().expect("delta");
    assert!(delta > 0.1, "the pad changes the ground: {delta}");

    // Every replica answers the registered zone and the height it sets.
    let height = answer["zone"]["height"].as_f64().expect("height");
    for r in [&a, &b, &c] {
        let got = common::get_json(r.addr, "/v1/worlds/main/flat-zones/arena_pad");
        assert_eq!(got["zone"], answer["zone"], "{}", r.addr);
        assert_eq!(got["revision"], 29);
        let h = common::get_json(r.addr, "/v1/worlds/main/height?x=-40&z=10");
        assert_eq!(h["height"].as_f64(), Some(height), "{}", r.addr);
        assert_eq!(h["zone"], "arena_pad");
    }

    // A removal on a third replica, announced everywhere as revision 30.
    let (status, removed) = call(c.addr, "DELETE", "/v1/worlds/main/flat-zones/arena_pad", "");
    assert_eq!(status, 200, "{removed}");
    assert_eq!(removed["revision"], 30);
    for ws in &mut subscribers {
        let e = event(ws).await;
        assert_eq!(
            (e["revision"].as_u64(), e["cause"]["kind"].as_str()),
            (Some(30), Some("removed"))
        );
    }
    for r in [&a, &b] {
        let (status, _) = call(r.addr, "GET", "/v1/worlds/main/flat-zones/arena_pad", "");
        assert_eq!(status, 404, "{}", r.addr);
    }
    // Re-registering the same zone where it exists is a no-op on any replica.
    put_zone(a.addr, "again", &zone(1, 5.0));
    let same = put_zone(c.addr, "again", &zone(1, 5.0));
    assert_eq!(
        (same["change"].as_str(), same["revision"].as_u64()),
        (Some("unchanged"), Some(31))
    );
    drop(subscribers);
    for r in [a, b, c] {
        r.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(nats_server),
    ignore = "needs nats-server: set TERRAIN_TEST_NATS_SERVER"
)]
async fn concurrent_writes_of_one_zone_are_decided_by_compare_and_swap() {
    let bin = nats_binary();
    let dir = tempfile::tempdir().expect("tempdir");
    let nats = Nats::single(&bin, &dir.path().join("nats"));
    let url = nats.url();
    let replicas: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|name| replica(&url, "cas", 1, &dir.path().join(name)))
        .collect();
    let addrs: Vec<_> = replicas.iter().map(|r| r.addr).collect();
    let mut subscriber = subscribe(addrs[0], "").await;
    const ROUNDS: usize = 8;
    let mut answers: Vec<Value> = Vec::new();
    for round in 0..ROUNDS {
        let id = format!("contested{round}");
        // Each replica writes a different zone under the same id, at the same time.
        let handles: Vec<_> = addrs
            .iter()
            .enumerate()
            .map(|(i, &addr)| {
                let id = id.clone();
                thread::spawn(move || put_zone(addr, &id, &zone(round, 10.0 + i as f64)))
            })
            .collect();
        let round_answers: Vec<Value> = handles
            .into_iter()
            .map(|h| h.join().expect("writer"))
            .collect();
        let registered = round_answers
            .iter()
            .filter(|a| a["change"] == "registered")
            .count();
        let replaced = round_answers
            .iter()
            .filter(|a| a["change"] == "replaced")
            .count();
        assert_eq!(
            (registered, replaced),
            (1, 2),
            "round {round}: {round_answers:?}"
        );
        // The last revision's zone is what every replica holds.
        let last = round_answers
            .iter()
            .max_by_key(|a| a["revision"].as_u64())
            .expect("answers");
        for &addr in &addrs {
            wait_revision(addr, last["revision"].as_u64().expect("revision"));
            let got = common::get_json(addr, &format!("/v1/worlds/main/flat-zones/{id}"));
            assert_eq!(got["zone"], last["zone"], "round {round} on {addr}");
        }
        answers.extend(round_answers);
    }
    // 28 start-up zones, then one distinct revision per write: none lost, none shared.
    let revisions: BTreeSet<u64> = answers
        .iter()
        .filter_map(|a| a["revision"].as_u64())
        .collect();
    let expected: BTreeSet<u64> = (29..29 + 3 * ROUNDS as u64).collect();
    assert_eq!(revisions, expected);
    // The subscriber heard each write once, in revision order, with the kind answered.
    for r in 29..29 + 3 * ROUNDS as u64 {
        let e = event(&mut subscriber).await;
        assert_eq!(e["revision"], r);
        let answer = answers.iter().find(|a| a["revision"] == r).expect("answer");
        assert_eq!(e["cause"]["kind"], answer["change"], "revision {r}");
    }
    let first = zones(addrs[0]);
    for &addr in &addrs[1..] {
        assert_eq!(zones(addr), first, "{addr}");
    }
    drop(subscriber);
    for r in replicas {
        r.stop();
    }
}

/// A tile-mask zone travels through the shared log to every replica; one whose record
/// exceeds the NATS server's `max_payload` (1 MiB by default) is refused at once as
/// `400 INVALID_ARGUMENT` naming `tileMask`, with nothing written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(nats_server),
    ignore = "needs nats-server: set TERRAIN_TEST_NATS_SERVER"
)]
async fn masks_reach_every_replica_and_one_over_the_log_s_limit_is_refused() {
    let bin = nats_binary();
    let dir = tempfile::tempdir().expect("tempdir");
    let nats = Nats::single(&bin, &dir.path().join("nats"));
    let url = nats.url();
    let a = replica(&url, "t", 1, &dir.path().join("a"));
    let b = replica(&url, "t", 1, &dir.path().join("b"));
    for r in [&a, &b] {
        wait_ready(r.addr, 200);
    }
    let mask = |x0: i64, n: i64, z0: i64, m: i64| -> String {
        let tiles: Vec<String> = (x0..x0 + n)
            .flat_map(|x| (z0..z0 + m).map(move |z| format!("[{x},{z}]")))
            .collect();
        tiles.join(",")
    };
    // A building: 12 x 8 tiles.
    let body = format!(
        r#"{{"centerX": -40, "centerZ": 10, "width": 16, "depth": 12, "height": 30, "blendRadius": 5, "tileMask": [{}]}}"#,
        mask(-46, 12, 6, 8)
    );
    let answer = put_zone(a.addr, "hall", &body);
    let revision = answer["revision"].as_u64().unwrap();
    for _ in 0..300 {
        if scale::revision(b.addr) >= revision {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let zone = common::get_json(b.addr, "/v1/worlds/main/flat-zones/hall");
    assert_eq!(
        zone["zone"]["tileMask"].as_array().unwrap().len(),
        96,
        "{zone}"
    );
    // 65,536 tiles far from the origin: about 1.3 MB of JSON, over 1 MiB.
    let before = scale::revision(a.addr);
    let body = format!(
        r#"{{"centerX": 100128, "centerZ": 100128, "width": 260, "depth": 260, "height": 30, "blendRadius": 5, "tileMask": [{}]}}"#,
        mask(100_000, 256, 100_000, 256)
    );
    assert!(body.len() > 1 << 20, "{} bytes", body.len());
    let (status, error) = call(a.addr, "PUT", "/v1/worlds/main/flat-zones/huge", &body);
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["error"]["field"], "tileMask", "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_payload"),
        "{error}"
    );
    assert_eq!(scale::revision(a.addr), before, "nothing was written");
}
