//! Backups: a consistent snapshot of every world's zones and revision, and its restore
//! into an empty store.
//!
//! [`ZoneStore::snapshot`] reads the whole store in one read transaction, so the
//! snapshot is one instant: every world at the revision it had then, with exactly the
//! zones it had then (redb's read transactions see a fixed version while writes go on).
//! [`ZoneStore::restore`] writes a snapshot into a store with no world and no zone, in
//! one transaction: all of it or nothing. The mutation log is not part of a backup: a
//! subscriber resuming from before the restored revision is told to `resync`.
//!
//! Nothing in a backup is trusted: [`Backup::check`] decodes every zone and passes
//! each world through [`check_stored_world`], the API's own zone check plus unique
//! ids and revisions consistent with the world's revision (with headroom left in the
//! counter), before anything is written; a refusal names the world, the zone and the
//! field.
//!
//! The file is JSON: `{"format": "terrain-backup", "version": 2, "worlds": [{"id",
//! "revision", "zones": [{"revision", "zone": {...}}]}]}`, zones as the store records
//! them (the API's form with heights resolved and the record's `recordVersion`, see
//! [`RECORD_VERSION`](super::RECORD_VERSION)), numbers in shortest round-trip form (a
//! restore is bit-exact). Version 1 files (written before zones carried their record
//! version) are read too: their zones are version-1 records, whose `carveInset: 0`
//! means none.

use redb::{ReadableTable, ReadableTableMetadata};
use serde::{Deserialize, Serialize};

use terrain_core::{FlatZone, quote::Cut};

use super::{
    StoreError, decode_zone, encode_zone,
    redb::{LOG, WORLDS, ZONES, ZoneStore, db_err},
};
use crate::validate::{StoredWorldError, ZoneRules, check_stored_world};

/// The `format` of a backup file.
pub const FORMAT: &str = "terrain-backup";
/// The layout version of a backup file this server writes (it reads 1 too).
pub const VERSION: u32 = 2;

/// A snapshot of every world in a store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Backup {
    pub format: String,
    pub version: u32,
    /// Worlds in id order.
    pub worlds: Vec<BackupWorld>,
}

/// One world of a [`Backup`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackupWorld {
    pub id: String,
    /// The world's revision at the snapshot.
    pub revision: u64,
    /// Its zones in registration order.
    pub zones: Vec<BackupZone>,
}

/// One zone of a [`BackupWorld`], with the revision that registered it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackupZone {
    pub revision: u64,
    /// The zone as the API writes it (`ZoneDoc`, height resolved).
    pub zone: serde_json::Value,
}

/// Why a backup could not be read or restored.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// The file is not a backup this server reads; names what is wrong.
    #[error("backup: {0}")]
    Invalid(String),
    /// The target store already holds worlds or zones.
    #[error(
        "restore: the zone store {path} is not empty ({what}); restore only into a new data_dir"
    )]
    NotEmpty { path: String, what: String },
    /// `backup` of a data directory that has no store.
    #[error("backup: no zone store at {path}")]
    NoStore { path: String },
    /// The store is held by a running server.
    #[error(
        "backup: {source}; if a server is running on it, back it up with --from http://HOST:PORT"
    )]
    Locked {
        #[source]
        source: StoreError,
    },
    /// A world or zone the API would refuse; nothing was written.
    #[error("restore refused, nothing written: {0}")]
    Refused(#[from] StoredWorldError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Backup {
    /// Reads and checks a backup file's bytes.
    pub fn from_json(bytes: &[u8]) -> Result<Backup, BackupError> {
        let backup: Backup = serde_json::from_slice(bytes)
            .map_err(|e| BackupError::Invalid(format!("not a backup file: {e}")))?;
        if backup.format != FORMAT || !(1..=VERSION).contains(&backup.version) {
            return Err(BackupError::Invalid(format!(
                "format {:?} version {}, expected {FORMAT:?} version 1 to {VERSION}",
                backup.format, backup.version
            )));
        }
        for world in &backup.worlds {
            for (k, z) in world.zones.iter().enumerate() {
                if z.revision == 0 || z.revision > world.revision {
                    return Err(BackupError::Invalid(format!(
                        "worlds[{}].zones[{k}].revision: {} is not in 1..={}",
                        Cut(&world.id),
                        z.revision,
                        world.revision
                    )));
                }
                decode_zone(&z.zone.to_string()).map_err(|reason| {
                    BackupError::Invalid(format!(
                        "worlds[{}].zones[{k}].zone: {reason}",
                        Cut(&world.id)
                    ))
                })?;
            }
        }
        Ok(backup)
    }

    /// Decodes every zone and checks every world as the start-up load does
    /// ([`check_stored_world`] with `rules`): the worlds' zones as they would be
    /// stored, in file order.
    pub fn check(&self, rules: &ZoneRules) -> Result<Vec<Vec<(FlatZone, u64)>>, BackupError> {
        let mut seen = std::collections::BTreeSet::new();
        let mut worlds = Vec::with_capacity(self.worlds.len());
        for world in &self.worlds {
            if !seen.insert(world.id.as_str()) {
                return Err(BackupError::Refused(StoredWorldError {
                    world: world.id.clone(),
                    zone: None,
                    field: "id".into(),
                    reason: "the backup holds this world more than once".into(),
                }));
            }
            let zones = world
                .zones
                .iter()
                .enumerate()
                .map(|(k, z)| {
                    let zone = decode_zone(&z.zone.to_string()).map_err(|reason| {
                        BackupError::Invalid(format!(
                            "worlds[{}].zones[{k}].zone: {reason}",
                            Cut(&world.id)
                        ))
                    })?;
                    Ok((zone, z.revision))
                })
                .collect::<Result<Vec<_>, BackupError>>()?;
            check_stored_world(&world.id, world.revision, &zones, rules)?;
            worlds.push(zones);
        }
        Ok(worlds)
    }

    /// The file's bytes.
    pub fn to_json(&self) -> Vec<u8> {
        // Plain data: serialising cannot fail.
        serde_json::to_vec_pretty(self).unwrap_or_default()
    }

    /// Zones in all worlds.
    pub fn zones(&self) -> usize {
        self.worlds.iter().map(|w| w.zones.len()).sum()
    }
}

impl ZoneStore {
    /// Opens the existing store of a stopped server's `data_dir` (never creates one).
    pub fn open_existing(data_dir: &std::path::Path) -> Result<ZoneStore, BackupError> {
        let path = data_dir.join(super::redb::FILE_NAME);
        if !path.is_file() {
            return Err(BackupError::NoStore {
                path: path.display().to_string(),
            });
        }
        ZoneStore::open(data_dir).map_err(|source| match source {
            StoreError::Open { .. } => BackupError::Locked { source },
            other => BackupError::Store(other),
        })
    }

    /// Every world's revision and zones, read in one transaction.
    pub fn snapshot(&self) -> Result<Backup, StoreError> {
        let open = self.open_db();
        let txn = open.db()?.begin_read().map_err(db_err)?;
        let mut worlds: Vec<BackupWorld> = Vec::new();
        for item in txn
            .open_table(WORLDS)
            .map_err(db_err)?
            .iter()
            .map_err(db_err)?
        {
            let (id, revision) = item.map_err(db_err)?;
            worlds.push(BackupWorld {
                id: id.value().to_string(),
                revision: revision.value(),
                zones: Vec::new(),
            });
        }
        for item in txn
            .open_table(ZONES)
            .map_err(db_err)?
            .iter()
            .map_err(db_err)?
        {
            let (key, value) = item.map_err(db_err)?;
            let (world, id) = key.value();
            let (revision, json) = value.value();
            let zone = serde_json::from_str(json).map_err(|e| StoreError::Corrupt {
                world: world.to_string(),
                what: format!("zone {id:?}"),
                reason: e.to_string(),
            })?;
            let Some(entry) = worlds.iter_mut().find(|w| w.id == world) else {
                return Err(StoreError::Corrupt {
                    world: world.to_string(),
                    what: format!("zone {id:?}"),
                    reason: "a zone of a world without a revision".into(),
                });
            };
            entry.zones.push(BackupZone { revision, zone });
        }
        for world in &mut worlds {
            world.zones.sort_by_key(|z| z.revision);
        }
        Ok(Backup {
            format: FORMAT.into(),
            version: VERSION,
            worlds,
        })
    }

    /// Writes `backup` into this store, which must hold no world and no zone, in one
    /// transaction, once every world passed [`Backup::check`] with `rules` (a refused
    /// backup writes nothing).
    pub fn restore(&self, backup: &Backup, rules: &ZoneRules) -> Result<(), BackupError> {
        let checked = backup.check(rules)?;
        let open = self.open_db();
        let txn = open.db()?.begin_write().map_err(db_err)?;
        {
            let mut worlds = txn.open_table(WORLDS).map_err(db_err)?;
            let mut zones = txn.open_table(ZONES).map_err(db_err)?;
            let log = txn.open_table(LOG).map_err(db_err)?;
            let held = [
                ("worlds", worlds.len().map_err(db_err)?),
                ("zones", zones.len().map_err(db_err)?),
                ("log entries", log.len().map_err(db_err)?),
            ];
            if let Some((what, n)) = held.iter().find(|(_, n)| *n > 0) {
                return Err(BackupError::NotEmpty {
                    path: self.path().display().to_string(),
                    what: format!("{n} {what}"),
                });
            }
            for (world, checked) in backup.worlds.iter().zip(&checked) {
                worlds
                    .insert(world.id.as_str(), world.revision)
                    .map_err(db_err)?;
                for (zone, revision) in checked {
                    let json = encode_zone(zone)?;
                    zones
                        .insert(
                            (world.id.as_str(), zone.id.as_str()),
                            (*revision, json.as_str()),
                        )
                        .map_err(db_err)?;
                }
            }
        }
        txn.commit().map_err(db_err)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use terrain_core::{FlatZone, zones::Shape};

    use super::*;
    use crate::store::{Mutation, MutationKind};

    fn zone(id: &str, x: f64) -> FlatZone {
        FlatZone {
            id: id.into(),
            center_x: x,
            center_z: -x / 3.0,
            shape: Shape::Circle { radius: 4.25 },
            height: 10.0 + x / 7.0,
            blend_radius: 1.5,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        }
    }

    fn rules() -> ZoneRules {
        // The default limits, as `ZoneRules::from_limits` makes them.
        let limits = crate::config::Limits::default();
        ZoneRules {
            limits: terrain_core::zones::ZoneLimits {
                max_size: limits.max_zone_size,
                max_coordinate: limits.max_coordinate,
            },
            max_zones: limits.max_zones_per_world,
        }
    }

    fn commit(store: &ZoneStore, world: &str, revision: u64, kind: MutationKind, z: FlatZone) {
        store
            .commit(world, revision, &Mutation { kind, zone: z })
            .unwrap();
    }

    /// A version-1 backup (written before `carveInset` could be absent, none as `0`)
    /// restores `0` as absent and any other inset as given; a snapshot written now
    /// keeps absent absent and `0` as `0`.
    #[test]
    fn an_old_backup_restores_a_zero_inset_as_absent() {
        let old = br#"{"format": "terrain-backup", "version": 1, "worlds": [{"id": "main", "revision": 2, "zones": [
            {"revision": 1, "zone": {"id": "floor", "centerX": 10.0, "centerZ": -4.0, "width": 8.0, "depth": 6.0, "height": 12.5, "blendRadius": 2.0, "carveInset": 0.0, "priority": 0}},
            {"revision": 2, "zone": {"id": "stage", "centerX": -30.0, "centerZ": 7.5, "radius": 5.0, "height": 3.25, "blendRadius": 1.0, "carveInset": 1.5, "priority": 0}}]}]}"#;
        let target = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(target.path()).unwrap();
        store
            .restore(&Backup::from_json(old).unwrap(), &rules())
            .unwrap();
        let insets = |store: &ZoneStore| -> Vec<Option<f64>> {
            let world = store.load("main").unwrap();
            world.zones.iter().map(|(z, _)| z.carve_inset).collect()
        };
        assert_eq!(insets(&store), [None, Some(1.5)]);
        // Now: 0 stays 0 and absent stays absent, through a new snapshot.
        let mut zero = zone("zero", 5.0);
        zero.carve_inset = Some(0.0);
        commit(&store, "main", 3, MutationKind::Registered, zero);
        let backup = store.snapshot().unwrap();
        assert_eq!(backup.version, VERSION);
        let again = tempfile::tempdir().unwrap();
        let restored = ZoneStore::open(again.path()).unwrap();
        restored
            .restore(&Backup::from_json(&backup.to_json()).unwrap(), &rules())
            .unwrap();
        assert_eq!(insets(&restored), [None, Some(1.5), Some(0.0)]);
        // A version this server does not read is refused.
        let newer = String::from_utf8(backup.to_json())
            .unwrap()
            .replace(r#""version": 2"#, r#""version": 3"#);
        let err = Backup::from_json(newer.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("version 3, expected"), "{err}");
    }

    #[test]
    fn a_snapshot_restores_bit_for_bit_and_only_into_an_empty_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(dir.path()).unwrap();
        commit(&store, "main", 1, MutationKind::Registered, zone("a", 1.1));
        commit(&store, "main", 2, MutationKind::Registered, zone("b", 2.2));
        commit(&store, "main", 3, MutationKind::Replaced, zone("a", 3.3));
        commit(&store, "main", 4, MutationKind::Removed, zone("b", 2.2));
        commit(&store, "other", 1, MutationKind::Registered, zone("c", 0.1));
        let backup = store.snapshot().unwrap();
        assert_eq!(backup.worlds.len(), 2);
        assert_eq!(backup.zones(), 2);
        let bytes = backup.to_json();
        let read = Backup::from_json(&bytes).unwrap();
        assert_eq!(read, backup);

        let target = tempfile::tempdir().unwrap();
        let fresh = ZoneStore::open(target.path()).unwrap();
        fresh.restore(&read, &rules()).unwrap();
        for world in ["main", "other"] {
            assert_eq!(
                fresh.load(world).unwrap(),
                store.load(world).unwrap(),
                "{world}"
            );
        }
        assert_eq!(fresh.load("main").unwrap().revision, 4);
        // A second restore, or one into a used store, changes nothing.
        let err = fresh.restore(&read, &rules()).unwrap_err();
        assert!(matches!(err, BackupError::NotEmpty { .. }), "{err}");
        let err = store.restore(&read, &rules()).unwrap_err();
        assert!(err.to_string().contains("not empty"), "{err}");
        assert_eq!(store.load("main").unwrap().revision, 4);
    }

    #[test]
    fn a_damaged_backup_is_refused_naming_what_is_wrong() {
        for (text, what) in [
            ("not json", "not a backup file"),
            (r#"{"format":"x","version":1,"worlds":[]}"#, "format \"x\""),
            (
                r#"{"format":"terrain-backup","version":1,"worlds":[{"id":"m","revision":1,"zones":[{"revision":2,"zone":{}}]}]}"#,
                "worlds[m].zones[0].revision",
            ),
            (
                r#"{"format":"terrain-backup","version":1,"worlds":[{"id":"m","revision":1,"zones":[{"revision":1,"zone":{"id":"z"}}]}]}"#,
                "worlds[m].zones[0].zone",
            ),
        ] {
            let err = Backup::from_json(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(what), "{text}: {err}");
        }
    }

    /// A real backup (world "main" at revision 3 with zones a, b, c), as JSON to edit.
    fn real_backup() -> serde_json::Value {
        let dir = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(dir.path()).unwrap();
        for (i, id) in ["a", "b", "c"].into_iter().enumerate() {
            let x = 10.0 * i as f64;
            commit(
                &store,
                "main",
                i as u64 + 1,
                MutationKind::Registered,
                zone(id, x),
            );
        }
        serde_json::from_slice(&store.snapshot().unwrap().to_json()).unwrap()
    }

    /// Each of these edits of a real backup is refused, naming the world, the
    /// zone and the field, and the store stays empty.
    #[test]
    fn every_zone_of_a_backup_passes_the_api_check_or_nothing_is_written() {
        type Edit = fn(&mut serde_json::Value);
        let cases: [(Edit, &str); 12] = [
            (
                |b| b["worlds"][0]["zones"][1]["zone"]["radius"] = 1e6.into(),
                r#"world "main": zone "b": radius: must be at most 10000 (got 1000000)"#,
            ),
            (
                |b| {
                    let z = &mut b["worlds"][0]["zones"][1]["zone"];
                    z.as_object_mut().unwrap().remove("radius");
                    z["width"] = (-5.0).into();
                    z["depth"] = 4.0.into();
                },
                r#"world "main": zone "b": width: must be greater than 0 (got -5)"#,
            ),
            (
                |b| {
                    let z = &mut b["worlds"][0]["zones"][1]["zone"];
                    z.as_object_mut().unwrap().remove("radius");
                    z["width"] = 1e5.into();
                    z["depth"] = 4.0.into();
                },
                r#"world "main": zone "b": width: must be at most 10000 (got 100000)"#,
            ),
            (
                |b| b["worlds"][0]["zones"][1]["zone"]["id"] = "../../etc".into(),
                r#"world "main": zone "../../etc": id: must match"#,
            ),
            (
                |b| b["worlds"][0]["zones"][1]["zone"]["centerX"] = 1e12.into(),
                r#"world "main": zone "b": centerX: must be at most 1000000000 (got 1000000000000)"#,
            ),
            (
                |b| b["worlds"][0]["zones"][1]["zone"]["height"] = 1e300.into(),
                r#"world "main": zone "b": height: must be at most 2000000000 (got 1e300)"#,
            ),
            (
                |b| b["worlds"][0]["revision"] = u64::MAX.into(),
                r#"world "main": revision: 18446744073709551615 leaves fewer than 4294967296 revisions"#,
            ),
            (
                |b| b["worlds"][0]["zones"][2]["zone"]["id"] = "a".into(),
                r#"world "main": zone "a": id: appears more than once"#,
            ),
            (
                |b| b["worlds"][0]["zones"][2]["revision"] = 2.into(),
                r#"world "main": zone "c": revision: 2 is also the revision of zone "b""#,
            ),
            (
                |b| {
                    let copy = b["worlds"][0].clone();
                    b["worlds"].as_array_mut().unwrap().push(copy);
                },
                r#"world "main": id: the backup holds this world more than once"#,
            ),
            (
                |b| b["worlds"][0]["id"] = "../w".into(),
                r#"world "../w": id: "../w" may only contain"#,
            ),
            (
                |b| b["worlds"][0]["zones"][1]["zone"]["id"] = "x".repeat(100_000).into(),
                "\"…(100000 bytes): id: must match",
            ),
        ];
        for (edit, want) in cases {
            let mut json = real_backup();
            edit(&mut json);
            let backup = Backup::from_json(json.to_string().as_bytes()).unwrap();
            let err = backup.check(&rules()).unwrap_err();
            assert!(matches!(err, BackupError::Refused(_)), "{err}");
            let text = err.to_string();
            assert!(text.contains(want), "{want}\n{text}");
            assert!(text.len() < 400, "a short message: {text}");
            // And the store it would have gone into stays empty.
            let target = tempfile::tempdir().unwrap();
            let fresh = ZoneStore::open(target.path()).unwrap();
            let err = fresh.restore(&backup, &rules()).unwrap_err();
            assert!(matches!(err, BackupError::Refused(_)), "{err}");
            assert_eq!(fresh.snapshot().unwrap().worlds, []);
        }
        // The unedited backup restores.
        let backup = Backup::from_json(real_backup().to_string().as_bytes()).unwrap();
        let target = tempfile::tempdir().unwrap();
        ZoneStore::open(target.path())
            .unwrap()
            .restore(&backup, &rules())
            .unwrap();
    }

    /// The headroom bound: a revision of exactly `MAX_STORED_REVISION` is accepted,
    /// one more is refused.
    #[test]
    fn a_world_revision_leaves_headroom_in_the_counter() {
        let max = crate::validate::MAX_STORED_REVISION;
        for (revision, ok) in [(max, true), (max + 1, false)] {
            let mut json = real_backup();
            json["worlds"][0]["revision"] = revision.into();
            let backup = Backup::from_json(json.to_string().as_bytes()).unwrap();
            assert_eq!(backup.check(&rules()).is_ok(), ok, "{revision}");
        }
    }
}
