//! Why an event call failed: [`EventError`], one variant per cause, classified for
//! the edge by [`crate::error::ServiceError`].

use terrain_core::quote::Quoted;

use crate::{
    error::{ErrorCode, ServiceError},
    store::StoreError,
};

/// A refused or failed event call.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    /// `UpdateSubscription` named no open subscription (it ended, or never was).
    #[error("subscriptionId: no open subscription {}", Quoted(.id))]
    UnknownSubscription { id: String },
    /// A resume point after the world's current revision.
    #[error("fromRevision: {from} is after the current revision {current}")]
    FromAhead { from: u64, current: u64 },
    /// A resume point's epoch that is not one (16 hex digits).
    #[error("fromEpoch: expected 16 hex digits (an epoch the server sent), got {}", Quoted(.got))]
    BadEpoch { got: String },
    /// The hubs are not attached yet (the store and worlds are still opening).
    #[error("events: not started")]
    NotStarted,
    /// A hosted world without a hub: a bug.
    #[error("events: no hub for world {}", Quoted(.world))]
    NoHub { world: String },
    /// The replay task panicked or was cancelled.
    #[error("event replay task: {0}")]
    ReplayTask(String),
    /// Every place for a stream is taken, on the connection or on the server.
    #[error("streams: all {limit} streams of {scope} ({key}) are open; retry once one has ended")]
    TooManyStreams {
        key: &'static str,
        scope: &'static str,
        limit: usize,
    },
    /// Reading the mutation log for a replay failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ServiceError for EventError {
    fn error_code(&self) -> ErrorCode {
        match self {
            EventError::UnknownSubscription { .. }
            | EventError::FromAhead { .. }
            | EventError::BadEpoch { .. } => ErrorCode::InvalidArgument,
            EventError::NotStarted => ErrorCode::Unavailable,
            EventError::TooManyStreams { .. } => ErrorCode::Overloaded,
            EventError::NoHub { .. } | EventError::ReplayTask(_) | EventError::Store(_) => {
                ErrorCode::Internal
            }
        }
    }

    fn field(&self) -> Option<&str> {
        match self {
            EventError::UnknownSubscription { .. } => Some("subscriptionId"),
            EventError::FromAhead { .. } => Some("fromRevision"),
            EventError::BadEpoch { .. } => Some("fromEpoch"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_their_field_and_failures_are_internal() {
        let err = EventError::FromAhead {
            from: 9,
            current: 3,
        };
        assert_eq!(err.error_code(), ErrorCode::InvalidArgument);
        assert_eq!(err.field(), Some("fromRevision"));
        assert_eq!(
            err.to_string(),
            "fromRevision: 9 is after the current revision 3"
        );
        let err = EventError::UnknownSubscription { id: "7-ab".into() };
        assert_eq!(
            (err.error_code(), err.field()),
            (ErrorCode::InvalidArgument, Some("subscriptionId"))
        );
        assert_eq!(EventError::NotStarted.error_code(), ErrorCode::Unavailable);
        let err = EventError::NoHub {
            world: "main".into(),
        };
        assert_eq!((err.error_code(), err.field()), (ErrorCode::Internal, None));
    }
}
