//! Why a read was refused: the error enum of the query and mesh paths.

use crate::{
    cost::{Full, Refused},
    error::{ErrorCode, Field, ServiceError},
    mesh::MeshError,
    world::{asof::AsOfError, error::UnknownWorld},
};

/// A refused or failed query.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QueryError {
    /// A value is malformed, missing or out of range.
    #[error("{field}: {reason}")]
    Invalid { field: Field, reason: String },
    /// The request is larger than a configured limit.
    #[error("{field}: {reason}")]
    TooLarge { field: Field, reason: String },
    /// No world with the requested id.
    #[error(transparent)]
    UnknownWorld(#[from] UnknownWorld),
    /// No flat zone with this id is registered in the world.
    #[error("id: no flat zone {} in world {world:?}", terrain_core::quote::Quoted(.id))]
    UnknownZone { world: String, id: String },
    /// The world has no layout layer to query.
    #[error("world: world {world:?} has no layout layer (configure [worlds.layout])")]
    NoLayout { world: String },
    /// The world is not a voxel world, so it has no blocks to serve.
    #[error(
        "world: world {world:?} has generator {generator:?}; blocks and instances are served \
         for voxel worlds only (generator = \"voxel\")"
    )]
    NotVoxel {
        world: String,
        generator: &'static str,
    },
    /// The compute pool lost the job (a panic or shutdown).
    #[error("internal error: {0}")]
    Internal(String),
    /// The mesh cache could not build a tile.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// The compute pool's queued work and this request's would not finish in time, or
    /// this request's would not even alone.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// Every slot of a bounded kind of work (rebuilds of past grounds) is taken.
    #[error(transparent)]
    Full(#[from] Full),
    /// The revision asked for is newer than the world's, or older than its history
    /// reaches (field `revision`).
    #[error(transparent)]
    AsOf(#[from] AsOfError),
    /// A page token whose listing can no longer be continued here: its revision is
    /// older than the world's history reaches, or of another epoch (field
    /// `pageToken`). The message says to list again from the first page.
    #[error("{0}")]
    StalePage(String),
    /// A page token of a revision this server has not applied yet (field
    /// `pageToken`): retrying reaches it.
    #[error("{0}")]
    PageAhead(String),
}

impl QueryError {
    /// A malformed or out-of-range `field`.
    pub fn invalid(field: impl Into<Field>, reason: impl Into<String>) -> Self {
        QueryError::Invalid {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A request over a configured limit, blamed on `field`.
    pub fn too_large(field: impl Into<Field>, reason: impl Into<String>) -> Self {
        QueryError::TooLarge {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl ServiceError for QueryError {
    fn error_code(&self) -> ErrorCode {
        match self {
            QueryError::Invalid { .. } => ErrorCode::InvalidArgument,
            QueryError::TooLarge { .. } => ErrorCode::TooLarge,
            QueryError::UnknownWorld(_)
            | QueryError::UnknownZone { .. }
            | QueryError::NoLayout { .. } => ErrorCode::NotFound,
            QueryError::NotVoxel { .. } => ErrorCode::FailedPrecondition,
            QueryError::Internal(_) => ErrorCode::Internal,
            QueryError::Mesh(e) => e.error_code(),
            QueryError::Refused(e) => e.error_code(),
            QueryError::Full(e) => e.error_code(),
            QueryError::AsOf(e) => e.error_code(),
            QueryError::StalePage(_) => ErrorCode::FailedPrecondition,
            QueryError::PageAhead(_) => ErrorCode::Aborted,
        }
    }

    fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            QueryError::Refused(e) => e.retry_after(),
            QueryError::Full(e) => e.retry_after(),
            QueryError::Mesh(e) => e.retry_after(),
            _ => None,
        }
    }

    fn field(&self) -> Option<&str> {
        match self {
            QueryError::Invalid { field, .. } | QueryError::TooLarge { field, .. } => Some(field),
            QueryError::UnknownWorld(e) => e.field(),
            QueryError::UnknownZone { .. } => Some("id"),
            QueryError::NoLayout { .. } | QueryError::NotVoxel { .. } => Some("world"),
            QueryError::AsOf(e) => e.field(),
            QueryError::Refused(e) => e.field(),
            QueryError::Mesh(e) => e.field(),
            QueryError::StalePage(_) | QueryError::PageAhead(_) => Some("pageToken"),
            QueryError::Internal(_) | QueryError::Full(_) => None,
        }
    }
}

impl From<crate::compute::Unfinished> for QueryError {
    fn from(e: crate::compute::Unfinished) -> Self {
        match e {
            crate::compute::Unfinished::Refused(e) => QueryError::Refused(e),
            crate::compute::Unfinished::Compute(e) => QueryError::Internal(e.to_string()),
        }
    }
}

impl From<terrain_core::walk::limits::LimitError> for QueryError {
    fn from(e: terrain_core::walk::limits::LimitError) -> Self {
        if e.too_large {
            QueryError::too_large(e.field, e.reason)
        } else {
            QueryError::invalid(e.field, e.reason)
        }
    }
}
