//! The coordinates point answers are defined over, and the one check every surface
//! applies before asking: the server's queries (against its configured
//! `max_coordinate`, at most [`COORDINATE_LIMIT`]), the Rust SDK's replica and the Node
//! addon (against [`COORDINATE_LIMIT`]).
//!
//! The core's own functions answer something for any `f64` without panicking (integer
//! conversions saturate), but what they answer outside the limit means nothing: a NaN
//! coordinate can land on a plausible height. Callers refuse such input with
//! [`check_coordinate`] instead of passing it on.

use crate::quote::Num;

/// The largest coordinate magnitude any world is defined over: 2^46 m (about 7e13 m).
/// Tile indices of every grid stay exact in `f64` and far inside `i64` there, and an
/// `f64` still resolves 3 cm, finer than any grid's vertex spacing. The server's
/// `max_coordinate` may be at most this.
pub const COORDINATE_LIMIT: f64 = (1u64 << 46) as f64;

/// Why coordinate `v` is refused against the limit `max` (`None`: accepted). The
/// caller names the field: `x: must be finite`.
#[inline]
pub fn check_coordinate(v: f64, max: f64) -> Result<(), String> {
    // Inlined: every point read starts here, and the refusal is rare.
    if v.is_finite() && v.abs() <= max {
        Ok(())
    } else {
        Err(coordinate_refusal(v, max))
    }
}

/// The refusal of [`check_coordinate`].
#[cold]
#[inline(never)]
fn coordinate_refusal(v: f64, max: f64) -> String {
    if !v.is_finite() {
        "must be finite".to_string()
    } else {
        format!(
            "must be within [-{}, {}], got {}",
            Num(max),
            Num(max),
            Num(v)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_and_out_of_range_are_refused_with_the_reason() {
        assert_eq!(
            check_coordinate(f64::NAN, 10.0).unwrap_err(),
            "must be finite"
        );
        assert_eq!(
            check_coordinate(f64::NEG_INFINITY, 10.0).unwrap_err(),
            "must be finite"
        );
        assert_eq!(
            check_coordinate(-1e300, COORDINATE_LIMIT).unwrap_err(),
            "must be within [-70368744177664, 70368744177664], got -1e300"
        );
        assert_eq!(check_coordinate(10.0, 10.0), Ok(()));
        assert_eq!(check_coordinate(-10.0, 10.0), Ok(()));
        assert!(check_coordinate(10.000001, 10.0).is_err());
    }
}
