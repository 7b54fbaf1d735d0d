//! `terrain-server backup` and `restore`: a backup of a running server taken while zones
//! are being registered holds exactly the acknowledged zones up to its revision;
//! restored into a new data directory, a server there serves the same zones and
//! revision. A stopped server's data directory backs up directly; a running server's
//! store is locked (the error points to `--from`), and a restore refuses a used store.

use crate::common;

use std::{collections::BTreeMap, ffi::OsStr, process::Output, sync::mpsc, thread};

use common::*;
use serde_json::Value;

const TOKEN: &str = "backup-test-token";

fn zone(i: usize) -> String {
    format!(
        r#"{{"centerX": {}, "centerZ": {}, "radius": 3.5, "height": {}, "blendRadius": 1.0}}"#,
        300.0 + i as f64 * 9.5,
        -(i as f64) * 4.25,
        5.0 + i as f64 * 0.125
    )
}

/// Runs the binary with `args` to its end.
fn terrain<S: AsRef<OsStr>>(args: &[S]) -> Output {
    let mut command = terrain_server();
    command.args(args);
    run(command)
}

/// Zone id -> revision, as a list of zones answers it.
fn zones_of(list: &Value) -> BTreeMap<String, u64> {
    list.as_array()
        .expect("zones")
        .iter()
        .map(|z| {
            (
                z["id"].as_str().unwrap().to_string(),
                z["revision"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_backup_under_load_restores_exactly_what_was_acknowledged_up_to_its_revision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, restored) = (dir.path().join("data"), dir.path().join("restored"));
    let server = Running::start(&["--admin-token", TOKEN], &data, dir.path());
    let addr = server.addr;
    let before = zones_of(&get_json(addr, "/v1/worlds/main/flat-zones")["zones"]);
    // A writer registers 150 zones, recording each acknowledged revision.
    let (acked_tx, acked_rx) = mpsc::channel();
    let writer = thread::spawn(move || {
        for i in 0..150 {
            let path = format!("/v1/worlds/main/flat-zones/load{i}");
            let (status, body) = http_authorized(addr, "PUT", &path, &zone(i), TOKEN);
            assert_eq!(status, 200, "{body}");
            let answer: Value = serde_json::from_str(&body).unwrap();
            acked_tx
                .send((format!("load{i}"), answer["revision"].as_u64().unwrap()))
                .unwrap();
        }
    });
    // Back up once some writes are in.
    let mut acked = Vec::new();
    while acked.len() < 30 {
        acked.push(acked_rx.recv().unwrap());
    }
    let file = dir.path().join("backup.json");
    let from = format!("http://{addr}");
    let out = terrain(&[
        OsStr::new("--admin-token"),
        OsStr::new(TOKEN),
        OsStr::new("backup"),
        OsStr::new("--from"),
        OsStr::new(&from),
        OsStr::new("--output"),
        file.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    writer.join().unwrap();
    acked.extend(acked_rx.try_iter());
    let backup: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let world = &backup["worlds"][0];
    assert_eq!(world["id"], "main");
    let revision = world["revision"].as_u64().unwrap();
    let last = acked.last().unwrap().1;
    assert!(
        revision > before.len() as u64 && revision < last,
        "{revision} of {last}: under load"
    );
    // Exactly the acknowledged zones up to the backup's revision, at their revisions.
    let mut want = before.clone();
    want.extend(acked.iter().filter(|(_, r)| *r <= revision).cloned());
    let got: BTreeMap<String, u64> = world["zones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|z| {
            (
                z["zone"]["id"].as_str().unwrap().to_string(),
                z["revision"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);

    // A running server holds the store: a direct backup says to use --from.
    let direct = dir.path().join("direct.json");
    let out = terrain(&[
        OsStr::new("--data-dir"),
        data.as_os_str(),
        OsStr::new("backup"),
        OsStr::new("--output"),
        direct.as_os_str(),
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--from"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let final_zones = get_json(addr, "/v1/worlds/main/flat-zones");
    server.stop();

    // Restore into a new data directory; a server there serves the backup.
    let out = terrain(&[
        OsStr::new("--data-dir"),
        restored.as_os_str(),
        OsStr::new("restore"),
        OsStr::new("--input"),
        file.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = Running::start(&[], &restored, dir.path());
    let served = get_json(again.addr, "/v1/worlds/main/flat-zones");
    assert_eq!(served["revision"].as_u64(), Some(revision), "{served}");
    assert_eq!(zones_of(&served["zones"]), want);
    // Every zone's fields bit for bit.
    for z in world["zones"].as_array().unwrap() {
        let id = z["zone"]["id"].as_str().unwrap();
        let one = get_json(again.addr, &format!("/v1/worlds/main/flat-zones/{id}"));
        for key in ["centerX", "centerZ", "radius", "height", "blendRadius"] {
            assert_eq!(one["zone"][key], z["zone"][key], "{id}.{key}");
        }
    }
    // Tiles a restored zone shapes carry its revision (no log came with the backup),
    // so no client holding the tile from before takes it as unchanged.
    let load0 = want["load0"];
    let mesh = get_json(again.addr, "/v1/worlds/main/tiles/3/0/mesh");
    assert!(
        mesh["version"].as_u64().unwrap() >= load0,
        "{} < {load0}",
        mesh["version"]
    );
    again.stop();

    // The stopped server's directory backs up directly, at its final revision.
    let out = terrain(&[
        OsStr::new("--data-dir"),
        data.as_os_str(),
        OsStr::new("backup"),
        OsStr::new("-o"),
        direct.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let direct: Value = serde_json::from_slice(&std::fs::read(&direct).unwrap()).unwrap();
    assert_eq!(direct["worlds"][0]["revision"], final_zones["revision"]);
    assert_eq!(
        direct["worlds"][0]["zones"].as_array().unwrap().len(),
        28 + 150
    );
    // A restore into a used store changes nothing.
    let out = terrain(&[
        OsStr::new("--data-dir"),
        data.as_os_str(),
        OsStr::new("restore"),
        OsStr::new("-i"),
        file.as_os_str(),
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not empty"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
