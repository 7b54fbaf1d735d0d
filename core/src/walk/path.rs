//! Path checks along a polyline, in two modes:
//!
//! - **sampled** ([`Walker::check_sampled`]): the original's `findWalkablePath`
//!   (WALKABILITY.md §6) per segment: 21 points `start + (end - start)/20 * i`, whatever
//!   the length, blocked at the first unwalkable sample; the path is the samples.
//!   Anything narrower than the spacing can fall between two samples.
//! - **tiles** ([`Walker::check_tiles`]): every movement tile (1 m by default, as the
//!   original's server moves) the segment crosses, judged at the tile's centre as that
//!   server asks; where a segment passes exactly through a tile corner both tiles beside
//!   the corner are judged too (no slipping diagonally between two blocked tiles).

use libm::floor;

use super::{Reason, WalkGrids, Walker};

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
/// cells beside the corner come before the diagonal one.
pub fn tiles_crossed(
    a: (f64, f64),
    b: (f64, f64),
    tile: f64,
    mut each: impl FnMut(i64, i64) -> bool,
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
    if !each(ix, iz) {
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
            if !each(ix + sx, iz) || !each(ix, iz + sz) {
                return;
            }
            ix += sx;
            iz += sz;
            tx += step_x;
            tz += step_z;
            left_x -= 1;
            left_z -= 1;
        }
        if !each(ix, iz) {
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
        let centre = |i: i64| (i as f64 + 0.5) * tile;
        check_tiles_by(points, tile, |ix, iz| self.blocked(centre(ix), centre(iz)))
    }
}

impl WalkGrids<'_, '_> {
    /// [`Walker::check_tiles`] over 1 m tiles, each judged from its block's grid.
    pub fn check_tiles(&mut self, points: &[(f64, f64)]) -> PathCheck {
        check_tiles_by(points, 1.0, |ix, iz| self.blocked(ix, iz))
    }
}

/// The tiles-mode check of `points` over tiles of edge `tile`, `judge(ix, iz)` saying
/// why a tile is blocked; a tile shared by consecutive segments is judged once.
pub fn check_tiles_by(
    points: &[(f64, f64)],
    tile: f64,
    mut judge: impl FnMut(i64, i64) -> Option<Reason>,
) -> PathCheck {
    let mut path: Vec<(f64, f64)> = Vec::new();
    let mut last: Option<(i64, i64)> = None;
    let mut blocked = None;
    let centre = |i: i64| (i as f64 + 0.5) * tile;
    let mut visit = |ix: i64, iz: i64| {
        if last == Some((ix, iz)) {
            return true;
        }
        last = Some((ix, iz));
        let at = (centre(ix), centre(iz));
        path.push(at);
        match judge(ix, iz) {
            Some(reason) => {
                blocked = Some((at, reason));
                false
            }
            None => true,
        }
    };
    match points {
        [] => {}
        [(x, z)] => {
            visit(floor(x / tile) as i64, floor(z / tile) as i64);
        }
        _ => {
            for pair in points.windows(2) {
                let mut go = true;
                tiles_crossed(pair[0], pair[1], tile, |ix, iz| {
                    go = visit(ix, iz);
                    go
                });
                if !go {
                    break;
                }
            }
        }
    }
    PathCheck { blocked, path }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crossed(a: (f64, f64), b: (f64, f64)) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        tiles_crossed(a, b, 1.0, |x, z| {
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
        let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..5_000 {
            let a = (next() * 40.0 - 20.0, next() * 40.0 - 20.0);
            let b = (a.0 + next() * 20.0 - 10.0, a.1 + next() * 20.0 - 10.0);
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
