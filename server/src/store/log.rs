//! The zone log: the ordered, compare-and-swap log of one world's zone changes that
//! every mutation goes through, whoever stores it.
//!
//! A writer *proposes* a [`Write`] with the revision it expects the zone's key to have
//! ([`Proposal::expected`]); the log refuses it with [`LogError::Conflict`] if the key
//! was written since, and otherwise stores it durably (fsync, or a JetStream ack) and
//! answers the world revision it took. Nobody applies a write on the strength of the
//! answer alone: every replica (the proposer's included) *follows* the log from a
//! revision ([`ZoneLog::follow`]) and applies each entry in order (see
//! [`crate::world::follow`]). With one server and the embedded store the log is the
//! server's own file; with many it is shared; the code above it is the same.
//!
//! Implementations:
//! - [`super::embedded::EmbeddedLog`]: a world of the embedded redb store
//!   (`data_dir/terrain.redb`); proposing commits the zone table, the revision and the
//!   log entry in one fsynced transaction.
//! - [`super::nats::Bucket`]: a NATS JetStream key-value bucket shared by replicas.
//! - [`super::memory::MemoryLog`]: in memory, for unit tests of replication (lost
//!   races, poison entries).
//!
//! # Epochs
//! Revision numbers alone cannot tell two histories of a world apart: a server
//! restored from a backup, or restarted on an empty data directory, counts the same
//! revisions again with other changes. Every log therefore has an *epoch*
//! ([`ZoneLog::epoch`]): the moment its history began, the same for every replica
//! following it (the embedded store's, minted when a store first holds the world;
//! a NATS bucket's, its stream's creation time). A subscriber resuming from a
//! revision names the epoch it got that revision in; another epoch is answered with
//! `resync` (see [`crate::events`]).
//!
//! # Poison entries
//! An entry that does not decode (something other than a terrain server wrote it) is
//! delivered as [`LogError::Poison`] in its place, and the feed goes on after it: the
//! follower logs it, counts it and skips it; see [`crate::world::follow`].

use std::{fmt, time::Duration};

use futures::{future::BoxFuture, stream::BoxStream};
use terrain_core::FlatZone;

use crate::error::{ErrorCode, ServiceError};

/// What a log entry (or a proposal) writes to one zone key.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// The zone, registered or replacing the one under its id (height resolved).
    Put(FlatZone),
    /// The removal of the zone with this id.
    Delete(String),
}

impl Write {
    /// The zone id this write is about.
    pub fn id(&self) -> &str {
        match self {
            Write::Put(zone) => &zone.id,
            Write::Delete(id) => id,
        }
    }
}

/// A change proposed to the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub write: Write,
    /// The revision the zone's key must still have: the revision of the last entry
    /// that wrote it (a removal included), 0 for a key never written.
    pub expected: u64,
}

/// One entry of a world's log, as a follower receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The world's revision after this entry.
    pub revision: u64,
    /// Entries after this one that were already in the log when it was delivered (0:
    /// it is the newest known).
    pub pending: u64,
    pub write: Write,
}

/// Why a proposal or a feed failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LogError {
    /// The zone's key was written since the proposer read it: plan again.
    #[error("zone {0:?} was changed concurrently")]
    Conflict(String),
    /// The log cannot be reached now (shared store down).
    #[error("zone log {0}: unreachable")]
    Unreachable(String),
    /// The log did not acknowledge the write: it is not stored (or its outcome is
    /// unknown after a time-out; the feed tells).
    #[error("zone log: write not acknowledged: {0}")]
    NotAcknowledged(String),
    /// The log was closed (the server is shutting down).
    #[error("zone log: closed (shutting down)")]
    Closed,
    /// The record is larger than the log takes (NATS `max_payload`): not stored.
    #[error("zone log: a record of {bytes} bytes is over the log's limit of {max}")]
    TooLarge { bytes: usize, max: usize },
    /// A request to the log or the feed failed; following starts again.
    #[error("zone log {log}: {reason}")]
    Failed { log: String, reason: String },
    /// The entry at `revision` does not decode. The feed goes on after it.
    #[error("zone log {log}: entry {revision} does not decode: {reason}")]
    Poison {
        log: String,
        revision: u64,
        reason: String,
    },
}

impl ServiceError for LogError {
    fn error_code(&self) -> ErrorCode {
        match self {
            LogError::Conflict(_) => ErrorCode::Aborted,
            LogError::TooLarge { .. } => ErrorCode::InvalidArgument,
            LogError::Unreachable(_) | LogError::NotAcknowledged(_) | LogError::Closed => {
                ErrorCode::Unavailable
            }
            LogError::Failed { .. } | LogError::Poison { .. } => ErrorCode::Internal,
        }
    }
}

/// A fresh epoch: now, in nanoseconds since the Unix epoch (never 0). Two histories
/// begun in different nanoseconds differ; a server starts a world's history once.
pub fn new_epoch() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos());
    (nanos as u64).max(1)
}

/// An epoch as the API carries it: 16 lower-case hex digits (a string, so JavaScript
/// clients hold it exactly).
pub fn epoch_text(epoch: u64) -> String {
    format!("{epoch:016x}")
}

/// A world's log from some revision on, in revision order. An item is an entry, a
/// [`LogError::Poison`] in place of an entry (the feed goes on), or another error
/// (the feed ended; follow again from the last applied revision).
pub type Feed = BoxStream<'static, Result<Entry, LogError>>;

/// One world's zone log; see the module docs.
pub trait ZoneLog: Send + Sync + fmt::Debug + 'static {
    /// A name for messages and logs: the bucket, or the store file and world.
    fn name(&self) -> &str;

    /// The log's epoch (see the module docs), as [`epoch_text`] writes it.
    fn epoch(&self) -> &str;

    /// Whether proposing already stored the entry in this server's zone store (the
    /// embedded log), so applying it records nothing more locally. False for a log
    /// held elsewhere: the server's store then keeps a copy of what it applied.
    fn is_local(&self) -> bool;

    /// Whether the log can be reached now.
    fn connected(&self) -> bool {
        true
    }

    /// Waits for the log to be reachable, for at most `bound`; false if it stays down.
    fn wait_connected(&self, bound: Duration) -> BoxFuture<'_, bool> {
        let _ = bound;
        Box::pin(std::future::ready(self.connected()))
    }

    /// Stores `proposal` if its key still has the expected revision, durably; answers
    /// the world revision it took.
    fn propose(&self, proposal: Proposal) -> BoxFuture<'_, Result<u64, LogError>>;

    /// The revision of the last entry that wrote zone `id` (a removal included), if
    /// any.
    fn key_revision<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<u64>, LogError>>;

    /// The world's last revision as the log knows it.
    fn last_revision(&self) -> BoxFuture<'_, Result<u64, LogError>>;

    /// The log from revision `from` on (inclusive), then every later entry as it is
    /// stored.
    fn follow(&self, from: u64) -> BoxFuture<'_, Result<Feed, LogError>>;
}
