//! The input validators the domain shares: coordinates and extents as every service
//! checks them (queries, zones, layout, lifecycle), against the configured
//! `max_coordinate`. Each answers the reason only; the caller names the field and
//! wraps it in its own error type.

/// A coordinate must be finite and within `[-max, max]`.
pub fn check_coordinate(v: f64, max: f64) -> Result<(), String> {
    if !v.is_finite() {
        Err("must be finite".to_string())
    } else if v.abs() > max {
        Err(format!("must be within [-{max}, {max}], got {v}"))
    } else {
        Ok(())
    }
}

/// An extent (a width or depth, in metres) must be finite, at least 0 and at most
/// `max`.
pub fn check_extent(v: f64, max: f64) -> Result<(), String> {
    if !(v.is_finite() && v >= 0.0) {
        Err(format!("must be a finite number of metres >= 0, got {v}"))
    } else if v > max {
        Err(format!("must be at most {max} metres, got {v}"))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_and_extents() {
        assert!(check_coordinate(1e9, 1e9).is_ok());
        assert_eq!(
            check_coordinate(f64::NAN, 1e9).unwrap_err(),
            "must be finite"
        );
        assert!(
            check_coordinate(-2e9, 1e9)
                .unwrap_err()
                .contains("got -2000000000")
        );
        assert!(check_extent(0.0, 10.0).is_ok());
        assert!(check_extent(-1.0, 10.0).unwrap_err().contains(">= 0"));
        assert!(check_extent(f64::INFINITY, 10.0).is_err());
        assert_eq!(
            check_extent(11.0, 10.0).unwrap_err(),
            "must be at most 10 metres, got 11"
        );
    }
}
