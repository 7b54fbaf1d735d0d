//! Transport: how requests reach the API and what each must pass first, apart from
//! what they mean ([`crate::api`] translates).
//!
//! - [`conn`]: the accept loop and how each connection is served (connection caps,
//!   idle, header and body timeouts, HTTP/2 pings, the drain).
//! - [`tls`]: rustls for both surfaces on the one port (`tls_cert`, `tls_key`).
//! - [`parse_errors`]: JSON bodies for the 400 / 431 / 414 answers hyper writes itself
//!   for requests it cannot parse.
//! - [`admission`]: the cap on requests in flight (load shedding) and the per-request
//!   timeout.
//!
//! [`router`] wraps the API's routes ([`crate::api::routes`]) in admission, CORS (with
//! `cors_origins`: [`crate::api::http::cors`]), request accounting and request tracing.

pub mod admission;
pub mod conn;
pub mod parse_errors;
pub mod tls;

use std::sync::Arc;

use axum::{Router, middleware};
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

pub use crate::api::is_grpc;
use crate::{
    api::{self, ApiState, RouterError},
    config::RequestLimits,
};

/// The merged gRPC + HTTP router, with admission (`requests`), CORS (outside
/// admission: a preflight is answered at once, and a 503 of admission carries the CORS
/// headers too), metrics and request tracing on every route and the fallbacks.
pub fn router(state: Arc<ApiState>, requests: RequestLimits) -> Result<Router, RouterError> {
    let metrics = Arc::clone(&state.metrics);
    let admission = Arc::new(admission::Admission::new(requests, Arc::clone(&metrics)));
    let cors = api::http::cors::layer(&state.cors);
    let mut router =
        api::routes(state)?.layer(middleware::from_fn_with_state(admission, admission::admit));
    if let Some(cors) = cors {
        router = router.layer(cors);
    }
    let router = router
        .layer(middleware::from_fn_with_state(metrics, api::metrics::track))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(Level::DEBUG))
                .on_response(DefaultOnResponse::new().level(Level::DEBUG)),
        );
    Ok(router)
}
