//! Bounds of the island mask's coastline variation by direction, so the mask can
//! answer most points between [`super::layers`]' always-land and always-ocean radii
//! without evaluating the coastline noise at all.
//!
//! The variation is `var = (c1 * 0.2 + c2 * 0.08) + c3 * 0.02`, with `θ = atan2(z, x)`,
//! `c1(θ) = fractal(2 cos θ, 2 sin θ, 3, 0.5, 2)`, `c2(θ) = fractal(6 cos θ, 6 sin θ,
//! 2, 0.5, 2)` and `c3(θ) = simplex(16 cos θ, 16 sin θ)`: a function of the direction
//! only. [`Coast::new`] evaluates the three terms, exactly as the mask does, at the
//! edges of [`SECTORS`] sectors of directions, and bounds each inside each sector
//! with its Lipschitz constant ([`SLOPE`], [`SLOPE_C2`], [`SLOPE_C3`]). A point's
//! sector is found from a pseudo-angle (four divisions' worth of arithmetic, no
//! `atan2`), and the neighbouring sectors are included so rounding near a sector
//! edge cannot matter. If a point lies inside the coast's falloff even for the
//! lowest `var` its direction allows (or beyond it for the highest), the mask's answer
//! is known exactly: its comparisons are monotonic in `var`, so they come out as they
//! would for the true value.

use std::sync::Arc;

use libm::atan2;

use crate::maths::jsmath::sincos;

use super::noise::{Noise, SIMPLEX_BOUND};

/// Sectors of directions around the island.
pub(super) const SECTORS: usize = 8192;

/// An upper bound of `|d c1 / d θ|`. One Perlin octave's gradient is at most
/// `1.875 * 3 + 1 = 6.625` per axis (the quintic fade's slope 1.875 times the largest
/// difference of two corner values, 3 with gradient components of +-1, plus a
/// corner's own slope 1), so at most `6.625 * sqrt(2) < 9.37` in length; three
/// octaves of weights 1, 0.5, 0.25 and frequencies 1, 2, 4 over a norm of 1.75 give
/// at most `9.37 * 3 / 1.75 < 16.07`; the circle of radius 2 doubles it. Rounded up.
const SLOPE: f64 = 33.0;

/// An upper bound of `|d c2 / d θ|`, `c2 = fractal(6 cos θ, 6 sin θ, 2, 0.5, 2)`: one
/// octave's gradient is below 9.37 (see [`SLOPE`]); weights 1 and 0.5 at frequencies
/// 1 and 2 over a norm of 1.5 give at most `9.37 * 2 / 1.5 < 12.5`; the circle of
/// radius 6 multiplies it by 6: 75. A quarter more, for margin.
const SLOPE_C2: f64 = 94.0;

/// An upper bound of `|d c3 / d θ|`, `c3 = simplex(16 cos θ, 16 sin θ)`. Simplex is
/// continuous (a corner's weight `t = 0.5 - |d|^2` reaches 0 on the far edge of its
/// triangle) and `70` times a sum of three corner terms `t^4 (g . d)`, each with a
/// gradient `-8 t^3 (g . d) d + t^4 g` of length at most `|g| (8 t^3 |d|^2 + t^4) =
/// |g| (4 t^3 - 7 t^4) <= sqrt(2) * 189 / 2401 < 0.1114` (`|d|^2 = 0.5 - t`, the
/// maximum at `t = 3/7`); so at most `70 * 3 * 0.1114 < 23.4`, times 16 for the circle:
/// 374.4. A quarter more, for margin.
const SLOPE_C3: f64 = 468.0;

/// `|c2| <= 1` (a fractal of clamped Perlin values over its weights' sum) and
/// `|c3| <=` [`SIMPLEX_BOUND`]: the sector bounds are clipped to these.
const C2_BOUND: f64 = 1.0;
const C3_BOUND: f64 = SIMPLEX_BOUND;

/// A margin for the rounding of the terms and of the angle, far above either.
const ROUNDING: f64 = 1e-6;

/// The range of the coastline variation over each sector of directions (with its
/// neighbours); shared by the clones of a generator.
#[derive(Clone)]
pub(super) struct Coast {
    /// Bounds of the whole variation `var` per sector (with its neighbours).
    var: Arc<[(f64, f64)]>,
}

impl std::fmt::Debug for Coast {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coast")
            .field("sectors", &self.var.len())
            .finish_non_exhaustive()
    }
}

/// The coastline term in direction `θ`, with the mask's own operations.
#[inline]
pub(super) fn large_scale(noise: &Noise, theta: f64) -> f64 {
    let (sin_a, cos_a) = sincos(theta);
    noise.fractal(cos_a * 2.0, sin_a * 2.0, 3, 0.5, 2.0)
}

/// The coastline's variation of the island radius from its three terms (§3.3), with
/// the mask's operations in its order: [`super::layers`]' island mask and the
/// sector bounds both compute it here.
#[inline(always)]
pub(super) fn variation(c1: f64, c2: f64, c3: f64) -> f64 {
    (c1 * 0.2 + c2 * 0.08) + c3 * 0.02
}

/// The mask's two smaller coastline terms in direction `θ`, with its operations:
/// `(c2, c3)`.
fn small_scale(noise: &Noise, theta: f64) -> (f64, f64) {
    let (sin_a, cos_a) = sincos(theta);
    let (cx, cz) = (cos_a * 2.0, sin_a * 2.0);
    (
        noise.fractal(cx * 3.0, cz * 3.0, 2, 0.5, 2.0),
        noise.simplex(cx * 8.0, cz * 8.0),
    )
}

/// The range of a term over a sector from its values `a`, `b` at the sector's edges,
/// `width` radians apart, and its Lipschitz constant `slope`.
fn sector_range(a: f64, b: f64, width: f64, slope: f64) -> (f64, f64) {
    let slack = slope * width / 2.0 + ROUNDING;
    (a.min(b) - slack, a.max(b) + slack)
}

/// The pseudo-angle of direction `(x, z)` (not both 0), in `[0, 4]`: increasing with
/// the angle from the +x axis counter-clockwise (toward +z), a quarter turn per unit.
#[inline]
fn pseudo_angle(x: f64, z: f64) -> f64 {
    if z >= 0.0 {
        if x >= 0.0 {
            z / (x + z)
        } else {
            1.0 + (-x) / (z - x)
        }
    } else if x < 0.0 {
        2.0 + (-z) / (-x - z)
    } else {
        3.0 + x / (x - z)
    }
}

/// The direction of pseudo-angle `p` in `[0, 4]` (a point on the diamond
/// `|x| + |z| = 1`).
fn direction(p: f64) -> (f64, f64) {
    let quarter = (p.floor() as i64).clamp(0, 3);
    let q = p - quarter as f64;
    match quarter {
        0 => (1.0 - q, q),
        1 => (-q, 1.0 - q),
        2 => (-(1.0 - q), -q),
        _ => (q, -(1.0 - q)),
    }
}

impl Coast {
    /// The sector bounds of `noise`'s coastline.
    pub(super) fn new(noise: &Noise) -> Self {
        let edges: Vec<f64> = (0..=SECTORS)
            .map(|k| {
                let (x, z) = direction(4.0 * k as f64 / SECTORS as f64);
                atan2(z, x)
            })
            .collect();
        let c1: Vec<f64> = edges.iter().map(|&t| large_scale(noise, t)).collect();
        let small: Vec<(f64, f64)> = edges.iter().map(|&t| small_scale(noise, t)).collect();
        let width = |k: usize| {
            let width = edges[k + 1] - edges[k];
            if width < 0.0 {
                // The sector across the -x axis, where atan2 jumps from pi to -pi.
                width + 2.0 * std::f64::consts::PI
            } else {
                width
            }
        };
        // The variation's bounds: each term's, clipped to its global bound, combined
        // with the mask's operations (monotonic in each term), widened for rounding.
        let own: Vec<(f64, f64)> = (0..SECTORS)
            .map(|k| {
                let (c1_lo, c1_hi) = sector_range(c1[k], c1[k + 1], width(k), SLOPE);
                let (c2_lo, c2_hi) = sector_range(small[k].0, small[k + 1].0, width(k), SLOPE_C2);
                let (c3_lo, c3_hi) = sector_range(small[k].1, small[k + 1].1, width(k), SLOPE_C3);
                (
                    variation(c1_lo, c2_lo.max(-C2_BOUND), c3_lo.max(-C3_BOUND)) - ROUNDING,
                    variation(c1_hi, c2_hi.min(C2_BOUND), c3_hi.min(C3_BOUND)) + ROUNDING,
                )
            })
            .collect();
        let var = (0..SECTORS)
            .map(|k| {
                let around = [
                    own[(k + SECTORS - 1) % SECTORS],
                    own[k],
                    own[(k + 1) % SECTORS],
                ];
                (
                    around.iter().map(|s| s.0).fold(f64::INFINITY, f64::min),
                    around.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max),
                )
            })
            .collect();
        Coast { var }
    }

    /// Bounds `(lo, hi)` of the whole variation `var` (as the mask computes it) in
    /// the direction of `(x, z)` (not both 0).
    #[inline]
    pub(super) fn range(&self, x: f64, z: f64) -> (f64, f64) {
        let p = pseudo_angle(x, z);
        self.var[((p * (SECTORS as f64 / 4.0)) as usize).min(SECTORS - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maths::jsmath::{cos, sin};

    /// Directions all around, 64 per sector, for several seeds: the coastline's whole
    /// variation as the mask computes it lies within the bounds of the point's
    /// sector; and the bounds are tight enough to help (0.025 wide on average, 9 m of
    /// radius, and 0.05 at most).
    #[test]
    fn the_coastline_term_stays_within_its_sector_s_bounds() {
        for seed in [0, 1, 7, 4_000_000_000] {
            let noise = Noise::new(seed);
            let coast = Coast::new(&noise);
            let (mut widest, mut total): (f64, f64) = (0.0, 0.0);
            for i in 0..SECTORS * 64 {
                let theta = -std::f64::consts::PI
                    + i as f64 * (std::f64::consts::TAU / (SECTORS * 64) as f64);
                let (x, z) = (300.0 * cos(theta), 300.0 * sin(theta));
                let theta_mask = atan2(z, x);
                let c1 = large_scale(&noise, theta_mask);
                let (c2, c3) = small_scale(&noise, theta_mask);
                let var = variation(c1, c2, c3);
                let (lo, hi) = coast.range(x, z);
                assert!(
                    lo <= var && var <= hi,
                    "seed {seed} θ {theta}: var {var} not in [{lo}, {hi}]"
                );
                widest = widest.max(hi - lo);
                total += hi - lo;
            }
            // Tight enough to help: a few metres of radius on average (0.01 is 3.5 m).
            let mean = total / (SECTORS * 64) as f64;
            assert!(
                mean < 0.025 && widest < 0.05,
                "seed {seed}: var bounds {mean} wide on average, {widest} at most"
            );
            // The axes and the diagonals exactly.
            for (x, z) in [
                (1.0, 0.0),
                (0.0, 1.0),
                (-1.0, 0.0),
                (0.0, -1.0),
                (1.0, 1.0),
                (-1.0, -1.0),
                (1.0, -1.0),
                (-1.0, 1.0),
            ] {
                let theta = atan2(z, x);
                let (c1, (c2, c3)) = (large_scale(&noise, theta), small_scale(&noise, theta));
                let var = variation(c1, c2, c3);
                let (lo, hi) = coast.range(x, z);
                assert!(lo <= var && var <= hi, "seed {seed} ({x}, {z})");
            }
        }
    }

    #[test]
    fn pseudo_angles_increase_with_the_angle() {
        let mut last = -1.0;
        for i in 0..10_000 {
            let theta = i as f64 * (std::f64::consts::TAU / 10_000.0);
            let p = pseudo_angle(cos(theta), sin(theta));
            assert!(
                (0.0..=4.0).contains(&p) && p >= last,
                "θ {theta}: {p} after {last}"
            );
            last = p;
            let (x, z) = direction(p);
            assert!((atan2(z, x) - atan2(sin(theta), cos(theta))).abs() < 1e-9 || i == 5_000);
        }
    }
}
