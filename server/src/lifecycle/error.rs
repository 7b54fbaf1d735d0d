//! Why the lifecycle refused a viewer or could not bake a world: its own error enum,
//! classed by [`ErrorCode`] for the edge to answer (no wire types here).
//!
//! | error | class | HTTP |
//! | --- | --- | --- |
//! | [`LifecycleError::Invalid`]: a viewer field malformed or beyond the tile grid | `InvalidArgument` | 400 |
//! | [`LifecycleError::ViewTooLarge`]: the active ring over the tile limit | `TooLarge` | 413 |
//! | [`LifecycleError::TooManyViewers`]: `max_viewers_per_world` reached | `ResourceExhausted` | 429 |
//! | [`LifecycleError::OverLiveBudget`]: the live tiles would not fit in `mesh_cache_bytes` | `ResourceExhausted` | 429 |
//! | [`LifecycleError::OwnedElsewhere`]: the viewer belongs to another reporter | `FailedPrecondition` | 409 |
//! | [`LifecycleError::UnknownViewer`] | `NotFound` | 404 |
//! | [`LifecycleError::Layout`], [`LifecycleError::Mesh`], [`LifecycleError::Internal`] (the bake) | `Internal` | 500 |

use terrain_core::layout::LayoutError;

use crate::{
    error::{ErrorCode, Field, ServiceError},
    mesh::MeshError,
};

/// A refused viewer or a failed bake.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LifecycleError {
    /// A viewer field (or a spawn point) is malformed, out of range or beyond the
    /// tile grid.
    #[error("{field}: {reason}")]
    Invalid { field: Field, reason: String },
    /// The view's active ring covers more tiles than one viewer may hold.
    #[error("{field}: {reason}")]
    ViewTooLarge { field: Field, reason: String },
    /// The world already has `max` viewers; a new id is refused.
    #[error("viewers: the world already has {max} viewers (max_viewers_per_world)")]
    TooManyViewers { max: usize },
    /// The world would hold more live tiles than the mesh budget pins.
    #[error(
        "viewWidth: this view would keep {tiles} tiles of world {world:?} live, but only \
         {fit} fit in mesh_cache_bytes ({limit} bytes, shared by every world's live tiles, \
         whose meshes stay cached until culled): narrow the view, or raise mesh_cache_bytes"
    )]
    OverLiveBudget {
        world: String,
        tiles: usize,
        fit: usize,
        limit: u64,
    },
    /// The viewer id is reported by another client (HTTP, or another stream).
    #[error("id: viewer {id:?} is reported by another {by}")]
    OwnedElsewhere { id: String, by: &'static str },
    /// No viewer with this id (reported by this caller) in the world.
    #[error("id: no viewer {id:?} in world {world:?}")]
    UnknownViewer { world: String, id: String },
    /// The layout around the spawn points could not be built.
    #[error("layout: {0}")]
    Layout(#[from] LayoutError),
    /// A tile mesh could not be warmed.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// The compute pool lost a job.
    #[error("internal error: {0}")]
    Internal(String),
}

impl LifecycleError {
    /// A malformed or out-of-range `field`.
    pub fn invalid(field: impl Into<Field>, reason: impl Into<String>) -> Self {
        LifecycleError::Invalid {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A view whose active ring is over the tile limit, blamed on `field`.
    pub fn view_too_large(field: impl Into<Field>, reason: impl Into<String>) -> Self {
        LifecycleError::ViewTooLarge {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl ServiceError for LifecycleError {
    fn error_code(&self) -> ErrorCode {
        match self {
            LifecycleError::Invalid { .. } => ErrorCode::InvalidArgument,
            LifecycleError::ViewTooLarge { .. } => ErrorCode::TooLarge,
            LifecycleError::TooManyViewers { .. } | LifecycleError::OverLiveBudget { .. } => {
                ErrorCode::ResourceExhausted
            }
            LifecycleError::OwnedElsewhere { .. } => ErrorCode::FailedPrecondition,
            LifecycleError::UnknownViewer { .. } => ErrorCode::NotFound,
            // The bake's: the configuration's spawn points, never a client's request.
            LifecycleError::Layout(_) | LifecycleError::Internal(_) => ErrorCode::Internal,
            LifecycleError::Mesh(e) => e.error_code(),
        }
    }

    fn field(&self) -> Option<&str> {
        match self {
            LifecycleError::Invalid { field, .. } | LifecycleError::ViewTooLarge { field, .. } => {
                Some(field)
            }
            LifecycleError::TooManyViewers { .. } => Some("viewers"),
            LifecycleError::OverLiveBudget { .. } => Some("viewWidth"),
            LifecycleError::OwnedElsewhere { .. } | LifecycleError::UnknownViewer { .. } => {
                Some("id")
            }
            LifecycleError::Layout(_) | LifecycleError::Mesh(_) | LifecycleError::Internal(_) => {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_has_its_class_and_field() {
        let cases = [
            (
                LifecycleError::invalid("x", "must be finite"),
                ErrorCode::InvalidArgument,
                Some("x"),
            ),
            (
                LifecycleError::view_too_large("viewWidth", "too wide"),
                ErrorCode::TooLarge,
                Some("viewWidth"),
            ),
            (
                LifecycleError::TooManyViewers { max: 2 },
                ErrorCode::ResourceExhausted,
                Some("viewers"),
            ),
            (
                LifecycleError::OwnedElsewhere {
                    id: "b".into(),
                    by: "TrackViewers stream",
                },
                ErrorCode::FailedPrecondition,
                Some("id"),
            ),
            (
                LifecycleError::UnknownViewer {
                    world: "main".into(),
                    id: "a".into(),
                },
                ErrorCode::NotFound,
                Some("id"),
            ),
        ];
        for (err, code, field) in cases {
            assert_eq!((err.error_code(), err.field()), (code, field), "{err}");
            if let Some(field) = field {
                assert!(err.to_string().starts_with(field), "{err}");
            }
        }
    }
}
