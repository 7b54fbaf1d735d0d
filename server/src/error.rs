//! The error taxonomy the domain speaks, without any wire types.
//!
//! Each domain service (registry, zone log, lifecycle, events, queries) has its own
//! `thiserror` enum and implements [`ServiceError`]: an [`ErrorCode`] (the class of the
//! failure) and, for a refused request, the request field it is about. The edge
//! (`api::error`) is the one place that turns a code into a gRPC status code and an
//! HTTP status, so the two surfaces can never disagree; it never matches on messages.
//!
//! The edge answers with `api::error::ApiError`, into which any [`ServiceError`]
//! converts (`?` works in handlers); request decoding at the edge builds it directly.

use std::borrow::Cow;

/// The closed set of error classes, named as gRPC names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The request is malformed or a value is out of range (HTTP 400).
    InvalidArgument,
    /// The world, zone, viewer or route does not exist (HTTP 404).
    NotFound,
    /// A capacity of the server is used up: zones per world, viewers per world
    /// (gRPC `RESOURCE_EXHAUSTED`, HTTP 429). Retrying later may succeed.
    ResourceExhausted,
    /// The request itself is larger than a configured limit: a body, a batch, a
    /// heightmap, a view (gRPC `RESOURCE_EXHAUSTED`, HTTP 413). Retrying the same
    /// request never succeeds.
    TooLarge,
    /// The request conflicts with the state it applies to: a viewer another stream
    /// owns (HTTP 409).
    FailedPrecondition,
    /// A concurrent change won every compare-and-swap attempt (HTTP 409); the caller
    /// may try again.
    Aborted,
    /// A mutation without the right admin token (HTTP 401).
    Unauthenticated,
    /// The caller is known and refused: a WebSocket upgrade from a browser page whose
    /// `Origin` is not among `cors_origins` (HTTP 403).
    PermissionDenied,
    /// The HTTP method is not served on this route (HTTP 405; gRPC `UNIMPLEMENTED`).
    MethodNotAllowed,
    /// The request did not arrive in time: a body slower than `request_body_timeout`
    /// (HTTP 408).
    DeadlineExceeded,
    /// The server is not ready, is shutting down, or its store is unreachable (HTTP 503).
    Unavailable,
    /// The body's `Content-Type` is not one the route reads (HTTP 415; gRPC
    /// `INVALID_ARGUMENT`).
    UnsupportedMediaType,
    /// Every request slot is taken (`max_in_flight`), or the compute pool's queued
    /// work and the request's own would not finish within `request_timeout`
    /// (`crate::cost`): refused at once with `Retry-After` instead of queued (gRPC
    /// `RESOURCE_EXHAUSTED`, HTTP 503).
    Overloaded,
    /// The request was not answered within `request_timeout` (gRPC
    /// `DEADLINE_EXCEEDED`, HTTP 504); its remaining work is dropped.
    TimedOut,
    /// A bug or a lost worker: never the client's fault (HTTP 500).
    Internal,
}

impl ErrorCode {
    /// The name used in HTTP error bodies: the gRPC code's canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::ResourceExhausted | ErrorCode::TooLarge => "RESOURCE_EXHAUSTED",
            ErrorCode::FailedPrecondition => "FAILED_PRECONDITION",
            ErrorCode::Aborted => "ABORTED",
            ErrorCode::Unauthenticated => "UNAUTHENTICATED",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::DeadlineExceeded | ErrorCode::TimedOut => "DEADLINE_EXCEEDED",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::UnsupportedMediaType => "INVALID_ARGUMENT",
            ErrorCode::Overloaded => "RESOURCE_EXHAUSTED",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

/// What every domain error tells the edge: its class and, when a request field is to
/// blame, which one. The `Display` form is the message both surfaces send.
pub trait ServiceError: std::error::Error + Send + Sync + 'static {
    /// The class of this failure.
    fn error_code(&self) -> ErrorCode;

    /// The request field an invalid-argument (or too-large) error is about, e.g. `x`,
    /// `points[3]`, `viewWidth`.
    fn field(&self) -> Option<&str> {
        None
    }

    /// For an overloaded refusal, how long the client should wait before retrying
    /// (`Retry-After`, gRPC `RetryInfo`).
    fn retry_after(&self) -> Option<std::time::Duration> {
        None
    }
}

/// A field name: usually static (`"x"`), sometimes built (`"points[3]"`).
pub type Field = Cow<'static, str>;

impl ServiceError for terrain_core::zones::ZoneError {
    fn error_code(&self) -> ErrorCode {
        ErrorCode::InvalidArgument
    }

    fn field(&self) -> Option<&str> {
        Some(terrain_core::zones::ZoneError::field(self))
    }
}

impl ServiceError for terrain_model::FieldError {
    fn error_code(&self) -> ErrorCode {
        ErrorCode::InvalidArgument
    }

    fn field(&self) -> Option<&str> {
        Some(&self.field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrain_core::zones::ZoneError;

    #[test]
    fn zone_errors_keep_their_field() {
        let err = ZoneError::NotFinite { field: "centerX" };
        assert_eq!(ServiceError::field(&err), Some("centerX"));
        assert_eq!(err.error_code(), ErrorCode::InvalidArgument);
        assert_eq!(err.to_string(), "centerX: must be a finite number");
        let err = ZoneError::BadId("a b".into());
        assert_eq!(ServiceError::field(&err), Some("id"));
        assert!(err.to_string().starts_with("id: must match"), "{err}");
    }
}
