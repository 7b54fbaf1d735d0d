//! The one mapping from error classes to the wire: gRPC status codes (with the field
//! as `google.rpc.BadRequest` details) and HTTP statuses (with the field in the body).
//!
//! | class | gRPC | HTTP |
//! | --- | --- | --- |
//! | `InvalidArgument` | `INVALID_ARGUMENT` | 400 |
//! | `NotFound` | `NOT_FOUND` | 404 |
//! | `ResourceExhausted` (a capacity: zones, viewers per world) | `RESOURCE_EXHAUSTED` | 429 |
//! | `TooLarge` (a body, batch, heightmap, view over a limit) | `RESOURCE_EXHAUSTED` | 413 |
//! | `FailedPrecondition` | `FAILED_PRECONDITION` | 409 |
//! | `Aborted` | `ABORTED` | 409 |
//! | `Unauthenticated` | `UNAUTHENTICATED` | 401 |
//! | `PermissionDenied` (a WebSocket page's `Origin` not among `cors_origins`) | `PERMISSION_DENIED` | 403 |
//! | `MethodNotAllowed` | `UNIMPLEMENTED` | 405 |
//! | `DeadlineExceeded` | `DEADLINE_EXCEEDED` | 408 |
//! | `Unavailable` | `UNAVAILABLE` | 503 |
//! | `UnsupportedMediaType` (a body type the route does not read) | `INVALID_ARGUMENT` | 415 |
//! | `Overloaded` (every request slot taken, the compute pool's queue full, or every rebuild slot of past revisions taken; `Retry-After`) | `RESOURCE_EXHAUSTED` | 503 |
//! | `TimedOut` (not answered within `request_timeout`) | `DEADLINE_EXCEEDED` | 504 |
//! | `Internal` | `INTERNAL` | 500 |
//!
//! [`ApiError`] is what both surfaces answer with: any domain error
//! ([`ServiceError`]) converts into it with its class, field and message, and request
//! decoding builds it directly.
//!
//! HTTP answers carry `{"error": {"code", "message", "field"}}`. gRPC answers carry the
//! same message and, when a field is to blame, a `google.rpc.BadRequest` with one field
//! violation (`field`, `description`) in the status details, so clients read the field
//! without parsing the message.
//!
//! One spelling per surface: the domain and the HTTP decoders name fields as JSON
//! does, lowerCamelCase (`tileMask`, `fromRevision`, `minTileX`); the gRPC surface
//! names them as the proto does, snake_case (`tile_mask`, `from_revision`,
//! `min_tile_x`). [`grpc_field`] is the one translation, applied here to every gRPC
//! answer (the field violation and the message's leading field) and to the viewer
//! rejections of `TrackViewers` ([`ApiError::grpc_field`], [`ApiError::grpc_message`]).

use std::borrow::Cow;

use axum::{
    Json,
    http::{
        HeaderValue, StatusCode,
        header::{CONNECTION, RETRY_AFTER, WWW_AUTHENTICATE},
    },
    response::{IntoResponse, Response},
};
use serde::Serialize;
use tonic_types::{ErrorDetails, StatusExt};

use crate::error::{ErrorCode, Field, ServiceError};

/// Why a request was refused, as the edge answers it. The `Display` form is the
/// message both surfaces send; it starts with the offending field where there is one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApiError {
    /// A value is malformed, missing or out of range.
    #[error("{field}: {reason}")]
    InvalidArgument { field: Field, reason: String },
    /// The request is larger than a configured limit.
    #[error("{field}: {reason}")]
    TooLarge { field: Field, reason: String },
    /// An HTTP body over the byte limit, refused before it was read to its end.
    #[error("body: larger than the limit of {limit} bytes")]
    BodyTooLarge { limit: usize },
    /// An HTTP body that did not arrive in full within `request_body_timeout`.
    #[error("body: request body not received within request_body_timeout ({timeout:?})")]
    BodyTimedOut { timeout: std::time::Duration },
    /// A mutation without the right admin token. The message never echoes the token.
    #[error("authorization: {0}")]
    Unauthenticated(&'static str),
    /// A WebSocket upgrade from a browser page whose `Origin` is not among
    /// `cors_origins` (the value, quoted).
    #[error("origin: {0} is not among the allowed origins (cors_origins)")]
    OriginRefused(String),
    /// No HTTP route matches the path.
    #[error("no route for {0}")]
    NoRoute(String),
    /// The route exists but not for this method.
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    /// Not ready to serve, or shutting down.
    #[error("{0}")]
    Unavailable(&'static str),
    /// A body whose `Content-Type` the route does not read.
    #[error(
        "content-type: {} is not accepted here; send {expected}",
        terrain_core::quote::Quoted(.got)
    )]
    UnsupportedMediaType { got: String, expected: &'static str },
    /// Every request slot is taken; the client should retry after `retry_after`.
    #[error(
        "overloaded: all {limit} request slots (max_in_flight) are busy; retry after {retry_after:?}"
    )]
    Overloaded {
        limit: usize,
        retry_after: std::time::Duration,
    },
    /// The answer took longer than `request_timeout`.
    #[error("request not answered within request_timeout ({timeout:?})")]
    TimedOut { timeout: std::time::Duration },
    /// Something that is not the client's fault.
    #[error("internal error: {0}")]
    Internal(String),
    /// A domain service's error, carried with its class and field.
    #[error("{message}")]
    Service {
        code: ErrorCode,
        message: String,
        field: Option<String>,
        retry_after: Option<std::time::Duration>,
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

    /// Any domain error, with its class, field and message.
    pub fn from_service(err: &(impl ServiceError + ?Sized)) -> Self {
        ApiError::Service {
            code: err.error_code(),
            message: err.to_string(),
            field: err.field().map(str::to_string),
            retry_after: err.retry_after(),
        }
    }

    /// How long an overloaded client should wait before retrying.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            ApiError::Overloaded { retry_after, .. } => Some(*retry_after),
            ApiError::Service { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The class of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::InvalidArgument { .. } => ErrorCode::InvalidArgument,
            ApiError::NoRoute(_) => ErrorCode::NotFound,
            ApiError::TooLarge { .. } | ApiError::BodyTooLarge { .. } => ErrorCode::TooLarge,
            ApiError::BodyTimedOut { .. } => ErrorCode::DeadlineExceeded,
            ApiError::Unauthenticated(_) => ErrorCode::Unauthenticated,
            ApiError::OriginRefused(_) => ErrorCode::PermissionDenied,
            ApiError::MethodNotAllowed { .. } => ErrorCode::MethodNotAllowed,
            ApiError::Unavailable(_) => ErrorCode::Unavailable,
            ApiError::UnsupportedMediaType { .. } => ErrorCode::UnsupportedMediaType,
            ApiError::Overloaded { .. } => ErrorCode::Overloaded,
            ApiError::TimedOut { .. } => ErrorCode::TimedOut,
            ApiError::Internal(_) => ErrorCode::Internal,
            ApiError::Service { code, .. } => *code,
        }
    }

    /// The request field the error is about, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            ApiError::InvalidArgument { field, .. } | ApiError::TooLarge { field, .. } => {
                Some(field)
            }
            ApiError::BodyTooLarge { .. } | ApiError::BodyTimedOut { .. } => Some("body"),
            ApiError::Unauthenticated(_) => Some("authorization"),
            ApiError::OriginRefused(_) => Some("origin"),
            ApiError::UnsupportedMediaType { .. } => Some("content-type"),
            ApiError::Service { field, .. } => field.as_deref(),
            _ => None,
        }
    }
}

impl ApiError {
    /// The field as the gRPC surface names it: the proto's snake_case ([`grpc_field`]).
    pub fn grpc_field(&self) -> Option<Cow<'_, str>> {
        self.field().map(grpc_field)
    }

    /// The message as the gRPC surface sends it: a leading field in the proto's
    /// spelling (`tile_mask: lists a tile more than once`), the rest as it is.
    pub fn grpc_message(&self) -> String {
        let message = self.to_string();
        let Some(field) = self.field() else {
            return message;
        };
        match message
            .strip_prefix(field)
            .filter(|rest| rest.starts_with(": "))
        {
            Some(rest) => format!("{}{rest}", grpc_field(field)),
            None => message,
        }
    }
}

/// A field named as JSON names it (lowerCamelCase: `tileMask`, `minTileX`,
/// `points[3]`) as the proto names it (snake_case: `tile_mask`, `min_tile_x`,
/// `points[3]`): each ASCII capital becomes `_` and its lower case. Every proto field
/// of `terrain.v1` is the snake_case of its JSON name, so this is the whole mapping;
/// names without capitals (`x`, `nx*nz`, `content-type`) are unchanged.
pub fn grpc_field(field: &str) -> Cow<'_, str> {
    if !field.bytes().any(|b| b.is_ascii_uppercase()) {
        return Cow::Borrowed(field);
    }
    let mut out = String::with_capacity(field.len() + 4);
    for c in field.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `?` on any domain error in a handler.
impl<E: ServiceError> From<E> for ApiError {
    fn from(err: E) -> Self {
        ApiError::from_service(&err)
    }
}

/// The gRPC status code of `code`.
pub fn grpc_code(code: ErrorCode) -> tonic::Code {
    match code {
        ErrorCode::InvalidArgument => tonic::Code::InvalidArgument,
        ErrorCode::NotFound => tonic::Code::NotFound,
        ErrorCode::ResourceExhausted | ErrorCode::TooLarge => tonic::Code::ResourceExhausted,
        ErrorCode::FailedPrecondition => tonic::Code::FailedPrecondition,
        ErrorCode::Aborted => tonic::Code::Aborted,
        ErrorCode::Unauthenticated => tonic::Code::Unauthenticated,
        ErrorCode::PermissionDenied => tonic::Code::PermissionDenied,
        ErrorCode::MethodNotAllowed => tonic::Code::Unimplemented,
        ErrorCode::DeadlineExceeded | ErrorCode::TimedOut => tonic::Code::DeadlineExceeded,
        ErrorCode::Unavailable => tonic::Code::Unavailable,
        ErrorCode::UnsupportedMediaType => tonic::Code::InvalidArgument,
        ErrorCode::Overloaded => tonic::Code::ResourceExhausted,
        ErrorCode::Internal => tonic::Code::Internal,
    }
}

/// The HTTP status of `code`.
pub fn http_status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::InvalidArgument => StatusCode::BAD_REQUEST,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::FailedPrecondition | ErrorCode::Aborted => StatusCode::CONFLICT,
        ErrorCode::Unauthenticated => StatusCode::UNAUTHORIZED,
        ErrorCode::PermissionDenied => StatusCode::FORBIDDEN,
        ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::DeadlineExceeded => StatusCode::REQUEST_TIMEOUT,
        ErrorCode::Unavailable | ErrorCode::Overloaded => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ErrorCode::TimedOut => StatusCode::GATEWAY_TIMEOUT,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<ApiError> for tonic::Status {
    fn from(err: ApiError) -> Self {
        log(&err);
        let code = grpc_code(err.code());
        let message = err.grpc_message();
        if let Some(retry_after) = err.retry_after() {
            // google.rpc.RetryInfo: how long the client should wait before retrying.
            let details = ErrorDetails::with_retry_info(Some(retry_after));
            return tonic::Status::with_error_details(code, message, details);
        }
        match err.grpc_field() {
            Some(field) => {
                let details = ErrorDetails::with_bad_request_violation(field, message.clone());
                tonic::Status::with_error_details(code, message, details)
            }
            None => tonic::Status::new(code, message),
        }
    }
}

/// Lets handlers use `?` on domain errors on both surfaces: each converts through
/// [`ApiError`] (its class, field and message) into a gRPC status or an HTTP answer.
macro_rules! answered_at_the_edge {
    ($($domain:ty),* $(,)?) => {$(
        impl From<$domain> for tonic::Status {
            fn from(err: $domain) -> Self {
                ApiError::from(err).into()
            }
        }

        impl IntoResponse for $domain {
            fn into_response(self) -> Response {
                ApiError::from(self).into_response()
            }
        }
    )*};
}

answered_at_the_edge!(
    crate::query::QueryError,
    crate::mesh::MeshError,
    crate::world::RegistryError,
    crate::world::error::UnknownWorld,
    crate::events::EventError,
    crate::auth::Unauthenticated,
);

/// The HTTP error body: `{"error": {"code", "message", "field"}}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({"error": {"code": "INVALID_ARGUMENT", "message": "x: required query parameter is missing", "field": "x"}}))]
pub(crate) struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

/// One refusal.
#[derive(Debug, Serialize, utoipa::ToSchema)]
struct ErrorDetail<'a> {
    /// The class, as the gRPC code name: `INVALID_ARGUMENT`, `NOT_FOUND`,
    /// `RESOURCE_EXHAUSTED`, `FAILED_PRECONDITION`, `ABORTED`, `UNAUTHENTICATED`,
    /// `PERMISSION_DENIED`, `METHOD_NOT_ALLOWED`, `DEADLINE_EXCEEDED`, `UNAVAILABLE` or `INTERNAL`.
    code: &'static str,
    /// What is wrong, starting with the field when one is to blame.
    message: String,
    /// The request field at fault (`x`, `points[3]`, `body`, `content-type`,
    /// `authorization`, `origin`, ...), when there is one.
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
        let unread_body = matches!(
            self,
            ApiError::BodyTooLarge { .. } | ApiError::BodyTimedOut { .. }
        );
        let mut response = (http_status(code), Json(body)).into_response();
        if code == ErrorCode::Unauthenticated {
            // RFC 6750: tell the client which scheme to use.
            response
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if let Some(retry_after) = self.retry_after() {
            let seconds = retry_after.as_secs_f64().ceil().max(1.0) as u64;
            response
                .headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from(seconds));
        }
        if unread_body {
            // The rest of the body is never read, so the connection cannot carry another
            // request: say so, or a client that reuses it fails its next request.
            response
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

/// Client mistakes are logged at debug level (they are the client's business); internal
/// errors at error level.
fn log(err: &ApiError) {
    match err.code() {
        ErrorCode::Internal => tracing::error!(error = %err, "request failed"),
        code => tracing::debug!(error = %err, code = code.as_str(), "request refused"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_starts_with_the_field() {
        let err = ApiError::invalid("points[3]", "z must be finite");
        assert_eq!(err.to_string(), "points[3]: z must be finite");
        assert_eq!(err.field(), Some("points[3]"));
        let err = ApiError::from(crate::world::UnknownWorld {
            id: "x".into(),
            hosted: "main".into(),
        });
        assert!(err.to_string().starts_with("world: "), "{err}");
    }

    #[test]
    fn zone_errors_keep_their_field() {
        let err =
            ApiError::from_service(&terrain_core::zones::ZoneError::NotFinite { field: "centerX" });
        assert_eq!(err.field(), Some("centerX"));
        assert_eq!(err.to_string(), "centerX: must be a finite number");
        let err = ApiError::from_service(&terrain_core::zones::ZoneError::BadId("a b".into()));
        assert_eq!(err.field(), Some("id"));
        assert!(err.to_string().starts_with("id: must match"), "{err}");
    }

    #[test]
    fn domain_errors_convert_with_code_and_field() {
        let err: ApiError = terrain_core::zones::ZoneError::NotFinite { field: "height" }.into();
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert_eq!(err.field(), Some("height"));
    }

    #[test]
    fn both_surfaces_agree_on_each_class() {
        let cases = [
            (
                ApiError::invalid("x", "must be finite"),
                tonic::Code::InvalidArgument,
                400,
            ),
            (
                ApiError::from(crate::world::UnknownWorld {
                    id: "nope".into(),
                    hosted: "main".into(),
                }),
                tonic::Code::NotFound,
                404,
            ),
            (
                ApiError::too_large("points", "too many"),
                tonic::Code::ResourceExhausted,
                413,
            ),
            (
                ApiError::from(crate::world::RegistryError::Full {
                    world: "main".into(),
                    max: 1,
                }),
                tonic::Code::ResourceExhausted,
                429,
            ),
            (
                ApiError::from(crate::lifecycle::LifecycleError::OwnedElsewhere {
                    id: "b".into(),
                    by: "TrackViewers stream",
                }),
                tonic::Code::FailedPrecondition,
                409,
            ),
            (
                ApiError::from(crate::world::RegistryError::Contended),
                tonic::Code::Aborted,
                409,
            ),
            (
                ApiError::Unauthenticated("missing bearer token"),
                tonic::Code::Unauthenticated,
                401,
            ),
            (
                ApiError::from(crate::query::QueryError::UnknownZone {
                    world: "main".into(),
                    id: "a".into(),
                }),
                tonic::Code::NotFound,
                404,
            ),
            (
                ApiError::Unavailable("shutting down"),
                tonic::Code::Unavailable,
                503,
            ),
            (
                ApiError::UnsupportedMediaType {
                    got: "text/plain".into(),
                    expected: "application/json",
                },
                tonic::Code::InvalidArgument,
                415,
            ),
            (
                ApiError::Overloaded {
                    limit: 4,
                    retry_after: std::time::Duration::from_secs(1),
                },
                tonic::Code::ResourceExhausted,
                503,
            ),
            (
                ApiError::TimedOut {
                    timeout: std::time::Duration::from_secs(30),
                },
                tonic::Code::DeadlineExceeded,
                504,
            ),
        ];
        for (err, grpc, http) in cases {
            assert_eq!(grpc_code(err.code()), grpc, "{err}");
            assert_eq!(http_status(err.code()).as_u16(), http, "{err}");
            assert_eq!(tonic::Status::from(err.clone()).code(), grpc);
        }
    }

    #[test]
    fn an_unread_body_closes_the_connection() {
        let response = ApiError::BodyTooLarge { limit: 16 }.into_response();
        assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(response.headers()[CONNECTION], "close");
        let response = ApiError::too_large("points", "too many").into_response();
        assert!(response.headers().get(CONNECTION).is_none());
    }

    #[test]
    fn an_overloaded_answer_says_when_to_retry() {
        let err = ApiError::Overloaded {
            limit: 4,
            retry_after: std::time::Duration::from_millis(1500),
        };
        let response = err.clone().into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[RETRY_AFTER], "2");
        let status = tonic::Status::from(err);
        let retry = status.get_details_retry_info().expect("a RetryInfo detail");
        assert_eq!(
            retry.retry_delay,
            Some(std::time::Duration::from_millis(1500))
        );
    }

    #[test]
    fn grpc_names_fields_as_the_proto_does() {
        for (json, proto) in [
            ("tileMask", "tile_mask"),
            ("fromRevision", "from_revision"),
            ("fromEpoch", "from_epoch"),
            ("minTileX", "min_tile_x"),
            ("centerX", "center_x"),
            ("heightOffset", "height_offset"),
            ("viewWidth", "view_width"),
            ("pageToken", "page_token"),
            ("points[3]", "points[3]"),
            ("coordinates[7]", "coordinates[7]"),
            ("nx*nz", "nx*nz"),
            ("x", "x"),
            ("chunk_x", "chunk_x"),
        ] {
            assert_eq!(grpc_field(json), proto);
        }
        // The field violation and the message's leading field, not the rest.
        let status = tonic::Status::from(ApiError::invalid(
            "minTileX",
            "minTileX + width must be within max_coordinate",
        ));
        let bad = status
            .get_details_bad_request()
            .expect("a BadRequest detail");
        assert_eq!(bad.field_violations[0].field, "min_tile_x");
        assert_eq!(
            status.message(),
            "min_tile_x: minTileX + width must be within max_coordinate"
        );
        let zone = ApiError::from(terrain_core::zones::ZoneError::Negative {
            field: "blendRadius",
            value: -1.0,
        });
        let status = tonic::Status::from(zone.clone());
        assert_eq!(
            status.message(),
            "blend_radius: must not be negative (got -1)"
        );
        // HTTP keeps the JSON spelling.
        assert_eq!(zone.field(), Some("blendRadius"));
        assert!(zone.to_string().starts_with("blendRadius: "));
    }

    #[test]
    fn the_field_travels_in_status_details() {
        let status = tonic::Status::from(ApiError::invalid("points[3]", "z must be finite"));
        let bad = status
            .get_details_bad_request()
            .expect("a BadRequest detail");
        assert_eq!(bad.field_violations.len(), 1);
        assert_eq!(bad.field_violations[0].field, "points[3]");
        assert_eq!(status.message(), "points[3]: z must be finite");
        let status = tonic::Status::from(ApiError::Internal("lost".into()));
        assert!(status.get_details_bad_request().is_none());
    }
}
