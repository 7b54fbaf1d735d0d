//! Path checks along a polyline, in two modes:
//!
//! - **sampled** ([`Walker::check_sampled`]): the original's `findWalkablePath`
//!   (docs/src/reference/walkability.md, `findWalkablePath`) per segment: 21 points `start + (end - start)/20 * i`, whatever
//!   the length, blocked at the first unwalkable sample; the path is the samples.
//!   Anything narrower than the spacing can fall between two samples.
//! - **tiles** ([`Walker::check_tiles`]): every movement tile (1 m by default, as the
//!   original's server moves) the segment crosses, judged at the tile's centre as that
//!   server asks; where a segment passes exactly through a tile corner both tiles beside
//!   the corner are judged too (no slipping diagonally between two blocked tiles).
//!   Under a rule that judges steps (`block-step`), each move between consecutive tiles
//!   may rise at most one block; at an exact corner crossing the two tiles beside the
//!   corner must each be a step from the tile before and to the tile after, as must
//!   the diagonal move itself. A step that rises more blocks at the tile it enters,
//!   reason [`Reason::Step`].

use libm::floor;

use super::{Reason, WalkGrids, Walker};
// Movement tiles `(ix, iz)` are index pairs too, of the movement grid.
use crate::tile::Tile;

/// How a tiles-mode check and a path search judge movement tiles.
pub trait TileJudge {
    /// Why tile `(ix, iz)` may not be stood on, judged at its centre.
    fn blocked(&mut self, ix: i64, iz: i64) -> Option<Reason>;

    /// Whether a move from tile `from` to its neighbour `to` rises too much.
    fn step_blocked(&mut self, _from: Tile, _to: Tile) -> bool {
        false
    }
}

impl<J: TileJudge + ?Sized> TileJudge for &mut J {
    fn blocked(&mut self, ix: i64, iz: i64) -> Option<Reason> {
        (**self).blocked(ix, iz)
    }

    fn step_blocked(&mut self, from: Tile, to: Tile) -> bool {
        (**self).step_blocked(from, to)
    }
}

/// A judge of standing only (no steps): `blocked(ix, iz)`.
#[derive(Debug, Clone, Copy)]
pub struct Standing<F>(pub F);

impl<F: FnMut(i64, i64) -> Option<Reason>> TileJudge for Standing<F> {
    fn blocked(&mut self, ix: i64, iz: i64) -> Option<Reason> {
        (self.0)(ix, iz)
    }
}

/// Tiles of edge `tile` judged one point at a time by a walker ([`Walker::blocked`] at
/// the centre; steps by the centres' heights).
#[derive(Debug, Clone, Copy)]
pub struct PointJudge<'w, 'a> {
    pub walker: &'w Walker<'a>,
    pub tile: f64,
}

impl PointJudge<'_, '_> {
    fn centre(&self, i: i64) -> f64 {
        (i as f64 + 0.5) * self.tile
    }
}

impl TileJudge for PointJudge<'_, '_> {
    fn blocked(&mut self, ix: i64, iz: i64) -> Option<Reason> {
        self.walker.blocked(self.centre(ix), self.centre(iz))
    }

    fn step_blocked(&mut self, from: Tile, to: Tile) -> bool {
        if !self.walker.judges_steps() {
            return false;
        }
        let a = self.walker.height(self.centre(from.0), self.centre(from.1));
        let b = self.walker.height(self.centre(to.0), self.centre(to.1));
        self.walker.step_blocked(a, b)
    }
}

impl TileJudge for WalkGrids<'_, '_> {
    fn blocked(&mut self, ix: i64, iz: i64) -> Option<Reason> {
        WalkGrids::blocked(self, ix, iz)
    }

    fn step_blocked(&mut self, from: Tile, to: Tile) -> bool {
        WalkGrids::step_blocked(self, from, to)
    }
}

pub use super::limits::{MAX_PATH_LENGTH, MAX_PATH_POINTS};

/// Samples per segment beyond the start, the original's `steps`.
const STEPS: u32 = 20;

/// The answer of a path check.
#[derive(Debug, Clone, PartialEq)]
pub struct PathCheck {
    /// The first blocked point and why, in the order the polyline is walked.
    pub blocked: Option<((f64, f64), Reason)>,
    /// Sampled mode: every segment's 21 samples in order when nothing is blocked,
    /// empty when blocked (the original's `path`). Tiles mode: the centres of the tiles
    /// crossed, in order, up to and including the blocked one.
    pub path: Vec<(f64, f64)>,
}

/// The movement tiles a segment from `a` to `b` crosses, in order, with tiles of edge
/// `tile`: a grid walk (Amanatides and Woo) that takes exactly as many steps as the
/// cells between the end cells, so it always ends; at an exact corner crossing the two
/// cells beside the corner come before the diagonal one, called with `beside = true`.
/// `each(ix, iz, beside)` answers whether to go on.
pub fn tiles_crossed(
    a: (f64, f64),
    b: (f64, f64),
    tile: f64,
    mut each: impl FnMut(i64, i64, bool) -> bool,
) {
    let cell = |v: f64| floor(v / tile) as i64;
    let (mut ix, mut iz) = (cell(a.0), cell(a.1));
    let (ex, ez) = (cell(b.0), cell(b.1));
    let (dx, dz) = (b.0 - a.0, b.1 - a.1);
    let (sx, sz) = (if dx > 0.0 { 1 } else { -1 }, if dz > 0.0 { 1 } else { -1 });
    let first_edge = |i: i64, s: i64, o: f64, d: f64| {
        if d == 0.0 {
            f64::INFINITY
        } else {
            let edge = (i + i64::from(s > 0)) as f64 * tile;
            (edge - o) / d
        }
    };
    let (mut tx, mut tz) = (first_edge(ix, sx, a.0, dx), first_edge(iz, sz, a.1, dz));
    let (step_x, step_z) = (
        if dx == 0.0 {
            f64::INFINITY
        } else {
            tile / dx.abs()
        },
        if dz == 0.0 {
            f64::INFINITY
        } else {
            tile / dz.abs()
        },
    );
    if !each(ix, iz, false) {
        return;
    }
    let (mut left_x, mut left_z) = ((ex - ix).unsigned_abs(), (ez - iz).unsigned_abs());
    while left_x + left_z > 0 {
        let go_x = left_z == 0 || (left_x > 0 && tx < tz);
        let go_z = left_x == 0 || (left_z > 0 && tz < tx);
        if go_x {
            ix += sx;
            tx += step_x;
            left_x -= 1;
        } else if go_z {
            iz += sz;
            tz += step_z;
            left_z -= 1;
        } else {
            // Exactly through a corner: both cells beside it, then the diagonal one.
            if !each(ix + sx, iz, true) || !each(ix, iz + sz, true) {
                return;
            }
            ix += sx;
            iz += sz;
            tx += step_x;
            tz += step_z;
            left_x -= 1;
            left_z -= 1;
        }
        if !each(ix, iz, false) {
            return;
        }
    }
}

impl Walker<'_> {
    /// The original's `findWalkablePath` over each segment of `points` in turn.
    pub fn check_sampled(&self, points: &[(f64, f64)]) -> PathCheck {
        let mut path = Vec::new();
        for pair in points.windows(2) {
            let ((sx, sz), (ex, ez)) = (pair[0], pair[1]);
            let (dx, dz) = ((ex - sx) / f64::from(STEPS), (ez - sz) / f64::from(STEPS));
            for i in 0..=STEPS {
                let (x, z) = (sx + dx * f64::from(i), sz + dz * f64::from(i));
                if let Some(reason) = self.blocked(x, z) {
                    return PathCheck {
                        blocked: Some(((x, z), reason)),
                        path: Vec::new(),
                    };
                }
                path.push((x, z));
            }
        }
        PathCheck {
            blocked: None,
            path,
        }
    }

    /// Every movement tile of edge `tile` each segment of `points` crosses, judged at
    /// its centre one point at a time ([`Walker::blocked`]).
    pub fn check_tiles(&self, points: &[(f64, f64)], tile: f64) -> PathCheck {
        check_tiles_by(points, tile, PointJudge { walker: self, tile })
    }
}

impl WalkGrids<'_, '_> {
    /// [`Walker::check_tiles`] over 1 m tiles, each judged from its block's grid.
    pub fn check_tiles(&mut self, points: &[(f64, f64)]) -> PathCheck {
        check_tiles_by(points, 1.0, self)
    }
}

/// The tiles-mode check of `points` over tiles of edge `tile` by `judge`; a tile
/// shared by consecutive segments is judged once.
pub fn check_tiles_by(points: &[(f64, f64)], tile: f64, judge: impl TileJudge) -> PathCheck {
    let mut path = Vec::new();
    let blocked = walk_tiles(points, tile, judge, |at| path.push(at));
    PathCheck { blocked, path }
}

/// Walks the tiles of `points` in order, calling `each` with every tile's centre, up
/// to and including the first blocked one; answers it and why.
pub(crate) fn walk_tiles(
    points: &[(f64, f64)],
    tile: f64,
    mut judge: impl TileJudge,
    mut each: impl FnMut((f64, f64)),
) -> Option<((f64, f64), Reason)> {
    let mut last: Option<Tile> = None;
    // The last tile entered along the walk, and the tiles beside a corner since.
    let mut from: Option<Tile> = None;
    let mut beside: [Option<Tile>; 2] = [None, None];
    let mut blocked = None;
    let centre = |i: i64| (i as f64 + 0.5) * tile;
    let mut visit = |ix: i64, iz: i64, corner: bool| {
        let t = (ix, iz);
        if last == Some(t) {
            return true;
        }
        last = Some(t);
        let at = (centre(ix), centre(iz));
        each(at);
        let reason = judge.blocked(ix, iz).or_else(|| {
            let step = from.is_some_and(|f| judge.step_blocked(f, t))
                || (!corner && beside.iter().flatten().any(|&b| judge.step_blocked(b, t)));
            step.then_some(Reason::Step)
        });
        if let Some(reason) = reason {
            blocked = Some((at, reason));
            return false;
        }
        if corner {
            let free = usize::from(beside[0].is_some());
            beside[free] = Some(t);
        } else {
            from = Some(t);
            beside = [None, None];
        }
        true
    };
    match points {
        [] => {}
        [(x, z)] => {
            visit(floor(x / tile) as i64, floor(z / tile) as i64, false);
        }
        _ => {
            for pair in points.windows(2) {
                let mut go = true;
                tiles_crossed(pair[0], pair[1], tile, |ix, iz, corner| {
                    go = visit(ix, iz, corner);
                    go
                });
                if !go {
                    break;
                }
            }
        }
    }
    blocked
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;

    fn crossed(a: (f64, f64), b: (f64, f64)) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        tiles_crossed(a, b, 1.0, |x, z, _| {
            out.push((x, z));
            true
        });
        out
    }

    /// A brute-force oracle: the cells whose closed square the segment touches.
    fn touched(a: (f64, f64), b: (f64, f64)) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        let (x0, x1) = (
            a.0.min(b.0).floor() as i64 - 1,
            a.0.max(b.0).floor() as i64 + 1,
        );
        let (z0, z1) = (
            a.1.min(b.1).floor() as i64 - 1,
            a.1.max(b.1).floor() as i64 + 1,
        );
        for ix in x0..=x1 {
            for iz in z0..=z1 {
                // Clip the segment against the cell's open interior, shrunk a little so
                // cells only touched at an edge or a corner do not count.
                let e = 1e-9;
                let (lo_x, hi_x, lo_z, hi_z) = (
                    ix as f64 + e,
                    ix as f64 + 1.0 - e,
                    iz as f64 + e,
                    iz as f64 + 1.0 - e,
                );
                let (mut t0, mut t1) = (0.0f64, 1.0f64);
                let mut ok = true;
                for (p, d, lo, hi) in [(a.0, b.0 - a.0, lo_x, hi_x), (a.1, b.1 - a.1, lo_z, hi_z)] {
                    if d == 0.0 {
                        ok &= p > lo && p < hi;
                    } else {
                        let (u, v) = ((lo - p) / d, (hi - p) / d);
                        t0 = t0.max(u.min(v));
                        t1 = t1.min(u.max(v));
                    }
                }
                if ok && t0 < t1 {
                    out.push((ix, iz));
                }
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn the_walk_visits_every_cell_the_segment_passes_through_in_order() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        for _ in 0..5_000 {
            let a = (rng.random_range(-20.0..20.0), rng.random_range(-20.0..20.0));
            let b = (
                a.0 + rng.random_range(-10.0..10.0),
                a.1 + rng.random_range(-10.0..10.0),
            );
            let walk = crossed(a, b);
            // Consecutive cells are neighbours (8-connected), the ends are the end cells.
            assert_eq!(walk[0], (a.0.floor() as i64, a.1.floor() as i64));
            assert_eq!(
                *walk.last().unwrap(),
                (b.0.floor() as i64, b.1.floor() as i64)
            );
            for w in walk.windows(2) {
                assert!((w[0].0 - w[1].0).abs() <= 1 && (w[0].1 - w[1].1).abs() <= 1);
            }
            let mut sorted = walk.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted, touched(a, b), "{a:?} -> {b:?}: {walk:?}");
        }
    }

    #[test]
    fn a_corner_crossing_takes_both_cells_beside_it() {
        assert_eq!(
            crossed((0.5, 0.5), (1.5, 1.5)),
            [(0, 0), (1, 0), (0, 1), (1, 1)]
        );
        assert_eq!(crossed((0.5, 0.5), (0.5, 0.5)), [(0, 0)]);
        assert_eq!(crossed((0.5, 0.5), (-1.5, 0.5)), [(0, 0), (-1, 0), (-2, 0)]);
    }
}
