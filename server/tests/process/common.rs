//! Helpers for tests of the real `terrain-server` binary: spawning it with a clean
//! environment, reading its log lines and bound address, stopping it, and
//! hand-written HTTP/1.1 requests to loopback. Every wait is bounded.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpStream},
    path::Path,
    process::{Child, Command, ExitStatus, Output, Stdio},
    sync::mpsc,
    thread,
    time::Duration,
};

/// The binary under test, built by cargo for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_terrain-server");

/// The bound on any wait for the process.
pub const WAIT: Duration = Duration::from_secs(30);

/// Every variable the binary reads, removed so the caller's environment cannot leak in.
pub const TERRAIN_VARS: [&str; 19] = [
    "TERRAIN_ADMIN_TOKEN",
    "TERRAIN_CORS_ORIGINS",
    "TERRAIN_INSECURE",
    "TERRAIN_MAX_ZONE_SIZE",
    "TERRAIN_MAX_ZONES_PER_WORLD",
    "TERRAIN_STATS_INTERVAL",
    "TERRAIN_CONFIG",
    "TERRAIN_LISTEN",
    "TERRAIN_DATA_DIR",
    "TERRAIN_WORLDS",
    "TERRAIN_MAX_COORDINATE",
    "TERRAIN_MAX_BATCH_POINTS",
    "TERRAIN_MAX_HEIGHTMAP_SAMPLES",
    "TERRAIN_SHUTDOWN_TIMEOUT",
    "TERRAIN_LOG_FORMAT",
    "TERRAIN_STORE_KIND",
    "TERRAIN_STORE_URL",
    "TERRAIN_STORE_BUCKET",
    "TERRAIN_STORE_REPLICAS",
];

/// A command for the binary: no `TERRAIN_*` variables from the caller, logs at info.
pub fn terrain_server() -> Command {
    let mut command = Command::new(BIN);
    for var in TERRAIN_VARS {
        command.env_remove(var);
    }
    command.env("RUST_LOG", "info").stdin(Stdio::null());
    command
}

/// Runs `command` to completion, killing it if it outlives [`WAIT`].
pub fn run(mut command: Command) -> Output {
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

/// Sends `signal` (`-TERM`, `-KILL`) to process `pid`.
pub fn kill(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(signal)
        .arg(pid.to_string())
        .status()
        .expect("kill");
    assert!(status.success(), "kill {signal} {pid}");
}

/// A GET to `addr` over a fresh HTTP/1.1 connection: the status code and the body.
pub fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    http(addr, "GET", path, "").expect("GET")
}

/// `method path` with `body` to `addr` over a fresh HTTP/1.1 connection: the status
/// code and the body, or the I/O error (the server may be gone).
pub fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect_timeout(&addr, WAIT)?;
    stream.set_read_timeout(Some(WAIT))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let status = response
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status line in {response:?}")))?;
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

/// [`http`] with `Authorization: Bearer token`; panics if the server is gone.
pub fn http_authorized(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    token: &str,
) -> (u16, String) {
    let mut stream = TcpStream::connect_timeout(&addr, WAIT).expect("connect");
    stream.set_read_timeout(Some(WAIT)).expect("timeout");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Authorization: Bearer {token}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
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

/// A GET answered 200 with JSON.
pub fn get_json(addr: SocketAddr, path: &str) -> serde_json::Value {
    let (status, body) = http_get(addr, path);
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

/// Forwards the child's standard error, line by line.
pub fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
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
pub fn bound_address(lines: &mpsc::Receiver<String>) -> SocketAddr {
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
pub fn wait_for_exit(mut child: Child, bound: Duration) -> ExitStatus {
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

/// A running binary. Dropped without [`Running::stop`] (a failing test), it is killed,
/// so no server outlives its test.
pub struct Running {
    child: Option<Child>,
    /// The standard error lines not read yet (kept open so logging never fails).
    pub lines: mpsc::Receiver<String>,
    pub addr: SocketAddr,
}

impl Running {
    /// Starts the binary on an ephemeral loopback port with `args`, in `cwd`.
    pub fn start(args: &[&str], data: &Path, cwd: &Path) -> Running {
        let mut child = terrain_server()
            .args(["--listen", "127.0.0.1:0", "--data-dir"])
            .arg(data)
            .args(args)
            .current_dir(cwd)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let lines = stderr_lines(&mut child);
        // Guarded before waiting, so a server that never logs its address is killed.
        let mut running = Running {
            child: Some(child),
            lines,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        };
        running.addr = bound_address(&running.lines);
        running
    }

    /// SIGTERM, and a clean exit within 15 s.
    pub fn stop(mut self) {
        let Some(child) = self.child.take() else {
            return;
        };
        kill(child.id(), "-TERM");
        let status = wait_for_exit(child, Duration::from_secs(15));
        assert!(status.success(), "exit status {status:?}");
    }

    /// SIGKILL, and wait for the process to be gone.
    pub fn kill_9(mut self) {
        if let Some(mut child) = self.child.take() {
            kill(child.id(), "-KILL");
            child.wait().expect("reaped");
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
