//! Translation between the wire and the domain: the gRPC surface (`terrain.v1`,
//! health, reflection) and the HTTP/1.1 surface (JSON, binary batches, the WebSocket
//! events, the map), merged into one axum router on one port. How connections are
//! accepted and which requests are admitted is [`crate::transport`]'s business.
//!
//! - [`http`]: every HTTP route, in one table in its `mod.rs`, each capability in a
//!   module of its own: [`http::ops`] (`/healthz`, `/readyz`), [`http::worlds`],
//!   [`http::heights`], [`http::zones`], [`http::mesh`], [`http::blocks`],
//!   [`http::lifecycle`] (viewers, live tiles), [`http::layout`], [`http::walk`]
//!   (terrain info and path checks), [`http::tiles3d`] (the 3D Tiles tileset), [`http::map`],
//!   [`http::events`] (the WebSocket), [`http::admin`] (backups), [`http::openapi`]
//!   (`GET /openapi.json`); and its input and caching pieces: [`http::extract`]
//!   (path, query and admin-token extractors), [`http::body`] and
//!   [`http::zone_body`] (request bodies), [`http::conditional`] (ETags and
//!   `304 Not Modified`).
//! - [`grpc`]: every gRPC service, in one table in its `mod.rs`, with the same
//!   capability modules: [`grpc::worlds`], [`grpc::heights`], [`grpc::zones`],
//!   [`grpc::mesh`], [`grpc::blocks`], [`grpc::lifecycle`], [`grpc::layout`],
//!   [`grpc::walk`], [`grpc::events`].
//! - What both surfaces share: [`error`] (the one mapping from error classes to gRPC
//!   codes and HTTP statuses), [`access`] (the admin token check before a mutation),
//!   [`mode`] (the `mode` of a height query), [`worlds`] (what `ListWorlds` reports),
//!   [`health`] (readiness, behind `/readyz` and `grpc.health.v1`), [`metrics`] (the
//!   request-accounting middleware and `GET /metrics`).
//!
//! `http` and `grpc` never name each other (the `layers` test fails if they do).
//!
//! Routing: tonic's services live under `/{package.Service}/...`; everything else is
//! HTTP. An unknown path gets a gRPC `UNIMPLEMENTED` if the request is gRPC, and a JSON
//! 404 otherwise.

pub mod access;
pub mod error;
pub mod grpc;
pub mod health;
pub mod http;
pub mod metrics;
pub mod mode;
pub mod worlds;

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
    /// The browser origins of `cors_origins`: the CORS layer's, and the events
    /// WebSocket's `Origin` check.
    pub cors: http::cors::Origins,
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
    Ok(http::routes(state)
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
