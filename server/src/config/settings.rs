//! [`Settings`]: every top-level configuration key, declared once. Each field is at the
//! same time a key of the TOML file (serde, unknown keys refused), a flag and a
//! `TERRAIN_*` environment variable (clap's derive and `env`); its doc comment is the
//! flag's help. Every value is optional: `None` where a source is silent. The sources
//! are layered lowest first: the defaults ([`Settings::defaults`]), the file (laid over
//! them by `Layer`, one merge for every key), then the flags and
//! variables (laid over the file by clap itself, [`super::Cli::layer_over`]); the
//! result is resolved into a [`super::Config`].

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use clap::Args;
use serde::Deserialize;

use super::{
    LogFormat, StoreSettings, WorldSpec, de,
    layer::layered,
    lifecycle::{self, WarmRadius},
    values,
};
use crate::auth::AdminToken;

layered! {
/// One source's view of the configuration: `None` where the source is silent.
#[derive(Debug, Clone, Default, PartialEq, Args, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Address for gRPC and HTTP [default: 127.0.0.1:8080].
    #[arg(long, env = "TERRAIN_LISTEN", value_name = "ADDR", value_parser = values::parse_listen)]
    #[serde(deserialize_with = "de::listen")]
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
    pub worlds: Option<Vec<WorldSpec>>,

    /// Largest accepted |x| and |z|, in metres; at most 2^46 = 70368744177664, what the
    /// tile grids can represent with room for ring ranges [default: 1e9].
    #[arg(long, env = "TERRAIN_MAX_COORDINATE", value_name = "METRES", value_parser = values::parse_max_coordinate)]
    #[serde(deserialize_with = "de::max_coordinate")]
    pub max_coordinate: Option<f64>,

    /// Most points in one batch request [default: 1000000].
    #[arg(long, env = "TERRAIN_MAX_BATCH_POINTS", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub max_batch_points: Option<usize>,

    /// Most samples (nx * nz) in one heightmap [default: 4194304].
    #[arg(long, env = "TERRAIN_MAX_HEIGHTMAP_SAMPLES", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub max_heightmap_samples: Option<usize>,

    /// Bound on the graceful-shutdown drain, e.g. `10s`, `500ms` [default: 10s].
    #[arg(long, env = "TERRAIN_SHUTDOWN_TIMEOUT", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub shutdown_timeout: Option<Duration>,

    /// Time a connection has to send a whole request head (its first, and on HTTP/1.1
    /// each next one) before it is closed, e.g. `10s` [default: 10s].
    #[arg(long, env = "TERRAIN_HEADER_READ_TIMEOUT", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub header_read_timeout: Option<Duration>,

    /// Time a connection may stay open with no request or stream in progress before
    /// it is closed (HTTP/2: GOAWAY) [default: 60s].
    #[arg(long, env = "TERRAIN_IDLE_TIMEOUT", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub idle_timeout: Option<Duration>,

    /// Time a request body (not a gRPC stream) has to arrive in full; a late one gets
    /// 408 and the connection is closed [default: 30s].
    #[arg(long, env = "TERRAIN_REQUEST_BODY_TIMEOUT", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub request_body_timeout: Option<Duration>,

    /// Most open connections; beyond it new ones wait to be accepted until one closes;
    /// at most 1000000 [default: 10000].
    #[arg(long, env = "TERRAIN_MAX_CONNECTIONS", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub max_connections: Option<usize>,

    /// Most unary requests (HTTP or gRPC) answered at once; one more is refused at once
    /// with 503 / RESOURCE_EXHAUSTED and Retry-After; at most 1000000 [default: 1024].
    #[arg(long, env = "TERRAIN_MAX_IN_FLIGHT", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub max_in_flight: Option<usize>,

    /// Time one request (not a stream) may take before it is answered 504 /
    /// DEADLINE_EXCEEDED and its remaining work dropped [default: 30s].
    #[arg(long, env = "TERRAIN_REQUEST_TIMEOUT", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub request_timeout: Option<Duration>,

    /// The Retry-After an overloaded answer carries [default: 1s].
    #[arg(long, env = "TERRAIN_RETRY_AFTER", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub retry_after: Option<Duration>,

    /// Largest gRPC request message any service decodes, in bytes; a larger one is
    /// RESOURCE_EXHAUSTED [default: 16 * max_batch_points + 65536].
    #[arg(long, env = "TERRAIN_GRPC_MAX_DECODING_MESSAGE_SIZE", value_name = "BYTES", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub grpc_max_decoding_message_size: Option<usize>,

    /// Largest gRPC answer message any service encodes, in bytes [default: the largest
    /// answer the request limits allow, plus 65536].
    #[arg(long, env = "TERRAIN_GRPC_MAX_ENCODING_MESSAGE_SIZE", value_name = "BYTES", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub grpc_max_encoding_message_size: Option<usize>,

    /// Period of the HTTP/2 keep-alive ping, sent once a connection has been silent
    /// that long [default: 20s].
    #[arg(long, env = "TERRAIN_HTTP2_KEEPALIVE_INTERVAL", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub http2_keepalive_interval: Option<Duration>,

    /// Time an HTTP/2 ping may go unanswered before the connection is closed with its
    /// streams (and the viewers of its TrackViewers streams) [default: 20s].
    #[arg(long, env = "TERRAIN_HTTP2_KEEPALIVE_TIMEOUT", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub http2_keepalive_timeout: Option<Duration>,

    /// Period of a WebSocket event subscription's ping, sent once the client has been
    /// silent that long [default: 20s].
    #[arg(long, env = "TERRAIN_WEBSOCKET_PING_INTERVAL", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub websocket_ping_interval: Option<Duration>,

    /// Time a WebSocket subscription may stay silent after a ping (no pong, no
    /// message) before it is closed and its stream place given back [default: 20s].
    #[arg(long, env = "TERRAIN_WEBSOCKET_PING_TIMEOUT", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub websocket_ping_timeout: Option<Duration>,

    /// Most open streams (gRPC Subscribe, WebSocket event subscriptions,
    /// TrackViewers) on one connection; one more is refused at once with
    /// RESOURCE_EXHAUSTED (WebSocket: 503); at most 1000000 [default: 100].
    #[arg(long, env = "TERRAIN_MAX_SUBSCRIPTIONS_PER_CONNECTION", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub max_subscriptions_per_connection: Option<usize>,

    /// Most open streams on the whole server, as for
    /// --max-subscriptions-per-connection; at most 1000000 [default: 10000].
    #[arg(long, env = "TERRAIN_MAX_SUBSCRIPTIONS", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub max_subscriptions: Option<usize>,

    /// PEM certificate chain for TLS on both surfaces (with --tls-key) [default: none,
    /// plain TCP].
    #[arg(long, env = "TERRAIN_TLS_CERT", value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key of --tls-cert [default: none].
    #[arg(long, env = "TERRAIN_TLS_KEY", value_name = "FILE")]
    pub tls_key: Option<PathBuf>,

    /// Log line format: `text` or `json` [default: text]. The filter is `RUST_LOG`.
    #[arg(long, env = "TERRAIN_LOG_FORMAT", value_name = "FORMAT", value_parser = str::parse::<LogFormat>)]
    #[serde(deserialize_with = "de::parsed")]
    pub log_format: Option<LogFormat>,

    /// Token that flat-zone mutations must present as `Authorization: Bearer TOKEN`
    /// [default: none; required to listen on a non-loopback address unless --insecure].
    #[arg(long, env = "TERRAIN_ADMIN_TOKEN", value_name = "TOKEN", value_parser = str::parse::<AdminToken>, hide_env_values = true)]
    #[serde(deserialize_with = "de::parsed")]
    pub admin_token: Option<AdminToken>,

    /// A browser origin (`https://game.example`, `http://localhost:5173`) whose pages
    /// may read the HTTP API (CORS) and open the events WebSocket; repeat for more (the
    /// environment variable takes a comma-separated list), or `*` alone for any origin
    /// [default: none, no CORS headers].
    #[arg(
        long = "cors-origin",
        env = "TERRAIN_CORS_ORIGINS",
        value_name = "ORIGIN",
        value_delimiter = ','
    )]
    pub cors_origins: Option<Vec<String>>,

    /// Allow listening on a non-loopback address without an admin token
    /// (`true`/`false`, `1`/`0`, `yes`/`no`) [default: false].
    #[arg(long, env = "TERRAIN_INSECURE", value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", value_parser = clap::builder::BoolishValueParser::new())]
    pub insecure: Option<bool>,

    /// Largest zone width, depth, radius, blend radius or carve inset, in metres, at
    /// most 20000 [default: 10000].
    #[arg(long, env = "TERRAIN_MAX_ZONE_SIZE", value_name = "METRES", value_parser = values::parse_max_zone_size)]
    #[serde(deserialize_with = "de::positive")]
    pub max_zone_size: Option<f64>,

    /// Most flat zones in one world [default: 100000].
    #[arg(long, env = "TERRAIN_MAX_ZONES_PER_WORLD", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub max_zones_per_world: Option<usize>,

    /// How much lower than the server's own the compute pool's OS scheduling priority
    /// is (a nice increment, 0 to 19; 0: the same): mesh builds, large batches and
    /// rebuilds then yield to the threads that answer requests and acknowledge
    /// changes [default: 5].
    #[arg(long, env = "TERRAIN_COMPUTE_NICE", value_name = "N", value_parser = values::parse_compute_nice)]
    #[serde(deserialize_with = "de::compute_nice")]
    pub compute_nice: Option<u8>,

    /// Period of the per-world flat-zone statistics log line [default: 60s].
    #[arg(long, env = "TERRAIN_STATS_INTERVAL", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub stats_interval: Option<Duration>,

    /// Memory budget of the tile mesh cache, in bytes [default: 268435456].
    #[arg(long, env = "TERRAIN_MESH_CACHE_BYTES", value_name = "BYTES", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub mesh_cache_bytes: Option<usize>,

    /// Events queued per subscriber before it is cut off with a resync [default: 1024].
    #[arg(long, env = "TERRAIN_SUBSCRIBER_QUEUE", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub subscriber_queue: Option<usize>,

    /// Writer tasks per world sending events to direct subscribers, 1 to 64
    /// [default: the CPUs, at most 4].
    #[arg(long, env = "TERRAIN_EVENT_WRITERS", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub event_writers: Option<usize>,

    /// Revisions of mutation log kept per world for resuming subscribers [default: 100000].
    #[arg(long, env = "TERRAIN_EVENT_HISTORY", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub event_history: Option<usize>,

    /// Revisions before the current one that heights, terrain info and path checks
    /// may be asked as of (lag compensation), per world; after a restart at most the
    /// retained log's (--event-history) [default: 1000].
    #[arg(long, env = "TERRAIN_ASOF_REVISIONS", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub asof_revisions: Option<usize>,

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
    #[serde(deserialize_with = "de::duration")]
    pub cull_grace: Option<Duration>,

    /// How long a viewer reported over HTTP lives without an update, and a
    /// TrackViewers stream without a message [default: 60s].
    #[arg(long, env = "TERRAIN_VIEWER_TTL", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub viewer_ttl: Option<Duration>,

    /// Most viewers in one world [default: 10000].
    #[arg(long, env = "TERRAIN_MAX_VIEWERS_PER_WORLD", value_name = "N", value_parser = values::parse_limit)]
    #[serde(deserialize_with = "de::limit")]
    pub max_viewers_per_world: Option<usize>,

    /// How far ahead in time a moving viewer's tiles are prepared (`0s`: off)
    /// [default: 2s].
    #[arg(long, env = "TERRAIN_LOOKAHEAD", value_name = "DURATION", value_parser = values::parse_duration)]
    #[serde(deserialize_with = "de::duration")]
    pub lookahead: Option<Duration>,

    /// Tiles around each spawn point meshed before the server is ready, or `off`
    /// [default: 2].
    #[arg(long, env = "TERRAIN_WARM_RADIUS", value_name = "TILES", value_parser = lifecycle::parse_warm_flag)]
    #[serde(deserialize_with = "de::warm_radius")]
    pub warm_radius: Option<WarmRadius>,

    /// The `store` table, or the `--store-*` flags.
    #[command(flatten)]
    pub store: StoreSettings,
}
}

impl Settings {
    /// These settings with the file-relative paths of their worlds resolved against
    /// `base` (the configuration file's directory).
    pub(super) fn rebased(mut self, base: &std::path::Path) -> Settings {
        if let Some(worlds) = &mut self.worlds {
            for world in worlds {
                world.rebase(base);
            }
        }
        for path in [&mut self.tls_cert, &mut self.tls_key]
            .into_iter()
            .flatten()
        {
            if path.is_relative() {
                *path = base.join(&*path);
            }
        }
        self
    }
}
