//! Who may change worlds: the admin token check both surfaces run before a mutation
//! (zones, viewers, `TrackViewers`, the backup). HTTP reads the credentials from the
//! `Authorization` header ([`super::http::extract::Admin`]), gRPC from the
//! `authorization` metadata; both are `Bearer <token>`.

use super::{ApiError, ApiState};

/// Checks the credentials a request carries (the raw `Authorization` value, if any)
/// against the admin token; without a configured token every request passes.
pub fn authorize(state: &ApiState, credentials: Option<&[u8]>) -> Result<(), ApiError> {
    Ok(state.auth.check(credentials)?)
}
