//! The authoritative terrain server: height queries over gRPC and HTTP on one port.
//!
//! A tour by layer, from the edge in. A module names only modules of its own layer or
//! below (the `layers` test reads the sources and fails otherwise), and the
//! top-level modules have no cycle.
//!
//! - **Edge**: [`server`] wires everything: [`Server::bind`] (returns the bound address,
//!   so tests can bind `127.0.0.1:0`), [`Server::run`] until a `CancellationToken`
//!   fires, then a bounded drain; [`Server::spawn`] runs it in the background.
//!   [`api`] only translates: the HTTP surface ([`api::http`]: JSON, binary batches,
//!   WebSocket, the map) and the gRPC surface ([`api::grpc`]: `terrain.v1`, health,
//!   reflection), each with one route table, merged into one axum router; what both
//!   share (readiness, the admin token check, the one mapping of error classes to gRPC
//!   codes and HTTP statuses, [`api::error`]) lives in `api` itself. [`transport`]
//!   carries requests to it: the accept loop and connection limits, TLS, admission
//!   and the bodies of requests hyper cannot parse. [`commands`] (the `protoset` and
//!   `healthcheck` subcommands), [`fetch`] (their HTTP client), [`telemetry`] (logging set-up).
//! - **Domain** (no axum, tonic, hyper, tungstenite or protobuf types): [`world`]: the hosted worlds, their
//!   flat-zone registry (every mutation is proposed to the world's zone log and applied
//!   from what the log returns, [`world::follow`]), start-up zones and statistics.
//!   [`events`]: pushed tile events (hubs, resumable subscriptions). [`lifecycle`]:
//!   viewers, their tile rings, live tiles, the bake and culling. [`mesh`]: the bounded
//!   tile mesh cache. [`map`]: map tiles (hill-shaded PNGs) and their cache. [`query`]: the reads both surfaces share (validation against the
//!   limits, dispatch to the compute pool, accounting). [`metrics`]: what they record.
//!   Each service has its own `thiserror` enum implementing [`ServiceError`].
//! - **Stores**: [`store`]: the zone log ([`store::log::ZoneLog`]: propose, follow) over
//!   the embedded redb file (`data_dir/terrain.redb`), NATS JetStream key-value shared
//!   by replicas ([`store::nats`]), or memory (unit tests).
//! - **Config**: [`config`]: the TOML file, flags and `TERRAIN_*` variables, each key
//!   declared once, resolved and validated into a [`Config`].
//! - **Support**: [`error`] (the error classes and [`ServiceError`]), [`auth`] (the
//!   admin token), [`shutdown`] (signals and [`shutdown::Tasks`], the owner of every
//!   background task), [`compute`] (the rayon pool that keeps tiles and large batches
//!   off the async runtime), [`cost`] (admission by the estimated cost of a request's
//!   work on that pool), [`validate`] (the input checks the domain shares), [`sync`] (the
//!   poison-tolerant lock every module takes).
//!
//! ```no_run
//! # async fn demo() -> Result<(), terrain_server::Error> {
//! let config = terrain_server::Config {
//!     listen: "127.0.0.1:0".parse().unwrap(),
//!     ..terrain_server::Config::default()
//! };
//! let server = terrain_server::Server::bind(config).await?.spawn();
//! println!("serving on {}", server.local_addr());
//! server.shutdown().await?;
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

pub mod api;
pub mod auth;
pub mod commands;
pub mod compute;
pub mod config;
pub mod cost;
pub mod error;
pub mod events;
pub mod fetch;
#[cfg(test)]
mod layers;
pub mod lifecycle;
pub mod map;
pub mod mesh;
pub mod metrics;
pub mod query;
pub mod server;
pub mod shutdown;
pub mod store;
pub mod sync;
pub mod telemetry;
#[cfg(test)]
mod test_support;
pub mod transport;
pub mod validate;
pub mod world;

pub use api::ApiError;
pub use auth::AdminToken;
pub use config::{Cli, Config, Limits, LogFormat, WorldConfig};
pub use error::{ErrorCode, ServiceError};
pub use server::{Error, RunningServer, ServeError, Server, StartError};

use tokio_util::sync::CancellationToken;

/// Binds and serves `config` until `shutdown` fires, then drains.
pub async fn run(config: Config, shutdown: CancellationToken) -> Result<(), Error> {
    Server::bind(config).await?.run(shutdown).await?;
    Ok(())
}
