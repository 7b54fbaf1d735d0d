//! The tile lifecycle's shared types: a [`Viewer`] as a game server reports it, the
//! three [`Ring`]s kept live around each view, and [`TileSets`] (a tile set per ring),
//! with their protobuf forms (`Viewer`, `Ring`, `TileSets`).

use terrain_proto::v1 as pb;

use crate::{FieldError, tile_keys, tiles_of_keys};

/// A tile, `(tx, tz)`.
pub type Tile = (i64, i64);

/// A viewer: a camera at `(x, z)` seeing `view_width` x `view_depth` metres, moving at
/// `(velocity_x, velocity_z)` metres per second (zero when still or not reported).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Viewer {
    pub id: String,
    pub x: f64,
    pub z: f64,
    /// View extent along X, metres.
    pub view_width: f64,
    /// View extent along Z, metres.
    pub view_depth: f64,
    /// Velocity along X, metres per second.
    pub velocity_x: f64,
    /// Velocity along Z, metres per second.
    pub velocity_z: f64,
}

impl From<pb::Viewer> for Viewer {
    fn from(v: pb::Viewer) -> Self {
        Viewer {
            id: v.id,
            x: v.x,
            z: v.z,
            view_width: v.view_width,
            view_depth: v.view_depth,
            velocity_x: v.velocity_x,
            velocity_z: v.velocity_z,
        }
    }
}

impl From<Viewer> for pb::Viewer {
    fn from(v: Viewer) -> Self {
        pb::Viewer {
            id: v.id,
            x: v.x,
            z: v.z,
            view_width: v.view_width,
            view_depth: v.view_depth,
            velocity_x: v.velocity_x,
            velocity_z: v.velocity_z,
        }
    }
}

/// The three rings, narrowest first; each includes the ones inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ring {
    Sim = 0,
    Spawn = 1,
    Active = 2,
}

impl Ring {
    /// Narrowest first.
    pub const ALL: [Ring; 3] = [Ring::Sim, Ring::Spawn, Ring::Active];

    /// This ring's bit in a ring mask.
    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The name used on the HTTP surface: `sim`, `spawn` or `active`.
    pub fn as_str(self) -> &'static str {
        match self {
            Ring::Sim => "sim",
            Ring::Spawn => "spawn",
            Ring::Active => "active",
        }
    }

    /// The ring of a protobuf `Ring` value; unspecified or unknown values are refused
    /// (field `ring`).
    pub fn from_proto(value: i32) -> Result<Ring, FieldError> {
        pb::Ring::try_from(value)
            .ok()
            .and_then(|r| Ring::try_from(r).ok())
            .ok_or_else(|| FieldError::new("ring", format!("unknown ring {value}")))
    }
}

impl From<Ring> for pb::Ring {
    fn from(ring: Ring) -> Self {
        match ring {
            Ring::Sim => pb::Ring::Sim,
            Ring::Spawn => pb::Ring::Spawn,
            Ring::Active => pb::Ring::Active,
        }
    }
}

impl TryFrom<pb::Ring> for Ring {
    type Error = FieldError;

    /// Refuses `RING_UNSPECIFIED` (field `ring`).
    fn try_from(ring: pb::Ring) -> Result<Self, FieldError> {
        match ring {
            pb::Ring::Sim => Ok(Ring::Sim),
            pb::Ring::Spawn => Ok(Ring::Spawn),
            pb::Ring::Active => Ok(Ring::Active),
            pb::Ring::Unspecified => Err(FieldError::new("ring", "unspecified")),
        }
    }
}

/// A tile set per ring, each row-major (sorted by z, then x).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TileSets {
    pub sim: Vec<Tile>,
    pub spawn: Vec<Tile>,
    pub active: Vec<Tile>,
}

impl From<&TileSets> for pb::TileSets {
    fn from(sets: &TileSets) -> Self {
        pb::TileSets {
            sim: tile_keys(&sets.sim),
            spawn: tile_keys(&sets.spawn),
            active: tile_keys(&sets.active),
        }
    }
}

impl From<pb::TileSets> for TileSets {
    fn from(sets: pb::TileSets) -> Self {
        TileSets {
            sim: tiles_of_keys(sets.sim),
            spawn: tiles_of_keys(sets.spawn),
            active: tiles_of_keys(sets.active),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_keep_their_order_bits_names_and_protobuf_values() {
        assert_eq!(Ring::ALL.map(Ring::bit), [1, 2, 4]);
        assert_eq!(Ring::ALL.map(Ring::as_str), ["sim", "spawn", "active"]);
        for ring in Ring::ALL {
            assert_eq!(Ring::from_proto(pb::Ring::from(ring) as i32), Ok(ring));
        }
        assert_eq!(Ring::from_proto(0).unwrap_err().field, "ring");
        assert_eq!(
            Ring::from_proto(9).unwrap_err().to_string(),
            "ring: unknown ring 9"
        );
    }

    #[test]
    fn viewers_and_tile_sets_round_trip_through_protobuf() {
        let viewer = Viewer {
            id: "cam".into(),
            x: 1.5,
            z: -2.0,
            view_width: 100.0,
            view_depth: 50.0,
            velocity_x: 30.0,
            velocity_z: -0.5,
        };
        assert_eq!(Viewer::from(pb::Viewer::from(viewer.clone())), viewer);
        let sets = TileSets {
            sim: vec![(0, 0)],
            spawn: vec![(-1, 0), (0, 0)],
            active: vec![(-1, -1), (0, -1), (-1, 0), (0, 0)],
        };
        assert_eq!(TileSets::from(pb::TileSets::from(&sets)), sets);
    }
}
