//! The embedded store as a [`ZoneLog`]: one world of `data_dir/terrain.redb`.
//!
//! Proposing is one write transaction: the compare-and-swap check on the zone's key,
//! then the zone table, the world's revision (the stored one + 1) and the log entry,
//! fsynced before the answer ([`ZoneStore::append`]). Following reads the `log` table
//! from a revision and then waits for the next append, which it takes from the few
//! entries the log keeps as it appends them (decoded as a read would decode them)
//! rather than reading it back. A removed zone leaves no
//! tombstone here, so its key counts as never written (revision 0) again; one server
//! holds the file, so nobody else races for it anyway.

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

use futures::{StreamExt, future::BoxFuture, stream};
use redb::ReadableTable;
use tokio::sync::watch;

use super::{
    LogRecord, Mutation, MutationKind, StoreError, decode_zone, encode_zone,
    log::{Entry, Feed, LogError, Proposal, Write, ZoneLog},
    redb::{LOG, WORLDS, ZONES, ZoneStore, db_err},
};
use crate::sync::locked;

/// A log entry decoded, or why it does not decode.
pub type Decoded = Result<Mutation, String>;

/// What an append did.
#[derive(Debug, PartialEq)]
pub enum Appended {
    /// Stored as this revision; the entry as a feed reading it back decodes it.
    At(u64, Decoded),
    /// The key's revision is not the expected one: nothing stored.
    Conflict,
}

impl ZoneStore {
    /// Appends `proposal` to `world`'s log as the next revision, if zone key's
    /// revision (the zone table's, 0 for an absent zone) is `proposal.expected`: one
    /// fsynced transaction. Removing an absent zone is a conflict.
    pub fn append(&self, world: &str, proposal: &Proposal) -> Result<Appended, StoreError> {
        let open = self.open_db();
        let txn = open.db()?.begin_write().map_err(db_err)?;
        let (revision, record) = {
            let mut worlds = txn.open_table(WORLDS).map_err(db_err)?;
            let stored = worlds.get(world).map_err(db_err)?.map_or(0, |v| v.value());
            let mut zones = txn.open_table(ZONES).map_err(db_err)?;
            let id = proposal.write.id();
            let current = match zones.get((world, id)).map_err(db_err)? {
                Some(v) => {
                    let (rev, json) = v.value();
                    Some((rev, json.to_string()))
                }
                None => None,
            };
            if current.as_ref().map_or(0, |(rev, _)| *rev) != proposal.expected {
                return Ok(Appended::Conflict);
            }
            let revision = stored.checked_add(1).ok_or_else(|| StoreError::Corrupt {
                world: world.to_string(),
                what: "revision".into(),
                reason: "counter exhausted".into(),
            })?;
            let replaces = current.as_ref().map(|(rev, _)| *rev);
            let mutation = match (&proposal.write, current) {
                (Write::Put(zone), current) => {
                    let json = encode_zone(zone)?;
                    zones
                        .insert((world, id), (revision, json.as_str()))
                        .map_err(db_err)?;
                    let kind = match current {
                        Some(_) => MutationKind::Replaced,
                        None => MutationKind::Registered,
                    };
                    Mutation {
                        kind,
                        zone: zone.clone(),
                    }
                }
                (Write::Delete(_), Some((_, json))) => {
                    let zone = decode_zone(&json).map_err(|reason| StoreError::Corrupt {
                        world: world.to_string(),
                        what: format!("zone {id:?}"),
                        reason,
                    })?;
                    zones.remove((world, id)).map_err(db_err)?;
                    Mutation {
                        kind: MutationKind::Removed,
                        zone,
                    }
                }
                (Write::Delete(_), None) => return Ok(Appended::Conflict),
            };
            worlds.insert(world, revision).map_err(db_err)?;
            let record = LogRecord::encode(&mutation, replaces)?;
            let mut log = txn.open_table(LOG).map_err(db_err)?;
            log.insert((world, revision), record.as_str())
                .map_err(db_err)?;
            (revision, record)
        };
        txn.commit().map_err(db_err)?;
        Ok(Appended::At(revision, LogRecord::decode(&record)))
    }

    /// The revision that registered (or last replaced) zone `id` of `world`, if it is
    /// registered.
    pub fn zone_revision(&self, world: &str, id: &str) -> Result<Option<u64>, StoreError> {
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let zones = txn.open_table(ZONES).map_err(db_err)?;
        Ok(zones.get((world, id)).map_err(db_err)?.map(|v| v.value().0))
    }

    /// `world`'s log entries from revision `from` on, each decoded on its own (an
    /// entry that does not decode is the reason, in its place).
    pub fn entries(&self, world: &str, from: u64) -> Result<Vec<(u64, Decoded)>, StoreError> {
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let log = txn.open_table(LOG).map_err(db_err)?;
        let mut entries = Vec::new();
        for item in log
            .range((world, from)..=(world, u64::MAX))
            .map_err(db_err)?
        {
            let (key, value) = item.map_err(db_err)?;
            entries.push((key.value().1, LogRecord::decode(value.value())));
        }
        Ok(entries)
    }
}

/// One world of the embedded store, as its zone log.
#[derive(Debug)]
pub struct EmbeddedLog {
    store: Arc<ZoneStore>,
    world: String,
    name: String,
    /// The last appended revision: followers wait on it.
    tip: watch::Sender<u64>,
    /// The last few entries this log appended, as the store's feed decodes them:
    /// the follower takes a fresh entry from here instead of reading it back from
    /// the store on another blocking thread.
    appended: Arc<Mutex<VecDeque<(u64, Decoded)>>>,
    /// The world's epoch in this store ([`ZoneStore::epoch`]).
    epoch: String,
}

impl EmbeddedLog {
    /// World `world`'s log in `store`. Blocks on the store: call it from a blocking
    /// thread.
    pub fn open(store: Arc<ZoneStore>, world: &str) -> Result<Self, StoreError> {
        let tip = store.revision(world)?;
        let epoch = super::log::epoch_text(store.epoch(world)?);
        let name = format!("{} world {world:?}", store.path().display());
        Ok(EmbeddedLog {
            store,
            world: world.to_string(),
            name,
            tip: watch::Sender::new(tip),
            appended: Arc::default(),
            epoch,
        })
    }

    fn failed(&self, e: impl std::fmt::Display) -> LogError {
        LogError::Failed {
            log: self.name.clone(),
            reason: e.to_string(),
        }
    }

    /// Runs `f` on the store on a blocking thread.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&ZoneStore, &str) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, LogError> {
        let store = Arc::clone(&self.store);
        let world = self.world.clone();
        match tokio::task::spawn_blocking(move || f(&store, &world)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(StoreError::Closed)) => Err(LogError::Closed),
            Ok(Err(e)) => Err(self.failed(e)),
            Err(e) => Err(self.failed(e)),
        }
    }
}

/// A log entry as a feed item.
fn entry_of(
    log: &str,
    revision: u64,
    pending: u64,
    decoded: Result<Mutation, String>,
) -> Result<Entry, LogError> {
    let mutation = decoded.map_err(|reason| LogError::Poison {
        log: log.to_string(),
        revision,
        reason,
    })?;
    let write = match mutation.kind {
        MutationKind::Removed => Write::Delete(mutation.zone.id),
        MutationKind::Registered | MutationKind::Replaced => Write::Put(mutation.zone),
    };
    Ok(Entry {
        revision,
        pending,
        write,
    })
}

/// Fresh entries an [`EmbeddedLog`] keeps for its feed.
const APPENDED_KEPT: usize = 8;

/// The kept entries from revision `next` on, if `next` is kept: consecutive
/// revisions, as the store would list them from there.
fn fresh_from(appended: &VecDeque<(u64, Decoded)>, next: u64) -> Vec<(u64, Decoded)> {
    let Some(start) = appended.iter().position(|(r, _)| *r == next) else {
        return Vec::new();
    };
    let mut expected = next;
    appended
        .iter()
        .skip(start)
        .take_while(|(r, _)| {
            let consecutive = *r == expected;
            expected += 1;
            consecutive
        })
        .cloned()
        .collect()
}

impl ZoneLog for EmbeddedLog {
    fn name(&self) -> &str {
        &self.name
    }

    fn epoch(&self) -> &str {
        &self.epoch
    }

    fn is_local(&self) -> bool {
        true
    }

    fn propose(&self, proposal: Proposal) -> BoxFuture<'_, Result<u64, LogError>> {
        Box::pin(async move {
            let id = proposal.write.id().to_string();
            match self.blocking(move |s, w| s.append(w, &proposal)).await? {
                Appended::At(revision, decoded) => {
                    {
                        let mut appended = locked(&self.appended);
                        if appended.len() == APPENDED_KEPT {
                            appended.pop_front();
                        }
                        appended.push_back((revision, decoded));
                    }
                    self.tip.send_if_modified(|tip| {
                        let newer = revision > *tip;
                        *tip = (*tip).max(revision);
                        newer
                    });
                    Ok(revision)
                }
                Appended::Conflict => Err(LogError::Conflict(id)),
            }
        })
    }

    fn key_revision<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<u64>, LogError>> {
        let id = id.to_string();
        Box::pin(self.blocking(move |s, w| s.zone_revision(w, &id)))
    }

    fn last_revision(&self) -> BoxFuture<'_, Result<u64, LogError>> {
        Box::pin(self.blocking(|s, w| s.revision(w)))
    }

    fn follow(&self, from: u64) -> BoxFuture<'_, Result<Feed, LogError>> {
        let store = Arc::clone(&self.store);
        let world = self.world.clone();
        let name = self.name.clone();
        let tip = self.tip.subscribe();
        let appended = Arc::clone(&self.appended);
        // State: the next revision to read, or `None` once the feed ended.
        let feed = stream::unfold(Some((from.max(1), tip)), move |state| {
            let (store, world, name) = (Arc::clone(&store), world.clone(), name.clone());
            let appended = Arc::clone(&appended);
            async move {
                let (next, mut tip) = state?;
                // Wait until the log holds `next`; a dropped log ends the feed.
                tip.wait_for(|&t| t >= next).await.ok()?;
                let fresh = fresh_from(&locked(&appended), next);
                let read = if fresh.is_empty() {
                    tokio::task::spawn_blocking(move || store.entries(&world, next)).await
                } else {
                    Ok(Ok(fresh))
                };
                let failed = |reason: String| LogError::Failed {
                    log: name.clone(),
                    reason,
                };
                let entries = match read {
                    Ok(Ok(entries)) if !entries.is_empty() => entries,
                    Ok(Ok(_)) => {
                        let reason = format!("revision {next} is not in the log");
                        return Some((stream::iter(vec![Err(failed(reason))]), None));
                    }
                    Ok(Err(e)) => {
                        return Some((stream::iter(vec![Err(failed(e.to_string()))]), None));
                    }
                    Err(e) => return Some((stream::iter(vec![Err(failed(e.to_string()))]), None)),
                };
                let last = entries.last().map_or(next, |(revision, _)| *revision);
                let n = entries.len();
                let items: Vec<_> = entries
                    .into_iter()
                    .enumerate()
                    .map(|(i, (revision, decoded))| {
                        entry_of(&name, revision, (n - 1 - i) as u64, decoded)
                    })
                    .collect();
                Some((stream::iter(items), Some((last.saturating_add(1), tip))))
            }
        })
        .flatten();
        Box::pin(std::future::ready(Ok(Box::pin(feed) as Feed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt as _, SeedableRng as _, rngs::Xoshiro256PlusPlus};
    use terrain_core::zones::TileMask;

    use crate::test_support::square_zone as zone;

    #[tokio::test]
    async fn proposals_are_compare_and_swap_and_the_feed_follows_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ZoneStore::open(dir.path()).unwrap());
        let log = EmbeddedLog::open(Arc::clone(&store), "main").unwrap();
        let put = |x, expected| Proposal {
            write: Write::Put(zone(x)),
            expected,
        };
        assert_eq!(log.propose(put(0.0, 0)).await, Ok(1));
        // The key is at revision 1 now: a proposal that saw it absent loses.
        assert_eq!(
            log.propose(put(5.0, 0)).await,
            Err(LogError::Conflict("a".into()))
        );
        assert_eq!(log.key_revision("a").await, Ok(Some(1)));
        let mut feed = log.follow(1).await.unwrap();
        let first = feed.next().await.unwrap().unwrap();
        assert_eq!((first.revision, first.write), (1, Write::Put(zone(0.0))));
        // The feed waits for the next append.
        let remove = Proposal {
            write: Write::Delete("a".into()),
            expected: 1,
        };
        assert_eq!(log.propose(remove).await, Ok(2));
        let second = feed.next().await.unwrap().unwrap();
        assert_eq!(
            (second.revision, second.write),
            (2, Write::Delete("a".into()))
        );
        // Removing it again: nothing to remove.
        let again = Proposal {
            write: Write::Delete("a".into()),
            expected: 0,
        };
        assert!(matches!(
            log.propose(again).await,
            Err(LogError::Conflict(_))
        ));
        assert_eq!(log.last_revision().await, Ok(2));
        let kinds: Vec<_> = store
            .log("main", 0)
            .unwrap()
            .into_iter()
            .map(|(r, m)| (r, m.kind))
            .collect();
        assert_eq!(
            kinds,
            [(1, MutationKind::Registered), (2, MutationKind::Removed)]
        );
        store.close();
        assert_eq!(log.propose(put(1.0, 0)).await, Err(LogError::Closed));
    }

    /// The entries the log keeps for its feed are what reading the store from the
    /// same revision gives (zones with fractional, masked and circular geometry,
    /// replacements and removals), only the last few are kept, and a feed opened
    /// before them reads the store and then goes on from what is kept.
    #[tokio::test]
    async fn kept_entries_are_what_the_store_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ZoneStore::open(dir.path()).unwrap());
        let log = EmbeddedLog::open(Arc::clone(&store), "main").unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut revision = 0;
        for i in 0..20_u64 {
            let mut z = zone(rng.random_range(-1e4..1e4));
            z.id = format!("z{}", i % 7);
            z.center_z = rng.random::<f64>() * 1e-3 - 0.1;
            z.blend_radius = rng.random::<f64>() * 5.0;
            if i % 3 == 0 {
                z.shape = terrain_core::zones::Shape::Circle { radius: 1.0 / 3.0 };
            }
            if i % 4 == 1 {
                let (tx, tz) = (z.center_x.floor() as i64, z.center_z.floor() as i64);
                z.tile_mask = Some(TileMask::new(&[[tx - 1, tz - 1], [tx, tz]]).unwrap());
                z.shape = terrain_core::zones::Shape::Rect {
                    width: 6.0,
                    depth: 6.0,
                };
            }
            let expected = store.zone_revision("main", &z.id).unwrap().unwrap_or(0);
            let write = if i % 5 == 4 && expected > 0 {
                Write::Delete(z.id.clone())
            } else {
                Write::Put(z)
            };
            revision = log.propose(Proposal { write, expected }).await.unwrap();
        }
        let kept = locked(&log.appended).clone();
        assert_eq!(kept.len(), APPENDED_KEPT);
        for next in 1..=revision + 1 {
            let fresh = fresh_from(&kept, next);
            if next + (APPENDED_KEPT as u64) <= revision {
                assert!(fresh.is_empty(), "{next}");
                continue;
            }
            assert_eq!(fresh, store.entries("main", next).unwrap(), "{next}");
        }
        // A feed from the start reads the store, then the kept entries.
        let mut feed = log.follow(1).await.unwrap();
        for r in 1..=revision {
            let (want_revision, want) = store.entries("main", r).unwrap().remove(0);
            let got = feed.next().await.unwrap().unwrap();
            assert_eq!(got.revision, want_revision);
            assert_eq!(got.write, entry_of("", r, 0, want).unwrap().write);
        }
        // Then the next append, from what is kept.
        let z = zone(0.5);
        let expected = store.zone_revision("main", &z.id).unwrap().unwrap_or(0);
        let write = Write::Put(z);
        let next = log.propose(Proposal { write, expected }).await.unwrap();
        let got = feed.next().await.unwrap().unwrap();
        let (_, want) = store.entries("main", next).unwrap().remove(0);
        assert_eq!(got.write, entry_of("", next, 0, want).unwrap().write);
    }
}
