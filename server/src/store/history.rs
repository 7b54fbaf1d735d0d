//! The mutation log as event history: what a resuming subscriber replays.
//!
//! The registry commits a mutation (durably) before it can measure the height change
//! it made, so the measured `maxHeightDelta` is added to the log entry afterwards by
//! [`ZoneStore::annotate`], which also prunes the log to the last `keep` revisions of
//! the world. The annotation is a non-durable commit: it costs no fsync on the
//! registry's thread and becomes durable with the next mutation's commit; a crash
//! in between loses only the annotation (the replayed event then carries no delta).

use redb::{Durability, ReadableTable};

use super::{
    LogRecord, Mutation, StoreError,
    redb::{LOG, WORLDS, ZoneStore, db_err},
};

/// One retained log entry.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub revision: u64,
    pub mutation: Mutation,
    /// The largest height change the mutation made, when it was recorded.
    pub max_height_delta: Option<f64>,
}

impl ZoneStore {
    /// `world`'s committed revision (0 for a world never changed).
    pub fn revision(&self, world: &str) -> Result<u64, StoreError> {
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let worlds = txn.open_table(WORLDS).map_err(db_err)?;
        Ok(worlds.get(world).map_err(db_err)?.map_or(0, |v| v.value()))
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
                let (mutation, _) =
                    LogRecord::decode_with(&json).map_err(|reason| StoreError::Corrupt {
                        world: world.to_string(),
                        what: format!("log entry {revision}"),
                        reason,
                    })?;
                let record = LogRecord::encode_with(&mutation, Some(max_height_delta))?;
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
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let log = txn.open_table(LOG).map_err(db_err)?;
        let mut entries = Vec::new();
        for item in log.range((world, 0)..=(world, to)).map_err(db_err)? {
            let (key, value) = item.map_err(db_err)?;
            let (_, revision) = key.value();
            let (mutation, max_height_delta) =
                LogRecord::decode_with(value.value()).map_err(|reason| StoreError::Corrupt {
                    world: world.to_string(),
                    what: format!("log entry {revision}"),
                    reason,
                })?;
            entries.push(LogEntry {
                revision,
                mutation,
                max_height_delta,
            });
        }
        Ok(entries)
    }
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
                carve_inset: 0.0,
                priority: 0,
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
}
