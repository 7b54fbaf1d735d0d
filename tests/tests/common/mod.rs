//! Shared helpers for the end-to-end tests: a real server on `127.0.0.1:0` with a
//! temporary data directory, a gRPC channel and an HTTP client for it, and the core
//! generators the answers are checked against.
//!
//! Every network call has a timeout, and clients ignore proxy settings: the tests only
//! ever talk to loopback.

#![allow(dead_code)] // each test binary uses a subset

use std::{net::SocketAddr, time::Duration};

use reqwest::StatusCode;
use serde_json::Value;
use tempfile::TempDir;
use terrain_core::{GeneratorKind, WorldGenerator};
use terrain_proto::v1::terrain_service_client::TerrainServiceClient;
use terrain_server::{Config, RunningServer, Server};
use tonic::transport::{Channel, Endpoint};

/// The bound on any one request, and on a server's drain.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Distinct points, including fractions, negatives, signed zero, a subnormal and the
/// edges of the default coordinate limit.
pub const POINTS: &[(f64, f64)] = &[
    (0.0, 0.0),
    (12.5, -7.25),
    (-1234.567, 890.123),
    (0.1, 0.2),
    (33.333333333333336, -66.66666666666667),
    (1e6, -1e6),
    (-0.0, 5e-324),
    (987_654.321, 123_456.789),
    (-1e9, 1e9),
    (49.99999999999999, 50.00000000000001),
];

/// A running server and clients for it.
pub struct TestServer {
    running: Option<RunningServer>,
    pub addr: SocketAddr,
    pub http: reqwest::Client,
    _data: TempDir,
}

impl TestServer {
    /// The default configuration: world `main`, hyperscape, seed 0.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// The default configuration as changed by `edit` (the listen address and data
    /// directory are set before `edit` runs).
    pub async fn start_with(edit: impl FnOnce(&mut Config)) -> Self {
        let data = tempfile::tempdir().expect("temporary directory");
        let mut config = Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: data.path().join("data"),
            shutdown_timeout: Duration::from_secs(5),
            ..Config::default()
        };
        edit(&mut config);
        let server = Server::bind(config).await.expect("server starts");
        assert!(
            data.path().join("data").is_dir(),
            "data_dir is created at start-up"
        );
        let running = server.spawn();
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(TIMEOUT)
            .build()
            .expect("client");
        TestServer {
            addr: running.local_addr(),
            running: Some(running),
            http,
            _data: data,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// An HTTP/2 channel to the server.
    pub async fn channel(&self) -> Channel {
        Endpoint::from_shared(format!("http://{}", self.addr))
            .expect("endpoint")
            .connect_timeout(Duration::from_secs(5))
            .timeout(TIMEOUT)
            .connect()
            .await
            .expect("gRPC connects")
    }

    /// A `TerrainService` client that accepts answers of any size.
    pub async fn grpc(&self) -> TerrainServiceClient<Channel> {
        TerrainServiceClient::new(self.channel().await)
            .max_decoding_message_size(usize::MAX)
            .max_encoding_message_size(usize::MAX)
    }

    /// `GET path`, answering the status and the JSON body.
    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        let response = self.http.get(self.url(path)).send().await.expect("GET");
        let status = response.status();
        (status, response.json().await.expect("JSON body"))
    }

    /// `POST path` with a JSON body, answering the status and the JSON body.
    pub async fn post_json(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        self.post_raw(path, "application/json", body.to_string().into_bytes())
            .await
    }

    /// `POST path` with `body` as `content_type`, answering the status and the JSON body.
    pub async fn post_raw(
        &self,
        path: &str,
        content_type: &str,
        body: Vec<u8>,
    ) -> (StatusCode, Value) {
        let response = self
            .http
            .post(self.url(path))
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .expect("POST");
        let status = response.status();
        (status, response.json().await.expect("JSON body"))
    }

    /// Shuts the server down and waits for the drain.
    pub async fn stop(mut self) {
        if let Some(running) = self.running.take() {
            let result = tokio::time::timeout(TIMEOUT, running.shutdown()).await;
            result.expect("drains in time").expect("stops cleanly");
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(running) = &self.running {
            running.shutdown_token().cancel();
        }
    }
}

/// The core generator a world with this configuration uses.
pub fn generator(kind: GeneratorKind, seed: u32) -> WorldGenerator {
    WorldGenerator::new(kind, seed).expect("valid generator")
}

/// The generator of the default world `main`.
pub fn main_generator() -> WorldGenerator {
    generator(GeneratorKind::Hyperscape, 0)
}

/// Asserts two heights are the same f64, bit for bit.
#[track_caller]
pub fn assert_same(got: f64, want: f64, what: &str) {
    assert_eq!(
        got.to_bits(),
        want.to_bits(),
        "{what}: got {got:?}, want {want:?}"
    );
}

/// A JSON number as f64.
#[track_caller]
pub fn num(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("expected a number, got {value}"))
}

/// A JSON array of numbers.
#[track_caller]
pub fn nums(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected an array, got {value}"))
        .iter()
        .map(num)
        .collect()
}

/// Asserts an HTTP error answer: status, `error.code` and `error.field`.
#[track_caller]
pub fn assert_http_error(
    answer: &(StatusCode, Value),
    status: u16,
    code: &str,
    field: Option<&str>,
) {
    let (got_status, body) = answer;
    let error = &body["error"];
    assert_eq!(got_status.as_u16(), status, "status of {body}");
    assert_eq!(error["code"], code, "code of {body}");
    assert_eq!(error["field"].as_str(), field, "field of {body}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "message of {body}");
    if let Some(field) = field {
        assert!(
            message.starts_with(field),
            "message {message:?} should start with {field:?}"
        );
    }
}

/// `n` distinct points on an irregular spiral, for batches larger than the offload
/// threshold.
pub fn spiral(n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|i| {
            let t = i as f64 * 0.618_033_988_75;
            let r = 3.0 + i as f64 * 0.731;
            (r * t.cos() - 17.25, r * t.sin() + 4.5)
        })
        .collect()
}
