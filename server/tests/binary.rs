//! The real `terrain-server` binary: a bad configuration stops start-up with the key
//! named; flags and `TERRAIN_*` variables configure it; it logs its bound address,
//! serves, and exits cleanly within the drain bound on SIGTERM; `protoset` writes the
//! descriptor set.
//!
//! Only the standard library is used: processes, pipes, and a hand-written HTTP/1.1
//! request to loopback. Every wait is bounded.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpStream},
    path::Path,
    process::{Child, Command, ExitStatus, Output, Stdio},
    sync::mpsc,
    thread,
    time::Duration,
};

const BIN: &str = env!("CARGO_BIN_EXE_terrain-server");

/// The bound on any wait for the process.
const WAIT: Duration = Duration::from_secs(30);

/// Every variable the binary reads, removed so the caller's environment cannot leak in.
const TERRAIN_VARS: [&str; 9] = [
    "TERRAIN_CONFIG",
    "TERRAIN_LISTEN",
    "TERRAIN_DATA_DIR",
    "TERRAIN_WORLDS",
    "TERRAIN_MAX_COORDINATE",
    "TERRAIN_MAX_BATCH_POINTS",
    "TERRAIN_MAX_HEIGHTMAP_SAMPLES",
    "TERRAIN_SHUTDOWN_TIMEOUT",
    "TERRAIN_LOG_FORMAT",
];

fn terrain_server() -> Command {
    let mut command = Command::new(BIN);
    for var in TERRAIN_VARS {
        command.env_remove(var);
    }
    command.env("RUST_LOG", "info").stdin(Stdio::null());
    command
}

/// Runs `command` to completion, killing it if it outlives [`WAIT`].
fn run(mut command: Command) -> Output {
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(WAIT) {
        Ok(output) => output.expect("output"),
        Err(_) => {
            kill(pid, "-KILL");
            panic!("terrain-server did not exit within {WAIT:?}");
        }
    }
}

fn kill(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(signal)
        .arg(pid.to_string())
        .status()
        .expect("kill");
    assert!(status.success(), "kill {signal} {pid}");
}

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
        let output = run(command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{text}: should not start");
        assert!(
            stderr.contains(key),
            "{text}: stderr should name {key:?}:\n{stderr}"
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
}

/// A GET to `addr` over a fresh HTTP/1.1 connection: the status code and the body.
fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect_timeout(&addr, WAIT).expect("connect");
    stream.set_read_timeout(Some(WAIT)).expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    let status = response
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// Forwards the child's standard error, line by line.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for the `listening on ADDR` log line.
fn bound_address(lines: &mpsc::Receiver<String>) -> SocketAddr {
    loop {
        let line = lines.recv_timeout(WAIT).expect("a 'listening on' log line");
        if let Some((_, rest)) = line.split_once("listening on ") {
            let addr = rest.split_whitespace().next().unwrap_or_default();
            return addr
                .parse()
                .unwrap_or_else(|_| panic!("address in {line:?}"));
        }
    }
}

/// Waits for the child to exit, killing it if it outlives `bound`.
fn wait_for_exit(mut child: Child, bound: Duration) -> ExitStatus {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || tx.send(child.wait()));
    match rx.recv_timeout(bound) {
        Ok(status) => status.expect("wait"),
        Err(_) => {
            kill(pid, "-KILL");
            panic!("terrain-server did not exit within {bound:?} of SIGTERM");
        }
    }
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
