//! The shared store: NATS JetStream key-value, one bucket per world.
//!
//! | bucket | key | value |
//! | --- | --- | --- |
//! | `{bucket}-{world}` | the zone id, `.` and `:` escaped as `=2E` and `=3A` | the zone's JSON (height resolved), or a `DEL` marker for a removal |
//!
//! The bucket's stream sequence is the world's revision: every mutation is one message,
//! so the sequence counts the world's mutations and every replica sees the same
//! numbers. A key's revision (the sequence that last wrote it) is the revision that
//! registered the zone, or that removed it.
//!
//! Writes are compare-and-swap on the key's revision (JetStream's
//! `Nats-Expected-Last-Subject-Sequence`): a proposal names the revision it saw, and
//! JetStream refuses it if another replica wrote the key since. Each proposal carries
//! a unique `Nats-Msg-Id`, so a retried publish whose first ack was lost is
//! recognised as the same message rather than applied twice. A proposal is
//! acknowledged only once JetStream has stored it (on a majority of the bucket's
//! replicas).
//!
//! Replicas never read the zones from here directly: they follow the bucket's
//! change feed ([`Bucket::watch_from`]) and apply each message in sequence order (see
//! [`crate::world::follow`]). [`Bucket`] is a [`ZoneLog`]; a message that does not
//! decode is delivered as [`LogError::Poison`] in its place and the feed goes on.

use std::time::Duration;

use async_nats::{
    HeaderMap,
    connection::State,
    jetstream::{
        self,
        context::{Context, PublishErrorKind},
        kv::{self, Operation},
    },
};
use bytes::Bytes;
use futures::{StreamExt, future::BoxFuture};

use super::{
    decode_zone, encode_zone,
    log::{Entry, Feed, LogError, Proposal, Write, ZoneLog},
};
use crate::config::NatsConfig;

/// How long start-up keeps trying to reach NATS before it gives up.
pub const CONNECT_DEADLINE: Duration = Duration::from_secs(30);
/// How long a JetStream request (stream info, consumer creation) may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one publish waits for its ack before it is sent again (with the same
/// message id, so a repeat of a write that landed is recognised).
const ACK_TIMEOUT: Duration = Duration::from_secs(1);
/// How long a write is retried while JetStream does not answer: after losing the
/// node that led a bucket's stream, the others elect a new leader once its heartbeats
/// stop (NATS's Raft election timeouts are several seconds).
const WRITE_DEADLINE: Duration = Duration::from_secs(15);
/// How long a write waits for a lost connection to come back (the client moving to
/// another node of the cluster) before it fails.
pub const RECONNECT_GRACE: Duration = Duration::from_secs(1);
/// Values kept per key: older versions of a zone stay in the stream for replicas
/// catching up (beyond this, they see only the newest and resynchronise).
const HISTORY: i64 = 64;

/// Why the shared store refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum NatsError {
    /// NATS could not be reached (at start-up, or the connection is down).
    #[error("nats {0}: unreachable")]
    Unreachable(String),
    /// The bucket could not be opened or created.
    #[error("nats bucket {bucket}: {message}")]
    Bucket { bucket: String, message: String },
    /// Another replica wrote the key since the proposer read it.
    #[error("zone {0:?} was changed concurrently")]
    Conflict(String),
    /// JetStream did not acknowledge the write: it is not stored (or its outcome is
    /// unknown, after a time-out; the change feed tells).
    #[error("nats: write not acknowledged: {0}")]
    NotAcknowledged(String),
    /// A request failed (time-out, connection lost).
    #[error("nats: {0}")]
    Request(String),
    /// A zone does not serialise: nothing was sent.
    #[error("nats: {0}")]
    Encode(String),
    /// A zone's record is larger than the NATS server's `max_payload`: nothing was
    /// sent.
    #[error("nats: zone record of {bytes} bytes over the server's max_payload of {max}")]
    TooLarge { bytes: usize, max: usize },
    /// A message in the bucket does not parse: something else wrote it.
    #[error("nats bucket {bucket}: message {revision}: {reason}")]
    Corrupt {
        bucket: String,
        revision: u64,
        reason: String,
    },
}

/// Room for a record's headers (expected sequence, message id, operation) within the
/// server's `max_payload`.
const RECORD_HEADERS: usize = 256;

/// A connection to the NATS servers of one server process.
#[derive(Debug, Clone)]
pub struct NatsStore {
    client: async_nats::Client,
    jetstream: Context,
    /// The same, with the short ack time-out of writes.
    publisher: Context,
    config: NatsConfig,
}

impl NatsStore {
    /// Connects to `config.urls`, retrying for up to [`CONNECT_DEADLINE`]. After that
    /// the client reconnects by itself whenever the connection drops.
    pub async fn connect(config: &NatsConfig) -> Result<NatsStore, NatsError> {
        let urls = config.urls.join(",");
        let addrs = config
            .urls
            .iter()
            .map(|u| u.parse::<async_nats::ServerAddr>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| NatsError::Unreachable(format!("{urls}: {e}")))?;
        let deadline = tokio::time::Instant::now() + CONNECT_DEADLINE;
        let client = loop {
            let options = async_nats::ConnectOptions::new()
                .name("terrain-server")
                .connection_timeout(Duration::from_secs(2))
                .request_timeout(Some(REQUEST_TIMEOUT))
                .max_reconnects(None)
                .reconnect_delay_callback(|attempt| {
                    Duration::from_millis(50 * (attempt as u64).min(10))
                });
            match options.connect(addrs.as_slice()).await {
                Ok(client) => break client,
                Err(e) if tokio::time::Instant::now() < deadline => {
                    tracing::warn!(url = %urls, error = %e, "connecting to NATS; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                Err(e) => return Err(NatsError::Unreachable(format!("{urls}: {e}"))),
            }
        };
        let mut jetstream = jetstream::new(client.clone());
        jetstream.set_timeout(REQUEST_TIMEOUT);
        let mut publisher = jetstream::new(client.clone());
        publisher.set_timeout(ACK_TIMEOUT);
        Ok(NatsStore {
            client,
            jetstream,
            publisher,
            config: config.clone(),
        })
    }

    /// Whether the client is connected right now.
    pub fn connected(&self) -> bool {
        self.client.connection_state() == State::Connected
    }

    /// Waits for the connection, for at most `bound`; false if it stays down.
    pub async fn wait_connected(&self, bound: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + bound;
        while !self.connected() {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        true
    }

    /// Opens the bucket of each world of `worlds`, in order, retrying for up to
    /// [`CONNECT_DEADLINE`]: a cluster that just started may not have elected its
    /// JetStream leader yet.
    pub async fn buckets<'a>(
        &self,
        worlds: impl IntoIterator<Item = &'a str>,
    ) -> Result<Vec<Bucket>, NatsError> {
        let deadline = tokio::time::Instant::now() + CONNECT_DEADLINE;
        let mut buckets = Vec::new();
        for world in worlds {
            let bucket = loop {
                match self.bucket(world).await {
                    Ok(bucket) => break bucket,
                    Err(e) if tokio::time::Instant::now() < deadline => {
                        tracing::warn!(world, error = %e, "opening the bucket; retrying");
                        tokio::time::sleep(Duration::from_millis(500)).await;
                    }
                    Err(e) => return Err(e),
                }
            };
            buckets.push(bucket);
        }
        tracing::info!(url = %self.config.urls.join(","), buckets = buckets.len(), "following NATS JetStream key-value buckets");
        Ok(buckets)
    }

    /// Opens world `world`'s bucket, creating it (with the configured replicas) if it
    /// does not exist yet. Several replicas may race to create it: JetStream accepts
    /// identical creations.
    pub async fn bucket(&self, world: &str) -> Result<Bucket, NatsError> {
        let name = self.config.bucket_of(world);
        let err = |message: String| NatsError::Bucket {
            bucket: name.clone(),
            message,
        };
        let kv = match self.jetstream.get_key_value(&name).await {
            Ok(kv) => kv,
            Err(_) => self
                .jetstream
                .create_key_value(kv::Config {
                    bucket: name.clone(),
                    history: HISTORY,
                    num_replicas: self.config.replicas,
                    ..Default::default()
                })
                .await
                .map_err(|e| err(e.to_string()))?,
        };
        // The bucket's epoch: when its stream was created, which every replica reads
        // alike; a bucket deleted and made again begins another history.
        let created = kv
            .stream
            .get_info()
            .await
            .map_err(|e| err(e.to_string()))?
            .created
            .unix_timestamp_nanos();
        Ok(Bucket {
            name: name.clone(),
            subject_prefix: format!("$KV.{name}."),
            kv,
            store: self.clone(),
            epoch: super::log::epoch_text((created as u64).max(1)),
        })
    }
}

/// One world's bucket.
#[derive(Debug, Clone)]
pub struct Bucket {
    name: String,
    /// `$KV.{bucket}.`: the subjects of the bucket's keys.
    subject_prefix: String,
    kv: kv::Store,
    store: NatsStore,
    /// The bucket's epoch (its stream's creation time).
    epoch: String,
}

impl Bucket {
    /// The bucket's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the connection to NATS is up.
    pub fn connected(&self) -> bool {
        self.store.connected()
    }

    /// Waits for the connection, for at most `bound`.
    pub async fn wait_connected(&self, bound: Duration) -> bool {
        self.store.wait_connected(bound).await
    }

    /// Writes `write` if the key's last revision is still `expected` (0: the key was
    /// never written). Answers the world revision the write took.
    pub async fn propose(&self, write: &Write, expected: u64) -> Result<u64, NatsError> {
        let (id, payload, delete) = match write {
            Write::Put(zone) => {
                let json = encode_zone(zone).map_err(|e| NatsError::Encode(e.to_string()))?;
                (zone.id.as_str(), Bytes::from(json), false)
            }
            Write::Delete(id) => (id.as_str(), Bytes::new(), true),
        };
        // A record over the server's limit would be refused by it; say why instead (a
        // zone with a large tile mask can be: about 14 bytes a tile).
        let max = self.store.client.server_info().max_payload;
        if max > 0 && payload.len() + RECORD_HEADERS > max {
            return Err(NatsError::TooLarge {
                bytes: payload.len(),
                max,
            });
        }
        let subject = format!("{}{}", self.subject_prefix, key_of(id));
        let mut headers = HeaderMap::new();
        headers.insert(
            async_nats::header::NATS_EXPECTED_LAST_SUBJECT_SEQUENCE,
            expected.to_string().as_str(),
        );
        headers.insert(async_nats::header::NATS_MESSAGE_ID, message_id().as_str());
        if delete {
            headers.insert("KV-Operation", "DEL");
        }
        // Retried while JetStream is electing a leader or the client reconnects; the
        // message id makes a repeat of a write that did land a no-op. With no server
        // reachable it fails after RECONNECT_GRACE.
        let deadline = tokio::time::Instant::now() + WRITE_DEADLINE;
        loop {
            if !self.wait_connected(RECONNECT_GRACE).await {
                return Err(NatsError::Unreachable(self.name.clone()));
            }
            let sent = self
                .store
                .publisher
                .publish_with_headers(subject.clone(), headers.clone(), payload.clone())
                .await;
            let acked = match sent {
                Ok(future) => future.await,
                Err(e) => Err(e),
            };
            match acked {
                Ok(ack) => return Ok(ack.sequence),
                Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => {
                    return Err(NatsError::Conflict(id.to_string()));
                }
                Err(e) if tokio::time::Instant::now() < deadline && retryable(e.kind()) => {
                    tracing::debug!(bucket = %self.name, error = %e, "publish not acknowledged; retrying");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => return Err(NatsError::NotAcknowledged(e.to_string())),
            }
        }
    }

    /// The latest revision of zone `id`'s key (including a removal), if ever written.
    pub async fn key_revision(&self, id: &str) -> Result<Option<u64>, NatsError> {
        self.kv
            .entry(key_of(id))
            .await
            .map(|entry| entry.map(|e| e.revision))
            .map_err(|e| NatsError::Request(e.to_string()))
    }

    /// The bucket's last stream sequence: the world's revision as NATS knows it.
    pub async fn last_revision(&self) -> Result<u64, NatsError> {
        let info = self
            .kv
            .stream
            .get_info()
            .await
            .map_err(|e| NatsError::Request(e.to_string()))?;
        Ok(info.state.last_sequence)
    }

    /// The change feed from revision `from` on (inclusive), in order. Each item is an
    /// entry, a [`NatsError::Corrupt`] in place of a message that does not decode (the
    /// feed goes on), or the error that ended the feed.
    pub async fn watch_from(
        &self,
        from: u64,
    ) -> Result<
        impl futures::Stream<Item = Result<Entry, NatsError>> + Send + Unpin + use<>,
        NatsError,
    > {
        let watch = self
            .kv
            .watch_all_from_revision(from.max(1))
            .await
            .map_err(|e| NatsError::Request(e.to_string()))?;
        let bucket = self.name.clone();
        Ok(watch.map(move |item| {
            let entry = item.map_err(|e| NatsError::Request(e.to_string()))?;
            let change = match entry.operation {
                Operation::Put => {
                    let json = std::str::from_utf8(&entry.value).map_err(|e| e.to_string());
                    let zone = json
                        .and_then(decode_zone)
                        .map_err(|reason| NatsError::Corrupt {
                            bucket: bucket.clone(),
                            revision: entry.revision,
                            reason,
                        })?;
                    if key_of(&zone.id) != entry.key {
                        return Err(NatsError::Corrupt {
                            bucket: bucket.clone(),
                            revision: entry.revision,
                            reason: format!("zone {:?} under key {:?}", zone.id, entry.key),
                        });
                    }
                    Write::Put(zone)
                }
                Operation::Delete | Operation::Purge => Write::Delete(id_of(&entry.key)),
            };
            Ok(Entry {
                revision: entry.revision,
                pending: entry.delta,
                write: change,
            })
        }))
    }
}

impl NatsError {
    /// The zone-log error this is, for the log called `log`.
    fn into_log(self, log: &str) -> LogError {
        match self {
            NatsError::Conflict(id) => LogError::Conflict(id),
            NatsError::Unreachable(what) => LogError::Unreachable(what),
            NatsError::NotAcknowledged(reason) => LogError::NotAcknowledged(reason),
            NatsError::TooLarge { bytes, max } => LogError::TooLarge { bytes, max },
            NatsError::Corrupt {
                bucket,
                revision,
                reason,
            } => LogError::Poison {
                log: bucket,
                revision,
                reason,
            },
            other => LogError::Failed {
                log: log.to_string(),
                reason: other.to_string(),
            },
        }
    }
}

impl ZoneLog for Bucket {
    fn name(&self) -> &str {
        &self.name
    }

    fn epoch(&self) -> &str {
        &self.epoch
    }

    fn is_local(&self) -> bool {
        false
    }

    fn connected(&self) -> bool {
        Bucket::connected(self)
    }

    fn wait_connected(&self, bound: Duration) -> BoxFuture<'_, bool> {
        Box::pin(Bucket::wait_connected(self, bound))
    }

    fn propose(&self, proposal: Proposal) -> BoxFuture<'_, Result<u64, LogError>> {
        Box::pin(async move {
            Bucket::propose(self, &proposal.write, proposal.expected)
                .await
                .map_err(|e| e.into_log(&self.name))
        })
    }

    fn key_revision<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<u64>, LogError>> {
        Box::pin(async move {
            Bucket::key_revision(self, id)
                .await
                .map_err(|e| e.into_log(&self.name))
        })
    }

    fn last_revision(&self) -> BoxFuture<'_, Result<u64, LogError>> {
        Box::pin(async move {
            Bucket::last_revision(self)
                .await
                .map_err(|e| e.into_log(&self.name))
        })
    }

    fn follow(&self, from: u64) -> BoxFuture<'_, Result<Feed, LogError>> {
        Box::pin(async move {
            let name = self.name.clone();
            let feed = self
                .watch_from(from)
                .await
                .map_err(|e| e.into_log(&self.name))?;
            Ok(Box::pin(feed.map(move |item| item.map_err(|e| e.into_log(&name)))) as Feed)
        })
    }
}

/// A message id unique to this proposal: a per-process random salt and a counter.
fn message_id() -> String {
    use std::{
        hash::{BuildHasher, RandomState},
        sync::{
            OnceLock,
            atomic::{AtomicU64, Ordering},
        },
    };
    static SALT: OnceLock<u64> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let salt = SALT.get_or_init(|| RandomState::new().hash_one(std::process::id()));
    format!("{salt:016x}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Whether a failed publish may succeed if sent again.
fn retryable(kind: PublishErrorKind) -> bool {
    // `StreamNotFound` is also what a publish gets while the stream has no leader (no
    // responders): after losing a node, until the remaining ones elect one.
    matches!(
        kind,
        PublishErrorKind::TimedOut
            | PublishErrorKind::BrokenPipe
            | PublishErrorKind::StreamNotFound
            | PublishErrorKind::MaxAckPending
            | PublishErrorKind::Other
    )
}

/// The key of zone `id`: zone ids allow `.` and `:`, which key-value keys do not
/// (`.` separates subject tokens), so they are escaped; `=` never occurs in an id, so
/// the mapping is one-to-one.
pub fn key_of(id: &str) -> String {
    let mut key = String::with_capacity(id.len());
    for c in id.chars() {
        match c {
            '.' => key.push_str("=2E"),
            ':' => key.push_str("=3A"),
            c => key.push(c),
        }
    }
    key
}

/// The zone id of key `key` (the inverse of [`key_of`]).
pub fn id_of(key: &str) -> String {
    key.replace("=2E", ".").replace("=3A", ":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_escape_dots_and_colons_one_to_one() {
        for id in ["arena:1", "a.b.c", "plain_id-2", ".:.", "x=y"] {
            if id.contains('=') {
                continue; // not a valid zone id
            }
            let key = key_of(id);
            assert!(!key.contains('.') && !key.contains(':'), "{key}");
            assert_eq!(id_of(&key), id);
        }
        assert_eq!(key_of("arena:1.floor"), "arena=3A1=2Efloor");
    }
}
