//! Typed client errors, mapped from gRPC statuses. The field of an invalid argument
//! is read from the status details (`google.rpc.BadRequest`), which the server sends
//! with every refusal that names a field; the message is never parsed for it.

#[cfg(feature = "net")]
use tonic_types::StatusExt as _;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// The request was refused as malformed or out of range; `field` names the
    /// offending request field (e.g. `x`, `coordinates[3]`, `nx`), or is empty when the
    /// server named none.
    #[error("invalid argument {field}: {message}")]
    InvalidArgument { field: String, message: String },
    /// The world (or other named thing) does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// Missing or wrong credentials.
    #[error("unauthenticated: {0}")]
    Unauthenticated(String),
    /// The caller is authenticated but not allowed to do this.
    #[error("permission denied: {0}")]
    PermissionDenied(String),
    /// The request exceeds a server limit: a size (batch, message, heightmap) or a
    /// capacity (zones per world, viewers per world).
    #[error("resource exhausted: {0}")]
    ResourceExhausted(String),
    /// The request conflicts with the current state, and repeating it unchanged will
    /// not help until that state changes: e.g. a viewer owned by another
    /// `TrackViewers` stream. Not transient.
    #[error("failed precondition: {0}")]
    FailedPrecondition(String),
    /// The server gave up on a write that kept losing its compare-and-swap against
    /// concurrent writers of the same world (its retries were exhausted). Transient: a
    /// later attempt may succeed. Idempotent calls are retried by the
    /// [`RetryPolicy`](crate::RetryPolicy); mutations (`register_flat_zone`,
    /// `unregister_flat_zone`) never are, so a caller that gets this from one decides
    /// whether to retry it.
    #[error("aborted: {0}")]
    Aborted(String),
    /// The server could not be reached, is not ready or is shutting down. Idempotent
    /// calls have already been retried by the time this is returned.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// The call did not finish within its deadline.
    #[error("deadline exceeded: {0}")]
    DeadlineExceeded(String),
    /// The server's answer does not make sense (a field missing or out of its
    /// domain); names what is wrong.
    #[error("malformed answer: {0}")]
    Protocol(String),
    /// The URL could not be parsed.
    #[error("invalid url {url:?}: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// The CA file of an `https://` URL ([`ClientBuilder::ca_file`](crate::ClientBuilder::ca_file))
    /// could not be read or holds no PEM certificate; names the path.
    #[error("ca_file {path}: {reason}")]
    CaFile { path: String, reason: String },
    /// TLS could not be set up: the server's certificate was refused (not signed by
    /// the CA given, or not for the host name), or an `https://` URL was given without
    /// a CA. Not transient: the same settings fail the same way.
    #[error("tls: {0}")]
    Tls(String),
    /// Any other status.
    #[cfg(feature = "net")]
    #[error("{code:?}: {message}")]
    Other { code: tonic::Code, message: String },
}

impl ClientError {
    /// True for failures that may succeed if the same call is made again, later:
    /// `Unavailable` (server down, not ready, connection lost), `DeadlineExceeded`
    /// (including a cancelled call) and `Aborted` (a write lost to concurrent writers).
    /// The [`RetryPolicy`](crate::RetryPolicy) retries idempotent calls on these;
    /// subscriptions and replicas reconnect on them. Everything else is an answer
    /// about the request itself, and repeating it unchanged gets the same answer.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            ClientError::Unavailable(_)
                | ClientError::DeadlineExceeded(_)
                | ClientError::Aborted(_)
        )
    }
}

/// A movement request over its limits ([`terrain_core::walk::limits`]): a size limit
/// is [`ClientError::ResourceExhausted`], as the server's `RESOURCE_EXHAUSTED`.
impl From<terrain_core::walk::limits::LimitError> for ClientError {
    fn from(e: terrain_core::walk::limits::LimitError) -> Self {
        if e.too_large {
            ClientError::ResourceExhausted(format!("{}: {}", e.field, e.reason))
        } else {
            ClientError::InvalidArgument {
                field: e.field,
                message: e.reason,
            }
        }
    }
}

#[cfg(feature = "net")]
impl From<tonic::Status> for ClientError {
    fn from(s: tonic::Status) -> Self {
        let message = s.message().to_string();
        if let Some(failed) = connection_failure(&s) {
            return failed;
        }
        match s.code() {
            tonic::Code::InvalidArgument => {
                let field = s
                    .get_details_bad_request()
                    .and_then(|b| b.field_violations.into_iter().next())
                    .map(|v| v.field)
                    .unwrap_or_default();
                ClientError::InvalidArgument { field, message }
            }
            tonic::Code::NotFound => ClientError::NotFound(message),
            tonic::Code::Unauthenticated => ClientError::Unauthenticated(message),
            tonic::Code::PermissionDenied => ClientError::PermissionDenied(message),
            tonic::Code::ResourceExhausted => ClientError::ResourceExhausted(message),
            tonic::Code::FailedPrecondition => ClientError::FailedPrecondition(message),
            tonic::Code::Aborted => ClientError::Aborted(message),
            tonic::Code::Unavailable => ClientError::Unavailable(message),
            tonic::Code::DeadlineExceeded | tonic::Code::Cancelled => {
                ClientError::DeadlineExceeded(message)
            }
            code => ClientError::Other { code, message },
        }
    }
}

#[cfg(feature = "net")]
/// The error of a status tonic made from the connection's own failure, which the
/// server never sent: `Unavailable` (transient) for an HTTP/2 reset or GOAWAY as the
/// server went down (`INTERNAL` by gRPC's mapping of h2 errors) or a socket that broke
/// under the call (`UNKNOWN`, "transport error"); `Tls` when the TLS layer refused
/// the server, which no retry mends. The cause sits anywhere down the status's
/// sources (hyper's error wraps h2's and the socket's). `None` for a status the
/// server sent.
fn connection_failure(s: &tonic::Status) -> Option<ClientError> {
    let causes = crate::tls::Causes::of(s.message().to_string(), std::error::Error::source(s));
    if causes.tls {
        return Some(ClientError::Tls(causes.text));
    }
    causes
        .transport
        .then(|| ClientError::Unavailable(s.message().to_string()))
}

#[cfg(feature = "net")]
impl From<tonic::transport::Error> for ClientError {
    fn from(e: tonic::transport::Error) -> Self {
        ClientError::Unavailable(e.to_string())
    }
}

#[cfg(all(test, feature = "net"))]
mod tests {
    use tonic::{Code, Status};
    use tonic_types::ErrorDetails;

    use super::*;

    #[test]
    fn invalid_argument_carries_the_field_of_the_details() {
        let message = "coordinates[3]: must be finite";
        let details = ErrorDetails::with_bad_request_violation("coordinates[3]", message);
        let status = Status::with_error_details(Code::InvalidArgument, message, details);
        let e = ClientError::from(status);
        assert_eq!(
            e,
            ClientError::InvalidArgument {
                field: "coordinates[3]".into(),
                message: message.into()
            }
        );
        assert!(!e.is_transient());
    }

    /// A stream cut by the server going away reaches the client as a status tonic
    /// builds from the h2 error (`INTERNAL` for a reset without a gRPC status): the
    /// server sent nothing, so it is `Unavailable` and retried. A status the server
    /// sends with the same code stays what it is.
    #[test]
    fn a_connection_that_failed_is_unavailable_not_internal() {
        let cut = Status::from_error(Box::new(h2::Error::from(h2::Reason::NO_ERROR)));
        assert_eq!(cut.code(), Code::Internal);
        let e = ClientError::from(cut);
        assert!(matches!(e, ClientError::Unavailable(_)), "{e:?}");
        assert!(e.is_transient());
        let sent = ClientError::from(Status::internal("h2 protocol error: made up"));
        assert!(
            matches!(
                sent,
                ClientError::Other {
                    code: Code::Internal,
                    ..
                }
            ),
            "{sent:?}"
        );
        assert!(!sent.is_transient());
    }

    /// A response body cut mid-stream: tonic's status has hyper's error as its
    /// source, and the h2 error one step further down (`Internal: h2 protocol error:
    /// http2 error`, as a replica saw when its server stopped).
    #[test]
    fn a_connection_failure_deeper_in_the_source_chain_is_unavailable_too() {
        #[derive(Debug)]
        struct Http2(h2::Error);
        impl std::fmt::Display for Http2 {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("http2 error")
            }
        }
        impl std::error::Error for Http2 {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let mut cut = Status::internal("h2 protocol error: http2 error");
        cut.set_source(std::sync::Arc::new(Http2(h2::Reason::NO_ERROR.into())));
        let e = ClientError::from(cut);
        assert_eq!(
            e,
            ClientError::Unavailable("h2 protocol error: http2 error".into())
        );
        assert!(e.is_transient());
    }

    #[test]
    fn the_field_is_not_read_from_the_message() {
        // Without details there is no field, whatever the message looks like.
        let e = ClientError::from(Status::invalid_argument("coordinates[3]: must be finite"));
        assert_eq!(
            e,
            ClientError::InvalidArgument {
                field: String::new(),
                message: "coordinates[3]: must be finite".into()
            }
        );
        // Details of another kind carry no field either.
        let details =
            ErrorDetails::with_error_info("BAD", "terrain", std::collections::HashMap::new());
        let e = ClientError::from(Status::with_error_details(
            Code::InvalidArgument,
            "bad",
            details,
        ));
        assert!(
            matches!(&e, ClientError::InvalidArgument { field, .. } if field.is_empty()),
            "{e:?}"
        );
    }

    #[test]
    fn codes_map_to_variants_and_transience() {
        let cases = [
            (
                Status::not_found("world"),
                ClientError::NotFound("world".into()),
                false,
            ),
            (
                Status::resource_exhausted("zones"),
                ClientError::ResourceExhausted("zones".into()),
                false,
            ),
            (
                Status::failed_precondition("viewer v is owned by another stream"),
                ClientError::FailedPrecondition("viewer v is owned by another stream".into()),
                false,
            ),
            (
                Status::aborted("gave up after 8 conflicts"),
                ClientError::Aborted("gave up after 8 conflicts".into()),
                true,
            ),
            (
                Status::unavailable("down"),
                ClientError::Unavailable("down".into()),
                true,
            ),
            (
                Status::cancelled("gone"),
                ClientError::DeadlineExceeded("gone".into()),
                true,
            ),
            (
                Status::internal("bug"),
                ClientError::Other {
                    code: Code::Internal,
                    message: "bug".into(),
                },
                false,
            ),
        ];
        for (status, expected, transient) in cases {
            let e = ClientError::from(status);
            assert_eq!(e, expected);
            assert_eq!(e.is_transient(), transient, "{e:?}");
        }
    }
}
