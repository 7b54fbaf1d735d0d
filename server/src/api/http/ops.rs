//! `GET /healthz` (the process answers) and `GET /readyz` (readiness, see
//! [`crate::api::health`]).

use std::sync::Arc;

use axum::{Json, extract::State};
use serde::Serialize;

use crate::api::{ApiError, ApiState};

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Status {
    #[schema(example = "ok")]
    status: &'static str,
}

#[utoipa::path(
    get,
    path = "/healthz",
    tag = "ops",
    responses((status = 200, description = "The process is up: `{\"status\": \"ok\"}`", body = Status)),
)]
pub async fn healthz() -> Json<Status> {
    Json(Status { status: "ok" })
}

#[utoipa::path(
    get,
    path = "/readyz",
    tag = "ops",
    responses(
        (status = 200, description = "Ready to serve: `{\"status\": \"ready\"}`", body = Status),
        (status = 503, description = "Starting or shutting down (`UNAVAILABLE`)"),
    ),
)]
pub async fn readyz(State(state): State<Arc<ApiState>>) -> Result<Json<Status>, ApiError> {
    if state.readiness.is_ready() {
        Ok(Json(Status { status: "ready" }))
    } else {
        Err(ApiError::Unavailable(
            "not ready: starting or shutting down",
        ))
    }
}
