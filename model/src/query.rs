//! The query surface's shared types: [`ZoneEntry`] (a registered zone, height
//! resolved, with its revision; protobuf `FlatZone`), the answers of the zone reads
//! ([`ZoneList`], [`ZoneAnswer`]) and [`HeightMode`] (protobuf `HeightMode`, HTTP
//! `mode=exact|surface|procedural`).

use std::str::FromStr;

use terrain_core::{
    FlatZone,
    zones::{Shape, TileMask},
};
use terrain_proto::v1 as pb;

use crate::FieldError;

/// A registered zone (height resolved) with the revision that registered or last
/// replaced it; layered worlds stack zones in (priority, revision) order.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneEntry {
    pub zone: FlatZone,
    pub revision: u64,
}

impl From<&ZoneEntry> for pb::FlatZone {
    /// A zone as the API answers it: an absolute height, no offset.
    fn from(entry: &ZoneEntry) -> Self {
        let z = &entry.zone;
        let (width, depth, radius) = match z.shape {
            Shape::Rect { width, depth } => (Some(width), Some(depth), None),
            Shape::Circle { radius } => (None, None, Some(radius)),
        };
        pb::FlatZone {
            id: z.id.clone(),
            center_x: z.center_x,
            center_z: z.center_z,
            width,
            depth,
            radius,
            height: Some(z.height),
            height_offset: None,
            blend_radius: z.blend_radius,
            carve_inset: z.carve_inset,
            priority: z.priority,
            revision: entry.revision,
            walkable: z.walkable,
            tile_mask: mask_to_proto(z.tile_mask.as_ref()),
        }
    }
}

/// A tile mask in protobuf's flattened form, `x0, z0, x1, z1, ...` (empty: none).
/// Tile indices are at most 1e9 in magnitude (checked when the mask was built), so
/// they fit an `i32`.
pub fn mask_to_proto(mask: Option<&TileMask>) -> Vec<i32> {
    mask.map_or_else(Vec::new, |m| {
        m.tiles()
            .iter()
            .flat_map(|&(x, z)| [x as i32, z as i32])
            .collect()
    })
}

/// The `[x, z]` tiles of a flattened protobuf mask (field `tileMask`): `None` when
/// empty, refused when its length is odd. Whether the tiles make a valid mask is the
/// zone's check.
pub fn mask_from_proto(flat: &[i32]) -> Result<Option<Vec<[i64; 2]>>, FieldError> {
    if flat.is_empty() {
        return Ok(None);
    }
    if !flat.len().is_multiple_of(2) {
        return Err(FieldError::new(
            "tileMask",
            format!("holds {} numbers: tiles come in x, z pairs", flat.len()),
        ));
    }
    Ok(Some(
        flat.chunks_exact(2)
            .map(|p| [i64::from(p[0]), i64::from(p[1])])
            .collect(),
    ))
}

impl TryFrom<pb::FlatZone> for ZoneEntry {
    type Error = FieldError;

    /// A zone as the server answers it; refuses one whose shape is neither a rectangle
    /// nor a circle (field `shape`) or whose height is not resolved (field `height`).
    fn try_from(z: pb::FlatZone) -> Result<Self, FieldError> {
        let shape = match (z.width, z.depth, z.radius) {
            (Some(width), Some(depth), None) => Shape::Rect { width, depth },
            (None, None, Some(radius)) => Shape::Circle { radius },
            _ => {
                return Err(FieldError::new(
                    "shape",
                    "neither width and depth nor radius",
                ));
            }
        };
        let height = z
            .height
            .ok_or_else(|| FieldError::new("height", "no resolved height"))?;
        Ok(ZoneEntry {
            zone: FlatZone {
                id: z.id,
                center_x: z.center_x,
                center_z: z.center_z,
                shape,
                height,
                blend_radius: z.blend_radius,
                carve_inset: z.carve_inset,
                priority: z.priority,
                walkable: z.walkable,
                tile_mask: match mask_from_proto(&z.tile_mask)? {
                    None => None,
                    Some(tiles) => Some(
                        TileMask::new(&tiles)
                            .map_err(|e| FieldError::new(e.field(), e.reason()))?,
                    ),
                },
            },
            revision: z.revision,
        })
    }
}

/// Every zone of a world, in registration order, and the world's revision: the pages
/// of protobuf `ListFlatZonesResponse` of one listing, put together.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneList {
    pub zones: Vec<ZoneEntry>,
    pub revision: u64,
    /// The epoch of the world's history `revision` belongs to (resume a subscription
    /// from `revision` with it); empty where unknown (an offline list).
    pub epoch: String,
}

/// One zone (or none) and the world's revision (protobuf `GetFlatZoneResponse` and
/// `GetFlatZoneAtResponse`).
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneAnswer {
    pub zone: Option<ZoneEntry>,
    pub revision: u64,
}

impl From<&ZoneAnswer> for pb::GetFlatZoneResponse {
    fn from(answer: &ZoneAnswer) -> Self {
        pb::GetFlatZoneResponse {
            zone: answer.zone.as_ref().map(pb::FlatZone::from),
            revision: answer.revision,
        }
    }
}

impl From<&ZoneAnswer> for pb::GetFlatZoneAtResponse {
    fn from(answer: &ZoneAnswer) -> Self {
        pb::GetFlatZoneAtResponse {
            zone: answer.zone.as_ref().map(pb::FlatZone::from),
            revision: answer.revision,
        }
    }
}

/// Which height a height query (a point, a batch, a heightmap) answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeightMode {
    /// The continuous field: generator plus flat zones (what a local replica computes).
    #[default]
    Exact,
    /// The plane of the served mesh triangle under the point
    /// ([`terrain_core::mesh::surface_height`]).
    Surface,
    /// The generator's ground without flat zones ([`terrain_core::Terrain::procedural`],
    /// the original's `getProceduralHeightAt` on the island): what zones blend toward
    /// and a zone's `heightOffset` resolves against.
    Procedural,
}

impl HeightMode {
    /// Every mode, in the order of their protobuf values.
    pub const ALL: [HeightMode; 3] = [
        HeightMode::Exact,
        HeightMode::Surface,
        HeightMode::Procedural,
    ];

    /// The name of the HTTP `mode` parameter's value: `exact`, `surface` or
    /// `procedural`.
    pub fn as_str(self) -> &'static str {
        match self {
            HeightMode::Exact => "exact",
            HeightMode::Surface => "surface",
            HeightMode::Procedural => "procedural",
        }
    }

    /// The mode of a protobuf `HeightMode` value: unspecified and exact are the exact
    /// height; an unknown value is refused (field `mode`).
    pub fn from_proto(value: i32) -> Result<HeightMode, FieldError> {
        match pb::HeightMode::try_from(value) {
            Ok(pb::HeightMode::Unspecified | pb::HeightMode::Exact) => Ok(HeightMode::Exact),
            Ok(pb::HeightMode::Surface) => Ok(HeightMode::Surface),
            Ok(pb::HeightMode::Procedural) => Ok(HeightMode::Procedural),
            Err(_) => Err(FieldError::new(
                "mode",
                format!(
                    "unknown height mode {value}: expected HEIGHT_MODE_EXACT, HEIGHT_MODE_SURFACE or HEIGHT_MODE_PROCEDURAL"
                ),
            )),
        }
    }
}

impl From<HeightMode> for pb::HeightMode {
    fn from(mode: HeightMode) -> Self {
        match mode {
            HeightMode::Exact => pb::HeightMode::Exact,
            HeightMode::Surface => pb::HeightMode::Surface,
            HeightMode::Procedural => pb::HeightMode::Procedural,
        }
    }
}

impl FromStr for HeightMode {
    type Err = FieldError;

    /// `exact`, `surface` or `procedural`; anything else is refused (field `mode`).
    fn from_str(raw: &str) -> Result<Self, FieldError> {
        match raw {
            "exact" => Ok(HeightMode::Exact),
            "surface" => Ok(HeightMode::Surface),
            "procedural" => Ok(HeightMode::Procedural),
            other => Err(FieldError::new(
                "mode",
                format!(
                    "expected \"exact\", \"surface\" or \"procedural\", got {}",
                    terrain_core::quote::Quoted(other)
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_entries_round_trip_through_protobuf() {
        for shape in [
            Shape::Circle { radius: 4.0 },
            Shape::Rect {
                width: 3.0,
                depth: 2.0,
            },
        ] {
            let entry = ZoneEntry {
                zone: FlatZone {
                    id: "pad".into(),
                    center_x: 1.5,
                    center_z: -2.25,
                    shape,
                    height: 12.125,
                    blend_radius: 2.0,
                    carve_inset: Some(0.5),
                    priority: 3,
                    walkable: None,
                    tile_mask: None,
                },
                revision: 7,
            };
            let message = pb::FlatZone::from(&entry);
            assert_eq!(
                (message.height, message.height_offset),
                (Some(12.125), None)
            );
            assert_eq!(ZoneEntry::try_from(message), Ok(entry));
        }
        let unresolved = pb::FlatZone {
            radius: Some(1.0),
            height_offset: Some(0.5),
            ..pb::FlatZone::default()
        };
        assert_eq!(ZoneEntry::try_from(unresolved).unwrap_err().field, "height");
        let shapeless = pb::FlatZone {
            height: Some(1.0),
            ..pb::FlatZone::default()
        };
        assert_eq!(ZoneEntry::try_from(shapeless).unwrap_err().field, "shape");
    }

    #[test]
    fn height_modes_from_names_and_protobuf() {
        for mode in HeightMode::ALL {
            assert_eq!(mode.as_str().parse(), Ok(mode));
            assert_eq!(
                HeightMode::from_proto(pb::HeightMode::from(mode) as i32),
                Ok(mode)
            );
        }
        assert_eq!(HeightMode::from_proto(0), Ok(HeightMode::Exact));
        assert_eq!(HeightMode::from_proto(7).unwrap_err().field, "mode");
        let err = "mesh".parse::<HeightMode>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "mode: expected \"exact\", \"surface\" or \"procedural\", got \"mesh\""
        );
        assert_eq!("procedural".parse(), Ok(HeightMode::Procedural));
        assert_eq!(
            HeightMode::from_proto(pb::HeightMode::Procedural as i32),
            Ok(HeightMode::Procedural)
        );
        assert_eq!(HeightMode::from_proto(4).unwrap_err().field, "mode");
    }
}
