//! Far terrain as an OGC 3D Tiles 1.1 tileset: an implicit quadtree over a square of
//! mesh tiles, whose finest level is the full-detail tiles and whose every coarser
//! level covers four times the ground with one error-bounded mesh.
//!
//! - [`TilesetLayout`]: the square (a power of two of mesh tiles a side, from the
//!   world's extent), the levels, and each level's geometric error, halving per level
//!   down to the full-detail tiles.
//! - [`ContentGrid`]: what a content knows of its ground, computed bottom-up: the
//!   heights of the full-detail vertices at its own spacing (every `2^(levels - level)`-th
//!   vertex), the exact range of every full-detail height under it, and `error`, a
//!   proven bound on the vertical distance between the surface of those samples and
//!   the full-detail surface. A tile's grid is its mesh's heights (error 0); a parent's
//!   is its four children's union taken every other vertex, and its error is the
//!   children's largest plus the largest distance between the two surfaces at the
//!   union's vertices. That distance is exact: both grids split every cell along the
//!   same diagonal, so the finer triangulation refines the coarser one and their
//!   difference is linear on each finer triangle.
//!   On a square over 128 x 128 tiles ([`EXACT_LEVELS`]) the grids of the coarse
//!   levels are [`sampled_grid`]s instead, read from the terrain at their own
//!   spacing, their error measured one level finer: what a content costs is bounded
//!   whatever the square ([`TilesetLayout::max_sample_depth`]). A content whose samples
//!   are sampled grids is within its level's error only as far as they measure it,
//!   which proves nothing: they are never patched (see below), as the exact grids
//!   under them would span more than any content reads, and such a content declares
//!   the error that is proven of it instead ([`declared_error`]).
//! - [`content_mesh`]: a coarse content's mesh: the union of descendants' grids (as
//!   deep as needed for their error to leave room, at most [`MAX_DEPTH`] levels)
//!   simplified by [`crate::mesh::simplify_grid`] to what is left of the level's
//!   error, so that the content is within its level's geometric error of the
//!   full-detail surface; skirts hang twice the level's error below its edges
//!   (neighbouring contents at different levels meet without cracks, see
//!   [`crate::mesh::skirt_depth`]). Where a sample's error still leaves less than half
//!   the level's error (a zone's cliff or a narrow pad far from the ground, which no
//!   grid at that spacing comes near), the sample's square is a [`Patch`]: meshed on
//!   its own from its four children, those of them still too far patched in turn,
//!   down to the full-detail tiles at worst, with skirts on both sides of each patch's
//!   edges. So every content whose samples are exact is within its level's error
//!   whatever the zones, and what a content costs grows with the ground it patches:
//!   a zone's cliffs add a few small unions around them, and at most a content reads
//!   every full-detail height under it again.
//! - [`declared_error`]: the geometric error a content declares: its level's where
//!   that is proven ([`TilesetLayout::proven`]); over sampled grids, at least the
//!   span of the heights proven under its square ([`Terrain::height_bounds`]).
//! - [`tileset_json`] and [`subtree`]: the tileset document and its subtrees (one
//!   holding every level where every level is proven; otherwise subtrees of
//!   [`EXACT_LEVELS`] levels carrying each tile's declared error as metadata).
//!
//! On a voxel world the grids are of the top-block heightfield: the height queries'
//! answer (the top of a column's highest solid block) at every block corner, corner
//! `(x, z)` carrying the height of column `(x, z)`, the column it is the lowest
//! corner of. The distances above are to the surface through those samples;
//! the blocks themselves (their steps, overhangs, water) are the server's finest
//! level, the chunks' greedy meshes.
//!
//! Coordinates: meshes are glTF (y up, world metres, as the tile meshes); the tileset
//! frame is 3D Tiles' z-up one, so world `(x, y, z)` is tileset `(x, -z, y)`, and a
//! content's quadtree index `(x, y)` counts tileset `y`, which runs towards world `-z`.

use serde_json::{Value, json};

use crate::generator::voxel::base_colour;
use crate::mesh::{HeightGrid, Indices, TileMesh, simplify::add_skirts, simplify_grid};
use crate::terrain::Terrain;
use crate::tile::{TileGrid, TileRect};
use crate::{Generator, GeneratorKind, WorldGenerator};

/// How deep a coarse content may take its samples below its own level (its
/// [`Patch`]es go deeper where they must).
pub const MAX_DEPTH: u32 = 3;

/// The most levels a tileset has whose every grid is exact (a square of 128 x 128
/// tiles, the island's). On a larger square only the grids of at most
/// [`TilesetLayout::exact_below`] levels above the finest are exact, so that no
/// content reads more full-detail heights than the island's root does; the others
/// are sampled ([`sampled_grid`]).
pub const EXACT_LEVELS: u32 = 7;

/// The tileset's square and levels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TilesetLayout {
    /// The world's mesh tile grid.
    pub grid: TileGrid,
    /// The tile at the square's lowest x and z.
    pub min_tile: (i64, i64),
    /// Levels below the root: the square is `2^levels` tiles a side, level `levels`
    /// is the full-detail tiles.
    pub levels: u32,
    /// The geometric error of the full-detail level, in metres; each coarser level
    /// doubles it.
    pub leaf_error: f64,
    /// How many levels above the finest the exact grids reach: every level on a
    /// square of up to [`EXACT_LEVELS`] levels; on a larger one [`exact_below`]
    /// (64 x 64 tiles, or 16 x 16 of a voxel world's far costlier chunks; see
    /// [`TilesetLayout::with_exact_below`]).
    pub exact_below: u32,
}

/// A content of the quadtree: its level and its indices along world x and z
/// (`iz` counts world +z; see [`TilesetLayout::tileset_y`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentKey {
    pub level: u32,
    pub ix: u64,
    pub iz: u64,
}

impl ContentKey {
    /// The root content, level 0.
    pub const ROOT: ContentKey = ContentKey {
        level: 0,
        ix: 0,
        iz: 0,
    };

    /// The four children, in the order (x, z): (0, 0), (1, 0), (0, 1), (1, 1).
    pub fn children(&self) -> [ContentKey; 4] {
        let (l, x, z) = (self.level + 1, self.ix * 2, self.iz * 2);
        [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(a, b)| ContentKey {
            level: l,
            ix: x + a,
            iz: z + b,
        })
    }
}

/// The largest number of levels a tileset has (a square of 2^20 tiles a side).
pub const MAX_LEVELS: u32 = 20;

/// The contents of one level in tileset indices, the `{level}/{x}/{y}` of content
/// URIs: `x` in `min_x..=max_x` and `y` in `min_y..=max_y`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentRect {
    pub level: u32,
    pub min_x: u64,
    pub min_y: u64,
    pub max_x: u64,
    pub max_y: u64,
}

impl ContentRect {
    /// Whether content `(level, x, y)` (tileset indices) lies inside.
    pub fn contains(&self, level: u32, x: u64, y: u64) -> bool {
        level == self.level
            && (self.min_x..=self.max_x).contains(&x)
            && (self.min_y..=self.max_y).contains(&y)
    }
}

/// The geometric error of a world's finest level, in metres (each coarser level
/// doubles it): 0.25 m on heightfield worlds; one block, 1 m, on voxel worlds. A voxel
/// world's heightfield steps by whole blocks, and a trunk or a cactus one column wide
/// stands blocks above the corners around it, so a grid that skips its corner is that
/// far off, and grid errors add up level by level. From 0.25 m, the root of a square of
/// 16 x 16 chunks or more is beyond its error with samples at most three levels below
/// it (`tiles3d_error`).
pub fn leaf_error(generator: &WorldGenerator) -> f64 {
    match generator.kind() {
        GeneratorKind::Voxel => 1.0,
        GeneratorKind::Hyperscape | GeneratorKind::Osrs => 0.25,
    }
}

/// How many levels above the finest a large square's grids stay exact
/// ([`TilesetLayout::exact_below`]): 6 (64 x 64 tiles) on heightfield worlds, so the
/// heaviest content reads what the island's root does; 4 (16 x 16 chunks) on voxel
/// worlds, whose chunk heights cost far more (the default 4,096 m square's root,
/// 128 x 128 chunks, takes 5.2 s to build).
pub fn exact_below(generator: &WorldGenerator) -> u32 {
    match generator.kind() {
        GeneratorKind::Voxel => 4,
        GeneratorKind::Hyperscape | GeneratorKind::Osrs => EXACT_LEVELS - 1,
    }
}

impl TilesetLayout {
    /// The square of the fewest tiles, a power of two a side, centred on the origin,
    /// that covers `extent` metres a side; the full-detail level's error is
    /// `leaf_error`; a large square's grids exact up to 64 x 64 tiles.
    pub fn covering(grid: TileGrid, extent: f64, leaf_error: f64) -> Self {
        let tiles = (extent / grid.size).ceil().max(1.0);
        let mut levels = 0;
        while ((1u64 << levels) as f64) < tiles && levels < MAX_LEVELS {
            levels += 1;
        }
        let half = 1i64 << levels >> 1;
        // Centred tiles (hyperscape) own [-size/2, size/2) around their index; corner
        // tiles (osrs, voxel) start at it, so the square starts half of it lower.
        let min = if levels == 0 { 0 } else { -half };
        TilesetLayout {
            grid,
            min_tile: (min, min),
            levels,
            leaf_error,
            exact_below: EXACT_LEVELS - 1,
        }
        .with_exact_below(EXACT_LEVELS - 1)
    }

    /// The layout with the grids of a square over [`EXACT_LEVELS`] levels exact up to
    /// `n` levels above the finest (a smaller square's are all exact).
    pub fn with_exact_below(self, n: u32) -> Self {
        TilesetLayout {
            exact_below: if self.levels <= EXACT_LEVELS {
                self.levels
            } else {
                n
            },
            ..self
        }
    }

    /// Tiles a side of the whole square.
    pub fn side(&self) -> u64 {
        1u64 << self.levels
    }

    /// The geometric error of `level`.
    pub fn geometric_error(&self, level: u32) -> f64 {
        self.leaf_error * (1u64 << (self.levels - level.min(self.levels))) as f64
    }

    /// Whether the grids of `level` are exact, built from every full-detail height
    /// under them: those at most `exact_below` levels above the finest (all of them on
    /// a square of up to [`EXACT_LEVELS`] levels). The others are [`sampled_grid`]s.
    pub fn exact(&self, level: u32) -> bool {
        self.levels - level.min(self.levels) <= self.exact_below
    }

    /// Whether every content of `level` is proven within its level's geometric error:
    /// the finest level, and every level whose samples are exact grids (those whose
    /// children's are). A content over sampled grids is within the error its
    /// sampled grids measure, which proves nothing; the error it declares in the
    /// tileset is [`declared_error`].
    pub fn proven(&self, level: u32) -> bool {
        level >= self.levels || self.exact(level + 1)
    }

    /// Levels of each subtree file: every level in one subtree when every level is
    /// [`proven`](TilesetLayout::proven) (no tile needs its own geometric error);
    /// otherwise [`EXACT_LEVELS`] (5,461 tiles a subtree), whose tiles carry their
    /// [`declared_error`]s as metadata.
    pub fn subtree_levels(&self) -> u32 {
        if self.proven(0) {
            self.levels + 1
        } else {
            EXACT_LEVELS
        }
    }

    /// The world rectangle of `key`'s square, `(min x, min z, max x, max z)`: where its
    /// first and last full-detail lattice vertices take their heights.
    pub fn content_bounds(&self, key: ContentKey) -> (f64, f64, f64, f64) {
        let cells = self.n() as u64 - 1;
        let span = (1u64 << (self.levels - key.level.min(self.levels))) * cells;
        let (gx, gz) = (key.ix * span, key.iz * span);
        (
            self.sample_coord(self.min_tile.0, gx),
            self.sample_coord(self.min_tile.1, gz),
            self.sample_coord(self.min_tile.0, gx + span),
            self.sample_coord(self.min_tile.1, gz + span),
        )
    }

    /// The deepest a coarse content of `level` takes its samples: `MAX_DEPTH` (3) levels,
    /// never below the finest level, and when its children's grids are sampled, never
    /// down to exact ones (those would read every full-detail height under a content
    /// of more than 128 x 128 tiles: 16.7 million grids under a root of 1,000 km). So
    /// the most a content reads is every height under `2^(exact_below + 1)` tiles a
    /// side, the island root's on heightfield worlds.
    pub fn max_sample_depth(&self, level: u32) -> u32 {
        let span = self.levels - level.min(self.levels);
        let deepest = span.clamp(1, MAX_DEPTH);
        if self.exact(level + 1) {
            deepest
        } else {
            // Children not exact: `span - 1 > exact_below`.
            deepest.min(span - self.exact_below - 1).max(1)
        }
    }

    /// Whether `key` is a content of this tileset.
    pub fn contains(&self, key: ContentKey) -> bool {
        key.level <= self.levels && key.ix < (1u64 << key.level) && key.iz < (1u64 << key.level)
    }

    /// The mesh tiles `key` covers.
    pub fn tiles(&self, key: ContentKey) -> TileRect {
        let span = 1i64 << (self.levels - key.level);
        let (x0, z0) = (
            self.min_tile.0 + key.ix as i64 * span,
            self.min_tile.1 + key.iz as i64 * span,
        );
        TileRect {
            min_tx: x0,
            min_tz: z0,
            max_tx: x0 + span - 1,
            max_tz: z0 + span - 1,
        }
    }

    /// The contents of `level` covering any tile of `tiles` (what a change of those
    /// tiles changes at that level).
    pub fn covering_contents(
        &self,
        level: u32,
        tiles: &TileRect,
    ) -> Option<(ContentKey, ContentKey)> {
        let level = level.min(self.levels);
        let span = 1i64 << (self.levels - level);
        let n = 1i64 << level;
        let index = |t: i64, min: i64| (t - min).div_euclid(span).clamp(0, n - 1) as u64;
        let (x0, x1) = (self.min_tile.0, self.min_tile.0 + (self.side() as i64) - 1);
        let (z0, z1) = (self.min_tile.1, self.min_tile.1 + (self.side() as i64) - 1);
        if tiles.max_tx < x0 || tiles.min_tx > x1 || tiles.max_tz < z0 || tiles.min_tz > z1 {
            return None;
        }
        let lo = ContentKey {
            level,
            ix: index(tiles.min_tx, x0),
            iz: index(tiles.min_tz, z0),
        };
        let hi = ContentKey {
            level,
            ix: index(tiles.max_tx, x0),
            iz: index(tiles.max_tz, z0),
        };
        Some((lo, hi))
    }

    /// The contents a change of the tiles of `changed` changes: at every level, those
    /// covering any of its tiles, as one rectangle per level and tile rectangle,
    /// coarsest level first, repeats left out. Tiles outside the square change none.
    pub fn changed_contents(&self, changed: &[TileRect]) -> Vec<ContentRect> {
        let mut out = Vec::new();
        for level in 0..=self.levels {
            for tiles in changed {
                let Some((lo, hi)) = self.covering_contents(level, tiles) else {
                    continue;
                };
                let rect = ContentRect {
                    level,
                    min_x: lo.ix,
                    min_y: self.tileset_y(hi),
                    max_x: hi.ix,
                    max_y: self.tileset_y(lo),
                };
                if !out.contains(&rect) {
                    out.push(rect);
                }
            }
        }
        out
    }

    /// The content's tileset `y` index (tileset y runs towards world -z).
    pub fn tileset_y(&self, key: ContentKey) -> u64 {
        (1u64 << key.level) - 1 - key.iz
    }

    /// The content at tileset indices `(level, x, y)`, if in the tileset.
    pub fn from_tileset(&self, level: u32, x: u64, y: u64) -> Option<ContentKey> {
        if level > self.levels || x >= (1u64 << level) || y >= (1u64 << level) {
            return None;
        }
        Some(ContentKey {
            level,
            ix: x,
            iz: (1u64 << level) - 1 - y,
        })
    }

    /// Full-detail vertices a side of one tile (and samples a side of every grid).
    pub fn n(&self) -> usize {
        self.grid.resolution.max(2) as usize
    }

    /// The world coordinate of full-detail lattice vertex `g` (counted from the square's
    /// lowest corner) on one axis whose lowest tile is `min`.
    fn lattice_coord(&self, min: i64, g: u64) -> f64 {
        let cells = (self.n() - 1) as u64;
        let (t, i) = (g / cells, g % cells);
        crate::mesh::tile::vertex_coord(&self.grid, min + t as i64, i as usize)
    }

    /// The coordinate a full-detail tile's height sample takes for lattice vertex `g`
    /// on one axis whose lowest tile is `min` (what [`leaf_grid`] evaluates).
    fn sample_coord(&self, min: i64, g: u64) -> f64 {
        let cells = (self.n() - 1) as u64;
        let (t, i) = (g / cells, g % cells);
        crate::mesh::tile::border_coord(&self.grid, min + t as i64, i as i64)
    }

    /// The square's world bounds: `(min x, min z, max x, max z)`.
    pub fn bounds(&self) -> (f64, f64, f64, f64) {
        let last = self.side() * (self.n() as u64 - 1);
        (
            self.lattice_coord(self.min_tile.0, 0),
            self.lattice_coord(self.min_tile.1, 0),
            self.lattice_coord(self.min_tile.0, last),
            self.lattice_coord(self.min_tile.1, last),
        )
    }
}

/// What a content knows of its ground (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct ContentGrid {
    pub key: ContentKey,
    /// Samples a side (a tile's vertices a side).
    pub n: usize,
    /// The float32 heights of the samples, row by row (x fastest), as served.
    pub heights: Vec<f32>,
    /// A bound on the vertical distance between the samples' surface and the
    /// full-detail surface.
    pub error: f64,
    /// The lowest and highest full-detail height under the content.
    pub min: f32,
    pub max: f32,
}

impl ContentGrid {
    /// The bytes it holds.
    pub fn bytes(&self) -> usize {
        self.heights.len() * 4 + 64
    }
}

/// A full-detail tile's grid: its mesh's vertex heights (the same evaluation as
/// [`crate::mesh::build_tile`]'s), error 0.
pub fn leaf_grid(terrain: &Terrain, layout: &TilesetLayout, key: ContentKey) -> ContentGrid {
    let tiles = layout.tiles(ContentKey {
        level: layout.levels,
        ..key
    });
    let tile = (tiles.min_tx, tiles.min_tz);
    let mesh_layout = terrain.generator().tile_grid();
    let n = layout.n();
    let bx: Vec<f64> = (-1..=n as i64)
        .map(|i| crate::mesh::tile::border_coord(&mesh_layout, tile.0, i))
        .collect();
    let bz: Vec<f64> = (-1..=n as i64)
        .map(|i| crate::mesh::tile::border_coord(&mesh_layout, tile.1, i))
        .collect();
    let mut out = vec![0.0; n * n];
    terrain.fill_axes(&bx[1..=n], &bz[1..=n], &mut out);
    let heights: Vec<f32> = out.iter().map(|&h| h as f32).collect();
    let (min, max) = range(&heights);
    ContentGrid {
        key,
        n,
        heights,
        error: 0.0,
        min,
        max,
    }
}

/// The grid of `key` made from the terrain alone: an exact one from the grids of the
/// full-detail tiles under it, merged up to its level (how a grid near the finest
/// level is built, where none is kept), or a [`sampled_grid`] where the layout says
/// ([`TilesetLayout::exact`]).
pub fn grid_from_terrain(
    terrain: &Terrain,
    layout: &TilesetLayout,
    key: ContentKey,
) -> ContentGrid {
    if key.level >= layout.levels {
        return leaf_grid(terrain, layout, key);
    }
    if !layout.exact(key.level) {
        return sampled_grid(terrain, layout, key);
    }
    let c = key
        .children()
        .map(|child| grid_from_terrain(terrain, layout, child));
    parent_grid(key, [&c[0], &c[1], &c[2], &c[3]])
}

/// The grid of a content over more tiles than are read exactly, from the terrain at
/// its own spacing and its children's: the full-detail heights at every
/// `2^(levels - level)`-th lattice vertex, as an exact grid has them, but its `error`
/// and range are measured against its children's samples, the surface one level
/// finer, not proven against the full detail. Its cost is four tiles' heights
/// whatever it covers.
pub fn sampled_grid(terrain: &Terrain, layout: &TilesetLayout, key: ContentKey) -> ContentGrid {
    let c = key
        .children()
        .map(|child| point_grid(terrain, layout, child));
    parent_grid(key, [&c[0], &c[1], &c[2], &c[3]])
}

/// The full-detail heights at `key`'s own spacing, from the terrain; error 0 and the
/// range of those samples alone (a part of [`sampled_grid`]).
fn point_grid(terrain: &Terrain, layout: &TilesetLayout, key: ContentKey) -> ContentGrid {
    let n = layout.n();
    let stride = 1u64 << (layout.levels - key.level.min(layout.levels));
    let first = |index: u64| index * stride * (n as u64 - 1);
    let axis = |min: i64, g0: u64| -> Vec<f64> {
        (0..n as u64)
            .map(|i| layout.sample_coord(min, g0 + i * stride))
            .collect()
    };
    let xs = axis(layout.min_tile.0, first(key.ix));
    let zs = axis(layout.min_tile.1, first(key.iz));
    let mut out = vec![0.0; n * n];
    terrain.fill_axes(&xs, &zs, &mut out);
    let heights: Vec<f32> = out.iter().map(|&h| h as f32).collect();
    let (min, max) = range(&heights);
    ContentGrid {
        key,
        n,
        heights,
        error: 0.0,
        min,
        max,
    }
}

fn range(h: &[f32]) -> (f32, f32) {
    h.iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

/// The height at `(fx, fz)` (grid units) of the surface of a grid of `m` samples a
/// side, cells split along the (ix, iz+1)-(ix+1, iz) diagonal.
fn interpolate(h: &[f64], m: usize, fx: f64, fz: f64) -> f64 {
    let ix = (fx.floor().max(0.0) as usize).min(m - 2);
    let iz = (fz.floor().max(0.0) as usize).min(m - 2);
    let (u, v) = (fx - ix as f64, fz - iz as f64);
    let at = |i: usize, j: usize| h[(iz + j) * m + ix + i];
    if u + v <= 1.0 {
        let (a, b, d) = (at(0, 0), at(0, 1), at(1, 0));
        a + (d - a) * u + (b - a) * v
    } else {
        let (b, c, d) = (at(0, 1), at(1, 1), at(1, 0));
        c + (b - c) * (1.0 - u) + (d - c) * (1.0 - v)
    }
}

/// The union of `grids` (`k x k` of them, row by row from the lowest x and z, each
/// `n` samples a side, neighbours sharing their edge samples): `(k (n - 1) + 1)`
/// samples a side, and the largest error of a grid plus the largest disagreement of
/// two grids on a shared sample.
pub fn union_grid(grids: &[&ContentGrid], k: usize) -> (Vec<f64>, usize, f64) {
    let (u, m, disagreement) = union_parts(grids, k);
    let error = grids.iter().map(|g| g.error).fold(disagreement, f64::max);
    (u, m, error)
}

/// The union of `grids` as [`union_grid`] makes it, with the largest disagreement of
/// two grids on a shared sample (their own errors left out).
fn union_parts(grids: &[&ContentGrid], k: usize) -> (Vec<f64>, usize, f64) {
    let n = grids[0].n;
    let m = k * (n - 1) + 1;
    let mut out = vec![f64::NAN; m * m];
    let mut error = 0.0f64;
    for (g, grid) in grids.iter().enumerate() {
        let (ox, oz) = ((g % k) * (n - 1), (g / k) * (n - 1));
        for j in 0..n {
            for i in 0..n {
                let h = f64::from(grid.heights[j * n + i]);
                let at = &mut out[(oz + j) * m + ox + i];
                if at.is_nan() {
                    *at = h;
                } else {
                    error = error.max((*at - h).abs());
                }
            }
        }
    }
    (out, m, error)
}

/// The parent of four grids (ordered as [`ContentKey::children`]): their union every
/// other sample, with its proven error.
pub fn parent_grid(key: ContentKey, children: [&ContentGrid; 4]) -> ContentGrid {
    let n = children[0].n;
    let (u, m, union_error) = union_grid(&children, 2);
    let heights: Vec<f32> = (0..n)
        .flat_map(|j| (0..n).map(move |i| (j, i)))
        .map(|(j, i)| u[(2 * j) * m + 2 * i] as f32)
        .collect();
    let coarse: Vec<f64> = heights.iter().map(|&h| f64::from(h)).collect();
    let mut worst = 0.0f64;
    for j in 0..m {
        for i in 0..m {
            let s = interpolate(&coarse, n, i as f64 / 2.0, j as f64 / 2.0);
            worst = worst.max((s - u[j * m + i]).abs());
        }
    }
    let (min, max) = children
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
            (lo.min(c.min), hi.max(c.max))
        });
    ContentGrid {
        key,
        n,
        heights,
        error: union_error + worst,
        min,
        max,
    }
}

/// How many levels below `key` a coarse content takes its samples from: the fewest
/// (at least one, at most [`TilesetLayout::max_sample_depth`]) whose grids' error,
/// `error_at(depth)`, leaves at least half the level's error to the simplification.
pub fn sample_depth(layout: &TilesetLayout, key: ContentKey, error_at: impl Fn(u32) -> f64) -> u32 {
    let budget = layout.geometric_error(key.level) / 2.0;
    let deepest = layout.max_sample_depth(key.level);
    (1..=deepest)
        .find(|&d| error_at(d) <= budget)
        .unwrap_or(deepest)
}

/// A square of a coarse content meshed on its own, from the four grids one level finer
/// than the grid it replaces: the square of a sample (or of a patch's grid) whose error
/// leaves less than half the level's error to the simplification ([`needs_patch`]).
/// Its own grids that still leave too little are patched in turn.
#[derive(Debug, Clone)]
pub struct Patch<'a> {
    /// The index of the grid it replaces among the content's samples (or its parent
    /// patch's grids).
    pub sample: usize,
    /// That grid's four children, ordered as [`ContentKey::children`].
    pub grids: Vec<&'a ContentGrid>,
    /// The patches of its own grids.
    pub patches: Vec<Patch<'a>>,
}

/// The descendants of `key` `depth` levels down, row by row from the lowest x and z.
pub fn descendant_keys(key: ContentKey, depth: u32) -> Vec<ContentKey> {
    let k = 1u64 << depth;
    (0..k * k)
        .map(|i| ContentKey {
            level: key.level + depth,
            ix: key.ix * k + i % k,
            iz: key.iz * k + i / k,
        })
        .collect()
}

/// Whether `grid`, a sample of a content of `level` or a patch's grid, is replaced by a
/// [`Patch`]: it is exact (its error is proven), finer grids exist, and its error is
/// over half the level's. A sampled grid's error is measured, not proven, and the grids
/// under it span more than a content may read, so it is never patched.
pub fn needs_patch(layout: &TilesetLayout, level: u32, grid: &ContentGrid) -> bool {
    grid.key.level < layout.levels
        && layout.exact(grid.key.level)
        && grid.error > layout.geometric_error(level) / 2.0
}

/// The patches of a content of `key` over `grids` (its samples, as [`content_mesh`]
/// takes them): one for each grid that [`needs_patch`], from its four children, whose
/// own patches are found the same way, down to the full-detail tiles at worst (error
/// 0). `children` answers the four children of a key, ordered as
/// [`ContentKey::children`].
pub fn content_patches<'a>(
    layout: &TilesetLayout,
    key: ContentKey,
    grids: &[&ContentGrid],
    children: &mut impl FnMut(ContentKey) -> Vec<&'a ContentGrid>,
) -> Vec<Patch<'a>> {
    let mut out = Vec::new();
    for (i, g) in grids.iter().enumerate() {
        if !needs_patch(layout, key.level, g) {
            continue;
        }
        let below = children(g.key);
        let patches = content_patches(layout, key, &below, children);
        out.push(Patch {
            sample: i,
            grids: below,
            patches,
        });
    }
    out
}

/// The world coordinates of the union of the grids `depth` levels below `key`: every
/// `stride`-th lattice vertex over `key`'s square, on x and on z.
fn union_axes(layout: &TilesetLayout, key: ContentKey, depth: u32) -> (Vec<f64>, Vec<f64>) {
    let n = layout.n() as u64;
    let span_levels = layout.levels - key.level.min(layout.levels);
    let stride = 1u64 << (span_levels - depth.min(span_levels));
    let span = 1u64 << span_levels;
    let m = (1u64 << depth) * (n - 1) + 1;
    let (gx0, gz0) = (key.ix * span * (n - 1), key.iz * span * (n - 1));
    let xs = (0..m)
        .map(|i| layout.lattice_coord(layout.min_tile.0, gx0 + i * stride))
        .collect();
    let zs = (0..m)
        .map(|i| layout.lattice_coord(layout.min_tile.1, gz0 + i * stride))
        .collect();
    (xs, zs)
}

/// One simplified union of grids, to append to a content mesh.
struct Piece<'a> {
    u: &'a [f64],
    m: usize,
    xs: &'a [f64],
    zs: &'a [f64],
    s: &'a crate::mesh::simplify::Simplified,
}

/// Appends `piece`'s kept vertices to `mesh` (positions, heights, normals from the
/// union's spacing, the worker's colours on hyperscape worlds; `world` takes each
/// vertex's world x and z) and answers its triangles' indices and outer edges.
fn append_piece(
    mesh: &mut TileMesh,
    world: &mut Vec<(f64, f64)>,
    terrain: &Terrain,
    piece: &Piece<'_>,
) -> (Vec<u32>, [Vec<u32>; 4]) {
    let Piece { u, m, xs, zs, s } = *piece;
    let colouring = match terrain.generator() {
        WorldGenerator::Hyperscape(h) => Some((h.colours(), h.noise())),
        _ => None,
    };
    let placement = mesh.placement;
    let mut remap = vec![u32::MAX; m * m];
    for &v in &s.vertices {
        let (i, j) = (v as usize % m, v as usize / m);
        remap[v as usize] = (mesh.positions.len() / 3) as u32;
        let h = u[v as usize];
        let y = h as f32;
        mesh.min_height = mesh.min_height.min(y);
        mesh.max_height = mesh.max_height.max(y);
        mesh.positions.extend([
            (xs[i] - placement[0]) as f32,
            y,
            (zs[j] - placement[2]) as f32,
        ]);
        mesh.heights.push(h);
        world.push((xs[i], zs[j]));
        // Centred differences at the union's spacing (one-sided at its edges).
        let at = |i: usize, j: usize| u[j * m + i];
        let (i0, i1, j0, j1) = (
            i.saturating_sub(1),
            (i + 1).min(m - 1),
            j.saturating_sub(1),
            (j + 1).min(m - 1),
        );
        let dx = (at(i1, j) - at(i0, j)) / (xs[i1] - xs[i0]);
        let dz = (at(i, j1) - at(i, j0)) / (zs[j1] - zs[j0]);
        let len = libm::sqrt(dx * dx + 1.0 + dz * dz);
        mesh.normals
            .extend([(-dx / len) as f32, (1.0 / len) as f32, (-dz / len) as f32]);
        if let Some((colours, noise)) = &colouring {
            let c = colours.at(noise, xs[i], zs[j], y);
            mesh.colours.extend(c.rgb);
            mesh.biomes.push(c.biome);
        }
    }
    s.remapped(&remap)
}

/// Skirts to hang once every vertex of a content is in: edges by the direction they
/// face (as [`add_skirts`] takes them), and the pairs of consecutive vertices to hang
/// them from (every pair when `None`).
type Skirts = Vec<(
    [Vec<u32>; 4],
    Option<std::collections::BTreeSet<(u32, u32)>>,
)>;

/// Appends to `mesh` the union of `grids` (`2^depth` a side over `key`'s square)
/// simplified to what `level_error` leaves beyond their error, the squares of
/// `patches` left out of it (as carved cells) and meshed in turn; records the skirts
/// below its edges and along the patches' (`skirts`). Answers the bound it holds.
#[allow(clippy::too_many_arguments)]
fn mesh_union(
    mesh: &mut TileMesh,
    world: &mut Vec<(f64, f64)>,
    indices: &mut Vec<u32>,
    skirts: &mut Skirts,
    terrain: &Terrain,
    layout: &TilesetLayout,
    level_error: f64,
    key: ContentKey,
    grids: &[&ContentGrid],
    depth: u32,
    patches: &[Patch<'_>],
) -> f64 {
    let k = 1usize << depth;
    let cells = layout.n() - 1;
    let (u, m, disagreement) = union_parts(grids, k);
    let patched: Vec<bool> = (0..grids.len())
        .map(|i| patches.iter().any(|p| p.sample == i))
        .collect();
    let grid_error = grids
        .iter()
        .zip(&patched)
        .filter(|(_, p)| !**p)
        .map(|(g, _)| g.error)
        .fold(disagreement, f64::max);
    let tolerance = (level_error - grid_error).max(0.0);
    let carved: Vec<bool> = if patches.is_empty() {
        Vec::new()
    } else {
        (0..(m - 1) * (m - 1))
            .map(|c| {
                let (cx, cz) = (c % (m - 1), c / (m - 1));
                patched[(cz / cells) * k + cx / cells]
            })
            .collect()
    };
    let grid = HeightGrid {
        nx: m,
        nz: m,
        heights: &u,
        carved: &carved,
    };
    let s = simplify_grid(&grid, tolerance);
    let mut bound = grid_error + s.max_error;
    let (xs, zs) = union_axes(layout, key, depth);
    let first = (mesh.positions.len() / 3) as u32;
    let piece = Piece {
        u: &u,
        m,
        xs: &xs,
        zs: &zs,
        s: &s,
    };
    let (tris, edges) = append_piece(mesh, world, terrain, &piece);
    indices.extend(tris);
    skirts.push((edges, None));
    if !patches.is_empty() {
        // Its sides along the patches: kept vertex pairs on a line between grids with
        // a patched cell on one side and one of its own on the other, by the direction
        // its skirt faces (towards the patch).
        let mut sides: [Vec<u32>; 4] = Default::default();
        let mut pairs = std::collections::BTreeSet::new();
        let mut remap = vec![u32::MAX; m * m];
        for (i, &v) in s.vertices.iter().enumerate() {
            remap[v as usize] = first + i as u32;
        }
        let cell = |cx: usize, cz: usize| carved[cz * (m - 1) + cx];
        for line in (cells..m - 1).step_by(cells) {
            // Along z = line, then along x = line.
            for along_x in [true, false] {
                let at = |t: usize| if along_x { line * m + t } else { t * m + line };
                let kept: Vec<usize> = (0..m).filter(|&t| remap[at(t)] != u32::MAX).collect();
                for pair in kept.windows(2) {
                    let t = pair[0];
                    let (low, high) = if along_x {
                        (cell(t, line - 1), cell(t, line))
                    } else {
                        (cell(line - 1, t), cell(line, t))
                    };
                    if low == high {
                        continue;
                    }
                    let slot = match (along_x, low) {
                        (true, true) => 0,
                        (true, false) => 2,
                        (false, true) => 3,
                        (false, false) => 1,
                    };
                    let (a, b) = (remap[at(t)], remap[at(pair[1])]);
                    sides[slot].extend([a, b]);
                    pairs.insert((a, b));
                }
            }
        }
        skirts.push((sides, Some(pairs)));
    }
    for p in patches {
        let below = mesh_union(
            mesh,
            world,
            indices,
            skirts,
            terrain,
            layout,
            level_error,
            grids[p.sample].key,
            &p.grids,
            1,
            &p.patches,
        );
        bound = bound.max(below);
    }
    bound
}

/// A coarse content's mesh from `samples` (the `2^depth x 2^depth` descendants'
/// grids, row by row from the lowest x and z, as [`union_grid`] takes them) and
/// `patches` ([`content_patches`]): the union of the samples not patched, simplified
/// to what the level's error leaves beyond their grids' own, the samples patched left
/// out of it (as carved cells), and each patch's union meshed the same way, its own
/// patches left out and meshed in turn; normals from each union's spacing, the
/// worker's vertex colours on hyperscape worlds (the colour of the block seen from
/// straight above each vertex's column on voxel worlds), and skirts twice the level's
/// error deep below the content's edges and on both sides of every patch's edges, so
/// the pieces meet as neighbouring contents do (below the edges, twice the error
/// the content declares, [`declared_error`], where its level is not proven). Answers the mesh and the bound it
/// holds: the largest over its pieces of their grids' error plus the simplification's
/// measured error. With every grid of more than half the level's error patched, it is
/// at most the level's geometric error whenever the samples are exact.
pub fn content_mesh(
    terrain: &Terrain,
    layout: &TilesetLayout,
    key: ContentKey,
    samples: &[&ContentGrid],
    depth: u32,
    patches: &[Patch<'_>],
    version: u64,
) -> (TileMesh, f64) {
    let level_error = layout.geometric_error(key.level);
    let (xs, zs) = union_axes(layout, key, 0);
    let mut mesh = TileMesh {
        key: (key.ix as i64, key.iz as i64),
        version,
        resolution: 0,
        placement: [xs[0], 0.0, zs[0]],
        positions: Vec::new(),
        normals: Vec::new(),
        indices: Indices::U32(Vec::new()),
        heights: Vec::new(),
        min_height: f32::INFINITY,
        max_height: f32::NEG_INFINITY,
        colours: Vec::new(),
        biomes: Vec::new(),
    };
    let (mut world, mut indices, mut skirts) = (Vec::new(), Vec::new(), Vec::new());
    let bound = mesh_union(
        &mut mesh,
        &mut world,
        &mut indices,
        &mut skirts,
        terrain,
        layout,
        level_error,
        key,
        samples,
        depth,
        patches,
    );
    if terrain.generator().as_voxel().is_some() {
        // Lattice vertices are block corners, so each names the column whose height
        // it carries.
        let column = |&(x, z): &(f64, f64)| {
            let (x, z) = (libm::floor(x) as i64, libm::floor(z) as i64);
            let (_, kind) = terrain.voxel_column_top(x, z)?;
            Some(base_colour(kind).map(|c| c as f32))
        };
        if let Some(colours) = world.iter().map(column).collect::<Option<Vec<_>>>() {
            mesh.colours = colours.into_iter().flatten().collect();
        }
    }
    let surface_min = mesh.min_height;
    // Twice the error the content declares (its level's wherever that is proven), so
    // that neighbours meet however far each is from the full detail.
    let below = crate::mesh::skirt_depth(declared_error(layout, terrain, key)) as f32;
    for (edges, pairs) in &skirts {
        let skip = |a: u32, b: u32| pairs.as_ref().is_some_and(|p| !p.contains(&(a, b)));
        add_skirts(&mut mesh, edges, below, skip, &mut indices);
    }
    mesh.min_height = surface_min - below;
    mesh.indices = Indices::fitting(indices, mesh.positions.len() / 3);
    (mesh, bound)
}

/// The 3D Tiles box (tileset frame, z up) over world `(x0, z0)-(x1, z1)` and heights
/// `lo..hi`.
pub fn bounding_box(x0: f64, z0: f64, x1: f64, z1: f64, lo: f64, hi: f64) -> [f64; 12] {
    let (cx, cz, cy) = ((x0 + x1) / 2.0, (z0 + z1) / 2.0, (lo + hi) / 2.0);
    let (hx, hz, hy) = ((x1 - x0) / 2.0, (z1 - z0) / 2.0, ((hi - lo) / 2.0).max(0.5));
    [cx, -cz, cy, hx, 0.0, 0.0, 0.0, hz, 0.0, 0.0, 0.0, hy]
}

/// The tileset document: one root over the square, implicit quadtree tiling in
/// subtrees of [`TilesetLayout::subtree_levels`], content at every tile
/// (`content/{level}/{x}/{y}.glb`), geometric errors halving per level, and where a
/// level is not proven, a schema whose `TILE_GEOMETRIC_ERROR` property the subtrees
/// give each tile ([`subtree`]). `heights` is the range every content lies in (widened
/// here by the deepest skirt), `root_error` the root's [`declared_error`], `version`
/// the newest tile version under the square.
pub fn tileset_json(
    layout: &TilesetLayout,
    heights: (f64, f64),
    root_error: f64,
    version: u64,
) -> Value {
    let (x0, z0, x1, z1) = layout.bounds();
    // The root declares the largest error, so hangs the deepest skirt.
    let skirt = crate::mesh::skirt_depth(root_error);
    let bbox = bounding_box(x0, z0, x1, z1, heights.0 - skirt, heights.1);
    let mut doc = json!({
        "asset": {"version": "1.1", "tilesetVersion": format!("v{version}"), "extras": {"generator": "terrain-server"}},
        "geometricError": root_error * 2.0,
        "root": {
            "boundingVolume": {"box": bbox},
            "geometricError": root_error,
            "refine": "REPLACE",
            "content": {"uri": "content/{level}/{x}/{y}.glb"},
            "implicitTiling": {
                "subdivisionScheme": "QUADTREE",
                "subtreeLevels": layout.subtree_levels(),
                "availableLevels": layout.levels + 1,
                "subtrees": {"uri": "subtrees/{level}.{x}.{y}.subtree"}
            }
        }
    });
    if !layout.proven(0) {
        doc["schema"] = json!({
            "id": "terrain_tileset",
            "classes": {TILE_CLASS: {
                "description": "What the subtrees say of each tile",
                "properties": {"geometricError": {
                    "description": "The tile's geometric error: its level's, or more where that is not proven",
                    "type": "SCALAR",
                    "componentType": "FLOAT64",
                    "semantic": "TILE_GEOMETRIC_ERROR"
                }}
            }}
        });
    }
    doc
}

/// The geometric error `key` declares: its level's where the level is
/// [`proven`](TilesetLayout::proven); over sampled grids, the larger of its level's
/// and what is proven of it. Every vertex of a content's surface is a full-detail
/// height under its square (skirts aside), and so is every full-detail height it
/// stands for, so the two are never further apart than the span of
/// [`Terrain::height_bounds`] over the square (widened by the float32 rounding of
/// served heights). That span is small where the ground is (the island's ocean
/// floor, 2.5 to 3.75 m; an osrs world's 0.625 to 3.75 m) and large only where the
/// island, a voxel world's block range or a zone far from the ground is.
pub fn declared_error(layout: &TilesetLayout, terrain: &Terrain, key: ContentKey) -> f64 {
    let level = layout.geometric_error(key.level);
    if layout.proven(key.level) {
        return level;
    }
    let (x0, z0, x1, z1) = layout.content_bounds(key);
    let (lo, hi) = terrain.height_bounds(x0 - 1.0, z0 - 1.0, x1 + 1.0, z1 + 1.0);
    // Float32 rounding moves each end by at most 2^-24 of its magnitude.
    let rounding = (lo.abs() + hi.abs()) * f64::from(f32::EPSILON);
    level.max(hi - lo + rounding)
}

/// The metadata class of a tile's declared geometric error in the tileset's schema
/// (3D Tiles 1.1 metadata, the `TILE_GEOMETRIC_ERROR` semantic), present when some
/// level is not [`proven`](TilesetLayout::proven).
const TILE_CLASS: &str = "tile";

/// The key of the tile at `depth` levels below subtree root `root` (tileset
/// indices) and Morton index `morton` within that level of the subtree.
fn subtree_tile(
    layout: &TilesetLayout,
    root: (u32, u64, u64),
    depth: u32,
    morton: u64,
) -> Option<ContentKey> {
    // Morton order: x in the even bits, y in the odd ones.
    let (mut lx, mut ly) = (0u64, 0u64);
    for b in 0..depth {
        lx |= ((morton >> (2 * b)) & 1) << b;
        ly |= ((morton >> (2 * b + 1)) & 1) << b;
    }
    layout.from_tileset(
        root.0 + depth,
        (root.1 << depth) + lx,
        (root.2 << depth) + ly,
    )
}

/// Why a subtree file name is not one of the tileset's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubtreeError(pub String);

/// The root of the subtree at tileset `(level, x, y)`, if there is one: `level` a
/// multiple of [`TilesetLayout::subtree_levels`] within the tileset and the indices
/// inside it.
pub fn subtree_root(
    layout: &TilesetLayout,
    level: u32,
    x: u64,
    y: u64,
) -> Result<ContentKey, SubtreeError> {
    let every = layout.subtree_levels();
    if level > layout.levels || !level.is_multiple_of(every) {
        let last = layout.levels - layout.levels % every;
        return Err(SubtreeError(format!(
            "level {level}: subtrees start every {every} levels, from 0 to {last}"
        )));
    }
    layout.from_tileset(level, x, y).ok_or_else(|| {
        SubtreeError(format!(
            "({x}, {y}) is outside level {level}: both must be below {}",
            1u64 << level
        ))
    })
}

/// The binary subtree file rooted at tileset `root` (`(level, x, y)`, a subtree as
/// [`subtree_root`] checks): every tile and content of its levels available, child
/// subtrees where the tileset goes deeper. Where some level is not
/// [`proven`](TilesetLayout::proven) each tile carries the geometric error `error`
/// gives it ([`declared_error`]) as `TILE_GEOMETRIC_ERROR` metadata (a property table
/// of doubles, tiles in the subtree's order: level by level, Morton order within).
pub fn subtree(
    layout: &TilesetLayout,
    root: (u32, u64, u64),
    error: impl Fn(ContentKey) -> f64,
) -> Vec<u8> {
    let every = layout.subtree_levels();
    let depth = every.min(layout.levels + 1 - root.0.min(layout.levels));
    let tiles_in = |levels: u32| ((1u64 << (2 * levels)) - 1) / 3;
    let (full, available) = (tiles_in(every), tiles_in(depth));
    let mut binary: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut add_view = |binary: &mut Vec<u8>, bytes: &[u8]| {
        let offset = binary.len();
        binary.extend_from_slice(bytes);
        while !binary.len().is_multiple_of(8) {
            binary.push(0);
        }
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        views.len() - 1
    };
    // The last subtrees of a tileset whose levels are not a multiple of `every`: only
    // their first levels exist, a prefix of the subtree's tile order.
    let availability = if available == full {
        json!({"constant": 1})
    } else {
        let mut bits = vec![0u8; full.div_ceil(8) as usize];
        for i in 0..available as usize {
            bits[i / 8] |= 1 << (i % 8);
        }
        json!({"bitstream": add_view(&mut binary, &bits), "availableCount": available})
    };
    let deeper = root.0 + every <= layout.levels;
    let mut doc = json!({
        "tileAvailability": availability,
        "contentAvailability": [availability],
        "childSubtreeAvailability": {"constant": u8::from(deeper)}
    });
    if !layout.proven(0) {
        let mut values = Vec::with_capacity(available as usize * 8);
        for d in 0..depth {
            for morton in 0..1u64 << (2 * d) {
                let e = subtree_tile(layout, root, d, morton).map_or(f64::NAN, &error);
                values.extend_from_slice(&e.to_le_bytes());
            }
        }
        let view = add_view(&mut binary, &values);
        doc["propertyTables"] = json!([{
            "class": TILE_CLASS,
            "count": available,
            "properties": {"geometricError": {"values": view}}
        }]);
        doc["tileMetadata"] = json!(0);
    }
    if !binary.is_empty() {
        doc["buffers"] = json!([{"byteLength": binary.len()}]);
        doc["bufferViews"] = Value::Array(views);
    }
    let mut text = serde_json::to_vec(&doc).unwrap_or_default();
    while !text.len().is_multiple_of(8) {
        text.push(b' ');
    }
    let mut out = Vec::with_capacity(24 + text.len() + binary.len());
    out.extend_from_slice(b"subt");
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(&(binary.len() as u64).to_le_bytes());
    out.extend_from_slice(&text);
    out.extend_from_slice(&binary);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> TileGrid {
        TileGrid {
            size: 100.0,
            resolution: 64,
            centred: true,
        }
    }

    #[test]
    fn the_island_square_is_128_tiles_and_errors_halve() {
        let l = TilesetLayout::covering(grid(), 10_000.0, 0.125);
        assert_eq!((l.levels, l.side(), l.min_tile), (7, 128, (-64, -64)));
        assert_eq!(l.geometric_error(7), 0.125);
        assert_eq!(l.geometric_error(0), 16.0);
        let root = ContentKey {
            level: 0,
            ix: 0,
            iz: 0,
        };
        assert_eq!(
            l.tiles(root),
            TileRect {
                min_tx: -64,
                min_tz: -64,
                max_tx: 63,
                max_tz: 63
            }
        );
        let leaf = l.from_tileset(7, 64, 0).unwrap();
        assert_eq!(
            l.tiles(leaf),
            TileRect {
                min_tx: 0,
                min_tz: 63,
                max_tx: 0,
                max_tz: 63
            }
        );
        assert_eq!(l.tileset_y(leaf), 0);
        assert_eq!(l.from_tileset(8, 0, 0), None);
        assert_eq!(l.from_tileset(2, 4, 0), None);
        let (lo, hi) = l
            .covering_contents(
                3,
                &TileRect {
                    min_tx: 0,
                    min_tz: 0,
                    max_tx: 0,
                    max_tz: 0,
                },
            )
            .unwrap();
        assert_eq!(
            (lo, hi),
            (
                ContentKey {
                    level: 3,
                    ix: 4,
                    iz: 4
                },
                ContentKey {
                    level: 3,
                    ix: 4,
                    iz: 4
                }
            )
        );
    }

    #[test]
    fn a_change_names_the_contents_covering_its_tiles_at_every_level() {
        // 16 x 16 tiles, -8..=7 on both axes, levels 0 to 4.
        let l = TilesetLayout::covering(grid(), 1600.0, 0.25);
        assert_eq!((l.levels, l.min_tile), (4, (-8, -8)));
        let rect = |min_tx, min_tz, max_tx, max_tz| TileRect {
            min_tx,
            min_tz,
            max_tx,
            max_tz,
        };
        // Tiles x 0..=1, z -1..=0, and one far outside the square.
        let changed = l.changed_contents(&[rect(0, -1, 1, 0), rect(40, 40, 41, 41)]);
        let expected: Vec<(u32, u64, u64, u64, u64)> = vec![
            (0, 0, 0, 0, 0),
            (1, 1, 0, 1, 1),
            (2, 2, 1, 2, 2),
            (3, 4, 3, 4, 4),
            // Tile x 0 is index 8; z -1 is index 7, tileset y 15 - 7 = 8; z 0 is y 7.
            (4, 8, 7, 9, 8),
        ];
        let got: Vec<_> = changed
            .iter()
            .map(|c| (c.level, c.min_x, c.min_y, c.max_x, c.max_y))
            .collect();
        assert_eq!(got, expected);
        // Every content of every level: named exactly when it covers a changed tile.
        for level in 0..=l.levels {
            for x in 0..1u64 << level {
                for y in 0..1u64 << level {
                    let key = l.from_tileset(level, x, y).unwrap();
                    let covered = l.tiles(key);
                    let touched = covered.min_tx <= 1
                        && covered.max_tx >= 0
                        && covered.min_tz <= 0
                        && covered.max_tz >= -1;
                    let named = changed.iter().any(|c| c.contains(level, x, y));
                    assert_eq!(named, touched, "({level}, {x}, {y})");
                }
            }
        }
    }

    #[test]
    fn a_voxel_parent_grid_bounds_the_top_block_heightfield() {
        use crate::{Overlap, ZoneSet};
        let generator = WorldGenerator::new(GeneratorKind::Voxel, 3).unwrap();
        let terrain = Terrain::new(generator, ZoneSet::new(Overlap::Layered, 32.0));
        let mut l = TilesetLayout::covering(terrain.generator().tile_grid(), 64.0, 0.25);
        l.min_tile = (0, 0);
        assert_eq!((l.levels, l.bounds()), (1, (0.0, 0.0, 64.0, 64.0)));
        let root = ContentKey {
            level: 0,
            ix: 0,
            iz: 0,
        };
        let leaves = root.children().map(|k| leaf_grid(&terrain, &l, k));
        // A leaf is the height queries' answers at its chunk's block corners.
        for g in &leaves {
            let (x0, z0) = (g.key.ix as usize * 32, g.key.iz as usize * 32);
            for (k, &h) in g.heights.iter().enumerate() {
                let (x, z) = ((x0 + k % 33) as f64, (z0 + k / 33) as f64);
                assert_eq!(f64::from(h), terrain.height(x, z), "({x}, {z})");
            }
        }
        let parent = parent_grid(root, [&leaves[0], &leaves[1], &leaves[2], &leaves[3]]);
        let coarse: Vec<f64> = parent.heights.iter().map(|&h| f64::from(h)).collect();
        let mut worst = 0.0f64;
        for z in 0..=64 {
            for x in 0..=64 {
                let h = terrain.height(f64::from(x), f64::from(z));
                let s = interpolate(&coarse, 33, f64::from(x) / 2.0, f64::from(z) / 2.0);
                worst = worst.max((s - h).abs());
                assert!(h as f32 >= parent.min && h as f32 <= parent.max);
            }
        }
        // Whole-block steps: the surface through every other corner misses some corners
        // by half a block or more.
        assert!(worst >= 0.5, "{worst}");
        assert!(worst <= parent.error, "{worst} > {}", parent.error);
    }

    /// The full-detail heights a content of `level` reads at most, over every sample
    /// depth it may take: exact samples read every height under them, sampled ones
    /// four tiles' worth each.
    fn heights_read(l: &TilesetLayout, level: u32) -> u64 {
        let tile = (l.n() * l.n()) as u64;
        (1..=l.max_sample_depth(level))
            .map(|d| {
                let samples = 1u64 << (2 * d);
                if l.exact(level + d) {
                    samples * (1u64 << (2 * (l.levels - level - d))) * tile
                } else {
                    samples * 4 * tile
                }
            })
            .sum()
    }

    #[test]
    fn no_content_of_the_largest_square_reads_more_than_the_island_root() {
        let island = TilesetLayout::covering(grid(), 10_000.0, 0.25);
        assert!((0..=island.levels).all(|l| island.exact(l)));
        assert_eq!(island.max_sample_depth(0), 3);
        let root = heights_read(&island, 0);
        // 1,000 km: 16,384 tiles a side, 14 levels.
        let big = TilesetLayout::covering(grid(), 1_000_000.0, 0.25);
        assert_eq!(big.levels, 14);
        let exact: Vec<bool> = (0..=14).map(|l| big.exact(l)).collect();
        assert_eq!(
            exact.iter().filter(|e| !**e).count(),
            8,
            "levels 0 to 7 sampled"
        );
        assert!(exact[8..].iter().all(|e| *e));
        let depths: Vec<u32> = (0..14).map(|l| big.max_sample_depth(l)).collect();
        assert_eq!(depths, [3, 3, 3, 3, 3, 2, 1, 3, 3, 3, 3, 3, 2, 1]);
        for level in 0..14 {
            let read = heights_read(&big, level);
            assert!(read <= root, "level {level}: {read} > {root}");
        }
        // A voxel world's 1,000 km: 32,768 chunks a side, exact up to 16 x 16 chunks.
        let generator = WorldGenerator::new(GeneratorKind::Voxel, 3).unwrap();
        let mut cubes = TilesetLayout::covering(generator.tile_grid(), 1_000_000.0, 1.0);
        cubes.exact_below = exact_below(&generator);
        assert_eq!((cubes.levels, cubes.exact_below), (15, 4));
        let chunks = (cubes.n() * cubes.n()) as u64;
        for level in 0..15 {
            let read = heights_read(&cubes, level);
            // Every depth tried reads its samples again (1 to 3).
            assert!(
                read <= 3 * 32 * 32 * chunks,
                "level {level}: {read} heights"
            );
        }
        assert_eq!(heights_read(&cubes, 10), 32 * 32 * chunks * 3);
    }

    #[test]
    fn a_sampled_grid_is_its_samples_with_the_error_measured_one_level_finer() {
        use crate::{Overlap, ZoneSet};
        let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
        let terrain = Terrain::new(generator, ZoneSet::new(Overlap::Layered, 32.0));
        // 4 x 4 tiles over the island's centre: one level above the finest, a sampled
        // grid reads the same heights as the exact one, which merges the leaves.
        let l = TilesetLayout::covering(grid(), 400.0, 0.25);
        let key = l.from_tileset(1, 0, 0).unwrap();
        let sampled = sampled_grid(&terrain, &l, key);
        let exact = grid_from_terrain(&terrain, &l, key);
        assert_eq!(sampled.heights.len(), exact.heights.len());
        for (k, (a, b)) in sampled.heights.iter().zip(&exact.heights).enumerate() {
            assert!((a - b).abs() <= 1e-4, "sample {k}: {a} against {b}");
        }
        assert!((sampled.error - exact.error).abs() <= 1e-4, "{sampled:?}");
        assert!(exact.error > 0.01, "the island's centre is not flat");
        assert!((sampled.min - exact.min).abs() <= 1e-4 && (sampled.max - exact.max).abs() <= 1e-4);
    }

    /// The JSON of a subtree file and its binary chunk, after checking the header.
    fn parts(s: &[u8]) -> (Value, &[u8]) {
        assert_eq!(&s[..4], b"subt");
        assert_eq!(u32::from_le_bytes(s[4..8].try_into().unwrap()), 1);
        let json_len = u64::from_le_bytes(s[8..16].try_into().unwrap()) as usize;
        let bin_len = u64::from_le_bytes(s[16..24].try_into().unwrap()) as usize;
        assert_eq!((json_len % 8, bin_len % 8), (0, 0));
        assert_eq!(s.len(), 24 + json_len + bin_len);
        let doc: Value = serde_json::from_slice(&s[24..24 + json_len]).unwrap();
        (doc, &s[24 + json_len..])
    }

    /// The doubles of the subtree's tile metadata.
    fn tile_errors(doc: &Value, bin: &[u8]) -> Vec<f64> {
        let table = &doc["propertyTables"][doc["tileMetadata"].as_u64().unwrap() as usize];
        let view = &doc["bufferViews"][table["properties"]["geometricError"]["values"]
            .as_u64()
            .unwrap() as usize];
        let (at, len) = (
            view["byteOffset"].as_u64().unwrap() as usize,
            view["byteLength"].as_u64().unwrap() as usize,
        );
        assert_eq!(len as u64, table["count"].as_u64().unwrap() * 8);
        bin[at..at + len]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn an_island_s_one_subtree_holds_every_level_and_no_metadata() {
        let l = TilesetLayout::covering(grid(), 10_000.0, 0.25);
        assert!((0..=l.levels).all(|level| l.proven(level)));
        assert_eq!(l.subtree_levels(), 8);
        let file = subtree(&l, (0, 0, 0), |_| unreachable!());
        let (doc, bin) = parts(&file);
        assert!(bin.is_empty());
        assert_eq!(doc["tileAvailability"]["constant"], 1);
        assert_eq!(doc["contentAvailability"][0]["constant"], 1);
        assert_eq!(doc["childSubtreeAvailability"]["constant"], 0);
        assert!(doc.get("propertyTables").is_none() && doc.get("tileMetadata").is_none());
        let t = tileset_json(&l, (0.0, 10.0), l.geometric_error(0), 3);
        assert!(t.get("schema").is_none());
        assert_eq!(t["root"]["implicitTiling"]["subtreeLevels"], 8);
        assert_eq!(subtree_root(&l, 0, 0, 0), Ok(ContentKey::ROOT));
        assert!(
            subtree_root(&l, 1, 0, 0)
                .unwrap_err()
                .0
                .contains("every 8 levels")
        );
    }

    #[test]
    fn a_large_square_s_subtrees_give_every_tile_its_error_in_morton_order() {
        // 1,000 km: 15 levels, subtrees at levels 0, 7 and 14.
        let l = TilesetLayout::covering(grid(), 1_000_000.0, 0.25);
        assert_eq!((l.levels, l.subtree_levels()), (14, 7));
        assert_eq!(
            (0..=14)
                .filter(|&level| !l.proven(level))
                .collect::<Vec<_>>(),
            (0..=6).collect::<Vec<_>>()
        );
        // An error naming each tile by its tileset indices.
        let code =
            |k: ContentKey| f64::from(k.level) * 1e8 + k.ix as f64 * 1e4 + l.tileset_y(k) as f64;
        let file = subtree(&l, (7, 3, 5), code);
        let (doc, bin) = parts(&file);
        assert_eq!(doc["tileAvailability"]["constant"], 1);
        assert_eq!(doc["childSubtreeAvailability"]["constant"], 1);
        let e = tile_errors(&doc, bin);
        assert_eq!(e.len(), 5461);
        // Level 0 of the subtree is its root; level 1 takes x in the even bit, y in
        // the odd one: (6, 10), (7, 10), (6, 11), (7, 11).
        let at = |level: f64, x: f64, y: f64| level * 1e8 + x * 1e4 + y;
        assert_eq!(e[0], at(7.0, 3.0, 5.0));
        assert_eq!(
            e[1..5],
            [
                at(8.0, 6.0, 10.0),
                at(8.0, 7.0, 10.0),
                at(8.0, 6.0, 11.0),
                at(8.0, 7.0, 11.0)
            ]
        );
        // Level 2, Morton index 6 (binary 0110): x 0b10 and y 0b01 below (12, 20).
        assert_eq!(e[5 + 6], at(9.0, 14.0, 21.0));
        assert_eq!(e[5460], at(13.0, 255.0, 383.0));
        // The deepest subtrees hold one level: a prefix of their tile order.
        let file = subtree(&l, (14, 9, 9), code);
        let (doc, bin) = parts(&file);
        assert_eq!(doc["childSubtreeAvailability"]["constant"], 0);
        let tiles = &doc["tileAvailability"];
        assert_eq!(tiles["availableCount"], 1);
        assert_eq!(doc["contentAvailability"][0], *tiles);
        let view = &doc["bufferViews"][tiles["bitstream"].as_u64().unwrap() as usize];
        assert_eq!(view["byteLength"], 683, "5,461 bits");
        let bits = &bin[..683];
        assert_eq!(bits[0], 1);
        assert!(bits[1..].iter().all(|&b| b == 0));
        assert_eq!(tile_errors(&doc, bin), [at(14.0, 9.0, 9.0)]);
        assert_eq!(
            subtree_root(&l, 14, 9, 9),
            Ok(l.from_tileset(14, 9, 9).unwrap())
        );
        assert!(subtree_root(&l, 6, 0, 0).is_err());
        assert!(subtree_root(&l, 21, 0, 0).is_err());
        assert!(
            subtree_root(&l, 7, 128, 0)
                .unwrap_err()
                .0
                .contains("below 128")
        );
        let t = tileset_json(&l, (0.0, 10.0), 4096.0, 3);
        assert_eq!(t["root"]["implicitTiling"]["subtreeLevels"], 7);
        assert_eq!(
            t["schema"]["classes"][TILE_CLASS]["properties"]["geometricError"]["semantic"],
            "TILE_GEOMETRIC_ERROR"
        );
    }

    #[test]
    fn sampled_contents_declare_what_the_ground_proves() {
        let island = |seed| {
            Terrain::new(
                WorldGenerator::new(GeneratorKind::Hyperscape, seed).unwrap(),
                crate::ZoneSet::new(crate::Overlap::Layered, 100.0),
            )
        };
        let l = TilesetLayout::covering(grid(), 1_000_000.0, 0.25);
        let key = |level, x, z| ContentKey {
            level,
            ix: x,
            iz: z,
        };
        let centre = key(6, 32, 32);
        let (x0, z0, x1, z1) = l.content_bounds(centre);
        assert!(x0 <= 0.0 && 0.0 <= x1 && z0 <= 0.0 && 0.0 <= z1);
        // Seed 1 has mountains: -41.25 to 46.5 m over the island, more than the
        // 64 m of level 6.
        let one = island(1);
        let e = declared_error(&l, &one, centre);
        assert!((87.75..87.76).contains(&e), "{e}");
        // Proven levels declare their own error.
        assert_eq!(declared_error(&l, &one, key(7, 64, 64)), 32.0);
        // The root's 4,096 m is more than any height span.
        assert_eq!(declared_error(&l, &one, key(0, 0, 0)), 4096.0);
        // Far out at sea, the ocean floor: its level's error.
        assert_eq!(declared_error(&l, &one, key(6, 0, 0)), 64.0);
        // Seed 0 has no mountains: -27.5 to 31 m, within 64 m.
        let mut zero = island(0);
        assert_eq!(declared_error(&l, &zero, centre), 64.0);
        // A zone 200 m up far out at sea: the content under it declares the span from
        // the ocean floor to the zone, its neighbours their level's error.
        let mut pad = crate::FlatZone {
            id: "pad".into(),
            center_x: -400_000.0,
            center_z: -400_000.0,
            shape: crate::zones::Shape::Circle { radius: 10.0 },
            height: 200.0,
            blend_radius: 5.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        zero.zones_mut().insert(pad.clone(), 1);
        // The square starts at -819,250 m; level 6 contents are 25.6 km wide.
        let under = key(6, 16, 16);
        let (x0, z0, x1, z1) = l.content_bounds(under);
        assert!(x0 < -400_000.0 && -400_000.0 < x1 && z0 < -400_000.0 && -400_000.0 < z1);
        let e = declared_error(&l, &zero, under);
        assert!((197.5..197.51).contains(&e), "{e}");
        assert_eq!(
            declared_error(&l, &zero, key(6, under.ix + 1, under.iz)),
            64.0
        );
        pad.height = 40.0;
        zero.zones_mut().insert(pad, 2);
        assert_eq!(declared_error(&l, &zero, under), 64.0);
    }
}
