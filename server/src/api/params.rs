//! HTTP query-string and path parameters, decoded by hand so every problem names its
//! parameter: a missing `z`, a non-numeric `x`, a repeated `step`.
//!
//! One number grammar for every query parameter, as for path indexes: the value as
//! Rust parses it, with no surrounding spaces (`x=%201` is refused, as a tile index
//! `" 1"` is). Non-finite numbers (`NaN`, `inf`) parse here and are refused by the query engine's
//! range checks, with the same message as over gRPC. Unknown parameters are ignored
//! (cache busters and tracing tags should not break a request).

use axum::extract::{
    Path, Query,
    rejection::{PathRejection, QueryRejection},
};

use terrain_core::quote::Quoted;

use crate::api::ApiError;

/// The decoded query string of one request.
#[derive(Debug)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// The pairs axum decoded, or an error naming the query string.
    pub fn new(
        query: Result<Query<Vec<(String, String)>>, QueryRejection>,
    ) -> Result<Self, ApiError> {
        match query {
            Ok(Query(pairs)) => Ok(Params { pairs }),
            Err(rejection) => Err(ApiError::invalid("query", rejection.body_text())),
        }
    }

    /// The raw value of `name`: present exactly once.
    fn raw(&self, name: &'static str) -> Result<&str, ApiError> {
        let mut values = self
            .pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str());
        match (values.next(), values.next()) {
            (Some(v), None) => Ok(v),
            (None, _) => Err(ApiError::invalid(
                name,
                "required query parameter is missing",
            )),
            (Some(_), Some(_)) => Err(ApiError::invalid(name, "given more than once")),
        }
    }

    /// A number (possibly non-finite; the engine checks the range).
    pub fn number(&self, name: &'static str) -> Result<f64, ApiError> {
        let raw = self.raw(name)?;
        raw.parse()
            .map_err(|_| ApiError::invalid(name, format!("expected a number, got {}", Quoted(raw))))
    }

    /// A sample count: an integer; zero and negatives come back as 0, which the engine
    /// refuses with "must be greater than 0".
    pub fn count(&self, name: &'static str) -> Result<u64, ApiError> {
        let raw = self.raw(name)?;
        let v: i128 = raw.parse().map_err(|_| {
            ApiError::invalid(name, format!("expected an integer, got {}", Quoted(raw)))
        })?;
        Ok(u64::try_from(v.max(0)).unwrap_or(u64::MAX))
    }
}

/// The `{world}` path segment.
pub fn world(path: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    path.map(|Path(world)| world)
        .map_err(|rejection| ApiError::invalid("world", rejection.body_text()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Params {
        Params {
            pairs: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn named_errors() {
        let p = params(&[
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
        assert!(params(&[("x", "NaN")]).number("x").unwrap().is_nan());
        // One grammar: surrounding spaces are refused, as in a tile index.
        for raw in ["  1", "1 ", " 1", "\t2"] {
            let p = params(&[("x", raw), ("n", raw)]);
            assert_eq!(p.number("x").unwrap_err().field(), Some("x"), "{raw:?}");
            assert_eq!(p.count("n").unwrap_err().field(), Some("n"), "{raw:?}");
        }
        // A long value is quoted briefly.
        let long = "9".repeat(100_000) + "x";
        let err = params(&[("x", &long)]).number("x").unwrap_err().to_string();
        assert!(err.len() < 200 && err.ends_with("(100001 bytes)"), "{err}");
    }
}
