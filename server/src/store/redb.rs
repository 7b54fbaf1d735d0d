//! The embedded store: one [redb](https://www.redb.org) file, `data_dir/terrain.redb`.
//!
//! | table | key | value |
//! | --- | --- | --- |
//! | `meta` | `"schema"` | `2` (1 before records carried their version) |
//! | `worlds` | world id | revision (`u64`) |
//! | `zones` | (world id, zone id) | (revision that registered it, zone JSON) |
//! | `log` | (world id, revision) | `{"kind": "registered" \| "replaced" \| "removed", "id", "zone", "maxHeightDelta"?, "replaces"?, "recordVersion"}` |
//!
//! The log keeps the last `event_history` revisions of each world (pruned as each
//! mutation is annotated, see [`super::history`]).
//!
//! Zone JSON is the API's form ([`terrain_core::zones::ZoneDoc`], lowerCamelCase, height
//! resolved, shortest round-trip f64 text), so a reload is bit-exact, plus the record's
//! `recordVersion` (in a log entry, beside `zone`); see
//! [`RECORD_VERSION`](super::RECORD_VERSION). Commits use
//! redb's default durability (`Immediate`: fsync before `commit` returns).

use std::{
    path::{Path, PathBuf},
    sync::{RwLock, RwLockReadGuard},
};

use redb::{Database, ReadableTable, TableDefinition};

use super::{LogRecord, Mutation, MutationKind, StoreError, StoredWorld, decode_zone, encode_zone};
use crate::sync::{read_locked, write_locked};

/// The store's file name inside `data_dir`.
pub const FILE_NAME: &str = "terrain.redb";

/// The layout version written in `meta`. 2: zone and log records carry their
/// [`RECORD_VERSION`](super::RECORD_VERSION) (records without one are version 1, read
/// as such). A store of schema 1 is opened and marked 2 (its records stay as written
/// and are read by their own version); a server that reads only 1 then refuses the
/// file rather than misreading the newer records.
const SCHEMA_VERSION: u64 = 2;

pub(super) const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
pub(super) const WORLDS: TableDefinition<&str, u64> = TableDefinition::new("worlds");
pub(super) const ZONES: TableDefinition<(&str, &str), (u64, &str)> = TableDefinition::new("zones");
pub(super) const LOG: TableDefinition<(&str, u64), &str> = TableDefinition::new("log");

/// The server's zone store. `Sync`: one write transaction runs at a time (redb
/// serialises them); reads run beside it on a snapshot.
#[derive(Debug)]
pub struct ZoneStore {
    /// `None` once closed. Calls hold the read side for their whole transaction, so
    /// [`ZoneStore::close`] waits for them.
    db: RwLock<Option<Database>>,
    path: PathBuf,
}

/// An open database for the length of one call.
pub(super) struct Open<'a>(RwLockReadGuard<'a, Option<Database>>);

impl Open<'_> {
    pub(super) fn db(&self) -> Result<&Database, StoreError> {
        self.0.as_ref().ok_or(StoreError::Closed)
    }
}

/// The refusal of an existing store file at `path` that cannot be used.
fn unusable(path: &Path, reason: String) -> StoreError {
    StoreError::Unusable {
        path: path.to_path_buf(),
        reason,
    }
}

pub(super) fn db_err(e: impl Into<redb::Error>) -> StoreError {
    StoreError::Db(Box::new(e.into()))
}

thread_local! {
    /// Set while this thread runs [`quietly`]: its panics are caught and reported by
    /// the caller, so the panic hook does not print them.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, catching a panic without the panic hook's message on stderr (on this
/// thread only: other threads' panics are still printed).
fn quietly<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result
}

impl ZoneStore {
    /// Opens `data_dir/terrain.redb`, or creates it when it does not exist, and makes
    /// sure every table exists. After a crash, redb repairs the file here and the last
    /// commit stands. An existing file that is empty or is not a store is refused
    /// ([`StoreError::Unusable`]): only a missing file means a new store.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let path = data_dir.join(FILE_NAME);
        // redb checks a damaged file (truncated, bytes flipped, garbage appended) with
        // assertions: a panic there is the file's fault, so it becomes a refusal that
        // names the file, never a crash of the start-up task (nor a panic message on
        // stderr before the refusal).
        quietly(|| Self::open_at(&path)).unwrap_or_else(|panic| {
            let detail = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a consistency check failed");
            Err(unusable(
                &path,
                format!("is damaged (the store's own check failed: {detail})"),
            ))
        })
    }

    fn open_at(path: &Path) -> Result<Self, StoreError> {
        let path = path.to_path_buf();
        let open_err = |source| StoreError::Open {
            path: path.clone(),
            source: Box::new(source),
        };
        let db = match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Database::create(&path).map_err(open_err)?
            }
            Err(e) => return Err(unusable(&path, format!("cannot be read: {e}"))),
            Ok(meta) if meta.len() == 0 => {
                return Err(unusable(&path, "exists but is empty (0 bytes)".into()));
            }
            Ok(_) => Database::open(&path).map_err(|e| match e {
                redb::DatabaseError::Storage(redb::StorageError::Corrupted(reason)) => {
                    unusable(&path, format!("is not a readable zone store: {reason}"))
                }
                // What redb answers for a file without its magic number.
                redb::DatabaseError::Storage(redb::StorageError::Io(io))
                    if io.kind() == std::io::ErrorKind::InvalidData =>
                {
                    unusable(&path, "is not a zone store (no redb header)".into())
                }
                other => open_err(other),
            })?,
        };
        let txn = db.begin_write().map_err(db_err)?;
        {
            let mut meta = txn.open_table(META).map_err(db_err)?;
            let schema = meta.get("schema").map_err(db_err)?.map(|v| v.value());
            match schema {
                None | Some(1) => {
                    meta.insert("schema", SCHEMA_VERSION).map_err(db_err)?;
                }
                Some(SCHEMA_VERSION) => {}
                Some(other) => {
                    return Err(StoreError::Corrupt {
                        world: String::new(),
                        what: "schema".into(),
                        reason: format!("version {other}, this server reads {SCHEMA_VERSION}"),
                    });
                }
            }
            txn.open_table(WORLDS).map_err(db_err)?;
            txn.open_table(ZONES).map_err(db_err)?;
            txn.open_table(LOG).map_err(db_err)?;
        }
        txn.commit().map_err(db_err)?;
        Ok(ZoneStore {
            db: RwLock::new(Some(db)),
            path,
        })
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Waits for calls in progress, then closes the file (releasing its lock, so
    /// another server may open it). Later calls fail with [`StoreError::Closed`].
    pub fn close(&self) {
        let mut db = write_locked(&self.db);
        db.take();
    }

    pub(super) fn open_db(&self) -> Open<'_> {
        // A panic while holding the lock cannot leave redb half-written (its
        // transactions are atomic), so a poisoned lock is still usable.
        Open(read_locked(&self.db))
    }

    /// Everything committed for `world`: its revision and its zones in registration
    /// order.
    pub fn load(&self, world: &str) -> Result<StoredWorld, StoreError> {
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let revision = txn
            .open_table(WORLDS)
            .map_err(db_err)?
            .get(world)
            .map_err(db_err)?
            .map_or(0, |v| v.value());
        let zones_table = txn.open_table(ZONES).map_err(db_err)?;
        let mut zones = Vec::new();
        for item in zones_table.range((world, "")..).map_err(db_err)? {
            let (key, value) = item.map_err(db_err)?;
            let (w, id) = key.value();
            if w != world {
                break;
            }
            let (zone_revision, json) = value.value();
            let zone = decode_zone(json).map_err(|reason| StoreError::Corrupt {
                world: world.to_string(),
                what: format!("zone {id:?}"),
                reason,
            })?;
            zones.push((zone, zone_revision));
        }
        zones.sort_by_key(|(_, rev)| *rev);
        Ok(StoredWorld { revision, zones })
    }

    /// Commits `mutation` as `world`'s revision `revision` (which must follow the
    /// stored one): the zone table, the revision and the log entry in one fsynced
    /// transaction. On error nothing is stored.
    pub fn commit(
        &self,
        world: &str,
        revision: u64,
        mutation: &Mutation,
    ) -> Result<(), StoreError> {
        self.commit_checked(world, revision, mutation, false)
    }

    /// Commits `mutation` as `world`'s revision `revision`, which must be after the
    /// stored one but may skip some: a replica following a shared store whose older
    /// messages were superseded records the revisions it could see, and the log has
    /// a hole where the others were (a resume across it gets a `resync`).
    pub fn commit_replicated(
        &self,
        world: &str,
        revision: u64,
        mutation: &Mutation,
    ) -> Result<(), StoreError> {
        self.commit_checked(world, revision, mutation, true)
    }

    fn commit_checked(
        &self,
        world: &str,
        revision: u64,
        mutation: &Mutation,
        allow_gap: bool,
    ) -> Result<(), StoreError> {
        let open = self.open_db();
        let txn = open.db()?.begin_write().map_err(db_err)?;
        {
            let mut worlds = txn.open_table(WORLDS).map_err(db_err)?;
            let stored = worlds.get(world).map_err(db_err)?.map_or(0, |v| v.value());
            let follows = if allow_gap {
                revision > stored
            } else {
                stored.checked_add(1) == Some(revision)
            };
            if !follows {
                return Err(StoreError::OutOfOrder {
                    world: world.to_string(),
                    stored,
                    got: revision,
                });
            }
            worlds.insert(world, revision).map_err(db_err)?;
            let mut zones = txn.open_table(ZONES).map_err(db_err)?;
            let key = (world, mutation.zone.id.as_str());
            let replaces = zones.get(key).map_err(db_err)?.map(|v| v.value().0);
            match mutation.kind {
                MutationKind::Removed => {
                    zones.remove(key).map_err(db_err)?;
                }
                MutationKind::Registered | MutationKind::Replaced => {
                    let json = encode_zone(&mutation.zone)?;
                    zones
                        .insert(key, (revision, json.as_str()))
                        .map_err(db_err)?;
                }
            }
            let record = LogRecord::encode(mutation, replaces)?;
            let mut log = txn.open_table(LOG).map_err(db_err)?;
            log.insert((world, revision), record.as_str())
                .map_err(db_err)?;
        }
        txn.commit().map_err(db_err)
    }

    /// `world`'s mutation log from revision `from` on, in revision order; an entry
    /// that does not decode fails the whole read ([`StoreError::Corrupt`]).
    pub fn log(&self, world: &str, from: u64) -> Result<Vec<(u64, Mutation)>, StoreError> {
        self.entries(world, from)?
            .into_iter()
            .map(|(revision, decoded)| {
                let mutation = decoded.map_err(|reason| StoreError::Corrupt {
                    world: world.to_string(),
                    what: format!("log entry {revision}"),
                    reason,
                })?;
                Ok((revision, mutation))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrain_core::{FlatZone, zones::Shape};

    fn zone(id: &str, x: f64) -> FlatZone {
        FlatZone {
            id: id.into(),
            center_x: x,
            center_z: -x,
            shape: Shape::Rect {
                width: 4.0,
                depth: 6.5,
            },
            height: x * 0.1,
            blend_radius: 2.0,
            carve_inset: Some(0.5),
            priority: 1,
            walkable: None,
            tile_mask: None,
        }
    }

    fn mutation(kind: MutationKind, zone: FlatZone) -> Mutation {
        Mutation { kind, zone }
    }

    #[test]
    fn commits_reload_in_registration_order() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = ZoneStore::open(dir.path()).unwrap();
            store
                .commit(
                    "main",
                    1,
                    &mutation(MutationKind::Registered, zone("b", 1.0)),
                )
                .unwrap();
            store
                .commit(
                    "main",
                    2,
                    &mutation(MutationKind::Registered, zone("a", 2.0)),
                )
                .unwrap();
            store
                .commit(
                    "other",
                    1,
                    &mutation(MutationKind::Registered, zone("a", 9.0)),
                )
                .unwrap();
            store
                .commit("main", 3, &mutation(MutationKind::Replaced, zone("b", 3.0)))
                .unwrap();
            store
                .commit(
                    "main",
                    4,
                    &mutation(MutationKind::Registered, zone("c", 4.0)),
                )
                .unwrap();
            store
                .commit("main", 5, &mutation(MutationKind::Removed, zone("c", 4.0)))
                .unwrap();
        }
        let store = ZoneStore::open(dir.path()).unwrap();
        let main = store.load("main").unwrap();
        assert_eq!(main.revision, 5);
        assert_eq!(main.zones, [(zone("a", 2.0), 2), (zone("b", 3.0), 3)]);
        let other = store.load("other").unwrap();
        assert_eq!((other.revision, other.zones.len()), (1, 1));
        assert_eq!(store.load("nobody").unwrap(), StoredWorld::default());
        let log = store.log("main", 3).unwrap();
        let kinds: Vec<_> = log
            .iter()
            .map(|(r, m)| (*r, m.kind, m.zone.id.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                (3, MutationKind::Replaced, "b"),
                (4, MutationKind::Registered, "c"),
                (5, MutationKind::Removed, "c"),
            ]
        );
    }

    #[test]
    fn out_of_order_revisions_are_refused_and_store_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(dir.path()).unwrap();
        let err = store
            .commit(
                "main",
                2,
                &mutation(MutationKind::Registered, zone("a", 1.0)),
            )
            .unwrap_err();
        assert!(
            matches!(
                err,
                StoreError::OutOfOrder {
                    stored: 0,
                    got: 2,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(store.load("main").unwrap(), StoredWorld::default());
        assert!(store.log("main", 0).unwrap().is_empty());
    }

    #[test]
    fn a_second_server_cannot_open_the_same_file_until_closed() {
        let dir = tempfile::tempdir().unwrap();
        let first = ZoneStore::open(dir.path()).unwrap();
        first
            .commit(
                "main",
                1,
                &mutation(MutationKind::Registered, zone("a", 1.0)),
            )
            .unwrap();
        let err = ZoneStore::open(dir.path()).unwrap_err();
        assert!(err.to_string().contains(FILE_NAME), "{err}");
        first.close();
        let err = first.commit(
            "main",
            2,
            &mutation(MutationKind::Registered, zone("b", 1.0)),
        );
        assert!(matches!(err, Err(StoreError::Closed)), "{err:?}");
        let second = ZoneStore::open(dir.path()).unwrap();
        assert_eq!(second.load("main").unwrap().revision, 1);
    }
}

#[cfg(test)]
mod open_tests {
    use super::*;

    #[test]
    fn only_a_missing_file_means_a_new_store() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        // Missing: a new, empty store.
        let store = ZoneStore::open(dir.path()).unwrap();
        assert_eq!(store.load("main").unwrap(), StoredWorld::default());
        store.close();
        drop(store);
        assert!(ZoneStore::open(dir.path()).is_ok());

        // Empty (0 bytes): refused, naming the file; the file is left as it was.
        std::fs::write(&path, b"").unwrap();
        let err = ZoneStore::open(dir.path()).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, StoreError::Unusable { .. }), "{text}");
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains("empty (0 bytes)"), "{text}");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);

        // Garbage: refused too, and left as it was.
        let garbage = b"this is not a redb file, it is a note someone saved here\n".repeat(100);
        std::fs::write(&path, &garbage).unwrap();
        let err = ZoneStore::open(dir.path()).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains("refusing to start"), "{text}");
        assert_eq!(std::fs::read(&path).unwrap(), garbage);
    }

    /// A store with zones, damaged the ways a disk or an operator damages files: each
    /// is refused naming the file (or opened, if redb can repair it), never a panic.
    #[test]
    fn a_damaged_store_is_refused_naming_the_file_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        {
            let store = ZoneStore::open(dir.path()).unwrap();
            for revision in 1..=200 {
                let mut zone = crate::test_support::square_zone(revision as f64 * 10.0);
                zone.id = format!("z{revision}");
                let mutation = Mutation {
                    kind: MutationKind::Registered,
                    zone,
                };
                store.commit("main", revision, &mutation).unwrap();
            }
            store.close();
        }
        let good = std::fs::read(&path).unwrap();
        let mut flipped = good.clone();
        for i in (0..flipped.len()).step_by(997) {
            flipped[i] ^= 0x5a;
        }
        let mut appended = good.clone();
        appended.extend(std::iter::repeat_n(0xa5u8, 1 << 20));
        let damaged = [
            ("truncated to 50%", good[..good.len() / 2].to_vec()),
            ("truncated to 90%", good[..good.len() * 9 / 10].to_vec()),
            ("bytes flipped", flipped),
            ("garbage appended", appended),
        ];
        for (what, bytes) in damaged {
            std::fs::write(&path, &bytes).unwrap();
            match ZoneStore::open(dir.path()) {
                Ok(store) => store.close(),
                Err(err) => {
                    let text = err.to_string();
                    assert!(text.contains(&path.display().to_string()), "{what}: {text}");
                }
            }
        }
    }

    /// Records as the server wrote them before `carveInset` could be absent (schema 1,
    /// no `recordVersion`, none written as `0`).
    const OLD_FLOOR: &str = r#"{"id":"floor","centerX":10.0,"centerZ":-4.0,"width":8.0,"depth":6.0,"height":12.5,"blendRadius":2.0,"carveInset":0.0,"priority":0}"#;
    const OLD_STAGE: &str = r#"{"id":"stage","centerX":-30.0,"centerZ":7.5,"radius":5.0,"height":3.25,"blendRadius":1.0,"carveInset":1.5,"priority":2,"walkable":true}"#;

    /// Writes a schema-1 store holding `floor` (registered at 1) and `stage` (2), and
    /// their two log entries, byte for byte as the old server wrote them.
    fn write_old_store(dir: &Path) {
        let db = Database::create(dir.join(FILE_NAME)).unwrap();
        let txn = db.begin_write().unwrap();
        {
            txn.open_table(META).unwrap().insert("schema", 1).unwrap();
            txn.open_table(WORLDS).unwrap().insert("main", 2).unwrap();
            let mut zones = txn.open_table(ZONES).unwrap();
            zones.insert(("main", "floor"), (1, OLD_FLOOR)).unwrap();
            zones.insert(("main", "stage"), (2, OLD_STAGE)).unwrap();
            let mut log = txn.open_table(LOG).unwrap();
            for (revision, zone) in [(1, OLD_FLOOR), (2, OLD_STAGE)] {
                let id = if revision == 1 { "floor" } else { "stage" };
                let record = format!(
                    r#"{{"kind":"registered","id":"{id}","zone":{zone},"maxHeightDelta":0.5}}"#
                );
                log.insert(("main", revision), record.as_str()).unwrap();
            }
        }
        txn.commit().unwrap();
    }

    /// An old store reads `carveInset: 0` as absent (its meshes do not change) and any
    /// other inset as given, in the zone table and in the log alike; the file is then
    /// marked schema 2, and new records keep an inset of 0 as 0.
    #[test]
    fn an_old_store_reads_a_zero_inset_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        write_old_store(dir.path());
        let store = ZoneStore::open(dir.path()).unwrap();
        let main = store.load("main").unwrap();
        let insets: Vec<_> = main
            .zones
            .iter()
            .map(|(z, rev)| (z.id.as_str(), z.carve_inset, *rev))
            .collect();
        assert_eq!(insets, [("floor", None, 1), ("stage", Some(1.5), 2)]);
        assert_eq!(main.zones[1].0.walkable, Some(true));
        let log: Vec<_> = store
            .log("main", 1)
            .unwrap()
            .into_iter()
            .map(|(r, m)| (r, m.zone.carve_inset))
            .collect();
        assert_eq!(log, [(1, None), (2, Some(1.5))]);
        // A replacement written now: an inset of 0 stays 0, beside the old records.
        let mut zero = main.zones[0].0.clone();
        zero.carve_inset = Some(0.0);
        store
            .commit(
                "main",
                3,
                &Mutation {
                    kind: MutationKind::Replaced,
                    zone: zero,
                },
            )
            .unwrap();
        store.close();
        let store = ZoneStore::open(dir.path()).unwrap();
        let main = store.load("main").unwrap();
        assert_eq!(main.zones[1].0.carve_inset, Some(0.0));
        let log: Vec<_> = store
            .log("main", 1)
            .unwrap()
            .into_iter()
            .map(|(r, m)| (r, m.zone.carve_inset))
            .collect();
        assert_eq!(log, [(1, None), (2, Some(1.5)), (3, Some(0.0))]);
        let open = store.open_db();
        let txn = open.db().unwrap().begin_read().unwrap();
        let schema = txn.open_table(META).unwrap().get("schema").unwrap();
        assert_eq!(schema.map(|v| v.value()), Some(SCHEMA_VERSION));
    }

    /// A schema this server does not know is refused, naming the versions.
    #[test]
    fn a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = Database::create(dir.path().join(FILE_NAME)).unwrap();
            let txn = db.begin_write().unwrap();
            txn.open_table(META).unwrap().insert("schema", 3).unwrap();
            txn.commit().unwrap();
        }
        let err = ZoneStore::open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("version 3, this server reads 2"), "{err}");
    }
}
