//! [`AreaLookup`]: [`ZoneSet::lookup`] for the points of one rectangle, the way an
//! area pass asks (a mesh tile, a grid of heights, a mutation's probe).
//!
//! A point's lookup reads every zone listed in its index tile and asks each whether
//! it reaches the point; where many small zones share a tile, most of that work is
//! for zones nowhere near the rectangle. Here each index tile's candidates are
//! narrowed once, in the index's order, to the zones whose outer bounds come within
//! the margin (and a little more, see [`SLACK`]) of the rectangle; every point of the
//! rectangle then reads only those. A zone left out reaches no point of the
//! rectangle and is near none, and both overlap rules decide from the zones that
//! reach a point alone, so every answer is the point lookup's, bit for bit.

use super::{Entry, Lookup, ZoneSet};
use crate::zones::model::Bounds;

/// Most index tiles an area narrows candidates for; a larger rectangle looks each
/// point up on its own.
const MAX_TILES: i64 = 1024;

/// What a zone must come within, beyond the margin, to stay a candidate: one metre
/// plus 2^-40 of its coordinates' magnitude, far more than the rounding between a
/// zone's outer bounds and [`crate::zones::FlatZone::reach`]'s own arithmetic.
const SLACK: f64 = 1.0;

/// Lookups over the points of one rectangle (see the module documentation).
#[derive(Debug)]
pub struct AreaLookup<'a> {
    set: &'a ZoneSet,
    margin: f64,
    /// The rectangle, its first index tile and its size in tiles; `None` when the
    /// rectangle is not finite, spans more than [`MAX_TILES`] or has no more points
    /// than tiles.
    grid: Option<Grid>,
    /// Each tile's narrowed candidates, filled on first use (row-major).
    tiles: Vec<Option<Vec<&'a Entry>>>,
}

#[derive(Debug, Clone, Copy)]
struct Grid {
    rect: Bounds,
    tx0: i64,
    tz0: i64,
    ntx: i64,
    ntz: i64,
}

impl Entry {
    /// True when the outer bounds, grown by `margin` plus [`SLACK`], meet `rect`.
    fn meets(&self, rect: &Bounds, margin: f64) -> bool {
        let b = &self.outer;
        let size = [b.min_x, b.max_x, b.min_z, b.max_z]
            .iter()
            .fold(0.0_f64, |m, c| m.max(c.abs()));
        let m = margin + SLACK + size * libm::ldexp(1.0, -40);
        b.min_x - m <= rect.max_x
            && b.max_x + m >= rect.min_x
            && b.min_z - m <= rect.max_z
            && b.max_z + m >= rect.min_z
    }
}

/// The smallest and largest of `v`, if every value is finite (and there is one).
fn span(v: &[f64]) -> Option<(f64, f64)> {
    let mut out: Option<(f64, f64)> = None;
    for &c in v {
        if !c.is_finite() {
            return None;
        }
        out = Some(out.map_or((c, c), |(lo, hi)| (lo.min(c), hi.max(c))));
    }
    out
}

impl ZoneSet {
    /// Lookups for the points of the grid `xs` x `zs` with `margin`: each answers
    /// what [`ZoneSet::lookup`] answers.
    pub fn area_lookup(&self, xs: &[f64], zs: &[f64], margin: f64) -> AreaLookup<'_> {
        let grid = (|| {
            let ((min_x, max_x), (min_z, max_z)) = (span(xs)?, span(zs)?);
            if self.is_empty() || !margin.is_finite() {
                return None;
            }
            let (tx0, tz0) = (self.tile_of(min_x), self.tile_of(min_z));
            let ntx = self.tile_of(max_x).checked_sub(tx0)?.checked_add(1)?;
            let ntz = self.tile_of(max_z).checked_sub(tz0)?.checked_add(1)?;
            let tiles = ntx.checked_mul(ntz)?;
            // Narrowing a tile costs about one lookup: worth it only where its
            // points outnumber its tiles.
            let points = (xs.len() as u128) * (zs.len() as u128);
            (tiles <= MAX_TILES && points > tiles as u128).then_some(Grid {
                rect: Bounds {
                    min_x,
                    min_z,
                    max_x,
                    max_z,
                },
                tx0,
                tz0,
                ntx,
                ntz,
            })
        })();
        let tiles = grid.map_or(0, |g| (g.ntx * g.ntz) as usize);
        AreaLookup {
            set: self,
            margin,
            grid,
            tiles: vec![None; tiles],
        }
    }
}

impl<'a> AreaLookup<'a> {
    /// [`ZoneSet::lookup`] at `(x, z)` with the area's margin. A point outside the
    /// rectangle is looked up on its own.
    #[inline]
    pub fn lookup(&mut self, x: f64, z: f64, terrain: impl FnOnce(f64, f64) -> f64) -> Lookup<'a> {
        let (set, margin) = (self.set, self.margin);
        if set.clear_of_all(x, z, margin) {
            return Lookup::Clear;
        }
        let Some(candidates) = self.candidates(x, z) else {
            return set.lookup_indexed(x, z, margin, terrain);
        };
        if !candidates.is_empty() {
            if let Some(s) = set.sample_in(candidates.iter().copied(), x, z, terrain) {
                return Lookup::Zone(s);
            }
            if candidates.iter().any(|e| e.near(x, z, margin)) {
                return Lookup::Near;
            }
        }
        set.lookup_beyond_candidates(x, z, margin)
    }

    /// The narrowed candidates of `(x, z)`'s tile, if the point lies in the grid.
    #[inline]
    fn candidates(&mut self, x: f64, z: f64) -> Option<&[&'a Entry]> {
        let g = self.grid.as_ref()?;
        let r = &g.rect;
        if !(x >= r.min_x && x <= r.max_x && z >= r.min_z && z <= r.max_z) {
            return None;
        }
        let set = self.set;
        let (tx, tz) = (set.tile_of(x), set.tile_of(z));
        let (i, k) = (tx - g.tx0, tz - g.tz0);
        if !(0..g.ntx).contains(&i) || !(0..g.ntz).contains(&k) {
            return None;
        }
        let (rect, margin) = (g.rect, self.margin);
        let slot = &mut self.tiles[(k * g.ntx + i) as usize];
        Some(slot.get_or_insert_with(|| {
            set.candidates(x, z)
                .filter(|e| e.meets(&rect, margin))
                .collect()
        }))
    }
}

#[cfg(test)]
impl AreaLookup<'_> {
    /// The candidates narrowed so far, summed over tiles, and what the same tiles'
    /// points would read without narrowing.
    pub(super) fn narrowed(&self) -> (usize, usize) {
        let Some(g) = self.grid else {
            return (0, 0);
        };
        let mut out = (0, 0);
        for (n, slot) in self.tiles.iter().enumerate() {
            if let Some(list) = slot {
                let (i, k) = (n as i64 % g.ntx, n as i64 / g.ntx);
                let x = (g.tx0 + i) as f64 * self.set.tile_size;
                let z = (g.tz0 + k) as f64 * self.set.tile_size;
                out.0 += list.len();
                out.1 += self.set.candidates(x, z).count();
            }
        }
        out
    }
}
