//! Why the registry refused or failed a mutation: [`RegistryError`], with its class
//! and field for the edge ([`ServiceError`]). The field of a refused zone travels
//! structurally (from [`ZoneError::field`]), never recovered from the message.

use terrain_core::{quote::Quoted, zones::ZoneError};

use crate::{
    error::{ErrorCode, ServiceError},
    store::log::LogError,
};

/// No world with this id is hosted here (`NOT_FOUND`, field `world`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("world: no world {} on this server (hosted: {hosted})", Quoted(.id))]
pub struct UnknownWorld {
    pub id: String,
    /// The hosted ids, comma separated, to help the caller fix a typo.
    pub hosted: String,
}

impl ServiceError for UnknownWorld {
    fn error_code(&self) -> ErrorCode {
        ErrorCode::NotFound
    }

    fn field(&self) -> Option<&str> {
        Some("world")
    }
}

/// Why a register or remove call did not happen.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegistryError {
    /// The zone (or its id) breaks an invariant or a limit; names the field.
    #[error(transparent)]
    Zone(#[from] ZoneError),
    /// An id inside the zone differs from the id it is registered as.
    #[error(
        "id: {} in the zone differs from {} it is registered as",
        Quoted(.inner),
        Quoted(.id)
    )]
    IdMismatch { inner: String, id: String },
    /// No zone with this id is registered.
    #[error("id: no flat zone {} in world {world:?}", Quoted(.id))]
    UnknownZone { world: String, id: String },
    /// The world holds as many zones as it may (`RESOURCE_EXHAUSTED`, HTTP 429).
    #[error("zones: world {world:?} already holds {max} zones, the limit per world")]
    Full { world: String, max: usize },
    /// Every compare-and-swap attempt lost to a concurrent change (`ABORTED`).
    #[error("zone store: the zone keeps changing concurrently; try again")]
    Contended,
    /// The zone log cannot be reached: mutations wait until it is back.
    #[error(
        "zone store unreachable (NATS): mutations are refused until it is back; reads \
         continue from the last applied state"
    )]
    Unreachable,
    /// The log did not acknowledge the proposal.
    #[error("zone store (NATS) did not acknowledge the change; try again")]
    NotAcknowledged,
    /// The zone's record is larger than the shared log takes (`INVALID_ARGUMENT`,
    /// field `tileMask`: only a large tile mask makes a record this large).
    #[error(
        "tileMask: the zone's record is {bytes} bytes, over the NATS server's max_payload \
         of {max} bytes (the largest legal mask needs up to 2 MiB: raise max_payload, or \
         register a smaller mask)"
    )]
    TooLarge { bytes: usize, max: usize },
    /// After a lost race, this server did not catch up with the log in time.
    #[error("zone store: this replica is behind; try again")]
    Behind,
    /// The server is shutting down.
    #[error("shutting down: {0}")]
    ShuttingDown(&'static str),
    /// The world's log is not followed yet (start-up has not finished).
    #[error("the world's zone log is not open yet")]
    NotStarted,
    /// Not the client's fault: a bug, a lost task, a store failure.
    #[error("internal error: {0}")]
    Internal(String),
}

impl RegistryError {
    /// The error for a proposal the log did not store.
    pub(super) fn not_stored(e: LogError) -> Self {
        tracing::info!(error = %e, "zone store write failed");
        match e {
            LogError::Closed => RegistryError::ShuttingDown("the zone store is closed"),
            LogError::Unreachable(_) => RegistryError::Unreachable,
            LogError::NotAcknowledged(_) => RegistryError::NotAcknowledged,
            LogError::TooLarge { bytes, max } => RegistryError::TooLarge { bytes, max },
            LogError::Conflict(_) => RegistryError::Contended,
            other @ (LogError::Failed { .. } | LogError::Poison { .. }) => {
                RegistryError::Internal(other.to_string())
            }
        }
    }
}

impl ServiceError for RegistryError {
    fn error_code(&self) -> ErrorCode {
        match self {
            RegistryError::Zone(_)
            | RegistryError::IdMismatch { .. }
            | RegistryError::TooLarge { .. } => ErrorCode::InvalidArgument,
            RegistryError::UnknownZone { .. } => ErrorCode::NotFound,
            RegistryError::Full { .. } => ErrorCode::ResourceExhausted,
            RegistryError::Contended => ErrorCode::Aborted,
            RegistryError::Unreachable
            | RegistryError::NotAcknowledged
            | RegistryError::Behind
            | RegistryError::ShuttingDown(_)
            | RegistryError::NotStarted => ErrorCode::Unavailable,
            RegistryError::Internal(_) => ErrorCode::Internal,
        }
    }

    fn field(&self) -> Option<&str> {
        match self {
            RegistryError::Zone(e) => Some(e.field()),
            RegistryError::IdMismatch { .. } | RegistryError::UnknownZone { .. } => Some("id"),
            RegistryError::Full { .. } => Some("zones"),
            RegistryError::TooLarge { .. } => Some("tileMask"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_fields_are_structural() {
        let cases = [
            (
                RegistryError::Zone(ZoneError::NotFinite { field: "centerX" }),
                ErrorCode::InvalidArgument,
                Some("centerX"),
            ),
            (
                RegistryError::UnknownZone {
                    world: "main".into(),
                    id: "a".into(),
                },
                ErrorCode::NotFound,
                Some("id"),
            ),
            (
                RegistryError::Full {
                    world: "main".into(),
                    max: 2,
                },
                ErrorCode::ResourceExhausted,
                Some("zones"),
            ),
            (RegistryError::Contended, ErrorCode::Aborted, None),
            (RegistryError::Unreachable, ErrorCode::Unavailable, None),
            (
                RegistryError::not_stored(LogError::Closed),
                ErrorCode::Unavailable,
                None,
            ),
            (
                RegistryError::Internal("lost".into()),
                ErrorCode::Internal,
                None,
            ),
        ];
        for (err, code, field) in cases {
            assert_eq!((err.error_code(), err.field()), (code, field), "{err}");
            // The message starts with the field, where there is one.
            if let Some(field) = field {
                assert!(err.to_string().starts_with(&format!("{field}: ")), "{err}");
            }
        }
        assert_eq!(
            RegistryError::Full {
                world: "main".into(),
                max: 2
            }
            .to_string(),
            r#"zones: world "main" already holds 2 zones, the limit per world"#
        );
    }
}
