//! The limits of the movement queries and their checks, in one place: the server
//! (HTTP and gRPC) and the SDK's local replica refuse the same requests with the
//! same messages, each naming its own fields (`maxNodes` over HTTP, `max_nodes`
//! over gRPC and in Rust). Changing a limit is this file and its documentation
//! (docs/src/movement.md).

use crate::{coordinate::check_coordinate, quote::Num};

/// Most points of one polyline a query checks.
pub const MAX_PATH_POINTS: usize = 1024;
/// Longest polyline a query checks, metres (the sum of its segments).
pub const MAX_PATH_LENGTH: f64 = 10_000.0;
/// Most nodes one path search may expand, and its default.
pub const MAX_NODES: usize = 1_000_000;
pub const DEFAULT_MAX_NODES: usize = 100_000;
/// Longest straight distance between a search's ends, metres, and its default.
pub const MAX_DISTANCE: f64 = 5_000.0;
pub const DEFAULT_MAX_DISTANCE: f64 = 1_000.0;
/// Longest side of one walk grid, in 1 m tiles (its area is bounded by the batch
/// limit as well).
pub const MAX_WALK_GRID_SIDE: u32 = 4096;
/// Most tiles of one walk grid a local replica computes: the server's default batch
/// limit (`max_batch_points`, over which its `walk-grid` is `413`, field `width`). A
/// server configured with a larger batch limit answers larger grids; a replica keeps
/// to the default, so what it answers every server with default limits answers too.
pub const MAX_WALK_GRID_TILES: usize = 1_000_000;

/// A request over a limit, or with a value out of range: the field at fault (as the
/// caller named it) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitError {
    pub field: String,
    pub reason: String,
    /// Over a size limit (`RESOURCE_EXHAUSTED`) rather than malformed or out of range
    /// (`INVALID_ARGUMENT`).
    pub too_large: bool,
}

impl LimitError {
    fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        LimitError {
            field: field.into(),
            reason: reason.into(),
            too_large: false,
        }
    }

    fn too_large(field: impl Into<String>, reason: impl Into<String>) -> Self {
        LimitError {
            too_large: true,
            ..LimitError::invalid(field, reason)
        }
    }
}

/// A point within `±max_coordinate` on both axes, the axis named in the reason
/// (`x must be finite`).
pub fn check_point(
    field: impl FnOnce() -> String,
    (x, z): (f64, f64),
    max_coordinate: f64,
) -> Result<(), LimitError> {
    for (axis, v) in [("x", x), ("z", z)] {
        if let Err(reason) = check_coordinate(v, max_coordinate) {
            return Err(LimitError::invalid(field(), format!("{axis} {reason}")));
        }
    }
    Ok(())
}

/// A polyline of 1 to [`MAX_PATH_POINTS`] points within `±max_coordinate`, at most
/// [`MAX_PATH_LENGTH`] long: answers its length. Points are named `field[i]`.
pub fn check_polyline(
    points: &[(f64, f64)],
    max_coordinate: f64,
    field: &str,
) -> Result<f64, LimitError> {
    if points.is_empty() {
        return Err(LimitError::invalid(field, "at least one point"));
    }
    if points.len() > MAX_PATH_POINTS {
        let reason = format!(
            "{} points exceed the limit of {MAX_PATH_POINTS} per path",
            points.len()
        );
        return Err(LimitError::too_large(field, reason));
    }
    for (i, &p) in points.iter().enumerate() {
        check_point(|| format!("{field}[{i}]"), p, max_coordinate)?;
    }
    let length: f64 = points
        .windows(2)
        .map(|w| libm::hypot(w[1].0 - w[0].0, w[1].1 - w[0].1))
        .sum();
    if length > MAX_PATH_LENGTH {
        let reason = format!(
            "the path is {} m long, over the limit of {} m",
            Num(length),
            Num(MAX_PATH_LENGTH)
        );
        return Err(LimitError::too_large(field, reason));
    }
    Ok(length)
}

/// How a surface names the fields of a path search.
#[derive(Debug, Clone, Copy)]
pub struct SearchFields {
    pub from: &'static str,
    pub to: &'static str,
    pub max_nodes: &'static str,
    pub max_distance: &'static str,
}

/// A path search's bounds, checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchBounds {
    /// Nodes the search may expand.
    pub max_nodes: usize,
    /// The longest straight distance allowed between its ends, metres.
    pub max_distance: f64,
}

/// A search from `from` to `to` (within `±max_coordinate`), expanding at most
/// `max_nodes` (1 to [`MAX_NODES`], default [`DEFAULT_MAX_NODES`]) with its ends at
/// most `max_distance` apart (above 0 and at most [`MAX_DISTANCE`], default
/// [`DEFAULT_MAX_DISTANCE`]).
pub fn check_search(
    from: (f64, f64),
    to: (f64, f64),
    max_nodes: Option<u64>,
    max_distance: Option<f64>,
    max_coordinate: f64,
    fields: SearchFields,
) -> Result<SearchBounds, LimitError> {
    check_point(|| fields.from.into(), from, max_coordinate)?;
    check_point(|| fields.to.into(), to, max_coordinate)?;
    let max_nodes = match max_nodes {
        None => DEFAULT_MAX_NODES,
        Some(n) if n >= 1 && n <= MAX_NODES as u64 => n as usize,
        Some(n) => {
            let reason = format!("must be between 1 and {MAX_NODES}, got {n}");
            return Err(LimitError::invalid(fields.max_nodes, reason));
        }
    };
    let max_distance = match max_distance {
        None => DEFAULT_MAX_DISTANCE,
        Some(d) if d.is_finite() && d > 0.0 && d <= MAX_DISTANCE => d,
        Some(d) => {
            let reason = format!(
                "must be above 0 and at most {}, got {}",
                Num(MAX_DISTANCE),
                Num(d)
            );
            return Err(LimitError::invalid(fields.max_distance, reason));
        }
    };
    let distance = libm::hypot(to.0 - from.0, to.1 - from.1);
    if distance > max_distance {
        let reason = format!(
            "{} m from `{}`, farther than maxDistance ({} m)",
            Num(distance),
            fields.from,
            Num(max_distance)
        );
        return Err(LimitError::invalid(fields.to, reason));
    }
    Ok(SearchBounds {
        max_nodes,
        max_distance,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: SearchFields = SearchFields {
        from: "from",
        to: "to",
        max_nodes: "maxNodes",
        max_distance: "maxDistance",
    };

    #[test]
    fn polylines_are_bounded_by_count_coordinates_and_length() {
        assert_eq!(
            check_polyline(&[(0.0, 0.0), (3.0, 4.0)], 100.0, "points"),
            Ok(5.0)
        );
        let err = check_polyline(&[], 100.0, "points").unwrap_err();
        assert_eq!((err.field.as_str(), err.too_large), ("points", false));
        let many = vec![(0.0, 0.0); MAX_PATH_POINTS + 1];
        let err = check_polyline(&many, 100.0, "points").unwrap_err();
        assert_eq!((err.field.as_str(), err.too_large), ("points", true));
        assert!(check_polyline(&vec![(0.0, 0.0); MAX_PATH_POINTS], 100.0, "points").is_ok());
        let err = check_polyline(&[(0.0, 0.0), (1.0, f64::NAN)], 100.0, "points").unwrap_err();
        assert_eq!(err.field, "points[1]");
        assert_eq!(err.reason, "z must be finite");
        let err = check_polyline(&[(0.0, 0.0), (101.0, 0.0)], 100.0, "points").unwrap_err();
        assert_eq!(err.field, "points[1]");
        // 10 km exactly passes, a little more does not.
        let zigzag = [(0.0, 0.0), (5_000.0, 0.0), (0.0, 0.0)];
        assert_eq!(check_polyline(&zigzag, 6_000.0, "p"), Ok(MAX_PATH_LENGTH));
        let err = check_polyline(&[(0.0, 0.0), (5_000.0, 0.0), (0.0, 0.001)], 6_000.0, "p");
        assert!(err.unwrap_err().too_large);
    }

    #[test]
    fn searches_take_defaults_and_refuse_out_of_range_bounds() {
        let ok = check_search((0.0, 0.0), (10.0, 0.0), None, None, 100.0, FIELDS).unwrap();
        assert_eq!(
            ok,
            SearchBounds {
                max_nodes: DEFAULT_MAX_NODES,
                max_distance: DEFAULT_MAX_DISTANCE
            }
        );
        let field = |nodes, distance, to| {
            check_search((0.0, 0.0), to, nodes, distance, 10_000.0, FIELDS)
                .unwrap_err()
                .field
        };
        assert_eq!(field(Some(0), None, (1.0, 0.0)), "maxNodes");
        assert_eq!(
            field(Some(MAX_NODES as u64 + 1), None, (1.0, 0.0)),
            "maxNodes"
        );
        assert_eq!(field(None, Some(0.0), (1.0, 0.0)), "maxDistance");
        assert_eq!(
            field(None, Some(MAX_DISTANCE * 2.0), (1.0, 0.0)),
            "maxDistance"
        );
        assert_eq!(field(None, Some(f64::NAN), (1.0, 0.0)), "maxDistance");
        assert_eq!(field(None, Some(5.0), (6.0, 0.0)), "to");
        assert_eq!(field(None, None, (f64::INFINITY, 0.0)), "to");
        let far = check_search((0.0, 0.0), (0.0, 2_000.0), None, None, 1e4, FIELDS).unwrap_err();
        assert_eq!(
            far.reason,
            "2000 m from `from`, farther than maxDistance (1000 m)"
        );
        let bounds = check_search(
            (0.0, 0.0),
            (0.0, 2_000.0),
            Some(1),
            Some(MAX_DISTANCE),
            1e4,
            FIELDS,
        );
        assert_eq!(bounds.map(|b| b.max_nodes), Ok(1));
    }
}
