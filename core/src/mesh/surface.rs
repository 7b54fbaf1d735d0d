//! The height of the served surface: the plane of the mesh triangle under a point,
//! which is what a player standing there sees (the exact height is the continuous
//! field the mesh samples).
//!
//! [`surface_height`] evaluates the triangle's three vertex heights on the spot;
//! [`SurfaceTile`] holds one tile's float32 vertex heights (computed once, or taken
//! from a built [`TileMesh`]) and answers any point of the tile from them, with the
//! same bits; [`SurfaceTiles`] holds several, by tile, and answers a stream of
//! points from whichever holds each (the client's replica and the server's
//! surface-mode batches both read through it).

use rustc_hash::FxHashMap;

use crate::Generator;
use crate::terrain::Terrain;
use crate::tile::{Tile, TileGrid};

use super::tile::{TileMesh, border_coord};

/// Where a point falls on the mesh: its tile, the cell's lower vertex indices and the
/// fractions across the cell.
#[derive(Debug, Clone, Copy)]
struct Cell {
    tile: Tile,
    ix: usize,
    iz: usize,
    fx: f64,
    fz: f64,
}

#[inline]
fn cell_of(layout: &TileGrid, x: f64, z: f64) -> Cell {
    let n = layout.resolution.max(2) as usize;
    let (tx, tz) = (layout.tile_of(x), layout.tile_of(z));
    let step = layout.step();
    let cell = |c: f64, t: i64| -> (usize, f64) {
        let g = (c - layout.origin(t)) / step;
        // `f64::floor`: libm's bits, an instruction on wasm32 (see `TileGrid::tile_of`).
        // `as usize` saturates (below 0 and NaN give 0), as a `max(0.0)` first would:
        // one comparison fewer, and no call to `fmax` on wasm32 (whose `f64.max`
        // treats NaN otherwise than Rust's `max`).
        let i = (g.floor() as usize).min(n - 2);
        (i, (g - i as f64).clamp(0.0, 1.0))
    };
    let ((ix, fx), (iz, fz)) = (cell(x, tx), cell(z, tz));
    Cell {
        tile: (tx, tz),
        ix,
        iz,
        fx,
        fz,
    }
}

/// The plane of the cell's triangle under `(fx, fz)`, from the corner heights
/// `h(i, j)` (vertex `(ix + i, iz + j)`, already rounded to f32). Cells split along the
/// (ix, iz+1)-(ix+1, iz) diagonal: `fx + fz <= 1` lies in triangle (a, b, d), the rest
/// in (b, c, d).
#[inline(always)]
fn on_triangle(fx: f64, fz: f64, h: impl Fn(usize, usize) -> f64) -> f64 {
    if fx + fz <= 1.0 {
        let (a, b, d) = (h(0, 0), h(0, 1), h(1, 0));
        a + (d - a) * fx + (b - a) * fz
    } else {
        let (b, c, d) = (h(0, 1), h(1, 1), h(1, 0));
        c + (b - c) * (1.0 - fx) + (d - c) * (1.0 - fz)
    }
}

/// The height at `(x, z)` on the tile mesh: the float32 vertex heights of the triangle
/// under the point, interpolated on its plane. Cells split along the (ix, iz+1)-(ix+1,
/// iz) diagonal: `fx + fz <= 1` lies in triangle (a, b, d), the rest in (b, c, d).
pub fn surface_height(terrain: &Terrain, x: f64, z: f64) -> f64 {
    let layout = terrain.generator().tile_grid();
    let c = cell_of(&layout, x, z);
    // The mesh samples vertex heights at these coordinates.
    let vx = [
        border_coord(&layout, c.tile.0, c.ix as i64),
        border_coord(&layout, c.tile.0, c.ix as i64 + 1),
    ];
    let vz = [
        border_coord(&layout, c.tile.1, c.iz as i64),
        border_coord(&layout, c.tile.1, c.iz as i64 + 1),
    ];
    on_triangle(c.fx, c.fz, |i, j| {
        f64::from(terrain.height(vx[i], vz[j]) as f32)
    })
}

/// One tile's float32 vertex heights: the served surface of that tile, cached.
#[derive(Debug, Clone)]
pub struct SurfaceTile {
    layout: TileGrid,
    key: Tile,
    /// Vertices per edge.
    n: usize,
    /// Row-major (`iz * n + ix`) f32 vertex heights, widened back to f64.
    heights: Vec<f64>,
}

impl SurfaceTile {
    /// Tile `key` of `terrain`: one area pass over its vertices (the heights
    /// [`crate::mesh::build_tile`] gives the same tile).
    pub fn new(terrain: &Terrain, key: Tile) -> Self {
        let layout = terrain.generator().tile_grid();
        let n = layout.resolution.max(2) as usize;
        let xs: Vec<f64> = (0..n as i64)
            .map(|i| border_coord(&layout, key.0, i))
            .collect();
        let zs: Vec<f64> = (0..n as i64)
            .map(|i| border_coord(&layout, key.1, i))
            .collect();
        let mut heights = vec![0.0; n * n];
        terrain.fill_axes(&xs, &zs, &mut heights);
        for h in &mut heights {
            *h = f64::from(*h as f32);
        }
        SurfaceTile {
            layout,
            key,
            n,
            heights,
        }
    }

    /// The surface of a built tile mesh (`layout` is the mesh's terrain's
    /// [`crate::WorldGenerator::tile_grid`]); `None` when the mesh's resolution is not the
    /// layout's or its heights are missing.
    pub fn from_mesh(mesh: &TileMesh, layout: TileGrid) -> Option<Self> {
        let n = layout.resolution.max(2) as usize;
        if mesh.resolution as usize != n || mesh.heights.len() != n * n {
            return None;
        }
        Some(SurfaceTile {
            layout,
            key: mesh.key,
            n,
            heights: mesh.heights.iter().map(|&h| f64::from(h as f32)).collect(),
        })
    }

    /// Tile `key`'s surface from its float32 vertex heights, row-major (`iz * n + ix`,
    /// `n` the layout's vertices per edge), as a client holding them has them (the
    /// Node package's `src/surface.ts` keeps tiles so, and its tests compare its
    /// evaluation with this one's); `None` unless there are `n * n` of them.
    pub fn from_heights(layout: TileGrid, key: Tile, heights: &[f32]) -> Option<Self> {
        let n = layout.resolution.max(2) as usize;
        if heights.len() != n * n {
            return None;
        }
        Some(SurfaceTile {
            layout,
            key,
            n,
            heights: heights.iter().map(|&h| f64::from(h)).collect(),
        })
    }

    #[cfg(test)]
    fn with_layout(mut self, layout: TileGrid) -> Self {
        self.layout = layout;
        self
    }

    /// The tile this surface covers.
    pub fn key(&self) -> Tile {
        self.key
    }

    /// The vertex heights (float32 values widened to f64), row-major: vertex `(ix,
    /// iz)` at `iz * n + ix`, `n` the layout's vertices per edge. A point's height is
    /// the plane of its cell's triangle through these (see [`surface_height`]), so a
    /// client that holds them can answer the tile's points itself.
    pub fn heights(&self) -> &[f64] {
        &self.heights
    }

    /// The surface height at `(x, z)`, bit for bit [`surface_height`]'s; `None` when
    /// the point lies in another tile.
    #[inline]
    pub fn height(&self, x: f64, z: f64) -> Option<f64> {
        let c = cell_of(&self.layout, x, z);
        (c.tile == self.key).then(|| self.on_cell(&c))
    }

    /// The height on cell `c` of this tile.
    #[inline(always)]
    fn on_cell(&self, c: &Cell) -> f64 {
        let (n, at) = (self.n, c.iz * self.n + c.ix);
        let h = &self.heights;
        on_triangle(c.fx, c.fz, |i, j| h[at + j * n + i])
    }
}

/// Surface tiles of one layout, by tile: the point's cell is found once, then read
/// from the tile that holds it (the one the last read used, or found in the index).
#[derive(Debug, Clone)]
pub struct SurfaceTiles {
    layout: TileGrid,
    tiles: Vec<SurfaceTile>,
    index: FxHashMap<Tile, usize>,
}

impl SurfaceTiles {
    /// No tiles yet, of `layout` (the terrain's [`crate::WorldGenerator::tile_grid`]).
    pub fn new(layout: TileGrid) -> Self {
        SurfaceTiles {
            layout,
            tiles: Vec::new(),
            index: FxHashMap::default(),
        }
    }

    /// Adds `tile`, replacing one of the same key. A tile of another layout is not
    /// added (it would answer other cells); answers whether it was.
    pub fn insert(&mut self, tile: SurfaceTile) -> bool {
        if tile.layout != self.layout {
            return false;
        }
        match self.index.get(&tile.key) {
            Some(&at) => self.tiles[at] = tile,
            None => {
                self.index.insert(tile.key, self.tiles.len());
                self.tiles.push(tile);
            }
        }
        true
    }

    /// The number of tiles held.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// Whether no tile is held.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }

    /// The grid the tiles are of.
    pub fn layout(&self) -> TileGrid {
        self.layout
    }

    /// Drops every tile held (keeping the allocations).
    pub fn clear(&mut self) {
        self.tiles.clear();
        self.index.clear();
    }

    /// The tiles held, in the order they were added.
    pub fn keys(&self) -> impl Iterator<Item = Tile> + '_ {
        self.tiles.iter().map(|t| t.key)
    }

    /// Whether tile `key` is held.
    pub fn contains(&self, key: Tile) -> bool {
        self.index.contains_key(&key)
    }

    /// The surface height at `(x, z)` from the tile holding it, bit for bit
    /// [`surface_height`]'s; `None` when no held tile does. `last` is the caller's
    /// cursor (start it at 0): the tile of its previous read, tried first, as
    /// consecutive reads mostly stay in one tile.
    #[inline]
    pub fn height(&self, last: &mut usize, x: f64, z: f64) -> Option<f64> {
        let c = cell_of(&self.layout, x, z);
        let tile = match self.tiles.get(*last) {
            Some(tile) if tile.key == c.tile => tile,
            _ => {
                let &at = self.index.get(&c.tile)?;
                *last = at;
                &self.tiles[at]
            }
        };
        Some(tile.on_cell(&c))
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::mesh::build_tile;
    use crate::zones::{FlatZone, Overlap, Shape, ZoneSet};
    use crate::{GeneratorKind, WorldGenerator};

    /// The cell index `cell_of` takes, `floor(g) as usize` then at most `n - 2`, is
    /// the one `floor(g).max(0.0) as usize` gave (before it, a call to `fmax` on
    /// wasm32): `as` saturates below 0 and maps NaN to 0, on edge cases and random
    /// bit patterns.
    #[test]
    fn the_saturating_cell_index_is_the_clamped_one() {
        let edges = [
            0.0,
            -0.0,
            -0.5,
            -1.0,
            0.999_999_999,
            61.5,
            62.0,
            63.0,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let values =
            crate::maths::test_values::doubles(&edges, 0x2545_f491, 1_000_000, -64.0..128.0);
        for n in [2_usize, 64, 65] {
            for &g in &values {
                let clamped = (g.floor().max(0.0) as usize).min(n - 2);
                assert_eq!((g.floor() as usize).min(n - 2), clamped, "{g:e}, n {n}");
            }
        }
    }

    fn terrain(kind: GeneratorKind) -> Terrain {
        let generator = WorldGenerator::new(kind, 0).expect("seed 0");
        let mut set = ZoneSet::new(Overlap::Layered, generator.tile_size());
        let zone = FlatZone {
            id: "pad".into(),
            center_x: 30.0,
            center_z: -130.0,
            shape: Shape::Circle { radius: 12.0 },
            height: 22.0,
            blend_radius: 6.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        set.insert(zone, 1);
        Terrain::new(generator, set)
    }

    /// Random points of nine tiles, plus every vertex, points on cell edges and on the
    /// diagonals of a tile: the cached surface equals the evaluated one bit for bit.
    #[test]
    fn cached_tiles_equal_the_evaluated_surface() {
        for kind in [GeneratorKind::Hyperscape, GeneratorKind::Osrs] {
            let t = terrain(kind);
            let layout = t.generator().tile_grid();
            let (size, step) = (layout.size, layout.step());
            let n = layout.resolution.max(2) as i64;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0bad_5eed_1234_5678);
            for key in [(0, 0), (0, -1), (1, -1), (-1, 1), (2, 2)] {
                let tile = SurfaceTile::new(&t, key);
                let from_mesh =
                    SurfaceTile::from_mesh(&build_tile(&t, key, 1), layout).expect("mesh");
                let f32s: Vec<f32> = tile.heights().iter().map(|&h| h as f32).collect();
                let from_heights = SurfaceTile::from_heights(layout, key, &f32s).expect("n * n");
                assert!(SurfaceTile::from_heights(layout, key, &f32s[1..]).is_none());
                let (ox, oz) = (layout.origin(key.0), layout.origin(key.1));
                let mut points: Vec<(f64, f64)> = (0..2000)
                    .map(|_| {
                        (
                            rng.random_range(ox..ox + size),
                            rng.random_range(oz..oz + size),
                        )
                    })
                    .collect();
                for i in 0..n {
                    for j in [0, i, n - 1 - i, n - 1] {
                        // Vertices, the cell edges through them, the diagonals.
                        let (vx, vz) = (
                            border_coord(&layout, key.0, i),
                            border_coord(&layout, key.1, j),
                        );
                        points.push((vx, vz));
                        points.push((vx + rng.random_range(0.0..step), vz));
                        points.push((vx, vz + rng.random_range(0.0..step)));
                        let f: f64 = rng.random();
                        points.push((vx + f * step, vz + (1.0 - f) * step));
                    }
                }
                for (x, z) in points {
                    if (layout.tile_of(x), layout.tile_of(z)) != key {
                        assert_eq!(tile.height(x, z), None);
                        continue;
                    }
                    let want = surface_height(&t, x, z).to_bits();
                    let got = tile.height(x, z).expect("in the tile").to_bits();
                    assert_eq!(got, want, "{kind:?} {key:?} ({x}, {z})");
                    let got = from_mesh.height(x, z).expect("in the tile").to_bits();
                    assert_eq!(got, want, "from mesh {kind:?} {key:?} ({x}, {z})");
                    let got = from_heights.height(x, z).expect("in the tile").to_bits();
                    assert_eq!(got, want, "from heights {kind:?} {key:?} ({x}, {z})");
                }
            }
        }
    }

    /// Points scattered over a 3 x 3 block of held tiles and beyond it, read in
    /// random and in walking order through one cursor: the held tiles answer the
    /// evaluated surface's bits, the others `None`.
    #[test]
    fn tiles_by_key_answer_each_point_from_its_tile() {
        for kind in [GeneratorKind::Hyperscape, GeneratorKind::Osrs] {
            let t = terrain(kind);
            let layout = t.generator().tile_grid();
            let mut tiles = SurfaceTiles::new(layout);
            for tx in -1..=1 {
                for tz in -2..=0 {
                    assert!(tiles.insert(SurfaceTile::new(&t, (tx, tz))));
                }
            }
            // Replacing a tile keeps one entry per key.
            assert!(tiles.insert(SurfaceTile::new(&t, (0, -1))));
            assert_eq!(tiles.len(), 9);
            let mut other = layout;
            other.size *= 2.0;
            assert!(!tiles.insert(SurfaceTile::new(&terrain(kind), (5, 5)).with_layout(other)));
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x005e_ed0f_5eed);
            let (lo, span) = (layout.origin(-2), 5.0 * layout.size);
            let mut points: Vec<(f64, f64)> = (0..4000)
                .map(|_| {
                    (
                        rng.random_range(lo..lo + span),
                        rng.random_range(lo..lo + span),
                    )
                })
                .collect();
            let walk = {
                let mut w = points.clone();
                w.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.total_cmp(&b.0)));
                w
            };
            points.extend(walk);
            let (mut last, mut held) = (0, 0);
            for (x, z) in points {
                let key = (layout.tile_of(x), layout.tile_of(z));
                match tiles.height(&mut last, x, z) {
                    Some(h) => {
                        assert!(tiles.contains(key), "{key:?}");
                        assert_eq!(
                            h.to_bits(),
                            surface_height(&t, x, z).to_bits(),
                            "({x}, {z})"
                        );
                        held += 1;
                    }
                    None => assert!(!tiles.contains(key), "{key:?} is held"),
                }
            }
            assert!(
                held > 2000 && held < 6000,
                "{held} of 8000 points in held tiles"
            );
        }
    }
}
