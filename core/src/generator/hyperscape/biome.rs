//! Biome centres and the mountain boost (docs/src/reference/height.md, "Biome centres and the mountain boost").
//!
//! Nine centres are drawn once per seed on a jittered 3x3 grid over a 10 km world;
//! only mountain centres affect height, raising terrain near them by up to 50%.

use libm::{exp, floor};

use super::noise::lcg;

/// World edge length the centres are spread over: 100 tiles of 100 m.
const WORLD_SIZE: f64 = 10_000.0;
/// Centres per axis.
const GRID: u32 = 3;
/// Jitter of a centre within its cell, as a fraction of the cell.
const JITTER: f64 = 0.35;
/// Beyond this many influence radii a mountain centre has no effect.
const MAX_NORM_DIST: f64 = 2.5;
/// Coefficient of the Gaussian falloff `exp(-0.3 nd^2)`.
const GAUSSIAN_COEFF: f64 = 0.3;
/// Largest relative height gain at a mountain centre.
const HEIGHT_BOOST: f64 = 0.5;

/// The biome types, indexed by `floor(r * 11)`.
const TYPES: [Biome; 11] = [
    Biome::Plains,
    Biome::Plains,
    Biome::Plains,
    Biome::Forest,
    Biome::Forest,
    Biome::Valley,
    Biome::Mountains,
    Biome::Mountains,
    Biome::Desert,
    Biome::Swamp,
    Biome::Tundra,
];

/// A biome type. Only [`Biome::Mountains`] changes heights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Biome {
    Plains,
    Forest,
    Valley,
    Mountains,
    Desert,
    Swamp,
    Tundra,
    /// The draw was exactly 1.0, which indexes past the table in the original.
    Undefined,
}

impl Biome {
    /// The original's name for the type.
    pub fn as_str(self) -> &'static str {
        match self {
            Biome::Plains => "plains",
            Biome::Forest => "forest",
            Biome::Valley => "valley",
            Biome::Mountains => "mountains",
            Biome::Desert => "desert",
            Biome::Swamp => "swamp",
            Biome::Tundra => "tundra",
            Biome::Undefined => "undefined",
        }
    }
}

/// One biome centre.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BiomeCenter {
    pub x: f64,
    pub z: f64,
    pub biome: Biome,
    /// Radius scale of the centre's Gaussian influence, in metres.
    pub influence: f64,
}

/// The nine centres of `seed`, in generation order (§4.1).
pub fn biome_centers(seed: u32) -> Vec<BiomeCenter> {
    let mut s = u64::from(seed);
    let mut draw = || {
        s = lcg(s);
        s as f64 / 4_294_967_295.0
    };
    let cell = WORLD_SIZE / f64::from(GRID);
    let mut centers = Vec::with_capacity(9);
    for gx in 0..GRID {
        for gz in 0..GRID {
            let (r1, r2, r3, r4) = (draw(), draw(), draw(), draw());
            let x = ((f64::from(gx) + 0.5) * cell - WORLD_SIZE / 2.0)
                + (((r1 - 0.5) * 2.0) * JITTER) * cell;
            let z = ((f64::from(gz) + 0.5) * cell - WORLD_SIZE / 2.0)
                + (((r2 - 0.5) * 2.0) * JITTER) * cell;
            let biome = TYPES
                .get(floor(r3 * 11.0) as usize)
                .copied()
                .unwrap_or(Biome::Undefined);
            let influence = 2000.0 + r4 * 1500.0;
            centers.push(BiomeCenter {
                x,
                z,
                biome,
                influence,
            });
        }
    }
    centers
}

/// `procedural(x, z)` from `base(x, z)`: the mountain boost of §4.2 over the mountain
/// centres, in list order.
#[inline]
pub(crate) fn boost(base: f64, x: f64, z: f64, mountains: &[BiomeCenter]) -> f64 {
    let mut hn = base / 50.0;
    let mut boost: f64 = 0.0;
    for c in mountains {
        let (dx, dz) = (x - c.x, z - c.z);
        // `f64::sqrt`, the same bits as `libm::sqrt` (see `noise`'s note).
        let nd = (dx * dx + dz * dz).sqrt() / c.influence;
        if nd < MAX_NORM_DIST {
            boost = boost.max(exp(((-nd) * nd) * GAUSSIAN_COEFF));
        }
    }
    hn *= 1.0 + boost * HEIGHT_BOOST;
    hn = f64::min(1.0, hn);
    hn * 50.0
}

/// A proven range of [`boost`] of a base in `base` over a rectangle whose nearest
/// point to each mountain centre is `near(centre)` metres away. The boost factor is
/// an `exp` of a non-positive number, so in [0, 1], and only centres nearer than
/// `MAX_NORM_DIST` influence radii give any: the normalised base is multiplied by 1 to
/// `1 + HEIGHT_BOOST`, then capped at 1 (`MAX_HEIGHT` metres).
pub(super) fn boost_bounds(
    base: (f64, f64),
    mountains: &[BiomeCenter],
    near: impl Fn(&BiomeCenter) -> f64,
) -> (f64, f64) {
    use super::layers::MAX_HEIGHT as MAX;
    let reached = mountains
        .iter()
        .any(|c| near(c) < MAX_NORM_DIST * c.influence);
    if !reached {
        return (base.0.min(MAX), base.1.min(MAX));
    }
    let k = 1.0 + HEIGHT_BOOST;
    let lo = f64::min(base.0, base.0 * k);
    let hi = f64::max(base.1, base.1 * k);
    (lo.min(MAX), hi.min(MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed1_has_the_two_documented_mountain_centres() {
        let m: Vec<_> = biome_centers(1)
            .into_iter()
            .filter(|c| c.biome == Biome::Mountains)
            .collect();
        assert_eq!(m.len(), 2);
        assert!(
            (m[0].x - 842.0).abs() < 1.0 && (m[0].z + 404.0).abs() < 1.0,
            "{:?}",
            m[0]
        );
        assert!((m[0].influence - 2797.0).abs() < 1.0, "{:?}", m[0]);
        assert!(
            (m[1].x - 2470.0).abs() < 1.0 && (m[1].z + 2850.0).abs() < 1.0,
            "{:?}",
            m[1]
        );
        assert!((m[1].influence - 2569.0).abs() < 1.0, "{:?}", m[1]);
    }

    #[test]
    fn boost_is_half_again_at_a_centre_and_capped_at_the_max_height() {
        let c = BiomeCenter {
            x: 10.0,
            z: -20.0,
            biome: Biome::Mountains,
            influence: 2500.0,
        };
        assert!((boost(20.0, 10.0, -20.0, &[c]) - 30.0).abs() < 1e-12);
        assert_eq!(boost(40.0, 10.0, -20.0, &[c]), 50.0);
        // Beyond 2.5 influence radii nothing changes.
        assert_eq!(boost(20.0, 10.0 + 2500.0 * 2.5, -20.0, &[c]), 20.0);
    }
}
