//! [`terrain_core::jsmath`] against JavaScript itself: `data/jsmath/node_values.txt`
//! holds `Math.pow`, `Math.sin` and `Math.cos` as Node 20 (the original's engine)
//! computed them at random arguments (`data/jsmath/node_values.js` writes it): the
//! height curve's `pow(h, 1.1)` over [0, 1), `pow` at random bases and exponents, and
//! `sin`/`cos` over [-pi, pi] and [-1e5, 1e5]. Every value must be equal bit for bit;
//! the `libm` crate's own functions differ at about one argument in twenty (`pow`)
//! and one in a hundred (`sin`, `cos`), which this test also shows, so it cannot pass
//! with them.

use terrain_core::jsmath;

fn bits(s: &str) -> f64 {
    f64::from_bits(u64::from_str_radix(s, 16).unwrap_or_else(|e| panic!("{s}: {e}")))
}

#[test]
fn pow_sin_and_cos_are_javascripts_bit_for_bit() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/jsmath/node_values.txt"
    ))
    .expect("node_values.txt");
    let (mut count, mut libm_differs) = ([0usize; 3], [0usize; 3]);
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let (kind, ours, libm, want) = match f[0] {
            "pow" => {
                let (x, y) = (bits(f[1]), bits(f[2]));
                (0, jsmath::pow(x, y), libm::pow(x, y), bits(f[3]))
            }
            "sin" => (
                1,
                jsmath::sin(bits(f[1])),
                libm::sin(bits(f[1])),
                bits(f[2]),
            ),
            "cos" => (
                2,
                jsmath::cos(bits(f[1])),
                libm::cos(bits(f[1])),
                bits(f[2]),
            ),
            other => panic!("unknown function {other}"),
        };
        assert_eq!(
            ours.to_bits(),
            want.to_bits(),
            "{line}: ours {ours:e}, JavaScript's {want:e}"
        );
        count[kind] += 1;
        libm_differs[kind] += usize::from(libm.to_bits() != want.to_bits());
    }
    assert!(count.iter().all(|&c| c >= 2000), "{count:?}");
    // The libm crate is not JavaScript's: the table exercises the differences.
    assert!(
        libm_differs.iter().all(|&d| d > 0),
        "{libm_differs:?} of {count:?}"
    );
    println!("libm differs at {libm_differs:?} of {count:?}");
}
