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

/// `terrain-server --data-dir data restore -i input`, run to completion.
fn restore(data: &std::path::Path, input: &std::path::Path) -> Output {
    terrain(&[
        OsStr::new("--data-dir"),
        data.as_os_str(),
        OsStr::new("restore"),
        OsStr::new("-i"),
        input.as_os_str(),
    ])
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
    let out = restore(&restored, &file);
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
    // A restored store begins another history: its epoch is not the original's, so a
    // subscriber resuming from a revision of the original is answered with a resync.
    let epoch = final_zones["epoch"]
        .as_str()
        .expect("the list names its epoch");
    assert_eq!(epoch.len(), 16, "{epoch}");
    assert_ne!(
        served["epoch"], epoch,
        "the restored server's history is another"
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
    let out = restore(&data, &file);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not empty"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A backup file of world `main` at `revision` holding `zones` (JSON of the API's form).
fn backup_file(revision: u64, zones: &[(u64, &str)]) -> String {
    let zones: Vec<String> = zones
        .iter()
        .map(|(r, z)| format!(r#"{{"revision": {r}, "zone": {z}}}"#))
        .collect();
    format!(
        r#"{{"format": "terrain-backup", "version": 1, "worlds": [{{"id": "main", "revision": {revision}, "zones": [{}]}}]}}"#,
        zones.join(",")
    )
}

/// A restore of an edited backup the API would refuse exits non-zero naming the
/// world, the zone and the field, and leaves no data directory; the sound one
/// restores and serves.
#[test]
fn a_restore_of_a_backup_the_api_would_refuse_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ok =
        r#"{"id": "ok", "centerX": 10, "centerZ": 5, "radius": 3, "height": 4, "blendRadius": 1}"#;
    let wide = r#"{"id": "wide", "centerX": 10, "centerZ": 5, "width": 1e6, "depth": 2, "height": 4, "blendRadius": 1}"#;
    let etc = r#"{"id": "../../etc", "centerX": 10, "centerZ": 5, "radius": 3, "height": 4, "blendRadius": 1}"#;
    let far = r#"{"id": "far", "centerX": 1e12, "centerZ": 5, "radius": 3, "height": 4, "blendRadius": 1}"#;
    for (k, (file, want)) in [
        (
            backup_file(2, &[(1, ok), (2, wide)]),
            r#"world "main": zone "wide": width: must be at most 10000 (got 1000000)"#,
        ),
        (
            backup_file(2, &[(1, ok), (2, etc)]),
            r#"world "main": zone "../../etc": id: must match"#,
        ),
        (
            backup_file(2, &[(1, ok), (2, far)]),
            r#"world "main": zone "far": centerX: must be at most 1000000000 (got 1000000000000)"#,
        ),
        (
            backup_file(u64::MAX, &[(1, ok)]),
            r#"world "main": revision: 18446744073709551615 leaves fewer than 4294967296"#,
        ),
        (
            backup_file(2, &[(1, ok), (1, &ok.replace("\"ok\"", "\"twin\""))]),
            r#"world "main": zone "twin": revision: 1 is also the revision of zone "ok""#,
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let input = dir.path().join(format!("edited{k}.json"));
        std::fs::write(&input, file).unwrap();
        let data = dir.path().join(format!("data{k}"));
        let out = restore(&data, &input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{k}: {stderr}");
        assert!(stderr.contains(want), "{k}: {want}\n{stderr}");
        assert!(!data.exists(), "{k}: the data_dir was created");
    }
    // The sound backup restores, and a server there serves it.
    let input = dir.path().join("sound.json");
    std::fs::write(&input, backup_file(2, &[(2, ok)])).unwrap();
    let data = dir.path().join("sound");
    let out = restore(&data, &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let server = Running::start(&[], &data, dir.path());
    let served = get_json(server.addr, "/v1/worlds/main/flat-zones/ok");
    assert_eq!(served["zone"]["radius"], 3.0, "{served}");
    server.stop();
}

/// A store edited to hold a zone the API refuses (written through the store's own
/// commit, which does not validate) stops the start with the same message shape.
#[test]
fn a_store_holding_a_zone_the_api_would_refuse_stops_the_start() {
    use terrain_server::store::{Mutation, MutationKind, ZoneStore};
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    {
        let store = ZoneStore::open(&data).expect("store");
        let zone = terrain_core::FlatZone {
            id: "wide".into(),
            center_x: 0.0,
            center_z: 0.0,
            shape: terrain_core::zones::Shape::Rect {
                width: 1e6,
                depth: 2.0,
            },
            height: 1.0,
            blend_radius: 0.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        let mutation = Mutation {
            kind: MutationKind::Registered,
            zone,
        };
        store.commit("main", 1, &mutation).expect("commit");
        store.close();
    }
    let mut command = terrain_server();
    command
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .current_dir(dir.path());
    let out = run(command);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            r#"zone store: world "main": zone "wide": width: must be at most 10000 (got 1000000)"#
        ),
        "{stderr}"
    );
}
