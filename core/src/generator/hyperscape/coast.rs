//! Bounds of the island mask's large-scale coastline term by direction, so the mask
//! can answer most points between [`super::layers`]' always-land and always-ocean
//! radii without evaluating the coastline noise at all.
//!
//! The term is `c1(θ) = fractal(2 cos θ, 2 sin θ, 3, 0.5, 2)` with `θ = atan2(z, x)`:
//! a function of the direction only. [`Coast::new`] evaluates it, exactly as the mask
//! does, at the edges of [`SECTORS`] sectors of directions, and bounds it inside
//! each sector with the noise's Lipschitz constant ([`SLOPE`]). A point's sector is
//! found from a pseudo-angle (four divisions' worth of arithmetic, no `atan2`), and
//! the neighbouring sectors are included so rounding near a sector edge cannot
//! matter. If a point lies inside the coast even for the lowest `c1` its direction
//! allows (or outside for the highest), the mask's answer is known exactly: the
//! comparisons are monotonic in `c1`, so they come out as they would for the true
//! value.

use std::sync::Arc;

use libm::atan2;

use crate::maths::jsmath::sincos;

use super::noise::Noise;

/// Sectors of directions around the island.
pub(super) const SECTORS: usize = 4096;

/// An upper bound of `|d c1 / d θ|`. One Perlin octave's gradient is at most
/// `1.875 * 3 + 1 = 6.625` per axis (the quintic fade's slope 1.875 times the largest
/// difference of two corner values, 3 with gradient components of +-1, plus a
/// corner's own slope 1), so at most `6.625 * sqrt(2) < 9.37` in length; three
/// octaves of weights 1, 0.5, 0.25 and frequencies 1, 2, 4 over a norm of 1.75 give
/// at most `9.37 * 3 / 1.75 < 16.07`; the circle of radius 2 doubles it. Rounded up.
const SLOPE: f64 = 33.0;

/// A margin for the rounding of `c1` and of the angle, far above either.
const ROUNDING: f64 = 1e-6;

/// The range of the coastline term over each sector of directions (with its
/// neighbours); shared by the clones of a generator.
#[derive(Clone)]
pub(super) struct Coast {
    lo: Arc<[f64]>,
    hi: Arc<[f64]>,
}

impl std::fmt::Debug for Coast {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coast")
            .field("sectors", &self.lo.len())
            .finish_non_exhaustive()
    }
}

/// The coastline term in direction `θ`, with the mask's own operations.
#[inline]
pub(super) fn large_scale(noise: &Noise, theta: f64) -> f64 {
    let (sin_a, cos_a) = sincos(theta);
    noise.fractal(cos_a * 2.0, sin_a * 2.0, 3, 0.5, 2.0)
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
        let own: Vec<(f64, f64)> = (0..SECTORS)
            .map(|k| {
                let mut width = edges[k + 1] - edges[k];
                if width < 0.0 {
                    // The sector across the -x axis, where atan2 jumps from pi to -pi.
                    width += 2.0 * std::f64::consts::PI;
                }
                let slack = SLOPE * width / 2.0 + ROUNDING;
                let (a, b) = (c1[k], c1[k + 1]);
                (a.min(b) - slack, a.max(b) + slack)
            })
            .collect();
        let around = |k: usize| {
            [
                own[(k + SECTORS - 1) % SECTORS],
                own[k],
                own[(k + 1) % SECTORS],
            ]
        };
        Coast {
            lo: (0..SECTORS)
                .map(|k| around(k).iter().map(|s| s.0).fold(f64::INFINITY, f64::min))
                .collect(),
            hi: (0..SECTORS)
                .map(|k| {
                    around(k)
                        .iter()
                        .map(|s| s.1)
                        .fold(f64::NEG_INFINITY, f64::max)
                })
                .collect(),
        }
    }

    /// Bounds `(lo, hi)` of the coastline term in the direction of `(x, z)` (not
    /// both 0).
    #[inline]
    pub(super) fn range(&self, x: f64, z: f64) -> (f64, f64) {
        let p = pseudo_angle(x, z);
        let k = ((p * (SECTORS as f64 / 4.0)) as usize).min(SECTORS - 1);
        (self.lo[k], self.hi[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maths::jsmath::{cos, sin};

    /// Directions all around, 64 per sector, for several seeds: the coastline term
    /// the mask computes lies within the bounds of the point's sector; and the
    /// bounds are tight enough to help (at most 0.1 wide).
    #[test]
    fn the_coastline_term_stays_within_its_sector_s_bounds() {
        for seed in [0, 1, 7, 4_000_000_000] {
            let noise = Noise::new(seed);
            let coast = Coast::new(&noise);
            for i in 0..SECTORS * 64 {
                let theta = -std::f64::consts::PI
                    + i as f64 * (std::f64::consts::TAU / (SECTORS * 64) as f64);
                let (x, z) = (300.0 * cos(theta), 300.0 * sin(theta));
                let c1 = large_scale(&noise, atan2(z, x));
                let (lo, hi) = coast.range(x, z);
                assert!(
                    lo <= c1 && c1 <= hi,
                    "seed {seed} θ {theta}: {c1} not in [{lo}, {hi}]"
                );
                assert!(hi - lo < 0.1, "seed {seed} θ {theta}: [{lo}, {hi}]");
            }
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
                let c1 = large_scale(&noise, atan2(z, x));
                let (lo, hi) = coast.range(x, z);
                assert!(lo <= c1 && c1 <= hi, "seed {seed} ({x}, {z})");
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
