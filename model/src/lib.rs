//! The types the terrain server and its client both speak, defined once, with their
//! protobuf conversions (and the names they carry in JSON and in the store).
//!
//! - [`events`]: [`Area`] (an event subscription's area of interest and which events
//!   it matches), [`MutationKind`] (what a committed mutation did to its zone) and
//!   [`TileEvent`] (one committed mutation, as subscribers see it).
//! - [`lifecycle`]: [`Viewer`], [`Ring`] and [`TileSets`] (the tile rings a world keeps
//!   live around its viewers), and the transitions a world announces: a [`Step`] of
//!   [`TileTransition`]s, each a [`TileChange`] of one [`Tile`].
//! - [`query`]: [`ZoneEntry`] (a registered zone and its revision), the zone reads'
//!   answers [`ZoneList`] and [`ZoneAnswer`], and [`HeightMode`].
//! - [`tiles`]: [`ChangedTiles`], the tiles a change touched as a few rectangles,
//!   listed one by one only up to [`TILE_LIST_MAX`].
//! - [`worlds`]: [`WorldInfo`], a hosted world as `ListWorlds` lists it (with its
//!   walkability rule, [`walk_rule_message`] / [`walk_rule_of`], and the towns its
//!   difficulty reads, [`town_messages`] / [`towns_of`]), and the voxel generator's
//!   block kinds ([`BlockKindInfo`]).
//!
//! A tile is `terrain-core`'s [`Tile`], `(tx, tz)`, re-exported here.
//!
//! The crate knows protobuf (through `terrain-proto`) but no transport: the server's
//! domain uses these types, its edge (`api/`) and the client SDK convert them with the
//! `From`/`TryFrom` impls here. A protobuf value these types cannot represent is a
//! [`FieldError`] naming the field: the server answers it as `INVALID_ARGUMENT`, the
//! client reports it as a protocol error.
//!
//! Why a crate of its own rather than a module of `terrain-proto`: the model needs
//! `terrain-core`'s zones and bounds, and `terrain-proto` stays generated code that
//! depends on nothing of the project.

pub mod events;
pub mod lifecycle;
pub mod query;
pub mod tiles;
pub mod worlds;

use std::borrow::Cow;

use terrain_proto::v1 as pb;

pub use events::{Area, MutationKind, TileEvent};
pub use lifecycle::{Ring, Step, TileChange, TileSets, TileTransition, Viewer};
pub use query::{HeightMode, ZoneAnswer, ZoneEntry, ZoneList, mask_from_proto, mask_to_proto};
pub use terrain_core::{Tile, TileRect};
pub use tiles::{ChangedTiles, TILE_LIST_MAX};
pub use worlds::{
    BlockKindInfo, WorldInfo, WorldLayout, block_kinds, town_messages, towns_of, walk_rule_message,
    walk_rule_of,
};

/// A value refused by the model: the field it names and why. `Display` is
/// `"{field}: {reason}"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct FieldError {
    /// The field, as the API names it (`"radius"`, `"area.tiles"`, `"cause"`).
    pub field: Cow<'static, str>,
    /// What is wrong with it.
    pub reason: String,
}

impl FieldError {
    /// `field` is refused because of `reason`.
    pub fn new(field: impl Into<Cow<'static, str>>, reason: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// The protobuf keys of `tiles`, in order.
pub fn tile_keys(tiles: &[Tile]) -> Vec<pb::TileKey> {
    tiles.iter().map(|&(x, z)| pb::TileKey { x, z }).collect()
}

/// The tiles of protobuf `keys`, in order.
pub fn tiles_of_keys(keys: Vec<pb::TileKey>) -> Vec<Tile> {
    keys.into_iter().map(|k| (k.x, k.z)).collect()
}
