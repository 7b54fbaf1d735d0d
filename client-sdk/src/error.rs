//! Typed client errors, mapped from gRPC statuses.

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// The request was refused as malformed or out of range; `field` names the
    /// offending request field (e.g. `x`, `coordinates[3]`, `nx`).
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
    /// The request exceeds a server limit (batch size, message size).
    #[error("resource exhausted: {0}")]
    ResourceExhausted(String),
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
    /// Any other status.
    #[error("{code:?}: {message}")]
    Other { code: tonic::Code, message: String },
}

impl ClientError {
    /// True for failures that may succeed if the same call is made again.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            ClientError::Unavailable(_) | ClientError::DeadlineExceeded(_)
        )
    }
}

impl From<tonic::Status> for ClientError {
    fn from(s: tonic::Status) -> Self {
        let message = s.message().to_string();
        match s.code() {
            tonic::Code::InvalidArgument => {
                // The server starts the message with the field: "x: must be finite".
                let field = message
                    .split_once(": ")
                    .map(|(f, _)| f.to_string())
                    .unwrap_or_default();
                ClientError::InvalidArgument { field, message }
            }
            tonic::Code::NotFound => ClientError::NotFound(message),
            tonic::Code::Unauthenticated => ClientError::Unauthenticated(message),
            tonic::Code::PermissionDenied => ClientError::PermissionDenied(message),
            tonic::Code::ResourceExhausted => ClientError::ResourceExhausted(message),
            tonic::Code::Unavailable => ClientError::Unavailable(message),
            tonic::Code::DeadlineExceeded | tonic::Code::Cancelled => {
                ClientError::DeadlineExceeded(message)
            }
            code => ClientError::Other { code, message },
        }
    }
}

impl From<tonic::transport::Error> for ClientError {
    fn from(e: tonic::transport::Error) -> Self {
        ClientError::Unavailable(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_argument_carries_the_field() {
        let e = ClientError::from(tonic::Status::invalid_argument(
            "coordinates[3]: must be finite",
        ));
        assert_eq!(
            e,
            ClientError::InvalidArgument {
                field: "coordinates[3]".into(),
                message: "coordinates[3]: must be finite".into()
            }
        );
        assert!(!e.is_transient());
        assert!(ClientError::from(tonic::Status::unavailable("down")).is_transient());
        assert_eq!(
            ClientError::from(tonic::Status::not_found("world")),
            ClientError::NotFound("world".into())
        );
    }
}
