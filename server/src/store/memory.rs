//! An in-memory [`ZoneLog`] with the shared store's semantics (key revisions count
//! removals, as JetStream's do), for unit tests of replication: a test plays the
//! other replicas by appending directly ([`MemoryLog::append`]), makes the next
//! proposal lose a race ([`MemoryLog::before_next_proposal`]), or writes an entry that
//! does not decode ([`MemoryLog::append_poison`]).

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex, MutexGuard},
};

use futures::{StreamExt, future::BoxFuture, stream};
use tokio::sync::watch;

use super::log::{Entry, Feed, LogError, Proposal, Write, ZoneLog};
use crate::sync::locked;

/// The log's content.
#[derive(Debug, Default)]
struct Content {
    /// Every entry in revision order (revision = index + 1); `Err` is a poison entry.
    entries: Vec<Result<Write, String>>,
    /// Each key's last revision.
    keys: HashMap<String, u64>,
    /// Writes another replica lands just before the next proposal is checked.
    racing: VecDeque<Write>,
}

impl Content {
    fn push(&mut self, id: &str, entry: Result<Write, String>) -> u64 {
        self.entries.push(entry);
        let revision = self.entries.len() as u64;
        self.keys.insert(id.to_string(), revision);
        revision
    }
}

/// A world's log in memory; see the module docs.
#[derive(Debug)]
pub struct MemoryLog {
    name: String,
    content: Arc<Mutex<Content>>,
    /// The last revision: followers wait on it.
    tip: watch::Sender<u64>,
    /// Begun when the log was made.
    epoch: String,
}

impl MemoryLog {
    /// An empty log called `name`.
    pub fn new(name: &str) -> Self {
        MemoryLog {
            name: name.to_string(),
            content: Arc::new(Mutex::new(Content::default())),
            tip: watch::Sender::new(0),
            epoch: super::log::epoch_text(super::log::new_epoch()),
        }
    }

    fn content(&self) -> MutexGuard<'_, Content> {
        locked(&self.content)
    }

    /// Appends `write` as another replica would (no compare-and-swap); answers its
    /// revision.
    pub fn append(&self, write: Write) -> u64 {
        let revision = {
            let mut content = self.content();
            let id = write.id().to_string();
            content.push(&id, Ok(write))
        };
        self.tip.send_replace(revision);
        revision
    }

    /// Appends an entry under zone `id`'s key that does not decode, for `reason`.
    pub fn append_poison(&self, id: &str, reason: &str) -> u64 {
        let revision = self.content().push(id, Err(reason.to_string()));
        self.tip.send_replace(revision);
        revision
    }

    /// Makes another replica land `write` just before the next proposal is checked:
    /// a proposal of the same zone then loses the race. Each proposal meets at most
    /// one such write, in the order queued.
    pub fn before_next_proposal(&self, write: Write) {
        self.content().racing.push_back(write);
    }

    /// The last revision.
    pub fn revision(&self) -> u64 {
        self.content().entries.len() as u64
    }
}

impl ZoneLog for MemoryLog {
    fn name(&self) -> &str {
        &self.name
    }

    fn epoch(&self) -> &str {
        &self.epoch
    }

    fn is_local(&self) -> bool {
        false
    }

    fn propose(&self, proposal: Proposal) -> BoxFuture<'_, Result<u64, LogError>> {
        let answer = {
            let mut content = self.content();
            if let Some(write) = content.racing.pop_front() {
                let id = write.id().to_string();
                content.push(&id, Ok(write));
            }
            let id = proposal.write.id().to_string();
            let current = content.keys.get(&id).copied().unwrap_or(0);
            if current == proposal.expected {
                Ok(content.push(&id, Ok(proposal.write)))
            } else {
                Err(LogError::Conflict(id))
            }
        };
        self.tip.send_replace(self.revision());
        Box::pin(std::future::ready(answer))
    }

    fn key_revision<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<u64>, LogError>> {
        let revision = self.content().keys.get(id).copied();
        Box::pin(std::future::ready(Ok(revision)))
    }

    fn last_revision(&self) -> BoxFuture<'_, Result<u64, LogError>> {
        Box::pin(std::future::ready(Ok(self.revision())))
    }

    fn follow(&self, from: u64) -> BoxFuture<'_, Result<Feed, LogError>> {
        let content = Arc::clone(&self.content);
        let name = self.name.clone();
        let feed = stream::unfold(
            (from.max(1), self.tip.subscribe()),
            move |(next, mut tip)| {
                let (content, name) = (Arc::clone(&content), name.clone());
                async move {
                    tip.wait_for(|&t| t >= next).await.ok()?;
                    let items = read(&content, &name, next);
                    let last = next + items.len() as u64;
                    Some((stream::iter(items), (last, tip)))
                }
            },
        )
        .flatten();
        Box::pin(std::future::ready(Ok(Box::pin(feed) as Feed)))
    }
}

/// The entries from revision `next` on, as feed items.
fn read(content: &Mutex<Content>, name: &str, next: u64) -> Vec<Result<Entry, LogError>> {
    let content = locked(content);
    let total = content.entries.len() as u64;
    (next..=total)
        .zip(content.entries.iter().skip((next - 1) as usize))
        .map(|(revision, entry)| match entry {
            Ok(write) => Ok(Entry {
                revision,
                pending: total - revision,
                write: write.clone(),
            }),
            Err(reason) => Err(LogError::Poison {
                log: name.to_string(),
                revision,
                reason: reason.clone(),
            }),
        })
        .collect()
}
