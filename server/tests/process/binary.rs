//! The real `terrain-server` binary: a bad configuration stops start-up with the key
//! named (including a non-loopback listen address without an admin token); flags and
//! `TERRAIN_*` variables configure it; it logs its bound address, serves, and exits
//! cleanly within the drain bound on SIGTERM; `protoset` writes the descriptor set.
//! Durability of the zone registry is `durability.rs`.

use crate::common;

use std::{path::Path, process::Stdio, time::Duration};

use common::*;

#[test]
fn bad_configs_exit_non_zero_naming_the_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let world = |id: &str, generator: &str, seed: i64| {
        format!("[[worlds]]\nid = \"{id}\"\ngenerator = \"{generator}\"\nseed = {seed}\n")
    };
    let cases = [
        (
            world("main", "hyperscape", 0) + &world("main", "osrs", 0),
            r#"worlds[1].id: duplicate world id "main""#,
        ),
        (
            "listen = \"127.0.0.1:0\"\ncolour = \"red\"\n".to_string(),
            "colour",
        ),
        (world("bad id", "hyperscape", 0), "worlds[0].id"),
        (world("main", "minecraft", 0), "worlds[0].generator"),
        (world("main", "osrs", 3), "worlds[0].seed"),
        ("max_batch_points = 0\n".to_string(), "max_batch_points"),
    ];
    for (i, (text, key)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("bad{i}.toml"));
        std::fs::write(&path, text).expect("write config");
        let mut command = terrain_server();
        // Should start-up wrongly succeed, it still binds only an ephemeral loopback port.
        command
            .args(["--listen", "127.0.0.1:0", "--config"])
            .arg(&path);
        command.arg("--data-dir").arg(dir.path().join("data"));
        // An expected error is a message, not a bug: no backtrace even when asked for.
        command.env("RUST_BACKTRACE", "1");
        let output = run(command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{text}: should not start");
        assert!(
            stderr.contains(key),
            "{text}: stderr should name {key:?}:\n{stderr}"
        );
        assert!(
            !stderr.to_lowercase().contains("backtrace"),
            "{text}: a backtrace:\n{stderr}"
        );
    }
    // A bad environment variable is refused the same way, naming its flag.
    let mut command = terrain_server();
    command
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path().join("data"));
    command.env("TERRAIN_MAX_BATCH_POINTS", "0");
    let output = run(command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("--max-batch-points"), "{stderr}");
    // A list variable is split at commas, and a bad entry named by its index.
    let mut command = terrain_server();
    command
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path().join("data"));
    command.env(
        "TERRAIN_CORS_ORIGINS",
        "https://game.example,https://game.example/",
    );
    let output = run(command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains(r#"cors_origins[1]: "https://game.example/""#),
        "{stderr}"
    );
}

#[test]
fn non_loopback_listen_without_a_token_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Refused while validating, before anything is bound.
    let mut command = terrain_server();
    command
        .args(["--listen", "0.0.0.0:0", "--data-dir"])
        .arg(dir.path().join("data"));
    let output = run(command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "should not start:\n{stderr}");
    assert!(stderr.contains("admin_token"), "{stderr}");
    assert!(stderr.contains("insecure"), "{stderr}");
    assert!(
        !dir.path().join("data").exists(),
        "refused before touching data_dir"
    );
}

#[test]
fn serves_then_exits_cleanly_on_sigterm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let mut child = terrain_server()
        .args([
            "--listen",
            "127.0.0.1:0",
            "--shutdown-timeout",
            "5s",
            "--data-dir",
        ])
        .arg(&data)
        // Worlds from the environment: overrides the default single world.
        .env("TERRAIN_WORLDS", "main:hyperscape:0,old:osrs:0")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let lines = stderr_lines(&mut child);
    let addr = bound_address(&lines);
    assert!(addr.ip().is_loopback() && addr.port() != 0, "{addr}");
    assert!(Path::new(&data).is_dir(), "data_dir is created at start-up");

    let (status, body) = http_get(addr, "/healthz");
    assert_eq!(status, 200, "{body}");
    let (status, body) = http_get(addr, "/v1/worlds");
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(r#""id":"old","generator":"osrs""#),
        "TERRAIN_WORLDS applied: {body}"
    );

    kill(child.id(), "-TERM");
    let status = wait_for_exit(child, Duration::from_secs(15));
    assert!(status.success(), "exit status {status:?}");
    // The pipe closed with the process: this ends once the last line is read.
    let log: Vec<String> = std::iter::from_fn(|| lines.recv_timeout(WAIT).ok()).collect();
    assert!(
        log.iter().any(|l| l.contains("shutdown complete")),
        "{log:#?}"
    );
}

#[test]
fn protoset_writes_the_descriptor_set() {
    let mut command = terrain_server();
    command.args(["protoset", "-"]);
    let output = run(command);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.stdout, terrain_proto::FILE_DESCRIPTOR_SET);

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("terrain.protoset");
    let mut command = terrain_server();
    command.arg("protoset").arg(&path);
    assert!(run(command).status.success());
    assert_eq!(
        std::fs::read(&path).expect("protoset file"),
        terrain_proto::FILE_DESCRIPTOR_SET
    );
}

/// `warm_radius = "off"` is logged as `off`, not as a number.
#[test]
fn warm_radius_off_is_logged_as_off() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Running::start(
        &["--warm-radius", "off"],
        &dir.path().join("data"),
        dir.path(),
    );
    let line = loop {
        let line = server
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("the warm log line");
        if line.contains("tile meshes warmed") {
            break line;
        }
    };
    assert!(line.contains("warm_radius=off"), "{line}");
    server.stop();
}
