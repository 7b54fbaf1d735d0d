//! Batch bodies of `POST .../heights`: JSON `{"points": [[x, z], ...]}` (first byte 0),
//! little-endian f64 pairs (1), and the `Content-Type` that picks between them (2).
//!
//! Properties: decoded JSON re-encodes to a body that decodes to the same coordinates
//! (bit for bit), and a refusal names `body`, `points` or `points[i]` with `i` within
//! the points read; binary bodies decode exactly when their length is a multiple of 16
//! and re-encode to the same bytes; the content-type rule of the JSON routes agrees
//! with the batch route's and refusals name `content-type`.

use crate::{named_field, named_one_of, same, select};
use axum::http::{HeaderMap, HeaderValue, header::CONTENT_TYPE};
use terrain_server::{
    ErrorCode,
    api::http::{
        batch_body as body,
        body::{BodyFormat, require_json},
    },
};

/// Small, so the fuzzer reaches the limit.
const MAX_POINTS: usize = 16;

/// Runs one input: the first byte picks the decoder.
pub fn run(data: &[u8]) {
    let Some((choice, rest)) = select(data, 3) else {
        return;
    };
    match choice {
        0 => json(rest),
        1 => binary(rest),
        _ => content_type(rest),
    }
}

fn json(body: &[u8]) {
    let input = String::from_utf8_lossy(body);
    let coords = match body::decode_json(body, MAX_POINTS) {
        Ok(coords) => coords,
        Err(err) => {
            let field = named_field(&err, &input);
            if err.code() == ErrorCode::TooLarge {
                assert_eq!(field, "points", "{err}");
            } else if let Some(index) = field.strip_prefix("points[") {
                let i: usize = index
                    .strip_suffix(']')
                    .and_then(|i| i.parse().ok())
                    .unwrap_or_else(|| panic!("bad point field {field:?}"));
                assert!(i <= MAX_POINTS, "point index {i} beyond the limit");
            } else {
                assert!(
                    matches!(field, "body" | "points" | "revision"),
                    "{err} for {input:?}"
                );
            }
            return;
        }
    };
    let coords = coords.coords;
    assert!(coords.len().is_multiple_of(2) && coords.len() / 2 <= MAX_POINTS);
    assert!(
        coords.iter().all(|c| c.is_finite()),
        "JSON numbers are finite"
    );
    let points: Vec<[f64; 2]> = coords.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
    let text = serde_json::to_vec(&serde_json::json!({ "points": points })).expect("encodes");
    let again = body::decode_json(&text, MAX_POINTS)
        .expect("re-encoded batch decodes")
        .coords;
    assert_eq!(again.len(), coords.len());
    assert!(
        again.iter().zip(&coords).all(|(a, b)| same(*a, *b)),
        "JSON batch round trip: {coords:?} -> {again:?}"
    );
}

fn binary(body: &[u8]) {
    match body::decode_binary(body) {
        Ok(coords) => {
            assert!(body.len().is_multiple_of(16));
            assert_eq!(coords.len(), body.len() / 8);
            assert_eq!(body::encode_binary(&coords), body, "binary round trip");
        }
        Err(err) => {
            assert!(!body.len().is_multiple_of(16), "{err}");
            named_one_of(&err, &["body"], &body.len());
        }
    }
}

fn content_type(raw: &[u8]) {
    let Ok(value) = HeaderValue::from_bytes(raw) else {
        return;
    };
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, value);
    let format = BodyFormat::of(&headers);
    let json = require_json(&headers);
    match (&format, &json) {
        (Ok(BodyFormat::Json), Ok(())) | (Ok(BodyFormat::Binary), Err(_)) | (Err(_), Err(_)) => {}
        _ => panic!("the routes disagree on {raw:?}: batch {format:?}, JSON {json:?}"),
    }
    for err in [format.err(), json.err()].into_iter().flatten() {
        named_one_of(&err, &["content-type"], &raw);
    }
}
