//! The original game's tile conventions (ALGORITHM.md §6): vertex coordinates on the
//! main thread (float32 plane geometry) and in the worker (unrounded f64), and vertex
//! normals by centred differences over a 66x66 grid with a one-vertex border, which
//! makes normals seamless across tile edges.

use libm::sqrt;

use super::{TILE_RESOLUTION, TILE_SIZE};
use crate::Generator;

/// Vertices per tile edge.
const N: usize = TILE_RESOLUTION as usize;
/// Samples per edge of the normal grid: the vertices plus a one-vertex border.
const BORDERED: usize = N + 2;

/// Vertex spacing, `100/63` m.
pub fn step() -> f64 {
    TILE_SIZE / (N - 1) as f64
}

/// The main thread's world coordinate of vertex `i` of tile `t` on one axis:
/// `f32(i*st - 50) + 100*t` (three.js stores plane positions as float32).
pub fn main_coord(t: i64, i: usize) -> f64 {
    let local = f64::from((i as f64 * step() - TILE_SIZE / 2.0) as f32);
    local + TILE_SIZE * t as f64
}

/// The worker's world coordinate of vertex `i` of tile `t` on one axis:
/// `(-50 + i*st) + 100*t`. `i` runs from -1 to 64 over the bordered normal grid.
pub fn worker_coord(t: i64, i: i64) -> f64 {
    (-TILE_SIZE / 2.0 + i as f64 * step()) + TILE_SIZE * t as f64
}

/// The worker's vertex normals of tile `(tx, tz)`: heights rounded to float32 on the
/// bordered grid at worker coordinates, then centred differences (§6.4). Row-major,
/// `iz * 64 + ix`.
pub fn worker_normals(g: &impl Generator, tx: i64, tz: i64) -> Vec<[f32; 3]> {
    let xs: Vec<f64> = (-1..=N as i64).map(|i| worker_coord(tx, i)).collect();
    let zs: Vec<f64> = (-1..=N as i64).map(|i| worker_coord(tz, i)).collect();
    let mut heights = vec![0.0; BORDERED * BORDERED];
    g.fill_axes(&xs, &zs, &mut heights);
    let grid: Vec<f32> = heights.iter().map(|&h| h as f32).collect();
    normals_from_bordered_grid(&grid, step())
}

/// Normals of the 64x64 vertices from a 66x66 float32 height grid whose cell
/// `(gx, gz)` lies one step outside the tile at 0 and 65: `n = normalize(-(hR-hL)k, 1,
/// -(hU-hD)k)` with `k = 1/(2 step)`, in f64, each component rounded to float32.
pub fn normals_from_bordered_grid(grid: &[f32], step: f64) -> Vec<[f32; 3]> {
    assert_eq!(grid.len(), BORDERED * BORDERED, "grid must be 66x66");
    let k = 1.0 / (2.0 * step);
    let at = |gx: usize, gz: usize| f64::from(grid[gz * BORDERED + gx]);
    let mut normals = Vec::with_capacity(N * N);
    for gz in 1..=N {
        for gx in 1..=N {
            let nx = -((at(gx + 1, gz) - at(gx - 1, gz)) * k);
            let nz = -((at(gx, gz + 1) - at(gx, gz - 1)) * k);
            let len = sqrt((nx * nx + 1.0) + nz * nz);
            normals.push([(nx / len) as f32, (1.0 / len) as f32, (nz / len) as f32]);
        }
    }
    normals
}
