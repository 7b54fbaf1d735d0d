//! A walkability grid as bytes: one byte a 1 m movement tile, flags of what a game's
//! collision map needs (the adapter's `walkGrid`, `GET .../walk-grid`, gRPC
//! `GetWalkGrid`). Each tile is judged at its centre `(x + 0.5, z + 0.5)` exactly as
//! [`Walker::info`] judges a point ([`Walker::grid`], the area path).

use super::{Reason, Walker};
use crate::zones::Reach;

/// The tile may be stood on.
pub const WALKABLE: u8 = 1;
/// Not walkable: under water.
pub const WATER: u8 = 2;
/// Not walkable: steeper than the rule allows.
pub const STEEP: u8 = 4;
/// The tile's centre lies in a flat zone's core (walkable or not).
pub const ZONE_CORE: u8 = 8;
/// Not walkable: a zone registered with `walkable: false` (a building) covers it.
pub const ZONE_BLOCKED: u8 = 16;
/// Not walkable: a block too high to step onto (`block-step` worlds).
pub const STEP: u8 = 32;

/// The flags of one tile: its judgement and whether its centre is in a zone's core.
pub fn tile_flags(reason: Option<Reason>, in_core: bool) -> u8 {
    let judged = match reason {
        None => WALKABLE,
        Some(Reason::Water) => WATER,
        Some(Reason::Slope) => STEEP,
        Some(Reason::Zone) => ZONE_BLOCKED,
        Some(Reason::Step) => STEP,
    };
    if in_core { judged | ZONE_CORE } else { judged }
}

impl Walker<'_> {
    /// The flags of the `w x d` tiles from tile `(x0, z0)`: row-major, `w` tiles a row,
    /// z rising.
    pub fn flags(&self, x0: i64, z0: i64, w: usize, d: usize) -> Vec<u8> {
        let grid = self.grid(x0, z0, w, d);
        let zones = self.terrain().zones();
        let mut out = Vec::with_capacity(w * d);
        for j in 0..d as i64 {
            for i in 0..w as i64 {
                let (ix, iz) = (x0 + i, z0 + j);
                let reason = grid.get(ix, iz).flatten();
                let in_core = !zones.is_empty()
                    && matches!(
                        zones.zone_at(ix as f64 + 0.5, iz as f64 + 0.5),
                        Some((_, Reach::Core { .. }))
                    );
                out.push(tile_flags(reason, in_core));
            }
        }
        out
    }
}
