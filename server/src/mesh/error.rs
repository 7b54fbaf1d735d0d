//! Why a mesh could not be served ([`MeshError`]) and how that maps onto the error
//! taxonomy.

use crate::{
    cost::Busy,
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
    /// The compute pool's queued work and this build's would not finish in time.
    #[error(transparent)]
    Busy(#[from] Busy),
}

impl ServiceError for MeshError {
    fn error_code(&self) -> ErrorCode {
        match self {
            MeshError::Busy(e) => e.error_code(),
            _ => ErrorCode::Internal,
        }
    }

    fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            MeshError::Busy(e) => e.retry_after(),
            _ => None,
        }
    }
}
