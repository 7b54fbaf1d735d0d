//! The mutation log as event history: what a resuming subscriber replays.
//!
//! The registry commits a mutation (durably) before it can measure the height change
//! it made, so the measured `maxHeightDelta` is added to the log entry afterwards by
//! [`ZoneStore::annotate`], which also prunes the log to the last `keep` revisions of
//! the world. The annotation is a non-durable commit: it costs no fsync on the
//! registry's thread and becomes durable with the next mutation's commit; a crash
//! in between loses only the annotation (the replayed event then carries no delta).
//!
//! The log is keyed by `(world, revision)`, so a resume reads only what it missed
//! ([`ZoneStore::history_between`]); the version a replacement replaced, when it is
//! older than the resume point, is found by reading back from there, once for every
//! such zone together ([`ZoneStore::last_writes_before`]).

use std::collections::{HashMap, HashSet};

use redb::{Durability, ReadableTable};

use super::{
    LogRecord, Mutation, StoreError,
    redb::{LOG, META, WORLDS, ZoneStore, db_err},
};

/// One retained log entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub revision: u64,
    pub mutation: Mutation,
    /// The largest height change the mutation made, when it was recorded.
    pub max_height_delta: Option<f64>,
    /// A replacement's link back: the revision of the entry that wrote the version
    /// it replaced (absent in entries logged before the link existed).
    pub replaces: Option<u64>,
}

impl ZoneStore {
    /// `world`'s committed revision (0 for a world never changed).
    pub fn revision(&self, world: &str) -> Result<u64, StoreError> {
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let worlds = txn.open_table(WORLDS).map_err(db_err)?;
        Ok(worlds.get(world).map_err(db_err)?.map_or(0, |v| v.value()))
    }

    /// `world`'s epoch in this store: the moment (nanoseconds since the Unix epoch)
    /// its history here began, written the first time it is asked for (a new store,
    /// one restored from a backup, or one written before epochs existed). A server
    /// restarted on the same store keeps it; an empty data directory or a restore
    /// starts another, so a client holding a state of the old history can tell.
    pub fn epoch(&self, world: &str) -> Result<u64, StoreError> {
        let key = format!("epoch:{world}");
        let open = self.open_db();
        let db = open.db()?;
        {
            let txn = db.begin_read().map_err(db_err)?;
            let meta = txn.open_table(META).map_err(db_err)?;
            if let Some(v) = meta.get(key.as_str()).map_err(db_err)? {
                return Ok(v.value());
            }
        }
        let txn = db.begin_write().map_err(db_err)?;
        let epoch = {
            let mut meta = txn.open_table(META).map_err(db_err)?;
            // Another caller may have minted it in between: keep theirs.
            let existing = meta.get(key.as_str()).map_err(db_err)?.map(|v| v.value());
            match existing {
                Some(epoch) => epoch,
                None => {
                    let epoch = super::log::new_epoch();
                    meta.insert(key.as_str(), epoch).map_err(db_err)?;
                    epoch
                }
            }
        };
        txn.commit().map_err(db_err)?;
        Ok(epoch)
    }

    /// Records `max_height_delta` in `world`'s log entry `revision`, and drops the
    /// entries more than `keep` revisions older (`keep` is at least 1). Not fsynced:
    /// see the module docs.
    pub fn annotate(
        &self,
        world: &str,
        revision: u64,
        max_height_delta: f64,
        keep: usize,
    ) -> Result<(), StoreError> {
        let open = self.open_db();
        let mut txn = open.db()?.begin_write().map_err(db_err)?;
        txn.set_durability(Durability::None);
        {
            let mut log = txn.open_table(LOG).map_err(db_err)?;
            let json = log
                .get((world, revision))
                .map_err(db_err)?
                .map(|v| v.value().to_string());
            if let Some(json) = json {
                let old = LogRecord::decode_with(&json).map_err(|reason| StoreError::Corrupt {
                    world: world.to_string(),
                    what: format!("log entry {revision}"),
                    reason,
                })?;
                let record =
                    LogRecord::encode_with(&old.mutation, old.replaces, Some(max_height_delta))?;
                log.insert((world, revision), record.as_str())
                    .map_err(db_err)?;
            }
            let keep = u64::try_from(keep.max(1)).unwrap_or(u64::MAX);
            let cutoff = revision.saturating_sub(keep);
            if cutoff > 0 {
                log.retain_in((world, 0)..=(world, cutoff), |_, _| false)
                    .map_err(db_err)?;
            }
        }
        txn.commit().map_err(db_err)
    }

    /// Every retained log entry of `world` up to revision `to`, in revision order.
    pub fn history(&self, world: &str, to: u64) -> Result<Vec<LogEntry>, StoreError> {
        self.history_between(world, 0, to)
    }

    /// The retained log entries of `world` after revision `from` up to `to`, in
    /// revision order: reads those entries only.
    pub fn history_between(
        &self,
        world: &str,
        from: u64,
        to: u64,
    ) -> Result<Vec<LogEntry>, StoreError> {
        let Some(first) = from.checked_add(1).filter(|&first| first <= to) else {
            return Ok(Vec::new());
        };
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let log = txn.open_table(LOG).map_err(db_err)?;
        let mut entries = Vec::new();
        for item in log.range((world, first)..=(world, to)).map_err(db_err)? {
            let (key, value) = item.map_err(db_err)?;
            entries.push(entry(world, key.value().1, value.value())?);
        }
        Ok(entries)
    }

    /// For each of the zones `ids`, the latest retained entry of `world` before
    /// revision `before` that wrote it (a removal included), by id: one read back
    /// from `before` that stops once every id is found (ids never written are absent).
    pub fn last_writes_before(
        &self,
        world: &str,
        ids: &[&str],
        before: u64,
    ) -> Result<HashMap<String, LogEntry>, StoreError> {
        let mut found = HashMap::new();
        let wanted: HashSet<&str> = ids.iter().copied().collect();
        if wanted.is_empty() {
            return Ok(found);
        }
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let log = txn.open_table(LOG).map_err(db_err)?;
        for item in log
            .range((world, 0)..(world, before))
            .map_err(db_err)?
            .rev()
        {
            let (key, value) = item.map_err(db_err)?;
            let e = entry(world, key.value().1, value.value())?;
            let id = e.mutation.zone.id.as_str();
            if wanted.contains(id) && !found.contains_key(id) {
                found.insert(id.to_string(), e);
                if found.len() == wanted.len() {
                    break;
                }
            }
        }
        Ok(found)
    }

    /// The retained log entries of `world` at `revisions` (those pruned are absent),
    /// by revision: one read each.
    pub fn entries_at(
        &self,
        world: &str,
        revisions: &[u64],
    ) -> Result<HashMap<u64, LogEntry>, StoreError> {
        let mut found = HashMap::new();
        if revisions.is_empty() {
            return Ok(found);
        }
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let log = txn.open_table(LOG).map_err(db_err)?;
        for &revision in revisions {
            if let Some(value) = log.get((world, revision)).map_err(db_err)? {
                found.insert(revision, entry(world, revision, value.value())?);
            }
        }
        Ok(found)
    }

    /// Writes `entries` into `world`'s log in one transaction, as they are (revision,
    /// mutation, height change), leaving the world's revision and zones alone: for
    /// tests and benchmarks that need a long retained history quickly.
    pub fn append_history(&self, world: &str, entries: &[LogEntry]) -> Result<(), StoreError> {
        let open = self.open_db();
        let mut txn = open.db()?.begin_write().map_err(db_err)?;
        txn.set_durability(Durability::None);
        {
            let mut log = txn.open_table(LOG).map_err(db_err)?;
            for e in entries {
                let record = LogRecord::encode_with(&e.mutation, e.replaces, e.max_height_delta)?;
                log.insert((world, e.revision), record.as_str())
                    .map_err(db_err)?;
            }
        }
        txn.commit().map_err(db_err)
    }
}

/// One stored log record of `world` as an entry.
fn entry(world: &str, revision: u64, json: &str) -> Result<LogEntry, StoreError> {
    let record = LogRecord::decode_with(json).map_err(|reason| StoreError::Corrupt {
        world: world.to_string(),
        what: format!("log entry {revision}"),
        reason,
    })?;
    Ok(LogEntry {
        revision,
        mutation: record.mutation,
        max_height_delta: record.max_height_delta,
        replaces: record.replaces,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MutationKind;
    use terrain_core::{FlatZone, zones::Shape};

    fn mutation(id: &str) -> Mutation {
        Mutation {
            kind: MutationKind::Registered,
            zone: FlatZone {
                id: id.into(),
                center_x: 1.0,
                center_z: 2.0,
                shape: Shape::Circle { radius: 3.0 },
                height: 4.0,
                blend_radius: 1.0,
                carve_inset: None,
                priority: 0,
                walkable: None,
                tile_mask: None,
            },
        }
    }

    #[test]
    fn annotations_are_kept_and_old_entries_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(dir.path()).unwrap();
        for revision in 1..=5 {
            let id = format!("z{revision}");
            store.commit("main", revision, &mutation(&id)).unwrap();
            store.commit("other", revision, &mutation(&id)).unwrap();
            store
                .annotate("main", revision, revision as f64 * 0.5, 2)
                .unwrap();
        }
        let main = store.history("main", 5).unwrap();
        let got: Vec<_> = main
            .iter()
            .map(|e| (e.revision, e.mutation.zone.id.as_str(), e.max_height_delta))
            .collect();
        assert_eq!(got, [(4, "z4", Some(2.0)), (5, "z5", Some(2.5))]);
        assert_eq!(store.history("main", 4).unwrap().len(), 1);
        // Another world's log is untouched, and unannotated entries read as None.
        let other = store.history("other", u64::MAX).unwrap();
        assert_eq!(other.len(), 5);
        assert!(other.iter().all(|e| e.max_height_delta.is_none()));
        assert_eq!(store.revision("main").unwrap(), 5);
        assert_eq!(store.revision("nobody").unwrap(), 0);
    }

    #[test]
    fn a_range_reads_what_was_missed_and_writes_are_found_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(dir.path()).unwrap();
        let entries: Vec<_> = (1..=6)
            .map(|revision| LogEntry {
                revision,
                mutation: mutation(if revision % 2 == 0 { "even" } else { "odd" }),
                max_height_delta: Some(revision as f64),
                replaces: None,
            })
            .collect();
        store.append_history("main", &entries).unwrap();
        let revisions = |v: Vec<LogEntry>| v.iter().map(|e| e.revision).collect::<Vec<_>>();
        assert_eq!(
            revisions(store.history_between("main", 3, 5).unwrap()),
            [4, 5]
        );
        assert_eq!(
            revisions(store.history_between("main", 5, 5).unwrap()),
            [0u64; 0]
        );
        assert_eq!(
            revisions(store.history_between("main", u64::MAX, 5).unwrap()),
            [0u64; 0]
        );
        assert_eq!(store.history("main", 6).unwrap(), entries);
        let back = |id, before| {
            store
                .last_writes_before("main", &[id], before)
                .unwrap()
                .get(id)
                .map(|e| e.revision)
        };
        assert_eq!(back("even", 6), Some(4));
        assert_eq!(back("odd", 6), Some(5));
        assert_eq!(back("odd", 1), None);
        assert_eq!(back("nobody", 7), None);
    }

    /// A replacement is logged with the revision of the version it replaced, by both
    /// ways of committing (the embedded log's append, a replica's commit); the link
    /// survives the annotation.
    #[test]
    fn replacements_link_back_to_the_version_they_replace() {
        use crate::store::log::{Proposal, Write};
        let dir = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(dir.path()).unwrap();
        let put = |expected, x: f64| Proposal {
            write: Write::Put(crate::test_support::square_zone(x)),
            expected,
        };
        store.append("main", &put(0, 0.0)).unwrap();
        store.append("main", &put(1, 10.0)).unwrap();
        store.append("main", &put(2, 20.0)).unwrap();
        store.annotate("main", 3, 1.5, 100).unwrap();
        // A replica's commits: registered, replaced, removed, registered again.
        let kinds = [
            MutationKind::Registered,
            MutationKind::Replaced,
            MutationKind::Removed,
            MutationKind::Registered,
        ];
        for (revision, kind) in (1..).zip(kinds) {
            let zone = crate::test_support::square_zone(20.0);
            store
                .commit("other", revision, &Mutation { kind, zone })
                .unwrap();
        }
        let links = |world| {
            store
                .history(world, 10)
                .unwrap()
                .iter()
                .map(|e| e.replaces)
                .collect::<Vec<_>>()
        };
        assert_eq!(links("main"), [None, Some(1), Some(2)]);
        assert_eq!(
            store.history("main", 3).unwrap()[2].max_height_delta,
            Some(1.5)
        );
        assert_eq!(links("other"), [None, Some(1), None, None]);
        let at = store.entries_at("main", &[2, 7]).unwrap();
        assert_eq!(at.len(), 1);
        assert_eq!(at[&2].mutation.zone.center_x, 10.0);
    }
}
