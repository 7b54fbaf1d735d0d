//! Request accounting over the merged router, and `GET /metrics`.
//!
//! The middleware wraps every route, so axum's [`MatchedPath`] labels HTTP requests by
//! route template (`/v1/worlds/{world}/height`), never by raw path. gRPC calls are
//! labelled by method path (`/terrain.v1.TerrainService/GetHeight`) when it is one this
//! server serves, else `unknown`, so a client cannot grow the label set. A gRPC call's
//! code is read from the response head: tonic puts error statuses there (trailers-only
//! responses), and a call whose head has no status succeeded or failed mid-stream;
//! it counts as `OK`.

use std::{
    sync::{Arc, OnceLock},
    time::Instant,
};

use axum::{
    extract::{MatchedPath, Request, State},
    http::{HeaderValue, Method, header::CONTENT_TYPE},
    middleware::Next,
    response::{IntoResponse, Response},
};

use prost::Message;

use crate::{api::ApiState, metrics::Metrics, world::stats};

/// gRPC methods served here besides the project's own (health and reflection).
const SERVICE_METHODS: &[&str] = &[
    "/grpc.health.v1.Health/Check",
    "/grpc.health.v1.Health/Watch",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];

/// The gRPC methods served here: the only values of the `method` label. The
/// project's own are read from its descriptor set, so a new RPC is labelled without
/// anyone remembering to list it.
fn grpc_methods() -> &'static [String] {
    static METHODS: OnceLock<Vec<String>> = OnceLock::new();
    METHODS.get_or_init(|| {
        let mut methods: Vec<String> = SERVICE_METHODS.iter().map(|m| m.to_string()).collect();
        if let Ok(set) = prost_types::FileDescriptorSet::decode(terrain_proto::FILE_DESCRIPTOR_SET)
        {
            for file in &set.file {
                let package = file.package();
                for service in &file.service {
                    for method in &service.method {
                        methods.push(format!("/{package}.{}/{}", service.name(), method.name()));
                    }
                }
            }
        }
        methods
    })
}

/// Canonical gRPC code names, indexed by code number.
const GRPC_CODES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// What a request is counted as, decided before it runs.
enum Label {
    Http { route: String, method: &'static str },
    Grpc { method: &'static str },
}

impl Label {
    fn of(req: &Request) -> Label {
        if super::is_grpc(req.headers()) {
            let path = req.uri().path();
            let method = grpc_methods()
                .iter()
                .find(|m| *m == path)
                .map_or("unknown", String::as_str);
            return Label::Grpc { method };
        }
        let route = req
            .extensions()
            .get::<MatchedPath>()
            .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
        Label::Http {
            route,
            method: method_label(req.method()),
        }
    }
}

fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::HEAD => "HEAD",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}

fn grpc_code(value: Option<&HeaderValue>) -> &'static str {
    let Some(value) = value else { return "OK" };
    value
        .to_str()
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .and_then(|i| GRPC_CODES.get(i).copied())
        .unwrap_or("UNKNOWN")
}

/// Counts and times every request.
pub async fn track(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    let start = Instant::now();
    let label = Label::of(&req);
    let response = next.run(req).await;
    let elapsed = start.elapsed();
    match label {
        Label::Http { route, method } => {
            metrics.http_request(route, method, response.status().as_u16(), elapsed);
        }
        Label::Grpc { method } => {
            let code = grpc_code(response.headers().get("grpc-status"));
            metrics.grpc_request(method, code, elapsed);
        }
    }
    response
}

/// `GET /metrics`: the Prometheus text exposition, with the flat-zone gauges and
/// lookup counters brought up to date first.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "ops",
    responses((status = 200, description = "Prometheus text exposition (version 0.0.4)", content_type = "text/plain", body = String)),
)]
pub async fn render(State(state): State<Arc<ApiState>>) -> Response {
    for stats in stats::collect(state.engine.worlds()).await {
        state.metrics.zone_stats(&stats);
    }
    let worlds = state.engine.worlds().iter();
    let meters = worlds.map(|w| (w.id(), &**w.meters()));
    state
        .metrics
        .admission(state.engine.compute().queued(), meters);
    let content_type = HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");
    ([(CONTENT_TYPE, content_type)], state.metrics.render()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_served_rpc_has_a_method_label() {
        let methods = grpc_methods();
        for m in [
            "/terrain.v1.TerrainService/GetHeight",
            "/terrain.v1.TerrainService/GetTileMeshes",
            "/terrain.v1.TerrainService/RegisterFlatZone",
            "/terrain.v1.TerrainEvents/Subscribe",
            "/terrain.v1.TerrainEvents/UpdateSubscription",
            "/grpc.health.v1.Health/Check",
        ] {
            assert!(
                methods.iter().any(|x| x == m),
                "{m} missing from {methods:?}"
            );
        }
        assert!(!methods.iter().any(|x| x.contains("Nope")));
    }
}
