//! The height of the served surface: the plane of the mesh triangle under a point,
//! which is what a player standing there sees (the exact height is the continuous
//! field the mesh samples).

use crate::Generator;
use crate::terrain::Terrain;

use super::tile::border_coord;

/// The height at `(x, z)` on the tile mesh: the float32 vertex heights of the triangle
/// under the point, interpolated on its plane. Cells split along the (ix, iz+1)-(ix+1,
/// iz) diagonal: `fx + fz <= 1` lies in triangle (a, b, d), the rest in (b, c, d).
pub fn surface_height(terrain: &Terrain, x: f64, z: f64) -> f64 {
    let layout = terrain.generator().tile_grid();
    let n = layout.resolution.max(2) as usize;
    let (tx, tz) = (layout.tile_of(x), layout.tile_of(z));
    let step = layout.step();
    let cell = |c: f64, t: i64| -> (usize, f64) {
        let g = (c - layout.origin(t)) / step;
        let i = (libm::floor(g).max(0.0) as usize).min(n - 2);
        (i, (g - i as f64).clamp(0.0, 1.0))
    };
    let ((ix, fx), (iz, fz)) = (cell(x, tx), cell(z, tz));
    // The mesh samples vertex heights at these coordinates.
    let vx = [
        border_coord(&layout, tx, ix as i64),
        border_coord(&layout, tx, ix as i64 + 1),
    ];
    let vz = [
        border_coord(&layout, tz, iz as i64),
        border_coord(&layout, tz, iz as i64 + 1),
    ];
    let h = |i: usize, j: usize| f64::from(terrain.height(vx[i], vz[j]) as f32);
    if fx + fz <= 1.0 {
        let (a, b, d) = (h(0, 0), h(0, 1), h(1, 0));
        a + (d - a) * fx + (b - a) * fz
    } else {
        let (b, c, d) = (h(0, 1), h(1, 1), h(1, 0));
        c + (b - c) * (1.0 - fx) + (d - c) * (1.0 - fz)
    }
}
