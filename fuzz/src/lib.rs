//! The fuzz targets' decoders and what they share: splitting an input into a
//! selector and parts, the "the error names a field" property, float comparison by
//! bits and the re-encoding of a zone spec into its JSON document.
//!
//! [`zones`], [`batch`] and [`messages`] are the request bodies the `bodies` target
//! runs (its first input byte picks one); the other targets are in `fuzz_targets/`.
//!
//! Every helper asserts: a property that does not hold is a panic, which libFuzzer
//! reports as a crash with the input that caused it.

#![forbid(unsafe_code)]

pub mod batch;
pub mod messages;
pub mod zones;

use terrain_core::zones::{NamedZone, Shape, ZoneDoc, ZoneHeight, ZoneSpec};
use terrain_model::{Area, Viewer};
use terrain_server::ApiError;

/// The fields a viewer refusal may name (its body's keys; `id` is the path's).
pub const VIEWER_FIELDS: [&str; 7] = [
    "id",
    "x",
    "z",
    "viewWidth",
    "viewDepth",
    "velocityX",
    "velocityZ",
];

/// The first byte (the decoder to run, modulo `choices`) and the rest of `data`.
pub fn select(data: &[u8], choices: u8) -> Option<(u8, &[u8])> {
    let (&first, rest) = data.split_first()?;
    Some((first % choices, rest))
}

/// `data` split at NUL bytes into at most `n` parts, each UTF-8, or `None`.
pub fn text_parts(data: &[u8], n: usize) -> Option<Vec<&str>> {
    data.splitn(n, |&b| b == 0)
        .map(|part| std::str::from_utf8(part).ok())
        .collect()
}

/// Asserts that `err` names a non-empty field and that its message starts with it
/// (`"{field}: ..."`, the form every refusal has); returns the field.
pub fn named_field<'e>(err: &'e ApiError, input: &dyn std::fmt::Debug) -> &'e str {
    let Some(field) = err.field() else {
        panic!(
            "error without a field: {err} (code {:?}) for {input:?}",
            err.code()
        );
    };
    assert!(!field.is_empty(), "empty field in {err:?} for {input:?}");
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("{field}: ")),
        "message {message:?} does not start with its field {field:?} for {input:?}"
    );
    field
}

/// Asserts that `err` names one of `allowed` (see [`named_field`]).
pub fn named_one_of(err: &ApiError, allowed: &[&str], input: &dyn std::fmt::Debug) {
    let field = named_field(err, input);
    assert!(
        allowed.contains(&field),
        "field {field:?} is none of {allowed:?}: {err} for {input:?}"
    );
}

/// The same f64: equal bits, or both NaN (a NaN's payload need not survive text).
pub fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The same viewer: equal ids and every number the same ([`same`]).
pub fn same_viewer(a: &Viewer, b: &Viewer) -> bool {
    a.id == b.id
        && same(a.x, b.x)
        && same(a.z, b.z)
        && same(a.view_width, b.view_width)
        && same(a.view_depth, b.view_depth)
        && same(a.velocity_x, b.velocity_x)
        && same(a.velocity_z, b.velocity_z)
}

/// The same area: a circle's numbers the same ([`same`]), other areas equal.
pub fn same_area(a: &Area, b: &Area) -> bool {
    match (a, b) {
        (
            Area::Circle { x, z, radius },
            Area::Circle {
                x: x2,
                z: z2,
                radius: r2,
            },
        ) => same(*x, *x2) && same(*z, *z2) && same(*radius, *r2),
        (a, b) => a == b,
    }
}

/// The zone-file document of a named zone: what a zone file holding it says.
pub fn zone_file_doc(zone: &NamedZone) -> ZoneDoc {
    let ZoneSpec {
        center_x,
        center_z,
        shape,
        height,
        blend_radius,
        carve_inset,
        priority,
        walkable,
        tile_mask,
    } = zone.spec.clone();
    let (width, depth, radius) = match shape {
        Shape::Rect { width, depth } => (Some(width), Some(depth), None),
        Shape::Circle { radius } => (None, None, Some(radius)),
    };
    let (height, height_offset) = match height {
        ZoneHeight::Absolute(h) => (Some(h), None),
        ZoneHeight::Offset(o) => (None, Some(o)),
    };
    ZoneDoc {
        id: Some(zone.id.clone()),
        center_x,
        center_z,
        width,
        depth,
        radius,
        height,
        height_offset,
        blend_radius,
        carve_inset,
        priority,
        walkable,
        tile_mask: tile_mask.map(|m| m.tiles().iter().map(|&(x, z)| [x, z]).collect()),
    }
}
