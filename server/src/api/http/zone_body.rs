//! The JSON body of `PUT .../flat-zones/{id}`: a zone in its request form, decoded by
//! [`ZoneDoc::from_request_json`] (serde, with the key being read tracked), so every
//! problem names its field: a number too large for f64 in `centerX`, a string in
//! `width`, an unknown key, a missing `blendRadius`. A body that is not a JSON object
//! at all (or repeats a key, or has trailing text) is blamed on `body`.
//!
//! `revision` (which answers carry) is accepted and ignored, so a zone read from the
//! API can be sent back as it is.

use axum::body::Bytes;
use terrain_core::zones::{DocError, MAX_MASK_TILES, ZoneDoc};

use super::body::{BodyFormat, RequestBody};
use crate::api::{ApiError, ApiState};

/// The largest zone body: the largest legal tile mask ([`MAX_MASK_TILES`] tiles of
/// `[x, z]` whole numbers, at most 26 bytes each as `[-1000000000,-1000000000],`)
/// plus the rest of a zone; anything larger is refused before it is read.
pub const BODY_LIMIT: usize = MAX_MASK_TILES * 26 + 64 * 1024;

impl RequestBody for ZoneDoc {
    fn limit(_: &ApiState) -> usize {
        BODY_LIMIT
    }

    async fn decode(_: &ApiState, _: BodyFormat, body: Bytes) -> Result<Self, ApiError> {
        decode_zone(&body)
    }
}

/// Decodes a zone body.
pub fn decode_zone(body: &[u8]) -> Result<ZoneDoc, ApiError> {
    ZoneDoc::from_request_json(body).map_err(doc_error)
}

/// The field the core names (`body` when it blames the whole document) and its reason.
fn doc_error(err: DocError) -> ApiError {
    let field = err.field().unwrap_or("body").to_string();
    ApiError::invalid(field, err.reason())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(body: &str) -> ApiError {
        decode_zone(body.as_bytes()).unwrap_err()
    }

    #[test]
    fn decodes_a_zone() {
        let doc = decode_zone(
            br#"{"centerX": 1.5, "centerZ": -2, "radius": 4, "heightOffset": 0.25,
                "blendRadius": 3, "priority": -2, "revision": 17}"#,
        )
        .unwrap();
        assert_eq!(
            (doc.center_x, doc.center_z, doc.radius),
            (1.5, -2.0, Some(4.0))
        );
        assert_eq!((doc.height_offset, doc.priority), (Some(0.25), -2));
    }

    #[test]
    fn names_the_bad_field() {
        let base = r#""centerZ": 0, "width": 2, "depth": 2, "height": 1, "blendRadius": 1"#;
        let cases = [
            (format!(r#"{{"centerX": 1e999, {base}}}"#), "centerX"),
            (format!(r#"{{"centerX": "1", {base}}}"#), "centerX"),
            (
                format!(r#"{{"centerX": 1, {base}, "colour": 1}}"#),
                "colour",
            ),
            (
                format!(r#"{{"centerX": 1, {base}, "priority": 1.5}}"#),
                "priority",
            ),
            (format!(r#"{{"centerX": 1, {base}, "id": 3}}"#), "id"),
            (format!(r#"{{{base}}}"#), "centerX"),
            (
                r#"{"centerX": 1, "centerZ": 0, "radius": 2, "height": 1}"#.to_string(),
                "blendRadius",
            ),
            ("[1, 2]".to_string(), "body"),
            (r#"{"centerX": 1"#.to_string(), "body"),
            (String::new(), "body"),
            (format!(r#"{{"centerX": 1, {base}}} trailing"#), "body"),
            (format!(r#"{{"centerX": 1, "centerX": 2, {base}}}"#), "body"),
        ];
        for (body, field) in cases {
            let err = error(&body);
            assert_eq!(err.field(), Some(field), "{body}");
            assert!(err.to_string().starts_with(&format!("{field}: ")), "{err}");
        }
        assert_eq!(
            error(&format!("{{{base}}}")).to_string(),
            "centerX: missing (required)"
        );
    }
}
