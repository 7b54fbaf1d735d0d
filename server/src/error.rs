//! The error taxonomy the domain speaks, without any wire types.
//!
//! Each domain service (registry, zone log, lifecycle, events, queries) has its own
//! `thiserror` enum and implements [`ServiceError`]: an [`ErrorCode`] (the class of the
//! failure) and, for a refused request, the request field it is about. The edge
//! (`api::error`) is the one place that turns a code into a gRPC status code and an
//! HTTP status, so the two surfaces can never disagree; it never matches on messages.
//!
//! [`ApiError`] is the error the edge answers with. Any [`ServiceError`] converts into
//! it (`?` works in handlers); request decoding at the edge builds it directly.

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
    /// The HTTP method is not served on this route (HTTP 405; gRPC `UNIMPLEMENTED`).
    MethodNotAllowed,
    /// The server is not ready, is shutting down, or its store is unreachable (HTTP 503).
    Unavailable,
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
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::Unavailable => "UNAVAILABLE",
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
}

/// A field name: usually static (`"x"`), sometimes built (`"points[3]"`).
pub type Field = Cow<'static, str>;

/// Why a request was refused, as the edge answers it. The `Display` form is the
/// message both surfaces send; it starts with the offending field where there is one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApiError {
    /// A value is malformed, missing or out of range.
    #[error("{field}: {reason}")]
    InvalidArgument { field: Field, reason: String },
    /// No world with this id is hosted here.
    #[error("world: no world {id:?} on this server (hosted: {hosted})")]
    UnknownWorld {
        id: String,
        /// The hosted ids, comma separated, to help the caller fix a typo.
        hosted: String,
    },
    /// No flat zone with this id is registered in the world.
    #[error("id: no flat zone {id:?} in world {world:?}")]
    UnknownZone { world: String, id: String },
    /// No viewer with this id is reported in the world (by this caller).
    #[error("id: no viewer {id:?} in world {world:?}")]
    UnknownViewer { world: String, id: String },
    /// The world has no layout layer to query.
    #[error("world: world {world:?} has no layout layer (configure [worlds.layout])")]
    NoLayout { world: String },
    /// The request is larger than a configured limit.
    #[error("{field}: {reason}")]
    TooLarge { field: Field, reason: String },
    /// A capacity of the world is used up (zones, viewers).
    #[error("{field}: {reason}")]
    Capacity { field: Field, reason: String },
    /// The request conflicts with the current state (a viewer another stream owns).
    #[error("{field}: {reason}")]
    FailedPrecondition { field: Field, reason: String },
    /// Concurrent changes won every attempt; the caller may try again.
    #[error("{0}")]
    Aborted(&'static str),
    /// A mutation without the right admin token. The message never echoes the token.
    #[error("authorization: {0}")]
    Unauthenticated(&'static str),
    /// No HTTP route matches the path.
    #[error("no route for {0}")]
    NoRoute(String),
    /// The route exists but not for this method.
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    /// Not ready to serve, or shutting down.
    #[error("{0}")]
    Unavailable(&'static str),
    /// Something that is not the client's fault.
    #[error("internal error: {0}")]
    Internal(String),
    /// A domain service's error, carried with its class and field.
    #[error("{message}")]
    Service {
        code: ErrorCode,
        message: String,
        field: Option<String>,
    },
}

impl ApiError {
    /// A malformed or out-of-range `field`.
    pub fn invalid(field: impl Into<Field>, reason: impl Into<String>) -> Self {
        ApiError::InvalidArgument {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A request over a configured limit, blamed on `field`.
    pub fn too_large(field: impl Into<Field>, reason: impl Into<String>) -> Self {
        ApiError::TooLarge {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A used-up capacity of the world, blamed on `field`.
    pub fn capacity(field: impl Into<Field>, reason: impl Into<String>) -> Self {
        ApiError::Capacity {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A request that conflicts with the current state, blamed on `field`.
    pub fn failed_precondition(field: impl Into<Field>, reason: impl Into<String>) -> Self {
        ApiError::FailedPrecondition {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// A zone the core refused: the field it names, with its reason.
    pub fn zone(err: &terrain_core::zones::ZoneError) -> Self {
        ApiError::from_service(err)
    }

    /// Any domain error, with its class, field and message.
    pub fn from_service(err: &(impl ServiceError + ?Sized)) -> Self {
        ApiError::Service {
            code: err.error_code(),
            message: err.to_string(),
            field: err.field().map(str::to_string),
        }
    }

    /// The class of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::InvalidArgument { .. } => ErrorCode::InvalidArgument,
            ApiError::UnknownWorld { .. }
            | ApiError::UnknownZone { .. }
            | ApiError::UnknownViewer { .. }
            | ApiError::NoLayout { .. }
            | ApiError::NoRoute(_) => ErrorCode::NotFound,
            ApiError::TooLarge { .. } => ErrorCode::TooLarge,
            ApiError::Capacity { .. } => ErrorCode::ResourceExhausted,
            ApiError::FailedPrecondition { .. } => ErrorCode::FailedPrecondition,
            ApiError::Aborted(_) => ErrorCode::Aborted,
            ApiError::Unauthenticated(_) => ErrorCode::Unauthenticated,
            ApiError::MethodNotAllowed { .. } => ErrorCode::MethodNotAllowed,
            ApiError::Unavailable(_) => ErrorCode::Unavailable,
            ApiError::Internal(_) => ErrorCode::Internal,
            ApiError::Service { code, .. } => *code,
        }
    }

    /// The request field the error is about, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            ApiError::InvalidArgument { field, .. }
            | ApiError::TooLarge { field, .. }
            | ApiError::Capacity { field, .. }
            | ApiError::FailedPrecondition { field, .. } => Some(field),
            ApiError::UnknownWorld { .. } | ApiError::NoLayout { .. } => Some("world"),
            ApiError::UnknownZone { .. } | ApiError::UnknownViewer { .. } => Some("id"),
            ApiError::Unauthenticated(_) => Some("authorization"),
            ApiError::Service { field, .. } => field.as_deref(),
            _ => None,
        }
    }
}

/// `?` on any domain error in a handler.
impl<E: ServiceError> From<E> for ApiError {
    fn from(err: E) -> Self {
        ApiError::from_service(&err)
    }
}

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
    fn message_starts_with_the_field() {
        let err = ApiError::invalid("points[3]", "z must be finite");
        assert_eq!(err.to_string(), "points[3]: z must be finite");
        assert_eq!(err.field(), Some("points[3]"));
        let err = ApiError::UnknownWorld {
            id: "x".into(),
            hosted: "main".into(),
        };
        assert!(err.to_string().starts_with("world: "), "{err}");
    }

    #[test]
    fn zone_errors_keep_their_field() {
        let err = ApiError::zone(&ZoneError::NotFinite { field: "centerX" });
        assert_eq!(err.field(), Some("centerX"));
        assert_eq!(err.to_string(), "centerX: must be a finite number");
        let err = ApiError::zone(&ZoneError::BadId("a b".into()));
        assert_eq!(err.field(), Some("id"));
        assert!(err.to_string().starts_with("id: must match"), "{err}");
    }

    #[test]
    fn domain_errors_convert_with_code_and_field() {
        let err: ApiError = ZoneError::NotFinite { field: "height" }.into();
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert_eq!(err.field(), Some("height"));
    }
}
