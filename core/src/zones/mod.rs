//! Flat zones: level ground under stations, buildings and arenas, blended smoothly
//! into the terrain (docs/src/reference/zones.md).
//!
//! - [`model`]: a zone, its validation, and how one zone reaches a point.
//! - [`doc`]: a zone's JSON form ([`ZoneDoc`]) and its decoding from request bodies
//!   and zone files, naming the field of every problem.
//! - [`manifest`]: zone files (JSON arrays of zones) and what every file of zones
//!   shares ([`NamedZone`], [`ManifestError`]). The zones the Hyperscape game derives
//!   from its own manifests are that game's: [`crate::generator::hyperscape::manifest`].
//! - [`set`]: the zones of a world, their tile-keyed index and the overlap rules.
//!
//! Below the generators (see the crate's layers): a zone blends toward whatever height
//! its caller gives it, with the smoothstep of [`crate::maths`]; it names no generator.

pub mod doc;
pub mod manifest;
pub mod mask;
pub mod model;
pub mod set;

pub use doc::{DocError, ZoneDoc};
pub use manifest::{ManifestError, NamedZone, parse_zone_file};
pub use mask::{MAX_MASK_EXTENT, MAX_MASK_TILES, TileMask};
pub use model::{
    Bounds, FlatZone, Reach, Shape, ZoneError, ZoneHeight, ZoneLimits, ZoneSpec, validate_id,
    validate_zone,
};
pub use set::{Overlap, ZoneSample, ZoneSet};
