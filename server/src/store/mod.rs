//! Durable flat-zone registries: each world's zones, its revision, and the ordered
//! log of its mutations, in one embedded transactional store per server
//! (`data_dir/terrain.redb`, see [`redb`]).
//!
//! A mutation is one write transaction: the zone table, the world's revision and the
//! log entry change together, and the commit is fsynced before it returns, so a
//! mutation the registry acknowledged survives `kill -9` and a restart reloads
//! exactly the acknowledged state.
//!
//! Every call blocks on disk: call it from a blocking thread (`spawn_blocking`),
//! never from an async worker.
//!
//! Every mutation goes through a world's zone log ([`log::ZoneLog`]): with the embedded
//! store it is the world's part of this file ([`embedded`]); with `store.kind = "nats"`
//! it is a NATS JetStream key-value bucket ([`nats`]) shared by every replica, and the
//! embedded file then holds what this replica applied from it (see
//! [`crate::world::follow`]). [`memory`] is an in-memory log for unit tests.

pub mod backup;
pub mod embedded;
pub mod history;
pub mod log;
pub mod memory;
pub mod nats;
pub mod redb;

use serde::{Deserialize, Serialize};
use terrain_core::{
    FlatZone,
    zones::{Shape, ZoneDoc},
};

pub use self::{history::LogEntry, redb::ZoneStore};

/// What a mutation did to a zone (stored as `registered`, `replaced`, `removed`): the
/// shared model's.
pub use terrain_model::MutationKind;

/// One accepted mutation of a world.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    pub kind: MutationKind,
    /// The zone as registered (height resolved); for a removal, the zone removed.
    pub zone: FlatZone,
}

/// What the store holds for one world.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredWorld {
    /// The revision of the last committed mutation; 0 for a world never changed.
    pub revision: u64,
    /// Every zone with the revision that registered (or last replaced) it, in
    /// registration order.
    pub zones: Vec<(FlatZone, u64)>,
}

/// Why the store refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database file could not be opened or created (also: another server holds
    /// it).
    #[error("zone store {path}: {source}")]
    Open {
        path: std::path::PathBuf,
        #[source]
        source: Box<::redb::DatabaseError>,
    },
    /// The store file exists but is empty or is not a zone store: refused, so a
    /// truncated file never silently starts as an empty store.
    #[error(
        "zone store {path}: {reason}; refusing to start, which would lose every zone: \
         move it away and restore a backup into the empty data_dir (terrain-server restore \
         --input FILE --data-dir DIR), or move it away to start with an empty store"
    )]
    Unusable {
        path: std::path::PathBuf,
        reason: String,
    },
    /// The store was closed (the server is shutting down).
    #[error("zone store: closed (shutting down)")]
    Closed,
    /// A read, write or commit failed.
    #[error("zone store: {0}")]
    Db(Box<::redb::Error>),
    /// A stored record does not parse: the file was written by something else.
    #[error("zone store: world {world:?}: {what}: {reason}")]
    Corrupt {
        world: String,
        what: String,
        reason: String,
    },
    /// A zone or log record does not serialise: nothing is stored.
    #[error("zone store: zone {id:?} does not serialise: {reason}")]
    Encode { id: String, reason: String },
    /// The registry asked to commit a revision that does not follow the stored one:
    /// a bug, refused so the log keeps one entry per revision.
    #[error("zone store: world {world:?}: revision {got} does not follow {stored}")]
    OutOfOrder {
        world: String,
        stored: u64,
        got: u64,
    },
}

/// The version of the zone records this server writes: the zone table, the log, the
/// NATS bucket's values and the zones of a backup.
///
/// - 1 (no [`RECORD_VERSION_KEY`]): written before `carveInset` could be absent; an
///   absent one was written as `0`, so a `0` there reads as absent (the zone carves
///   nothing, as it did then).
/// - 2: `carveInset` as given: absent when absent, `0` when `0` (which carves the
///   whole core).
pub const RECORD_VERSION: u64 = 2;

/// The key of a zone record (and a log record) that holds its [`RECORD_VERSION`];
/// absent in version 1.
pub const RECORD_VERSION_KEY: &str = "recordVersion";

/// A zone as the store writes it: the API's JSON form, height resolved, with its
/// [`RECORD_VERSION_KEY`]. A zone that does not serialise (a non-finite number got
/// past validation) fails the commit rather than storing an empty record.
fn encode_zone(zone: &FlatZone) -> Result<String, StoreError> {
    check_finite(zone)?;
    let encode_err = |e: serde_json::Error| StoreError::Encode {
        id: zone.id.clone(),
        reason: e.to_string(),
    };
    let mut record = serde_json::to_value(ZoneDoc::from_zone(zone)).map_err(encode_err)?;
    if let Some(fields) = record.as_object_mut() {
        fields.insert(RECORD_VERSION_KEY.into(), RECORD_VERSION.into());
    }
    serde_json::to_string(&record).map_err(encode_err)
}

/// The zone document of a record of `version`, as this server reads it: version 1's
/// `carveInset: 0` was its way of writing none.
fn upgraded(mut doc: ZoneDoc, version: u64) -> Result<ZoneDoc, String> {
    match version {
        1 => {
            if doc.carve_inset == Some(0.0) {
                doc.carve_inset = None;
            }
            Ok(doc)
        }
        RECORD_VERSION => Ok(doc),
        other => Err(format!(
            "{RECORD_VERSION_KEY}: {other}, this server reads 1 to {RECORD_VERSION}"
        )),
    }
}

/// Refuses a zone with a non-finite number: JSON would store it as `null`, a record
/// no reload could read.
fn check_finite(zone: &FlatZone) -> Result<(), StoreError> {
    let dims = match zone.shape {
        Shape::Rect { width, depth } => [width, depth],
        Shape::Circle { radius } => [radius, radius],
    };
    let numbers = [
        zone.center_x,
        zone.center_z,
        zone.height,
        zone.blend_radius,
        zone.carve_inset.unwrap_or(0.0),
    ];
    if numbers.iter().chain(&dims).all(|v| v.is_finite()) {
        return Ok(());
    }
    Err(StoreError::Encode {
        id: zone.id.clone(),
        reason: "a number is not finite".into(),
    })
}

/// Parses a stored zone record of any version this server reads.
fn decode_zone(json: &str) -> Result<FlatZone, String> {
    let mut record: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let version = match record
        .as_object_mut()
        .and_then(|fields| fields.remove(RECORD_VERSION_KEY))
    {
        None => 1,
        Some(v) => v
            .as_u64()
            .ok_or_else(|| format!("{RECORD_VERSION_KEY}: {v} is not a version"))?,
    };
    let doc: ZoneDoc = serde_json::from_value(record).map_err(|e| e.to_string())?;
    let doc = upgraded(doc, version)?;
    let id = doc.id.clone().ok_or("zone without id")?;
    resolved(&doc, id)
}

/// The zone a stored document describes; stored zones carry an absolute height.
fn resolved(doc: &ZoneDoc, id: String) -> Result<FlatZone, String> {
    if doc.height.is_none() {
        return Err(format!("zone {id:?} has no absolute height"));
    }
    let spec = doc.spec().map_err(|e| e.to_string())?;
    // The height is absolute, so the procedural height is not read.
    Ok(spec.resolve(id, 0.0))
}

/// One entry of the mutation log.
#[derive(Debug, Serialize, Deserialize)]
struct LogRecord {
    kind: MutationKind,
    id: String,
    zone: ZoneDoc,
    /// The largest height change the mutation made, added once the registry has
    /// measured it (after the commit; see [`ZoneStore::annotate`]). Absent in entries
    /// written before events existed, or if the annotation was lost in a crash.
    #[serde(
        default,
        rename = "maxHeightDelta",
        skip_serializing_if = "Option::is_none"
    )]
    max_height_delta: Option<f64>,
    /// A replacement's link back: the revision of the entry that wrote the version it
    /// replaced, so a resume finds that version with one read. Absent in other
    /// entries and in replacements logged before the link existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replaces: Option<u64>,
    /// The record's [`RECORD_VERSION`] (of its `zone`); absent (1) in entries written
    /// before versions.
    #[serde(default = "version_one", rename = "recordVersion")]
    version: u64,
}

/// The version of a record without one.
fn version_one() -> u64 {
    1
}

/// A log record's contents.
struct Record {
    mutation: Mutation,
    max_height_delta: Option<f64>,
    replaces: Option<u64>,
}

impl LogRecord {
    /// A new entry's record: `mutation`, and for a replacement the revision of the
    /// entry it replaces.
    fn encode(mutation: &Mutation, replaces: Option<u64>) -> Result<String, StoreError> {
        Self::encode_with(mutation, replaces, None)
    }

    /// The record's JSON; an error (never an empty record) if it does not serialise.
    fn encode_with(
        mutation: &Mutation,
        replaces: Option<u64>,
        max_height_delta: Option<f64>,
    ) -> Result<String, StoreError> {
        let record = LogRecord {
            kind: mutation.kind,
            id: mutation.zone.id.clone(),
            zone: ZoneDoc::from_zone(&mutation.zone),
            max_height_delta,
            replaces: replaces.filter(|_| mutation.kind == MutationKind::Replaced),
            version: RECORD_VERSION,
        };
        check_finite(&mutation.zone)?;
        serde_json::to_string(&record).map_err(|e| StoreError::Encode {
            id: mutation.zone.id.clone(),
            reason: e.to_string(),
        })
    }

    fn decode(json: &str) -> Result<Mutation, String> {
        Self::decode_with(json).map(|record| record.mutation)
    }

    /// The mutation, its measured height change and its link back, if recorded.
    fn decode_with(json: &str) -> Result<Record, String> {
        let record: LogRecord = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let zone = upgraded(record.zone, record.version)?;
        let mutation = Mutation {
            kind: record.kind,
            zone: resolved(&zone, record.id)?,
        };
        Ok(Record {
            mutation,
            max_height_delta: record.max_height_delta,
            replaces: record.replaces,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record written now carries its version and keeps an absent inset absent and
    /// 0 as 0; a version-1 record (none written as 0) reads 0 as absent and any other
    /// inset as written; a version this server does not know is refused, naming it.
    #[test]
    fn records_carry_their_version_and_old_ones_read_zero_as_absent() {
        let mut zone = crate::test_support::square_zone(0.0);
        for inset in [None, Some(0.0), Some(1.25)] {
            zone.carve_inset = inset;
            let json = encode_zone(&zone).unwrap();
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(value[RECORD_VERSION_KEY], RECORD_VERSION, "{json}");
            assert_eq!(
                value.get("carveInset").and_then(serde_json::Value::as_f64),
                inset
            );
            assert_eq!(decode_zone(&json), Ok(zone.clone()));
            let mutation = Mutation {
                kind: MutationKind::Registered,
                zone: zone.clone(),
            };
            let record = LogRecord::encode(&mutation, None).unwrap();
            assert!(record.contains(r#""recordVersion":2"#), "{record}");
            assert_eq!(LogRecord::decode(&record), Ok(mutation));
        }
        let old = |inset: &str| {
            format!(
                r#"{{"id":"a","centerX":0.0,"centerZ":0.0,"width":8.0,"depth":8.0,"height":1.0,"blendRadius":1.0,"carveInset":{inset},"priority":0}}"#
            )
        };
        for (inset, want) in [("0.0", None), ("-0.0", None), ("2.5", Some(2.5))] {
            assert_eq!(
                decode_zone(&old(inset)).unwrap().carve_inset,
                want,
                "{inset}"
            );
            let record = format!(r#"{{"kind":"registered","id":"a","zone":{}}}"#, old(inset));
            let mutation = LogRecord::decode(&record).unwrap();
            assert_eq!(mutation.zone.carve_inset, want, "log {inset}");
        }
        let newer = old("0.0").replace(r#""priority":0"#, r#""priority":0,"recordVersion":3"#);
        let err = decode_zone(&newer).unwrap_err();
        assert!(err.contains("recordVersion: 3"), "{err}");
    }

    #[test]
    fn zones_round_trip_bit_for_bit() {
        let zone = FlatZone {
            id: "arena:1".into(),
            center_x: 0.1 + 0.2,
            center_z: -1234.000000000001,
            shape: Shape::Circle { radius: 7.3 },
            height: 12.345678901234567,
            blend_radius: 1.0 / 3.0,
            carve_inset: None,
            priority: -4,
            walkable: None,
            tile_mask: None,
        };
        assert_eq!(decode_zone(&encode_zone(&zone).unwrap()), Ok(zone.clone()));
        let mutation = Mutation {
            kind: MutationKind::Replaced,
            zone,
        };
        assert_eq!(
            LogRecord::decode(&LogRecord::encode(&mutation, None).unwrap()),
            Ok(mutation)
        );
    }

    #[test]
    fn a_zone_that_does_not_serialise_is_an_error_not_an_empty_record() {
        let mut zone = crate::test_support::square_zone(0.0);
        zone.height = f64::NAN;
        let err = encode_zone(&zone).unwrap_err();
        assert!(
            matches!(err, StoreError::Encode { ref id, .. } if id == "a"),
            "{err}"
        );
        let mutation = Mutation {
            kind: MutationKind::Registered,
            zone,
        };
        assert!(LogRecord::encode(&mutation, None).is_err());
        // And the commit fails, storing nothing.
        let dir = tempfile::tempdir().unwrap();
        let store = ZoneStore::open(dir.path()).unwrap();
        let err = store.commit("main", 1, &mutation).unwrap_err();
        assert!(matches!(err, StoreError::Encode { .. }), "{err}");
        assert_eq!(store.load("main").unwrap(), StoredWorld::default());
    }
}
