//! Hill shading: how bright a pixel is, from the terrain's normal and a light from
//! the north-west.
//!
//! North is `-z` (up on the map), west is `-x`. The light comes from the north-west
//! at 45 degrees above the horizon, so its unit direction (toward the light) is
//! `(-1/2, 1/sqrt(2), -1/2)`: every component exact in f64, no trigonometry. The
//! normal of the height field `h(x, z)` is `(-dh/dx, 1, -dh/dz)` normalised, with the
//! derivatives taken by central differences over the pixel spacing.

/// The unit vector toward the light: north-west, 45 degrees up.
pub const LIGHT: [f64; 3] = [-0.5, std::f64::consts::FRAC_1_SQRT_2, -0.5];

/// The brightness of ambient light: what a face turned away from the light keeps.
pub const AMBIENT: f64 = 0.35;

/// The unit normal of a surface whose height rises by `dhdx` per metre along `+x` and
/// `dhdz` along `+z`.
pub fn normal(dhdx: f64, dhdz: f64) -> [f64; 3] {
    let (nx, ny, nz) = (-dhdx, 1.0, -dhdz);
    let len = (nx * nx + ny * ny + nz * nz).sqrt();
    [nx / len, ny / len, nz / len]
}

/// The cosine between the normal and the light (`n . L`), clamped at zero: 1 facing
/// the light, 0 turned away from it.
pub fn lambert(n: [f64; 3]) -> f64 {
    let d = n[0] * LIGHT[0] + n[1] * LIGHT[1] + n[2] * LIGHT[2];
    d.max(0.0)
}

/// The factor a pixel's colour is multiplied by: `AMBIENT + (1 - AMBIENT) * (n . L) /
/// L.y`, so level ground keeps its colour exactly (factor 1), slopes facing the
/// light brighten (up to `1 / L.y`, about 1.41 scaled) and slopes facing away darken
/// toward `AMBIENT`.
pub fn factor(dhdx: f64, dhdz: f64) -> f64 {
    let level = lambert(normal(dhdx, dhdz)) / LIGHT[1];
    AMBIENT + (1.0 - AMBIENT) * level
}

/// The shading factors of the `w x h` pixels whose heights, with a one-pixel border,
/// are `heights` (`(w + 2) x (h + 2)`, row-major, x fastest), `spacing` metres apart.
pub fn factors(heights: &[f64], w: usize, h: usize, spacing: f64) -> Vec<f64> {
    let stride = w + 2;
    let at = |ix: usize, iz: usize| heights[iz * stride + ix];
    let mut out = Vec::with_capacity(w * h);
    for j in 0..h {
        for i in 0..w {
            let (ix, iz) = (i + 1, j + 1);
            let dhdx = (at(ix + 1, iz) - at(ix - 1, iz)) / (2.0 * spacing);
            let dhdz = (at(ix, iz + 1) - at(ix, iz - 1)) / (2.0 * spacing);
            out.push(factor(dhdx, dhdz));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_light_is_a_unit_vector_from_the_north_west() {
        let len = (LIGHT[0] * LIGHT[0] + LIGHT[1] * LIGHT[1] + LIGHT[2] * LIGHT[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-15, "{len}");
        // North-west: toward -x and -z, equally.
        const { assert!(LIGHT[0] < 0.0 && LIGHT[2] < 0.0 && LIGHT[0] == LIGHT[2]) };
    }

    #[test]
    fn a_plane_keeps_its_colour_at_any_height() {
        for base in [-20.0, 0.0, 9.0, 123.456] {
            let heights = vec![base; 5 * 4];
            let f = factors(&heights, 3, 2, 0.5);
            assert_eq!(f.len(), 6);
            for v in f {
                assert_eq!(v, 1.0, "level ground at {base}");
            }
        }
        assert_eq!(normal(0.0, 0.0), [0.0, 1.0, 0.0]);
    }

    #[test]
    fn a_known_slope_is_shaded_as_the_formula_says() {
        // h = 0.75 x - 0.25 z: rises to the east and to the north.
        let (sx, sz, spacing) = (0.75, -0.25, 2.0);
        let (w, h) = (4, 3);
        let mut heights = Vec::new();
        for iz in 0..h + 2 {
            for ix in 0..w + 2 {
                heights.push(sx * ix as f64 * spacing + sz * iz as f64 * spacing);
            }
        }
        let f = factors(&heights, w, h, spacing);
        // n = (-sx, 1, -sz) / |.|, n.L = (0.5 sx + sqrt(1/2) + 0.5 sz) / |.|.
        let len = (sx * sx + 1.0 + sz * sz).sqrt();
        let dot = (0.5 * sx + std::f64::consts::FRAC_1_SQRT_2 + 0.5 * sz) / len;
        let want = AMBIENT + (1.0 - AMBIENT) * dot / std::f64::consts::FRAC_1_SQRT_2;
        for v in &f {
            assert!((v - want).abs() < 1e-12, "{v} vs {want}");
        }
        // Rising to the east faces west, toward the light: brighter than level.
        assert!(want > 1.0);
    }

    #[test]
    fn slopes_facing_the_light_are_brighter_than_slopes_facing_away() {
        // Facing north-west (rising toward the south-east) against facing south-east.
        let toward = factor(0.5, 0.5);
        let away = factor(-0.5, -0.5);
        assert!(toward > 1.0 && away < 1.0, "{toward} {away}");
        // A cliff turned fully away keeps only the ambient light.
        assert_eq!(factor(-1e9, -1e9), AMBIENT);
        // Facing the light head on: the brightest, 1 / L.y scaled.
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let best = factor(s, s);
        let want = AMBIENT + (1.0 - AMBIENT) / std::f64::consts::FRAC_1_SQRT_2;
        assert!((best - want).abs() < 1e-12);
    }
}
