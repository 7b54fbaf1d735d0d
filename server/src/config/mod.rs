//! Server configuration: a TOML file, overridden by flags and `TERRAIN_*` environment
//! variables, over built-in defaults.
//!
//! Each key is declared once, as a field of [`Settings`]: serde reads it from the file,
//! clap from its flag and variable (every value optional). Clap lays the flags and
//! variables given over the file's settings ([`Cli::layer_over`]); [`Config::resolve`]
//! lays the result over the defaults ([`Settings::defaults`], the lowest layer) and
//! validates it once, into a [`Config`].
//! Any problem names the key path it is about, e.g. `worlds[1].id: duplicate world id
//! "main"` or `store.replicas: must be in 1..=5, got 7`.
//!
//! - `settings`: [`Settings`], the top-level keys; [`store`]: the `store` table
//!   ([`StoreSettings`], resolved into a [`StoreConfig`]); [`world`]: one
//!   `[[worlds]]` entry ([`WorldSpec`], resolved into a [`WorldConfig`]) and its
//!   start-up zone sources; [`lifecycle`]: rings, culling and a world's layout table.
//! - `layer`: `Layer`, one source laid over another key by key, declared with
//!   the settings structs so that no key is listed twice to merge it.
//! - `file`: the TOML file, decoded by serde with `serde_path_to_error` naming the
//!   key path; `de`: the serde decoders of its values.
//! - [`cli`]: the command line ([`Cli`]): `--config`, the keys' flags, and the
//!   subcommands, which it only parses (`crate::commands` runs them).
//! - [`values`]: the value parsers and checks that flags and file share, so a value is
//!   refused with the same words whichever source gives it.

pub mod cli;
mod de;
mod file;
mod layer;
pub mod lifecycle;
mod settings;
pub mod store;
pub mod values;
pub mod walk;
pub mod world;

mod connections;
mod requests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cors;
#[cfg(test)]
mod tests_voxel;

use std::{collections::HashSet, net::SocketAddr, path::PathBuf, time::Duration};

use terrain_core::WorldGenerator;

use crate::auth::AdminToken;
use layer::Layer;
use lifecycle::WarmRadius;

pub use cli::{Cli, Command};
pub use connections::ConnectionConfig;
pub use lifecycle::{LayoutSettings, LifecycleConfig, Rings};
pub use requests::RequestLimits;
pub use settings::Settings;
pub use store::{NatsConfig, StoreConfig, StoreKind, StoreSettings};
pub use values::{LogFormat, WorldSpec};
pub use world::{Manifests, WorldConfig, ZoneFile};

/// The default listen address: loopback only, so a bare start exposes nothing.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// The default largest accepted |x| and |z|.
pub const DEFAULT_MAX_COORDINATE: f64 = 1e9;
/// The default largest batch: 1,000,000 points (a 16 MB gRPC request), core's
/// largest walk grid, which the replicas refuse beyond as the server does.
pub const DEFAULT_MAX_BATCH_POINTS: usize = terrain_core::walk::limits::MAX_WALK_GRID_TILES;
/// The default largest heightmap: 2048 x 2048 samples (a 32 MB gRPC answer).
pub const DEFAULT_MAX_HEIGHTMAP_SAMPLES: usize = 4_194_304;
/// Default tile mesh cache budget: 256 MiB.
pub const DEFAULT_MESH_CACHE_BYTES: usize = 256 * 1024 * 1024;
/// Default per-subscriber event queue.
pub const DEFAULT_SUBSCRIBER_QUEUE: usize = 1024;
/// Most event writer tasks per world by default (fewer on a machine with fewer CPUs).
pub const DEFAULT_EVENT_WRITERS_CAP: usize = 4;
/// Most event writer tasks per world.
pub const MAX_EVENT_WRITERS: usize = 64;

/// The default `event_writers`: the machine's CPUs, at most
/// [`DEFAULT_EVENT_WRITERS_CAP`].
pub fn default_event_writers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(DEFAULT_EVENT_WRITERS_CAP)
}
/// Default mutation-log history kept for resuming subscribers, in revisions.
pub const DEFAULT_EVENT_HISTORY: usize = 100_000;
/// Default reach of as-of-revision queries, in revisions before the current one.
pub const DEFAULT_ASOF_REVISIONS: usize = 1000;
/// The default bound on the shutdown drain.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);
/// The default largest zone width, depth, radius, blend radius or carve inset.
pub const DEFAULT_MAX_ZONE_SIZE: f64 = 10_000.0;
/// The default most flat zones in one world.
pub const DEFAULT_MAX_ZONES_PER_WORLD: usize = 100_000;
/// The default period of the flat-zone statistics log line.
pub const DEFAULT_STATS_INTERVAL: Duration = Duration::from_secs(60);
/// Default nice increment of the compute pool's threads.
pub const DEFAULT_COMPUTE_NICE: u8 = 5;

/// The value of a key the defaults layer gives: always present once `settings` lie
/// over [`Settings::defaults`] (an absent one is a key left out of the defaults).
fn given<T>(value: Option<T>, key: &'static str) -> Result<T, ConfigError> {
    value.ok_or_else(|| ConfigError::invalid(key, "no value and no default"))
}

impl Settings {
    /// The lowest layer: every key that has a default, at it (the values of
    /// [`Config::default`]). The keys without one stay unset: `worlds` (without it the
    /// server hosts [`WorldConfig::default_main`]), `tls_cert`, `tls_key`,
    /// `admin_token`, the gRPC message sizes (derived from the limits) and the `store`
    /// table (whose NATS keys are refused unless `kind = "nats"` is given).
    pub fn defaults() -> Settings {
        let d = Config::default();
        let (limits, connections, requests, lifecycle) =
            (d.limits, d.connections, d.requests, d.lifecycle);
        Settings {
            listen: Some(d.listen),
            data_dir: Some(d.data_dir),
            worlds: None,
            max_coordinate: Some(limits.max_coordinate),
            max_batch_points: Some(limits.max_batch_points),
            max_heightmap_samples: Some(limits.max_heightmap_samples),
            shutdown_timeout: Some(d.shutdown_timeout),
            header_read_timeout: Some(connections.header_read_timeout),
            idle_timeout: Some(connections.idle_timeout),
            request_body_timeout: Some(connections.request_body_timeout),
            max_connections: Some(connections.max_connections),
            max_in_flight: Some(requests.max_in_flight),
            request_timeout: Some(requests.request_timeout),
            retry_after: Some(requests.retry_after),
            grpc_max_decoding_message_size: None,
            grpc_max_encoding_message_size: None,
            http2_keepalive_interval: Some(connections.http2_keepalive_interval),
            http2_keepalive_timeout: Some(connections.http2_keepalive_timeout),
            websocket_ping_interval: Some(connections.websocket_ping_interval),
            websocket_ping_timeout: Some(connections.websocket_ping_timeout),
            max_subscriptions_per_connection: Some(connections.max_subscriptions_per_connection),
            max_subscriptions: Some(connections.max_subscriptions),
            tls_cert: None,
            tls_key: None,
            log_format: Some(d.log_format),
            admin_token: None,
            cors_origins: Some(d.cors_origins),
            insecure: Some(d.insecure),
            max_zone_size: Some(limits.max_zone_size),
            max_zones_per_world: Some(limits.max_zones_per_world),
            compute_nice: Some(d.compute_nice),
            stats_interval: Some(d.stats_interval),
            mesh_cache_bytes: Some(limits.mesh_cache_bytes),
            subscriber_queue: Some(limits.subscriber_queue),
            event_writers: Some(limits.event_writers),
            event_history: Some(limits.event_history),
            asof_revisions: Some(limits.asof_revisions),
            sim_range: Some(lifecycle.rings.sim),
            spawn_range: Some(lifecycle.rings.spawn),
            active_range: Some(lifecycle.rings.active),
            cull_grace: Some(lifecycle.cull_grace),
            viewer_ttl: Some(lifecycle.viewer_ttl),
            max_viewers_per_world: Some(lifecycle.max_viewers_per_world),
            lookahead: Some(lifecycle.lookahead),
            warm_radius: Some(WarmRadius(lifecycle.warm_radius)),
            store: StoreSettings::default(),
        }
    }
}

/// Why a configuration was refused. The message names the offending key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("config file {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML.
    #[error("config file {path}: {message}")]
    Syntax { path: PathBuf, message: String },
    /// A key is unknown, of the wrong type or has a bad value.
    #[error("{key}: {message}")]
    Invalid { key: String, message: String },
}

impl ConfigError {
    /// A bad value at `key`.
    pub fn invalid(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError::Invalid {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// The request-size and coordinate limits. Larger requests get `RESOURCE_EXHAUSTED`
/// (HTTP 413); coordinates beyond `max_coordinate` get `INVALID_ARGUMENT` (HTTP 400).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Largest accepted |x| and |z|, including a heightmap's far corner. Keeps callers
    /// inside the range where the generators' f64 maths is meaningful; at most
    /// [`values::MAX_MAX_COORDINATE`] (2^46 m), what the tile grids can represent.
    pub max_coordinate: f64,
    /// Most points in one `GetHeights` / `POST .../heights` request.
    pub max_batch_points: usize,
    /// Most samples (`nx * nz`) in one heightmap.
    pub max_heightmap_samples: usize,
    /// Largest zone width, depth, radius, blend radius or carve inset, in metres.
    pub max_zone_size: f64,
    /// Most flat zones in one world; a registration beyond it is `RESOURCE_EXHAUSTED`
    /// (field `zones`).
    pub max_zones_per_world: usize,
    /// Memory budget of the tile mesh cache, in bytes, shared by all worlds.
    pub mesh_cache_bytes: usize,
    /// Events queued for one subscriber before it is cut off with a `resync`.
    pub subscriber_queue: usize,
    /// Writer tasks per world that send events to the subscribers served directly
    /// (each subscriber always by the same one, so its events stay in order): the
    /// sends to 1,000 subscribers take a few milliseconds on one thread.
    pub event_writers: usize,
    /// Revisions of each world's mutation log kept for resuming subscribers; older
    /// entries are pruned and a resume from before them gets a `resync`.
    pub event_history: usize,
    /// How many revisions before the current one heights, terrain info and path
    /// checks can be asked as of (lag compensation), per world; an older revision is
    /// `FAILED_PRECONDITION` (field `revision`). After a restart the reach is rebuilt
    /// from the retained mutation log, so it is at most `event_history` then.
    pub asof_revisions: usize,
}

impl Limits {
    /// The coordinate range of a world of `kind`: `max_coordinate`, and on a voxel world
    /// at most [`terrain_core::voxel::MAX_COORDINATE`].
    pub fn max_coordinate_of(&self, kind: terrain_core::GeneratorKind) -> f64 {
        match kind {
            terrain_core::GeneratorKind::Voxel => {
                self.max_coordinate.min(terrain_core::voxel::MAX_COORDINATE)
            }
            _ => self.max_coordinate,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_coordinate: DEFAULT_MAX_COORDINATE,
            max_batch_points: DEFAULT_MAX_BATCH_POINTS,
            max_heightmap_samples: DEFAULT_MAX_HEIGHTMAP_SAMPLES,
            max_zone_size: DEFAULT_MAX_ZONE_SIZE,
            max_zones_per_world: DEFAULT_MAX_ZONES_PER_WORLD,
            mesh_cache_bytes: DEFAULT_MESH_CACHE_BYTES,
            subscriber_queue: DEFAULT_SUBSCRIBER_QUEUE,
            event_writers: default_event_writers(),
            event_history: DEFAULT_EVENT_HISTORY,
            asof_revisions: DEFAULT_ASOF_REVISIONS,
        }
    }
}

/// The PEM files of the server's TLS identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// The leaf's private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

/// The resolved configuration of one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The one port for gRPC (HTTP/2) and HTTP/1.1. Port 0 picks a free port.
    pub listen: SocketAddr,
    /// Created at start-up; holds the zone store, `terrain.redb`.
    pub data_dir: PathBuf,
    /// The hosted worlds, in the order `ListWorlds` reports them. Never empty.
    pub worlds: Vec<WorldConfig>,
    /// What one request may ask for.
    pub limits: Limits,
    /// How long in-flight requests may run after shutdown starts before the server
    /// stops waiting for them.
    pub shutdown_timeout: Duration,
    /// Timeouts and the cap that keep idle or stalled clients from holding
    /// connections (descriptors) for ever.
    pub connections: ConnectionConfig,
    /// The cap on requests in flight and the per-request timeout.
    pub requests: RequestLimits,
    /// TLS on both surfaces, if configured.
    pub tls: Option<TlsFiles>,
    /// Text or JSON log lines (the filter is `RUST_LOG`).
    pub log_format: LogFormat,
    /// When set, mutations must present it as `Authorization: Bearer <token>`.
    pub admin_token: Option<AdminToken>,
    /// The browser origins whose pages may read the HTTP API (CORS) and open the events
    /// WebSocket, as a browser spells them (`https://game.example`), or `["*"]` for any
    /// origin; empty: no CORS headers, and no `Origin` check. Checked by
    /// [`values::check_origin`].
    pub cors_origins: Vec<String>,
    /// Allows listening on a non-loopback address without an admin token (anyone who
    /// can reach the port may then change the worlds).
    pub insecure: bool,
    /// How often each world's flat-zone statistics are logged.
    pub stats_interval: Duration,
    /// The nice increment of the compute pool's threads (`0..=19`): how far their OS
    /// scheduling priority is below the request-answering threads'.
    pub compute_nice: u8,
    /// Viewer rings, culling and baking.
    pub lifecycle: LifecycleConfig,
    /// Where the flat-zone registries live (embedded, or NATS shared by replicas).
    pub store: StoreConfig,
}

impl Default for Config {
    /// One world, `main`, the `hyperscape` generator with seed 0 and the island's
    /// built-in stations and duel arena floors, on 127.0.0.1:8080, without a token.
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir: PathBuf::from("data"),
            worlds: vec![WorldConfig::default_main()],
            limits: Limits::default(),
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            connections: ConnectionConfig::default(),
            requests: RequestLimits::default(),
            tls: None,
            log_format: LogFormat::Text,
            admin_token: None,
            cors_origins: Vec::new(),
            insecure: false,
            stats_interval: DEFAULT_STATS_INTERVAL,
            compute_nice: DEFAULT_COMPUTE_NICE,
            lifecycle: LifecycleConfig::default(),
            store: StoreConfig::Embedded,
        }
    }
}

impl Config {
    /// Reads the file named by `--config` (if any), layers the flags and environment over
    /// it and validates the result.
    pub fn load(cli: &Cli) -> Result<Config, ConfigError> {
        let from_file = match &cli.config {
            Some(path) => file::read(path)?,
            None => Settings::default(),
        };
        let settings = cli
            .layer_over(from_file)
            .map_err(|e| ConfigError::invalid("command line", e.to_string()))?;
        Config::resolve(settings)
    }

    /// The configuration the text of a configuration file describes (no flags or
    /// environment), relative paths resolved against `base`, as `--config` reads it.
    pub fn from_toml(text: &str, base: &std::path::Path) -> Result<Config, ConfigError> {
        Config::resolve(file::parse_in(text, base)?)
    }

    /// Lays `settings` over the defaults ([`Settings::defaults`]) and validates the
    /// result.
    pub fn resolve(settings: Settings) -> Result<Config, ConfigError> {
        let s = settings.over(Settings::defaults());
        let worlds = match s.worlds {
            Some(specs) => world::resolve_worlds(specs)?,
            None => vec![WorldConfig::default_main()],
        };
        let config = Config {
            listen: given(s.listen, "listen")?,
            data_dir: given(s.data_dir, "data_dir")?,
            worlds,
            limits: Limits {
                max_coordinate: given(s.max_coordinate, "max_coordinate")?,
                max_batch_points: given(s.max_batch_points, "max_batch_points")?,
                max_heightmap_samples: given(s.max_heightmap_samples, "max_heightmap_samples")?,
                max_zone_size: given(s.max_zone_size, "max_zone_size")?,
                max_zones_per_world: given(s.max_zones_per_world, "max_zones_per_world")?,
                mesh_cache_bytes: given(s.mesh_cache_bytes, "mesh_cache_bytes")?,
                subscriber_queue: given(s.subscriber_queue, "subscriber_queue")?,
                event_writers: given(s.event_writers, "event_writers")?,
                event_history: given(s.event_history, "event_history")?,
                asof_revisions: given(s.asof_revisions, "asof_revisions")?,
            },
            shutdown_timeout: given(s.shutdown_timeout, "shutdown_timeout")?,
            connections: ConnectionConfig {
                header_read_timeout: given(s.header_read_timeout, "header_read_timeout")?,
                idle_timeout: given(s.idle_timeout, "idle_timeout")?,
                request_body_timeout: given(s.request_body_timeout, "request_body_timeout")?,
                max_connections: given(s.max_connections, "max_connections")?,
                grpc_max_decoding_message_size: s.grpc_max_decoding_message_size,
                grpc_max_encoding_message_size: s.grpc_max_encoding_message_size,
                http2_keepalive_interval: given(
                    s.http2_keepalive_interval,
                    "http2_keepalive_interval",
                )?,
                http2_keepalive_timeout: given(
                    s.http2_keepalive_timeout,
                    "http2_keepalive_timeout",
                )?,
                websocket_ping_interval: given(
                    s.websocket_ping_interval,
                    "websocket_ping_interval",
                )?,
                websocket_ping_timeout: given(s.websocket_ping_timeout, "websocket_ping_timeout")?,
                max_subscriptions_per_connection: given(
                    s.max_subscriptions_per_connection,
                    "max_subscriptions_per_connection",
                )?,
                max_subscriptions: given(s.max_subscriptions, "max_subscriptions")?,
            },
            requests: RequestLimits {
                max_in_flight: given(s.max_in_flight, "max_in_flight")?,
                request_timeout: given(s.request_timeout, "request_timeout")?,
                retry_after: given(s.retry_after, "retry_after")?,
            },
            tls: match (s.tls_cert, s.tls_key) {
                (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
                (None, None) => None,
                (Some(_), None) => {
                    return Err(ConfigError::invalid("tls_key", "required with tls_cert"));
                }
                (None, Some(_)) => {
                    return Err(ConfigError::invalid("tls_cert", "required with tls_key"));
                }
            },
            log_format: given(s.log_format, "log_format")?,
            admin_token: s.admin_token,
            cors_origins: given(s.cors_origins, "cors_origins")?,
            insecure: given(s.insecure, "insecure")?,
            stats_interval: given(s.stats_interval, "stats_interval")?,
            compute_nice: given(s.compute_nice, "compute_nice")?,
            lifecycle: LifecycleConfig {
                rings: Rings {
                    sim: given(s.sim_range, "sim_range")?,
                    spawn: given(s.spawn_range, "spawn_range")?,
                    active: given(s.active_range, "active_range")?,
                },
                cull_grace: given(s.cull_grace, "cull_grace")?,
                viewer_ttl: given(s.viewer_ttl, "viewer_ttl")?,
                max_viewers_per_world: given(s.max_viewers_per_world, "max_viewers_per_world")?,
                warm_radius: given(s.warm_radius, "warm_radius")?.0,
                lookahead: given(s.lookahead, "lookahead")?,
            },
            store: s.store.resolve()?,
        };
        config.validate()?;
        Ok(config)
    }

    /// Checks the invariants a hand-built `Config` must also meet: at least one world,
    /// valid and unique ids, seeds the generators accept, sane limits, and no
    /// unauthenticated mutations from beyond this machine unless `insecure`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_worlds()?;
        self.validate_limits()?;
        self.validate_lifecycle()?;
        self.connections.validate()?;
        self.requests.validate()?;
        self.validate_cors_origins()?;
        if self.stats_interval.is_zero() {
            return Err(ConfigError::invalid(
                "stats_interval",
                "must be greater than 0",
            ));
        }
        if !self.listen.ip().is_loopback() && self.admin_token.is_none() && !self.insecure {
            let message = format!(
                "required to listen on {}, which is not a loopback address: anyone who can \
                 reach it could change the worlds (set admin_token, or insecure = true to \
                 allow that)",
                self.listen
            );
            return Err(ConfigError::invalid("admin_token", message));
        }
        Ok(())
    }

    fn validate_worlds(&self) -> Result<(), ConfigError> {
        if self.worlds.is_empty() {
            return Err(ConfigError::invalid(
                "worlds",
                "at least one world is required",
            ));
        }
        let mut seen = HashSet::new();
        for (i, world) in self.worlds.iter().enumerate() {
            values::check_world_id(&world.id)
                .map_err(|m| ConfigError::invalid(format!("worlds[{i}].id"), m))?;
            if !seen.insert(world.id.as_str()) {
                let message = format!("duplicate world id {:?}", world.id);
                return Err(ConfigError::invalid(format!("worlds[{i}].id"), message));
            }
            if let Err(e) = WorldGenerator::new(world.generator, world.seed) {
                return Err(world::generator_error(i, &e));
            }
            world::check_voxel(i, world.generator, world.voxel.as_ref())?;
            if world.generator == terrain_core::GeneratorKind::Voxel && world.layout.is_some() {
                return Err(ConfigError::invalid(
                    format!("worlds[{i}].layout"),
                    "a voxel world has no layout layer (its heights are whole blocks)",
                ));
            }
            if world.spawn.is_empty() {
                return Err(ConfigError::invalid(
                    format!("worlds[{i}].spawn"),
                    "at least one spawn point is required",
                ));
            }
            let max = self.limits.max_coordinate_of(world.generator);
            lifecycle::check_spawns(&world.spawn, max)
                .map_err(|(j, m)| ConfigError::invalid(format!("worlds[{i}].spawn[{j}]"), m))?;
        }
        Ok(())
    }

    /// Each origin as a browser sends it (`values::check_origin`), none twice, and `*`
    /// only alone.
    fn validate_cors_origins(&self) -> Result<(), ConfigError> {
        let origins = &self.cors_origins;
        for (i, origin) in origins.iter().enumerate() {
            let key = || format!("cors_origins[{i}]");
            if origin == "*" && origins.len() > 1 {
                let message = "\"*\" allows every origin: give it alone, or list the origins";
                return Err(ConfigError::invalid(key(), message));
            }
            values::check_origin(origin).map_err(|m| ConfigError::invalid(key(), m))?;
            if origins[..i].contains(origin) {
                let message = format!("duplicate origin {origin:?}");
                return Err(ConfigError::invalid(key(), message));
            }
        }
        Ok(())
    }

    fn validate_lifecycle(&self) -> Result<(), ConfigError> {
        let lc = &self.lifecycle;
        lc.rings
            .validate()
            .map_err(|(key, m)| ConfigError::invalid(key, m))?;
        values::check_limit(lc.max_viewers_per_world)
            .map_err(|m| ConfigError::invalid("max_viewers_per_world", m))?;
        if lc.viewer_ttl.is_zero() {
            return Err(ConfigError::invalid("viewer_ttl", "must be greater than 0"));
        }
        if let Some(r) = lc.warm_radius
            && r > lifecycle::MAX_WARM_RADIUS
        {
            let message = format!(
                "must be at most {} tiles, got {r}",
                lifecycle::MAX_WARM_RADIUS
            );
            return Err(ConfigError::invalid("warm_radius", message));
        }
        if lc.lookahead > lifecycle::MAX_LOOKAHEAD {
            let message = format!(
                "must be at most {:?}, got {:?}",
                lifecycle::MAX_LOOKAHEAD,
                lc.lookahead
            );
            return Err(ConfigError::invalid("lookahead", message));
        }
        Ok(())
    }

    fn validate_limits(&self) -> Result<(), ConfigError> {
        values::check_max_coordinate(self.limits.max_coordinate)
            .map_err(|m| ConfigError::invalid("max_coordinate", m))?;
        values::check_limit(self.limits.max_batch_points)
            .map_err(|m| ConfigError::invalid("max_batch_points", m))?;
        values::check_limit(self.limits.max_heightmap_samples)
            .map_err(|m| ConfigError::invalid("max_heightmap_samples", m))?;
        values::check_max_zone_size(self.limits.max_zone_size)
            .map_err(|m| ConfigError::invalid("max_zone_size", m))?;
        values::check_limit(self.limits.max_zones_per_world)
            .map_err(|m| ConfigError::invalid("max_zones_per_world", m))?;
        values::check_event_writers(self.limits.event_writers)
            .map_err(|m| ConfigError::invalid("event_writers", m))?;
        Ok(())
    }
}
