//! The two surfaces on one port: gRPC (`terrain.v1`, health, reflection) and HTTP/1.1
//! JSON, merged into one axum router.
//!
//! - [`grpc`]: `terrain.v1.TerrainService`, `grpc.health.v1`, reflection v1 and v1alpha;
//!   [`grpc_zones`]: its flat-zone RPCs.
//! - [`http`]: `/v1/...` JSON and binary routes, `/healthz`, `/readyz`;
//!   [`http_zones`]: the flat-zone routes.
//! - [`http_mesh`], [`grpc_mesh`]: tile meshes (JSON, glb, packed protobuf).
//! - [`http_blocks`], [`grpc_blocks`]: a voxel world's chunk blocks and instances.
//! - [`error`]: the one mapping from error classes to gRPC codes and HTTP statuses.
//! - [`params`], [`body`], [`zone_body`]: HTTP input decoding with field-named errors.
//! - [`health`]: readiness, shared by `/readyz` and `grpc.health.v1`.
//! - [`metrics`]: the request-accounting middleware and `GET /metrics`.
//! - [`parse_errors`]: JSON bodies for the 400 / 431 / 414 answers hyper writes
//!   itself for requests it cannot parse.
//! - [`tls`]: rustls for both surfaces on the one port (`tls_cert`, `tls_key`).
//! - [`ws_events`], [`grpc_events`]: tile event subscriptions (WebSocket
//!   `GET /v1/worlds/{world}/events`, gRPC `terrain.v1.TerrainEvents`).
//! - [`http_admin`]: `GET /v1/admin/backup`, a consistent snapshot of the store.
//! - [`http_lifecycle`], [`grpc_lifecycle`]: viewers, live tiles and their
//!   transitions; [`http_layout`], [`grpc_layout`]: hubs, spokes and zone classes
//!   (`terrain.v1.TerrainLifecycle`).
//! - [`http_map`]: the live map (map tiles, legend, the page and its assets).
//! - [`openapi`]: `GET /openapi.json`, the OpenAPI 3.1 document of the HTTP routes.
//!
//! Routing: tonic's services live under `/{package.Service}/...`; everything else is
//! HTTP. An unknown path gets a gRPC `UNIMPLEMENTED` if the request is gRPC, and a JSON
//! 404 otherwise.

pub mod body;
pub mod conn;
pub mod error;
pub mod grpc;
pub mod grpc_blocks;
pub mod grpc_events;
pub mod grpc_layout;
pub mod grpc_lifecycle;
pub mod grpc_mesh;
pub mod grpc_zones;
pub mod health;
pub mod http;
pub mod http_admin;
pub mod http_blocks;
pub mod http_layout;
pub mod http_lifecycle;
pub mod http_map;
pub mod http_mesh;
pub mod http_zones;
pub mod metrics;
pub mod openapi;
pub mod params;
pub mod parse_errors;
pub mod tls;
pub mod ws_events;
pub mod zone_body;

use std::sync::Arc;

use axum::{
    Router,
    extract::Request,
    http::{HeaderMap, header::CONTENT_TYPE},
    response::{IntoResponse, Response},
};

use crate::{
    auth::Auth,
    config::ConnectionConfig,
    events::Events,
    lifecycle::{Lifecycles, WorldLifecycle},
    metrics::Metrics,
    query::QueryEngine,
    store::ZoneStore,
};

pub use error::ApiError;
pub use health::Readiness;

/// What every handler shares.
#[derive(Debug)]
pub struct ApiState {
    pub engine: QueryEngine,
    pub readiness: Readiness,
    pub metrics: Arc<Metrics>,
    /// Who may change worlds.
    pub auth: Auth,
    /// Event hubs and open subscriptions.
    pub events: Arc<Events>,
    /// Viewers, live tiles and their transitions, per world.
    pub lifecycles: Arc<Lifecycles>,
    /// Connection and gRPC message limits.
    pub connections: ConnectionConfig,
    /// The zone store, for backups.
    pub store: Arc<ZoneStore>,
}

impl ApiState {
    /// The lifecycle of world `world`, or `NOT_FOUND` (field `world`).
    pub fn lifecycle(&self, world: &str) -> Result<&Arc<WorldLifecycle>, ApiError> {
        let world = self.engine.world(world)?;
        self.lifecycles
            .get(world.id())
            .ok_or_else(|| ApiError::Internal(format!("world {:?} has no lifecycle", world.id())))
    }
}

/// Why the router could not be built.
#[derive(Debug, thiserror::Error)]
pub enum RouterError {
    #[error("gRPC reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
}

/// The merged gRPC + HTTP routes, with the fallbacks for unknown paths and methods.
pub fn routes(state: Arc<ApiState>) -> Result<Router, RouterError> {
    let grpc = grpc::routes(&state)?;
    Ok(http::routes(Arc::clone(&state))
        .merge(ws_events::routes(Arc::clone(&state)))
        .merge(grpc_events::routes(&state))
        .merge(grpc_lifecycle::routes(&state))
        .merge(grpc)
        .fallback(fallback)
        .method_not_allowed_fallback(method_not_allowed))
}

/// True when the request speaks gRPC (`application/grpc`, `application/grpc+proto`, ...).
pub fn is_grpc(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/grpc"))
}

async fn fallback(req: Request) -> Response {
    if is_grpc(req.headers()) {
        let status = tonic::Status::unimplemented(format!("unknown method {}", req.uri().path()));
        return status.into_http::<axum::body::Body>().into_response();
    }
    ApiError::NoRoute(format!("{} {}", req.method(), req.uri().path())).into_response()
}

async fn method_not_allowed(req: Request) -> Response {
    let err = ApiError::MethodNotAllowed {
        method: req.method().to_string(),
        path: req.uri().path().to_string(),
    };
    err.into_response()
}
