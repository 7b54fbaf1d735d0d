//! Four f64 lanes for the area paths of the hyperscape terrain (heights and vertex
//! colours), bit-identical to the scalar code lane by lane.
//!
//! [`F4`] holds four values and applies each operation to every lane with the same
//! IEEE operation the scalar code uses (add, sub, mul, div and sqrt are correctly
//! rounded in SIMD as in scalar; nothing is fused). [`exp`] is libm's (FreeBSD's
//! `e_exp.c`, as `libm` 0.2 ships it) written lane-wise:
//! the same constants and the same operations in the same order on the main path, and
//! lanes outside it (tiny, huge, negative, zero, subnormal, NaN, infinite) handed to
//! `libm` itself, so every lane returns libm's bits.
//!
//! The lane code is plain Rust over arrays, always inlined; [`dispatch`] runs it
//! inside `pulp`'s runtime-detected target-feature context (AVX2 on x86-64 CPUs that
//! have it), where the compiler vectorises it, and as ordinary baseline code on CPUs
//! without. On WebAssembly there is no dispatch: the lanes are plain code, built with
//! whatever features the build enables (never relaxed SIMD, whose fused multiply-adds
//! may round differently from machine to machine; see client-sdk/wasm).

use std::ops::{Add, Div, Mul, Neg, Sub};

/// The lane count.
pub(crate) const LANES: usize = 4;

/// Four f64 lanes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct F4(pub [f64; LANES]);

/// Four lane conditions.
pub(crate) type M4 = [bool; LANES];

/// Runs `f` with the best SIMD features this CPU has (detected once by `pulp`). Mark
/// the closure `#[inline(always)]`: only code inlined into it gets the features.
#[cfg(not(target_arch = "wasm32"))]
#[inline(always)]
pub(crate) fn dispatch<R>(f: impl FnOnce() -> R) -> R {
    pulp::Arch::new().dispatch(f)
}

/// On WebAssembly: `f` itself (see the module docs).
#[cfg(target_arch = "wasm32")]
#[inline(always)]
pub(crate) fn dispatch<R>(f: impl FnOnce() -> R) -> R {
    f()
}

impl F4 {
    #[inline(always)]
    pub(crate) fn splat(v: f64) -> Self {
        F4([v; LANES])
    }

    #[inline(always)]
    pub(crate) fn map(self, f: impl Fn(f64) -> f64) -> Self {
        F4([f(self.0[0]), f(self.0[1]), f(self.0[2]), f(self.0[3])])
    }

    #[inline(always)]
    pub(crate) fn zip(self, o: Self, f: impl Fn(f64, f64) -> f64) -> Self {
        let (a, b) = (self.0, o.0);
        F4([f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])])
    }

    #[inline(always)]
    pub(crate) fn test(self, o: Self, f: impl Fn(f64, f64) -> bool) -> M4 {
        let (a, b) = (self.0, o.0);
        [f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2]), f(a[3], b[3])]
    }

    /// `sqrt` per lane (IEEE, the same bits as `libm::sqrt`).
    #[inline(always)]
    pub(crate) fn sqrt(self) -> Self {
        self.map(f64::sqrt)
    }

    #[inline(always)]
    pub(crate) fn abs(self) -> Self {
        self.map(f64::abs)
    }

    /// `f64::min` per lane.
    #[inline(always)]
    pub(crate) fn min(self, o: Self) -> Self {
        self.zip(o, f64::min)
    }

    /// `f64::max` per lane.
    #[inline(always)]
    pub(crate) fn max(self, o: Self) -> Self {
        self.zip(o, f64::max)
    }

    /// `f64::clamp` per lane (`lo <= hi`, both constants).
    #[inline(always)]
    pub(crate) fn clamp(self, lo: f64, hi: f64) -> Self {
        self.map(|v| v.clamp(lo, hi))
    }

    /// `if m { a } else { b }` per lane.
    #[inline(always)]
    pub(crate) fn select(m: M4, a: Self, b: Self) -> Self {
        F4(std::array::from_fn(|i| if m[i] { a.0[i] } else { b.0[i] }))
    }

    #[inline(always)]
    fn bits(self) -> [u64; LANES] {
        self.0.map(f64::to_bits)
    }
}

macro_rules! lane_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl $tr for F4 {
            type Output = F4;
            #[inline(always)]
            fn $f(self, o: F4) -> F4 {
                self.zip(o, |a, b| a $op b)
            }
        }
        impl $tr<f64> for F4 {
            type Output = F4;
            #[inline(always)]
            fn $f(self, o: f64) -> F4 {
                self.map(|a| a $op o)
            }
        }
        impl $tr<F4> for f64 {
            type Output = F4;
            #[inline(always)]
            fn $f(self, o: F4) -> F4 {
                o.map(|b| self $op b)
            }
        }
    };
}

lane_op!(Add, add, +);
lane_op!(Sub, sub, -);
lane_op!(Mul, mul, *);
lane_op!(Div, div, /);

impl Neg for F4 {
    type Output = F4;
    #[inline(always)]
    fn neg(self) -> F4 {
        self.map(|a| -a)
    }
}

/// `2^52`: added to a small integer-valued f64, its low mantissa bits hold the integer.
const TWO52: f64 = 4_503_599_627_370_496.0;

/// `2^k` for integer-valued `k` in `-1022..=1023`, built from the exponent bits.
#[inline(always)]
fn two_pow(k: F4) -> F4 {
    F4(((k + (TWO52 + 1023.0)).bits()).map(|b| f64::from_bits(b << 52)))
}

// libm's constants, by the bit patterns its sources give for them.
const EXP_LN2HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const EXP_LN2LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const EXP_INVLN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
const EXP_P1: f64 = f64::from_bits(0x3fc5_5555_5555_553e);
const EXP_P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93);
const EXP_P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c);
const EXP_P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1);
const EXP_P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0);

/// `libm::exp` per lane.
///
/// The main path covers `2^-28 < |x| < 700`, where libm reduces `x = k ln2 + r` and
/// scales by `2^k` with a normal result (`scalbn` is then one exact multiplication, and
/// `k = 0` multiplies by 1). Other lanes call `libm::exp`.
#[inline(always)]
pub(crate) fn exp(x: F4) -> F4 {
    // libm tests the high word of |x| against thresholds; on |x| as an f64 the same
    // tests read `|x| >= 2^32 t` for `hx >= t` (and `hx > t` as `hx >= t + 1`).
    let ax = x.abs();
    let big = ax.test(F4::splat(high(0x3ff0_a2b2)), |a, t| a >= t);
    let mid = ax.test(F4::splat(high(0x3fd6_2e43)), |a, t| a >= t);
    let half = x.map(|v| if v.is_sign_negative() { -0.5 } else { 0.5 });
    let one = half * 2.0;
    let kbig = (EXP_INVLN2 * x + half).map(|v| f64::from(v as i32));
    let k = F4::select(big, kbig, F4::select(mid, one, F4::splat(0.0)));
    // With k = 0 these are libm's `hi = x, lo = 0` exactly (x - 0 and 0 * c).
    let hi = x - k * EXP_LN2HI;
    let lo = k * EXP_LN2LO;
    let r = hi - lo;
    let xx = r * r;
    let c = r - xx * (EXP_P1 + xx * (EXP_P2 + xx * (EXP_P3 + xx * (EXP_P4 + xx * EXP_P5))));
    let y = 1.0 + (((r * c) / (2.0 - c) - lo) + hi);
    let mut out = y * two_pow(k);
    let lo_ok = ax.test(F4::splat(high(0x3e30_0001)), |a, t| a >= t);
    let hi_ok = ax.test(F4::splat(700.0), |a, t| a < t);
    let main: M4 = std::array::from_fn(|i| lo_ok[i] & hi_ok[i]);
    if main != [true; LANES] {
        for ((o, &v), ok) in out.0.iter_mut().zip(&x.0).zip(main) {
            if !ok {
                *o = libm::exp(v);
            }
        }
    }
    out
}

/// The f64 whose high word is `t` and low word zero.
const fn high(t: u64) -> f64 {
    f64::from_bits(t << 32)
}

#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    /// A small deterministic generator (SplitMix64).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
        }
    }

    fn edge_cases() -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            f64::MIN_POSITIVE,
            f64::MIN_POSITIVE / 3.0,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            1e-300,
            2f64.powi(-28),
            -(2f64.powi(-28)),
            2f64.powi(-28) * 1.000001,
            0.34657359027997264,
            -0.34657359027997264,
            1.0397207708399179,
            -1.0397207708399179,
            699.9999,
            700.0,
            -700.0,
            708.39641853226410622,
            -708.39641853226410622,
            709.782712893383973096,
            709.8,
            -745.13321910194110842,
            -746.0,
            1e308,
            std::f64::consts::SQRT_2,
            std::f64::consts::FRAC_1_SQRT_2,
        ];
        // Around the reduction thresholds, one ulp either side.
        for t in [
            0x3fd6_2e42u64,
            0x3ff0_a2b2,
            0x3e30_0000,
            0x4086_232b,
            0x3fe6_a09e,
        ] {
            let b = t << 32;
            for d in [0u64, 1, 0xffff_ffff, 0x1_0000_0000] {
                for s in [0, 1u64 << 63] {
                    v.push(f64::from_bits((b + d) | s));
                    v.push(f64::from_bits((b - d.min(b)) | s));
                }
            }
        }
        v
    }

    fn check(lane: fn(F4) -> F4, scalar: fn(f64) -> f64, values: &[f64]) {
        for chunk in values.chunks(LANES) {
            let mut x = [1.5; LANES];
            x[..chunk.len()].copy_from_slice(chunk);
            let got = dispatch(|| lane(F4(x)));
            for i in 0..LANES {
                assert_eq!(
                    got.0[i].to_bits(),
                    scalar(x[i]).to_bits(),
                    "lane {i} of {x:?}"
                );
            }
        }
    }

    fn random_inputs(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| rng.uniform(lo, hi)).collect()
    }

    /// Inputs of every magnitude and sign: random bit patterns.
    fn random_bits(rng: &mut Rng, n: usize) -> Vec<f64> {
        (0..n).map(|_| f64::from_bits(rng.next())).collect()
    }

    #[test]
    fn exp_lanes_equal_libm() {
        let mut rng = Rng(1);
        check(exp, libm::exp, &edge_cases());
        check(
            exp,
            libm::exp,
            &random_inputs(&mut rng, 2_000_000, -750.0, 750.0),
        );
        check(
            exp,
            libm::exp,
            &random_inputs(&mut rng, 2_000_000, -3.0, 3.0),
        );
        check(exp, libm::exp, &random_bits(&mut rng, 1_000_000));
    }

    #[test]
    fn sqrt_lanes_equal_libm() {
        let mut rng = Rng(3);
        check(F4::sqrt, libm::sqrt, &edge_cases());
        check(F4::sqrt, libm::sqrt, &random_bits(&mut rng, 1_000_000));
        check(
            F4::sqrt,
            libm::sqrt,
            &random_inputs(&mut rng, 1_000_000, 0.0, 1e8),
        );
    }

    #[test]
    fn lanes_outside_the_main_path_fall_back_to_libm() {
        let x = F4([f64::NAN, 0.0, -800.0, 0.7]);
        let e = exp(x);
        assert!(e.0[0].is_nan());
        assert_eq!(e.0[1], 1.0);
        assert_eq!(e.0[2], 0.0);
        assert_eq!(e.0[3].to_bits(), libm::exp(0.7).to_bits());
    }
}
