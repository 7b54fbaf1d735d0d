//! The original terrain worker's vertex colours and biome ids
//! (docs/src/reference/colours.md), bit for bit in f32.
//!
//! At each vertex every biome centre weighs in by a Gaussian of its distance, the
//! distance stretched by low-frequency boundary noise; mountain weights grow above
//! 40% of the maximum height and valley and plains weights below it. Weights are summed
//! per biome type (types in the order they first appear among the centres), divided by
//! their total, and sorted (stable, largest first); the top three blend the biomes'
//! linear-RGB colours without renormalising, the first is the vertex's biome id, and a
//! shoreline tint pulls vertices between 7.5 m and 12.5 m toward sand. Everything is
//! f64 in the original's order of operations (`libm::exp`, fdlibm-derived as V8's),
//! rounded to f32 at the end.

use libm::{exp, sqrt};

use super::lanes::{self, F4, LANES};
use super::{Biome, BiomeCenter, Noise};

/// The original's maximum height, which heights are normalised by.
const MAX_HEIGHT: f64 = 50.0;
/// Scale of the boundary noise's coordinates.
const BOUNDARY_NOISE_SCALE: f64 = 0.003;
/// How much the boundary noise stretches distances.
const BOUNDARY_NOISE_AMOUNT: f64 = 0.15;
/// Coefficient of the Gaussian falloff `exp(-(nd^2 * 0.15))`.
const GAUSSIAN_COEFF: f64 = 0.15;
/// Above this normalised height mountain weights grow...
const MOUNTAIN_HEIGHT_THRESHOLD: f64 = 0.4;
/// ...by this much per unit of normalised height.
const MOUNTAIN_WEIGHT_BOOST: f64 = 2.0;
/// Below this normalised height valley and plains weights grow...
const VALLEY_HEIGHT_THRESHOLD: f64 = 0.4;
/// ...by this much per unit of normalised height.
const VALLEY_WEIGHT_BOOST: f64 = 1.5;
/// The shoreline band, in normalised height (strict at both ends).
const WATER_LEVEL_NORMALIZED: f64 = 0.15;
const SHORELINE_THRESHOLD: f64 = 0.25;
/// The tint's strength at the water line.
const SHORELINE_STRENGTH: f64 = 0.6;
/// The shoreline colour (sRGB 0x8B7355 used as is, as the original does).
const SHORE: [f64; 3] = [0.545, 0.451, 0.333];
/// The colour of a biome the table lacks (never reached: every type has a colour).
const FALLBACK: [f64; 3] = [0.4, 0.6, 0.3];
/// How many biomes blend at a vertex.
const BLENDED: usize = 3;
/// At most this many distinct types (every [`Biome`]).
const MAX_TYPES: usize = 8;

/// The biome ids of the original's table.
pub const BIOME_NAMES: [&str; 8] = [
    "plains",
    "forest",
    "valley",
    "mountains",
    "tundra",
    "desert",
    "lakes",
    "swamp",
];

/// A biome's id in [`BIOME_NAMES`] (unknown: 0, as the original).
pub fn biome_id(biome: Biome) -> u8 {
    match biome {
        Biome::Plains | Biome::Undefined => 0,
        Biome::Forest => 1,
        Biome::Valley => 2,
        Biome::Mountains => 3,
        Biome::Tundra => 4,
        Biome::Desert => 5,
        Biome::Swamp => 7,
    }
}

/// A biome's linear-RGB colour: `manifests/biomes.json`'s colours through three.js's
/// sRGB-to-linear conversion, as the binary64 values the worker multiplies by
/// (hard-coded, so no `pow` implementation can change a bit).
fn biome_colour(biome: Biome) -> [f64; 3] {
    match biome {
        Biome::Plains => [0.13286832154414627, 0.4969329950515914, 0.14412847084818123],
        Biome::Forest => [0.03954623527052923, 0.2704977910022518, 0.04518620437910499],
        Biome::Valley => [0.21952619971859377, 0.5711248294565854, 0.23074004851362045],
        Biome::Mountains => [
            0.19461783043107173,
            0.16826940017946088,
            0.13013647668074665,
        ],
        Biome::Tundra => [0.8069522576650873, 0.775822218312646, 0.7454042095350284],
        Biome::Desert => [0.2663556047920505, 0.15592646369776456, 0.12477181755144427],
        Biome::Swamp => [0.10946171076915331, 0.2541520943200296, 0.04666508633021928],
        Biome::Undefined => FALLBACK,
    }
}

/// The linear-RGB colour of biome `id` ([`BIOME_NAMES`]; lakes share plains' colour;
/// an id past the table gets the original's fallback).
pub fn colour_of(id: u8) -> [f64; 3] {
    match id {
        0 | 6 => biome_colour(Biome::Plains),
        1 => biome_colour(Biome::Forest),
        2 => biome_colour(Biome::Valley),
        3 => biome_colour(Biome::Mountains),
        4 => biome_colour(Biome::Tundra),
        5 => biome_colour(Biome::Desert),
        7 => biome_colour(Biome::Swamp),
        _ => FALLBACK,
    }
}

/// One vertex's colour and dominant biome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexColour {
    /// The dominant biome's id ([`BIOME_NAMES`]).
    pub biome: u8,
    /// Linear RGB, unclamped.
    pub rgb: [f32; 3],
}

/// The colouring of one seed: its biome centres and their distinct types.
#[derive(Debug, Clone)]
pub struct Colours {
    centres: Vec<BiomeCenter>,
    /// The distinct types in order of first appearance among the centres.
    types: Vec<Biome>,
    /// Each centre's index in `types`.
    slot: Vec<usize>,
}

impl Colours {
    /// The colouring of the centres `centres` (in generation order).
    pub fn new(centres: &[BiomeCenter]) -> Self {
        let mut types = Vec::new();
        let mut slot = Vec::with_capacity(centres.len());
        for c in centres {
            let k = match types.iter().position(|&t| t == c.biome) {
                Some(k) => k,
                None => {
                    types.push(c.biome);
                    types.len() - 1
                }
            };
            slot.push(k);
        }
        Colours {
            centres: centres.to_vec(),
            types,
            slot,
        }
    }

    /// The colour and biome at world `(x, z)` (the worker's vertex coordinates) whose
    /// final height, as stored in f32, is `height`.
    pub fn at(&self, noise: &Noise, x: f64, z: f64, height: f32) -> VertexColour {
        let nh = f64::from(height) / MAX_HEIGHT;
        self.finish(&self.accumulate(noise, x, z, nh), nh)
    }

    /// [`Colours::at`] over a grid, row by row (`xs` fastest), handing each vertex's
    /// colour to `each`: four vertices of a row at a time in f64 lanes (the SIMD
    /// features the CPU has, detected at run time), the rest one by one. Every
    /// colour has the same bits as [`Colours::at`]'s. `height(ix, iz)` is the vertex's
    /// final f32 height.
    pub fn grid(
        &self,
        noise: &Noise,
        xs: &[f64],
        zs: &[f64],
        height: impl Fn(usize, usize) -> f32,
        mut each: impl FnMut(VertexColour),
    ) {
        lanes::dispatch(
            #[inline(always)]
            || {
                let whole = xs.len() - xs.len() % LANES;
                for (iz, &z) in zs.iter().enumerate() {
                    for (g, x4) in xs[..whole].chunks_exact(LANES).enumerate() {
                        let h: [f32; LANES] = std::array::from_fn(|i| height(g * LANES + i, iz));
                        let x = F4(std::array::from_fn(|i| x4[i]));
                        for c in self.at_lanes(noise, x, z, h) {
                            each(c);
                        }
                    }
                    for (ix, &x) in xs.iter().enumerate().skip(whole) {
                        each(self.at(noise, x, z, height(ix, iz)));
                    }
                }
            },
        );
    }

    /// [`Colours::at`] at four points of one row, lane by lane.
    #[inline(always)]
    fn at_lanes(
        &self,
        noise: &Noise,
        x: F4,
        z: f64,
        height: [f32; LANES],
    ) -> [VertexColour; LANES] {
        let nh = F4(height.map(|h| f64::from(h) / MAX_HEIGHT));
        let bn = x.map(|x| noise.simplex(x * BOUNDARY_NOISE_SCALE, z * BOUNDARY_NOISE_SCALE));
        let stretch = 1.0 + bn * BOUNDARY_NOISE_AMOUNT;
        let mountain = nh.test(F4::splat(MOUNTAIN_HEIGHT_THRESHOLD), |a, b| a > b);
        let low = nh.test(F4::splat(VALLEY_HEIGHT_THRESHOLD), |a, b| a < b);
        let mut acc = [F4::splat(0.0); MAX_TYPES];
        for (c, &k) in self.centres.iter().zip(&self.slot) {
            let (dx, dz) = (x - c.x, z - c.z);
            let d = (dx * dx + dz * dz).sqrt();
            let nd = (d * stretch) / c.influence;
            let mut w = lanes::exp(-(nd * nd * GAUSSIAN_COEFF));
            match c.biome {
                Biome::Mountains => {
                    let boost = 1.0 + (nh - MOUNTAIN_HEIGHT_THRESHOLD) * MOUNTAIN_WEIGHT_BOOST;
                    w = F4::select(mountain, w * boost, w);
                }
                Biome::Valley | Biome::Plains => {
                    let boost = 1.0 + (VALLEY_HEIGHT_THRESHOLD - nh) * VALLEY_WEIGHT_BOOST;
                    w = F4::select(low, w * boost, w);
                }
                _ => {}
            }
            acc[k] = acc[k] + w;
        }
        std::array::from_fn(|i| self.finish(&acc.map(|a| a.0[i]), nh.0[i]))
    }

    /// Every type's summed weight at `(x, z)` with normalised height `nh`, in
    /// [`Colours::types`] order (the rest zero).
    fn accumulate(&self, noise: &Noise, x: f64, z: f64, nh: f64) -> [f64; MAX_TYPES] {
        let bn = noise.simplex(x * BOUNDARY_NOISE_SCALE, z * BOUNDARY_NOISE_SCALE);
        let mut acc = [0.0f64; MAX_TYPES];
        for (c, &k) in self.centres.iter().zip(&self.slot) {
            let (dx, dz) = (x - c.x, z - c.z);
            let d = sqrt(dx * dx + dz * dz);
            let nd = (d * (1.0 + bn * BOUNDARY_NOISE_AMOUNT)) / c.influence;
            let mut w = exp(-(nd * nd * GAUSSIAN_COEFF));
            match c.biome {
                Biome::Mountains if nh > MOUNTAIN_HEIGHT_THRESHOLD => {
                    w *= 1.0 + (nh - MOUNTAIN_HEIGHT_THRESHOLD) * MOUNTAIN_WEIGHT_BOOST;
                }
                Biome::Valley | Biome::Plains if nh < VALLEY_HEIGHT_THRESHOLD => {
                    w *= 1.0 + (VALLEY_HEIGHT_THRESHOLD - nh) * VALLEY_WEIGHT_BOOST;
                }
                _ => {}
            }
            acc[k] += w;
        }
        acc
    }

    /// The colour from the summed weights `acc` (see [`Colours::accumulate`]).
    #[inline(always)]
    fn finish(&self, acc: &[f64; MAX_TYPES], nh: f64) -> VertexColour {
        let (ranked, len) = self.rank(acc);
        let weights = &ranked[..len];
        let Some(&(dominant, _)) = weights.first() else {
            return self.blend(&[(Biome::Plains, 1.0)], nh);
        };
        let mut colour = self.blend(weights, nh);
        colour.biome = biome_id(dominant);
        colour
    }

    /// The (at most three) largest shares of the total weight, largest first: the
    /// first `len` entries of the array.
    #[inline(always)]
    fn rank(&self, acc: &[f64; MAX_TYPES]) -> ([(Biome, f64); MAX_TYPES + 1], usize) {
        let n = self.types.len();
        let total: f64 = acc[..n].iter().fold(0.0, |t, &a| t + a);
        let mut weights = [(Biome::Plains, 0.0); MAX_TYPES + 1];
        for (w, (&t, &a)) in weights.iter_mut().zip(self.types.iter().zip(acc)) {
            *w = (t, if total > 0.0 { a / total } else { a });
        }
        let mut len = n;
        if total <= 0.0 || total.is_nan() {
            weights[n] = (Biome::Plains, 1.0);
            len += 1;
        }
        // Stable: equal weights keep first-appearance order.
        weights[..len].sort_by(|a, b| b.1.total_cmp(&a.1));
        (weights, len.min(BLENDED))
    }

    /// The (at most three) biomes that blend at `(x, z)` with final f32 height
    /// `height`: types with their share of the total weight, largest first (the
    /// original's `getBiomeInfluences`).
    pub fn influences(&self, noise: &Noise, x: f64, z: f64, height: f32) -> Vec<(Biome, f64)> {
        let nh = f64::from(height) / MAX_HEIGHT;
        let (ranked, len) = self.rank(&self.accumulate(noise, x, z, nh));
        ranked[..len].to_vec()
    }

    /// The blend of `weights` (sorted, largest first) with the shoreline tint.
    fn blend(&self, weights: &[(Biome, f64)], nh: f64) -> VertexColour {
        let mut rgb = [0.0f64; 3];
        for &(biome, weight) in weights {
            let col = biome_colour(biome);
            for (channel, c) in rgb.iter_mut().zip(col) {
                *channel += c * weight;
            }
        }
        if WATER_LEVEL_NORMALIZED < nh && nh < SHORELINE_THRESHOLD {
            let s = (1.0
                - (nh - WATER_LEVEL_NORMALIZED) / (SHORELINE_THRESHOLD - WATER_LEVEL_NORMALIZED))
                * SHORELINE_STRENGTH;
            for (channel, target) in rgb.iter_mut().zip(SHORE) {
                *channel += (target - *channel) * s;
            }
        }
        VertexColour {
            biome: weights.first().map_or(0, |w| biome_id(w.0)),
            rgb: rgb.map(|c| c as f32),
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;

    #[test]
    fn types_keep_their_first_appearance_order() {
        let centres = super::super::biome_centers(0);
        let colours = Colours::new(&centres);
        // Seed 0: swamp, forest, desert, plains, forest, forest, tundra, forest, tundra.
        assert_eq!(
            colours.types,
            vec![
                Biome::Swamp,
                Biome::Forest,
                Biome::Desert,
                Biome::Plains,
                Biome::Tundra
            ]
        );
        assert_eq!(colours.slot, vec![0, 1, 2, 3, 1, 1, 4, 1, 4]);
    }

    /// `grid` (four lanes and scalar tail) against `at`, bit for bit: random rows of
    /// every width over the whole world, heights across every threshold, several seeds.
    #[test]
    fn grid_lanes_equal_at() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        for seed in [0, 1, 5, 77, 3_000_000_000] {
            let noise = Noise::new(seed);
            let centres = super::super::biome_centers(seed);
            let colours = Colours::new(&centres);
            let mut checked = 0;
            for k in 0..300 {
                let span = [1000.0, 12_000.0, 1e6][k % 3];
                let (x0, z0) = (
                    rng.random_range(-0.5..0.5) * span,
                    rng.random_range(-0.5..0.5) * span,
                );
                let step = rng.random_range(0.0..5.0);
                let nx = rng.random_range(1..=13);
                let xs: Vec<f64> = (0..nx).map(|i| x0 + i as f64 * step).collect();
                let zs = [z0, z0 + step];
                let hs: Vec<f32> = (0..2 * nx)
                    .map(|_| rng.random_range(-5.0..55.0) as f32)
                    .collect();
                let mut got = Vec::new();
                colours.grid(&noise, &xs, &zs, |ix, iz| hs[iz * nx + ix], |c| got.push(c));
                for (iz, &z) in zs.iter().enumerate() {
                    for (ix, &x) in xs.iter().enumerate() {
                        let want = colours.at(&noise, x, z, hs[iz * nx + ix]);
                        let c = got[iz * nx + ix];
                        assert_eq!(c.biome, want.biome, "({x}, {z})");
                        assert_eq!(c.rgb.map(f32::to_bits), want.rgb.map(f32::to_bits));
                        checked += 1;
                    }
                }
            }
            // Exactly at every centre (exp's tiny-argument lanes).
            let xs: Vec<f64> = centres.iter().map(|c| c.x).collect();
            for c in &centres {
                let mut got = Vec::new();
                colours.grid(&noise, &xs, &[c.z], |_, _| 20.0, |v| got.push(v));
                for (v, &x) in got.iter().zip(&xs) {
                    assert_eq!(*v, colours.at(&noise, x, c.z, 20.0));
                }
            }
            assert!(checked > 1000);
        }
    }

    #[test]
    fn the_shoreline_tints_only_inside_its_band() {
        let colours = Colours::new(&super::super::biome_centers(0));
        let noise = Noise::new(0);
        let plain = colours.at(&noise, 10.0, 10.0, 20.0);
        let shore = colours.at(&noise, 10.0, 10.0, 8.0);
        let edge = colours.at(&noise, 10.0, 10.0, 7.5);
        // 8 m is in the band: pulled toward sand (red rises).
        assert!(shore.rgb[0] > plain.rgb[0], "{shore:?} {plain:?}");
        // 7.5 m is exactly 0.15: outside (strict).
        let edge_s = (1.0 - (0.15f64 - 0.15) / 0.1) * 0.6;
        assert!(edge_s > 0.5);
        assert!(edge.rgb[0] < shore.rgb[0], "{edge:?} {shore:?}");
    }
}
