//! Tile layout: how a world's ground is cut into mesh tiles, where a tile's vertices
//! and height samples lie (the original game's conventions, docs/src/reference/height.md, "Tiles"), and
//! which tiles a change to an area touches.
//!
//! Below the generators: each generator declares its tile grid
//! ([`WorldGenerator::tile_grid`](crate::WorldGenerator::tile_grid)) and hyperscape's
//! worker normals sample on it; the meshes above build on the same coordinates.

use crate::zones::Bounds;

/// A tile `(tx, tz)`: its column and row in a world's [`TileGrid`]. The one tile
/// coordinate type of the project (the shared model and the server name it too).
pub type Tile = (i64, i64);

/// The largest tile index, in magnitude, that [`TileGrid::checked_tile_of`] and
/// [`tile_index`] accept: 2^52, so every index is exact as an `f64` and the difference
/// of two indices (plus one) fits an `i64` with room to spare.
pub const MAX_TILE_INDEX: i64 = 1 << 52;

/// `t` (a whole number, e.g. the result of `floor`) as a tile index, or `None` when it
/// is not finite or beyond `±MAX_TILE_INDEX`. Never saturates: `1e300` is refused, not
/// turned into `i64::MAX`.
pub fn tile_index(t: f64) -> Option<i64> {
    // Both bounds are exact in f64; NaN fails the comparison.
    if t.abs() <= MAX_TILE_INDEX as f64 {
        Some(t as i64)
    } else {
        None
    }
}

/// The mesh tile grid of a world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TileGrid {
    /// Edge length of a tile, in world units.
    pub size: f64,
    /// Vertices along one edge of a tile (edges are shared with the neighbours).
    pub resolution: u32,
    /// Hyperscape convention: tile `t` is centred on `t * size` and spans
    /// `[(t - 0.5) size, (t + 0.5) size]`. Otherwise tile `t` spans `[t size, (t+1) size]`.
    pub centred: bool,
}

impl TileGrid {
    /// Vertex spacing.
    pub fn step(&self) -> f64 {
        self.size / f64::from(self.resolution.max(2) - 1)
    }

    /// The lowest coordinate of tile `t` on one axis.
    pub fn origin(&self, t: i64) -> f64 {
        let o = t as f64 * self.size;
        if self.centred { o - self.size / 2.0 } else { o }
    }

    /// The tile that owns coordinate `c` (a tile owns `[origin, origin + size)`), or
    /// `None` when that tile's index is beyond `±MAX_TILE_INDEX` (or `c` is not finite).
    pub fn checked_tile_of(&self, c: f64) -> Option<i64> {
        let shift = if self.centred { 0.5 } else { 0.0 };
        tile_index((c / self.size + shift).floor())
    }

    /// The tile that owns coordinate `c` (a tile owns `[origin, origin + size)`).
    /// Saturates far outside the grid: callers whose input is not bounded to the grid
    /// use [`TileGrid::checked_tile_of`].
    ///
    /// `f64::floor`, not `libm::floor`: IEEE 754 defines floor exactly, so both give
    /// the same bits everywhere (`tests::std_floor_is_libm_floor`), and on wasm32
    /// `f64::floor` is the `f64.floor` instruction where `libm::floor` (without its
    /// nightly intrinsics) is a software routine, a seventh of a surface read there.
    pub fn tile_of(&self, c: f64) -> i64 {
        let shift = if self.centred { 0.5 } else { 0.0 };
        (c / self.size + shift).floor() as i64
    }

    /// Every tile whose heights or normals read a point of `bounds` grown by `margin`:
    /// tiles whose vertex extent, plus the one-vertex border their normals sample,
    /// intersects it. Row-major (tz outer, tx inner), so the order is deterministic.
    /// The answer has one entry per tile: callers bound the area first, or use
    /// [`TileGrid::rect_touching`] (a 10 km zone with a 10 km blend ring on 32 m tiles
    /// touches about 880,000 tiles).
    pub fn tiles_touching(&self, bounds: &Bounds, margin: f64) -> Vec<Tile> {
        self.rect_touching(bounds, margin).tiles().collect()
    }

    /// The tiles of [`TileGrid::tiles_touching`] as one inclusive rectangle.
    pub fn rect_touching(&self, bounds: &Bounds, margin: f64) -> TileRect {
        let grow = margin + self.step();
        // Tile t reads [origin(t) - step, origin(t) + size + step].
        let first =
            |lo: f64| libm::ceil((lo - grow - self.origin(0) - self.size) / self.size) as i64;
        let last = |hi: f64| libm::floor((hi + grow - self.origin(0)) / self.size) as i64;
        TileRect {
            min_tx: first(bounds.min_x),
            min_tz: first(bounds.min_z),
            max_tx: last(bounds.max_x),
            max_tz: last(bounds.max_z),
        }
    }
}

/// Offset of vertex 0 from the tile's placement point.
fn offset(layout: &TileGrid) -> f64 {
    if layout.centred {
        layout.size / 2.0
    } else {
        0.0
    }
}

/// World coordinate of vertex `i` of tile `t` on one axis: `f32(i*step - offset) + t*size`
/// (the original's main thread stores plane positions as float32).
pub fn vertex_coord(layout: &TileGrid, t: i64, i: usize) -> f64 {
    let local = f64::from((i as f64 * layout.step() - offset(layout)) as f32);
    local + t as f64 * layout.size
}

/// World coordinate of sample `i` (-1 ..= n) of the height grid, unrounded:
/// `(-offset + i*step) + t*size` (the original's worker).
pub fn border_coord(layout: &TileGrid, t: i64, i: i64) -> f64 {
    (-offset(layout) + i as f64 * layout.step()) + t as f64 * layout.size
}

/// An inclusive rectangle of tiles: `min_tx..=max_tx` by `min_tz..=max_tz`. Empty
/// when a max is below its min.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileRect {
    pub min_tx: i64,
    pub min_tz: i64,
    pub max_tx: i64,
    pub max_tz: i64,
}

impl TileRect {
    /// True when `tile` lies inside.
    #[inline]
    pub fn contains(&self, (tx, tz): Tile) -> bool {
        (self.min_tx..=self.max_tx).contains(&tx) && (self.min_tz..=self.max_tz).contains(&tz)
    }

    /// True when the two rectangles share a tile.
    pub fn intersects(&self, o: &TileRect) -> bool {
        !self.is_empty()
            && !o.is_empty()
            && self.min_tx <= o.max_tx
            && o.min_tx <= self.max_tx
            && self.min_tz <= o.max_tz
            && o.min_tz <= self.max_tz
    }

    /// True when the rectangle holds no tile.
    pub fn is_empty(&self) -> bool {
        self.max_tx < self.min_tx || self.max_tz < self.min_tz
    }

    /// How many tiles it holds (saturating).
    pub fn len(&self) -> u64 {
        if self.is_empty() {
            return 0;
        }
        let side = |lo: i64, hi: i64| (i128::from(hi) - i128::from(lo) + 1) as u128;
        let n = side(self.min_tx, self.max_tx) * side(self.min_tz, self.max_tz);
        u64::try_from(n).unwrap_or(u64::MAX)
    }

    /// Its tiles, row-major (tz outer, tx inner).
    pub fn tiles(&self) -> impl Iterator<Item = Tile> + use<> {
        let (x0, x1) = (self.min_tx, self.max_tx);
        (self.min_tz..=self.max_tz).flat_map(move |tz| (x0..=x1).map(move |tx| (tx, tz)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYPERSCAPE: TileGrid = TileGrid {
        size: 100.0,
        resolution: 64,
        centred: true,
    };

    /// IEEE 754 defines floor exactly: the standard library's (an instruction on
    /// wasm32 and with SSE4.1) and libm's agree on edge cases and random bit patterns.
    #[test]
    fn std_floor_is_libm_floor() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0 - f64::EPSILON / 2.0,
            -(1.0 - f64::EPSILON / 2.0),
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            9_007_199_254_740_993.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let edges =
            crate::maths::test_values::doubles(&edges, 0x9e37_79b9, 1_000_000, -4.0e12..4.0e12);
        for v in edges {
            let (a, b) = (v.floor(), libm::floor(v));
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{v:e}: {a:e} against {b:e}"
            );
        }
    }

    #[test]
    fn centred_tiles_own_half_open_spans() {
        assert_eq!(HYPERSCAPE.tile_of(0.0), 0);
        assert_eq!(HYPERSCAPE.tile_of(49.999), 0);
        assert_eq!(HYPERSCAPE.tile_of(50.0), 1);
        assert_eq!(HYPERSCAPE.tile_of(-50.0), 0);
        assert_eq!(HYPERSCAPE.tile_of(-50.001), -1);
        assert_eq!(HYPERSCAPE.origin(1), 50.0);
    }

    #[test]
    fn checked_tiles_refuse_what_does_not_fit() {
        assert_eq!(HYPERSCAPE.checked_tile_of(49.999), Some(0));
        assert_eq!(HYPERSCAPE.checked_tile_of(-50.001), Some(-1));
        let edge = MAX_TILE_INDEX as f64 * 100.0;
        assert_eq!(HYPERSCAPE.checked_tile_of(edge), Some(MAX_TILE_INDEX));
        assert_eq!(HYPERSCAPE.checked_tile_of(-edge), Some(-MAX_TILE_INDEX));
        for c in [
            4.0 * edge,
            -1e21 * 100.0,
            1e299,
            -1e300,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(HYPERSCAPE.checked_tile_of(c), None, "{c}");
        }
        assert_eq!(tile_index(-3.0), Some(-3));
        assert_eq!(tile_index(1e19), None);
    }

    #[test]
    fn touching_includes_the_normal_border() {
        let b = |x0, z0, x1, z1| Bounds {
            min_x: x0,
            min_z: z0,
            max_x: x1,
            max_z: z1,
        };
        // Well inside tile (0, 0).
        assert_eq!(
            HYPERSCAPE.tiles_touching(&b(-10.0, -10.0, 10.0, 10.0), 1.0),
            [(0, 0)]
        );
        // 2 m from tile (1, 0)'s edge at x = 50: its border vertex at 50 - 1.587 plus the
        // 1 m margin reaches 47.4, so (1, 0) is touched too.
        assert_eq!(
            HYPERSCAPE.tiles_touching(&b(40.0, -5.0, 48.0, 5.0), 1.0),
            [(0, 0), (1, 0)]
        );
        assert_eq!(
            HYPERSCAPE.tiles_touching(&b(40.0, -5.0, 47.0, 5.0), 1.0),
            [(0, 0)]
        );
        let osrs = TileGrid {
            size: 64.0,
            resolution: 65,
            centred: false,
        };
        assert_eq!(
            osrs.tiles_touching(&b(3200.0, 3200.0, 3210.0, 3210.0), 0.0),
            [(49, 49), (50, 49), (49, 50), (50, 50)]
        );
    }
}
