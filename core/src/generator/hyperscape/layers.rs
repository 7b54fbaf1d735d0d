//! The base height (docs/src/reference/height.md, "The base height"): five weighted noise layers, the curve, the island
//! mask with its noisy coastline, the pond and the ocean floor.
//!
//! The layers sample Perlin noise at `(x*scale*freq, z*scale*freq)` for 19 (scale,
//! frequency) pairs. [`AxisSet`] holds the axis parts of one coordinate for all 19, so
//! a grid computes them once per column and once per row; a single point computes
//! both on the spot. Either way [`base_from_axes`] does the rest with the same
//! operations in the same order.

use libm::atan2;

use crate::maths::jsmath::{pow, sincos};

use super::coast::{Coast, variation};
use super::lanes::{F4, LANES};
use super::noise::{Axis, EROSION_STEP, Noise, SIMPLEX_BOUND, erode, erosion_factor};
use crate::maths::smooth;

/// Heights are normalised to [0, 1] and scaled by this many metres.
pub(crate) const MAX_HEIGHT: f64 = 50.0;
/// Normalised height of the ocean floor (2.5 m).
pub(super) const OCEAN_FLOOR: f64 = 0.05;
pub(super) const ISLAND_RADIUS: f64 = 350.0;
pub(super) const ISLAND_FALLOFF: f64 = 100.0;
pub(super) const BASE_ELEVATION: f64 = 0.42;
pub(super) const TERRAIN_MIX: f64 = 0.2;
const COAST_SAMPLE_RADIUS: f64 = 2.0;
pub(super) const POND_CENTER: (f64, f64) = (-80.0, 60.0);
pub(super) const POND_RADIUS: f64 = 50.0;
pub(super) const POND_DEPTH: f64 = 0.55;
pub(super) const EROSION_ITERATIONS: u32 = 3;

/// Within this distance of the origin the coastline cannot reach (R - F >= 132.9 m,
/// since |var| <= 0.2 + 0.08 + 0.02 * 2.8), so the island mask is exactly 1.
const ALWAYS_LAND: f64 = 130.0;
/// Beyond this distance the falloff has always ended (R <= 467.1 m), so the mask is
/// exactly 0 and the height is the ocean floor whatever the noise.
const ALWAYS_OCEAN: f64 = 470.0;

/// A fractal noise layer (§3.1).
struct Fractal {
    scale: f64,
    octaves: usize,
    persistence: f64,
    lacunarity: f64,
}

const CONTINENT: Fractal = Fractal {
    scale: 0.0008,
    octaves: 5,
    persistence: 0.7,
    lacunarity: 2.0,
};
const HILL: Fractal = Fractal {
    scale: 0.02,
    octaves: 4,
    persistence: 0.6,
    lacunarity: 2.2,
};
/// The fractal inside the erosion layer.
const EROSION: Fractal = Fractal {
    scale: 0.005,
    octaves: 6,
    persistence: 0.5,
    lacunarity: 2.0,
};
const DETAIL: Fractal = Fractal {
    scale: 0.04,
    octaves: 2,
    persistence: 0.3,
    lacunarity: 2.5,
};
const RIDGE_SCALE: f64 = 0.003;

/// Where each layer's parts sit in an [`AxisSet`].
pub(super) const CONT_AT: usize = 0;
pub(super) const RIDGE_AT: usize = 5;
pub(super) const HILL_AT: usize = 6;
pub(super) const ERO_AT: usize = 10;
/// The erosion slope's forward sample, `x*0.005 + 0.01`.
pub(super) const ERO_STEP_AT: usize = 16;
pub(super) const DETAIL_AT: usize = 17;
const PARTS: usize = 19;

/// `(freq, amp)` of octave `k` and the amplitude sum, accumulated exactly as §2.4 does.
const fn octaves<const N: usize>(f: &Fractal) -> ([f64; N], [f64; N], f64) {
    let (mut freqs, mut amps) = ([0.0; N], [0.0; N]);
    let (mut amp, mut freq, mut norm) = (1.0, 1.0, 0.0);
    let mut k = 0;
    while k < N {
        freqs[k] = freq;
        amps[k] = amp;
        norm += amp;
        amp *= f.persistence;
        freq *= f.lacunarity;
        k += 1;
    }
    (freqs, amps, norm)
}

pub(super) const CONT_OCT: ([f64; 5], [f64; 5], f64) = octaves::<5>(&CONTINENT);
pub(super) const HILL_OCT: ([f64; 4], [f64; 4], f64) = octaves::<4>(&HILL);
pub(super) const ERO_OCT: ([f64; 6], [f64; 6], f64) = octaves::<6>(&EROSION);
pub(super) const DETAIL_OCT: ([f64; 2], [f64; 2], f64) = octaves::<2>(&DETAIL);
const _: () = assert!(
    CONTINENT.octaves == 5 && HILL.octaves == 4 && EROSION.octaves == 6 && DETAIL.octaves == 2
);

/// The Perlin axis parts of one coordinate for every (layer, octave) of the base height.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AxisSet(pub(super) [Axis; PARTS]);

/// `(scale, freq)` of every part: the part samples `(c * scale) * freq`, except the
/// erosion step part, which samples `c * scale + 0.01`.
const PART_SPECS: [(f64, f64); PARTS] = part_specs();

const fn part_specs() -> [(f64, f64); PARTS] {
    let mut specs = [(0.0, 1.0); PARTS];
    let mut k = 0;
    while k < 6 {
        if k < 5 {
            specs[CONT_AT + k] = (CONTINENT.scale, CONT_OCT.0[k]);
        }
        if k < 4 {
            specs[HILL_AT + k] = (HILL.scale, HILL_OCT.0[k]);
        }
        if k < 2 {
            specs[DETAIL_AT + k] = (DETAIL.scale, DETAIL_OCT.0[k]);
        }
        specs[ERO_AT + k] = (EROSION.scale, ERO_OCT.0[k]);
        k += 1;
    }
    specs[RIDGE_AT] = (RIDGE_SCALE, 1.0);
    specs[ERO_STEP_AT] = (EROSION.scale, 1.0);
    specs
}

/// Part `k` of coordinate `c`. Multiplying by a frequency of exactly 1 changes
/// nothing, so each part's coordinate is bit-identical to §2.4's `x * freq`.
#[inline(always)]
fn part_axis(noise: &Noise, c: f64, k: usize) -> Axis {
    let (scale, freq) = PART_SPECS[k];
    if k == ERO_STEP_AT {
        noise.axis(c * scale + EROSION_STEP)
    } else {
        noise.axis((c * scale) * freq)
    }
}

impl AxisSet {
    /// Every part of coordinate `c`.
    #[inline(always)]
    pub(crate) fn new(noise: &Noise, c: f64) -> Self {
        let mut parts = [Axis::default(); PARTS];
        for (k, part) in parts.iter_mut().enumerate() {
            *part = part_axis(noise, c, k);
        }
        AxisSet(parts)
    }
}

impl AxisSet {
    /// [`AxisSet::new`] of four coordinates into `sets`, each part four at a time in
    /// lanes (the same bits).
    #[inline(always)]
    pub(crate) fn fill_lanes(noise: &Noise, c: [f64; LANES], sets: &mut [AxisSet; LANES]) {
        let c = F4(c);
        for (k, &(scale, freq)) in PART_SPECS.iter().enumerate() {
            let v = if k == ERO_STEP_AT {
                c * scale + EROSION_STEP
            } else {
                (c * scale) * freq
            };
            for (set, axis) in sets.iter_mut().zip(noise.axes_lanes(v)) {
                set.0[k] = axis;
            }
        }
    }
}

/// Where the layers get the axis parts of a point from.
pub(crate) trait Axes {
    fn x(&self, k: usize) -> Axis;
    fn z(&self, k: usize) -> Axis;
}

/// Parts precomputed per grid column and row.
pub(crate) struct Sets<'a>(pub &'a AxisSet, pub &'a AxisSet);

impl Axes for Sets<'_> {
    #[inline(always)]
    fn x(&self, k: usize) -> Axis {
        self.0.0[k]
    }
    #[inline(always)]
    fn z(&self, k: usize) -> Axis {
        self.1.0[k]
    }
}

/// A shoreline neighbour: it shares one coordinate (and its stored parts) with the
/// point; the other coordinate's parts are computed when needed.
pub(crate) struct Half<'a> {
    pub set: &'a AxisSet,
    /// True when `set` holds the x parts and `c` is z; false for the reverse.
    pub set_is_x: bool,
    pub noise: &'a Noise,
    pub c: f64,
}

impl Axes for Half<'_> {
    #[inline(always)]
    fn x(&self, k: usize) -> Axis {
        if self.set_is_x {
            self.set.0[k]
        } else {
            part_axis(self.noise, self.c, k)
        }
    }
    #[inline(always)]
    fn z(&self, k: usize) -> Axis {
        if self.set_is_x {
            part_axis(self.noise, self.c, k)
        } else {
            self.set.0[k]
        }
    }
}

/// Parts computed when needed: a single point uses each part once, so storing them
/// would only cost memory traffic.
pub(crate) struct Direct<'a> {
    pub noise: &'a Noise,
    pub x: f64,
    pub z: f64,
}

impl Axes for Direct<'_> {
    #[inline(always)]
    fn x(&self, k: usize) -> Axis {
        part_axis(self.noise, self.x, k)
    }
    #[inline(always)]
    fn z(&self, k: usize) -> Axis {
        part_axis(self.noise, self.z, k)
    }
}

/// `fractal` of §2.4 over precomputed parts `at..at+amps.len()`.
#[inline(always)]
fn fractal(noise: &Noise, a: &impl Axes, at: usize, amps: &[f64], norm: f64) -> f64 {
    let first = noise.perlin_axes(a.x(at), a.z(at));
    fractal_from(noise, a, at, first, amps, norm)
}

/// [`fractal`] given its first octave's Perlin value `first` (the same bits).
#[inline(always)]
fn fractal_from(
    noise: &Noise,
    a: &impl Axes,
    at: usize,
    first: f64,
    amps: &[f64],
    norm: f64,
) -> f64 {
    let mut value = 0.0;
    value += first * amps[0];
    for (k, amp) in amps.iter().enumerate().skip(1) {
        value += noise.perlin_axes(a.x(at + k), a.z(at + k)) * amp;
    }
    value / norm
}

/// The normalised, curved layer sum of §3.1-3.2, before the island mask.
#[inline(always)]
fn layer_sum(noise: &Noise, a: &impl Axes) -> f64 {
    let continent = fractal(noise, a, CONT_AT, &CONT_OCT.1, CONT_OCT.2);
    let ridge = 1.0 - noise.perlin_axes(a.x(RIDGE_AT), a.z(RIDGE_AT)).abs();
    let hill = fractal(noise, a, HILL_AT, &HILL_OCT.1, HILL_OCT.2);
    let erosion = {
        // The erosion slope's centre sample is the fractal's first octave (the same
        // parts): one evaluation serves both.
        let (x0, z0) = (a.x(ERO_AT), a.z(ERO_AT));
        let c = noise.perlin_axes(x0, z0);
        let h = fractal_from(noise, a, ERO_AT, c, &ERO_OCT.1, ERO_OCT.2);
        let ex = noise.perlin_axes(a.x(ERO_STEP_AT), z0);
        let ez = noise.perlin_axes(x0, a.z(ERO_STEP_AT));
        erode(h, erosion_factor(c, ex, ez), EROSION_ITERATIONS)
    };
    let detail = fractal(noise, a, DETAIL_AT, &DETAIL_OCT.1, DETAIL_OCT.2);
    let mut h = 0.0;
    h += continent * 0.35;
    h += ridge * 0.15;
    h += hill * 0.25;
    h += erosion * 0.1;
    h += detail * 0.08;
    h = ((h + 1.0) * 0.5).clamp(0.0, 1.0);
    // `Math.pow(h, 1.1)` as the original's engine computes it ([`crate::maths::jsmath`]):
    // neither `exp(1.1 * ln h)` nor libm's `pow` give its bits for every `h`, and on
    // the original's tables of seeds 2-7 either left points off by 1 to 10 ulps
    // (docs/src/reference/height.md, "The engine's functions").
    pow(h, 1.1)
}

/// How far the radius can move once the large-scale coastline term is known: the
/// other two terms are bounded by 0.08 * 1 and 0.02 * `SIMPLEX_BOUND`, plus 1 um of
/// margin for rounding.
const COAST_SLACK: f64 = ISLAND_RADIUS * (0.08 + 0.02 * SIMPLEX_BOUND) + 1e-6;

/// The island mask `m` of §3.3: 1 inland, 0 beyond the noisy coastline's falloff.
///
/// Early exits return exactly what the full computation would, skipping only terms
/// that cannot change the answer: far inland or far out (no coastline noise at all);
/// points on the same side of the falloff for every value the coastline variation
/// takes in their direction (`coast`'s bounds; the comparisons below are monotonic
/// in it); and, once the large-scale term is known, points whose side the two small
/// terms cannot change.
#[inline(always)]
pub(super) fn island_mask(noise: &Noise, coast: &Coast, x: f64, z: f64) -> f64 {
    let dist = (x * x + z * z).sqrt();
    if dist <= ALWAYS_LAND {
        return 1.0;
    }
    if dist > ALWAYS_OCEAN {
        return 0.0;
    }
    // The whole variation's bounds in the point's direction: `radius` below is at
    // least (at most) what they give, the operations being monotonic in `var`.
    let (lo, hi) = coast.range(x, z);
    if dist < ISLAND_RADIUS * (1.0 + lo) - ISLAND_FALLOFF - 1e-6 {
        return 1.0;
    }
    if dist > ISLAND_RADIUS * (1.0 + hi) + 1e-6 {
        return 0.0;
    }
    let ang = atan2(z, x);
    // The original's `Math.sin` and `Math.cos` ([`crate::maths::jsmath`]), with one argument
    // reduction (bit-identical to separate calls).
    let (sin_a, cos_a) = sincos(ang);
    let cx = cos_a * COAST_SAMPLE_RADIUS;
    let cz = sin_a * COAST_SAMPLE_RADIUS;
    // `fractal(cx, cz, 3, 0.5, 2)`'s three octaves (frequencies 1, 2, 4) and the first
    // of `fractal(cx * 3, cz * 3, 2, 0.5, 2)`'s, four Perlin values in lanes: each
    // lane samples `(x * freq, y * freq)` with the operations `Noise::fractal` uses.
    let freq = F4([1.0, 2.0, 4.0, 1.0]);
    let octaves = noise.perlin_lanes(
        noise.axes_lanes(F4([cx, cx, cx, cx * 3.0]) * freq),
        noise.axes_lanes(F4([cz, cz, cz, cz * 3.0]) * freq),
    );
    let c1 = fractal_sum(&octaves.0[..3], 0.5);
    let large = ISLAND_RADIUS * (1.0 + c1 * 0.2);
    if dist < large - COAST_SLACK - ISLAND_FALLOFF {
        return 1.0;
    }
    if dist > large + COAST_SLACK + 1e-6 {
        return 0.0;
    }
    let second = noise.perlin((cx * 3.0) * 2.0, (cz * 3.0) * 2.0);
    let c2 = fractal_sum(&[octaves.0[3], second], 0.5);
    let c3 = noise.simplex(cx * 8.0, cz * 8.0);
    let var = variation(c1, c2, c3);
    let radius = ISLAND_RADIUS * (1.0 + var);
    let mut m = 1.0;
    if dist > radius - ISLAND_FALLOFF {
        let t = f64::min(1.0, (dist - (radius - ISLAND_FALLOFF)) / ISLAND_FALLOFF);
        m = 1.0 - smooth(t);
    }
    m
}

/// `fractal` of §2.4 from its octaves' Perlin values, accumulated as
/// `Noise::fractal` does (the same operations in the same order).
#[inline(always)]
fn fractal_sum(perlins: &[f64], persistence: f64) -> f64 {
    let (mut value, mut amp, mut norm) = (0.0, 1.0, 0.0);
    for &p in perlins {
        value += p * amp;
        norm += amp;
        amp *= persistence;
    }
    value / norm
}

/// The pond depression of §3.4, normalised.
#[inline]
fn pond(x: f64, z: f64) -> f64 {
    let (dx, dz) = (x - POND_CENTER.0, z - POND_CENTER.1);
    let dp = (dx * dx + dz * dz).sqrt();
    let reach = POND_RADIUS * 2.0;
    if dp < reach {
        let f = 1.0 - dp / reach;
        (f * f) * POND_DEPTH
    } else {
        0.0
    }
}

/// `base(x, z)` of §3 in metres, with `ax`/`az` the axis parts of `x` and `z`.
#[inline(always)]
pub(crate) fn base_from_axes(noise: &Noise, coast: &Coast, x: f64, z: f64, a: &impl Axes) -> f64 {
    let m = island_mask(noise, coast, x, z);
    if m == 0.0 {
        // The ocean-floor rule replaces whatever the layers and the pond give.
        return OCEAN_FLOOR * MAX_HEIGHT;
    }
    let mut h = layer_sum(noise, a);
    h *= m;
    h = h * TERRAIN_MIX + BASE_ELEVATION * m;
    h -= pond(x, z);
    h * MAX_HEIGHT
}

/// A proven range of [`base_from_axes`] over every point at least `near` metres from
/// the origin, in metres, before rounding (the callers widen it).
///
/// Where the island mask is 0 (beyond [`ALWAYS_OCEAN`]) the base is the ocean floor.
/// Elsewhere the layer sum is `pow` of a value clamped to [0, 1], so in [0, 1]; the
/// mask `m` is 1 or `1 - smooth(t)` with `t` in [0, 1], so in [0, 1]; the pond takes
/// 0 to `POND_DEPTH`. So `L m MIX + BASE m - pond` lies in
/// `[-POND_DEPTH, MIX + BASE]`, and the base in that times `MAX_HEIGHT`
/// (-27.5 to 31 m), which also holds the ocean floor.
pub(super) fn base_bounds(near: f64) -> (f64, f64) {
    let floor = OCEAN_FLOOR * MAX_HEIGHT;
    if near > ALWAYS_OCEAN {
        return (floor, floor);
    }
    (
        -POND_DEPTH * MAX_HEIGHT,
        (TERRAIN_MIX + BASE_ELEVATION) * MAX_HEIGHT,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maths::jsmath::{cos, sin};
    use libm::sqrt;

    /// The layer sum written the plain way, straight from §2-3, to check the
    /// precomputed-parts version against.
    fn plain_layer_sum(n: &Noise, x: f64, z: f64) -> f64 {
        let mut h = 0.0;
        h += n.fractal(x * 0.0008, z * 0.0008, 5, 0.7, 2.0) * 0.35;
        h += n.ridge(x * 0.003, z * 0.003) * 0.15;
        h += n.fractal(x * 0.02, z * 0.02, 4, 0.6, 2.2) * 0.25;
        h += n.erosion(x * 0.005, z * 0.005, 3) * 0.1;
        h += n.fractal(x * 0.04, z * 0.04, 2, 0.3, 2.5) * 0.08;
        let h = ((h + 1.0) * 0.5).clamp(0.0, 1.0);
        pow(h, 1.1)
    }

    #[test]
    fn precomputed_parts_equal_the_plain_formulas() {
        let n = Noise::new(3);
        for i in 0..500 {
            let (x, z) = (i as f64 * 7.31 - 1800.0, i as f64 * -3.17 + 900.0);
            let (ax, az) = (AxisSet::new(&n, x), AxisSet::new(&n, z));
            let sets = layer_sum(&n, &Sets(&ax, &az));
            let direct = layer_sum(&n, &Direct { noise: &n, x, z });
            let half_x = layer_sum(
                &n,
                &Half {
                    set: &ax,
                    set_is_x: true,
                    noise: &n,
                    c: z,
                },
            );
            let half_z = layer_sum(
                &n,
                &Half {
                    set: &az,
                    set_is_x: false,
                    noise: &n,
                    c: x,
                },
            );
            let plain = plain_layer_sum(&n, x, z);
            for v in [sets, direct, half_x, half_z] {
                assert_eq!(v.to_bits(), plain.to_bits(), "({x}, {z})");
            }
        }
    }

    /// The mask as §3.3 writes it, with no early exit.
    fn plain_mask(n: &Noise, x: f64, z: f64) -> f64 {
        let dist = sqrt(x * x + z * z);
        let ang = atan2(z, x);
        let (cx, cz) = (cos(ang) * 2.0, sin(ang) * 2.0);
        let var = (n.fractal(cx, cz, 3, 0.5, 2.0) * 0.2
            + n.fractal(cx * 3.0, cz * 3.0, 2, 0.5, 2.0) * 0.08)
            + n.simplex(cx * 8.0, cz * 8.0) * 0.02;
        let radius = ISLAND_RADIUS * (1.0 + var);
        let mut m = 1.0;
        if dist > radius - ISLAND_FALLOFF {
            m = 1.0
                - smooth(f64::min(
                    1.0,
                    (dist - (radius - ISLAND_FALLOFF)) / ISLAND_FALLOFF,
                ));
        }
        m
    }

    #[test]
    fn island_mask_early_exits_equal_the_plain_mask() {
        for seed in [0, 1, 99, 4_000_000_000] {
            let n = Noise::new(seed);
            let coast = Coast::new(&n);
            for k in 0..720 {
                let ang = k as f64 * 0.5f64.to_radians();
                for r in (0..120).map(|i| 100.0 + i as f64 * 3.3) {
                    let (x, z) = (r * cos(ang), r * sin(ang));
                    assert_eq!(
                        island_mask(&n, &coast, x, z).to_bits(),
                        plain_mask(&n, x, z).to_bits(),
                        "seed {seed} ({x}, {z})"
                    );
                }
            }
        }
    }
}
