//! The Hyperscape island terrain (seeds 000/001), exactly as specified in
//! docs/src/reference/height.md: a seeded permutation, five layers of
//! Perlin-family noise, an island mask with a noisy coastline, a pond, the ocean floor,
//! the mountain boost from biome centres and the shoreline adjustment.
//!
//! Heights match the original within 1e-9 m (the reference tables under
//! `core/tests/data/hyperscape/` are checked in the tests). The functions of the
//! original map as: [`Hyperscape::base`] = `getBaseHeightAt`,
//! [`Hyperscape::procedural`] = `getProceduralHeightAt` (with boost),
//! [`Generator::height`] = `getHeightAt` with no flat zones (the shore-adjusted
//! `computed` height).
//!
//! [`colours`] gives the original worker's vertex colours and biome ids.
//!
//! [`manifest`] derives the game's flat zones (stations, duel arenas, buildings) from
//! its manifests.

mod area;
mod biome;
mod coast;
pub mod colours;
mod lanes;
mod layers;
pub mod manifest;
mod neighbourhood;
mod noise;
mod shore;
pub mod tile;

/// The smoothstep is generic maths ([`crate::maths::smooth`]); re-exported here, its old
/// path.
pub use crate::maths::smooth;
pub use biome::{Biome, BiomeCenter, biome_centers};
pub use colours::{Colours, VertexColour};
pub use manifest::manifest_zones;
pub use noise::Noise;

use std::ops::Range;

use lanes::{F4, LANES};
use layers::{Axes, AxisSet, Direct, Half, Sets, base_from_axes};

use super::{Generator, Grid};

/// Tiles are 100 m squares centred on `(tx*100, tz*100)`.
pub const TILE_SIZE: f64 = 100.0;
/// Vertices along one edge of a tile (63 segments of 100/63 m).
pub const TILE_RESOLUTION: u32 = 64;

/// The Hyperscape terrain of one seed.
#[derive(Debug, Clone)]
pub struct Hyperscape {
    seed: u32,
    noise: Noise,
    /// Where the coastline can be, by direction (the island mask's early exits).
    coast: coast::Coast,
    /// All nine biome centres, in generation order.
    centers: Vec<BiomeCenter>,
    /// The mountain centres among them, in list order: the only ones heights read.
    mountains: Vec<BiomeCenter>,
}

impl Hyperscape {
    /// The terrain of `seed` (0 is the game's default).
    pub fn new(seed: u32) -> Self {
        let centers = biome_centers(seed);
        let mountains = centers
            .iter()
            .copied()
            .filter(|c| c.biome == Biome::Mountains)
            .collect();
        let noise = Noise::new(seed);
        Hyperscape {
            seed,
            coast: coast::Coast::new(&noise),
            noise,
            centers,
            mountains,
        }
    }

    pub fn seed(&self) -> u32 {
        self.seed
    }

    /// The seeded noise (permutation table and primitives).
    pub fn noise(&self) -> &Noise {
        &self.noise
    }

    /// The vertex colouring of this seed (its biome centres).
    pub fn colours(&self) -> Colours {
        Colours::new(&self.centers)
    }

    /// The nine biome centres of this seed, in generation order.
    pub fn biome_centers(&self) -> &[BiomeCenter] {
        &self.centers
    }

    /// `base(x, z)`: the island height without mountain boost (§3).
    pub fn base(&self, x: f64, z: f64) -> f64 {
        base_from_axes(
            &self.noise,
            &self.coast,
            x,
            z,
            &Direct {
                noise: &self.noise,
                x,
                z,
            },
        )
    }

    /// A proven range of the heights ([`Generator::height`], also near flat zones) and
    /// procedural heights at every point of the rectangle `[x0, x1] x [z0, z1]`, in
    /// metres, widened by a micrometre for rounding: -41.25 to 46.5 m wherever the
    /// island may be, the ocean floor (2.5 m, up to 3.75 m within a mountain centre's
    /// reach) beyond 470 m of the origin, where the island mask is 0. Each step's
    /// range is derived in its module (`layers::base_bounds`, `biome::boost_bounds`,
    /// `shore::bounds`); `tests` check every height of random points and grids.
    pub fn height_bounds(&self, x0: f64, z0: f64, x1: f64, z1: f64) -> (f64, f64) {
        let near = |px: f64, pz: f64| {
            let dx = f64::max(0.0, f64::max(x0 - px, px - x1));
            let dz = f64::max(0.0, f64::max(z0 - pz, pz - z1));
            (dx * dx + dz * dz).sqrt()
        };
        let base = layers::base_bounds(near(0.0, 0.0));
        let procedural = biome::boost_bounds(base, &self.mountains, |c| near(c.x, c.z));
        let (lo, hi) = shore::bounds(procedural);
        (lo - 1e-6, hi + 1e-6)
    }

    /// `procedural(x, z)`: the base height with the mountain boost (§4.2). Flat zones
    /// blend toward this height. Run inside `lanes::dispatch` as the point path is
    /// (the same IEEE operations compiled for the processor's vector extensions).
    pub fn procedural(&self, x: f64, z: f64) -> f64 {
        lanes::dispatch(
            #[inline(always)]
            || self.procedural_at(x, z),
        )
    }

    /// [`Hyperscape::procedural`] with the axis parts built on the spot, compiled
    /// into whichever `lanes::dispatch` calls it.
    #[inline(always)]
    fn procedural_at(&self, x: f64, z: f64) -> f64 {
        let direct = Direct {
            noise: &self.noise,
            x,
            z,
        };
        self.procedural_axes(x, z, &direct)
    }

    /// `computed(x, z)` where the four shoreline samples may fall in flat zones:
    /// `zone_at` gives the zone height there, else the procedural height is used.
    fn computed_near_zones(
        &self,
        x: f64,
        z: f64,
        zone_at: &dyn Fn(f64, f64) -> Option<f64>,
    ) -> f64 {
        let b = self.procedural(x, z);
        shore::computed(b, x, z, |nx, nz| {
            zone_at(nx, nz).unwrap_or_else(|| self.procedural(nx, nz))
        })
    }

    /// The procedural height from axis parts.
    #[inline(always)]
    fn procedural_axes(&self, x: f64, z: f64, a: &impl Axes) -> f64 {
        biome::boost(
            base_from_axes(&self.noise, &self.coast, x, z, a),
            x,
            z,
            &self.mountains,
        )
    }

    /// `computed(x, z)` from the axis parts of `x` and `z`. The shoreline's four
    /// neighbour samples share an axis with the point (`(x, z +- 1)` and `(x +- 1, z)`),
    /// so each needs the parts of one new coordinate only.
    #[inline]
    fn computed_axes(&self, x: f64, z: f64, ax: &AxisSet, az: &AxisSet) -> f64 {
        let b = self.procedural_axes(x, z, &Sets(ax, az));
        self.shore_axes(b, x, z, ax, az)
    }

    /// The shoreline adjustment of `b = procedural(x, z)` from the axis parts of `x`
    /// and `z` (see [`Hyperscape::computed_axes`]).
    #[inline]
    fn shore_axes(&self, b: f64, x: f64, z: f64, ax: &AxisSet, az: &AxisSet) -> f64 {
        shore::computed(b, x, z, |nx, nz| {
            let noise = &self.noise;
            if nx == x {
                self.procedural_axes(
                    nx,
                    nz,
                    &Half {
                        set: ax,
                        set_is_x: true,
                        noise,
                        c: nz,
                    },
                )
            } else {
                self.procedural_axes(
                    nx,
                    nz,
                    &Half {
                        set: az,
                        set_is_x: false,
                        noise,
                        c: nx,
                    },
                )
            }
        })
    }
}

impl Hyperscape {
    /// The procedural heights of the shoreline's four [`shore::neighbours`] of `(x,
    /// z)`, in lanes ([`area::procedural`]): each the bits of
    /// [`Hyperscape::procedural`] there, at about the cost of one point instead of
    /// four. Their axis parts come from six coordinates (`x`, `x +- 1`, `z`, `z +- 1`).
    fn neighbours_lanes(&self, x: f64, z: f64) -> [f64; LANES] {
        lanes::dispatch(
            #[inline(always)]
            || {
                let [n, s, e, w] = shore::neighbours(x, z);
                let mut xa = [AxisSet::default(); LANES];
                AxisSet::fill_lanes(&self.noise, [n.0, e.0, w.0, z], &mut xa);
                let mut za = [AxisSet::default(); LANES];
                AxisSet::fill_lanes(&self.noise, [n.1, s.1, z, z], &mut za);
                let parts = area::Parts {
                    xs: [&xa[0], &xa[0], &xa[1], &xa[2]],
                    zs: [&za[0], &za[1], &xa[3], &xa[3]],
                };
                let xs = F4([n.0, s.0, e.0, w.0]);
                let zs = F4([n.1, s.1, e.1, w.1]);
                area::procedural(&self.noise, &self.coast, &self.mountains, xs, zs, &parts).0
            },
        )
    }

    /// The area path on the scalar code alone, one point after another: what
    /// [`Generator::fill_axes`] computes four columns at a time, with the same bits
    /// (the tests and benchmarks compare the two).
    pub fn fill_axes_scalar(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        assert_eq!(
            out.len(),
            xs.len() * zs.len(),
            "out must hold xs.len() * zs.len() heights"
        );
        let columns: Vec<AxisSet> = xs.iter().map(|&x| AxisSet::new(&self.noise, x)).collect();
        for (&z, row) in zs.iter().zip(out.chunks_exact_mut(xs.len().max(1))) {
            let az = AxisSet::new(&self.noise, z);
            for ((&x, ax), h) in xs.iter().zip(&columns).zip(row.iter_mut()) {
                *h = self.computed_axes(x, z, ax, &az);
            }
        }
    }

    /// The area path; with `procedural`, each point's procedural height (before the
    /// shoreline) is stored there too.
    fn fill_axes_inner(
        &self,
        xs: &[f64],
        zs: &[f64],
        out: &mut [f64],
        procedural: Option<&mut [f64]>,
    ) {
        assert_eq!(
            out.len(),
            xs.len() * zs.len(),
            "out must hold xs.len() * zs.len() heights"
        );
        lanes::dispatch(
            #[inline(always)]
            || self.fill_axes_lanes(xs, zs, out, procedural),
        );
    }

    /// The area path: per row, four columns at a time in lanes ([`area::procedural`]),
    /// the shoreline per lane where a point is in its band, the last `xs.len() % 4`
    /// columns on the scalar path. Every height equals [`Generator::height`]'s bits.
    #[inline(always)]
    fn fill_axes_lanes(
        &self,
        xs: &[f64],
        zs: &[f64],
        out: &mut [f64],
        mut procedural: Option<&mut [f64]>,
    ) {
        let columns: Vec<AxisSet> = xs.iter().map(|&x| AxisSet::new(&self.noise, x)).collect();
        let whole = xs.len() - xs.len() % LANES;
        let nx = xs.len().max(1);
        for (iz, (&z, row)) in zs.iter().zip(out.chunks_exact_mut(nx)).enumerate() {
            let az = AxisSet::new(&self.noise, z);
            let mut proc_row = procedural
                .as_deref_mut()
                .map(|p| &mut p[iz * nx..(iz + 1) * nx]);
            for (g, ((x4, a4), h4)) in xs[..whole]
                .chunks_exact(LANES)
                .zip(columns[..whole].chunks_exact(LANES))
                .zip(row[..whole].chunks_exact_mut(LANES))
                .enumerate()
            {
                let x = F4(std::array::from_fn(|i| x4[i]));
                let parts = area::Parts {
                    xs: std::array::from_fn(|i| &a4[i]),
                    zs: [&az; LANES],
                };
                let b = area::procedural(
                    &self.noise,
                    &self.coast,
                    &self.mountains,
                    x,
                    F4::splat(z),
                    &parts,
                );
                if let Some(p) = proc_row.as_deref_mut() {
                    p[g * LANES..(g + 1) * LANES].copy_from_slice(&b.0);
                }
                for i in 0..LANES {
                    h4[i] = if shore::in_band(b.0[i]) {
                        self.shore_axes(b.0[i], x.0[i], z, &a4[i], &az)
                    } else {
                        b.0[i]
                    };
                }
            }
            for (ix, ((&x, ax), h)) in xs[whole..]
                .iter()
                .zip(&columns[whole..])
                .zip(&mut row[whole..])
                .enumerate()
            {
                let b = self.procedural_axes(x, z, &Sets(ax, &az));
                if let Some(p) = proc_row.as_deref_mut() {
                    p[whole + ix] = b;
                }
                *h = self.shore_axes(b, x, z, ax, &az);
            }
        }
    }
}

impl Generator for Hyperscape {
    fn procedural(&self, x: f64, z: f64) -> f64 {
        Hyperscape::procedural(self, x, z)
    }

    fn height_near_zones(&self, x: f64, z: f64, zone_at: &dyn Fn(f64, f64) -> Option<f64>) -> f64 {
        self.computed_near_zones(x, z, zone_at)
    }

    /// The point path: the procedural height, and in the shoreline band its outward
    /// neighbour, then if need be all four in lanes at once
    /// (`shore::computed_with`, `Hyperscape::neighbours_lanes`). The whole
    /// of it runs inside `lanes::dispatch`, so the scalar code is compiled for the
    /// processor's vector extensions too (AVX2's three-operand forms: a tenth faster
    /// measured on the 350 m disc); the same IEEE operations, nothing fused.
    fn height(&self, x: f64, z: f64) -> f64 {
        lanes::dispatch(
            #[inline(always)]
            || {
                let b = self.procedural_at(x, z);
                // The outward neighbour alone, the four in lanes only when it is not
                // steep (rarely).
                let one = |nx, nz| self.procedural_at(nx, nz);
                shore::computed_with(b, x, z, one, || self.neighbours_lanes(x, z))
            },
        )
    }

    fn height_near_zones_from(
        &self,
        procedural: f64,
        x: f64,
        z: f64,
        zone_at: &dyn Fn(f64, f64) -> Option<f64>,
    ) -> f64 {
        shore::computed(procedural, x, z, |nx, nz| {
            zone_at(nx, nz).unwrap_or_else(|| self.procedural(nx, nz))
        })
    }

    fn fill_axes_procedural(
        &self,
        xs: &[f64],
        zs: &[f64],
        out: &mut [f64],
        procedural: &mut [f64],
    ) {
        assert_eq!(
            procedural.len(),
            out.len(),
            "procedural must hold as many heights as out"
        );
        self.fill_axes_inner(xs, zs, out, Some(procedural));
    }

    fn fill_axes(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        self.fill_axes_inner(xs, zs, out, None);
    }

    fn fill_rows(&self, grid: &Grid, rows: Range<usize>, out: &mut [f64]) {
        let xs: Vec<f64> = (0..grid.nx).map(|ix| grid.x(ix)).collect();
        let zs: Vec<f64> = rows.map(|iz| grid.z(iz)).collect();
        self.fill_axes(&xs, &zs, out);
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;

    /// The point path in the shoreline band equals §5.2 written out (the four
    /// neighbours' scalar procedural heights, then the adjustment), bit for bit, both
    /// where the outward neighbour is steep (the early answer) and where it is not (the
    /// four in lanes), for several seeds.
    #[test]
    fn the_point_path_in_the_band_is_the_plain_shoreline() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0b0a_57ee_b5ea_5ea5);
        let (mut steep, mut gentle) = (0, 0);
        for seed in [0, 1, 7, 4_000_000_000] {
            let g = Hyperscape::new(seed);
            for _ in 0..40_000 {
                let r = rng.random_range(200.0..500.0);
                let a = rng.random_range(0.0..std::f64::consts::TAU);
                let (x, z) = (r * a.cos(), r * a.sin());
                let b = g.procedural(x, z);
                if !shore::in_band(b) {
                    continue;
                }
                let around = shore::neighbours(x, z).map(|(nx, nz)| g.procedural(nx, nz));
                let want = shore::from_neighbours(b, around);
                assert_eq!(
                    Generator::height(&g, x, z).to_bits(),
                    want.to_bits(),
                    "seed {seed} ({x}, {z})"
                );
                if shore::steep(b, around[shore::outward(x, z)]) {
                    steep += 1;
                } else {
                    gentle += 1;
                }
            }
        }
        assert!(steep > 1000 && gentle > 30, "{steep} {gentle}");
    }

    /// The point path's four shoreline neighbours in lanes are the scalar procedural
    /// heights there, bit for bit, over the island, its coast and beyond, for several
    /// seeds (whether or not the point is in the band: the lanes do not know).
    #[test]
    fn neighbours_in_lanes_equal_the_scalar_procedural() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0dd5_eed5_7a1e_5a11);
        for seed in [0, 1, 7, 4_000_000_000] {
            let g = Hyperscape::new(seed);
            for k in 0..3000 {
                let r = [130.0, 350.0, 500.0][k % 3] * rng.random::<f64>().sqrt();
                let a = rng.random_range(0.0..std::f64::consts::TAU);
                let (x, z) = (r * a.cos(), r * a.sin());
                let got = g.neighbours_lanes(x, z);
                for (i, (nx, nz)) in shore::neighbours(x, z).into_iter().enumerate() {
                    assert_eq!(
                        got[i].to_bits(),
                        g.procedural(nx, nz).to_bits(),
                        "seed {seed} ({x}, {z}) neighbour {i}"
                    );
                }
            }
        }
    }
}
