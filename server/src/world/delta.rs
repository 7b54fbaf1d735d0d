//! How much a mutation moved the ground: heights sampled over the changed area
//! before and after it, so an event can say how far entities standing there must be
//! re-snapped.

use terrain_core::{Terrain, zones::Bounds};

/// Largest spacing between samples, in metres.
const SPACING: f64 = 0.5;
/// Most samples along one axis (large zones are sampled more coarsely).
const MAX_PER_AXIS: usize = 65;

/// A grid of sample points over an area: both edges included, at most
/// `SPACING` apart unless the area is wider than `SPACING * (MAX_PER_AXIS - 1)`.
#[derive(Debug, Clone)]
pub struct Probe {
    xs: Vec<f64>,
    zs: Vec<f64>,
}

fn axis(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(0.0);
    let n = ((span / SPACING).ceil() as usize + 1).clamp(2, MAX_PER_AXIS);
    (0..n)
        .map(|i| lo + span * (i as f64 / (n - 1) as f64))
        .collect()
}

/// A probe's sampling of the ground before a change: its heights, and the zone-free
/// ground under them, which the sampling after the change reuses (a change moves
/// zones only, so the generator's pass over the probe is made once).
#[derive(Debug, Clone)]
pub struct Sampled {
    ground: Vec<f64>,
    procedural: Vec<f64>,
    heights: Vec<f64>,
}

impl Probe {
    pub fn over(bounds: &Bounds) -> Self {
        Probe {
            xs: axis(bounds.min_x, bounds.max_x),
            zs: axis(bounds.min_z, bounds.max_z),
        }
    }

    /// The heights of `terrain` at the probe's points, with the ground under them.
    ///
    /// On the calling thread (the world's follower): at most 65 x 65 points, 2-8 ms
    /// on the slowest generator. Sampling a large probe on threads spawned for it cost
    /// each of them a fresh allocator arena, which stayed resident (about 0.3-0.6 MB
    /// per largest zone on a voxel world, `scripts/zone-rss.py`).
    pub fn sample(&self, terrain: &Terrain) -> Sampled {
        let n = self.xs.len() * self.zs.len();
        let (mut ground, mut procedural, mut heights) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        terrain.fill_axes_ground(&self.xs, &self.zs, &mut ground, &mut procedural);
        terrain.fill_axes_on_ground(&self.xs, &self.zs, &ground, &procedural, &mut heights);
        Sampled {
            ground,
            procedural,
            heights,
        }
    }

    /// The largest height change between `before` (this probe's sampling of the
    /// world before a change) and `after` (the world's terrain with the change).
    pub fn delta(&self, before: &Sampled, after: &Terrain) -> f64 {
        let mut heights = vec![0.0; before.heights.len()];
        after.fill_axes_on_ground(
            &self.xs,
            &self.zs,
            &before.ground,
            &before.procedural,
            &mut heights,
        );
        max_delta(&before.heights, &heights)
    }
}

/// The largest absolute difference between two samplings of the same probe.
pub fn max_delta(before: &[f64], after: &[f64]) -> f64 {
    before
        .iter()
        .zip(after)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

/// The smallest rectangle holding every one of `bounds`, grown by `margin`.
pub fn union(bounds: impl IntoIterator<Item = Bounds>, margin: f64) -> Option<Bounds> {
    bounds
        .into_iter()
        .reduce(|a, b| Bounds {
            min_x: a.min_x.min(b.min_x),
            min_z: a.min_z.min(b.min_z),
            max_x: a.max_x.max(b.max_x),
            max_z: a.max_z.max(b.max_z),
        })
        .map(|b| Bounds {
            min_x: b.min_x - margin,
            min_z: b.min_z - margin,
            max_x: b.max_x + margin,
            max_z: b.max_z + margin,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_include_both_edges_and_cap_their_size() {
        let p = Probe::over(&Bounds {
            min_x: -1.0,
            min_z: 2.0,
            max_x: 1.0,
            max_z: 2.0,
        });
        assert_eq!(p.xs, [-1.0, -0.5, 0.0, 0.5, 1.0]);
        assert_eq!(p.zs.len(), 2);
        let big = Probe::over(&Bounds {
            min_x: 0.0,
            min_z: 0.0,
            max_x: 10_000.0,
            max_z: 1.0,
        });
        assert_eq!(big.xs.len(), MAX_PER_AXIS);
        assert_eq!(*big.xs.last().unwrap(), 10_000.0);
    }

    /// A probe sampled on a shared ground measures what sampling the two terrains
    /// whole would, small and large (capped) alike.
    #[test]
    fn a_probe_measures_the_change_of_sampling_both_terrains_whole() {
        use terrain_core::{
            Generator, GeneratorKind, WorldGenerator,
            zones::{Overlap, ZoneSet},
        };
        let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
        let mut zones = ZoneSet::new(Overlap::Layered, generator.tile_size());
        let before = Terrain::new(generator.clone(), zones.clone());
        zones.insert(crate::test_support::square_zone(40.0), 1);
        let after = Terrain::new(generator, zones);
        for width in [6.0, 15.0, 300.0] {
            let probe = Probe::over(&Bounds {
                min_x: 40.0 - width,
                min_z: -width,
                max_x: 40.0 + width,
                max_z: width,
            });
            let n = probe.xs.len() * probe.zs.len();
            let whole = |t: &Terrain| {
                let mut out = vec![0.0; n];
                t.fill_axes(&probe.xs, &probe.zs, &mut out);
                out
            };
            let sampled = probe.sample(&before);
            assert_eq!(sampled.heights, whole(&before), "width {width}");
            let want = max_delta(&whole(&before), &whole(&after));
            assert!(
                want > 0.5,
                "width {width}: the zone moves the ground ({want})"
            );
            assert_eq!(
                probe.delta(&sampled, &after).to_bits(),
                want.to_bits(),
                "width {width}"
            );
            assert_eq!(probe.delta(&sampled, &before), 0.0);
        }
    }

    #[test]
    fn delta_is_the_largest_change() {
        assert_eq!(max_delta(&[1.0, 2.0, 3.0], &[1.5, 0.0, 3.0]), 2.0);
        let u = union(
            [
                Bounds {
                    min_x: 0.0,
                    min_z: 0.0,
                    max_x: 1.0,
                    max_z: 1.0,
                },
                Bounds {
                    min_x: -3.0,
                    min_z: 0.5,
                    max_x: 0.5,
                    max_z: 4.0,
                },
            ],
            1.0,
        );
        assert_eq!(
            u,
            Some(Bounds {
                min_x: -4.0,
                min_z: -1.0,
                max_x: 2.0,
                max_z: 5.0
            })
        );
    }
}
