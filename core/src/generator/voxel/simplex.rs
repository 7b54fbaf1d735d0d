//! 2-D simplex noise, bit for bit the `noise` crate's [`noise::Simplex`] (0.9.0, pinned),
//! without its derivatives, generic vectors and checked casts: the same operations in
//! the same order on the same permutation table, about three times faster.
//!
//! The permutation table is read out of the crate's own [`PermutationTable`] (its hash of
//! one value is the table entry), so the seeding stays the crate's. The crate's cell
//! index is not quite `floor`: a coordinate `<= 0` truncates and subtracts one (so an
//! integer `-n` lands in cell `-n - 1`), which is kept here, as is every `0.0 +` of its
//! vector sums (it decides the sign of a zero).

use noise::permutationtable::{NoiseHasher, PermutationTable};

/// One seeded simplex field.
#[derive(Clone)]
pub(crate) struct Simplex2 {
    perm: [u8; 256],
    /// `(sqrt(3) - 1) / 2`, computed as the crate computes it.
    skew: f64,
    /// `(1 - 1 / sqrt(3)) / 2`, likewise.
    unskew: f64,
}

impl std::fmt::Debug for Simplex2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Simplex2 { .. }")
    }
}

/// An upper bound on the length of the field's gradient anywhere: `|get(p) - get(q)| <=
/// GRADIENT_BOUND * |p - q|` (Euclidean), which the bounds of `super::bounds` build on.
///
/// A point of a simplex sums the surflets of the simplex's three corners (every other
/// corner is at least the simplex's height, `sqrt(1/2)`, away, where a surflet
/// vanishes). `tests::the_gradient_bound_holds` takes the largest gradient over a grid
/// of spacing `h` covering both kinds of simplex, for every choice of the corners'
/// gradients, and adds what the gradient can grow between grid points (three surflets'
/// bound on the second derivative times `h / sqrt 2`): 4.474 at `h = 0.002` (the grid's
/// own largest gradient is 4.349).
pub(crate) const GRADIENT_BOUND: f64 = 4.48;

/// The crate's `grad2`, by index modulo 8.
const DIAG: f64 = std::f64::consts::FRAC_1_SQRT_2;
const GRAD2: [[f64; 2]; 8] = [
    [1.0, 0.0],
    [-1.0, 0.0],
    [0.0, 1.0],
    [0.0, -1.0],
    [DIAG, DIAG],
    [-DIAG, DIAG],
    [DIAG, -DIAG],
    [-DIAG, -DIAG],
];

/// The crate's `floor_to_isize` of one coordinate (without a branch: which side of 0
/// a coordinate falls is as good as random).
#[inline(always)]
fn cell(v: f64) -> isize {
    (v as isize) - isize::from(v <= 0.0)
}

/// The crate's surflet value of a corner at offset `(x, y)` with gradient `gi`. The
/// value is computed either way and then chosen, which compiles to a select rather than
/// a branch that mispredicts about as often as it is taken.
#[inline(always)]
fn surflet(gi: usize, x: f64, y: f64) -> f64 {
    let t = 1.0 - (0.0 + x * x + y * y) * 2.0;
    let g = GRAD2[gi % 8];
    let t2 = t * t;
    let t4 = t2 * t2;
    let v = (2.0 * t2 + t4) * (0.0 + x * g[0] + y * g[1]);
    if t > 0.0 { v } else { 0.0 }
}

impl Simplex2 {
    /// The field `noise::Simplex::new(seed)` evaluates.
    pub fn new(seed: u32) -> Self {
        let table = PermutationTable::new(seed);
        let mut perm = [0u8; 256];
        for (i, p) in perm.iter_mut().enumerate() {
            // A one-value hash is the table's entry at that value.
            *p = table.hash(&[i as isize]) as u8;
        }
        let n = 2.0f64;
        Simplex2 {
            perm,
            skew: ((n + 1.0).sqrt() - 1.0) / n,
            unskew: (1.0 - (1.0 / (n + 1.0).sqrt())) / n,
        }
    }

    #[inline(always)]
    fn hash(&self, i: isize, j: isize) -> usize {
        let a = self.perm[(i & 0xff) as usize] as usize ^ (j & 0xff) as usize;
        self.perm[a] as usize
    }

    /// The noise at `(x, y)`: `noise::Simplex::get([x, y])`, bit for bit.
    #[inline]
    pub fn get(&self, x: f64, y: f64) -> f64 {
        let (f, g) = (self.skew, self.unskew);
        let s = (0.0 + x + y) * f;
        let (i, j) = (cell(x + s), cell(y + s));
        let (fi, fj) = (i as f64, j as f64);
        let u = (0.0 + fi + fj) * g;
        let (x0, y0) = (x - (fi - u), y - (fj - u));
        let oi = isize::from(x0 > y0);
        let oj = 1 - oi;
        let (x1, y1) = ((x0 - oi as f64) + g, (y0 - oj as f64) + g);
        let (x2, y2) = ((x0 - 1.0) + 2.0 * g, (y0 - 1.0) + 2.0 * g);
        let c0 = surflet(self.hash(i, j), x0, y0);
        let c1 = surflet(self.hash(i + oi, j + oj), x1, y1);
        let c2 = surflet(self.hash(i + 1, j + 1), x2, y2);
        c0 + c1 + c2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noise::{NoiseFn, Simplex};

    /// A surflet's kernel `K(t) = 2 t^2 + t^4` of `t = 1 - 2 r^2` and its first two
    /// derivatives in `t`.
    fn kernel(t: f64) -> (f64, f64, f64) {
        let t2 = t * t;
        (2.0 * t2 + t2 * t2, 4.0 * t + 4.0 * t * t2, 4.0 + 12.0 * t2)
    }

    /// An upper bound on the gradient's length of the sum of the surflets of one
    /// simplex's corners, each with any of the eight gradients (see
    /// [`GRADIENT_BOUND`]), from a grid of spacing `h`.
    fn gradient_bound(h: f64) -> (f64, f64, f64) {
        let g = Simplex2::new(0).unskew;
        let mut grid_max = 0.0f64;
        let mut value_max = 0.0f64;
        for c1 in [[1.0 - g, -g], [-g, 1.0 - g]] {
            let corners = [[0.0, 0.0], c1, [1.0 - 2.0 * g, 1.0 - 2.0 * g]];
            let lo = |k: usize| corners.iter().map(|c| c[k]).fold(f64::MAX, f64::min);
            let hi = |k: usize| corners.iter().map(|c| c[k]).fold(f64::MIN, f64::max);
            let n = |k: usize| ((hi(k) - lo(k)) / h).ceil() as usize + 1;
            for iy in 0..n(1) {
                for ix in 0..n(0) {
                    let p = [lo(0) + ix as f64 * h, lo(1) + iy as f64 * h];
                    // Each corner's surflet gradient for each of the eight gradients:
                    // K(t) g - 4 K'(t) (g . d) d.
                    let mut v = [[[0.0f64; 2]; 8]; 3];
                    let mut value = 0.0;
                    for (vk, c) in v.iter_mut().zip(&corners) {
                        let d = [p[0] - c[0], p[1] - c[1]];
                        let t = 1.0 - 2.0 * (d[0] * d[0] + d[1] * d[1]);
                        if t <= 0.0 {
                            continue;
                        }
                        let (k0, k1, _) = kernel(t);
                        let phi_max = GRAD2
                            .iter()
                            .map(|gr| (gr[0] * d[0] + gr[1] * d[1]).abs())
                            .fold(0.0, f64::max);
                        value += k0 * phi_max;
                        for (vg, gr) in vk.iter_mut().zip(&GRAD2) {
                            let phi = gr[0] * d[0] + gr[1] * d[1];
                            *vg = [
                                k0 * gr[0] - 4.0 * k1 * phi * d[0],
                                k0 * gr[1] - 4.0 * k1 * phi * d[1],
                            ];
                        }
                    }
                    value_max = value_max.max(value);
                    for a in &v[0] {
                        for b in &v[1] {
                            for c in &v[2] {
                                let s = [a[0] + b[0] + c[0], a[1] + b[1] + c[1]];
                                grid_max = grid_max.max(s[0] * s[0] + s[1] * s[1]);
                            }
                        }
                    }
                }
            }
        }
        // A surflet's second derivative is at most 16 K'' r^3 + 12 K' r (|g| = 1,
        // |g . d| <= r), bounded on each of many intervals of r by K', K'' at the
        // interval's smallest r (both fall as r grows) and r at its largest.
        let steps = 20_000;
        let r_max = std::f64::consts::FRAC_1_SQRT_2;
        let second = (0..steps)
            .map(|i| {
                let (ra, rb) = (
                    r_max * i as f64 / steps as f64,
                    r_max * (i + 1) as f64 / steps as f64,
                );
                let (_, k1, k2) = kernel(1.0 - 2.0 * ra * ra);
                16.0 * k2 * rb * rb * rb + 12.0 * k1 * rb
            })
            .fold(0.0, f64::max);
        let grid_max = grid_max.sqrt();
        // Every point of a simplex is within h / sqrt 2 of a grid point of its box.
        let value = value_max + GRADIENT_BOUND * h * r_max + 1e-9;
        (grid_max, grid_max + 3.0 * second * h * r_max + 1e-9, value)
    }

    #[test]
    fn the_gradient_bound_holds() {
        let (grid, bound, value) = gradient_bound(0.002);
        assert!(bound <= GRADIENT_BOUND, "bound {bound}");
        // The field's magnitude stays under 1 (0.996), which the biome dither's
        // bound of 0.45 times it (under half a heat step) rests on.
        assert!(value < 1.0, "value {value}");
        // The bound is close to what the field reaches: a looser one would make the
        // bounds of `bounds` prove less.
        assert!(grid > 4.3, "grid {grid}");
        // And the field never climbs faster between two close points.
        let f = Simplex2::new(7);
        let mut state = 1u64;
        let mut next = || {
            state = crate::generator::voxel::field::mix(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut steepest = 0.0f64;
        for _ in 0..200_000 {
            let (x, y) = (next() * 64.0 - 32.0, next() * 64.0 - 32.0);
            let a = next() * std::f64::consts::TAU;
            let e = 1e-4;
            let (dx, dy) = (e * libm::cos(a), e * libm::sin(a));
            let slope = (f.get(x + dx, y + dy) - f.get(x, y)).abs() / e;
            steepest = steepest.max(slope);
        }
        assert!(steepest <= GRADIENT_BOUND, "{steepest}");
        assert!(steepest > 3.0, "{steepest}");
    }

    #[test]
    fn agrees_with_the_noise_crate_bit_for_bit() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state = crate::generator::voxel::field::mix(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
            state
        };
        for seed in [0u32, 1, 7, 0xdead_beef] {
            let ours = Simplex2::new(seed);
            let theirs = Simplex::new(seed);
            let check = |x: f64, y: f64| {
                let (a, b) = (ours.get(x, y), theirs.get([x, y]));
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "seed {seed} at ({x}, {y}): {a} vs {b}"
                );
            };
            // Integers, halves and zeros (the cell quirk at <= 0, signed zeros).
            for i in -40..40 {
                for j in -40..40 {
                    check(f64::from(i) * 0.5, f64::from(j) * 0.5);
                }
            }
            check(-0.0, 0.0);
            check(0.0, -0.0);
            for _ in 0..200_000 {
                let r = next();
                let scale = [1e-3, 1.0, 100.0, 1e5, 3e7][(r % 5) as usize];
                let x = ((next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * scale;
                let y = ((next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * scale;
                check(x, y);
            }
        }
    }
}
