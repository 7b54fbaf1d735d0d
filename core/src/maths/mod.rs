//! Generic maths the rest of the crate shares: functions of numbers alone, owned by no
//! generator, zone rule or mesh, so that every layer above can use them. A leaf: it
//! names no other module of the crate.
//!
//! - [`jsmath`]: JavaScript's `Math.pow`, `Math.sin` and `Math.cos` as the original
//!   game's engine computes them, bit for bit (hyperscape's noise and island, the
//!   walkability difficulty).
//! - [`smooth`]: the smoothstep of docs/src/reference/height.md, "Notation" (hyperscape's noise, the zones'
//!   blend, the layout's clearings and corridors).
//! - [`normals_from_grid`]: unit normals of a bordered height grid by centred
//!   differences (tile meshes, hyperscape's worker normals).
//!
//! Each is written in the original's order of operations (no fused multiply-add): the
//! reference tests check their bits through every caller. For the tests, `test_values`
//! draws the doubles a fast path is held to a plain one over.

pub mod jsmath;
#[cfg(test)]
pub(crate) mod test_values;

use libm::sqrt;

/// `(t*t) * (3 - (2*t))`: the smoothstep of docs/src/reference/height.md, "Notation".
#[inline(always)]
pub fn smooth(t: f64) -> f64 {
    (t * t) * (3.0 - (2.0 * t))
}

/// Unit normals by centred differences over a bordered grid of heights (§6.4): `grid`
/// holds `(n+2) x (n+2)` float32 heights, row-major, at spacing `step`; the result
/// holds the `n x n` interior normals as `x, y, z` triples, row-major.
pub fn normals_from_grid(grid: &[f32], n: usize, step: f64) -> Vec<f32> {
    let m = n + 2;
    let k = 1.0 / (2.0 * step);
    let at = |gx: usize, gz: usize| f64::from(grid[gz * m + gx]);
    let mut out = Vec::with_capacity(n * n * 3);
    for gz in 1..=n {
        for gx in 1..=n {
            let nx = -((at(gx + 1, gz) - at(gx - 1, gz)) * k);
            let nz = -((at(gx, gz + 1) - at(gx, gz - 1)) * k);
            let len = sqrt((nx * nx + 1.0) + nz * nz);
            out.extend([(nx / len) as f32, (1.0 / len) as f32, (nz / len) as f32]);
        }
    }
    out
}
