//! The authoritative terrain server: height queries over gRPC and HTTP on one port.
//!
//! A tour, from the outside in:
//!
//! - [`config`]: the TOML file, flags and `TERRAIN_*` variables, resolved and validated
//!   into a [`Config`].
//! - [`server`]: the lifecycle: [`Server::bind`] (returns the bound address, so tests
//!   can bind `127.0.0.1:0`), [`Server::run`] until a `CancellationToken` fires, then a
//!   bounded drain; [`Server::spawn`] runs it in the background.
//! - [`api`]: the surfaces, merged into one axum router: gRPC (`terrain.v1`, health,
//!   reflection) and HTTP/1.1 JSON, with request metrics and tracing.
//! - [`query`]: what both surfaces call: world lookup, validation against the limits,
//!   dispatch, accounting; flat-zone calls in [`query::zones`]. [`error`]: the one
//!   error taxonomy, mapped to gRPC codes and HTTP statuses in one place. [`auth`]:
//!   the admin token that mutations need.
//! - [`compute`]: the rayon pool that keeps large batches and heightmaps off the async
//!   runtime. [`world`]: the hosted worlds: terrain, flat-zone registry (the write
//!   path), start-up zones, statistics; [`world::follow`]: replicas following a
//!   shared store. [`store`]: the durable zone store (`data_dir/terrain.redb`), and
//!   [`store::nats`]: NATS JetStream key-value shared by replicas. [`events`]: pushed tile events (hubs, resumable
//!   subscriptions), served by `api::ws_events` and `api::grpc_events`.
//! - [`mesh`]: the bounded tile mesh cache, kept current by the first commit listener.
//! - [`lifecycle`]: viewers, their tile rings, live tiles and culling (its tasks are
//!   owned by [`shutdown::Tasks`]). [`validate`]: the input checks the domain shares.
//! - [`metrics`], [`telemetry`], [`shutdown`]: Prometheus registry, logging, signals,
//!   and the owner of every background task.
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
pub mod error;
pub mod events;
pub mod healthcheck;
#[cfg(test)]
mod layers;
pub mod lifecycle;
pub mod mesh;
pub mod metrics;
pub mod query;
pub mod server;
pub mod shutdown;
pub mod store;
pub mod telemetry;
#[cfg(test)]
mod test_support;
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
