//! `GET /v1/admin/backup`: a consistent snapshot of every world's zones and revision
//! from the running server (which holds the store's lock, so the `backup` command
//! cannot open the file itself), as the backup file ([`crate::store::backup`]). It needs
//! the admin token when one is configured.

use std::sync::Arc;

use axum::{
    extract::State,
    http::{HeaderValue, header::CONTENT_TYPE},
    response::{IntoResponse, Response},
};

use super::extract::Admin;
use crate::api::{ApiError, ApiState};

#[utoipa::path(
    get,
    path = "/v1/admin/backup",
    tag = "admin",
    description = "A consistent snapshot (one read transaction) of every world's zones and \
        revision, in the backup file format that `terrain-server restore` loads.",
    security((), ("admin" = [])),
    responses(
        (status = 200, description = "The backup file", content_type = "application/json", body = Object),
        (status = 401, description = "A missing or wrong admin token (field `authorization`; `WWW-Authenticate: Bearer`)"),
    ),
)]
pub async fn backup(State(state): State<Arc<ApiState>>, _: Admin) -> Result<Response, ApiError> {
    let store = Arc::clone(&state.store);
    // One read transaction on a blocking thread: writes go on meanwhile.
    let snapshot = tokio::task::spawn_blocking(move || store.snapshot())
        .await
        .map_err(|e| ApiError::Internal(format!("backup: {e}")))?
        .map_err(|e| ApiError::Internal(format!("backup: {e}")))?;
    tracing::info!(
        worlds = snapshot.worlds.len(),
        zones = snapshot.zones(),
        "backup taken"
    );
    let body = snapshot.to_json();
    Ok((
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body,
    )
        .into_response())
}
