//! Hub placement inside one chunk, for each of the seed's four patterns.
//!
//! A chunk's hubs are drawn only from that chunk's PRNG, so they never depend on any
//! other chunk. Every size below is a fraction of `chunk_size`, and each pattern's
//! constants are chosen so that every hub disc lies inside its chunk with a margin and
//! no two discs overlap: hubs of different chunks are therefore disjoint too.

use core::f64::consts::PI;

use super::config::{LayoutConfig, Pattern};
use super::rng::{Mulberry32, chunk_rng};

/// Grid: the hub centre moves at most this fraction from the chunk centre per axis.
pub const GRID_JITTER: f64 = 0.08;
/// Grid: hub radius range. `0.5 - 0.08 - 0.28 = 0.14` of margin to the chunk edge.
pub const GRID_RADIUS: (f64, f64) = (0.20, 0.28);

/// Zigzag: the hub sits this far left (even rows) or right (odd rows) of the centre.
pub const ZIGZAG_OFFSET: f64 = 0.2;
/// Zigzag: extra jitter per axis around the zigzag position.
pub const ZIGZAG_JITTER: f64 = 0.05;
/// Zigzag: hub radius range. `0.5 - 0.2 - 0.05 - 0.2 = 0.05` of margin to the edge.
pub const ZIGZAG_RADIUS: (f64, f64) = (0.15, 0.20);

/// Rings: radius of the centre hub.
pub const RINGS_CENTRE_RADIUS: f64 = 0.08;
/// Rings: `(ring radius, hub radius, min hubs, max hubs)` of rings 1-3. Rings are
/// separated (`0.08 < 0.17 - 0.05`, `0.22 < 0.29 - 0.04`, `0.33 < 0.40 - 0.035`),
/// neighbours on a ring are apart (chord `2 rho sin(pi / max)` exceeds twice the hub
/// radius) and the outer ring ends at `0.435 < 0.5`.
pub const RINGS: [(f64, f64, u32, u32); 3] =
    [(0.17, 0.05, 3, 5), (0.29, 0.04, 4, 6), (0.40, 0.035, 5, 8)];

/// Chaotic: hub radius range.
pub const CHAOTIC_RADIUS: (f64, f64) = (0.08, 0.14);
/// Chaotic: least clearance kept between a hub disc and the chunk edge.
pub const CHAOTIC_MARGIN: f64 = 0.02;
/// Chaotic: least gap between two hub discs (the Poisson-disc spacing).
pub const CHAOTIC_GAP: f64 = 0.05;
/// Chaotic: placement attempts per hub; a hub that finds no room is dropped.
pub const CHAOTIC_TRIES: u32 = 24;

/// A clearing: a disc that lives in exactly one chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Hub {
    /// `"{cx},{cz}:{i}"`, unique across the world.
    pub id: String,
    /// Centre x, metres.
    pub x: f64,
    /// Centre z, metres.
    pub z: f64,
    /// Radius, metres.
    pub r: f64,
    /// The chunk that owns the hub.
    pub chunk: (i64, i64),
    /// Position among the chunk's hubs (the `i` of the id).
    pub index: u32,
}

impl Hub {
    fn new(chunk: (i64, i64), index: u32, x: f64, z: f64, r: f64) -> Self {
        Self {
            id: format!("{},{}:{}", chunk.0, chunk.1, index),
            x,
            z,
            r,
            chunk,
            index,
        }
    }

    /// The total order used everywhere hubs are sorted: chunk, then index.
    pub fn key(&self) -> (i64, i64, u32) {
        (self.chunk.0, self.chunk.1, self.index)
    }
}

/// The hubs of chunk `(cx, cz)`, in index order. Depends only on `cfg` and the chunk.
pub fn hubs_in_chunk(cfg: &LayoutConfig, cx: i64, cz: i64) -> Vec<Hub> {
    let mut rng = chunk_rng(cfg.seed, cx, cz);
    let s = cfg.chunk_size;
    let origin = (cx as f64 * s, cz as f64 * s);
    // Positions are built in chunk units ([0, 1]^2) and scaled at the end.
    let discs = match cfg.pattern {
        Pattern::Grid => vec![grid(&mut rng)],
        Pattern::Zigzag => vec![zigzag(&mut rng, cz)],
        Pattern::Rings => rings(&mut rng),
        Pattern::Chaotic => chaotic(&mut rng),
    };
    discs
        .into_iter()
        .zip(0u32..)
        .map(|((x, z, r), i)| Hub::new((cx, cz), i, origin.0 + x * s, origin.1 + z * s, r * s))
        .collect()
}

/// A disc in chunk units: `(x, z, r)`.
type Disc = (f64, f64, f64);

fn grid(rng: &mut Mulberry32) -> Disc {
    let x = 0.5 + rng.range(-GRID_JITTER, GRID_JITTER);
    let z = 0.5 + rng.range(-GRID_JITTER, GRID_JITTER);
    (x, z, rng.range(GRID_RADIUS.0, GRID_RADIUS.1))
}

fn zigzag(rng: &mut Mulberry32, cz: i64) -> Disc {
    let side = if cz.rem_euclid(2) == 0 { -1.0 } else { 1.0 };
    let x = 0.5 + side * ZIGZAG_OFFSET + rng.range(-ZIGZAG_JITTER, ZIGZAG_JITTER);
    let z = 0.5 + rng.range(-ZIGZAG_JITTER, ZIGZAG_JITTER);
    (x, z, rng.range(ZIGZAG_RADIUS.0, ZIGZAG_RADIUS.1))
}

fn rings(rng: &mut Mulberry32) -> Vec<Disc> {
    let mut discs = vec![(0.5, 0.5, RINGS_CENTRE_RADIUS)];
    let count = rng.int_inclusive(1, RINGS.len() as u32) as usize;
    for &(rho, r, lo, hi) in &RINGS[..count] {
        let n = rng.int_inclusive(lo, hi);
        let phase = rng.range(0.0, 2.0 * PI);
        for k in 0..n {
            let theta = phase + 2.0 * PI * f64::from(k) / f64::from(n);
            discs.push((
                0.5 + rho * libm::cos(theta),
                0.5 + rho * libm::sin(theta),
                r,
            ));
        }
    }
    discs
}

fn chaotic(rng: &mut Mulberry32) -> Vec<Disc> {
    let want = rng.int_inclusive(1, 4);
    let mut discs: Vec<Disc> = Vec::new();
    for _ in 0..want {
        for _ in 0..CHAOTIC_TRIES {
            let r = rng.range(CHAOTIC_RADIUS.0, CHAOTIC_RADIUS.1);
            let lo = CHAOTIC_MARGIN + r;
            let (x, z) = (rng.range(lo, 1.0 - lo), rng.range(lo, 1.0 - lo));
            let clear = discs.iter().all(|&(ox, oz, or)| {
                let need = r + or + CHAOTIC_GAP;
                (x - ox) * (x - ox) + (z - oz) * (z - oz) >= need * need
            });
            if clear {
                discs.push((x, z, r));
                break;
            }
        }
    }
    discs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::SpokeRule;

    fn cfg(pattern: Pattern) -> LayoutConfig {
        LayoutConfig {
            pattern,
            spokes: SpokeRule::Planar,
            chunk_size: 1000.0,
            cell_size: 10.0,
            seed: 9,
        }
    }

    #[test]
    fn ids_name_chunk_and_index() {
        let hubs = hubs_in_chunk(&cfg(Pattern::Rings), -3, 5);
        assert!(hubs.len() >= 4, "centre plus at least three ring hubs");
        for (i, h) in hubs.iter().enumerate() {
            assert_eq!(h.id, format!("-3,5:{i}"));
            assert_eq!(h.chunk, (-3, 5));
        }
    }

    #[test]
    fn grid_and_zigzag_have_one_hub_and_zigzag_alternates() {
        assert_eq!(hubs_in_chunk(&cfg(Pattern::Grid), 1, 1).len(), 1);
        let even = &hubs_in_chunk(&cfg(Pattern::Zigzag), 0, 2)[0];
        let odd = &hubs_in_chunk(&cfg(Pattern::Zigzag), 0, -1)[0];
        assert!(even.x < 500.0 && odd.x > 500.0, "{} {}", even.x, odd.x);
    }

    #[test]
    fn chaotic_has_one_to_four_hubs() {
        for cx in -20..20 {
            let n = hubs_in_chunk(&cfg(Pattern::Chaotic), cx, 7).len();
            assert!((1..=4).contains(&n), "{n}");
        }
    }
}
