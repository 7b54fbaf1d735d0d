//! The seeded noise primitives of the Hyperscape terrain (docs/src/reference/height.md, "The seeded permutation" and "Noise primitives"): the
//! permutation table, 2-D Perlin, simplex, ridge, fractal and erosion noise.
//!
//! Perlin is split into an axis part ([`Axis`]: lattice index, fraction and fade of one
//! coordinate) and a core that combines two axis parts. The per-point path builds both
//! parts on the spot; the area path precomputes them once per grid column and row.
//! Both run the same core, so they agree bit for bit.
//!
//! Square roots here are `f64::sqrt`, not `libm::sqrt`: the same IEEE, correctly
//! rounded bits (the lanes' test checks them against each other), but `libm::sqrt`
//! on x86-64 is an inline-assembly legacy-SSE `sqrtsd`, which in the code
//! `lanes::dispatch` compiles for AVX2 mixes SSE with dirty 256-bit registers (a
//! transition stall the compiler cannot avoid around assembly); `f64::sqrt` becomes
//! `vsqrtsd` there. The same holds in `layers` and `biome`.

use super::lanes::{F4, LANES};

/// The LCG both the permutation shuffle and the biome draws use.
pub(crate) fn lcg(r: u64) -> u64 {
    (r * 1_664_525 + 1_013_904_223) % (1 << 32)
}

/// `floor(v)` as an f64, and its value modulo 256 (the lattice cell, `wrap` of §0).
/// Exact for |v| < 2^63, far beyond any coordinate the layers see; beyond it (and for
/// NaN) the cast saturates and the step down wraps, so no input panics.
#[inline(always)]
fn floor_parts(v: f64) -> (usize, f64) {
    let t = v as i64;
    let tf = t as f64;
    let (i, f) = if tf > v {
        (t.wrapping_sub(1), tf - 1.0)
    } else {
        (t, tf)
    };
    ((i & 255) as usize, f)
}

/// `((t*t)*t) * ((t*((t*6) - 15)) + 10)`: Perlin's quintic fade.
#[inline(always)]
fn fade(t: f64) -> f64 {
    ((t * t) * t) * ((t * ((t * 6.0) - 15.0)) + 10.0)
}

/// `a + t*(b - a)`.
#[inline(always)]
fn lerp(t: f64, a: f64, b: f64) -> f64 {
    a + t * (b - a)
}

/// [`lerp`] per lane.
#[inline(always)]
fn lerp_lanes(t: F4, a: F4, b: F4) -> F4 {
    a + t * (b - a)
}

/// Gradient signs for `h mod 4`: (+1,+1), (-1,+1), (-1,+1), (-1,-1). Multiplying by
/// +-1 is exact, so `sx*a + sy*b` equals the reference's branchy `a+b`, `b-a`, `-(a+b)`.
const GRAD_X: [f64; 4] = [1.0, -1.0, -1.0, -1.0];
const GRAD_Y: [f64; 4] = [1.0, 1.0, 1.0, -1.0];

/// Simplex gradients (first two components of the 3-D table), indexed `mod 12`.
const GRAD3: [(f64, f64); 12] = [
    (1.0, 1.0),
    (-1.0, 1.0),
    (1.0, -1.0),
    (-1.0, -1.0),
    (1.0, 0.0),
    (-1.0, 0.0),
    (1.0, 0.0),
    (-1.0, 0.0),
    (0.0, 1.0),
    (0.0, -1.0),
    (0.0, 1.0),
    (0.0, -1.0),
];

/// One coordinate's share of a Perlin evaluation: everything that depends on that
/// coordinate alone.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Axis {
    /// `wrap(floor(c))`, in 0..=255.
    cell: u16,
    /// `p[cell]` and `p[cell + 1]`: the first hash step when this is the x axis,
    /// hoisted here so a grid looks them up once per column.
    hashed: [u16; 2],
    /// `c - floor(c)`, in [0, 1).
    frac: f64,
    /// `fade(frac)`.
    fade: f64,
}

impl Axis {
    #[inline(always)]
    fn new(noise: &Noise, c: f64) -> Self {
        let (cell, f) = floor_parts(c);
        let frac = c - f;
        Axis {
            cell: cell as u16,
            hashed: [noise.p(cell) as u16, noise.p(cell + 1) as u16],
            frac,
            fade: fade(frac),
        }
    }
}

/// The seeded permutation table and the noise functions that read it.
#[derive(Clone)]
pub struct Noise {
    /// The 256-entry permutation, duplicated to 512 entries.
    p: [u8; 512],
}

impl std::fmt::Debug for Noise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Noise")
            .field("perm", &&self.p[..8])
            .finish_non_exhaustive()
    }
}

impl Noise {
    /// The table of §1.2: a Fisher-Yates shuffle driven by the LCG from `seed`.
    pub fn new(seed: u32) -> Self {
        let mut perm: [u8; 256] = std::array::from_fn(|k| k as u8);
        let mut r = u64::from(seed);
        for i in (1..=255usize).rev() {
            r = lcg(r);
            let j = ((r * (i as u64 + 1)) >> 32) as usize;
            perm.swap(i, j);
        }
        let p = std::array::from_fn(|k| perm[k & 255]);
        Noise { p }
    }

    /// The 256-entry permutation (`perm` of §1.2).
    pub fn permutation(&self) -> [u8; 256] {
        std::array::from_fn(|k| self.p[k])
    }

    #[inline(always)]
    fn p(&self, i: usize) -> usize {
        usize::from(self.p[i & 511])
    }

    /// The axis part of coordinate `c` for [`Noise::perlin_axes`].
    #[inline(always)]
    pub(crate) fn axis(&self, c: f64) -> Axis {
        Axis::new(self, c)
    }

    /// [`Noise::axis`] of four coordinates, lane by lane: the lattice cells per lane,
    /// the fractions and fades on the lanes (the same operations in the same order).
    #[inline(always)]
    pub(crate) fn axes_lanes(&self, c: F4) -> [Axis; LANES] {
        let parts = c.0.map(floor_parts);
        let frac = c - F4(parts.map(|(_, f)| f));
        let t = frac;
        let fade = ((t * t) * t) * ((t * ((t * 6.0) - 15.0)) + 10.0);
        std::array::from_fn(|i| {
            let cell = parts[i].0;
            Axis {
                cell: cell as u16,
                hashed: [self.p(cell) as u16, self.p(cell + 1) as u16],
                frac: frac.0[i],
                fade: fade.0[i],
            }
        })
    }

    /// `perlin(x, y)` of §2.1, in [-1, 1].
    #[inline]
    pub fn perlin(&self, x: f64, y: f64) -> f64 {
        self.perlin_axes(self.axis(x), self.axis(y))
    }

    /// Perlin from precomputed axis parts: the shared core of both paths.
    #[inline(always)]
    pub(crate) fn perlin_axes(&self, ax: Axis, ay: Axis) -> f64 {
        let a = usize::from(ax.hashed[0]) + usize::from(ay.cell);
        let b = usize::from(ax.hashed[1]) + usize::from(ay.cell);
        let h00 = self.p(self.p(a)) & 3;
        let h01 = self.p(self.p(a + 1)) & 3;
        let h10 = self.p(self.p(b)) & 3;
        let h11 = self.p(self.p(b + 1)) & 3;
        let (fx, fy) = (ax.frac, ay.frac);
        let (fx1, fy1) = (fx - 1.0, fy - 1.0);
        let n00 = GRAD_X[h00] * fx + GRAD_Y[h00] * fy;
        let n10 = GRAD_X[h10] * fx1 + GRAD_Y[h10] * fy;
        let n01 = GRAD_X[h01] * fx + GRAD_Y[h01] * fy1;
        let n11 = GRAD_X[h11] * fx1 + GRAD_Y[h11] * fy1;
        let r = lerp(ay.fade, lerp(ax.fade, n00, n10), lerp(ax.fade, n01, n11));
        r.clamp(-1.0, 1.0)
    }

    /// [`Noise::perlin_axes`] for four (x part, y part) pairs, lane by lane: the hashes
    /// per lane, then the same float operations in the same order on the lanes.
    #[inline(always)]
    pub(crate) fn perlin_lanes(&self, ax: [Axis; LANES], ay: [Axis; LANES]) -> F4 {
        // Gradient signs of the four corners, x and y component, per lane.
        let mut g = [[0.0f64; LANES]; 8];
        // Neighbouring points often share their lattice cell: a lane whose hash inputs
        // equal the previous lane's takes its corner hashes.
        let mut last = (u64::MAX, [0; 4]);
        for (i, (a, b)) in ax.iter().zip(&ay).enumerate() {
            let key =
                u64::from(a.hashed[0]) | u64::from(a.hashed[1]) << 16 | u64::from(b.cell) << 32;
            if key != last.0 {
                let l = usize::from(a.hashed[0]) + usize::from(b.cell);
                let r = usize::from(a.hashed[1]) + usize::from(b.cell);
                let h00 = self.p(self.p(l)) & 3;
                let h01 = self.p(self.p(l + 1)) & 3;
                let h10 = self.p(self.p(r)) & 3;
                let h11 = self.p(self.p(r + 1)) & 3;
                last = (key, [h00, h10, h01, h11]);
            }
            for (k, h) in last.1.into_iter().enumerate() {
                g[2 * k][i] = GRAD_X[h];
                g[2 * k + 1][i] = GRAD_Y[h];
            }
        }
        let fx = F4(ax.map(|a| a.frac));
        let fy = F4(ay.map(|a| a.frac));
        let (fx1, fy1) = (fx - 1.0, fy - 1.0);
        let n00 = F4(g[0]) * fx + F4(g[1]) * fy;
        let n10 = F4(g[2]) * fx1 + F4(g[3]) * fy;
        let n01 = F4(g[4]) * fx + F4(g[5]) * fy1;
        let n11 = F4(g[6]) * fx1 + F4(g[7]) * fy1;
        let u = F4(ax.map(|a| a.fade));
        let v = F4(ay.map(|a| a.fade));
        let r = lerp_lanes(v, lerp_lanes(u, n00, n10), lerp_lanes(u, n01, n11));
        r.clamp(-1.0, 1.0)
    }

    /// `ridge(x, y) = 1 - |perlin(x, y)|` of §2.3, in [0, 1].
    pub fn ridge(&self, x: f64, y: f64) -> f64 {
        1.0 - self.perlin(x, y).abs()
    }

    /// `fractal(x, y, octaves, persistence, lacunarity)` of §2.4.
    pub fn fractal(&self, x: f64, y: f64, octaves: u32, persistence: f64, lacunarity: f64) -> f64 {
        let (mut value, mut amp, mut freq, mut norm) = (0.0, 1.0, 1.0, 0.0);
        for _ in 0..octaves {
            value += self.perlin(x * freq, y * freq) * amp;
            norm += amp;
            amp *= persistence;
            freq *= lacunarity;
        }
        value / norm
    }

    /// `erosion(x, y, iterations)` of §2.5.
    pub fn erosion(&self, x: f64, y: f64, iterations: u32) -> f64 {
        let h = self.fractal(x, y, 6, 0.5, 2.0);
        let e = erosion_factor(
            self.perlin(x, y),
            self.perlin(x + EROSION_STEP, y),
            self.perlin(x, y + EROSION_STEP),
        );
        erode(h, e, iterations)
    }

    /// `simplex(x, y)` of §2.2, roughly in [-1, 1] (never beyond +-2.8, the island mask's `SIMPLEX_BOUND`).
    pub fn simplex(&self, x: f64, y: f64) -> f64 {
        let sqrt3 = 3.0f64.sqrt();
        let f2 = 0.5 * (sqrt3 - 1.0);
        let g2 = (3.0 - sqrt3) / 6.0;
        let s = (x + y) * f2;
        let (ii, fi) = floor_parts(x + s);
        let (jj, fj) = floor_parts(y + s);
        let t = (fi + fj) * g2;
        let x0 = x - (fi - t);
        let y0 = y - (fj - t);
        let (i1, j1) = if x0 > y0 { (1, 0) } else { (0, 1) };
        let x1 = (x0 - i1 as f64) + g2;
        let y1 = (y0 - j1 as f64) + g2;
        let x2 = (x0 - 1.0) + 2.0 * g2;
        let y2 = (y0 - 1.0) + 2.0 * g2;
        let gi0 = self.p(ii + self.p(jj)) % 12;
        let gi1 = self.p(ii + i1 + self.p(jj + j1)) % 12;
        let gi2 = self.p(ii + 1 + self.p(jj + 1)) % 12;
        let n0 = simplex_corner(gi0, x0, y0);
        let n1 = simplex_corner(gi1, x1, y1);
        let n2 = simplex_corner(gi2, x2, y2);
        70.0 * ((n0 + n1) + n2)
    }
}

/// One simplex corner's contribution, step 8 of §2.2.
#[inline(always)]
fn simplex_corner(gi: usize, x: f64, y: f64) -> f64 {
    let t = (0.5 - x * x) - y * y;
    if t < 0.0 {
        return 0.0;
    }
    let q = t * t;
    let (gx, gy) = GRAD3[gi];
    (q * q) * (gx * x + gy * y)
}

/// The forward-difference step of the erosion slope.
pub(crate) const EROSION_STEP: f64 = 0.01;

/// Largest |simplex| (the analytic bound is 2.73;
/// `simplex_stays_within_the_bound_the_island_mask_relies_on`).
pub(super) const SIMPLEX_BOUND: f64 = 2.8;

/// `e = min(1, |grad perlin| * 2)` from the perlin values at the point and one step
/// along each axis (§2.5 step 2).
#[inline(always)]
pub(crate) fn erosion_factor(c: f64, ex: f64, ez: f64) -> f64 {
    let gx = (ex - c) / EROSION_STEP;
    let gz = (ez - c) / EROSION_STEP;
    let mag = (gx * gx + gz * gz).sqrt();
    f64::min(1.0, mag * 2.0)
}

/// `h * (1 - e*0.1)`, `iterations` times, by repeated multiplication (§2.5 step 3).
#[inline(always)]
pub(crate) fn erode(mut h: f64, e: f64, iterations: u32) -> f64 {
    for _ in 0..iterations {
        h *= 1.0 - e * 0.1;
    }
    h
}

/// [`erosion_factor`] per lane.
#[inline(always)]
pub(crate) fn erosion_factor_lanes(c: F4, ex: F4, ez: F4) -> F4 {
    let gx = (ex - c) / EROSION_STEP;
    let gz = (ez - c) / EROSION_STEP;
    let mag = (gx * gx + gz * gz).sqrt();
    F4::splat(1.0).min(mag * 2.0)
}

/// [`erode`] per lane.
#[inline(always)]
pub(crate) fn erode_lanes(mut h: F4, e: F4, iterations: u32) -> F4 {
    for _ in 0..iterations {
        h = h * (1.0 - e * 0.1);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed0_permutation_starts_as_the_reference() {
        let perm = Noise::new(0).permutation();
        assert_eq!(&perm[..6], &[98, 207, 39, 224, 179, 150]);
    }

    #[test]
    fn floor_parts_matches_floor_and_wrap() {
        let mut values = vec![
            -2.5, -1.0, -0.0, 0.0, 0.3, 0.5, 1.5, 2.5, -0.5, 1.0, 7.999, -1e-300, 1e-300,
        ];
        values.extend([
            1e15 + 0.5,
            -1e15 - 0.5,
            2f64.powi(51) - 0.5,
            -(2f64.powi(51) - 0.5),
        ]);
        values.extend([
            2f64.powi(51),
            -(2f64.powi(51)),
            2f64.powi(51) + 256.0,
            3e17 + 3.0,
            -3e17 - 515.0,
        ]);
        values.extend((0..2000).map(|i| (i as f64 - 1000.0) * 0.37));
        values.extend([255.99999999999997, 256.0, -256.0, -255.5, -257.25]);
        for v in values {
            let (cell, f) = floor_parts(v);
            let want = libm::floor(v);
            assert_eq!(f, want, "floor {v}");
            assert_eq!(cell as i64, (want as i64).rem_euclid(256), "wrap {v}");
        }
    }

    #[test]
    fn perlin_is_zero_on_lattice_points_and_bounded() {
        let n = Noise::new(0);
        assert_eq!(n.perlin(3.0, -7.0), 0.0);
        let mut max: f64 = 0.0;
        for i in 0..2000 {
            let v = n.perlin(i as f64 * 0.137 - 50.0, i as f64 * 0.291 - 80.0);
            max = max.max(v.abs());
        }
        assert!(max > 0.3 && max <= 1.0, "{max}");
    }

    #[test]
    fn simplex_stays_within_the_bound_the_island_mask_relies_on() {
        let n = Noise::new(7);
        for i in 0..20000 {
            let v = n.simplex(i as f64 * 0.0731 - 300.0, i as f64 * 0.0517 + 11.0);
            assert!(v.abs() <= SIMPLEX_BOUND, "{v}");
        }
    }
}
