//! The difficulty of a position, as the original's `getDifficultyAtWorldPosition`
//! computes it (the book's reference chapter on walkability, "Difficulty"): the
//! biome's tier from the manifest, faded in over 300 m from the nearest town's edge,
//! mixed with a slow simplex noise and curved by `pow(.., 2.2)` into a level from 1 to
//! 1000. Under the `hyperscape` walkability rule only: the biome is that rule's.

use libm::{floor, sqrt};

use crate::generator::hyperscape::Noise;
use crate::maths::jsmath::pow;

/// A town: difficulty is 0 within `radius` of its centre and fades in beyond.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Town {
    pub x: f64,
    pub z: f64,
    pub radius: f64,
}

/// The most towns the difficulty rule measures from: a world lists at most this many
/// (the server's `towns` key), and the Node adapter's `setTowns` takes at most this
/// many (each point of terrain info measures its distance to every town).
pub const MAX_TOWNS: usize = 256;

/// The original's `TOWN_RADIUS`.
pub const TOWN_RADIUS: f64 = 25.0;

/// The towns the original falls back to when its town system has none: the origin
/// and four points 1 km away on the axes.
pub const FALLBACK_TOWNS: [Town; 5] = [
    Town {
        x: 0.0,
        z: 0.0,
        radius: TOWN_RADIUS,
    },
    Town {
        x: 1000.0,
        z: 0.0,
        radius: TOWN_RADIUS,
    },
    Town {
        x: -1000.0,
        z: 0.0,
        radius: TOWN_RADIUS,
    },
    Town {
        x: 0.0,
        z: 1000.0,
        radius: TOWN_RADIUS,
    },
    Town {
        x: 0.0,
        z: -1000.0,
        radius: TOWN_RADIUS,
    },
];

/// Metres beyond a town's edge over which difficulty fades in.
const FALLOFF: f64 = 300.0;
/// The noise's frequency.
const NOISE_SCALE: f64 = 0.0007;
/// The noise's share of the blend.
const NOISE_WEIGHT: f64 = 0.3;
/// The curve's exponent.
const CURVE: f64 = 2.2;
/// The highest level.
const MAX_LEVEL: f64 = 1000.0;

/// The difficulty of a position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difficulty {
    /// 0 (safe) or 1 to 1000.
    pub level: u32,
    /// The curved blend in [0, 1] the level comes from.
    pub scalar: f64,
    /// The biome whose tier it starts from.
    pub biome: &'static str,
    /// That biome's tier (the manifest's `difficulty`).
    pub tier: f64,
    /// No difficulty here (a town, or a tier of 0).
    pub is_safe: bool,
}

/// The difficulty at `(x, z)` in `biome` of tier `tier`, with `towns` (an empty list
/// reads as [`FALLBACK_TOWNS`], as the original's does) and the seed's `noise`.
pub fn difficulty(
    noise: &Noise,
    towns: &[Town],
    biome: &'static str,
    tier: f64,
    x: f64,
    z: f64,
) -> Difficulty {
    let towns = if towns.is_empty() {
        &FALLBACK_TOWNS[..]
    } else {
        towns
    };
    let mut distance = f64::INFINITY;
    for t in towns {
        let (dx, dz) = (x - t.x, z - t.z);
        let edge = f64::max(0.0, sqrt(dx * dx + dz * dz) - t.radius);
        if edge < distance {
            distance = edge;
        }
    }
    let falloff = (distance / FALLOFF).clamp(0.0, 1.0);
    if tier <= 0.0 || falloff <= 0.0 {
        return Difficulty {
            level: 0,
            scalar: 0.0,
            biome,
            tier,
            is_safe: true,
        };
    }
    let base = (tier / 3.0).clamp(0.0, 1.0);
    let n = noise.simplex(x * NOISE_SCALE, z * NOISE_SCALE);
    let blended = base * (1.0 - NOISE_WEIGHT) + ((n + 1.0) * 0.5) * NOISE_WEIGHT;
    let scalar = pow(blended * falloff, CURVE).clamp(0.0, 1.0);
    let level = if scalar <= 0.0 {
        0.0
    } else {
        f64::max(1.0, floor(1.0 + scalar * (MAX_LEVEL - 1.0)))
    };
    Difficulty {
        level: level as u32,
        scalar,
        biome,
        tier,
        is_safe: false,
    }
}
