//! Request admission: the cap on requests in flight with load shedding, and the
//! per-request timeout ([`crate::config::RequestLimits`]), as one middleware around
//! every route.
//!
//! - A unary request (HTTP, or a gRPC call that streams in neither direction) takes one
//!   of `max_in_flight` slots for as long as its handler runs. With every slot taken it
//!   is refused at once, `RESOURCE_EXHAUSTED` (HTTP 503) with `Retry-After` (gRPC: a
//!   `google.rpc.RetryInfo` detail), never queued: an overloaded server answers
//!   quickly and clients back off, instead of every request slowing down together.
//! - A unary request not answered within `request_timeout` gets `DEADLINE_EXCEEDED`
//!   (HTTP 504). Dropping the handler drops its wait for the compute pool, whose
//!   remaining slices of that request are then skipped (`crate::compute`).
//! - Exempt: streams (WebSocket upgrades and gRPC methods that stream, found in the
//!   service descriptors, so the list cannot drift; they have caps of their own), and
//!   `/healthz`, `/readyz`, `/metrics` and `grpc.health.v1`, which must answer under
//!   load so orchestrators and dashboards see it, and gRPC reflection (a stream).

use std::{collections::HashSet, sync::Arc};

use axum::{
    extract::{Request, State},
    http::header::UPGRADE,
    middleware::Next,
    response::{IntoResponse, Response},
};
use prost::Message;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::{api::ApiError, config::RequestLimits, metrics::Metrics};

/// The admission state shared by every request.
#[derive(Debug)]
pub struct Admission {
    limits: RequestLimits,
    slots: Arc<Semaphore>,
    /// `/package.Service/Method` of every gRPC method that streams.
    streaming: HashSet<String>,
    metrics: Arc<Metrics>,
}

impl Admission {
    /// Admission with `limits`, exempting the streaming methods of the terrain
    /// services' descriptors.
    pub fn new(limits: RequestLimits, metrics: Arc<Metrics>) -> Self {
        Admission {
            limits,
            slots: Arc::new(Semaphore::new(limits.max_in_flight)),
            streaming: streaming_methods(terrain_proto::FILE_DESCRIPTOR_SET),
            metrics,
        }
    }

    /// Whether `req` is outside admission: a stream, or a health, readiness or
    /// metrics probe.
    fn exempt(&self, req: &Request) -> bool {
        let path = req.uri().path();
        matches!(path, "/healthz" | "/readyz" | "/metrics")
            || path.starts_with("/grpc.health.v1.Health/")
            || path.starts_with("/grpc.reflection.")
            || req.headers().contains_key(UPGRADE)
            || self.streaming.contains(path)
    }
}

/// A slot held by a request being answered, counted in `terrain_requests_in_flight`
/// until it drops: when the answer is done, or when the request is abandoned (its
/// future dropped with the connection).
struct Held {
    _slot: OwnedSemaphorePermit,
    metrics: Arc<Metrics>,
}

impl Held {
    fn new(slot: OwnedSemaphorePermit, metrics: Arc<Metrics>) -> Self {
        metrics.requests_in_flight(1.0);
        Held {
            _slot: slot,
            metrics,
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.metrics.requests_in_flight(-1.0);
    }
}

/// The `/package.Service/Method` paths of the methods in `descriptors` that stream
/// requests or responses.
fn streaming_methods(descriptors: &[u8]) -> HashSet<String> {
    let Ok(set) = prost_types::FileDescriptorSet::decode(descriptors) else {
        return HashSet::new();
    };
    let mut paths = HashSet::new();
    for file in &set.file {
        let package = file.package();
        for service in &file.service {
            for method in &service.method {
                if method.client_streaming() || method.server_streaming() {
                    paths.insert(format!("/{package}.{}/{}", service.name(), method.name()));
                }
            }
        }
    }
    paths
}

/// The middleware: exempt requests pass; others take a slot or are refused, and run
/// under the timeout.
pub async fn admit(State(admission): State<Arc<Admission>>, req: Request, next: Next) -> Response {
    if admission.exempt(&req) {
        return next.run(req).await;
    }
    let grpc = super::is_grpc(req.headers());
    let Ok(slot) = Arc::clone(&admission.slots).try_acquire_owned() else {
        admission.metrics.request_shed();
        let err = ApiError::Overloaded {
            limit: admission.limits.max_in_flight,
            retry_after: admission.limits.retry_after,
        };
        return answer(err, grpc);
    };
    let _held = Held::new(slot, Arc::clone(&admission.metrics));
    let timeout = admission.limits.request_timeout;
    // `_held` drops after the answer is made (or with the abandoned request).
    // The work inside gets the deadline the compute pool stops it at (three quarters of
    // the timeout: `crate::cost::within_deadline`), so it is answered before this one.
    let handled = crate::cost::within_deadline(timeout, next.run(req));
    match tokio::time::timeout(timeout, handled).await {
        Ok(response) => response,
        Err(_) => {
            admission.metrics.request_timed_out();
            answer(ApiError::TimedOut { timeout }, grpc)
        }
    }
}

/// `err` as the surface the request spoke answers it.
fn answer(err: ApiError, grpc: bool) -> Response {
    if grpc {
        tonic::Status::from(err)
            .into_http::<axum::body::Body>()
            .into_response()
    } else {
        err.into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streaming_methods_come_from_the_descriptors() {
        let paths = streaming_methods(terrain_proto::FILE_DESCRIPTOR_SET);
        assert!(
            paths.contains("/terrain.v1.TerrainEvents/Subscribe"),
            "{paths:?}"
        );
        assert!(
            paths.contains("/terrain.v1.TerrainLifecycle/TrackViewers"),
            "{paths:?}"
        );
        assert!(!paths.contains("/terrain.v1.TerrainService/GetHeight"));
        assert!(!paths.is_empty() && paths.len() < 10, "{paths:?}");
    }
}
