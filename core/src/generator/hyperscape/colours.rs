//! The original terrain worker's vertex colours and biome ids
//! (`shared/reference/hyperscape/colours/COLOURS.md`), bit for bit in f32.
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
        let weights = self.influences(noise, x, z, height);
        let Some(&(dominant, _)) = weights.first() else {
            return self.blend(&[(Biome::Plains, 1.0)], nh);
        };
        let mut colour = self.blend(&weights, nh);
        colour.biome = biome_id(dominant);
        colour
    }

    /// The (at most three) biomes that blend at `(x, z)` with final f32 height
    /// `height`: types with their share of the total weight, largest first (the
    /// original's `getBiomeInfluences`).
    pub fn influences(&self, noise: &Noise, x: f64, z: f64, height: f32) -> Vec<(Biome, f64)> {
        let nh = f64::from(height) / MAX_HEIGHT;
        let bn = noise.simplex(x * BOUNDARY_NOISE_SCALE, z * BOUNDARY_NOISE_SCALE);
        let mut acc = vec![0.0f64; self.types.len()];
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
        let total: f64 = acc.iter().fold(0.0, |t, &a| t + a);
        let mut weights: Vec<(Biome, f64)> = if total > 0.0 {
            self.types
                .iter()
                .zip(&acc)
                .map(|(&t, &a)| (t, a / total))
                .collect()
        } else {
            let mut zero: Vec<(Biome, f64)> =
                self.types.iter().zip(&acc).map(|(&t, &a)| (t, a)).collect();
            zero.push((Biome::Plains, 1.0));
            zero
        };
        // Stable: equal weights keep first-appearance order.
        weights.sort_by(|a, b| b.1.total_cmp(&a.1));
        weights.truncate(BLENDED);
        weights
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
