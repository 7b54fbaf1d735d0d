//! The tile lifecycle's shared types: a [`Viewer`] as a game server reports it, the
//! three [`Ring`]s kept live around each view, [`TileSets`] (a tile set per ring) and
//! the transitions the tracker announces ([`TileChange`], [`TileTransition`], a
//! [`Step`] of them), with their protobuf forms (`Viewer`, `Ring`, `TileSets`,
//! `TileTransition`, `Transitions`).

use terrain_proto::v1 as pb;

use crate::{FieldError, Tile, tile_keys, tiles_of_keys};

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

/// What a transition says about a tile (not the zone registry's change of a zone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileChange {
    /// The tile joined the ring (its mesh is cached).
    Entered(Ring),
    /// The tile left the ring of every viewer.
    Left(Ring),
    /// The tile was released after the grace period outside every active ring.
    Culled,
}

/// One announced change of one tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileTransition {
    pub tile: Tile,
    pub change: TileChange,
}

/// The transitions of one step of a world's tracker, numbered per world (a gap in
/// `sequence` means steps were missed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Step {
    pub sequence: u64,
    pub transitions: Vec<TileTransition>,
}

impl From<TileTransition> for pb::TileTransition {
    fn from(t: TileTransition) -> Self {
        let (ring, kind) = match t.change {
            TileChange::Entered(r) => (pb::Ring::from(r), pb::TransitionKind::Entered),
            TileChange::Left(r) => (pb::Ring::from(r), pb::TransitionKind::Left),
            TileChange::Culled => (pb::Ring::Unspecified, pb::TransitionKind::Culled),
        };
        let (x, z) = t.tile;
        pb::TileTransition {
            tile: Some(pb::TileKey { x, z }),
            ring: ring as i32,
            kind: kind as i32,
        }
    }
}

impl TryFrom<pb::TileTransition> for TileTransition {
    type Error = FieldError;

    /// Refuses a transition without a tile (field `tile`), of an unknown or
    /// unspecified kind (field `kind`), or entering or leaving no known ring (field
    /// `ring`).
    fn try_from(t: pb::TileTransition) -> Result<Self, FieldError> {
        let tile = t
            .tile
            .map(|k| (k.x, k.z))
            .ok_or_else(|| FieldError::new("tile", "missing"))?;
        let change = match pb::TransitionKind::try_from(t.kind) {
            Ok(pb::TransitionKind::Entered) => TileChange::Entered(Ring::from_proto(t.ring)?),
            Ok(pb::TransitionKind::Left) => TileChange::Left(Ring::from_proto(t.ring)?),
            Ok(pb::TransitionKind::Culled) => TileChange::Culled,
            _ => {
                let kind = t.kind;
                return Err(FieldError::new("kind", format!("unknown kind {kind}")));
            }
        };
        Ok(TileTransition { tile, change })
    }
}

impl Step {
    /// The protobuf form of this step of `world`'s transitions.
    pub fn to_proto(&self, world: &str) -> pb::Transitions {
        pb::Transitions {
            world: world.to_string(),
            sequence: self.sequence,
            transitions: self.transitions.iter().map(|&t| t.into()).collect(),
        }
    }
}

impl TryFrom<pb::Transitions> for Step {
    type Error = FieldError;

    /// Refuses the step if one of its transitions is refused (see [`TileTransition`]).
    fn try_from(t: pb::Transitions) -> Result<Self, FieldError> {
        Ok(Step {
            sequence: t.sequence,
            transitions: t
                .transitions
                .into_iter()
                .map(TileTransition::try_from)
                .collect::<Result<_, _>>()?,
        })
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

    #[test]
    fn steps_round_trip_through_protobuf_and_bad_transitions_name_their_field() {
        let step = Step {
            sequence: 9,
            transitions: vec![
                TileTransition {
                    tile: (1, -2),
                    change: TileChange::Entered(Ring::Active),
                },
                TileTransition {
                    tile: (0, 0),
                    change: TileChange::Left(Ring::Sim),
                },
                TileTransition {
                    tile: (-5, 3),
                    change: TileChange::Culled,
                },
            ],
        };
        let message = step.to_proto("main");
        assert_eq!((message.world.as_str(), message.sequence), ("main", 9));
        assert_eq!(message.transitions[2].ring, pb::Ring::Unspecified as i32);
        assert_eq!(Step::try_from(message), Ok(step));
        let entered = pb::TransitionKind::Entered as i32;
        let bad = |t: pb::TileTransition| TileTransition::try_from(t).unwrap_err();
        let tile = Some(pb::TileKey { x: 0, z: 0 });
        assert_eq!(bad(pb::TileTransition::default()).field, "tile");
        let unknown_kind = pb::TileTransition {
            tile,
            kind: 7,
            ..Default::default()
        };
        assert_eq!(bad(unknown_kind).to_string(), "kind: unknown kind 7");
        let no_ring = pb::TileTransition {
            tile,
            kind: entered,
            ring: 0,
        };
        assert_eq!(bad(no_ring).field, "ring");
    }
}
