//! Building one tile mesh.
//!
//! Tile `(tx, tz)` has `n x n` vertices (`n` = the layout's resolution), vertex
//! `i = iz * n + ix`. Vertex positions are the original main thread's float32 local
//! positions `f32(i * step - offset)` relative to the placement `t * size` (offset is
//! half a tile for centred layouts). Heights are sampled, as in the original's worker,
//! on an `(n+2) x (n+2)` grid at the unrounded coordinates `(-offset + i * step) +
//! t * size` (i = -1 ..= n): its interior gives the vertex heights and its one-vertex
//! border lets centred differences give normals that are continuous across tile edges.
//! Neighbours compute the same coordinates on a shared edge up to an ulp, so their
//! edge heights agree to within 1e-12 m.
//!
//! The coordinate conventions are the tile layout's ([`vertex_coord`], [`border_coord`]:
//! hyperscape's generator samples on them too) and the normals generic maths
//! ([`normals_from_grid`]); they are re-exported here, where meshes are built.

pub use crate::maths::normals_from_grid;
pub use crate::tile::{border_coord, vertex_coord};

use crate::Generator;
use crate::terrain::Terrain;
use crate::tile::Tile;

/// Triangle indices, 16-bit when every vertex index fits.
#[derive(Debug, Clone, PartialEq)]
pub enum Indices {
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Indices {
    pub fn len(&self) -> usize {
        match self {
            Indices::U16(v) => v.len(),
            Indices::U32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `idx` as 16-bit indices when `vertices` fit in them, else as they are.
    pub fn fitting(idx: Vec<u32>, vertices: usize) -> Self {
        if vertices <= usize::from(u16::MAX) + 1 {
            Indices::U16(idx.into_iter().map(|i| i as u16).collect())
        } else {
            Indices::U32(idx)
        }
    }

    /// Index `k` widened to u32.
    pub fn get(&self, k: usize) -> Option<u32> {
        match self {
            Indices::U16(v) => v.get(k).map(|&i| u32::from(i)),
            Indices::U32(v) => v.get(k).copied(),
        }
    }
}

/// The mesh of one tile.
#[derive(Debug, Clone, PartialEq)]
pub struct TileMesh {
    pub key: Tile,
    /// The revision of the last change that touched the tile (0: none).
    pub version: u64,
    /// Vertices per edge.
    pub resolution: u32,
    /// World position of the tile's local origin: `(tx * size, 0, tz * size)`.
    pub placement: [f64; 3],
    /// `x, y, z` per vertex, float32, relative to `placement`; `y` is the height.
    pub positions: Vec<f32>,
    /// Unit normals, `x, y, z` per vertex.
    pub normals: Vec<f32>,
    /// Two triangles per cell, split along the (ix, iz+1)-(ix+1, iz) diagonal; carved
    /// cells are absent.
    pub indices: Indices,
    /// The f64 vertex heights the float32 positions were rounded from.
    pub heights: Vec<f64>,
    pub min_height: f32,
    pub max_height: f32,
    /// Hyperscape tiles: the original worker's vertex colours, linear `r, g, b` per
    /// vertex (f32, bit for bit; see `generator::hyperscape::colours`). Empty for
    /// other generators.
    pub colours: Vec<f32>,
    /// Hyperscape tiles: each vertex's dominant biome id
    /// (`generator::hyperscape::colours::BIOME_NAMES`). Empty for other generators.
    pub biomes: Vec<u8>,
}

impl TileMesh {
    /// The float32 height of vertex `(ix, iz)`.
    pub fn vertex_height(&self, ix: usize, iz: usize) -> f32 {
        self.positions[(iz * self.resolution as usize + ix) * 3 + 1]
    }
}

/// Which cells are carved: all four corners carved by one and the same zone
/// ([`FlatZone::carves`](crate::FlatZone::carves): a masked zone by its footprint, any
/// other by its core shrunk by its `carve_inset`, none without one). `xs`, `zs` are
/// the vertices' world coordinates from their float32 local positions, as the
/// original's carve reads them.
fn carved_cells(terrain: &Terrain, xs: &[f64], zs: &[f64]) -> Vec<bool> {
    let n = xs.len();
    let mut carved = vec![false; (n - 1) * (n - 1)];
    let (x0, x1, z0, z1) = (xs[0], xs[n - 1], zs[0], zs[n - 1]);
    for (zone, _) in terrain.zones().iter() {
        if !zone.may_carve() {
            continue;
        }
        let b = zone.outer_bounds();
        if b.max_x < x0 || b.min_x > x1 || b.max_z < z0 || b.min_z > z1 {
            continue;
        }
        let inside: Vec<bool> = zs
            .iter()
            .flat_map(|&z| xs.iter().map(move |&x| zone.carves(x, z)))
            .collect();
        for iz in 0..n - 1 {
            for ix in 0..n - 1 {
                let v = iz * n + ix;
                if inside[v] && inside[v + 1] && inside[v + n] && inside[v + n + 1] {
                    carved[iz * (n - 1) + ix] = true;
                }
            }
        }
    }
    carved
}

/// The triangles of every cell not carved: `(a, b, d)` and `(b, c, d)` with
/// `a = (ix, iz)`, `b = (ix, iz+1)`, `c = (ix+1, iz+1)`, `d = (ix+1, iz)`.
fn triangles(n: usize, carved: &[bool]) -> Vec<u32> {
    let mut idx = Vec::with_capacity((n - 1) * (n - 1) * 6);
    for iz in 0..n - 1 {
        for ix in 0..n - 1 {
            if carved[iz * (n - 1) + ix] {
                continue;
            }
            let a = (iz * n + ix) as u32;
            let b = a + n as u32;
            let (c, d) = (b + 1, a + 1);
            idx.extend([a, b, d, b, c, d]);
        }
    }
    idx
}

/// Builds the mesh of tile `key` of `terrain` at `version`.
///
/// This is CPU work of about a millisecond for a 64x64 tile: keep it off async
/// workers.
pub fn build_tile(terrain: &Terrain, key: Tile, version: u64) -> TileMesh {
    let layout = terrain.generator().tile_grid();
    let n = layout.resolution.max(2) as usize;
    let m = n + 2;
    // One area evaluation of the bordered grid at unrounded coordinates: the interior
    // is the vertex heights, the border feeds the normals.
    let bx: Vec<f64> = (-1..=n as i64)
        .map(|i| border_coord(&layout, key.0, i))
        .collect();
    let bz: Vec<f64> = (-1..=n as i64)
        .map(|i| border_coord(&layout, key.1, i))
        .collect();
    let mut grid = vec![0.0; m * m];
    terrain.fill_axes(&bx, &bz, &mut grid);
    let grid32: Vec<f32> = grid.iter().map(|&h| h as f32).collect();
    let normals = normals_from_grid(&grid32, n, layout.step());
    let heights: Vec<f64> = (1..=n)
        .flat_map(|gz| grid[gz * m + 1..gz * m + 1 + n].iter().copied())
        .collect();

    let xs: Vec<f64> = (0..n).map(|i| vertex_coord(&layout, key.0, i)).collect();
    let zs: Vec<f64> = (0..n).map(|i| vertex_coord(&layout, key.1, i)).collect();
    let (px, pz) = (key.0 as f64 * layout.size, key.1 as f64 * layout.size);
    let mut positions = Vec::with_capacity(n * n * 3);
    let (mut min_height, mut max_height) = (f32::INFINITY, f32::NEG_INFINITY);
    for iz in 0..n {
        for ix in 0..n {
            let y = heights[iz * n + ix] as f32;
            min_height = min_height.min(y);
            max_height = max_height.max(y);
            positions.extend([(xs[ix] - px) as f32, y, (zs[iz] - pz) as f32]);
        }
    }
    let idx = triangles(n, &carved_cells(terrain, &xs, &zs));
    let indices = Indices::fitting(idx, n * n);
    let (colours, biomes) = vertex_colours(terrain, &bx, &bz, &grid32, n);
    TileMesh {
        key,
        version,
        resolution: n as u32,
        placement: [px, 0.0, pz],
        positions,
        normals,
        indices,
        heights,
        min_height,
        max_height,
        colours,
        biomes,
    }
}

/// The worker's colour and biome of every vertex of a hyperscape tile, at its worker
/// coordinates (`bx`, `bz` without their border) and its f32 height (the interior of
/// the bordered `grid32`, zones included); empty for other generators.
fn vertex_colours(
    terrain: &Terrain,
    bx: &[f64],
    bz: &[f64],
    grid32: &[f32],
    n: usize,
) -> (Vec<f32>, Vec<u8>) {
    let crate::WorldGenerator::Hyperscape(hyperscape) = terrain.generator() else {
        return (Vec::new(), Vec::new());
    };
    let colouring = hyperscape.colours();
    let m = n + 2;
    let mut colours = Vec::with_capacity(n * n * 3);
    let mut biomes = Vec::with_capacity(n * n);
    colouring.grid(
        hyperscape.noise(),
        &bx[1..=n],
        &bz[1..=n],
        |ix, iz| grid32[(iz + 1) * m + ix + 1],
        |c| {
            colours.extend(c.rgb);
            biomes.push(c.biome);
        },
    );
    (colours, biomes)
}
