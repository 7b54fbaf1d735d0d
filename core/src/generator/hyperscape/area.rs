//! The hyperscape area path four points at a time: the procedural height (base layers,
//! island mask, pond, mountain boost) of four points (four columns of one grid row, or
//! any four points whose axis parts are known) in [`F4`] lanes, each lane
//! bit-identical to the scalar [`super::Hyperscape::procedural`].
//!
//! The layer sum, the pond and the boost run lane-wise (libm's `exp` ported lane by
//! lane in [`super::lanes`]), the `pow` per lane with [`crate::maths::jsmath::pow`] (the
//! original's engine's); the island mask runs per lane on the
//! scalar code (inland and at sea it is one square root and an early exit; only the
//! coastal ring samples the coastline noise). The shoreline adjustment, which only
//! points in the 6-12 m band need, stays with the caller, per lane, on the scalar code.

use super::biome::BiomeCenter;
use super::coast::Coast;
use super::lanes::{F4, LANES, exp};
use super::layers::{
    AxisSet, BASE_ELEVATION, CONT_AT, CONT_OCT, DETAIL_AT, DETAIL_OCT, ERO_AT, ERO_OCT,
    ERO_STEP_AT, EROSION_ITERATIONS, HILL_AT, HILL_OCT, MAX_HEIGHT, OCEAN_FLOOR, POND_CENTER,
    POND_DEPTH, POND_RADIUS, RIDGE_AT, TERRAIN_MIX, island_mask,
};
use super::noise::{Axis, Noise, erode_lanes, erosion_factor_lanes};

/// The x parts and the z parts of four points (a grid row: one z set for all four).
#[derive(Clone, Copy)]
pub(crate) struct Parts<'a> {
    pub xs: [&'a AxisSet; LANES],
    pub zs: [&'a AxisSet; LANES],
}

impl Parts<'_> {
    #[inline(always)]
    fn x(&self, k: usize) -> [Axis; LANES] {
        self.xs.map(|s| s.0[k])
    }

    #[inline(always)]
    fn z(&self, k: usize) -> [Axis; LANES] {
        self.zs.map(|s| s.0[k])
    }
}

/// `fractal` of §2.4 over parts `at..at+amps.len()`, per lane.
#[inline(always)]
fn fractal(noise: &Noise, a: &Parts, at: usize, amps: &[f64], norm: f64) -> F4 {
    let first = noise.perlin_lanes(a.x(at), a.z(at));
    fractal_from(noise, a, at, first, amps, norm)
}

/// [`fractal`] given its first octave's Perlin value `first` (the same bits).
#[inline(always)]
fn fractal_from(noise: &Noise, a: &Parts, at: usize, first: F4, amps: &[f64], norm: f64) -> F4 {
    let mut value = F4::splat(0.0) + first * amps[0];
    for (k, &amp) in amps.iter().enumerate().skip(1) {
        value = value + noise.perlin_lanes(a.x(at + k), a.z(at + k)) * amp;
    }
    value / norm
}

/// The curved layer sum of §3.1-3.2 (`layers::layer_sum`), per lane.
#[inline(always)]
fn layer_sum(noise: &Noise, a: &Parts) -> F4 {
    let continent = fractal(noise, a, CONT_AT, &CONT_OCT.1, CONT_OCT.2);
    let ridge = 1.0 - noise.perlin_lanes(a.x(RIDGE_AT), a.z(RIDGE_AT)).abs();
    let hill = fractal(noise, a, HILL_AT, &HILL_OCT.1, HILL_OCT.2);
    let erosion = {
        // The erosion slope's centre sample is the fractal's first octave (the same
        // parts): one evaluation serves both.
        let (x0, z0) = (a.x(ERO_AT), a.z(ERO_AT));
        let c = noise.perlin_lanes(x0, z0);
        let h = fractal_from(noise, a, ERO_AT, c, &ERO_OCT.1, ERO_OCT.2);
        let ex = noise.perlin_lanes(a.x(ERO_STEP_AT), z0);
        let ez = noise.perlin_lanes(x0, a.z(ERO_STEP_AT));
        erode_lanes(h, erosion_factor_lanes(c, ex, ez), EROSION_ITERATIONS)
    };
    let detail = fractal(noise, a, DETAIL_AT, &DETAIL_OCT.1, DETAIL_OCT.2);
    let mut h = F4::splat(0.0);
    h = h + continent * 0.35;
    h = h + ridge * 0.15;
    h = h + hill * 0.25;
    h = h + erosion * 0.1;
    h = h + detail * 0.08;
    h = ((h + 1.0) * 0.5).clamp(0.0, 1.0);
    // The original's `pow` lane by lane (see `layers::layer_sum`).
    h.map(|v| crate::maths::jsmath::pow(v, 1.1))
}

/// The pond depression of §3.4, per lane.
#[inline(always)]
fn pond(x: F4, z: F4) -> F4 {
    let (dx, dz) = (x - POND_CENTER.0, z - POND_CENTER.1);
    let dp = (dx * dx + dz * dz).sqrt();
    let reach = POND_RADIUS * 2.0;
    let f = 1.0 - dp / reach;
    let depth = (f * f) * POND_DEPTH;
    F4::select(
        dp.test(F4::splat(reach), |a, b| a < b),
        depth,
        F4::splat(0.0),
    )
}

/// `base(x, z)` of §3 (`layers::base_from_axes`), per lane.
#[inline(always)]
fn base(noise: &Noise, coast: &Coast, x: F4, z: F4, a: &Parts) -> F4 {
    let m = F4(std::array::from_fn(|i| {
        island_mask(noise, coast, x.0[i], z.0[i])
    }));
    let ocean = m.test(F4::splat(0.0), |a, b| a == b);
    let floor = F4::splat(OCEAN_FLOOR * MAX_HEIGHT);
    if ocean == [true; LANES] {
        return floor;
    }
    let mut h = layer_sum(noise, a);
    h = h * m;
    h = h * TERRAIN_MIX + BASE_ELEVATION * m;
    h = h - pond(x, z);
    F4::select(ocean, floor, h * MAX_HEIGHT)
}

/// The mountain boost of §4.2 (`biome::boost`), per lane.
#[inline(always)]
fn boost(base: F4, x: F4, z: F4, mountains: &[BiomeCenter]) -> F4 {
    let mut hn = base / 50.0;
    let mut boost = F4::splat(0.0);
    for c in mountains {
        let (dx, dz) = (x - c.x, z - c.z);
        let nd = (dx * dx + dz * dz).sqrt() / c.influence;
        let near = nd.test(F4::splat(2.5), |a, b| a < b);
        if near == [false; LANES] {
            continue;
        }
        // Lanes out of reach take an argument on exp's main path; their result is
        // dropped.
        let arg = F4::select(near, ((-nd) * nd) * 0.3, F4::splat(-1.0));
        boost = F4::select(near, boost.max(exp(arg)), boost);
    }
    hn = hn * (1.0 + boost * 0.5);
    hn = F4::splat(1.0).min(hn);
    hn * 50.0
}

/// `procedural(x, z)` at four points from their axis parts.
#[inline(always)]
pub(crate) fn procedural(
    noise: &Noise,
    coast: &Coast,
    mountains: &[BiomeCenter],
    x: F4,
    z: F4,
    a: &Parts,
) -> F4 {
    boost(base(noise, coast, x, z, a), x, z, mountains)
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::super::Hyperscape;
    use crate::Generator;

    /// `fill_axes` (four-lane path and scalar tail) against the scalar point path,
    /// bit for bit.
    fn assert_area_equals_points(g: &Hyperscape, xs: &[f64], zs: &[f64]) {
        let mut out = vec![0.0; xs.len() * zs.len()];
        g.fill_axes(xs, zs, &mut out);
        for (iz, &z) in zs.iter().enumerate() {
            for (ix, &x) in xs.iter().enumerate() {
                let want = g.height(x, z);
                let got = out[iz * xs.len() + ix];
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "seed {} ({x}, {z})",
                    g.seed()
                );
            }
        }
    }

    fn points(csv: &str, xcol: usize, zcol: usize) -> Vec<(f64, f64)> {
        csv.lines()
            .skip(1)
            .filter_map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                Some((f.get(xcol)?.parse().ok()?, f.get(zcol)?.parse().ok()?))
            })
            .collect()
    }

    /// Every point of every hyperscape reference table, four at a time: the 4x4 grid
    /// over four points' coordinates holds each point in its own lane.
    #[test]
    fn lanes_equal_the_scalar_path_on_every_reference_table() {
        let g = Hyperscape::new(0);
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hyperscape/");
        let tables = [
            ("seed0_heights.csv", 0, 1),
            ("seed0_tile_vertices.csv", 4, 5),
            ("flat_heights_stations.csv", 0, 1),
            ("colours/ref_seed0.csv", 4, 5),
        ];
        for (name, xcol, zcol) in tables {
            let csv = std::fs::read_to_string(format!("{data}{name}")).expect("reference table");
            let pts = points(&csv, xcol, zcol);
            assert!(pts.len() > 400, "{name}: {} points", pts.len());
            for chunk in pts.chunks(4) {
                let xs: Vec<f64> = chunk.iter().map(|p| p.0).collect();
                let zs: Vec<f64> = chunk.iter().map(|p| p.1).collect();
                assert_area_equals_points(&g, &xs, &zs);
            }
        }
    }

    /// Random areas of every width (lane groups and scalar tails) over the island, its
    /// coast, the pond, the mountains and far away, for several seeds.
    #[test]
    fn lanes_equal_the_scalar_path_on_random_areas() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2545_f491_4f6c_dd1d);
        for seed in [0, 1, 7, 99, 4_000_000_000] {
            let g = Hyperscape::new(seed);
            for k in 0..40 {
                let span = [600.0, 3000.0, 12_000.0, 2e7][k % 4];
                let (x0, z0) = (
                    rng.random_range(-0.5..0.5) * span,
                    rng.random_range(-0.5..0.5) * span,
                );
                let step = rng.random_range(0.05..3.05);
                let nx = rng.random_range(1..=23usize);
                let nz = rng.random_range(1..=6usize);
                let xs: Vec<f64> = (0..nx).map(|i| x0 + i as f64 * step).collect();
                let zs: Vec<f64> = (0..nz).map(|i| z0 + i as f64 * step).collect();
                assert_area_equals_points(&g, &xs, &zs);
            }
            // A coastal band and the pond, densely.
            let xs: Vec<f64> = (0..64).map(|i| 250.0 + i as f64 * 1.37).collect();
            let zs: Vec<f64> = (0..8).map(|i| -260.0 + i as f64 * 11.1).collect();
            assert_area_equals_points(&g, &xs, &zs);
            let xs: Vec<f64> = (0..64).map(|i| -140.0 + i as f64 * 1.9).collect();
            let zs: Vec<f64> = (0..8).map(|i| 0.0 + i as f64 * 15.3).collect();
            assert_area_equals_points(&g, &xs, &zs);
        }
    }
}
