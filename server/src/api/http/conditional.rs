//! Conditional GET for the cached answers (tile meshes, voxel chunks, map tiles): a
//! strong `ETag` per answer and `304 Not Modified`, without building anything, to a
//! request whose `If-None-Match` lists it.
//!
//! A tag is `"<part>:<part>:..."`: the world, the tile or chunk, and what makes the
//! answer what it is (a version, a form, a digest). World ids are `[A-Za-z0-9_-]`; the
//! other parts are digits, signs and punctuation, so a tag is always a valid header.

use std::fmt::{self, Write};

use axum::{
    http::{
        HeaderMap, HeaderName, HeaderValue, StatusCode,
        header::{ETAG, IF_NONE_MATCH},
    },
    response::{IntoResponse, Response},
};

use super::REVISION_HEADER;

/// The strong validator made of `parts`, joined by `:` and quoted.
pub fn etag(parts: &[&dyn fmt::Display]) -> HeaderValue {
    let mut tag = String::from("\"");
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            tag.push(':');
        }
        // Writing to a String cannot fail.
        let _ = write!(tag, "{part}");
    }
    tag.push('"');
    HeaderValue::from_str(&tag).unwrap_or_else(|_| HeaderValue::from_static("\"invalid\""))
}

/// The tag of a tile (or voxel chunk) at `version`: `"<world>:<x>:<z>:v<version>"`,
/// followed by `:<form>` when the tile has several forms.
pub fn tile_etag(world: &str, tile: (i64, i64), version: u64, form: Option<&str>) -> HeaderValue {
    let version = format!("v{version}");
    match form {
        None => etag(&[&world, &tile.0, &tile.1, &version]),
        Some(form) => etag(&[&world, &tile.0, &tile.1, &version, &form]),
    }
}

/// True when `If-None-Match` lists `tag` (or is `*`). Weak tags match too: the
/// comparison for `If-None-Match` is the weak one (RFC 9110 §13.1.2).
pub fn matches(headers: &HeaderMap, tag: &HeaderValue) -> bool {
    let Ok(tag) = tag.to_str() else {
        return false;
    };
    headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
}

/// `304 Not Modified` when `headers` hold `tag`: the tag, the revision served and the
/// route's `extra` header (`Vary`, `Cache-Control`), as its `200` would carry them.
pub fn not_modified(
    headers: &HeaderMap,
    tag: &HeaderValue,
    revision: u64,
    extra: Option<(HeaderName, HeaderValue)>,
) -> Option<Response> {
    matches(headers, tag).then(|| {
        let mut response = (
            StatusCode::NOT_MODIFIED,
            [(ETAG, tag.clone()), (REVISION_HEADER, revision.into())],
        )
            .into_response();
        if let Some((name, value)) = extra {
            response.headers_mut().insert(name, value);
        }
        response
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_lists_and_weak_tags() {
        let tag = tile_etag("main", (1, -2), 7, None);
        assert_eq!(tag.to_str().unwrap(), "\"main:1:-2:v7\"");
        let mut h = HeaderMap::new();
        assert!(!matches(&h, &tag));
        h.insert(
            IF_NONE_MATCH,
            HeaderValue::from_static("\"x\", W/\"main:1:-2:v7\""),
        );
        assert!(matches(&h, &tag));
        h.insert(IF_NONE_MATCH, HeaderValue::from_static("\"main:1:-2:v6\""));
        assert!(!matches(&h, &tag));
        h.insert(IF_NONE_MATCH, HeaderValue::from_static("*"));
        assert!(matches(&h, &tag));
    }

    #[test]
    fn the_two_block_forms_have_distinct_tags() {
        let json = tile_etag("v", (1, -1), 3, Some("blocks"));
        let bin = tile_etag("v", (1, -1), 3, Some("blocks.bin"));
        assert_eq!(json.to_str().unwrap(), "\"v:1:-1:v3:blocks\"");
        assert_ne!(json, bin);
    }

    #[test]
    fn a_304_carries_the_tag_the_revision_and_the_extra_header() {
        let tag = etag(&[
            &"main",
            &"map1",
            &3,
            &1,
            &-2,
            &format_args!("{:016x}", 7u64),
        ]);
        assert_eq!(
            tag.to_str().unwrap(),
            "\"main:map1:3:1:-2:0000000000000007\""
        );
        let mut h = HeaderMap::new();
        assert!(not_modified(&h, &tag, 9, None).is_none());
        h.insert(IF_NONE_MATCH, tag.clone());
        let extra = (axum::http::header::VARY, HeaderValue::from_static("accept"));
        let response = not_modified(&h, &tag, 9, Some(extra)).unwrap();
        assert_eq!(response.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(response.headers()[ETAG], tag);
        assert_eq!(response.headers()[REVISION_HEADER], "9");
        assert_eq!(response.headers()["vary"], "accept");
    }
}
