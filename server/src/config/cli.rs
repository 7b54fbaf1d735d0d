//! The command line. Every top-level setting is a flag and a `TERRAIN_*` environment
//! variable; both override the configuration file.

use std::{
    io::Write,
    net::SocketAddr,
    path::{Path, PathBuf},
    time::Duration,
};

use clap::{Parser, Subcommand};

use super::{LogFormat, Settings, StoreKind, StoreSettings, WorldSpec, lifecycle, store, values};
use crate::auth::AdminToken;

/// Authoritative terrain server: height queries over gRPC and HTTP on one port.
///
/// Settings come from flags and environment variables, then the `--config` file, then
/// defaults. Without any, it serves world `main` (hyperscape, seed 0, with the island's
/// stations and duel arenas) on 127.0.0.1:8080.
#[derive(Debug, Clone, Parser)]
#[command(name = "terrain-server", version)]
pub struct Cli {
    /// TOML configuration file.
    #[arg(long, short, env = "TERRAIN_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Address for gRPC and HTTP [default: 127.0.0.1:8080].
    #[arg(long, env = "TERRAIN_LISTEN", value_name = "ADDR", value_parser = values::parse_listen)]
    pub listen: Option<SocketAddr>,

    /// Directory for the server's data, created at start-up [default: data].
    #[arg(long, env = "TERRAIN_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// A hosted world, `ID:GENERATOR[:SEED]`; repeat for more (the environment variable
    /// takes a comma-separated list). Replaces the file's `[[worlds]]`.
    #[arg(
        long = "world",
        env = "TERRAIN_WORLDS",
        value_name = "ID:GENERATOR[:SEED]",
        value_delimiter = ',',
        value_parser = str::parse::<WorldSpec>
    )]
    pub worlds: Vec<WorldSpec>,

    /// Largest accepted |x| and |z| [default: 1e9].
    #[arg(long, env = "TERRAIN_MAX_COORDINATE", value_name = "METRES", value_parser = values::parse_max_coordinate)]
    pub max_coordinate: Option<f64>,

    /// Most points in one batch request [default: 1000000].
    #[arg(long, env = "TERRAIN_MAX_BATCH_POINTS", value_name = "N", value_parser = values::parse_limit)]
    pub max_batch_points: Option<usize>,

    /// Most samples (nx * nz) in one heightmap [default: 4194304].
    #[arg(long, env = "TERRAIN_MAX_HEIGHTMAP_SAMPLES", value_name = "N", value_parser = values::parse_limit)]
    pub max_heightmap_samples: Option<usize>,

    /// Bound on the graceful-shutdown drain, e.g. `10s`, `500ms` [default: 10s].
    #[arg(long, env = "TERRAIN_SHUTDOWN_TIMEOUT", value_name = "DURATION", value_parser = values::parse_duration)]
    pub shutdown_timeout: Option<Duration>,

    /// Log line format: `text` or `json` [default: text]. The filter is `RUST_LOG`.
    #[arg(long, env = "TERRAIN_LOG_FORMAT", value_name = "FORMAT", value_parser = str::parse::<LogFormat>)]
    pub log_format: Option<LogFormat>,

    /// Token that flat-zone mutations must present as `Authorization: Bearer TOKEN`
    /// [default: none; required to listen on a non-loopback address unless --insecure].
    #[arg(long, env = "TERRAIN_ADMIN_TOKEN", value_name = "TOKEN", value_parser = str::parse::<AdminToken>, hide_env_values = true)]
    pub admin_token: Option<AdminToken>,

    /// Allow listening on a non-loopback address without an admin token
    /// (`true`/`false`, `1`/`0`, `yes`/`no`) [default: false].
    #[arg(long, env = "TERRAIN_INSECURE", value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", value_parser = clap::builder::BoolishValueParser::new())]
    pub insecure: Option<bool>,

    /// Largest zone width, depth, radius, blend radius or carve inset, in metres
    /// [default: 10000].
    #[arg(long, env = "TERRAIN_MAX_ZONE_SIZE", value_name = "METRES", value_parser = values::parse_max_zone_size)]
    pub max_zone_size: Option<f64>,

    /// Most flat zones in one world [default: 100000].
    #[arg(long, env = "TERRAIN_MAX_ZONES_PER_WORLD", value_name = "N", value_parser = values::parse_limit)]
    pub max_zones_per_world: Option<usize>,

    /// Period of the per-world flat-zone statistics log line [default: 60s].
    #[arg(long, env = "TERRAIN_STATS_INTERVAL", value_name = "DURATION", value_parser = values::parse_duration)]
    pub stats_interval: Option<Duration>,

    /// Memory budget of the tile mesh cache, in bytes [default: 268435456].
    #[arg(long, env = "TERRAIN_MESH_CACHE_BYTES", value_name = "BYTES", value_parser = values::parse_limit)]
    pub mesh_cache_bytes: Option<usize>,

    /// Events queued per subscriber before it is cut off with a resync [default: 1024].
    #[arg(long, env = "TERRAIN_SUBSCRIBER_QUEUE", value_name = "N", value_parser = values::parse_limit)]
    pub subscriber_queue: Option<usize>,

    /// Revisions of mutation log kept per world for resuming subscribers [default: 100000].
    #[arg(long, env = "TERRAIN_EVENT_HISTORY", value_name = "N", value_parser = values::parse_limit)]
    pub event_history: Option<usize>,

    /// Tiles beyond a viewer's view in its sim ring [default: 0.5].
    #[arg(long, env = "TERRAIN_SIM_RANGE", value_name = "TILES", value_parser = lifecycle::parse_ring)]
    pub sim_range: Option<f64>,

    /// Tiles beyond a viewer's view in its spawn ring [default: 1].
    #[arg(long, env = "TERRAIN_SPAWN_RANGE", value_name = "TILES", value_parser = lifecycle::parse_ring)]
    pub spawn_range: Option<f64>,

    /// Tiles beyond a viewer's view in its active ring [default: 2].
    #[arg(long, env = "TERRAIN_ACTIVE_RANGE", value_name = "TILES", value_parser = lifecycle::parse_ring)]
    pub active_range: Option<f64>,

    /// How long a tile outside every active ring stays before it is culled [default: 10s].
    #[arg(long, env = "TERRAIN_CULL_GRACE", value_name = "DURATION", value_parser = values::parse_duration)]
    pub cull_grace: Option<Duration>,

    /// How long a viewer reported over HTTP lives without an update [default: 60s].
    #[arg(long, env = "TERRAIN_VIEWER_TTL", value_name = "DURATION", value_parser = values::parse_duration)]
    pub viewer_ttl: Option<Duration>,

    /// Most viewers in one world [default: 10000].
    #[arg(long, env = "TERRAIN_MAX_VIEWERS_PER_WORLD", value_name = "N", value_parser = values::parse_limit)]
    pub max_viewers_per_world: Option<usize>,

    /// Tiles around each spawn point meshed before the server is ready, or `off`
    /// [default: 2].
    #[arg(long, env = "TERRAIN_WARM_RADIUS", value_name = "TILES", value_parser = lifecycle::parse_warm_flag)]
    pub warm_radius: Option<lifecycle::WarmRadius>,
    /// Where flat zones are stored: `embedded` or `nats` [default: embedded].
    #[arg(long, env = "TERRAIN_STORE_KIND", value_name = "KIND", value_parser = str::parse::<StoreKind>)]
    pub store_kind: Option<StoreKind>,

    /// NATS server URLs for `--store-kind nats`, comma separated (`nats://host:4222`).
    #[arg(long, env = "TERRAIN_STORE_URL", value_name = "URLS")]
    pub store_url: Option<String>,

    /// NATS bucket name prefix; world `w` lives in bucket `PREFIX-w` [default: terrain].
    #[arg(long, env = "TERRAIN_STORE_BUCKET", value_name = "PREFIX")]
    pub store_bucket: Option<String>,

    /// JetStream replicas of each bucket, 1 to 5 [default: 1].
    #[arg(long, env = "TERRAIN_STORE_REPLICAS", value_name = "N", value_parser = store::parse_replicas)]
    pub store_replicas: Option<usize>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Commands other than serving.
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Write the encoded `FileDescriptorSet` of the API (for `ghz --protoset`).
    Protoset {
        /// Output file, or `-` for standard output.
        #[arg(default_value = "-")]
        output: PathBuf,
    },
    /// GET a readiness URL; exit 0 if it answers 200 (for container health checks).
    Healthcheck {
        /// The URL to check.
        #[arg(default_value = crate::healthcheck::DEFAULT_URL)]
        url: String,
    },
}

impl Cli {
    /// What the flags and environment variables set.
    pub fn settings(&self) -> Settings {
        Settings {
            listen: self.listen,
            data_dir: self.data_dir.clone(),
            worlds: (!self.worlds.is_empty()).then(|| self.worlds.clone()),
            max_coordinate: self.max_coordinate,
            max_batch_points: self.max_batch_points,
            max_heightmap_samples: self.max_heightmap_samples,
            shutdown_timeout: self.shutdown_timeout,
            log_format: self.log_format,
            admin_token: self.admin_token.clone(),
            insecure: self.insecure,
            max_zone_size: self.max_zone_size,
            max_zones_per_world: self.max_zones_per_world,
            stats_interval: self.stats_interval,
            mesh_cache_bytes: self.mesh_cache_bytes,
            subscriber_queue: self.subscriber_queue,
            event_history: self.event_history,
            sim_range: self.sim_range,
            spawn_range: self.spawn_range,
            active_range: self.active_range,
            cull_grace: self.cull_grace,
            viewer_ttl: self.viewer_ttl,
            max_viewers_per_world: self.max_viewers_per_world,
            warm_radius: self.warm_radius.map(|w| w.0),
            store: StoreSettings {
                kind: self.store_kind,
                url: self.store_url.clone(),
                bucket: self.store_bucket.clone(),
                replicas: self.store_replicas,
            },
        }
    }
}

/// Writes [`terrain_proto::FILE_DESCRIPTOR_SET`] to `output` (`-` is standard output).
pub fn write_protoset(output: &Path) -> std::io::Result<()> {
    let bytes = terrain_proto::FILE_DESCRIPTOR_SET;
    if output == Path::new("-") {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(bytes)?;
        stdout.flush()
    } else {
        std::fs::write(output, bytes)
    }
}
