//! The Hyperscape height written plainly, straight from the operations of the height
//! algorithm (docs/src/reference/height.md) in their
//! written order: one point at a time, no precomputed parts, no lanes, no shortcuts.
//! Slow and obvious on purpose: the tests hold every fast path of the core to it, bit
//! for bit, over random seeds and points.

#![allow(dead_code)]

use libm::{atan2, exp, floor, sqrt};
use terrain_core::jsmath::{cos, pow, sin};

/// The seeded permutation table, duplicated to 512 entries (§1).
pub struct Plain {
    p: [usize; 512],
    seed: u32,
}

fn clamp(v: f64, lo: f64, hi: f64) -> f64 {
    f64::max(lo, f64::min(hi, v))
}

fn wrap(n: f64) -> usize {
    (n as i64).rem_euclid(256) as usize
}

fn smooth(t: f64) -> f64 {
    (t * t) * (3.0 - (2.0 * t))
}

fn fade(t: f64) -> f64 {
    ((t * t) * t) * ((t * ((t * 6.0) - 15.0)) + 10.0)
}

fn lerp(t: f64, a: f64, b: f64) -> f64 {
    a + t * (b - a)
}

fn grad(h: usize, a: f64, b: f64) -> f64 {
    match h % 4 {
        0 => a + b,
        1 | 2 => b - a,
        _ => -(a + b),
    }
}

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

/// A biome centre (§4.1): position, whether it is a mountain, influence.
pub struct Centre {
    pub x: f64,
    pub z: f64,
    pub mountain: bool,
    pub influence: f64,
}

impl Plain {
    pub fn new(seed: u32) -> Self {
        let mut perm: [usize; 256] = std::array::from_fn(|k| k);
        let mut r = u64::from(seed);
        for i in (1..=255usize).rev() {
            r = (r * 1_664_525 + 1_013_904_223) % (1u64 << 32);
            let j = ((r * (i as u64 + 1)) >> 32) as usize;
            perm.swap(i, j);
        }
        Plain {
            p: std::array::from_fn(|k| perm[k % 256]),
            seed,
        }
    }

    /// §2.1.
    pub fn perlin(&self, x: f64, y: f64) -> f64 {
        let p = &self.p;
        let (xf0, yf0) = (floor(x), floor(y));
        let (xi, yi) = (wrap(xf0), wrap(yf0));
        let (fx, fy) = (x - xf0, y - yf0);
        let (u, v) = (fade(fx), fade(fy));
        let a = p[xi] + yi;
        let b = p[xi + 1] + yi;
        let h00 = p[p[a]];
        let h01 = p[p[a + 1]];
        let h10 = p[p[b]];
        let h11 = p[p[b + 1]];
        let n00 = grad(h00, fx, fy);
        let n10 = grad(h10, fx - 1.0, fy);
        let n01 = grad(h01, fx, fy - 1.0);
        let n11 = grad(h11, fx - 1.0, fy - 1.0);
        let r = lerp(v, lerp(u, n00, n10), lerp(u, n01, n11));
        clamp(r, -1.0, 1.0)
    }

    /// §2.2.
    pub fn simplex(&self, x: f64, y: f64) -> f64 {
        let p = &self.p;
        let f2 = 0.5 * (sqrt(3.0) - 1.0);
        let g2 = (3.0 - sqrt(3.0)) / 6.0;
        let s = (x + y) * f2;
        let i = floor(x + s);
        let j = floor(y + s);
        let t = (i + j) * g2;
        let x0 = x - (i - t);
        let y0 = y - (j - t);
        let (i1, j1) = if x0 > y0 { (1.0, 0.0) } else { (0.0, 1.0) };
        let x1 = (x0 - i1) + g2;
        let y1 = (y0 - j1) + g2;
        let x2 = (x0 - 1.0) + 2.0 * g2;
        let y2 = (y0 - 1.0) + 2.0 * g2;
        let (ii, jj) = (wrap(i), wrap(j));
        let (di, dj) = (i1 as usize, j1 as usize);
        let gi0 = p[ii + p[jj]] % 12;
        let gi1 = p[ii + di + p[jj + dj]] % 12;
        let gi2 = p[ii + 1 + p[jj + 1]] % 12;
        let corner = |g: usize, xk: f64, yk: f64| {
            let tk = (0.5 - xk * xk) - yk * yk;
            if tk < 0.0 {
                0.0
            } else {
                let q = tk * tk;
                let (gx, gy) = GRAD3[g];
                (q * q) * (gx * xk + gy * yk)
            }
        };
        let n0 = corner(gi0, x0, y0);
        let n1 = corner(gi1, x1, y1);
        let n2 = corner(gi2, x2, y2);
        70.0 * ((n0 + n1) + n2)
    }

    /// §2.3.
    pub fn ridge(&self, x: f64, y: f64) -> f64 {
        1.0 - clamp(self.perlin(x, y), -1.0, 1.0).abs()
    }

    /// §2.4.
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

    /// §2.5.
    pub fn erosion(&self, x: f64, y: f64, iterations: u32) -> f64 {
        let mut h = self.fractal(x, y, 6, 0.5, 2.0);
        let d = 0.01;
        let c = self.perlin(x, y);
        let ex = self.perlin(x + d, y);
        let ez = self.perlin(x, y + d);
        let gx = (ex - c) / d;
        let gz = (ez - c) / d;
        let mag = sqrt(gx * gx + gz * gz);
        let e = f64::min(1.0, mag * 2.0);
        for _ in 0..iterations {
            h *= 1.0 - e * 0.1;
        }
        h
    }

    /// The layers and curve of §3.1-3.2.
    pub fn layers(&self, x: f64, z: f64) -> f64 {
        pow(self.layers_pre(x, z), 1.1)
    }

    /// §3.1-3.2 before the power.
    pub fn layers_pre(&self, x: f64, z: f64) -> f64 {
        let mut h = 0.0;
        h += self.fractal(x * 0.0008, z * 0.0008, 5, 0.7, 2.0) * 0.35;
        h += self.ridge(x * 0.003, z * 0.003) * 0.15;
        h += self.fractal(x * 0.02, z * 0.02, 4, 0.6, 2.2) * 0.25;
        h += self.erosion(x * 0.005, z * 0.005, 3) * 0.1;
        h += self.fractal(x * 0.04, z * 0.04, 2, 0.3, 2.5) * 0.08;
        h = (h + 1.0) * 0.5;
        clamp(h, 0.0, 1.0)
    }

    /// The island mask of §3.3.
    pub fn mask(&self, x: f64, z: f64) -> f64 {
        let dist = sqrt(x * x + z * z);
        let ang = atan2(z, x);
        let cx = cos(ang) * 2.0;
        let cz = sin(ang) * 2.0;
        let c1 = self.fractal(cx, cz, 3, 0.5, 2.0);
        let c2 = self.fractal(cx * 3.0, cz * 3.0, 2, 0.5, 2.0);
        let c3 = self.simplex(cx * 8.0, cz * 8.0);
        let var = (c1 * 0.2 + c2 * 0.08) + c3 * 0.02;
        let r = 350.0 * (1.0 + var);
        let f = 100.0;
        let mut m = 1.0;
        if dist > r - f {
            let t = f64::min(1.0, (dist - (r - f)) / f);
            m = 1.0 - smooth(t);
        }
        if dist > r + 50.0 {
            m = 0.0;
        }
        m
    }

    /// The pond of §3.4.
    pub fn pond(&self, x: f64, z: f64) -> f64 {
        let dp = sqrt((x + 80.0) * (x + 80.0) + (z - 60.0) * (z - 60.0));
        if dp < 100.0 {
            let f = 1.0 - dp / 100.0;
            (f * f) * 0.55
        } else {
            0.0
        }
    }

    /// `base(x, z)` of §3.5.
    pub fn base(&self, x: f64, z: f64) -> f64 {
        let mut h = self.layers(x, z);
        let m = self.mask(x, z);
        let pond = self.pond(x, z);
        h *= m;
        h = h * 0.2 + 0.42 * m;
        h -= pond;
        if m == 0.0 {
            h = 0.05;
        }
        h * 50.0
    }

    /// The biome centres of §4.1.
    pub fn centres(&self) -> Vec<Centre> {
        const TYPES: [&str; 11] = [
            "plains",
            "plains",
            "plains",
            "forest",
            "forest",
            "valley",
            "mountains",
            "mountains",
            "desert",
            "swamp",
            "tundra",
        ];
        let mut s = u64::from(self.seed);
        let mut draw = || {
            s = (s * 1_664_525 + 1_013_904_223) % (1u64 << 32);
            s as f64 / 4_294_967_295.0
        };
        let w = 100.0 * 100.0;
        let c = w / 3.0;
        let mut out = Vec::new();
        for gx in 0..3 {
            for gz in 0..3 {
                let (gx, gz) = (f64::from(gx), f64::from(gz));
                let (r1, r2, r3, r4) = (draw(), draw(), draw(), draw());
                let x = ((gx + 0.5) * c - w / 2.0) + (((r1 - 0.5) * 2.0) * 0.35) * c;
                let z = ((gz + 0.5) * c - w / 2.0) + (((r2 - 0.5) * 2.0) * 0.35) * c;
                let kind = TYPES.get(floor(r3 * 11.0) as usize).copied();
                out.push(Centre {
                    x,
                    z,
                    mountain: kind == Some("mountains"),
                    influence: 2000.0 + r4 * 1500.0,
                });
            }
        }
        out
    }

    /// `procedural(x, z)` of §4.2: the base with the mountain boost.
    pub fn procedural(&self, x: f64, z: f64) -> f64 {
        let mut hn = self.base(x, z) / 50.0;
        let mut boost: f64 = 0.0;
        for c in self.centres().iter().filter(|c| c.mountain) {
            let (dx, dz) = (x - c.x, z - c.z);
            let d = sqrt(dx * dx + dz * dz);
            let nd = d / c.influence;
            if nd < 2.5 {
                boost = f64::max(boost, exp(((-nd) * nd) * 0.3));
            }
        }
        hn *= 1.0 + boost * 0.5;
        hn = f64::min(1.0, hn);
        hn * 50.0
    }

    /// §5.3.
    pub fn adjust(b: f64, s: f64) -> f64 {
        if b == 9.0 {
            return b;
        }
        let land = b > 9.0;
        let delta = (b - 9.0).abs();
        if delta >= 3.0 {
            return b;
        }
        let max_mul = if land { 1.6 } else { 1.8 };
        let target = f64::min(max_mul, f64::max(1.0, 0.06 / f64::max(0.0001, s)));
        let fall = 1.0 - delta / 3.0;
        let mul = 1.0 + (target - 1.0) * fall;
        let adj = delta * mul;
        if land { 9.0 + adj } else { 9.0 - adj }
    }

    /// The zone-free height with the shoreline (§5.2 with `noShore = procedural`).
    pub fn height(&self, x: f64, z: f64) -> f64 {
        let b = self.procedural(x, z);
        if b >= 12.0 || b <= 6.0 {
            return b;
        }
        let n = self.procedural(x, z + 1.0);
        let s = self.procedural(x, z - 1.0);
        let e = self.procedural(x + 1.0, z);
        let w = self.procedural(x - 1.0, z);
        let slope = f64::max(
            f64::max((n - b).abs() / 1.0, (s - b).abs() / 1.0),
            f64::max((e - b).abs() / 1.0, (w - b).abs() / 1.0),
        );
        Self::adjust(b, slope)
    }
}
