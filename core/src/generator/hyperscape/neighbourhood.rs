//! The heights of 3 x 3 neighbourhoods: a point `(x, z)` and its eight neighbours at
//! `(x - d, x, x + d) x (z - d, z, z + d)`, what a slope at the point reads.
//!
//! Each neighbourhood computes the axis parts of its three x and three z coordinates
//! once, then the procedural height of its nine points four at a time in lanes
//! ([`area::procedural`], any four points; several neighbourhoods share lane groups);
//! the shoreline of a point in its band reads the four neighbours 1 m away, and those
//! that are points of the neighbourhood (the same coordinate bits) reuse the height
//! already computed. Every height has the bits of [`Generator::height`] at the
//! same coordinates (tested).
//!
//! [`Generator::height`]: crate::Generator::height

use super::Hyperscape;
use super::area;
use super::lanes::{self, F4, LANES};
use super::layers::{AxisSet, Half, Sets};
use super::shore;

/// Neighbourhoods per lane pass: 4 x 9 points fill nine lane groups exactly.
const CHUNK: usize = 4;

impl Hyperscape {
    /// The heights of the 3 x 3 neighbourhood of each of `centres` at spacing `d`, into
    /// `out` (one array per centre, `out.len() == centres.len()`): entry `3 * j + i` is
    /// [`crate::Generator::height`] at `(xs[i], zs[j])` with `xs = [x - d, x, x + d]`
    /// and `zs = [z - d, z, z + d]`, bit for bit.
    pub fn neighbourhoods(&self, centres: &[(f64, f64)], d: f64, out: &mut [[f64; 9]]) {
        assert_eq!(centres.len(), out.len(), "one neighbourhood per centre");
        lanes::dispatch(
            #[inline(always)]
            || {
                let whole = centres.len() - centres.len() % CHUNK;
                for (c, o) in centres[..whole]
                    .chunks_exact(CHUNK)
                    .zip(out[..whole].chunks_exact_mut(CHUNK))
                {
                    // 24 coordinates: six lane groups of axis parts.
                    self.neighbourhood_chunk::<CHUNK, 6>(c, d, o);
                }
                for (c, o) in centres[whole..]
                    .chunks_exact(1)
                    .zip(out[whole..].chunks_exact_mut(1))
                {
                    self.neighbourhood_chunk::<1, 2>(c, d, o);
                }
            },
        );
    }

    /// The heights at `pairs` of coordinates: `out[k]` is [`crate::Generator::height`]
    /// at `(xs[i], zs[j])` for `pairs[k] = (i, j)`, bit for bit. The axis parts of
    /// each of `xs` and `zs` are computed once, however many pairs share them (points
    /// of a batch on shared rows and columns: movement-tile centres), and the pairs'
    /// procedural heights four at a time in lanes.
    pub fn heights_at(&self, xs: &[f64], zs: &[f64], pairs: &[(usize, usize)], out: &mut [f64]) {
        assert_eq!(pairs.len(), out.len(), "one height per pair");
        if pairs.is_empty() {
            return;
        }
        lanes::dispatch(
            #[inline(always)]
            || {
                let sets = |cs: &[f64]| -> Vec<AxisSet> {
                    let mut v = vec![AxisSet::default(); cs.len().next_multiple_of(LANES)];
                    let last = cs.len().saturating_sub(1);
                    let (groups, _) = v.as_chunks_mut::<LANES>();
                    for (g, group) in groups.iter_mut().enumerate() {
                        let c = std::array::from_fn(|l| cs[(g * LANES + l).min(last)]);
                        AxisSet::fill_lanes(&self.noise, c, group);
                    }
                    v
                };
                let (xset, zset) = (sets(xs), sets(zs));
                let (groups, rest) = pairs.as_chunks::<LANES>();
                let (outs, rest_out) = out.as_chunks_mut::<LANES>();
                for (lanes, o) in groups.iter().zip(outs.iter_mut()) {
                    let x = F4(lanes.map(|(i, _)| xs[i]));
                    let z = F4(lanes.map(|(_, j)| zs[j]));
                    let parts = area::Parts {
                        xs: lanes.map(|(i, _)| &xset[i]),
                        zs: lanes.map(|(_, j)| &zset[j]),
                    };
                    *o =
                        area::procedural(&self.noise, &self.coast, &self.mountains, x, z, &parts).0;
                }
                for (&(i, j), o) in rest.iter().zip(rest_out.iter_mut()) {
                    *o = self.procedural_axes(xs[i], zs[j], &Sets(&xset[i], &zset[j]));
                }
                for (&(i, j), h) in pairs.iter().zip(out.iter_mut()) {
                    if shore::in_band(*h) {
                        *h = self.shore_axes(*h, xs[i], zs[j], &xset[i], &zset[j]);
                    }
                }
            },
        );
    }

    /// [`Hyperscape::neighbourhoods`] of `N` centres, whose `6 N` coordinates fill `G`
    /// lane groups of axis parts.
    #[inline(always)]
    fn neighbourhood_chunk<const N: usize, const G: usize>(
        &self,
        centres: &[(f64, f64)],
        d: f64,
        out: &mut [[f64; 9]],
    ) {
        debug_assert!(centres.len() == N && out.len() == N && G * LANES >= 6 * N);
        let axes = |c: f64| [c - d, c, c + d];
        let xs: [[f64; 3]; N] = std::array::from_fn(|k| axes(centres[k].0));
        let zs: [[f64; 3]; N] = std::array::from_fn(|k| axes(centres[k].1));
        // Coordinate `6 k + i` is `xs[k][i]`, `6 k + 3 + j` is `zs[k][j]`; spare lanes
        // repeat the last one.
        let coordinate = |s: usize| {
            let (k, r) = ((s / 6).min(N - 1), s % 6);
            if s >= 6 * N {
                zs[N - 1][2]
            } else if r < 3 {
                xs[k][r]
            } else {
                zs[k][r - 3]
            }
        };
        let mut sets = [[AxisSet::default(); LANES]; G];
        for (g, set) in sets.iter_mut().enumerate() {
            let c = std::array::from_fn(|i| coordinate(g * LANES + i));
            AxisSet::fill_lanes(&self.noise, c, set);
        }
        let set = |s: usize| &sets[s / LANES][s % LANES];
        let xset = |k: usize, i: usize| set(6 * k + i);
        let zset = |k: usize, j: usize| set(6 * k + 3 + j);
        // The points in evaluation order: the eight neighbours of each centre, then the
        // centre, so that a lone neighbourhood fills two lane groups and takes its
        // centre on the scalar path.
        const ORDER: [usize; 9] = [0, 1, 2, 3, 5, 6, 7, 8, 4];
        let point = |p: usize| {
            let (k, q) = (p / 9, ORDER[p % 9]);
            (k, q % 3, q / 3)
        };
        let points = 9 * N;
        let whole = points - points % LANES;
        let mut procedural = [[0.0; 9]; N];
        for g in 0..whole / LANES {
            let lanes: [(usize, usize, usize); LANES] =
                std::array::from_fn(|l| point(g * LANES + l));
            let x = F4(lanes.map(|(k, i, _)| xs[k][i]));
            let z = F4(lanes.map(|(k, _, j)| zs[k][j]));
            let parts = area::Parts {
                xs: lanes.map(|(k, i, _)| xset(k, i)),
                zs: lanes.map(|(k, _, j)| zset(k, j)),
            };
            let b = area::procedural(&self.noise, &self.coast, &self.mountains, x, z, &parts);
            for (&(k, i, j), b) in lanes.iter().zip(b.0) {
                procedural[k][3 * j + i] = b;
            }
        }
        for p in whole..points {
            let (k, i, j) = point(p);
            procedural[k][3 * j + i] =
                self.procedural_axes(xs[k][i], zs[k][j], &Sets(xset(k, i), zset(k, j)));
        }
        for k in 0..N {
            let (xs, zs, p) = (&xs[k], &zs[k], &procedural[k]);
            for j in 0..3 {
                for i in 0..3 {
                    let b = p[3 * j + i];
                    out[k][3 * j + i] = if shore::in_band(b) {
                        let (x, z) = (xs[i], zs[j]);
                        shore::computed(b, x, z, |nx, nz| {
                            let same = |a: f64, b: f64| a.to_bits() == b.to_bits();
                            if same(nx, x) {
                                if let Some(jj) = zs.iter().position(|&c| same(c, nz)) {
                                    return p[3 * jj + i];
                                }
                                self.procedural_axes(
                                    nx,
                                    nz,
                                    &Half {
                                        set: xset(k, i),
                                        set_is_x: true,
                                        noise: &self.noise,
                                        c: nz,
                                    },
                                )
                            } else if same(nz, z) {
                                if let Some(ii) = xs.iter().position(|&c| same(c, nx)) {
                                    return p[3 * j + ii];
                                }
                                self.procedural_axes(
                                    nx,
                                    nz,
                                    &Half {
                                        set: zset(k, j),
                                        set_is_x: false,
                                        noise: &self.noise,
                                        c: nx,
                                    },
                                )
                            } else {
                                self.procedural(nx, nz)
                            }
                        })
                    } else {
                        b
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::super::Hyperscape;
    use crate::Generator;

    /// Every neighbourhood height equals the point path's, bit for bit: random points
    /// over the island, its coast (the shoreline band), the pond and far out, several
    /// seeds and spacings, in batches of every length (lane groups shared between
    /// neighbourhoods and a partial last group).
    #[test]
    fn neighbourhoods_equal_the_point_path() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        let mut in_band = 0;
        for seed in [0, 1, 7, 4_000_000_000] {
            let g = Hyperscape::new(seed);
            for round in 0..60 {
                let span: f64 = [900.0, 1200.0, 5000.0, 1e7][round % 4];
                let n = 1 + round % 9;
                let centres: Vec<(f64, f64)> = (0..n)
                    .map(|k| match (round + k) % 5 {
                        // Whole and half metres: the shoreline's neighbours are points
                        // of the neighbourhood.
                        0 => (
                            (rng.random_range(-0.5..0.5) * span).floor() + 0.5,
                            (rng.random_range(-0.5..0.5) * span).floor(),
                        ),
                        // Around the coast, where the band is.
                        1 | 2 => {
                            let a = rng.random_range(0.0..std::f64::consts::TAU);
                            let r = rng.random_range(250.0..450.0);
                            (r * a.cos(), r * a.sin())
                        }
                        _ => (
                            rng.random_range(-0.5..0.5) * span,
                            rng.random_range(-0.5..0.5) * span,
                        ),
                    })
                    .collect();
                for d in [1.0, 0.5, 3.0] {
                    let mut out = vec![[0.0; 9]; n];
                    g.neighbourhoods(&centres, d, &mut out);
                    for (&(x, z), got) in centres.iter().zip(&out) {
                        let (xs, zs) = ([x - d, x, x + d], [z - d, z, z + d]);
                        for j in 0..3 {
                            for i in 0..3 {
                                let want = g.height(xs[i], zs[j]);
                                if want > 6.0 && want < 12.0 {
                                    in_band += 1;
                                }
                                assert_eq!(
                                    got[3 * j + i].to_bits(),
                                    want.to_bits(),
                                    "seed {seed} d {d} ({}, {})",
                                    xs[i],
                                    zs[j]
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(in_band > 500, "{in_band} heights in the shoreline band");
    }

    /// Heights at pairs of shared coordinates equal the point path's, bit for bit:
    /// rows and columns of movement-tile centres and random coordinates across the
    /// coast (the shoreline band), in the pond and far out, several seeds,
    /// pairs in random order with repeats and a partial last lane group.
    #[test]
    fn heights_at_pairs_equal_the_point_path() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x1234_5678_9abc_def1);
        let mut in_band = 0;
        for seed in [0, 7] {
            let g = Hyperscape::new(seed);
            for round in 0..12 {
                let axis = |rng: &mut Xoshiro256PlusPlus, along: bool| -> Vec<f64> {
                    let n = rng.random_range(5..45usize);
                    match round % 3 {
                        // Tile centres across the coast (x from 250 m to 470 m, z
                        // within 20 m of the axis).
                        0 if along => (0..n).map(|k| 250.0 + (k as f64) * 5.0 + 0.5).collect(),
                        0 => (0..n).map(|k| (k as f64) - 19.5).collect(),
                        1 => (0..n)
                            .map(|_| f64::from(rng.random_range(0..1_000_000)) / 1000.0 - 500.0)
                            .collect(),
                        _ => (0..n)
                            .map(|_| f64::from(rng.random_range(0..20_000)) - 10_000.0)
                            .collect(),
                    }
                };
                let (xs, zs) = (axis(&mut rng, true), axis(&mut rng, false));
                let pairs: Vec<(usize, usize)> = (0..(100 + round * 7))
                    .map(|_| (rng.random_range(0..xs.len()), rng.random_range(0..zs.len())))
                    .collect();
                let mut out = vec![0.0; pairs.len()];
                g.heights_at(&xs, &zs, &pairs, &mut out);
                for (&(i, j), got) in pairs.iter().zip(&out) {
                    let want = g.height(xs[i], zs[j]);
                    if super::shore::in_band(g.procedural(xs[i], zs[j])) {
                        in_band += 1;
                    }
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "seed {seed} ({}, {})",
                        xs[i],
                        zs[j]
                    );
                }
            }
        }
        assert!(in_band > 50, "{in_band} heights in the shoreline band");
    }
}
