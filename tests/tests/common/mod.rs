//! Shared helpers for the end-to-end tests: a real server on `127.0.0.1:0` with a
//! temporary data directory, a gRPC channel and an HTTP client for it, and the core
//! generators (and zone-carrying [`Terrain`]s) the answers are checked against.
//!
//! [`TestServer::start`] and [`TestServer::start_with`] serve the default world `main`
//! *without* its built-in stations and arenas, so the height tests compare against the
//! bare generator; [`TestServer::start_default`] serves `Config::default()` as is.
//!
//! Every network call has a timeout, and clients ignore proxy settings: the tests only
//! ever talk to loopback.

#![allow(dead_code)] // each test binary uses a subset

pub mod events;

use std::{net::SocketAddr, time::Duration};

use reqwest::StatusCode;
use serde_json::Value;
use tempfile::TempDir;
use terrain_core::{
    FlatZone, Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet, zones::ZoneDoc,
};
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
    /// World `main`, hyperscape, seed 0, without start-up zones or warmed meshes.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// [`TestServer::start`]'s configuration as changed by `edit` (the listen address
    /// and data directory are set before `edit` runs).
    pub async fn start_with(edit: impl FnOnce(&mut Config)) -> Self {
        let data = tempfile::tempdir().expect("temporary directory");
        Self::start_in(data, |c| {
            c.worlds = c.worlds.drain(..).map(|w| w.without_zones()).collect();
            // Tests count mesh builds: nothing is built unless they ask.
            c.lifecycle.warm_radius = None;
            edit(c);
        })
        .await
    }

    /// `Config::default()` as is (with the built-in zones of `main`).
    pub async fn start_default() -> Self {
        let data = tempfile::tempdir().expect("temporary directory");
        Self::start_in(data, |_| {}).await
    }

    /// `Config::default()` as changed by `edit`, with its data in `data` (which may
    /// hold the data of an earlier server: see [`TestServer::stop_keeping_data`]),
    /// once it is ready (`/readyz` 200: its worlds are baked).
    pub async fn start_in(data: TempDir, edit: impl FnOnce(&mut Config)) -> Self {
        let server = Self::launch_in(data, edit).await;
        let deadline = std::time::Instant::now() + TIMEOUT;
        loop {
            let response = server.http.get(server.url("/readyz")).send().await;
            if response.is_ok_and(|r| r.status() == StatusCode::OK) {
                return server;
            }
            assert!(std::time::Instant::now() < deadline, "ready in time");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// [`TestServer::start_in`] without waiting for readiness.
    pub async fn launch_in(data: TempDir, edit: impl FnOnce(&mut Config)) -> Self {
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

    /// `PUT path` with a JSON body and an optional bearer token.
    pub async fn put_json(
        &self,
        path: &str,
        body: &Value,
        token: Option<&str>,
    ) -> (StatusCode, Value) {
        let mut request = self.http.put(self.url(path)).json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("PUT");
        let status = response.status();
        (status, response.json().await.expect("JSON body"))
    }

    /// `PUT path` with a raw body, answering the status and the JSON body.
    pub async fn put_raw(&self, path: &str, body: &str) -> (StatusCode, Value) {
        let response = self
            .http
            .put(self.url(path))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("PUT");
        let status = response.status();
        (status, response.json().await.expect("JSON body"))
    }

    /// `DELETE path` with an optional bearer token.
    pub async fn delete(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        let mut request = self.http.delete(self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.expect("DELETE");
        let status = response.status();
        (status, response.json().await.expect("JSON body"))
    }

    /// The revision of world `world`, as `GET .../flat-zones` reports it.
    pub async fn revision(&self, world: &str) -> u64 {
        let (status, body) = self.get(&format!("/v1/worlds/{world}/flat-zones")).await;
        assert_eq!(status, 200, "{body}");
        body["revision"].as_u64().expect("revision")
    }

    /// The ids of world `world`'s zones, in registration order.
    pub async fn zone_ids(&self, world: &str) -> Vec<String> {
        let (status, body) = self.get(&format!("/v1/worlds/{world}/flat-zones")).await;
        assert_eq!(status, 200, "{body}");
        body["zones"]
            .as_array()
            .expect("zones")
            .iter()
            .map(|z| z["id"].as_str().expect("id").to_string())
            .collect()
    }

    /// Shuts the server down and waits for the drain.
    /// The Prometheus text of `/metrics`.
    pub async fn metrics(&self) -> String {
        let response = self
            .http
            .get(self.url("/metrics"))
            .send()
            .await
            .expect("GET /metrics");
        response.text().await.expect("metrics text")
    }

    /// One sample of `/metrics` (name and labels), 0 if absent.
    pub async fn metric(&self, series: &str) -> f64 {
        metric_sample(&self.metrics().await, series).unwrap_or(0.0)
    }

    pub async fn stop(self) {
        drop(self.stop_keeping_data().await);
    }

    /// Shuts the server down, waits for the drain, and hands back its data directory
    /// for [`TestServer::start_in`].
    pub async fn stop_keeping_data(mut self) -> TempDir {
        if let Some(running) = self.running.take() {
            let result = tokio::time::timeout(TIMEOUT, running.shutdown()).await;
            result.expect("drains in time").expect("stops cleanly");
        }
        let placeholder = tempfile::tempdir().expect("temporary directory");
        std::mem::replace(&mut self._data, placeholder)
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

/// A zone document from JSON (as a test writes it).
#[track_caller]
pub fn doc(value: &Value) -> ZoneDoc {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("zone {value}: {e}"))
}

/// The zone `id` as the server registers `body` over `generator`: height resolved
/// against the procedural height at the centre.
#[track_caller]
pub fn resolve(generator: &WorldGenerator, id: &str, body: &Value) -> FlatZone {
    let spec = doc(body).spec().expect("valid zone");
    spec.resolve(id, generator.procedural(spec.center_x, spec.center_z))
}

/// A core [`Terrain`] with `zones` registered at revisions 1, 2, ... in order: what
/// a world with the same registrations must answer, bit for bit.
pub fn terrain(generator: &WorldGenerator, overlap: Overlap, zones: &[FlatZone]) -> Terrain {
    let mut set = ZoneSet::new(overlap, generator.tile_size());
    for (i, zone) in zones.iter().enumerate() {
        set.insert(zone.clone(), i as u64 + 1);
    }
    Terrain::new(generator.clone(), set)
}

/// The tiles a change of `zones` touches, as `[[x, z], ...]` JSON: the union of each
/// zone's `tiles_touching(outer bounds, 1.0)`, row-major, without duplicates.
pub fn tiles_json(generator: &WorldGenerator, zones: &[&FlatZone]) -> Value {
    let mut tiles: Vec<(i64, i64)> = zones
        .iter()
        .flat_map(|z| {
            generator
                .tile_layout()
                .tiles_touching(&z.outer_bounds(), 1.0)
        })
        .collect();
    tiles.sort_by_key(|&(x, z)| (z, x));
    tiles.dedup();
    Value::from(tiles.iter().map(|&(x, z)| vec![x, z]).collect::<Vec<_>>())
}

/// Points in, around and between `zones`: centres, core edges, blend rings, the 1 m
/// shoreline margin, and well outside.
pub fn probe_points(zones: &[FlatZone]) -> Vec<(f64, f64)> {
    let mut points = vec![(5000.0, -5000.0)];
    for z in zones {
        let b = z.outer_bounds();
        let (cx, cz) = (z.center_x, z.center_z);
        let (hw, _) = z.half_extents();
        for dx in [
            0.0,
            0.37,
            hw * 0.5,
            hw,
            hw + z.blend_radius * 0.5,
            b.max_x - cx,
            b.max_x - cx + 0.5,
            b.max_x - cx + 1.2,
            -(b.max_x - cx + 0.9),
        ] {
            for dz in [0.0, 0.25, -(b.max_z - cz) * 0.7, b.max_z - cz + 0.6] {
                points.push((cx + dx, cz + dz));
            }
        }
    }
    points
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

/// The value of the sample `series` (name and labels, e.g. `x_total{world="main"}`) in a
/// Prometheus text exposition.
pub fn metric_sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        line.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}
