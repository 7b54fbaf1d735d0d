//! The HTTP request parts every route reads, as axum extractors whose rejection is the
//! [`ApiError`] naming the field: the `{world}` path, the world and id of a zone or
//! viewer path, the world and indices of a tile or voxel chunk path, of a 3D Tiles
//! subtree or content path, the query string and the admin token.
//!
//! One number grammar for every query parameter, as for path indices: the value as
//! Rust parses it, with no surrounding spaces (`x=%201` is refused, as a tile index
//! `" 1"` is). Non-finite numbers (`NaN`, `inf`) parse here and are refused by the
//! query engine's range checks, with the same message as over gRPC. Unknown parameters
//! are refused before the handler runs, naming them ([`super::query_keys`]).

use std::sync::Arc;

use axum::{
    extract::{FromRequestParts, Path},
    http::{Uri, header::AUTHORIZATION, request::Parts},
};
use terrain_core::quote::Quoted;

use crate::api::{ApiError, ApiState, access};

/// The `{world}` segment of a route whose only path parameter it is (field `world`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct World(pub String);

impl<S: Send + Sync> FromRequestParts<S> for World {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(world) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| ApiError::invalid("world", rejection.body_text()))?;
        Ok(World(world))
    }
}

/// `/v1/worlds/{world}/<things>/{id}`: a zone's or a viewer's path (field `path`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldItem {
    pub world: String,
    pub id: String,
}

impl<S: Send + Sync> FromRequestParts<S> for WorldItem {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path((world, id)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| ApiError::invalid("path", rejection.body_text()))?;
        Ok(WorldItem { world, id })
    }
}

/// `/v1/worlds/{world}/tiles/{tx}/{tz}/...`: a tile's world and indices, refused
/// naming `tx` or `tz`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TilePath {
    pub world: String,
    pub tile: (i64, i64),
}

impl<S: Send + Sync> FromRequestParts<S> for TilePath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let (world, tile) = indexed_path(parts, state, ["tx", "tz"], "tile").await?;
        Ok(TilePath { world, tile })
    }
}

/// `/v1/worlds/{world}/tiles/{cx}/{cz}/...` on a voxel world: a chunk's world and
/// indices, refused naming `cx` or `cz`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkPath {
    pub world: String,
    pub chunk: (i64, i64),
}

impl<S: Send + Sync> FromRequestParts<S> for ChunkPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let (world, chunk) = indexed_path(parts, state, ["cx", "cz"], "chunk").await?;
        Ok(ChunkPath { world, chunk })
    }
}

/// `/v1/worlds/{world}/3dtiles/subtrees/{level}.{x}.{y}.subtree`: a subtree file's
/// world and root indices, written as the subtree template writes them (refused
/// naming `file`). Whether it is a subtree of the world's tileset is the route's
/// check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubtreePath {
    pub world: String,
    pub level: u32,
    pub x: u64,
    pub y: u64,
}

impl<S: Send + Sync> FromRequestParts<S> for SubtreePath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path((world, file)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| ApiError::invalid("path", rejection.body_text()))?;
        let malformed = || {
            ApiError::invalid(
                "file",
                format!("{file:?}: expected {{level}}.{{x}}.{{y}}.subtree"),
            )
        };
        let stem = file.strip_suffix(".subtree").ok_or_else(malformed)?;
        let parts: Vec<&str> = stem.split('.').collect();
        let [level, x, y] = parts[..] else {
            return Err(malformed());
        };
        let level = u32::try_from(canonical_index(level, "file")?)
            .map_err(|_| ApiError::invalid("file", "level too large"))?;
        let (x, y) = (canonical_index(x, "file")?, canonical_index(y, "file")?);
        Ok(SubtreePath { world, level, x, y })
    }
}

/// `/v1/worlds/{world}/3dtiles/content/{level}/{x}/{y}.glb`: a tileset content's
/// world and indices, refused naming `level`, `x` or `file`. Whether the indices are
/// inside the world's tileset is the route's check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentPath {
    pub world: String,
    pub level: u32,
    pub x: u64,
    pub y: u64,
}

impl<S: Send + Sync> FromRequestParts<S> for ContentPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path((world, level, x, file)) =
            Path::<(String, String, String, String)>::from_request_parts(parts, state)
                .await
                .map_err(|rejection| ApiError::invalid("path", rejection.body_text()))?;
        let index = |field: &'static str, raw: &str| canonical_index(raw, field);
        let level = u32::try_from(index("level", &level)?)
            .map_err(|_| ApiError::invalid("level", "too large"))?;
        let x = index("x", &x)?;
        let y = file
            .strip_suffix(".glb")
            .ok_or_else(|| ApiError::invalid("file", format!("{file:?}: expected {{y}}.glb")))?;
        let y = index("file", y)?;
        Ok(ContentPath { world, level, x, y })
    }
}

/// A tileset index as the tileset's content template writes it: decimal digits, no
/// sign, no leading zero (so each content has one URL: `01` and `+1` are refused
/// naming `field`, not served as 1).
fn canonical_index(raw: &str, field: &'static str) -> Result<u64, ApiError> {
    let digits = !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit());
    let canonical = digits && (raw == "0" || !raw.starts_with('0'));
    canonical
        .then(|| raw.parse::<u64>().ok())
        .flatten()
        .ok_or_else(|| {
            ApiError::invalid(
                field,
                format!(
                    "expected a tile index in decimal digits without a sign or leading zeros, got {}",
                    Quoted(raw)
                ),
            )
        })
}

/// The world and the two integer indices of a `/v1/worlds/{world}/tiles/{x}/{z}/...`
/// path (a tile, or a voxel chunk: `what`), each refused naming its field.
async fn indexed_path<S: Send + Sync>(
    parts: &mut Parts,
    state: &S,
    fields: [&'static str; 2],
    what: &str,
) -> Result<(String, (i64, i64)), ApiError> {
    let Path((world, x, z)) = Path::<(String, String, String)>::from_request_parts(parts, state)
        .await
        .map_err(|rejection| ApiError::invalid("path", rejection.body_text()))?;
    Ok((world, path_indices([&x, &z], fields, what)?))
}

/// The two integer indices of a tile or chunk path (`what`), from their decoded path
/// segments; a segment that is not an `i64` is refused naming its field (`fields`).
pub fn path_indices(
    raw: [&str; 2],
    fields: [&'static str; 2],
    what: &str,
) -> Result<(i64, i64), ApiError> {
    let index = |field: &'static str, raw: &str| {
        raw.parse::<i64>().map_err(|_| {
            ApiError::invalid(
                field,
                format!("expected an integer {what} index, got {}", Quoted(raw)),
            )
        })
    };
    Ok((index(fields[0], raw[0])?, index(fields[1], raw[1])?))
}

/// The decoded query string of one request. A query string that does not decode is
/// refused (field `query`) when a parameter is first read, so a route that reads none
/// answers as if it were absent and the other parts of the request are checked in
/// the route's own order.
#[derive(Debug, Clone, PartialEq)]
pub struct Query(Result<Vec<(String, String)>, ApiError>);

impl<S: Send + Sync> FromRequestParts<S> for Query {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        _state: &S,
    ) -> Result<Self, std::convert::Infallible> {
        Ok(Query::from_uri(&parts.uri))
    }
}

impl Query {
    /// The query string of `uri`, decoded as axum decodes it.
    pub fn from_uri(uri: &Uri) -> Self {
        let pairs = axum::extract::Query::<Vec<(String, String)>>::try_from_uri(uri)
            .map(|axum::extract::Query(pairs)| pairs)
            .map_err(|rejection| ApiError::invalid("query", rejection.body_text()));
        Query(pairs)
    }

    /// The pairs, in order (as decoded from a query string in tests).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        Query(Ok(pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()))
    }

    /// Every pair, or the error naming the query string.
    pub fn pairs(&self) -> Result<&[(String, String)], ApiError> {
        self.0.as_deref().map_err(Clone::clone)
    }

    /// The raw value of `name` if given, refused when given more than once.
    pub fn at_most_once(&self, name: &'static str) -> Result<Option<&str>, ApiError> {
        let mut values = self
            .pairs()?
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str());
        match (values.next(), values.next()) {
            (v, None) => Ok(v),
            (_, Some(_)) => Err(ApiError::invalid(name, "given more than once")),
        }
    }

    /// The raw value of `name`: present exactly once.
    pub fn required(&self, name: &'static str) -> Result<&str, ApiError> {
        self.at_most_once(name)?
            .ok_or_else(|| ApiError::invalid(name, "required query parameter is missing"))
    }

    /// A number (possibly non-finite; the engine checks the range).
    pub fn number(&self, name: &'static str) -> Result<f64, ApiError> {
        let raw = self.required(name)?;
        raw.parse()
            .map_err(|_| ApiError::invalid(name, format!("expected a number, got {}", Quoted(raw))))
    }

    /// An optional revision: an unsigned integer, given at most once.
    pub fn revision(&self, name: &'static str) -> Result<Option<u64>, ApiError> {
        let Some(raw) = self.at_most_once(name)? else {
            return Ok(None);
        };
        raw.parse().map(Some).map_err(|_| {
            let reason = format!(
                "expected an unsigned integer (a revision), got {}",
                Quoted(raw)
            );
            ApiError::invalid(name, reason)
        })
    }

    /// A sample count: an integer; zero and negatives come back as 0, which the engine
    /// refuses with "must be greater than 0".
    pub fn count(&self, name: &'static str) -> Result<u64, ApiError> {
        let raw = self.required(name)?;
        let v: i128 = raw.parse().map_err(|_| {
            ApiError::invalid(name, format!("expected an integer, got {}", Quoted(raw)))
        })?;
        Ok(u64::try_from(v.max(0)).unwrap_or(u64::MAX))
    }
}

/// A request allowed to change worlds: its `Authorization` header holds the admin token
/// (or none is configured). Refused with `401` (field `authorization`).
#[derive(Debug, Clone, Copy)]
pub struct Admin;

impl FromRequestParts<Arc<ApiState>> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<ApiState>,
    ) -> Result<Self, ApiError> {
        let credentials = parts.headers.get(AUTHORIZATION).map(|v| v.as_bytes());
        access::authorize(state, credentials)?;
        Ok(Admin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_errors() {
        let p = Query::from_pairs(&[
            ("x", "1.5"),
            ("z", "abc"),
            ("n", "-3"),
            ("s", "1"),
            ("s", "2"),
        ]);
        assert_eq!(p.number("x"), Ok(1.5));
        assert_eq!(p.number("z").unwrap_err().field(), Some("z"));
        assert_eq!(p.number("w").unwrap_err().field(), Some("w"));
        assert_eq!(p.count("n"), Ok(0));
        assert_eq!(p.count("x").unwrap_err().field(), Some("x"));
        assert_eq!(p.number("s").unwrap_err().field(), Some("s"));
        assert!(
            Query::from_pairs(&[("x", "NaN")])
                .number("x")
                .unwrap()
                .is_nan()
        );
        // One grammar: surrounding spaces are refused, as in a tile index.
        for raw in ["  1", "1 ", " 1", "\t2"] {
            let p = Query::from_pairs(&[("x", raw), ("n", raw)]);
            assert_eq!(p.number("x").unwrap_err().field(), Some("x"), "{raw:?}");
            assert_eq!(p.count("n").unwrap_err().field(), Some("n"), "{raw:?}");
        }
        // A long value is quoted briefly.
        let long = "9".repeat(100_000) + "x";
        let err = Query::from_pairs(&[("x", &long)])
            .number("x")
            .unwrap_err()
            .to_string();
        assert!(err.len() < 200 && err.ends_with("(100001 bytes)"), "{err}");
    }

    #[test]
    fn tileset_indices_have_one_spelling() {
        assert_eq!(canonical_index("0", "x"), Ok(0));
        assert_eq!(canonical_index("10", "x"), Ok(10));
        for raw in [
            "01",
            "+1",
            "00",
            "-0",
            "",
            " 1",
            "1e1",
            "18446744073709551616",
        ] {
            let err = canonical_index(raw, "level").unwrap_err();
            assert_eq!(err.field(), Some("level"), "{raw:?}");
        }
    }

    #[test]
    fn at_most_once_names_a_repeated_parameter() {
        let q = Query::from_pairs(&[("mode", "exact"), ("mode", "surface")]);
        assert_eq!(q.at_most_once("mode").unwrap_err().field(), Some("mode"));
        assert_eq!(q.at_most_once("format"), Ok(None));
        let bad = Query(Err(ApiError::invalid("query", "bad")));
        assert_eq!(bad.at_most_once("mode").unwrap_err().field(), Some("query"));
    }
}
