//! Tile masks: a zone's core as a set of 1 m tiles (a building's exact footprint)
//! instead of its whole rectangle.
//!
//! Tile `(tx, tz)` covers `[tx, tx + 1) x [tz, tz + 1)`. A masked zone keeps its
//! rectangle (`centerX`, `centerZ`, `width`, `depth`): every tile lies inside it, and
//! its core distance is still the rectangle's. How one masked zone reaches a point is
//! the original's rule (the book's reference chapter on zones, "Tile-mask zones"):
//!
//! - **core** when the point's tile `(floor(x), floor(z))` is in the mask;
//! - otherwise **blend** with factor `d / r` when `d`, the Euclidean distance from the
//!   point to the nearest mask tile's closed square, is at most the blend radius `r`
//!   (and the point lies within the mask's bounds grown by `r`);
//! - otherwise untouched: the rectangle itself is never tested.
//!
//! The nearest tile is found row by row: within a row of tiles the distance grows
//! with the distance along x on either side, so only the nearest tile left of, right
//! of or under the point can be nearest, and those are found by binary search. The
//! minimum is the same number the original's scan over every tile finds (each
//! candidate's distance is computed with the same operations; `sqrt` and the
//! subtractions are monotonic).

use std::fmt;
use std::sync::Arc;

use super::model::ZoneError;

/// Most tiles a mask may hold (a building of 256 x 256 m; the original's largest
/// building holds a few hundred).
pub const MAX_MASK_TILES: usize = 65_536;

/// Largest extent of a mask's bounds along either axis, in tiles.
pub const MAX_MASK_EXTENT: i64 = 1_024;

/// Largest |tile index|: tiles lie inside their zone's rectangle, whose centre is
/// at most the coordinate limit away from the origin, so this only refuses indices
/// no zone could hold before the rectangle test names them.
pub(crate) const MAX_TILE_INDEX: f64 = 1e9;

/// The document field a mask is read from.
const FIELD: &str = "tileMask";

/// A zone's footprint as 1 m tiles. Cheap to clone (shared).
#[derive(Clone, PartialEq)]
pub struct TileMask(Arc<Inner>);

#[derive(PartialEq)]
struct Inner {
    /// The tiles in the order they were given (the document's order).
    tiles: Vec<(i64, i64)>,
    /// Inclusive bounds of the tiles.
    min_x: i64,
    max_x: i64,
    min_z: i64,
    max_z: i64,
    /// `rows[tz - min_z]`: the x of the row's tiles, ascending.
    rows: Vec<Vec<i64>>,
}

impl fmt::Debug for TileMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TileMask")
            .field("tiles", &self.0.tiles.len())
            .field("x", &(self.0.min_x..=self.0.max_x))
            .field("z", &(self.0.min_z..=self.0.max_z))
            .finish()
    }
}

impl TileMask {
    /// The mask of `tiles` (`[x, z]` tile indices), or why not: huge indices,
    /// repeated tiles, no tile, more than
    /// [`MAX_MASK_TILES`] tiles or bounds wider than [`MAX_MASK_EXTENT`]. The field
    /// named is `tileMask`. (That every tile lies in the zone's rectangle is checked
    /// with the zone, [`TileMask::check_inside`].)
    pub fn new(tiles: &[[i64; 2]]) -> Result<TileMask, ZoneError> {
        Self::check_count(tiles.len())?;
        Self::from_tiles(tiles.iter().map(|&[x, z]| (x, z)).collect())
    }

    fn check_count(n: usize) -> Result<(), ZoneError> {
        if n == 0 {
            return Err(ZoneError::Shape {
                field: FIELD,
                reason: "must hold at least one tile (leave tileMask out for a rectangle)",
            });
        }
        if n > MAX_MASK_TILES {
            return Err(ZoneError::TooLarge {
                field: FIELD,
                value: n as f64,
                max: MAX_MASK_TILES as f64,
            });
        }
        Ok(())
    }

    /// The mask of integer tiles (same checks as [`TileMask::new`]).
    pub fn from_tiles(tiles: Vec<(i64, i64)>) -> Result<TileMask, ZoneError> {
        Self::check_count(tiles.len())?;
        let (mut min_x, mut max_x) = (i64::MAX, i64::MIN);
        let (mut min_z, mut max_z) = (i64::MAX, i64::MIN);
        for &(x, z) in &tiles {
            let far = x.unsigned_abs().max(z.unsigned_abs());
            if far as f64 > MAX_TILE_INDEX {
                return Err(ZoneError::TooLarge {
                    field: FIELD,
                    value: far as f64,
                    max: MAX_TILE_INDEX,
                });
            }
            (min_x, max_x) = (min_x.min(x), max_x.max(x));
            (min_z, max_z) = (min_z.min(z), max_z.max(z));
        }
        if max_x - min_x >= MAX_MASK_EXTENT || max_z - min_z >= MAX_MASK_EXTENT {
            return Err(ZoneError::TooLarge {
                field: FIELD,
                value: (max_x - min_x).max(max_z - min_z) as f64 + 1.0,
                max: MAX_MASK_EXTENT as f64,
            });
        }
        let mut rows = vec![Vec::new(); (max_z - min_z + 1) as usize];
        for &(x, z) in &tiles {
            rows[(z - min_z) as usize].push(x);
        }
        for row in &mut rows {
            row.sort_unstable();
            if row.windows(2).any(|w| w[0] == w[1]) {
                return Err(ZoneError::Shape {
                    field: FIELD,
                    reason: "lists a tile more than once",
                });
            }
        }
        Ok(TileMask(Arc::new(Inner {
            tiles,
            min_x,
            max_x,
            min_z,
            max_z,
            rows,
        })))
    }

    /// The tiles, in the order given.
    pub fn tiles(&self) -> &[(i64, i64)] {
        &self.0.tiles
    }

    pub fn len(&self) -> usize {
        self.0.tiles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.tiles.is_empty()
    }

    /// Inclusive tile bounds `(min_x, max_x, min_z, max_z)` (the original's
    /// `tileMaskBounds`).
    pub fn bounds(&self) -> (i64, i64, i64, i64) {
        (self.0.min_x, self.0.max_x, self.0.min_z, self.0.max_z)
    }

    /// Refuses a mask with a tile outside the rectangle `center ± half`: every tile's
    /// square must lie inside it.
    pub fn check_inside(&self, cx: f64, cz: f64, hw: f64, hd: f64) -> Result<(), ZoneError> {
        let i = &self.0;
        let inside = (i.min_x as f64) >= cx - hw
            && (i.max_x as f64) + 1.0 <= cx + hw
            && (i.min_z as f64) >= cz - hd
            && (i.max_z as f64) + 1.0 <= cz + hd;
        if inside {
            Ok(())
        } else {
            Err(ZoneError::Shape {
                field: "tileMask",
                reason: "every tile must lie inside the zone's rectangle (centerX, centerZ, width, depth)",
            })
        }
    }

    /// True when tile `(tx, tz)` is in the mask.
    #[inline]
    pub fn contains(&self, tx: i64, tz: i64) -> bool {
        let i = &self.0;
        if tz < i.min_z || tz > i.max_z || tx < i.min_x || tx > i.max_x {
            return false;
        }
        i.rows[(tz - i.min_z) as usize].binary_search(&tx).is_ok()
    }

    /// True when `(x, z)` lies in a mask tile.
    #[inline]
    pub fn covers(&self, x: f64, z: f64) -> bool {
        let (fx, fz) = (libm::floor(x), libm::floor(z));
        // Coordinates are within the coordinate limit, far inside i64.
        self.contains(fx as i64, fz as i64)
    }

    /// The distance from `(x, z)` to the nearest mask tile's closed square, if it is
    /// at most `r` (and the point lies within the bounds grown by `r`).
    pub fn distance_within(&self, x: f64, z: f64, r: f64) -> Option<f64> {
        let i = &self.0;
        if x < i.min_x as f64 - r
            || x > (i.max_x + 1) as f64 + r
            || z < i.min_z as f64 - r
            || z > (i.max_z + 1) as f64 + r
        {
            return None;
        }
        // Rows whose squares can be within r along z (all rows, clamped).
        let lo = (libm::floor(z - r) as i64 - 1).max(i.min_z);
        let hi = (libm::floor(z + r) as i64 + 1).min(i.max_z);
        let mut best = f64::INFINITY;
        for tz in lo..=hi {
            let row = &i.rows[(tz - i.min_z) as usize];
            if row.is_empty() {
                continue;
            }
            let tzf = tz as f64;
            let dz = if z < tzf {
                tzf - z
            } else if z > tzf + 1.0 {
                z - (tzf + 1.0)
            } else {
                0.0
            };
            // The nearest tiles of the row on either side of x (and under it).
            let at = row.partition_point(|&tx| (tx as f64) + 1.0 < x);
            for k in [at.wrapping_sub(1), at, at + 1] {
                let Some(&tx) = row.get(k) else { continue };
                let txf = tx as f64;
                let dx = if x < txf {
                    txf - x
                } else if x > txf + 1.0 {
                    x - (txf + 1.0)
                } else {
                    0.0
                };
                let d = libm::sqrt(dx * dx + dz * dz);
                if d < best {
                    best = d;
                }
            }
        }
        (best <= r).then_some(best)
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;

    fn mask(t: &[(i64, i64)]) -> TileMask {
        TileMask::from_tiles(t.to_vec()).unwrap()
    }

    /// The original's scan: every tile, in order.
    fn scan(m: &TileMask, x: f64, z: f64) -> f64 {
        let mut best = f64::INFINITY;
        for &(tx, tz) in m.tiles() {
            let (tx, tz) = (tx as f64, tz as f64);
            let dx = if x < tx {
                tx - x
            } else if x > tx + 1.0 {
                x - (tx + 1.0)
            } else {
                0.0
            };
            let dz = if z < tz {
                tz - z
            } else if z > tz + 1.0 {
                z - (tz + 1.0)
            } else {
                0.0
            };
            let d = libm::sqrt(dx * dx + dz * dz);
            if d < best {
                best = d;
            }
            if d == 0.0 {
                break;
            }
        }
        best
    }

    #[test]
    fn the_row_search_finds_the_scan_s_distance() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x1234_5678_9abc_def1);
        for _ in 0..40 {
            // An L- or U-shaped or scattered footprint.
            let mut tiles = Vec::new();
            for tx in -6..8 {
                for tz in -5..6 {
                    if rng.random_bool(0.55) {
                        tiles.push((tx, tz));
                    }
                }
            }
            if tiles.is_empty() {
                continue;
            }
            let m = mask(&tiles);
            for _ in 0..400 {
                let (x, z) = (rng.random_range(-20.0..20.0), rng.random_range(-20.0..20.0));
                let r = rng.random_range(0.0..12.0);
                let want = scan(&m, x, z);
                let got = m.distance_within(x, z, r);
                if want <= r {
                    assert_eq!(
                        got.map(f64::to_bits),
                        Some(want.to_bits()),
                        "({x}, {z}) r {r}"
                    );
                } else {
                    assert_eq!(got, None, "({x}, {z}) r {r}: {want}");
                }
                let (fx, fz) = (x.floor() as i64, z.floor() as i64);
                assert_eq!(m.covers(x, z), tiles.contains(&(fx, fz)));
            }
        }
    }

    #[test]
    fn bad_masks_name_the_field() {
        let e = TileMask::new(&[]).unwrap_err();
        assert_eq!(e.field(), "tileMask");
        let e = TileMask::new(&[[1, 1], [2, 1], [1, 1]]).unwrap_err();
        assert!(e.reason().contains("more than once"), "{e}");
        let e = TileMask::new(&[[1_000_000_000_000, 1]]).unwrap_err();
        assert!(e.reason().contains("at most"), "{e}");
        let e = TileMask::new(&[[0, 0], [2000, 0]]).unwrap_err();
        assert!(e.reason().contains("at most 1024"), "{e}");
        let many: Vec<[i64; 2]> = (0..=MAX_MASK_TILES as i64)
            .map(|k| [k % 300, k / 300])
            .collect();
        let e = TileMask::new(&many).unwrap_err();
        assert!(e.reason().contains("at most 65536"), "{e}");
        let m = TileMask::new(&[[-3, 4], [-2, 4]]).unwrap();
        assert!(m.check_inside(-2.0, 4.5, 2.0, 1.0).is_ok());
        assert!(m.check_inside(-2.0, 4.5, 0.9, 1.0).is_err());
    }
}
