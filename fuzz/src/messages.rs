//! JSON messages of the viewer and event routes: viewer bodies of
//! `PUT .../viewers/{id}` (first byte even) through the lifecycle's checks, and the
//! area-change text frames a client sends on the events WebSocket (odd).
//!
//! Properties: a decoded viewer re-encodes to a body that decodes to the same viewer
//! and is either accepted by the lifecycle's checks or refused naming one of its
//! fields; a decoded area, written back as the `area` of the server's acknowledgement
//! frame, decodes to the same area; every refusal names a non-empty field.

use crate::{VIEWER_FIELDS, named_field, named_one_of, same_area, same_viewer, select};
use terrain_server::{
    ApiError, Limits,
    api::http::{events::frames, lifecycle::decode_viewer},
    lifecycle::rings::check_viewer,
};

/// Runs one input: the first byte picks the decoder.
pub fn run(data: &[u8]) {
    let Some((choice, rest)) = select(data, 2) else {
        return;
    };
    match choice {
        0 => viewer(rest),
        _ => {
            if let Ok(text) = std::str::from_utf8(rest) {
                area(text);
            }
        }
    }
}

fn viewer(body: &[u8]) {
    let input = String::from_utf8_lossy(body);
    let v = match decode_viewer("viewer-1".to_string(), body) {
        Ok(v) => v,
        Err(err) => {
            named_field(&err, &input);
            return;
        }
    };
    let text = serde_json::json!({
        "x": v.x, "z": v.z, "viewWidth": v.view_width, "viewDepth": v.view_depth,
        "velocityX": v.velocity_x, "velocityZ": v.velocity_z,
    })
    .to_string();
    let back = decode_viewer(v.id.clone(), text.as_bytes())
        .unwrap_or_else(|e| panic!("re-encoded viewer {text} refused: {e}"));
    assert!(
        same_viewer(&back, &v),
        "viewer round trip: {v:?} -> {text} -> {back:?}"
    );
    if let Err(err) = check_viewer(&v, Limits::default().max_coordinate) {
        named_one_of(&ApiError::from(err), &VIEWER_FIELDS, &v);
    }
}

fn area(text: &str) {
    let decoded = match frames::area(text) {
        Ok(area) => area,
        Err(err) => {
            named_field(&err, &text);
            return;
        }
    };
    let frame: serde_json::Value = serde_json::from_str(&frames::area_applied(&decoded, 7))
        .expect("the acknowledgement frame is JSON");
    let written = frame["area"].to_string();
    let back = frames::area(&written)
        .unwrap_or_else(|e| panic!("acknowledged area {written} refused: {e}"));
    assert!(
        same_area(&decoded, &back),
        "area round trip: {decoded:?} -> {written} -> {back:?}"
    );
}
