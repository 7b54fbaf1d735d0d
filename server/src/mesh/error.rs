//! Why a mesh could not be served ([`MeshError`]) and how that maps onto the error
//! taxonomy.

use crate::{
    cost::Refused,
    error::{ErrorCode, ServiceError},
};

/// Why a mesh could not be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MeshError {
    /// The compute pool lost the build (a panic, or shutting down).
    #[error("internal error: building tile mesh: {0}")]
    Build(String),
    /// The cache gave back no entry for a tile it had just computed: a bug.
    #[error("internal error: mesh cache: the entry vanished")]
    Vanished,
    /// A commit's rebuild skipped because a later change's rebuild of the same tile
    /// replaced it (whoever waited for it builds or waits for the newer one).
    #[error("internal error: tile mesh rebuild superseded")]
    Superseded,
    /// The mesh could not be encoded for the response.
    #[error("internal error: encoding tile mesh: {0}")]
    Encode(String),
    /// 3D Tiles work not made within the budget share of `request_timeout` (or
    /// estimated beyond it), going on in a task of its own: served once it is made.
    #[error(
        "3D Tiles {what} is being built in the background (estimated at {alone:.1?} with the compute pool to itself; not ready within three quarters of request_timeout); retry after {retry_after:?}"
    )]
    Warming {
        what: String,
        alone: std::time::Duration,
        retry_after: std::time::Duration,
    },
    /// The compute pool's queued work and this build's would not finish in time, or
    /// this build's would not even alone.
    #[error(transparent)]
    Refused(#[from] Refused),
}

impl ServiceError for MeshError {
    fn error_code(&self) -> ErrorCode {
        match self {
            MeshError::Refused(e) => e.error_code(),
            MeshError::Warming { .. } => ErrorCode::Unavailable,
            _ => ErrorCode::Internal,
        }
    }

    fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            MeshError::Refused(e) => e.retry_after(),
            MeshError::Warming { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }

    fn field(&self) -> Option<&str> {
        match self {
            MeshError::Refused(e) => e.field(),
            _ => None,
        }
    }
}
