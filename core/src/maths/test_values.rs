//! Inputs for the tests that hold a fast path to a plain one over every kind of
//! double: the edge cases a test names, then random bit patterns (subnormals, NaNs,
//! infinities, huge and tiny values of both signs) and random values in the range the
//! code meets, from a seeded generator so that every run tests the same values.

use rand::{Rng, RngExt, SeedableRng, rngs::Xoshiro256PlusPlus};

/// `edges`, then `n` random bit patterns and `n` values uniform in `range`, drawn
/// from `seed`.
pub(crate) fn doubles(edges: &[f64], seed: u64, n: usize, range: std::ops::Range<f64>) -> Vec<f64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut values = edges.to_vec();
    for _ in 0..n {
        values.push(f64::from_bits(rng.next_u64()));
        values.push(rng.random_range(range.clone()));
    }
    values
}
