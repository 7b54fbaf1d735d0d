//! Flat zones: level ground under stations, buildings and arenas, blended smoothly
//! into the terrain (ALGORITHM.md §8).
//!
//! - [`model`]: a zone, its validation, and how one zone reaches a point.
//! - [`set`]: the zones of a world, their tile-keyed index and the overlap rules.

pub mod manifest;
pub mod model;
pub mod set;

pub use manifest::{ManifestError, NamedZone, manifest_zones, parse_zone_file};
pub use model::{
    Bounds, FlatZone, Reach, Shape, ZoneDoc, ZoneError, ZoneHeight, ZoneLimits, ZoneSpec,
    validate_id,
};
pub use set::{Overlap, ZoneSample, ZoneSet};
