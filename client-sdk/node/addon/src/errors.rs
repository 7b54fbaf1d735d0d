//! The JavaScript errors the addon throws, and the checks of flat point arrays that
//! raise them: an invalid argument names its field as JavaScript spells it.

use napi::{Error, Result, Status};
use terrain_client::ClientError;

pub(crate) fn js_error(e: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, e.to_string())
}

pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, message.into())
}

pub(crate) fn closed_error() -> Error {
    Error::new(Status::GenericFailure, "LocalTerrain is closed")
}

/// The points of a flat `[x0, z0, x1, z1, ...]` array, or why not.
pub(crate) fn pairs(points: &[f64]) -> Result<std::slice::ChunksExact<'_, f64>> {
    if !points.len().is_multiple_of(2) {
        return Err(invalid(format!(
            "points: expected x, z pairs (an even length), got {} numbers",
            points.len()
        )));
    }
    Ok(points.chunks_exact(2))
}

/// The error of point `i` of a flat `[x0, z0, ...]` array, its field the number's
/// index there (`points[3]: must be finite`).
pub(crate) fn point_error(i: usize, e: ClientError) -> Error {
    match e {
        ClientError::InvalidArgument { field, message } => {
            let at = 2 * i + usize::from(field == "z");
            invalid(format!("points[{at}]: {message}"))
        }
        other => sdk_error(other),
    }
}

/// An SDK error as a JS error; an invalid argument names its field as JS spells it.
pub(crate) fn sdk_error(e: terrain_client::ClientError) -> Error {
    match e {
        terrain_client::ClientError::InvalidArgument { field, message } => {
            let field = match field.as_str() {
                "max_nodes" => "maxNodes".to_string(),
                "max_distance" => "maxDistance".to_string(),
                _ => match field.strip_prefix("coordinates") {
                    // The flat array's index, as the server's `coordinates[k]`.
                    Some(rest) => format!("points{rest}"),
                    None => field,
                },
            };
            invalid(format!("{field}: {message}"))
        }
        other => js_error(other),
    }
}
