//! [`TestServer`]: a real server in this process on a loopback port, with a temporary
//! data directory, and the clients the tests talk to it with (HTTP, raw gRPC channels,
//! the SDK's [`TerrainClient`]).
//!
//! Start-up flavours:
//!
//! - [`TestServer::start`] and [`TestServer::start_with`] serve the default world `main`
//!   *without* its built-in stations and arenas and without warmed meshes, so the height
//!   tests compare against the bare generator and count mesh builds from zero;
//! - [`TestServer::start_default`] and [`TestServer::start_default_with`] serve
//!   `Config::default()` (world `main` with its 28 built-in zones), as is or as edited;
//! - [`TestServer::start_in`] starts over the data of an earlier server
//!   ([`TestServer::stop_keeping_data`]) on a new port, [`TestServer::restart`] on the
//!   same port (so a client's address stays valid), and [`TestServer::elsewhere`] runs a
//!   second server over the data while this one is down.
//!
//! [`TestServer::start_tls`] serves TLS on the port (every start of it, restarts
//! included), with an [`Identity`]'s certificate; its [`TestServer::base_url`] and
//! [`TestServer::client`] are `https://` and trust that certificate, while
//! [`TestServer::http`] speaks plain HTTP only (TLS tests make their HTTP/1.1 requests
//! over tokio-rustls).
//!
//! Every start waits until the server is ready (`/readyz` 200 and `grpc.health.v1`
//! `SERVING`: its worlds are baked), except [`TestServer::launch_in`]. Every network call
//! has a timeout, and the HTTP client ignores proxy settings: the tests only ever talk to
//! loopback.

use std::{future::Future, net::SocketAddr, path::PathBuf, time::Duration};

use reqwest::StatusCode;
use serde_json::Value;
use tempfile::TempDir;
use terrain_client::{ClientBuilder, TerrainClient};
use terrain_proto::v1::terrain_service_client::TerrainServiceClient;
use terrain_server::{Config, RunningServer, Server, config::TlsFiles};
use tonic::transport::{Channel, Endpoint};

use crate::{Identity, metric_sample};

/// The bound on any one request, on a server's start-up and on its drain.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// A running server and clients for it. Dropped without [`TestServer::stop`], the
/// server is cancelled (it drains in the background).
#[derive(Debug)]
pub struct TestServer {
    running: Option<RunningServer>,
    /// The bound loopback address (HTTP and gRPC on one port).
    pub addr: SocketAddr,
    /// An HTTP client with [`TIMEOUT`] per request, without proxies.
    pub http: reqwest::Client,
    data: TempDir,
    /// The certificate every start serves, with [`TestServer::start_tls`].
    tls: Option<TlsFiles>,
}

impl TestServer {
    /// World `main`, hyperscape, seed 0, without start-up zones or warmed meshes.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// [`TestServer::start`]'s configuration as changed by `edit` (the listen address
    /// and data directory are set before `edit` runs).
    pub async fn start_with(edit: impl FnOnce(&mut Config)) -> Self {
        Self::start_in(temporary_dir(), |c| {
            c.worlds = c.worlds.drain(..).map(|w| w.without_zones()).collect();
            // Tests count mesh builds: nothing is built unless they ask.
            c.lifecycle.warm_radius = None;
            edit(c);
        })
        .await
    }

    /// `Config::default()` as is (with the built-in zones of `main`).
    pub async fn start_default() -> Self {
        Self::start_in(temporary_dir(), |_| {}).await
    }

    /// `Config::default()` (with the built-in zones of `main`) as changed by `edit`.
    pub async fn start_default_with(edit: impl FnOnce(&mut Config)) -> Self {
        Self::start_in(temporary_dir(), edit).await
    }

    /// `Config::default()` as changed by `edit`, with its data in `data` (which may
    /// hold the data of an earlier server: see [`TestServer::stop_keeping_data`]),
    /// once it is ready.
    pub async fn start_in(data: TempDir, edit: impl FnOnce(&mut Config)) -> Self {
        let server = Self::launch_in(data, edit).await;
        server.wait_ready(server.addr).await;
        server
    }

    /// [`TestServer::start_in`] without waiting for readiness.
    pub async fn launch_in(data: TempDir, edit: impl FnOnce(&mut Config)) -> Self {
        Self::launch(data, None, edit).await
    }

    /// [`TestServer::start_with`] serving TLS with `identity`'s certificate.
    pub async fn start_tls(identity: &Identity, edit: impl FnOnce(&mut Config)) -> Self {
        let server = Self::launch(temporary_dir(), Some(identity.files()), |c| {
            c.worlds = c.worlds.drain(..).map(|w| w.without_zones()).collect();
            c.lifecycle.warm_radius = None;
            edit(c);
        })
        .await;
        server.wait_ready(server.addr).await;
        server
    }

    async fn launch(data: TempDir, tls: Option<TlsFiles>, edit: impl FnOnce(&mut Config)) -> Self {
        let running = bind(loopback(0), &data, tls.as_ref(), edit).await;
        assert!(
            data.path().join("data").is_dir(),
            "data_dir is created at start-up"
        );
        TestServer {
            addr: running.local_addr(),
            running: Some(running),
            http: http_client(),
            data,
            tls,
        }
    }

    /// The CA file clients trust, for a TLS server.
    fn ca_file(&self) -> Option<PathBuf> {
        self.tls.as_ref().map(|files| files.cert.clone())
    }

    /// `http://ADDR` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `http://ADDR` (`https://ADDR` with TLS), the URL an SDK client connects to.
    pub fn base_url(&self) -> String {
        self.origin(self.addr)
    }

    /// `http://addr`, or `https://addr` with TLS.
    fn origin(&self, addr: SocketAddr) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://{addr}")
    }

    /// An SDK client connected to the server (trusting its certificate, with TLS).
    pub async fn client(&self) -> TerrainClient {
        connect(&self.base_url(), self.ca_file()).await
    }

    /// An HTTP/2 channel to the server.
    pub async fn channel(&self) -> Channel {
        Endpoint::from_shared(self.base_url())
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

    /// `GET path`, with `If-None-Match: tag` when given, answering the status, the ETag
    /// (empty without one) and the body's bytes.
    pub async fn get_tagged(&self, path: &str, tag: Option<&str>) -> (u16, String, Vec<u8>) {
        let mut request = self.http.get(self.url(path));
        if let Some(tag) = tag {
            request = request.header(reqwest::header::IF_NONE_MATCH, tag);
        }
        let response = request.send().await.expect("GET");
        let status = response.status().as_u16();
        let etag = response
            .headers()
            .get(reqwest::header::ETAG)
            .map(|v| v.to_str().expect("an ASCII ETag").to_string())
            .unwrap_or_default();
        (
            status,
            etag,
            response.bytes().await.expect("a body").to_vec(),
        )
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

    /// `POST path` with `points` as a binary batch body (little-endian f64 `x, z`
    /// pairs, `application/octet-stream`): the response, unread.
    pub async fn post_points_binary(&self, path: &str, points: &[(f64, f64)]) -> reqwest::Response {
        let body: Vec<u8> = points
            .iter()
            .flat_map(|&(x, z)| [x.to_le_bytes(), z.to_le_bytes()])
            .flatten()
            .collect();
        self.http
            .post(self.url(path))
            .header("content-type", "application/octet-stream")
            .body(body)
            .send()
            .await
            .expect("POST")
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
        let (zones, _) = self.zone_list(world, "").await;
        zones
            .iter()
            .map(|z| z["id"].as_str().expect("id").to_string())
            .collect()
    }

    /// Every zone of world `world` as `GET .../flat-zones` lists them, following
    /// `nextPageToken` from the first page (`query`: more query parameters, e.g.
    /// `pageSize=3`, or empty), with the listing's revision; every page must carry the
    /// first page's revision.
    pub async fn zone_list(&self, world: &str, query: &str) -> (Vec<Value>, u64) {
        self.zone_pages(world, query).await.into_iter().fold(
            (Vec::new(), 0),
            |(mut zones, _), page| {
                zones.extend(page["zones"].as_array().expect("zones").iter().cloned());
                (zones, page["revision"].as_u64().expect("revision"))
            },
        )
    }

    /// Every page of world `world`'s zone list, raw, from the first page on
    /// (`query`: more query parameters, or empty).
    pub async fn zone_pages(&self, world: &str, query: &str) -> Vec<Value> {
        let mut pages: Vec<Value> = Vec::new();
        let mut token = String::new();
        loop {
            let mut url = reqwest::Url::parse(&self.url(&format!("/v1/worlds/{world}/flat-zones")))
                .expect("URL");
            {
                let mut pairs = url.query_pairs_mut();
                for (k, v) in query.split('&').filter_map(|p| p.split_once('=')) {
                    pairs.append_pair(k, v);
                }
                if !token.is_empty() {
                    pairs.append_pair("pageToken", &token);
                }
            }
            let response = self.http.get(url).send().await.expect("GET");
            let status = response.status();
            let body: Value = response.json().await.expect("JSON body");
            assert_eq!(status, 200, "{body}");
            if let Some(first) = pages.first() {
                assert_eq!(
                    body["revision"], first["revision"],
                    "a page of another revision"
                );
            }
            token = body["nextPageToken"]
                .as_str()
                .expect("nextPageToken")
                .to_string();
            pages.push(body);
            if token.is_empty() {
                return pages;
            }
        }
    }

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

    /// Shuts the server down and waits for the drain.
    pub async fn stop(self) {
        drop(self.stop_keeping_data().await);
    }

    /// Shuts the server down, waits for the drain, and hands back its data directory
    /// for [`TestServer::start_in`].
    pub async fn stop_keeping_data(mut self) -> TempDir {
        self.stop_in_place().await;
        std::mem::replace(&mut self.data, temporary_dir())
    }

    /// Shuts the server down and waits for the drain, keeping its port and data for
    /// [`TestServer::restart`] or [`TestServer::elsewhere`].
    pub async fn stop_in_place(&mut self) {
        if let Some(running) = self.running.take() {
            drain(running).await;
        }
    }

    /// Starts the server again (stopping it first if it runs) on the same port with the
    /// same data, configured by `edit` over `Config::default()`, once it is ready.
    pub async fn restart(&mut self, edit: impl FnOnce(&mut Config)) {
        self.stop_in_place().await;
        let running = bind(self.addr, &self.data, self.tls.as_ref(), edit).await;
        self.wait_ready(self.addr).await;
        self.running = Some(running);
    }

    /// Starts the server again on the same port with an empty data directory (an
    /// operator who lost or moved the old one), configured by `edit` over
    /// `Config::default()`, once it is ready: the same address, another history.
    pub async fn restart_empty(&mut self, edit: impl FnOnce(&mut Config)) {
        self.stop_in_place().await;
        self.data = temporary_dir();
        let running = bind(self.addr, &self.data, self.tls.as_ref(), edit).await;
        self.wait_ready(self.addr).await;
        self.running = Some(running);
    }

    /// Runs a server on another port over the same data while this one is down
    /// ([`TestServer::stop_in_place`]), hands a client of it to `work`, then stops it:
    /// changes made while "the" server was away.
    pub async fn elsewhere<F, Fut>(&mut self, edit: impl FnOnce(&mut Config), work: F)
    where
        F: FnOnce(TerrainClient) -> Fut,
        Fut: Future<Output = ()>,
    {
        assert!(self.running.is_none(), "stop the server first");
        let other = bind(loopback(0), &self.data, self.tls.as_ref(), edit).await;
        self.wait_ready(other.local_addr()).await;
        let client = connect(&self.origin(other.local_addr()), self.ca_file()).await;
        work(client).await;
        drain(other).await;
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(running) = &self.running {
            running.shutdown_token().cancel();
        }
    }
}

/// `127.0.0.1:port`.
fn loopback(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

fn temporary_dir() -> TempDir {
    tempfile::tempdir().expect("temporary directory")
}

fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(TIMEOUT)
        .build()
        .expect("client")
}

/// An SDK client of `url`, trusting `ca_file` if given.
async fn connect(url: &str, ca_file: Option<PathBuf>) -> TerrainClient {
    let builder = ClientBuilder::new(url);
    let builder = match ca_file {
        Some(ca) => builder.ca_file(ca),
        None => builder,
    };
    builder.connect().await.expect("connect")
}

/// Binds a server on `listen` with its data in `data/data` (and `tls`, if given),
/// configured by `edit` over `Config::default()`, and spawns it. A fixed port may take
/// a moment to be free again after a restart: binding it is retried for up to 5 s.
async fn bind(
    listen: SocketAddr,
    data: &TempDir,
    tls: Option<&TlsFiles>,
    edit: impl FnOnce(&mut Config),
) -> RunningServer {
    let mut config = Config {
        listen,
        data_dir: data.path().join("data"),
        shutdown_timeout: Duration::from_secs(5),
        tls: tls.cloned(),
        ..Config::default()
    };
    edit(&mut config);
    let mut tries = 0;
    loop {
        match Server::bind(config.clone()).await {
            Ok(server) => return server.spawn(),
            Err(e) if listen.port() != 0 && tries < 50 => {
                tries += 1;
                eprintln!("bind {listen}: {e}; retrying");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("server starts: {e}"),
        }
    }
}

/// Shuts `running` down and waits for the drain.
async fn drain(running: RunningServer) {
    tokio::time::timeout(TIMEOUT, running.shutdown())
        .await
        .expect("drains in time")
        .expect("stops cleanly");
}

impl TestServer {
    /// Waits until the server at `addr` reports ready: `/readyz` 200 (plain HTTP only)
    /// and `SERVING` over `grpc.health.v1` (its worlds are baked).
    async fn wait_ready(&self, addr: SocketAddr) {
        let ready = async {
            while self.tls.is_none() {
                let response = self.http.get(format!("http://{addr}/readyz")).send().await;
                if response.is_ok_and(|r| r.status() == StatusCode::OK) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            let mut client = connect(&self.origin(addr), self.ca_file()).await;
            while !client.is_serving("").await.expect("health") {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::time::timeout(TIMEOUT, ready)
            .await
            .expect("ready in time");
    }
}
