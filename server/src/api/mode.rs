//! The `mode` of a height query, as either surface gives it: HTTP's
//! `mode=exact|surface|procedural` query parameter, gRPC's `HeightMode` enum value. Both default to the exact height
//! and refuse anything else naming field `mode`.

use crate::query::HeightMode;

use super::ApiError;

/// The mode of an HTTP `mode` parameter (absent: exact).
pub fn from_query(raw: Option<&str>) -> Result<HeightMode, ApiError> {
    match raw {
        None => Ok(HeightMode::Exact),
        Some(raw) => Ok(raw.parse::<HeightMode>()?),
    }
}

/// The mode of a protobuf `HeightMode` value: unspecified and exact are the exact
/// height.
pub fn from_proto(value: i32) -> Result<HeightMode, ApiError> {
    Ok(HeightMode::from_proto(value)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_modes_name_the_field() {
        assert_eq!(from_query(None), Ok(HeightMode::Exact));
        assert_eq!(from_query(Some("surface")), Ok(HeightMode::Surface));
        assert_eq!(from_query(Some("procedural")), Ok(HeightMode::Procedural));
        let err = from_query(Some("mesh")).unwrap_err();
        assert_eq!(err.field(), Some("mode"));
        assert_eq!(from_proto(0), Ok(HeightMode::Exact));
        assert_eq!(from_proto(99).unwrap_err().field(), Some("mode"));
    }
}
