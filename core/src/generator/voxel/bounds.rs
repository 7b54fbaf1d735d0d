//! How fast the raw ground can change from one column to the next, and what that
//! proves about talus erosion without reading a column's neighbours.
//!
//! The height noise times `amplitude` (`a`, before it is floored) is a composition of
//! simplex fields, each at most [`GRADIENT_BOUND`] steep: the warp moves the sampled
//! point by at most `warp * sqrt 2 * G * wf` per block (`wf = 0.5 / scale`, the warp's
//! frequency), so the three octaves (frequencies `f`, `2f`, `4f` with weights 1, 1/2,
//! 1/4, divided by 1.75) change `a` by at most
//! `height = amplitude / 1.75 * G * 3 f * (1 + sqrt 2 * warp * G * wf)` blocks per block
//! of (Manhattan) distance; the river noise by `river = G / river_scale * (1 + ...)`.
//!
//! When `height` is at most the talus threshold `t`, flooring keeps the uncarved tops
//! within `t d` of each other at distance `d` (`a' >= a - t d` gives
//! `floor a' >= floor a - t d`, and the clamp keeps that). Talus erosion only lowers a
//! column, and a lowered column stays at least `t` above its lowest neighbour, so a
//! column `p` ends at least `tau` high after any number of iterations when every column
//! `q` within reach is at least `tau - t d(p, q)` high before them (by induction over
//! the iterations). Hence, on such a world:
//!
//! - a column that no river may have carved deeper than `t d` below it within
//!   `erosion_iterations` is not eroded at all: its neighbours never sink more than `t`
//!   below it (`Voxel::settled`, the tests' check);
//! - a column is under water after erosion exactly when its raw top is below sea level
//!   (a river column sits one block below sea level, at most `t` under any neighbour's
//!   bound), so the coast rule reads raw tops ([`Voxel::unzoned_water`]).
//!
//! Floating point: the computed `a` differs from the exact one by far less than
//! [`Slopes::error`] (a few units in the last place of coordinates at most
//! `|x| + |z| + 2 warp`, times the slopes, against a margin of 2^-40 of them), and every
//! bound leaves that margin on both ends. `tests` in `heights.rs` check the fast paths
//! against the rectangle path over many worlds, including ones as steep as the bounds
//! allow, and that an understated gradient bound is caught.

use super::simplex::GRADIENT_BOUND;
use super::{
    Voxel, VoxelConfig,
    field::{RIVER_MAX_RISE, RawPoint},
};

/// Columns farther out than this (in either axis) take the exact path without bounds.
const BOUNDED_COLUMNS: i64 = 1 << 31;

/// Steepest changes of a world's raw ground, per block of Manhattan distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Slopes {
    /// Of the height noise times `amplitude`, in blocks.
    pub height: f64,
    /// Of the river noise.
    pub river: f64,
    warp: f64,
    amplitude: f64,
}

impl Slopes {
    /// The slopes of `config` with the simplex gradient bound `g`, when they prove
    /// anything (the height slope under the talus threshold).
    pub fn of(config: &VoxelConfig, g: f64) -> Option<Slopes> {
        // Rounding of these few products is far inside the factor 1 + 1e-9.
        let up = 1.0 + 1e-9;
        let f = 1.0 / config.scale;
        let wf = 0.5 / config.scale;
        let warp_gain = 1.0 + std::f64::consts::SQRT_2 * config.warp * g * wf;
        let amplitude = f64::from(config.amplitude);
        let s = Slopes {
            height: up * amplitude / 1.75 * g * 3.0 * f * warp_gain,
            river: up * g / config.river_scale * warp_gain,
            warp: config.warp,
            amplitude,
        };
        (s.height < f64::from(config.talus_threshold)).then_some(s)
    }

    /// A bound on the rounding error of the computed height noise times `amplitude`
    /// (and of the river noise) at column `(x, z)`.
    pub fn error(&self, x: i64, z: i64) -> f64 {
        // The columns a bound reaches are at most 64 further out.
        let size = (x.unsigned_abs() + z.unsigned_abs()) as f64 + 2.0 * self.warp + 65.0;
        let unit = 2f64.powi(-40);
        (self.height + self.river + 1.0) * size * unit + (self.amplitude + 1.0) * unit
    }
}

impl Voxel {
    /// The slopes of this world, with the exact gradient bound.
    pub(crate) fn slopes_of(config: &VoxelConfig) -> Option<Slopes> {
        Slopes::of(config, GRADIENT_BOUND)
    }

    /// The eroded (ground, river) of column `(x, z)` when the slopes prove erosion
    /// leaves it as raw; `None` when they cannot (a river may have carved a neighbour
    /// too deep, the world is too steep, or the column is too far out).
    #[cfg(test)]
    pub(crate) fn settled(&self, x: i64, z: i64) -> Option<(i32, bool)> {
        self.bounded(x, z)?.0
    }

    /// Column `(x, z)`'s raw point when the slopes bound this column's neighbours
    /// (`None` on a world too steep for them, or too far out), with its eroded
    /// (ground, river) when they prove erosion leaves it as raw.
    pub(crate) fn bounded(&self, x: i64, z: i64) -> Option<(Option<(i32, bool)>, RawPoint)> {
        let s = self.slopes?;
        if x.abs() > BOUNDED_COLUMNS || z.abs() > BOUNDED_COLUMNS {
            return None;
        }
        let c = &self.config;
        let t = c.talus_threshold as i32;
        let e = s.error(x, z);
        if s.height + 2.0 * e > f64::from(t) {
            return None;
        }
        let p = self.fields.raw_point(x, z);
        let raw = Some((p.raw.top, p.raw.river));
        let k = c.erosion_iterations as i32;
        let sea = c.sea_level as i32;
        // A river column sits at most at sea level - 1, so it is deeper than `t d` below
        // this column only at distances `d` with `t d < top - sea + 1`.
        let m = p.raw.top - sea + 1;
        let reach = if m > t { ((m - 1) / t).min(k) } else { 0 };
        if reach == 0 || !self.river_within(&p, reach, e) {
            return Some((raw, p));
        }
        Some((None, p))
    }

    /// Whether a river may carve a column within Manhattan distance `d` of the column
    /// of `p` (rounding error `e`), by the slopes: none where every column there is
    /// too high for a river or the river noise too far from 0.
    fn river_within(&self, p: &RawPoint, d: i32, e: f64) -> bool {
        let (Some(s), c) = (self.slopes, &self.config) else {
            return true;
        };
        if c.river_width <= 0.0 {
            return false;
        }
        let d = f64::from(d);
        let lowest = self.fields.top_of(p.a - s.height * d - 2.0 * e);
        if lowest > c.sea_level as i32 + RIVER_MAX_RISE {
            return false;
        }
        let r = p
            .river_noise
            .unwrap_or_else(|| self.fields.river_noise(p.wx, p.wz));
        r.abs() - s.river * d - 2.0 * e < c.river_width
    }

    /// Whether the slopes prove the four neighbours of column `(x, z)`, whose raw
    /// point [`Voxel::bounded`] gave as `p`, dry after erosion (zones aside): their raw
    /// tops at or above sea level and no river there.
    pub(crate) fn dry_around(&self, x: i64, z: i64, p: &RawPoint) -> bool {
        let Some(s) = self.slopes else {
            return false;
        };
        let e = s.error(x, z);
        let lowest = self.fields.top_of(p.a - s.height - 2.0 * e);
        lowest >= self.config.sea_level as i32 && !self.river_within(p, 1, e)
    }

    /// Whether column `(x, z)` is under water after erosion, zones aside.
    pub(crate) fn unzoned_water(&self, x: i64, z: i64) -> bool {
        let sea = self.config.sea_level as i32;
        match self.slopes {
            Some(s) if x.abs() <= BOUNDED_COLUMNS && z.abs() <= BOUNDED_COLUMNS => {
                let e = s.error(x, z);
                if s.height + 2.0 * e <= f64::from(self.config.talus_threshold) {
                    return self.fields.raw(x, z).top < sea;
                }
                self.eroded_point(x, z).0 < sea
            }
            _ => self.eroded_point(x, z).0 < sea,
        }
    }
}
