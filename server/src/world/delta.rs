//! How much a mutation moved the ground: heights sampled over the changed area
//! before and after it, so an event can say how far entities standing there must be
//! re-snapped.

use terrain_core::{Generator, Terrain, zones::Bounds};

/// Largest spacing between samples, in metres.
const SPACING: f64 = 0.5;
/// Most samples along one axis (large zones are sampled more coarsely).
const MAX_PER_AXIS: usize = 129;

/// A grid of sample points over an area: both edges included, at most
/// [`SPACING`] apart unless the area is wider than `SPACING * (MAX_PER_AXIS - 1)`.
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

impl Probe {
    pub fn over(bounds: &Bounds) -> Self {
        Probe {
            xs: axis(bounds.min_x, bounds.max_x),
            zs: axis(bounds.min_z, bounds.max_z),
        }
    }

    /// The heights of `terrain` at the probe's points.
    pub fn sample(&self, terrain: &Terrain) -> Vec<f64> {
        let mut out = vec![0.0; self.xs.len() * self.zs.len()];
        terrain.fill_axes(&self.xs, &self.zs, &mut out);
        out
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
