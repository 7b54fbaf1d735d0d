//! The one error taxonomy at the edge of the server.
//!
//! Every failure a client can see is an [`ApiError`]. Its [`ErrorCode`] maps to a gRPC
//! [`tonic::Code`] and to an HTTP status in one place ([`ErrorCode::grpc`],
//! [`ErrorCode::http`]), so the two surfaces can never disagree about what went wrong.
//! HTTP answers carry `{"error": {"code", "message", "field"}}`; gRPC answers carry the
//! same message (which starts with the offending field, e.g. `x: must be finite`).

use std::borrow::Cow;

use axum::{
    Json,
    http::{HeaderValue, StatusCode, header::WWW_AUTHENTICATE},
    response::{IntoResponse, Response},
};
use serde::Serialize;
use terrain_core::zones::ZoneError;

/// The closed set of error classes, named as gRPC names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// The request is malformed or a value is out of range (HTTP 400).
    InvalidArgument,
    /// The world or route does not exist (HTTP 404).
    NotFound,
    /// The request asks for more than the configured limits allow (HTTP 413).
    ResourceExhausted,
    /// A mutation without the right admin token (HTTP 401).
    Unauthenticated,
    /// The HTTP method is not served on this route (HTTP 405; gRPC `UNIMPLEMENTED`).
    MethodNotAllowed,
    /// The server is not ready or is shutting down (HTTP 503).
    Unavailable,
    /// A bug or a lost worker: never the client's fault (HTTP 500).
    Internal,
}

impl ErrorCode {
    /// The gRPC status code of this class.
    pub fn grpc(self) -> tonic::Code {
        match self {
            ErrorCode::InvalidArgument => tonic::Code::InvalidArgument,
            ErrorCode::NotFound => tonic::Code::NotFound,
            ErrorCode::ResourceExhausted => tonic::Code::ResourceExhausted,
            ErrorCode::Unauthenticated => tonic::Code::Unauthenticated,
            ErrorCode::MethodNotAllowed => tonic::Code::Unimplemented,
            ErrorCode::Unavailable => tonic::Code::Unavailable,
            ErrorCode::Internal => tonic::Code::Internal,
        }
    }

    /// The HTTP status of this class.
    pub fn http(self) -> StatusCode {
        match self {
            ErrorCode::InvalidArgument => StatusCode::BAD_REQUEST,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::ResourceExhausted => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::Unauthenticated => StatusCode::UNAUTHORIZED,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The name used in HTTP error bodies: the gRPC code's canonical name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::ResourceExhausted => "RESOURCE_EXHAUSTED",
            ErrorCode::Unauthenticated => "UNAUTHENTICATED",
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

/// A field name: usually static (`"x"`), sometimes built (`"points[3]"`).
pub type Field = Cow<'static, str>;

/// Why a request was refused. The `Display` form is the message both surfaces send; it
/// starts with the offending field where there is one.
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

    /// A zone the core refused: the field it names, with the rest of its message.
    pub fn zone(err: &ZoneError) -> Self {
        let field = err.field();
        let message = err.to_string();
        let reason = message
            .strip_prefix(field)
            .and_then(|m| m.strip_prefix(": "))
            .unwrap_or(&message);
        ApiError::invalid(field, reason.to_string())
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
            ApiError::TooLarge { .. } => ErrorCode::ResourceExhausted,
            ApiError::Unauthenticated(_) => ErrorCode::Unauthenticated,
            ApiError::MethodNotAllowed { .. } => ErrorCode::MethodNotAllowed,
            ApiError::Unavailable(_) => ErrorCode::Unavailable,
            ApiError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The request field the error is about, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            ApiError::InvalidArgument { field, .. } | ApiError::TooLarge { field, .. } => {
                Some(field)
            }
            ApiError::UnknownWorld { .. } | ApiError::NoLayout { .. } => Some("world"),
            ApiError::UnknownZone { .. } | ApiError::UnknownViewer { .. } => Some("id"),
            ApiError::Unauthenticated(_) => Some("authorization"),
            _ => None,
        }
    }
}

impl From<ApiError> for tonic::Status {
    fn from(err: ApiError) -> Self {
        log(&err);
        tonic::Status::new(err.code().grpc(), err.to_string())
    }
}

/// The HTTP error body: `{"error": {"code", "message", "field"}}`.
#[derive(Debug, Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Debug, Serialize)]
struct ErrorDetail<'a> {
    code: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        log(&self);
        let code = self.code();
        let body = ErrorBody {
            error: ErrorDetail {
                code: code.as_str(),
                message: self.to_string(),
                field: self.field(),
            },
        };
        let mut response = (code.http(), Json(body)).into_response();
        if code == ErrorCode::Unauthenticated {
            // RFC 6750: tell the client which scheme to use.
            response
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// Client mistakes are logged at debug level (they are the client's business); internal
/// errors at error level.
fn log(err: &ApiError) {
    match err.code() {
        ErrorCode::Internal => tracing::error!(error = %err, "request failed"),
        _ => tracing::debug!(error = %err, code = err.code().as_str(), "request refused"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_surfaces_agree_on_each_class() {
        let cases = [
            (
                ApiError::invalid("x", "must be finite"),
                tonic::Code::InvalidArgument,
                400,
            ),
            (
                ApiError::UnknownWorld {
                    id: "nope".into(),
                    hosted: "main".into(),
                },
                tonic::Code::NotFound,
                404,
            ),
            (
                ApiError::too_large("points", "too many"),
                tonic::Code::ResourceExhausted,
                413,
            ),
            (
                ApiError::Unauthenticated("missing bearer token"),
                tonic::Code::Unauthenticated,
                401,
            ),
            (
                ApiError::UnknownZone {
                    world: "main".into(),
                    id: "a".into(),
                },
                tonic::Code::NotFound,
                404,
            ),
            (
                ApiError::Unavailable("shutting down"),
                tonic::Code::Unavailable,
                503,
            ),
        ];
        for (err, grpc, http) in cases {
            assert_eq!(err.code().grpc(), grpc, "{err}");
            assert_eq!(err.code().http().as_u16(), http, "{err}");
            assert_eq!(tonic::Status::from(err.clone()).code(), grpc);
        }
    }

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
}
