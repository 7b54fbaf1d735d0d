//! The shoreline adjustment (docs/src/reference/height.md, "The shoreline adjustment"): near the water line (9 m), gently
//! sloping ground is pushed away from the water so shores read as shores.

/// The water line, in metres.
const WATER: f64 = 9.0;
/// Half-width of the band around the water line the adjustment acts in.
const BAND: f64 = 3.0;
/// Slopes at or above this leave heights untouched.
const MIN_SLOPE: f64 = 0.06;
const LAND_MAX_MUL: f64 = 1.6;
const UNDERWATER_MAX_MUL: f64 = 1.8;
/// Distance of the four slope samples, in metres.
const SAMPLE: f64 = 1.0;

/// True when `b` is inside the band where the adjustment may act (`6 < b < 12`); only
/// then are the four neighbour samples needed.
#[inline(always)]
pub(crate) fn in_band(b: f64) -> bool {
    b < WATER + BAND && b > WATER - BAND
}

/// `computed(x, z)` of §5.2 given `b = noShore(x, z)` and the un-shored height function
/// for the neighbours.
#[inline]
pub(crate) fn computed(b: f64, x: f64, z: f64, no_shore: impl Fn(f64, f64) -> f64) -> f64 {
    if !in_band(b) {
        return b;
    }
    let [n, s, e, w] = neighbours(x, z).map(|(nx, nz)| no_shore(nx, nz));
    from_neighbours(b, [n, s, e, w])
}

/// The four slope samples of `(x, z)`, in the order §5.2 takes them: north, south,
/// east, west.
#[inline(always)]
pub(crate) fn neighbours(x: f64, z: f64) -> [(f64, f64); 4] {
    [
        (x, z + SAMPLE),
        (x, z - SAMPLE),
        (x + SAMPLE, z),
        (x - SAMPLE, z),
    ]
}

/// `computed` of a point in the band, from `b` and the un-shored heights of its
/// [`neighbours`] (in their order).
#[inline]
pub(crate) fn from_neighbours(b: f64, heights: [f64; 4]) -> f64 {
    let slope = heights
        .into_iter()
        .map(|v| (v - b).abs() / SAMPLE)
        .fold(0.0, f64::max);
    adjust(b, slope)
}

/// `adjust(b, s)` of §5.3.
pub(crate) fn adjust(b: f64, slope: f64) -> f64 {
    if b == WATER {
        return b;
    }
    let land = b > WATER;
    let delta = (b - WATER).abs();
    if delta >= BAND {
        return b;
    }
    let max_mul = if land {
        LAND_MAX_MUL
    } else {
        UNDERWATER_MAX_MUL
    };
    let target = f64::min(max_mul, f64::max(1.0, MIN_SLOPE / f64::max(0.0001, slope)));
    let fall = 1.0 - delta / BAND;
    let mul = 1.0 + (target - 1.0) * fall;
    let adj = delta * mul;
    if land { WATER + adj } else { WATER - adj }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steep_shores_are_untouched() {
        for b in [6.5, 8.0, 9.5, 11.9] {
            assert_eq!(adjust(b, 0.06), b);
            assert_eq!(adjust(b, 3.0), b);
        }
    }

    #[test]
    fn flat_shores_are_pushed_away_from_the_water() {
        // Land, flat: target 1.6, fall 1 - 1/3: 9 + 1 * (1 + 0.6 * 2/3) = 10.4.
        assert!((adjust(10.0, 0.0) - 10.4).abs() < 1e-12);
        // Underwater, flat: target 1.8: 9 - 1 * (1 + 0.8 * 2/3).
        assert!((adjust(8.0, 0.0) - (9.0 - (1.0 + 0.8 * 2.0 / 3.0))).abs() < 1e-12);
        // Slope 0.05: target 0.06 / 0.05 = 1.2 on land.
        assert!((adjust(10.0, 0.05) - (9.0 + (1.0 + 0.2 * 2.0 / 3.0))).abs() < 1e-12);
        // Slope 0.03 would ask for 2, capped at 1.6.
        assert_eq!(adjust(10.0, 0.03), adjust(10.0, 0.0));
        assert_eq!(adjust(9.0, 0.0), 9.0);
    }

    #[test]
    fn slope_is_the_largest_neighbour_difference() {
        // Neighbours differ by 0.01 and 0.03: slope 0.03, so target 2 capped to 1.6.
        let field = |x: f64, z: f64| {
            10.0 + if x > 0.5 { 0.03 } else { 0.0 } + if z > 0.5 { 0.01 } else { 0.0 }
        };
        let got = computed(10.0, 0.0, 0.0, field);
        assert_eq!(got, adjust(10.0, 0.03));
        assert_eq!(computed(12.5, 0.0, 0.0, |_, _| unreachable!()), 12.5);
    }
}
