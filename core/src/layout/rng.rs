//! The per-chunk PRNG of the seed document: mulberry32 seeded by mixing the world seed
//! with the chunk coordinates, bit-compatible with the JavaScript original.
//!
//! The JavaScript seed mix is `(seed * 73856093) ^ (cx * 19349663) ^ (cz * 83492791)`:
//! each product is a double, `^` reduces it with ToInt32 (modulo 2^32). Here the
//! products are taken exactly (wrapping i64 arithmetic keeps the low 32 bits exact) and
//! reduced modulo 2^32, which is identical to JavaScript whenever the product is below
//! 2^53 — always true for chunk coordinates within [`super::MAX_CHUNK_COORD`], and for
//! seeds below about 1.2e8. Larger seeds still give a well-defined, exact mix.

/// Multiplier of the world seed in the chunk seed mix.
const SEED_MUL: i64 = 73_856_093;
/// Multiplier of the chunk x coordinate in the chunk seed mix.
const CX_MUL: i64 = 19_349_663;
/// Multiplier of the chunk z coordinate in the chunk seed mix.
const CZ_MUL: i64 = 83_492_791;

/// The mulberry32 generator: a 32-bit state advanced by a Weyl step and mixed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mulberry32 {
    /// The current state (`a` in the JavaScript source).
    state: u32,
}

impl Mulberry32 {
    /// A generator starting from `seed` (the JavaScript `a |= 0`).
    pub fn new(seed: u32) -> Self {
        Self { state: seed }
    }

    /// The next raw 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        self.state = self.state.wrapping_add(0x6D2B_79F5);
        let a = self.state;
        let mut t = (a ^ (a >> 15)).wrapping_mul(1 | a);
        t = t.wrapping_add((t ^ (t >> 7)).wrapping_mul(61 | t)) ^ t;
        t ^ (t >> 14)
    }

    /// The next draw in `[0, 1)`, exactly as JavaScript's `(x >>> 0) / 4294967296`.
    pub fn next_f64(&mut self) -> f64 {
        f64::from(self.next_u32()) / 4_294_967_296.0
    }

    /// A draw in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// An integer draw in `lo..=hi` (`lo + floor(u * (hi - lo + 1))`).
    pub fn int_inclusive(&mut self, lo: u32, hi: u32) -> u32 {
        let span = f64::from(hi - lo + 1);
        // `u < 1` so the product is below `span`; the cast truncates like `Math.floor`.
        lo + (self.next_f64() * span) as u32
    }
}

/// The 32-bit seed of chunk `(cx, cz)`: the JavaScript mix reduced modulo 2^32.
pub fn chunk_seed(seed: u32, cx: i64, cz: i64) -> u32 {
    let low = |a: i64, b: i64| a.wrapping_mul(b) as u32;
    low(i64::from(seed), SEED_MUL) ^ low(cx, CX_MUL) ^ low(cz, CZ_MUL)
}

/// The PRNG of chunk `(cx, cz)` under world seed `seed`.
pub fn chunk_rng(seed: u32, cx: i64, cz: i64) -> Mulberry32 {
    Mulberry32::new(chunk_seed(seed, cx, cz))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_four(seed: u32, cx: i64, cz: i64) -> [f64; 4] {
        let mut rng = chunk_rng(seed, cx, cz);
        [
            rng.next_f64(),
            rng.next_f64(),
            rng.next_f64(),
            rng.next_f64(),
        ]
    }

    fn assert_close(got: [f64; 4], want: [f64; 4]) {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "got {got:?}, want {want:?}");
        }
    }

    #[test]
    fn reference_sequences() {
        assert_close(
            first_four(0, 0, 0),
            [
                0.266429208685,
                0.000329745701,
                0.223272027448,
                0.146202147938,
            ],
        );
        assert_close(
            first_four(42, 3, -2),
            [
                0.248785022413,
                0.018411457306,
                0.929933244828,
                0.293036984280,
            ],
        );
        assert_close(
            first_four(12345, -7, 11),
            [
                0.974008283811,
                0.833860859973,
                0.480275803013,
                0.116527047707,
            ],
        );
    }

    #[test]
    fn negative_coordinates_reduce_like_to_int32() {
        // ToInt32(-7 * 19349663) = -135447641, whose bits are 4159519655.
        assert_eq!(chunk_seed(0, -7, 0), 4_159_519_655);
        assert_eq!(chunk_seed(0, 0, 0), 0);
    }

    #[test]
    fn int_inclusive_stays_in_range() {
        let mut rng = Mulberry32::new(7);
        for _ in 0..1000 {
            let v = rng.int_inclusive(1, 4);
            assert!((1..=4).contains(&v));
        }
    }
}
