//! The per-point integer path: one tile's height straight from the hash, exactly as
//! the client computes it (wrapping i32 maths, truncating division, masks on the
//! two's-complement value).

/// Added (with i32 wrap) to a world tile x to get the noise x.
pub const OFFSET_X: i32 = 932_731;
/// Added (with i32 wrap) to a world tile y to get the noise y.
pub const OFFSET_Y: i32 = 556_238;
/// The lowest procedural height `h`.
pub const MIN_HEIGHT: i32 = 10;
/// The highest procedural height `h`.
pub const MAX_HEIGHT: i32 = 60;

/// `trunc(65536 * cos(i * 2 * pi / 2048))` for the only indices ever read,
/// `i = 0, 256, 512, 768` (checked against `libm::cos` by a unit test).
pub(super) const COS_SAMPLES: [i32; 4] = [65_536, 46_340, 0, -46_340];

/// The cosine blend weight `(65536 - COS[1024 * frac / freq]) >> 1`.
const fn weight(frac: i32, freq: i32) -> i32 {
    (65_536 - COS_SAMPLES[(1024 * frac / freq / 256) as usize]) >> 1
}

/// Blend weights of the layer sampled every 4 tiles, indexed by `x & 3`.
pub(super) const WEIGHTS_4: [i32; 4] = [weight(0, 4), weight(1, 4), weight(2, 4), weight(3, 4)];
/// Blend weights of the layer sampled every 2 tiles, indexed by `x & 1`.
pub(super) const WEIGHTS_2: [i32; 2] = [weight(0, 2), weight(1, 2)];

/// The three noise layers: frequency, noise-coordinate offsets and the right shift
/// applied to `layer - 128` before summing.
pub(super) const LAYERS: [Layer; 3] = [
    Layer {
        freq: 4,
        dx: 45_365,
        dy: 91_923,
        shift: 0,
    },
    Layer {
        freq: 2,
        dx: 10_294,
        dy: 37_821,
        shift: 1,
    },
    Layer {
        freq: 1,
        dx: 0,
        dy: 0,
        shift: 2,
    },
];

/// One octave of the height noise.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layer {
    pub freq: i32,
    pub dx: i32,
    pub dy: i32,
    pub shift: u32,
}

impl Layer {
    /// The blend weights of this layer, indexed by `x & (freq - 1)`.
    pub fn weights(self) -> &'static [i32] {
        match self.freq {
            4 => &WEIGHTS_4,
            2 => &WEIGHTS_2,
            _ => &[0],
        }
    }
}

/// The hash: a repeatable value in `0..=255` for a noise lattice point.
#[inline]
pub fn noise(x: i32, y: i32) -> i32 {
    let n = x.wrapping_add(y.wrapping_mul(57));
    let n = n.wrapping_shl(13) ^ n;
    let quad = n.wrapping_mul(n).wrapping_mul(15_731).wrapping_add(789_221);
    let v = n.wrapping_mul(quad).wrapping_add(1_376_312_589) & 0x7FFF_FFFF;
    (v >> 19) & 0xFF
}

/// [`fn@noise`] smoothed over the 3x3 block around `(x, y)`:
/// `corners / 16 + sides / 8 + centre / 4`, each division separately.
pub fn smoothed_noise(x: i32, y: i32) -> i32 {
    let (xm, xp) = (x.wrapping_sub(1), x.wrapping_add(1));
    let (ym, yp) = (y.wrapping_sub(1), y.wrapping_add(1));
    let corners = noise(xm, ym) + noise(xp, ym) + noise(xm, yp) + noise(xp, yp);
    let sides = noise(xm, y) + noise(xp, y) + noise(x, ym) + noise(x, yp);
    corners / 16 + sides / 8 + noise(x, y) / 4
}

/// Cosine blend from `a` to `b` with a precomputed weight `f` (0..=65536).
#[inline]
pub(super) fn interp(a: i32, b: i32, f: i32) -> i32 {
    (a.wrapping_mul(65_536 - f) >> 16).wrapping_add(b.wrapping_mul(f) >> 16)
}

/// One layer at one point: truncating lattice cell, masked fraction.
fn layer(x: i32, y: i32, layer: Layer) -> i32 {
    let freq = layer.freq;
    if freq == 1 {
        // The weight is 0, so the blend returns the (ix, iy) sample unchanged.
        return smoothed_noise(x, y);
    }
    let weights = layer.weights();
    let (ix, fx) = (x / freq, weights[(x & (freq - 1)) as usize]);
    let (iy, fy) = (y / freq, weights[(y & (freq - 1)) as usize]);
    let (ix1, iy1) = (ix.wrapping_add(1), iy.wrapping_add(1));
    let low = interp(smoothed_noise(ix, iy), smoothed_noise(ix1, iy), fx);
    let high = interp(smoothed_noise(ix, iy1), smoothed_noise(ix1, iy1), fx);
    interp(low, high, fy)
}

/// Scales the layer sum `n` (-224..=218) to a height: `trunc(0.3 * n) + 35`, clamped.
#[inline]
pub(super) fn scale(n: i32) -> i32 {
    (3 * n / 10 + 35).clamp(MIN_HEIGHT, MAX_HEIGHT)
}

/// The height `h` (10..=60) at noise coordinates, i.e. world tile coordinates already
/// moved by ([`OFFSET_X`], [`OFFSET_Y`]).
pub fn noise_height(x: i32, y: i32) -> i32 {
    let n = LAYERS.iter().fold(0, |n, &l| {
        let v = layer(x.wrapping_add(l.dx), y.wrapping_add(l.dy), l);
        n + ((v - 128) >> l.shift)
    });
    scale(n)
}

/// The procedural height `h` (10..=60) of world tile `(x, y)`; the client's plane-0
/// tile height is `-8 * h`.
pub fn tile_height(x: i32, y: i32) -> i32 {
    noise_height(x.wrapping_add(OFFSET_X), y.wrapping_add(OFFSET_Y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cos_samples_match_libm() {
        for (k, &c) in COS_SAMPLES.iter().enumerate() {
            let i = (k * 256) as f64;
            let expected = (65_536.0 * libm::cos(i * 2.0 * std::f64::consts::PI / 2048.0)) as i32;
            assert_eq!(c, expected, "COS[{}]", k * 256);
        }
    }

    #[test]
    fn weights_match_the_specification() {
        assert_eq!(WEIGHTS_4, [0, 9598, 32768, 55938]);
        assert_eq!(WEIGHTS_2, [0, 32768]);
        assert_eq!(LAYERS[2].weights(), &[0]);
    }

    #[test]
    fn hash_matches_independent_values() {
        // From an independent arbitrary-precision transcription of the algorithm.
        let cases = [
            ((0, 0), 65),
            ((1, 0), 207),
            ((0, 1), 93),
            ((-1, 0), 204),
            ((0, -1), 72),
            ((i32::MAX, 0), 204),
            ((i32::MIN, i32::MIN), 65),
            ((123_456, -654_321), 184),
        ];
        for ((x, y), v) in cases {
            assert_eq!(noise(x, y), v, "noise({x}, {y})");
        }
        assert_eq!(smoothed_noise(0, 0), 128);
        assert_eq!(smoothed_noise(-1, -1), 148);
        assert_eq!(smoothed_noise(i32::MAX, i32::MAX), 148);
    }

    #[test]
    fn integer_scale_equals_float_truncation() {
        for n in -224..=218 {
            let float = (f64::from(n) * 0.3) as i32 + 35;
            assert_eq!(scale(n), float.clamp(MIN_HEIGHT, MAX_HEIGHT), "n = {n}");
        }
    }

    #[test]
    fn blend_with_zero_weight_is_the_first_sample() {
        for a in 0..=255 {
            assert_eq!(interp(a, 255 - a, 0), a);
        }
    }
}
