//! The original game's tile conventions (docs/src/reference/height.md, "Tiles") for hyperscape tiles: vertex
//! coordinates on the main thread (float32 plane geometry) and in the worker
//! (unrounded f64), and the worker's normals. The conventions themselves are the tile
//! layout's ([`crate::tile::vertex_coord`], [`crate::tile::border_coord`]) and the
//! normals generic maths ([`crate::maths::normals_from_grid`]), both below the
//! generators; this module fixes them to the 100 m, 64-vertex layout, and the tile
//! meshes above ([`crate::mesh::tile`]) build on the same functions.
//!
//! It stays with the generator, not with the meshes: the reference tests check the
//! original's worker heights and normals through it, at the generator's own tile
//! layout, and nothing in it builds a mesh.

use super::{TILE_RESOLUTION, TILE_SIZE};
use crate::generator::Generator;
use crate::maths::normals_from_grid;
use crate::tile::{TileGrid, border_coord, vertex_coord};

/// Vertices per tile edge.
const N: usize = TILE_RESOLUTION as usize;

/// 100 m tiles centred on multiples of 100, 64 vertices a side.
const LAYOUT: TileGrid = TileGrid {
    size: TILE_SIZE,
    resolution: TILE_RESOLUTION,
    centred: true,
};

/// Vertex spacing, `100/63` m.
pub fn step() -> f64 {
    LAYOUT.step()
}

/// The main thread's world coordinate of vertex `i` of tile `t` on one axis:
/// `f32(i*st - 50) + 100*t` (three.js stores plane positions as float32).
pub fn main_coord(t: i64, i: usize) -> f64 {
    vertex_coord(&LAYOUT, t, i)
}

/// The worker's world coordinate of vertex `i` of tile `t` on one axis:
/// `(-50 + i*st) + 100*t`. `i` runs from -1 to 64 over the bordered normal grid.
pub fn worker_coord(t: i64, i: i64) -> f64 {
    border_coord(&LAYOUT, t, i)
}

/// The worker's vertex normals of tile `(tx, tz)`: heights rounded to float32 on the
/// bordered grid at worker coordinates, then centred differences (§6.4). Row-major,
/// `iz * 64 + ix`.
pub fn worker_normals(g: &impl Generator, tx: i64, tz: i64) -> Vec<[f32; 3]> {
    let xs: Vec<f64> = (-1..=N as i64).map(|i| worker_coord(tx, i)).collect();
    let zs: Vec<f64> = (-1..=N as i64).map(|i| worker_coord(tz, i)).collect();
    let mut heights = vec![0.0; xs.len() * zs.len()];
    g.fill_axes(&xs, &zs, &mut heights);
    let grid: Vec<f32> = heights.iter().map(|&h| h as f32).collect();
    normals_from_grid(&grid, N, step())
        .chunks_exact(3)
        .map(|n| [n[0], n[1], n[2]])
        .collect()
}
