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
//! | `MethodNotAllowed` | `UNIMPLEMENTED` | 405 |
//! | `Unavailable` | `UNAVAILABLE` | 503 |
//! | `Internal` | `INTERNAL` | 500 |
//!
//! HTTP answers carry `{"error": {"code", "message", "field"}}`. gRPC answers carry the
//! same message and, when a field is to blame, a `google.rpc.BadRequest` with one field
//! violation (`field`, `description`) in the status details, so clients read the field
//! without parsing the message.

use axum::{
    Json,
    http::{HeaderValue, StatusCode, header::WWW_AUTHENTICATE},
    response::{IntoResponse, Response},
};
use serde::Serialize;
use tonic_types::{ErrorDetails, StatusExt};

use crate::error::{ApiError, ErrorCode};

/// The gRPC status code of `code`.
pub fn grpc_code(code: ErrorCode) -> tonic::Code {
    match code {
        ErrorCode::InvalidArgument => tonic::Code::InvalidArgument,
        ErrorCode::NotFound => tonic::Code::NotFound,
        ErrorCode::ResourceExhausted | ErrorCode::TooLarge => tonic::Code::ResourceExhausted,
        ErrorCode::FailedPrecondition => tonic::Code::FailedPrecondition,
        ErrorCode::Aborted => tonic::Code::Aborted,
        ErrorCode::Unauthenticated => tonic::Code::Unauthenticated,
        ErrorCode::MethodNotAllowed => tonic::Code::Unimplemented,
        ErrorCode::Unavailable => tonic::Code::Unavailable,
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
        ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<ApiError> for tonic::Status {
    fn from(err: ApiError) -> Self {
        log(&err);
        let code = grpc_code(err.code());
        let message = err.to_string();
        match err.field() {
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

answered_at_the_edge!(crate::query::QueryError, crate::mesh::MeshError,);

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
        let mut response = (http_status(code), Json(body)).into_response();
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
        code => tracing::debug!(error = %err, code = code.as_str(), "request refused"),
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
                ApiError::capacity("zones", "the world is full"),
                tonic::Code::ResourceExhausted,
                429,
            ),
            (
                ApiError::failed_precondition("id", "owned by another stream"),
                tonic::Code::FailedPrecondition,
                409,
            ),
            (
                ApiError::Aborted("the zone keeps changing"),
                tonic::Code::Aborted,
                409,
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
            assert_eq!(grpc_code(err.code()), grpc, "{err}");
            assert_eq!(http_status(err.code()).as_u16(), http, "{err}");
            assert_eq!(tonic::Status::from(err.clone()).code(), grpc);
        }
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
