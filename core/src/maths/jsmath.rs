//! JavaScript's `Math.pow`, `Math.sin` and `Math.cos` as the engine that runs the
//! original game computes them, bit for bit.
//!
//! The original is JavaScript on Node (V8). V8's `atan2`, `exp`, `log` and `sqrt`
//! give the same bits as the `libm` crate (both are fdlibm; `sqrt` is correctly
//! rounded everywhere), but three functions the height field uses do not:
//!
//! - **`sin` and `cos`**: V8 keeps fdlibm 5.3's kernels: the polynomial evaluated in
//!   one Horner chain, and `cos` splitting off `qx` for arguments above 0.3. `libm`
//!   carries the later FreeBSD kernels (the polynomial split in two halves, `cos`
//!   without `qx`), which round differently for about one argument in a hundred.
//! - **`pow`**: V8's fdlibm `e_pow` differs in one operation of its last step: where
//!   fdlibm computes `r = (z*t1)/(t1-2) - (w+z*w)`, V8 computes
//!   `r = (z*t1) / ((t1-2) - (w+z*w))`. For about one base in twenty the result is
//!   one unit in the last place apart; the island's height curve `pow(h, 1.1)` is
//!   where the original's tables of seeds 2-7 showed it.
//!
//! The functions below are those operations in that order (see the reference
//! chapter *The height algorithm*, "The engine's functions"), checked against values
//! computed by Node at random arguments in `tests/jsmath_node.rs`. Arguments outside
//! the ranges the terrain uses fall back to `libm` where the engines agree on
//! special values (NaN, infinities, zeros) and, for `sin`/`cos` of arguments beyond
//! `2^19 * pi/2` (which no generator produces), on the large-argument reduction.

/// The high 32 bits of `x`'s representation, as fdlibm's `GET_HIGH_WORD`.
#[inline]
fn high(x: f64) -> u32 {
    (x.to_bits() >> 32) as u32
}

/// The double whose representation's high and low 32 bits are `hi` and `lo`: the
/// constants below are written as fdlibm gives them.
const fn words(hi: u32, lo: u32) -> f64 {
    f64::from_bits(((hi as u64) << 32) | lo as u64)
}

/// `x` with its low 32 bits cleared (fdlibm's `SET_LOW_WORD(x, 0)`).
#[inline]
fn clear_low(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & 0xffff_ffff_0000_0000)
}

/// `x` with its high 32 bits replaced by `h` (fdlibm's `SET_HIGH_WORD`).
#[inline]
fn with_high(x: f64, h: u32) -> f64 {
    f64::from_bits((x.to_bits() & 0xffff_ffff) | (u64::from(h) << 32))
}

// Coefficients of the sine kernel on [-pi/4, pi/4].
const S1: f64 = words(0xbfc5_5555, 0x5555_5549);
const S2: f64 = words(0x3f81_1111, 0x1110_f8a6);
const S3: f64 = words(0xbf2a_01a0, 0x19c1_61d5);
const S4: f64 = words(0x3ec7_1de3, 0x57b1_fe7d);
const S5: f64 = words(0xbe5a_e5e6, 0x8a2b_9ceb);
const S6: f64 = words(0x3de5_d93a, 0x5acf_d57c);

// Coefficients of the cosine kernel on [-pi/4, pi/4].
const C1: f64 = words(0x3fa5_5555, 0x5555_554c);
const C2: f64 = words(0xbf56_c16c, 0x16c1_5177);
const C3: f64 = words(0x3efa_01a0, 0x19cb_1590);
const C4: f64 = words(0xbe92_7e4f, 0x809c_52ad);
const C5: f64 = words(0x3e21_ee9e, 0xbdb4_b1c4);
const C6: f64 = words(0xbda8_fae9, 0xbe88_38d4);

/// sin(x + y) for |x| <= pi/4, `y` the tail of `x` (ignored when `tail` is false).
#[inline]
fn kernel_sin(x: f64, y: f64, tail: bool) -> f64 {
    let z = x * x;
    let v = z * x;
    let r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    if tail {
        x - ((z * (0.5 * y - v * r) - y) - v * S1)
    } else {
        x + v * (S1 + z * r)
    }
}

/// cos(x + y) for |x| <= pi/4, `y` the tail of `x`.
#[inline]
fn kernel_cos(x: f64, y: f64) -> f64 {
    let ix = high(x) & 0x7fff_ffff;
    let z = x * x;
    let r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    if ix < 0x3fd3_3333 {
        // |x| < 0.3
        return 1.0 - (0.5 * z - (z * r - x * y));
    }
    let qx = if ix > 0x3fe9_0000 {
        0.28125
    } else {
        // x/4, its low word cleared
        f64::from_bits(u64::from(ix - 0x0020_0000) << 32)
    };
    let hz = 0.5 * z - qx;
    let a = 1.0 - qx;
    a - (hz - (z * r - x * y))
}

const INV_PIO2: f64 = words(0x3fe4_5f30, 0x6dc9_c883);
const PIO2_1: f64 = words(0x3ff9_21fb, 0x5440_0000);
const PIO2_1T: f64 = words(0x3dd0_b461, 0x1a62_6331);
const PIO2_2: f64 = words(0x3dd0_b461, 0x1a60_0000);
const PIO2_2T: f64 = words(0x3ba3_198a, 0x2e03_7073);
const PIO2_3: f64 = words(0x3ba3_198a, 0x2e00_0000);
const PIO2_3T: f64 = words(0x397b_839a, 0x2520_49c1);
/// High words of n * pi/2 for n = 1..32, where the first reduction may cancel.
const NPIO2_HW: [u32; 32] = [
    0x3ff9_21fb,
    0x4009_21fb,
    0x4012_d97c,
    0x4019_21fb,
    0x401f_6a7a,
    0x4022_d97c,
    0x4025_fdbb,
    0x4029_21fb,
    0x402c_463a,
    0x402f_6a7a,
    0x4031_475c,
    0x4032_d97c,
    0x4034_6b9c,
    0x4035_fdbb,
    0x4037_8fdb,
    0x4039_21fb,
    0x403a_b41b,
    0x403c_463a,
    0x403d_d85a,
    0x403f_6a7a,
    0x4040_7e4c,
    0x4041_475c,
    0x4042_106c,
    0x4042_d97c,
    0x4043_a28c,
    0x4044_6b9c,
    0x4045_34ac,
    0x4045_fdbb,
    0x4046_c6cb,
    0x4047_8fdb,
    0x4048_58eb,
    0x4049_21fb,
];

/// `x - n*pi/2` as a head and tail, and `n`, for pi/4 < |x| <= 2^19 * pi/2
/// (fdlibm 5.3's `__ieee754_rem_pio2` without its large-argument branch).
fn rem_pio2(x: f64) -> (i32, f64, f64) {
    let hx = high(x) as i32;
    let ix = high(x) & 0x7fff_ffff;
    if ix < 0x4002_d97c {
        // |x| < 3pi/4: one subtraction of pi/2
        return if hx > 0 {
            let z = x - PIO2_1;
            if ix != 0x3ff9_21fb {
                let y0 = z - PIO2_1T;
                (1, y0, (z - y0) - PIO2_1T)
            } else {
                let z = z - PIO2_2;
                let y0 = z - PIO2_2T;
                (1, y0, (z - y0) - PIO2_2T)
            }
        } else {
            let z = x + PIO2_1;
            if ix != 0x3ff9_21fb {
                let y0 = z + PIO2_1T;
                (-1, y0, (z - y0) + PIO2_1T)
            } else {
                let z = z + PIO2_2;
                let y0 = z + PIO2_2T;
                (-1, y0, (z - y0) + PIO2_2T)
            }
        };
    }
    let t = x.abs();
    let n = (t * INV_PIO2 + 0.5) as i32;
    let f = f64::from(n);
    let mut r = t - f * PIO2_1;
    let mut w = f * PIO2_1T;
    let mut y0 = r - w;
    // Extra rounds only where the first may have cancelled: near one of the first
    // 32 multiples of pi/2 or beyond them, when the exponents say so.
    if n >= 32 || ix == NPIO2_HW[(n - 1) as usize] {
        let j = (ix >> 20) as i32;
        if j - ((high(y0) >> 20) & 0x7ff) as i32 > 16 {
            let t = r;
            w = f * PIO2_2;
            r = t - w;
            w = f * PIO2_2T - ((t - r) - w);
            y0 = r - w;
            if j - ((high(y0) >> 20) & 0x7ff) as i32 > 49 {
                let t = r;
                w = f * PIO2_3;
                r = t - w;
                w = f * PIO2_3T - ((t - r) - w);
                y0 = r - w;
            }
        }
    }
    let y1 = (r - y0) - w;
    if hx < 0 { (-n, -y0, -y1) } else { (n, y0, y1) }
}

/// Beyond this high word (|x| > 2^19 * pi/2) the reduction is fdlibm's large one.
const MEDIUM_LIMIT: u32 = 0x4139_21fb;

/// `Math.sin(x)` as V8 computes it.
pub fn sin(x: f64) -> f64 {
    let ix = high(x) & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb {
        if ix < 0x3e40_0000 {
            return x;
        }
        return kernel_sin(x, 0.0, false);
    }
    if ix > MEDIUM_LIMIT {
        return libm::sin(x);
    }
    let (n, y0, y1) = rem_pio2(x);
    match n & 3 {
        0 => kernel_sin(y0, y1, true),
        1 => kernel_cos(y0, y1),
        2 => -kernel_sin(y0, y1, true),
        _ => -kernel_cos(y0, y1),
    }
}

/// `Math.cos(x)` as V8 computes it.
pub fn cos(x: f64) -> f64 {
    let ix = high(x) & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb {
        if ix < 0x3e40_0000 {
            return 1.0;
        }
        return kernel_cos(x, 0.0);
    }
    if ix > MEDIUM_LIMIT {
        return libm::cos(x);
    }
    let (n, y0, y1) = rem_pio2(x);
    match n & 3 {
        0 => kernel_cos(y0, y1),
        1 => -kernel_sin(y0, y1, true),
        2 => -kernel_cos(y0, y1),
        _ => kernel_sin(y0, y1, true),
    }
}

/// `(Math.sin(x), Math.cos(x))`, with one argument reduction.
pub fn sincos(x: f64) -> (f64, f64) {
    let ix = high(x) & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb || ix > MEDIUM_LIMIT {
        return (sin(x), cos(x));
    }
    let (n, y0, y1) = rem_pio2(x);
    let (s, c) = (kernel_sin(y0, y1, true), kernel_cos(y0, y1));
    match n & 3 {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

// pow's constants: log2 in pieces, the polynomial of log, of exp.
const BP: [f64; 2] = [1.0, 1.5];
const DP_H: [f64; 2] = [0.0, words(0x3fe2_b803, 0x4000_0000)];
const DP_L: [f64; 2] = [0.0, words(0x3e4c_fdeb, 0x43cf_d006)];
/// -(1024 - log2(overflow + 0.5 ulp)).
const OVT: f64 = 8.008_566_259_537_294e-17;
const TWO53: f64 = 9_007_199_254_740_992.0;
const L1: f64 = words(0x3fe3_3333, 0x3333_3303);
const L2: f64 = words(0x3fdb_6db6, 0xdb6f_abff);
const L3: f64 = words(0x3fd5_5555, 0x518f_264d);
const L4: f64 = words(0x3fd1_7460, 0xa91d_4101);
const L5: f64 = words(0x3fcd_864a, 0x93c9_db65);
const L6: f64 = words(0x3fca_7e28, 0x4a45_4eef);
const P1: f64 = words(0x3fc5_5555, 0x5555_553e);
const P2: f64 = words(0xbf66_c16c, 0x16be_bd93);
const P3: f64 = words(0x3f11_566a, 0xaf25_de2c);
const P4: f64 = words(0xbebb_bd41, 0xc5d2_6bf1);
const P5: f64 = words(0x3e66_3769, 0x72be_a4d0);
const LG2: f64 = words(0x3fe6_2e42, 0xfefa_39ef);
const LG2_H: f64 = words(0x3fe6_2e43, 0x0000_0000);
const LG2_L: f64 = words(0xbe20_5c61, 0x0ca8_6c39);
const CP: f64 = words(0x3fee_c709, 0xdc3a_03fd);
const CP_H: f64 = words(0x3fee_c709, 0xe000_0000);
const CP_L: f64 = words(0xbe3e_2fe0, 0x145b_01f5);
const IVLN2: f64 = words(0x3ff7_1547, 0x652b_82fe);
const IVLN2_H: f64 = words(0x3ff7_1547, 0x6000_0000);
const IVLN2_L: f64 = words(0x3e54_ae0b, 0xf85d_df44);

/// `Math.pow(x, y)` as V8 computes it, for `x > 0` finite and `y` finite, nonzero
/// and not 1, 2 or 0.5 (the cases the terrain uses); every other case (signs,
/// zeros, infinities, NaN, the special exponents) gives the same value in both
/// engines and is answered by `libm::pow`.
pub fn pow(x: f64, y: f64) -> f64 {
    if !(x > 0.0 && x.is_finite() && y.is_finite()) || y == 0.0 || y == 1.0 || y == 2.0 || y == 0.5
    {
        return libm::pow(x, y);
    }
    let ix = high(x) & 0x7fff_ffff;
    let hy = high(y) as i32;
    let iy = high(y) & 0x7fff_ffff;
    if x == 1.0 {
        return 1.0;
    }
    // log2(x) = t1 + t2, t1 with its low word cleared.
    let (t1, t2) = if iy > 0x41e0_0000 {
        // |y| > 2^31: over- or underflow unless x is within 2^-20 of 1.
        if ix < 0x3fef_ffff {
            return if hy < 0 { f64::INFINITY } else { 0.0 };
        }
        if ix > 0x3ff0_0000 {
            return if hy > 0 { f64::INFINITY } else { 0.0 };
        }
        let t = x - 1.0;
        let w = (t * t) * (0.5 - t * (0.333_333_333_333_333_3 - t * 0.25));
        let u = IVLN2_H * t;
        let v = t * IVLN2_L - w * IVLN2;
        let t1 = clear_low(u + v);
        (t1, v - (t1 - u))
    } else {
        let mut ax = x;
        let mut ix = ix;
        let mut n: i32 = 0;
        if ix < 0x0010_0000 {
            // subnormal
            ax *= TWO53;
            n -= 53;
            ix = high(ax);
        }
        n += (ix >> 20) as i32 - 0x3ff;
        let j = ix & 0x000f_ffff;
        ix = j | 0x3ff0_0000;
        let k = if j <= 0x3988e {
            0
        } else if j < 0xbb67a {
            1
        } else {
            n += 1;
            ix -= 0x0010_0000;
            0
        };
        ax = with_high(ax, ix);
        let u = ax - BP[k];
        let v = 1.0 / (ax + BP[k]);
        let ss = u * v;
        let s_h = clear_low(ss);
        let t_h = with_high(
            0.0,
            ((ix >> 1) | 0x2000_0000) + 0x0008_0000 + ((k as u32) << 18),
        );
        let t_l = ax - (t_h - BP[k]);
        let s_l = v * ((u - s_h * t_h) - s_h * t_l);
        let s2 = ss * ss;
        let mut r = s2 * s2 * (L1 + s2 * (L2 + s2 * (L3 + s2 * (L4 + s2 * (L5 + s2 * L6)))));
        r += s_l * (s_h + ss);
        let s2 = s_h * s_h;
        let t_h = clear_low(3.0 + s2 + r);
        let t_l = r - ((t_h - 3.0) - s2);
        let u = s_h * t_h;
        let v = s_l * t_h + t_l * ss;
        let p_h = clear_low(u + v);
        let p_l = v - (p_h - u);
        let z_h = CP_H * p_h;
        let z_l = CP_L * p_h + p_l * CP + DP_L[k];
        let t = f64::from(n);
        let t1 = clear_low(((z_h + z_l) + DP_H[k]) + t);
        (t1, z_l - (((t1 - t) - DP_H[k]) - z_h))
    };
    // y * log2(x) = p_h + p_l, y split in two.
    let y1 = clear_low(y);
    let p_l = (y - y1) * t1 + y * t2;
    let mut p_h = y1 * t1;
    let z = p_l + p_h;
    let j = high(z) as i32;
    let i = z.to_bits() as u32;
    if j >= 0x4090_0000 {
        // z >= 1024
        if ((j - 0x4090_0000) as u32 | i) != 0 || p_l + OVT > z - p_h {
            return f64::INFINITY;
        }
    } else if (j & 0x7fff_ffff) >= 0x4090_cc00
        && ((j as u32).wrapping_sub(0xc090_cc00) | i != 0 || p_l <= z - p_h)
    {
        // z <= -1075
        return 0.0;
    }
    // 2^(p_h + p_l)
    let i = j & 0x7fff_ffff;
    let mut k = (i >> 20) - 0x3ff;
    let mut n: i32 = 0;
    if i > 0x3fe0_0000 {
        n = j + (0x0010_0000 >> (k + 1));
        k = ((n & 0x7fff_ffff) >> 20) - 0x3ff;
        let t = with_high(0.0, (n & !(0x000f_ffff >> k)) as u32);
        n = ((n & 0x000f_ffff) | 0x0010_0000) >> (20 - k);
        if j < 0 {
            n = -n;
        }
        p_h -= t;
    }
    let t = clear_low(p_l + p_h);
    let u = t * LG2_H;
    let v = (p_l - (t - p_h)) * LG2 + t * LG2_L;
    let z = u + v;
    let w = v - (z - u);
    let t = z * z;
    let t1 = z - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    // V8's one difference from fdlibm: the division takes the whole difference.
    let r = (z * t1) / ((t1 - 2.0) - (w + z * w));
    let z = 1.0 - (r - z);
    let j = high(z) as i32 + (n << 20);
    if (j >> 20) <= 0 {
        libm::scalbn(z, n)
    } else {
        with_high(z, j as u32)
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;

    #[test]
    fn agrees_with_libm_on_the_special_values() {
        for (x, y) in [
            (0.0, 1.1),
            (f64::NAN, 1.1),
            (4.0, 0.5),
            (3.0, 2.0),
            (-2.0, 1.1),
        ] {
            assert_eq!(pow(x, y).to_bits(), libm::pow(x, y).to_bits(), "{x} {y}");
        }
        assert_eq!(pow(1.0, 1e300), 1.0);
        assert!(pow(0.5, 1e10) == 0.0 && pow(2.0, 1e10).is_infinite());
        assert_eq!(sin(0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(cos(0.0), 1.0);
        assert!(sin(f64::NAN).is_nan() && cos(f64::INFINITY).is_nan());
    }

    #[test]
    fn sincos_is_sin_and_cos() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        for _ in 0..100_000 {
            let a = rng.random_range(-1000.0..1000.0);
            let (sa, ca) = sincos(a);
            assert_eq!(
                (sa.to_bits(), ca.to_bits()),
                (sin(a).to_bits(), cos(a).to_bits()),
                "{a}"
            );
        }
    }

    #[test]
    fn close_to_the_correctly_rounded_values() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2545_f491_4f6c_dd1d);
        for _ in 0..100_000 {
            let u: f64 = rng.random();
            let a = (u - 0.5) * 1e4;
            assert!((sin(a) - a.sin()).abs() <= 2e-16 && (cos(a) - a.cos()).abs() <= 2e-16);
            let y = (u - 0.5) * 20.0;
            let x = u * 8.0;
            let (p, q) = (pow(x, y), x.powf(y));
            assert!((p - q).abs() <= q.abs() * 4.5e-16, "{x} {y}: {p} {q}");
        }
    }
}
