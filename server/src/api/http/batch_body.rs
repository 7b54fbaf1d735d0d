//! Batch request bodies: `{"points": [[x, z], ...], "revision"?: r}` JSON, or
//! little-endian f64 pairs (`application/octet-stream`), read through
//! [`JsonBody`](super::body::JsonBody): [`Batch`] for the height batch (either form),
//! [`JsonPoints`] for terrain info (JSON only).
//!
//! The JSON is decoded straight into interleaved coordinates by a streaming visitor (no
//! intermediate `Value` tree: a million points stay one allocation), which tracks the
//! index of the point being read so a malformed point is reported as `points[i]`.

use std::{borrow::Cow, cell::Cell, fmt};

use axum::body::Bytes;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{
    OFFLOAD_BODY_BYTES,
    body::{BodyFormat, RequestBody},
    body_limit,
};
use crate::api::{ApiError, ApiState};

/// Decodes little-endian f64 pairs into interleaved coordinates.
pub fn decode_binary(body: &[u8]) -> Result<Vec<f64>, ApiError> {
    if !body.len().is_multiple_of(16) {
        let reason = format!(
            "length {} is not a multiple of 16 (pairs of little-endian f64)",
            body.len()
        );
        return Err(ApiError::invalid("body", reason));
    }
    Ok(body
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default()))
        .collect())
}

/// Encodes heights as little-endian f64.
pub fn encode_binary(heights: &[f64]) -> Vec<u8> {
    heights.iter().flat_map(|h| h.to_le_bytes()).collect()
}

/// A decoded JSON batch body.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// Interleaved coordinates `x0, z0, x1, z1, ...`.
    pub coords: Vec<f64>,
    /// The revision to answer as of (`null` or absent: now).
    pub revision: Option<u64>,
}

impl RequestBody for Batch {
    const BINARY: bool = true;

    fn limit(state: &ApiState) -> usize {
        body_limit(state.engine.limits())
    }

    /// Decodes either form, on the compute pool when the body is large; a binary body
    /// with too many points is refused before it is decoded (JSON is counted as it is
    /// decoded).
    async fn decode(state: &ApiState, format: BodyFormat, body: Bytes) -> Result<Self, ApiError> {
        let engine = &state.engine;
        let max_points = engine.limits().max_batch_points;
        if format == BodyFormat::Binary && body.len().is_multiple_of(16) {
            engine.check_batch_size(body.len() / 16, "points")?;
        }
        let small = body.len() <= OFFLOAD_BODY_BYTES;
        let decode = move || match format {
            BodyFormat::Binary => decode_binary(&body).map(|coords| Batch {
                coords,
                revision: None,
            }),
            BodyFormat::Json => decode_json(&body, max_points),
        };
        if small {
            return decode();
        }
        engine
            .compute()
            .run(decode)
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?
    }
}

/// A batch of points in JSON only (terrain info).
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPoints(pub Batch);

impl RequestBody for JsonPoints {
    fn limit(state: &ApiState) -> usize {
        Batch::limit(state)
    }

    async fn decode(state: &ApiState, format: BodyFormat, body: Bytes) -> Result<Self, ApiError> {
        Batch::decode(state, format, body).await.map(JsonPoints)
    }
}

/// Decodes `{"points": [[x, z], ...], "revision"?: r}` into interleaved coordinates
/// and the revision, refusing more than `max_points` points (`RESOURCE_EXHAUSTED`,
/// field `points`) as soon as it sees one, and a revision that is not an unsigned
/// integer (field `revision`).
pub fn decode_json(body: &[u8], max_points: usize) -> Result<Batch, ApiError> {
    let progress = Progress {
        max_points,
        point: Cell::new(None),
        failure: Cell::new(None),
    };
    let mut de = serde_json::Deserializer::from_slice(body);
    let result = BodySeed(&progress)
        .deserialize(&mut de)
        .and_then(|coords| de.end().map(|()| coords));
    result.map_err(|err| match progress.failure.get() {
        Some(Failure::TooMany) => ApiError::too_large(
            "points",
            format!("more than {max_points} points; the limit per request is {max_points}"),
        ),
        Some(Failure::MissingPoints) => ApiError::invalid("points", "missing (required)"),
        Some(Failure::Revision) => ApiError::invalid(
            "revision",
            format!("expected an unsigned integer (a revision) or null: {err}"),
        ),
        None => match progress.point.get() {
            Some(i) => ApiError::invalid(format!("points[{i}]"), err.to_string()),
            None => ApiError::invalid("body", err.to_string()),
        },
    })
}

/// Where decoding is, so an error can be blamed on the right field.
struct Progress {
    max_points: usize,
    /// The index of the point being read, while inside the `points` array.
    point: Cell<Option<usize>>,
    /// A failure the generic error message would not name well.
    failure: Cell<Option<Failure>>,
}

#[derive(Debug, Clone, Copy)]
enum Failure {
    TooMany,
    MissingPoints,
    Revision,
}

/// The keys of a batch body.
const KEYS: &[&str] = &["points", "revision"];

/// The top-level object: the key `points`, and optionally `revision`.
struct BodySeed<'a>(&'a Progress);

impl<'de> DeserializeSeed<'de> for BodySeed<'_> {
    type Value = Batch;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BodySeed<'_> {
    type Value = Batch;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"an object {"points": [[x, z], ...], "revision"?: r}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut coords = None;
        let mut revision: Option<Option<u64>> = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match &*key {
                "points" if coords.is_some() => {
                    return Err(de::Error::duplicate_field("points"));
                }
                "points" => coords = Some(map.next_value_seed(PointsSeed(self.0))?),
                "revision" if revision.is_some() => {
                    self.0.failure.set(Some(Failure::Revision));
                    return Err(de::Error::duplicate_field("revision"));
                }
                "revision" => {
                    self.0.failure.set(Some(Failure::Revision));
                    revision = Some(map.next_value::<Option<u64>>()?);
                    self.0.failure.set(None);
                }
                _ => return Err(de::Error::unknown_field(&key, KEYS)),
            }
        }
        let coords = coords.ok_or_else(|| {
            self.0.failure.set(Some(Failure::MissingPoints));
            de::Error::missing_field("points")
        })?;
        Ok(Batch {
            coords,
            revision: revision.flatten(),
        })
    }
}

/// The `points` array.
struct PointsSeed<'a>(&'a Progress);

impl<'de> DeserializeSeed<'de> for PointsSeed<'_> {
    type Value = Vec<f64>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PointsSeed<'_> {
    type Value = Vec<f64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of [x, z] points")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let progress = self.0;
        let hint = seq.size_hint().unwrap_or(0).min(progress.max_points);
        let mut coords = Vec::with_capacity(2 * hint);
        for i in 0.. {
            progress.point.set(Some(i));
            let Some([x, z]) = seq.next_element_seed(PointSeed)? else {
                break;
            };
            if i >= progress.max_points {
                progress.failure.set(Some(Failure::TooMany));
                return Err(de::Error::custom("too many points"));
            }
            coords.extend([x, z]);
        }
        progress.point.set(None);
        Ok(coords)
    }
}

/// One `[x, z]` point.
struct PointSeed;

impl<'de> DeserializeSeed<'de> for PointSeed {
    type Value = [f64; 2];

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PointSeed {
    type Value = [f64; 2];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a point [x, z] of two numbers")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let x = seq
            .next_element::<f64>()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let z = seq
            .next_element::<f64>()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        Ok([x, z])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(body: &str) -> String {
        decode_json(body.as_bytes(), 3)
            .unwrap_err()
            .field()
            .unwrap_or("-")
            .to_string()
    }

    #[test]
    fn decodes_in_order() {
        let batch = decode_json(br#"{"points": [[1, 2.5], [-3e2, 0.1]]}"#, 3).unwrap();
        assert_eq!(batch.coords, [1.0, 2.5, -300.0, 0.1]);
        assert_eq!(batch.revision, None);
        assert_eq!(
            decode_json(br#"{"points": []}"#, 3).unwrap().coords,
            Vec::<f64>::new()
        );
    }

    #[test]
    fn reads_the_revision() {
        let revision = |body: &str| decode_json(body.as_bytes(), 3).map(|b| b.revision);
        assert_eq!(
            revision(r#"{"points": [[1, 2]], "revision": 7}"#),
            Ok(Some(7))
        );
        assert_eq!(revision(r#"{"revision": 0, "points": []}"#), Ok(Some(0)));
        assert_eq!(revision(r#"{"points": [], "revision": null}"#), Ok(None));
        assert_eq!(
            revision(r#"{"points": [], "revision": 18446744073709551615}"#),
            Ok(Some(u64::MAX))
        );
        for bad in [
            r#"{"points": [], "revision": -1}"#,
            r#"{"points": [], "revision": 1.5}"#,
            r#"{"points": [], "revision": "3"}"#,
            r#"{"points": [], "revision": 18446744073709551616}"#,
            r#"{"points": [], "revision": 1, "revision": 2}"#,
        ] {
            let err = decode_json(bad.as_bytes(), 3).unwrap_err();
            assert_eq!(err.field(), Some("revision"), "{bad}: {err}");
            assert_eq!(err.code(), crate::error::ErrorCode::InvalidArgument);
        }
        // A missing points list is still `points`, with or without a revision.
        assert_eq!(field(r#"{"revision": 3}"#), "points");
    }

    #[test]
    fn names_the_bad_part() {
        assert_eq!(field(r#"{"points": [[1, 2], [3]]}"#), "points[1]");
        assert_eq!(
            field(r#"{"points": [[1, 2], [3, 4], [5, 6, 7]]}"#),
            "points[2]"
        );
        assert_eq!(field(r#"{"points": [{"x": 1, "z": 2}]}"#), "points[0]");
        assert_eq!(field(r#"{"points": [[1, "2"]]}"#), "points[0]");
        assert_eq!(field(r#"{"points": [[1, 2], [3, 4"#), "points[1]");
        assert_eq!(field(r#"{"points": [[1, 2]], "extra": 1}"#), "body");
        assert_eq!(field(r#"{"dots": []}"#), "body");
        assert_eq!(field(r#"{}"#), "points");
        assert_eq!(field(r#"[[1, 2]]"#), "body");
        assert_eq!(field(r#"{"points": [[1, 2]]} trailing"#), "body");
        let err = decode_json(br#"{"points": [[1,2],[1,2],[1,2],[1,2]]}"#, 3).unwrap_err();
        assert_eq!(
            (err.field(), err.code()),
            (Some("points"), crate::error::ErrorCode::TooLarge)
        );
    }

    #[test]
    fn binary_round_trip() {
        let coords = [1.5, -2.0, f64::MAX, 0.1];
        let body = encode_binary(&coords);
        assert_eq!(decode_binary(&body).unwrap(), coords);
        assert_eq!(
            decode_binary(&body[..17]).unwrap_err().field(),
            Some("body")
        );
    }
}
