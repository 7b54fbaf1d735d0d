//! [`TerrainClient`]: the typed client over the generated tonic clients, and its
//! height queries. Zone calls live in `zones.rs`, tile meshes in `mesh.rs`, event
//! streams in `events.rs`: all are methods of the one client type. `https://` URLs
//! connect over TLS with the CA of [`ClientBuilder::ca_file`] (`tls.rs`).

use std::{path::PathBuf, time::Duration};

use terrain_proto::v1::{
    self, terrain_events_client::TerrainEventsClient,
    terrain_lifecycle_client::TerrainLifecycleClient, terrain_service_client::TerrainServiceClient,
};
use tonic::{
    Request,
    metadata::{Ascii, MetadataValue},
    service::{Interceptor, interceptor::InterceptedService},
    transport::{Channel, Endpoint},
};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

use crate::{
    ClientError, Height, HeightMode, Heightmap, Heights, RetryPolicy, Town, WorldInfo,
    tls::{CaSource, ca_pem, connect_error, tls_config},
    types::zone_id,
};

/// The HTTP/2 stream flow-control window the client opens: a tile mesh (about
/// 100 KB) or a batch of 10,000 heights fits in one window.
pub const STREAM_WINDOW: u32 = 4 << 20;
/// The HTTP/2 connection flow-control window the client opens.
pub const CONNECTION_WINDOW: u32 = 16 << 20;

/// The channel type every generated client of this crate runs over.
pub(crate) type AuthChannel = InterceptedService<Channel, BearerAuth>;

/// Adds `authorization: Bearer <token>` to every request when a token is set.
#[derive(Debug, Clone, Default)]
pub struct BearerAuth(Option<MetadataValue<Ascii>>);

impl Interceptor for BearerAuth {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, tonic::Status> {
        if let Some(v) = &self.0 {
            req.metadata_mut().insert("authorization", v.clone());
        }
        Ok(req)
    }
}

/// Connection settings for a [`TerrainClient`].
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    url: String,
    token: Option<String>,
    connect_timeout: Duration,
    request_timeout: Option<Duration>,
    retry: RetryPolicy,
    lazy: bool,
    keepalive: Option<Duration>,
    ca: Option<CaSource>,
    tls_domain: Option<String>,
}

impl ClientBuilder {
    /// Settings for the server at `url` (e.g. `http://127.0.0.1:8080`): 5 s connect
    /// timeout, 30 s per-request timeout, the default [`RetryPolicy`].
    pub fn new(url: impl Into<String>) -> Self {
        ClientBuilder {
            url: url.into(),
            token: None,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Some(Duration::from_secs(30)),
            retry: RetryPolicy::default(),
            lazy: false,
            keepalive: Some(Duration::from_secs(10)),
            ca: None,
            tls_domain: None,
        }
    }

    /// Trusts the CA certificates of the PEM file at `path` for an `https://` URL
    /// (the server's `tls_cert`, or the CA that signed it). Read and checked by
    /// [`ClientBuilder::connect`]: a missing, unreadable or certificate-less file is
    /// [`ClientError::CaFile`]. The system's roots are not loaded; to trust them, give
    /// their bundle (e.g. `/etc/ssl/certs/ca-certificates.crt`).
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.ca = Some(CaSource::File(path.into()));
        self
    }

    /// As [`ClientBuilder::ca_file`], with the PEM text in memory.
    pub fn ca_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.ca = Some(CaSource::Pem(pem.into()));
        self
    }

    /// Verifies the server's certificate for `name` instead of the URL's host (e.g.
    /// `localhost` when connecting by IP address to a certificate for that name).
    pub fn tls_domain_name(mut self, name: impl Into<String>) -> Self {
        self.tls_domain = Some(name.into());
        self
    }

    /// Sends `authorization: Bearer <token>` with every call.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    pub fn connect_timeout(mut self, t: Duration) -> Self {
        self.connect_timeout = t;
        self
    }

    /// The deadline of each call; `None` for no deadline.
    pub fn request_timeout(mut self, t: Option<Duration>) -> Self {
        self.request_timeout = t;
        self
    }

    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Connects on first use instead of in [`ClientBuilder::connect`], so a client can
    /// be built before the server is up.
    pub fn lazy(mut self, lazy: bool) -> Self {
        self.lazy = lazy;
        self
    }

    /// Sends HTTP/2 pings this often (and waits as long for the answer), so a
    /// connection whose peer vanished without closing it (a network cut) is noticed
    /// and open streams fail over to a new one. `None` disables it; default 10 s.
    pub fn keepalive(mut self, interval: Option<Duration>) -> Self {
        self.keepalive = interval;
        self
    }

    /// Builds the client, connecting now unless [`ClientBuilder::lazy`] is set. An
    /// `https://` URL needs a CA ([`ClientBuilder::ca_file`]); a server whose
    /// certificate the CA did not sign is [`ClientError::Tls`], at once.
    pub async fn connect(self) -> Result<TerrainClient, ClientError> {
        let invalid = |reason: String| ClientError::InvalidUrl {
            url: self.url.clone(),
            reason,
        };
        let mut endpoint = Endpoint::from_shared(self.url.clone())
            .map_err(|e| invalid(e.to_string()))?
            .connect_timeout(self.connect_timeout)
            .tcp_nodelay(true)
            // Large answers (meshes, big batches) arrive without waiting on window
            // updates, which with delayed ACKs can stall a response by 40 ms.
            .initial_stream_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONNECTION_WINDOW);
        if let Some(k) = self.keepalive {
            endpoint = endpoint
                .http2_keep_alive_interval(k)
                .keep_alive_timeout(k)
                .keep_alive_while_idle(true);
        }
        if let Some(t) = self.request_timeout {
            endpoint = endpoint.timeout(t);
        }
        let scheme = endpoint.uri().scheme_str().unwrap_or("");
        if scheme != "http" && scheme != "https" {
            return Err(invalid(format!(
                "the scheme must be http:// or https://, got {scheme:?}"
            )));
        }
        let https = scheme == "https";
        match (&self.ca, https) {
            (Some(ca), true) => {
                let pem = ca_pem(ca)?;
                endpoint = endpoint
                    .tls_config(tls_config(&pem, self.tls_domain.as_deref()))
                    .map_err(|e| ClientError::Tls(e.to_string()))?;
            }
            (None, true) => {
                return Err(ClientError::Tls(format!(
                    "{}: an https:// URL needs the server's CA certificate: \
                     ClientBuilder::ca_file (the system roots are not loaded)",
                    self.url
                )));
            }
            (Some(_), false) => {
                return Err(invalid(
                    "ca_file is given but the URL is not https:// (TLS would not be used)".into(),
                ));
            }
            (None, false) => {}
        }
        let auth = match &self.token {
            Some(t) => BearerAuth(Some(
                format!("Bearer {t}")
                    .parse()
                    .map_err(|_| invalid("bearer token is not valid ASCII".into()))?,
            )),
            None => BearerAuth(None),
        };
        let channel = if self.lazy {
            endpoint.connect_lazy()
        } else {
            endpoint.connect().await.map_err(connect_error)?
        };
        Ok(TerrainClient::from_channel(channel, auth, self.retry))
    }
}

/// A typed client of `terrain.v1.TerrainService`. Cheap to clone: clones share one
/// HTTP/2 connection.
#[derive(Debug, Clone)]
pub struct TerrainClient {
    pub(crate) inner: TerrainServiceClient<AuthChannel>,
    pub(crate) events: TerrainEventsClient<AuthChannel>,
    pub(crate) health: HealthClient<AuthChannel>,
    pub(crate) lifecycle: TerrainLifecycleClient<AuthChannel>,
    pub(crate) retry: RetryPolicy,
}

impl TerrainClient {
    /// Connects to `url` with the default settings of [`ClientBuilder`].
    pub async fn connect(url: impl Into<String>) -> Result<Self, ClientError> {
        ClientBuilder::new(url).connect().await
    }

    /// A client over an existing channel.
    pub fn from_channel(channel: Channel, auth: BearerAuth, retry: RetryPolicy) -> Self {
        let intercepted = InterceptedService::new(channel, auth);
        let inner = TerrainServiceClient::new(intercepted.clone())
            .max_decoding_message_size(usize::MAX)
            .max_encoding_message_size(usize::MAX);
        let events = TerrainEventsClient::new(intercepted.clone());
        let lifecycle = TerrainLifecycleClient::new(intercepted.clone());
        let health = HealthClient::new(intercepted);
        TerrainClient {
            inner,
            events,
            health,
            lifecycle,
            retry,
        }
    }

    /// The generated tonic client, for raw protobuf access.
    pub fn raw(&self) -> TerrainServiceClient<AuthChannel> {
        self.inner.clone()
    }

    /// The retry policy of idempotent calls.
    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }

    /// `grpc.health.v1.Health/Check` for `service` (`""`: the whole server): true
    /// when it reports `SERVING`. Retried like any read.
    pub async fn is_serving(&mut self, service: &str) -> Result<bool, ClientError> {
        let health = self.health.clone();
        self.retry
            .run("Health.Check", || {
                let mut c = health.clone();
                let req = HealthCheckRequest {
                    service: service.to_string(),
                };
                async move {
                    let r = c.check(req).await?.into_inner();
                    Ok(r.status
                        == tonic_health::pb::health_check_response::ServingStatus::Serving as i32)
                }
            })
            .await
    }

    /// The worlds the server hosts, in its configuration order.
    pub async fn list_worlds(&mut self) -> Result<Vec<WorldInfo>, ClientError> {
        Ok(self
            .list_worlds_with_towns()
            .await?
            .into_iter()
            .map(|(info, _)| info)
            .collect())
    }

    /// [`TerrainClient::list_worlds`], each world with the towns its walkability rule's
    /// difficulty reads (`WalkRule.towns`: the world's `towns` under the `hyperscape`
    /// rule, empty under the others), what a replica judges difficulty with.
    pub async fn list_worlds_with_towns(
        &mut self,
    ) -> Result<Vec<(WorldInfo, Vec<Town>)>, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("ListWorlds", || {
                let mut c = inner.clone();
                async move {
                    let r = c.list_worlds(v1::ListWorldsRequest {}).await?;
                    r.into_inner()
                        .worlds
                        .into_iter()
                        .map(|w| {
                            let protocol =
                                |e: terrain_model::FieldError| ClientError::Protocol(e.to_string());
                            let towns = w
                                .walkability
                                .as_ref()
                                .map(terrain_model::towns_of)
                                .transpose()
                                .map_err(protocol)?
                                .unwrap_or_default();
                            Ok((WorldInfo::try_from(w).map_err(protocol)?, towns))
                        })
                        .collect()
                }
            })
            .await
    }

    /// The exact height at `(x, z)` in `world`.
    pub async fn height(&mut self, world: &str, x: f64, z: f64) -> Result<Height, ClientError> {
        self.height_with_mode(world, x, z, HeightMode::Exact).await
    }

    /// The height at `(x, z)` in `world`: the exact field, the served surface or the
    /// procedural height (no zones; the answer then names no zone).
    pub async fn height_with_mode(
        &mut self,
        world: &str,
        x: f64,
        z: f64,
        mode: HeightMode,
    ) -> Result<Height, ClientError> {
        self.height_as_of(world, x, z, mode, None).await
    }

    /// [`TerrainClient::height_with_mode`] as of `revision` (`None`: now): the height
    /// the world had at that earlier revision, for lag compensation; the answer
    /// carries that revision. A revision older than the server's history holds
    /// (`asof_revisions`), or newer than the world's, is
    /// [`ClientError::FailedPrecondition`] (naming `revision`).
    pub async fn height_as_of(
        &mut self,
        world: &str,
        x: f64,
        z: f64,
        mode: HeightMode,
        revision: Option<u64>,
    ) -> Result<Height, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("GetHeight", || {
                let mut c = inner.clone();
                let req = v1::GetHeightRequest {
                    world: world.to_string(),
                    x,
                    z,
                    mode: v1::HeightMode::from(mode) as i32,
                    revision,
                };
                async move {
                    let r = c.get_height(req).await?.into_inner();
                    Ok(Height {
                        x: r.x,
                        z: r.z,
                        height: r.height,
                        revision: r.revision,
                        zone: zone_id(r.zone),
                    })
                }
            })
            .await
    }

    /// Heights at `points` (`(x, z)` pairs) in `world`, in the same order.
    pub async fn heights(
        &mut self,
        world: &str,
        points: &[(f64, f64)],
    ) -> Result<Heights, ClientError> {
        self.heights_with_mode(world, points, HeightMode::Exact)
            .await
    }

    /// Heights at `points` in `mode`: exact (with the deciding zones), the served
    /// meshes' surface (read from the server's cached tile meshes where it holds
    /// them) or the procedural height (no zones); `zones` is empty in the last two.
    pub async fn heights_with_mode(
        &mut self,
        world: &str,
        points: &[(f64, f64)],
        mode: HeightMode,
    ) -> Result<Heights, ClientError> {
        self.heights_as_of(world, points, mode, None).await
    }

    /// [`TerrainClient::heights_with_mode`] as of `revision` (`None`: now), as
    /// [`TerrainClient::height_as_of`].
    pub async fn heights_as_of(
        &mut self,
        world: &str,
        points: &[(f64, f64)],
        mode: HeightMode,
        revision: Option<u64>,
    ) -> Result<Heights, ClientError> {
        let coordinates: Vec<f64> = points.iter().flat_map(|&(x, z)| [x, z]).collect();
        let req_len = points.len();
        let inner = self.inner.clone();
        self.retry
            .run("GetHeights", || {
                let mut c = inner.clone();
                let req = v1::GetHeightsRequest {
                    world: world.to_string(),
                    coordinates: coordinates.clone(),
                    mode: v1::HeightMode::from(mode) as i32,
                    revision,
                };
                async move {
                    let r = c.get_heights(req).await?.into_inner();
                    if r.heights.len() != req_len {
                        return Err(ClientError::Protocol(format!(
                            "{} heights for {req_len} points",
                            r.heights.len()
                        )));
                    }
                    Ok(Heights {
                        heights: r.heights,
                        revision: r.revision,
                        zones: r.zones.into_iter().map(zone_id).collect(),
                    })
                }
            })
            .await
    }

    /// Heights at `points` in batches of at most `batch` points, one call per batch,
    /// concatenated in order. Each batch carries its own revision; the answer holds
    /// the lowest, so a caller can tell whether a change may have landed mid-way.
    pub async fn heights_batched(
        &mut self,
        world: &str,
        points: &[(f64, f64)],
        batch: usize,
    ) -> Result<Heights, ClientError> {
        let mut out = Heights {
            heights: Vec::with_capacity(points.len()),
            revision: u64::MAX,
            zones: Vec::new(),
        };
        for chunk in points.chunks(batch.max(1)) {
            let part = self.heights(world, chunk).await?;
            out.heights.extend(part.heights);
            out.zones.extend(part.zones);
            out.revision = out.revision.min(part.revision);
        }
        if points.is_empty() {
            out.revision = self
                .list_worlds()
                .await?
                .into_iter()
                .find(|w| w.id == world)
                .map_or(0, |w| w.revision);
        }
        Ok(out)
    }

    /// Heights on the grid `(x0 + ix*step, z0 + iz*step)`, `nx` by `nz` samples.
    pub async fn heightmap(
        &mut self,
        world: &str,
        origin: (f64, f64),
        step: f64,
        counts: (u32, u32),
    ) -> Result<Heightmap, ClientError> {
        self.heightmap_with_mode(world, origin, step, counts, HeightMode::Exact)
            .await
    }

    /// [`TerrainClient::heightmap`] in `mode`: the exact field, the served surface
    /// (each sample evaluated) or the procedural height.
    pub async fn heightmap_with_mode(
        &mut self,
        world: &str,
        (x0, z0): (f64, f64),
        step: f64,
        (nx, nz): (u32, u32),
        mode: HeightMode,
    ) -> Result<Heightmap, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("GetHeightmap", || {
                let mut c = inner.clone();
                let req = v1::GetHeightmapRequest {
                    world: world.to_string(),
                    x0,
                    z0,
                    step,
                    nx,
                    nz,
                    mode: v1::HeightMode::from(mode) as i32,
                };
                async move {
                    let r = c.get_heightmap(req).await?.into_inner();
                    Ok(Heightmap {
                        x0: r.x0,
                        z0: r.z0,
                        step: r.step,
                        nx: r.nx,
                        nz: r.nz,
                        heights: r.heights,
                        revision: r.revision,
                    })
                }
            })
            .await
    }
}
