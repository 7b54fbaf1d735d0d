//! terrain-core's engine maths (`terrain_core::maths::jsmath`: `Math.sin`, `Math.cos`
//! and `Math.pow` as the original game's engine computes them, bit for bit; `atan2` and
//! `exp`, the `libm` crate's, as terrain-core calls them) as free functions, so a browser can set its own `Math` beside them: the browser test
//! (client-sdk/node/test/browser) shows a browser's `Math` differs from them at some
//! arguments while the replica, which computes with these, answers the server's bits.

use terrain_core::maths::jsmath;
use wasm_bindgen::prelude::*;

/// `Math.sin(x)` as the original's engine computes it.
#[wasm_bindgen(js_name = engineSin)]
pub fn engine_sin(x: f64) -> f64 {
    jsmath::sin(x)
}

/// `Math.cos(x)` as the original's engine computes it.
#[wasm_bindgen(js_name = engineCos)]
pub fn engine_cos(x: f64) -> f64 {
    jsmath::cos(x)
}

/// `Math.pow(x, y)` as the original's engine computes it.
#[wasm_bindgen(js_name = enginePow)]
pub fn engine_pow(x: f64, y: f64) -> f64 {
    jsmath::pow(x, y)
}

/// `Math.atan2(y, x)` as the original's engine computes it: fdlibm's, the `libm` crate's,
/// which terrain-core calls (`generator::hyperscape::{layers, coast}`).
#[wasm_bindgen(js_name = engineAtan2)]
pub fn engine_atan2(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}

/// `Math.exp(x)` as the original's engine computes it: the `libm` crate's, as
/// terrain-core's noise lanes call it.
#[wasm_bindgen(js_name = engineExp)]
pub fn engine_exp(x: f64) -> f64 {
    libm::exp(x)
}

/// Each of `xs` through `sin`, `cos` and `pow(|x| mod 1, y)` at once: `[sin0, cos0,
/// pow0, sin1, ...]` (one call for a batch of arguments).
#[wasm_bindgen(js_name = engineMaths)]
pub fn engine_maths(xs: &[f64], y: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(xs.len() * 3);
    for &x in xs {
        out.push(jsmath::sin(x));
        out.push(jsmath::cos(x));
        out.push(jsmath::pow(x.abs() % 1.0, y));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exports_are_core_s_functions() {
        for x in [0.1, 0.7, 1.3, 2.9, -4.2] {
            assert_eq!(engine_sin(x).to_bits(), jsmath::sin(x).to_bits());
            assert_eq!(engine_cos(x).to_bits(), jsmath::cos(x).to_bits());
            assert_eq!(
                engine_pow(x.abs() % 1.0, 1.1).to_bits(),
                jsmath::pow(x.abs() % 1.0, 1.1).to_bits()
            );
        }
        let batch = engine_maths(&[0.3, -2.5], 1.1);
        assert_eq!(batch.len(), 6);
        assert_eq!(batch[3].to_bits(), jsmath::sin(-2.5).to_bits());
        assert_eq!(batch[5].to_bits(), jsmath::pow(0.5, 1.1).to_bits());
    }
}
