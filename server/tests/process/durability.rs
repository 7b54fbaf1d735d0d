//! The zone registry of the real binary: without a configuration it serves the
//! island's 28 built-in zones from any working directory (and a restart takes no new
//! revisions); after `kill -9` in the middle of a stream of registrations a restart
//! restores exactly the acknowledged zones and revision, and the store's log holds one
//! entry per revision. A store file damaged on disk stops start-up with a message
//! naming the file, and no panic message.

use crate::common;

use std::{net::SocketAddr, sync::mpsc, thread};

use common::*;

#[test]
fn without_a_config_the_island_zones_are_served_from_anywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    // The working directory holds no world files: the zones are compiled in.
    let server = Running::start(&[], &data, dir.path());
    let addr = server.addr;
    let zones = get_json(addr, "/v1/worlds/main/flat-zones");
    assert_eq!(zones["zones"].as_array().map(Vec::len), Some(28), "{zones}");
    assert_eq!(zones["revision"], 28);
    let worlds = get_json(addr, "/v1/worlds");
    assert_eq!(worlds["worlds"][0]["overlap"], "layered");
    let height = get_json(addr, "/v1/worlds/main/height?x=70&z=92");
    assert!(
        height["zone"]
            .as_str()
            .is_some_and(|z| z.starts_with("duel_arena")),
        "{height}"
    );
    server.stop();
    // Restarted: the same zones are no-ops, no new revisions.
    let server = Running::start(&[], &data, dir.path());
    let addr = server.addr;
    assert_eq!(get_json(addr, "/v1/worlds/main/flat-zones")["revision"], 28);
    server.stop();
}

#[test]
fn a_damaged_store_stops_start_up_naming_the_file_without_a_panic_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    // A store of the island's 28 zones, written by the binary itself.
    Running::start(&[], &data, dir.path()).stop();
    let file = data.join("terrain.redb");
    let good = std::fs::read(&file).expect("the store");
    for (what, bytes) in [
        ("truncated to 50%", good[..good.len() / 2].to_vec()),
        ("truncated to 90%", good[..good.len() * 9 / 10].to_vec()),
        ("empty", Vec::new()),
    ] {
        std::fs::write(&file, &bytes).expect("damage the store");
        let mut command = terrain_server();
        command
            .args(["--listen", "127.0.0.1:0", "--data-dir"])
            .arg(&data)
            .current_dir(dir.path())
            .env("RUST_BACKTRACE", "1");
        let output = run(command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{what}: started");
        assert!(
            !stderr.to_lowercase().contains("backtrace"),
            "{what}: a backtrace:\n{stderr}"
        );
        assert!(
            stderr.contains(&file.display().to_string()),
            "{what}: the file is not named:\n{stderr}"
        );
        assert!(
            !stderr.contains("panicked"),
            "{what}: a panic message:\n{stderr}"
        );
        assert!(
            std::fs::read(&file).expect("the store") == bytes,
            "{what}: the file changed"
        );
    }
}

/// The zone the kill test registers as `z{i}`.
fn kill_test_zone(i: usize) -> String {
    format!(
        r#"{{"centerX": {}, "centerZ": {}, "radius": 2.5, "height": {}, "blendRadius": 1.0}}"#,
        i as f64 * 7.5,
        -(i as f64) * 3.25,
        i as f64 * 0.5
    )
}

/// Registers `z0, z1, ...` one after another until the server goes away; answers the
/// acknowledged revisions (index = zone number) and the number of the zone whose PUT
/// was in flight when it went.
fn register_until_gone(addr: SocketAddr, acked: mpsc::Sender<u64>) -> usize {
    for i in 0.. {
        let path = format!("/v1/worlds/main/flat-zones/z{i}");
        match http(addr, "PUT", &path, &kill_test_zone(i)) {
            Ok((200, body)) => {
                let answer: serde_json::Value = serde_json::from_str(&body).expect("JSON");
                let revision = answer["revision"].as_u64().expect("revision");
                if acked.send(revision).is_err() {
                    return i + 1;
                }
            }
            // An answer cut off by the kill, or no connection: the server is gone.
            Err(_) => return i,
            Ok((status, body)) => panic!("PUT z{i}: {status} {body}"),
        }
    }
    unreachable!()
}

#[test]
fn kill_9_mid_stream_keeps_exactly_the_acknowledged_zones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let world = ["--world", "main:hyperscape:0"];
    let server = Running::start(&world, &data, dir.path());
    let addr = server.addr;
    let (tx, rx) = mpsc::channel();
    let writer = thread::spawn(move || register_until_gone(addr, tx));
    let mut acked = Vec::new();
    while acked.len() < 40 {
        acked.push(
            rx.recv_timeout(WAIT)
                .expect("registrations are acknowledged"),
        );
    }
    server.kill_9();
    let in_flight = writer.join().expect("writer");
    acked.extend(rx.try_iter());
    let n = acked.len();
    assert!(
        n >= 40 && in_flight == n,
        "acked {n}, in flight z{in_flight}"
    );
    for (i, &revision) in acked.iter().enumerate() {
        assert_eq!(revision, i as u64 + 1, "z{i} took the next revision");
    }

    let server = Running::start(&world, &data, dir.path());
    let addr = server.addr;
    let listed = get_json(addr, "/v1/worlds/main/flat-zones");
    let revision = listed["revision"].as_u64().expect("revision");
    let zones = listed["zones"].as_array().expect("zones");
    // The PUT in flight at the kill may or may not have committed; nothing else may
    // differ from what was acknowledged.
    assert!(
        revision == n as u64 || revision == n as u64 + 1,
        "revision {revision}, acked {n}"
    );
    assert_eq!(
        zones.len() as u64,
        revision,
        "one zone per revision, no partial state"
    );
    for (i, zone) in zones.iter().enumerate() {
        let sent: serde_json::Value = serde_json::from_str(&kill_test_zone(i)).expect("JSON");
        assert_eq!(zone["id"], format!("z{i}"), "{zone}");
        assert_eq!(zone["revision"], i as u64 + 1, "{zone}");
        for key in ["centerX", "centerZ", "radius", "height", "blendRadius"] {
            assert_eq!(zone[key].as_f64(), sent[key].as_f64(), "z{i}.{key}");
        }
    }
    // The server goes on from there.
    let (status, body) = http(
        addr,
        "PUT",
        "/v1/worlds/main/flat-zones/after",
        &kill_test_zone(999),
    )
    .expect("PUT");
    assert_eq!(status, 200, "{body}");
    let answer: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(answer["revision"], revision + 1);
    server.stop();

    // The ordered log holds exactly one registration per revision.
    let store = terrain_server::store::ZoneStore::open(&data).expect("store");
    let log = store.log("main", 1).expect("log");
    assert_eq!(log.len() as u64, revision + 1);
    for (k, (rev, mutation)) in log.iter().enumerate() {
        let id = if k as u64 == revision {
            "after".to_string()
        } else {
            format!("z{k}")
        };
        assert_eq!(
            (*rev, mutation.kind, mutation.zone.id.as_str()),
            (
                k as u64 + 1,
                terrain_server::store::MutationKind::Registered,
                id.as_str()
            )
        );
    }
}
