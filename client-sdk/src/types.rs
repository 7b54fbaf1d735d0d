//! Plain Rust types for the service's answers (no protobuf types in the public API).
//! Zones are `terrain-core`'s own [`terrain_core::FlatZone`] and [`ZoneSpec`], so what
//! the client receives is exactly what a local [`terrain_core::Terrain`] consumes.
//! The types the server speaks too ([`WorldInfo`], [`HeightMode`], [`ZoneEntry`],
//! [`ZoneList`], [`ZoneAnswer`]) are the shared model's ([`terrain_model`]).

#[cfg(feature = "net")]
use terrain_core::zones::{Shape, ZoneHeight, ZoneSpec};
use terrain_model::{ChangedTiles, Tile};
#[cfg(feature = "net")]
use terrain_proto::v1;

#[cfg(feature = "net")]
use crate::ClientError;

/// A hosted world, as listed: what a local replica needs to build its generator (a
/// voxel world's parameters decoded, every key); its layout layer: the shared model's.
pub use terrain_model::{WorldInfo, WorldLayout};

/// Which height a point query answers ([`HeightMode::Exact`], the default, is what
/// `LocalTerrain` computes): the shared model's.
pub use terrain_model::HeightMode;

/// The height at one point.
#[derive(Debug, Clone, PartialEq)]
pub struct Height {
    pub x: f64,
    pub z: f64,
    /// Metres, Y up.
    pub height: f64,
    /// The world revision the height reflects.
    pub revision: u64,
    /// The flat zone that decided the height; `None` where the terrain did.
    pub zone: Option<String>,
}

/// Heights at many points, in request order.
#[derive(Debug, Clone, PartialEq)]
pub struct Heights {
    pub heights: Vec<f64>,
    pub revision: u64,
    /// The deciding zone per point (`None` where the terrain decided).
    pub zones: Vec<Option<String>>,
}

/// A regular grid of heights: sample `(ix, iz)` is at `(x0 + ix*step, z0 + iz*step)`
/// and stored at `heights[iz * nx + ix]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Heightmap {
    pub x0: f64,
    pub z0: f64,
    pub step: f64,
    pub nx: u32,
    pub nz: u32,
    pub heights: Vec<f64>,
    pub revision: u64,
}

impl Heightmap {
    /// The height of sample `(ix, iz)`, if it is inside the grid.
    pub fn get(&self, ix: u32, iz: u32) -> Option<f64> {
        if ix >= self.nx || iz >= self.nz {
            return None;
        }
        self.heights
            .get(iz as usize * self.nx as usize + ix as usize)
            .copied()
    }
}

/// A registered zone (height resolved) with the revision that registered or last
/// replaced it: the shared model's.
pub use terrain_model::ZoneEntry;

/// What a registration did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneChange {
    Registered,
    Replaced,
    /// Identical to the registered zone: no revision taken, no event sent.
    Unchanged,
}

/// The answer to a registration.
#[derive(Debug, Clone, PartialEq)]
pub struct Registered {
    pub zone: ZoneEntry,
    /// The revision the change took (the current one when unchanged).
    pub revision: u64,
    /// The tiles whose heights or normals changed, row-major: listed only when
    /// there are at most [`terrain_model::TILE_LIST_MAX`] (empty otherwise).
    pub tiles: Vec<Tile>,
    pub change: ZoneChange,
    /// The changed tiles as a few rectangles and their count, whatever their
    /// number ([`ChangedTiles::contains`] says whether a tile is one of them).
    pub changed: ChangedTiles,
}

/// The answer to a removal.
#[derive(Debug, Clone, PartialEq)]
pub struct Unregistered {
    pub revision: u64,
    /// As in [`Registered::tiles`]: listed only up to `TILE_LIST_MAX` tiles.
    pub tiles: Vec<Tile>,
    pub changed: ChangedTiles,
}

/// Every zone of a world, in registration order, as of `revision`, and one zone (or
/// none) with the world's revision: the shared model's.
pub use terrain_model::{ZoneAnswer, ZoneList};

#[cfg(feature = "net")]
pub(crate) fn tiles_from_proto(tiles: Vec<v1::TileKey>) -> Vec<Tile> {
    terrain_model::tiles_of_keys(tiles)
}

#[cfg(feature = "net")]
/// The changed tiles of an answer's `tile_rects` and `tile_count` (as the server
/// counted them).
pub(crate) fn changed_from_proto(rects: &[v1::TileRect], count: u64) -> ChangedTiles {
    ChangedTiles {
        rects: rects
            .iter()
            .map(terrain_model::tiles::rect_of_proto)
            .collect(),
        count,
    }
}

#[cfg(feature = "net")]
/// The protobuf form of a zone to register: `id` and the author's description.
pub(crate) fn zone_to_proto(id: &str, spec: &ZoneSpec) -> v1::FlatZone {
    let (width, depth, radius) = match spec.shape {
        Shape::Rect { width, depth } => (Some(width), Some(depth), None),
        Shape::Circle { radius } => (None, None, Some(radius)),
    };
    let (height, height_offset) = match spec.height {
        ZoneHeight::Absolute(h) => (Some(h), None),
        ZoneHeight::Offset(o) => (None, Some(o)),
    };
    v1::FlatZone {
        id: id.to_string(),
        center_x: spec.center_x,
        center_z: spec.center_z,
        width,
        depth,
        radius,
        height,
        height_offset,
        blend_radius: spec.blend_radius,
        carve_inset: spec.carve_inset,
        priority: spec.priority,
        revision: 0,
        walkable: spec.walkable,
        tile_mask: terrain_model::mask_to_proto(spec.tile_mask.as_ref()),
    }
}

#[cfg(feature = "net")]
/// A zone as the server answers it (height resolved), or why the answer is malformed.
pub(crate) fn zone_from_proto(z: v1::FlatZone) -> Result<ZoneEntry, ClientError> {
    let id = z.id.clone();
    ZoneEntry::try_from(z).map_err(|e| ClientError::Protocol(format!("zone {id:?}: {}", e.reason)))
}

#[cfg(feature = "net")]
pub(crate) fn zone_change(s: &str) -> Result<ZoneChange, ClientError> {
    match s {
        "registered" => Ok(ZoneChange::Registered),
        "replaced" => Ok(ZoneChange::Replaced),
        "unchanged" => Ok(ZoneChange::Unchanged),
        other => Err(ClientError::Protocol(format!("unknown change {other:?}"))),
    }
}

#[cfg(feature = "net")]
/// The non-empty zone id of an answer, as an option.
pub(crate) fn zone_id(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_round_trip_through_protobuf() {
        let spec = ZoneSpec {
            center_x: 1.5,
            center_z: -2.25,
            shape: Shape::Circle { radius: 4.0 },
            height: ZoneHeight::Absolute(12.125),
            blend_radius: 2.0,
            carve_inset: Some(0.5),
            priority: 3,
            walkable: None,
            tile_mask: None,
        };
        let mut message = zone_to_proto("pad", &spec);
        assert_eq!((message.radius, message.width), (Some(4.0), None));
        message.revision = 7;
        let entry = zone_from_proto(message).expect("valid");
        assert_eq!(entry.revision, 7);
        assert_eq!(entry.zone, spec.resolve("pad", 99.0));
        let offset = zone_to_proto(
            "o",
            &ZoneSpec {
                height: ZoneHeight::Offset(0.5),
                ..spec.clone()
            },
        );
        assert_eq!((offset.height, offset.height_offset), (None, Some(0.5)));
        // An absent inset stays absent and 0 stays 0, both ways.
        for inset in [None, Some(0.0)] {
            let spec = ZoneSpec {
                carve_inset: inset,
                ..spec.clone()
            };
            let message = zone_to_proto("pad", &spec);
            assert_eq!(message.carve_inset, inset);
            let entry = zone_from_proto(message).expect("valid");
            assert_eq!(entry.zone.carve_inset, inset);
        }
        assert!(matches!(
            zone_from_proto(offset),
            Err(ClientError::Protocol(_))
        ));
    }
}
