//! Why a read was refused: the error enum of the query and mesh paths.

use crate::{
    error::{ErrorCode, Field, ServiceError},
    mesh::MeshError,
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
    /// The compute pool lost the job (a panic or shutdown).
    #[error("internal error: {0}")]
    Internal(String),
    /// The mesh cache could not build a tile.
    #[error(transparent)]
    Mesh(#[from] MeshError),
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
            QueryError::Internal(_) => ErrorCode::Internal,
            QueryError::Mesh(e) => e.error_code(),
        }
    }

    fn field(&self) -> Option<&str> {
        match self {
            QueryError::Invalid { field, .. } | QueryError::TooLarge { field, .. } => Some(field),
            QueryError::Internal(_) | QueryError::Mesh(_) => None,
        }
    }
}
