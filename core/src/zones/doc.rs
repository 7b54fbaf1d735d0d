//! The JSON form of a zone ([`ZoneDoc`]) and its decoding from requests and zone files.
//!
//! [`ZoneDoc`]'s own `Deserialize` is the stored form (the zone log keeps zones as
//! `ZoneDoc` JSON). Client input goes through [`ZoneDoc::from_request_json`] and
//! [`ZoneDoc::from_file_entry`] instead: serde decodes a wire struct whose fields say
//! what they hold, `serde_path_to_error` tracks the key being read, and
//! `DocError::from_path_error` turns serde's path and message into a [`DocError`]
//! that names the field (`centerX`, `colour`) or blames the whole document.

use std::fmt;

use serde::{
    Deserialize, Deserializer, Serialize,
    de::{Error as _, IgnoredAny, MapAccess, Visitor, value::MapAccessDeserializer},
};
use serde_json::Value;
use serde_path_to_error::Segment;

use super::mask::{MAX_TILE_INDEX, TileMask};
use super::model::{FlatZone, Shape, ZoneError, ZoneHeight, ZoneSpec};
use crate::quote::Num;

/// The JSON form of a zone, as the API and zone files write it (lowerCamelCase,
/// `width`+`depth` or `radius`, `height` or `heightOffset`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ZoneDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub center_x: f64,
    pub center_z: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_offset: Option<f64>,
    pub blend_radius: f64,
    /// Absent: the zone carves no mesh cell (unless it has a tile mask); present (0
    /// included), the inset of the carved core. Absent stays absent in every answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carve_inset: Option<f64>,
    #[serde(default)]
    pub priority: i32,
    /// Movement over the core: `true` always walkable (a floor), `false` never (a
    /// building); absent, the world's terrain rule decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walkable: Option<bool>,
    /// The core as whole-metre tiles `[x, z]` (tile `(x, z)` covers `[x, x+1) x
    /// [z, z+1)`), every one inside the rectangle: a building's footprint. Absent, the
    /// core is the whole rectangle (or disc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile_mask: Option<Vec<[i64; 2]>>,
}

impl ZoneDoc {
    /// The spec this document describes, or which field is missing or conflicting.
    pub fn spec(&self) -> Result<ZoneSpec, ZoneError> {
        let shape = match (self.width, self.depth, self.radius) {
            (Some(width), Some(depth), None) => Shape::Rect { width, depth },
            (None, None, Some(radius)) => Shape::Circle { radius },
            (_, _, Some(_)) => {
                return Err(ZoneError::Shape {
                    field: "radius",
                    reason: "give either radius or width and depth",
                });
            }
            (None, _, None) => {
                return Err(ZoneError::Shape {
                    field: "width",
                    reason: "required (or radius)",
                });
            }
            (Some(_), None, None) => {
                return Err(ZoneError::Shape {
                    field: "depth",
                    reason: "required with width",
                });
            }
        };
        let height = match (self.height, self.height_offset) {
            (Some(h), None) => ZoneHeight::Absolute(h),
            (None, Some(o)) => ZoneHeight::Offset(o),
            (Some(_), Some(_)) => {
                return Err(ZoneError::Shape {
                    field: "heightOffset",
                    reason: "give either height or heightOffset",
                });
            }
            (None, None) => {
                return Err(ZoneError::Shape {
                    field: "height",
                    reason: "required (or heightOffset)",
                });
            }
        };
        Ok(ZoneSpec {
            center_x: self.center_x,
            center_z: self.center_z,
            shape,
            height,
            blend_radius: self.blend_radius,
            carve_inset: self.carve_inset,
            priority: self.priority,
            walkable: self.walkable,
            tile_mask: self.tile_mask.as_deref().map(TileMask::new).transpose()?,
        })
    }

    /// The document of a registered zone (height resolved, id included).
    pub fn from_zone(z: &FlatZone) -> Self {
        let (width, depth, radius) = match z.shape {
            Shape::Rect { width, depth } => (Some(width), Some(depth), None),
            Shape::Circle { radius } => (None, None, Some(radius)),
        };
        ZoneDoc {
            id: Some(z.id.clone()),
            center_x: z.center_x,
            center_z: z.center_z,
            width,
            depth,
            radius,
            height: Some(z.height),
            height_offset: None,
            blend_radius: z.blend_radius,
            carve_inset: z.carve_inset,
            priority: z.priority,
            walkable: z.walkable,
            tile_mask: z
                .tile_mask
                .as_ref()
                .map(|m| m.tiles().iter().map(|&(x, z)| [x, z]).collect()),
        }
    }
}

/// Which document a zone comes from: what keys it may carry besides the zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocForm {
    /// A request body: a zone read from the API (with its output-only `revision`) can be
    /// sent back as it is; `revision` is ignored.
    Request,
    /// An entry of a zone file: the zone's keys only.
    File,
}

/// The keys of a zone, in the order error messages list them.
const ZONE_KEYS: [&str; 13] = [
    "id",
    "centerX",
    "centerZ",
    "width",
    "depth",
    "radius",
    "height",
    "heightOffset",
    "blendRadius",
    "carveInset",
    "priority",
    "walkable",
    "tileMask",
];
/// [`ZONE_KEYS`] and the output-only `revision`.
const REQUEST_KEYS: [&str; 14] = [
    "id",
    "centerX",
    "centerZ",
    "width",
    "depth",
    "radius",
    "height",
    "heightOffset",
    "blendRadius",
    "carveInset",
    "priority",
    "walkable",
    "tileMask",
    "revision",
];

impl DocForm {
    /// The keys a document of this form may carry.
    fn keys(self) -> &'static [&'static str] {
        match self {
            DocForm::Request => &REQUEST_KEYS,
            DocForm::File => &ZONE_KEYS,
        }
    }
}

/// Why a zone document was refused. [`DocError::field`] and [`DocError::reason`] are
/// the two halves of the message (`Display` is `"{field}: {reason}"`, or the reason
/// alone when the whole document is to blame).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DocError {
    /// Not a zone object at all (not JSON, not an object, a repeated key): no one
    /// field is to blame.
    Document(String),
    /// A required key is absent.
    Missing(&'static str),
    /// A key a zone does not have; `expected` lists those it may have.
    Unknown {
        field: String,
        expected: &'static [&'static str],
    },
    /// The value of `field` is refused (wrong type, out of the f64 range, malformed).
    Invalid { field: String, reason: String },
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field() {
            Some(field) => write!(f, "{field}: {}", self.reason()),
            None => f.write_str(&self.reason()),
        }
    }
}

impl DocError {
    /// The key the error is about; `None` blames the whole document.
    pub fn field(&self) -> Option<&str> {
        match self {
            DocError::Document(_) => None,
            DocError::Missing(field) => Some(field),
            DocError::Unknown { field, .. } | DocError::Invalid { field, .. } => Some(field),
        }
    }

    /// Why [`field`](Self::field) (or the document) was refused, without the field.
    pub fn reason(&self) -> String {
        match self {
            DocError::Document(reason) | DocError::Invalid { reason, .. } => reason.clone(),
            DocError::Missing(_) => "missing (required)".to_string(),
            DocError::Unknown { expected, .. } => {
                format!("unknown field (expected one of: {})", expected.join(", "))
            }
        }
    }

    /// The one mapping from serde's answer to a [`DocError`]: the first key of the
    /// path is the field (a key `form` does not have is an unknown field); no key
    /// (the document itself, or a key that did not parse) blames the document.
    pub(crate) fn from_path_error<E: fmt::Display>(
        err: serde_path_to_error::Error<E>,
        form: DocForm,
    ) -> Self {
        let key = match err.path().iter().next() {
            Some(Segment::Map { key }) => Some(key.clone()),
            _ => None,
        };
        let reason = err.into_inner().to_string();
        match key {
            Some(field) if form.keys().contains(&field.as_str()) => DocError::Invalid {
                field,
                // The field names the place; the parser's position in the text the
                // client sent says no more (and differs between two clients' texts).
                reason: without_position(&reason).to_string(),
            },
            // An empty key cannot name the field: the document is to blame.
            Some(field) if field.is_empty() => DocError::Document(format!(
                "unknown empty key \"\" (expected one of: {})",
                form.keys().join(", ")
            )),
            Some(field) => DocError::Unknown {
                field,
                expected: form.keys(),
            },
            None => DocError::Document(reason),
        }
    }
}

/// `reason` without serde_json's trailing ` at line L column C`.
fn without_position(reason: &str) -> &str {
    let Some(at) = reason.rfind(" at line ") else {
        return reason;
    };
    let mut words = reason[at + " at line ".len()..].split(' ');
    let number =
        |w: Option<&str>| w.is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()));
    if number(words.next())
        && words.next() == Some("column")
        && number(words.next())
        && words.next().is_none()
    {
        &reason[..at]
    } else {
        reason
    }
}

impl ZoneDoc {
    /// Decodes one zone from a request body (JSON text; the output-only `revision` is
    /// accepted and ignored). Large numbers, wrong types, unknown and missing keys name
    /// their key; anything else (not JSON, not an object, a repeated key, trailing
    /// text) is a [`DocError::Document`].
    pub fn from_request_json(json: &[u8]) -> Result<ZoneDoc, DocError> {
        let mut de = serde_json::Deserializer::from_slice(json);
        let wire: ZoneObject = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| DocError::from_path_error(e, DocForm::Request))?;
        de.end().map_err(|e| DocError::Document(e.to_string()))?;
        wire.0.into_doc(DocForm::Request)
    }

    /// Decodes one entry of a zone file (a zone's keys only), already parsed: errors
    /// from a `Value` carry no line and column, the caller names the entry.
    pub fn from_file_entry(entry: &Value) -> Result<ZoneDoc, DocError> {
        let wire: ZoneObject = serde_path_to_error::deserialize(entry)
            .map_err(|e| DocError::from_path_error(e, DocForm::File))?;
        wire.0.into_doc(DocForm::File)
    }
}

/// A zone as a client writes it: every key optional, so that a missing one is found
/// here and named ([`DocError::Missing`]), and each value checked by what it holds.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Wire {
    #[serde(default, deserialize_with = "text")]
    id: Option<String>,
    #[serde(default, deserialize_with = "number")]
    center_x: Option<f64>,
    #[serde(default, deserialize_with = "number")]
    center_z: Option<f64>,
    #[serde(default, deserialize_with = "nullable_number")]
    width: Option<f64>,
    #[serde(default, deserialize_with = "nullable_number")]
    depth: Option<f64>,
    #[serde(default, deserialize_with = "nullable_number")]
    radius: Option<f64>,
    #[serde(default, deserialize_with = "nullable_number")]
    height: Option<f64>,
    #[serde(default, deserialize_with = "nullable_number")]
    height_offset: Option<f64>,
    #[serde(default, deserialize_with = "number")]
    blend_radius: Option<f64>,
    #[serde(default, deserialize_with = "nullable_number")]
    carve_inset: Option<f64>,
    #[serde(default, deserialize_with = "integer")]
    priority: Option<i32>,
    #[serde(default, deserialize_with = "boolean")]
    walkable: Option<bool>,
    #[serde(default, deserialize_with = "tiles")]
    tile_mask: Option<Vec<[i64; 2]>>,
    /// Whether the key is present, whatever it holds.
    #[serde(default, deserialize_with = "present")]
    revision: bool,
}

impl Wire {
    fn into_doc(self, form: DocForm) -> Result<ZoneDoc, DocError> {
        if self.revision && form == DocForm::File {
            return Err(DocError::Unknown {
                field: "revision".to_string(),
                expected: form.keys(),
            });
        }
        Ok(ZoneDoc {
            id: self.id,
            center_x: self.center_x.ok_or(DocError::Missing("centerX"))?,
            center_z: self.center_z.ok_or(DocError::Missing("centerZ"))?,
            width: self.width,
            depth: self.depth,
            radius: self.radius,
            height: self.height,
            height_offset: self.height_offset,
            blend_radius: self.blend_radius.ok_or(DocError::Missing("blendRadius"))?,
            carve_inset: self.carve_inset,
            priority: self.priority.unwrap_or(0),
            walkable: self.walkable,
            tile_mask: self.tile_mask,
        })
    }
}

/// A [`Wire`] read from an object only (serde's derived structs also take arrays).
struct ZoneObject(Wire);

impl<'de> Deserialize<'de> for ZoneObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectOnly;
        impl<'de> Visitor<'de> for ObjectOnly {
            type Value = ZoneObject;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r#"a zone object {"centerX", "centerZ", "width", "depth", ...}"#)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ZoneObject, A::Error> {
                Wire::deserialize(MapAccessDeserializer::new(map)).map(ZoneObject)
            }
        }
        d.deserialize_map(ObjectOnly)
    }
}

/// A string, or null (absent).
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(Some(s)),
        Value::Null => Ok(None),
        v => Err(D::Error::custom(format!("expected a string, got {v}"))),
    }
}

/// A number; null is refused.
fn number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = Value::deserialize(d)?;
    match v.as_f64() {
        Some(n) => Ok(Some(n)),
        None => Err(D::Error::custom(format!("expected a number, got {v}"))),
    }
}

/// A number, or null (absent).
fn nullable_number<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = Value::deserialize(d)?;
    match v.as_f64() {
        Some(n) => Ok(Some(n)),
        None if v.is_null() => Ok(None),
        None => Err(D::Error::custom(format!("expected a number, got {v}"))),
    }
}

/// An integer in the i32 range; null is refused.
/// A 32-bit integer: an integer token, or a number with no fractional part (`5.0`,
/// `1e2`: JSON numbers as many clients write whole floats, and as JSON Schema's
/// `integer` admits them).
fn integer<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i32>, D::Error> {
    let v = Value::deserialize(d)?;
    let whole = |f: f64| {
        (f.fract() == 0.0 && f >= f64::from(i32::MIN) && f <= f64::from(i32::MAX))
            .then_some(f as i32)
    };
    let n = match v.as_i64() {
        Some(n) => i32::try_from(n).ok(),
        None => v.as_f64().and_then(whole),
    };
    match n {
        Some(n) => Ok(Some(n)),
        None => Err(D::Error::custom(format!(
            "expected a 32-bit integer, got {v}"
        ))),
    }
}

/// A boolean, or null (absent).
fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match Value::deserialize(d)? {
        Value::Bool(b) => Ok(Some(b)),
        Value::Null => Ok(None),
        v => Err(D::Error::custom(format!("expected true or false, got {v}"))),
    }
}

/// A list of `[x, z]` whole tile indices, or null (absent). Whether they are distinct,
/// few enough and inside the zone is the zone's check ([`TileMask::new`]).
fn tiles<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<[i64; 2]>>, D::Error> {
    let v = Value::deserialize(d)?;
    let items = match v {
        Value::Null => return Ok(None),
        Value::Array(items) => items,
        v => {
            return Err(D::Error::custom(format!(
                "expected a list of [x, z] tiles, got {}",
                brief(&v)
            )));
        }
    };
    let index = |k: usize, v: &Value| -> Result<i64, D::Error> {
        let n = v.as_f64().ok_or_else(|| {
            D::Error::custom(format!(
                "tile {k}: expected two numbers [x, z], got {}",
                brief(v)
            ))
        })?;
        if n.fract() != 0.0 {
            return Err(D::Error::custom(format!(
                "tile {k}: tile indices must be whole numbers (tile (x, z) covers [x, x+1) x [z, z+1)), got {}",
                echo(v, n)
            )));
        }
        if n.abs() > MAX_TILE_INDEX {
            return Err(D::Error::custom(format!(
                "tile {k}: must be at most {MAX_TILE_INDEX} in magnitude (got {})",
                echo(v, n)
            )));
        }
        Ok(n as i64)
    };
    items
        .iter()
        .enumerate()
        .map(|(k, item)| match item.as_array().map(Vec::as_slice) {
            Some([x, z]) => Ok([index(k, x)?, index(k, z)?]),
            _ => Err(D::Error::custom(format!(
                "tile {k}: expected [x, z], got {}",
                brief(item)
            ))),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// A number as sent, for an error message: an integer exactly (an `f64` would round
/// 9223372036854775807 up), any other as [`Num`] writes it (`1e308`).
fn echo(v: &Value, n: f64) -> String {
    match (v.as_i64(), v.as_u64()) {
        (Some(i), _) => i.to_string(),
        (None, Some(u)) => u.to_string(),
        (None, None) => Num(n).to_string(),
    }
}

/// A value as JSON, cut to a readable length for an error message.
fn brief(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// True: the key is there (its value is skipped).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(body: &str) -> Result<ZoneDoc, DocError> {
        ZoneDoc::from_request_json(body.as_bytes())
    }

    fn field(body: &str) -> String {
        request(body)
            .unwrap_err()
            .field()
            .unwrap_or("-")
            .to_string()
    }

    const BASE: &str = r#""centerZ": 0, "width": 2, "depth": 2, "height": 1, "blendRadius": 1"#;

    #[test]
    fn decodes_a_request() {
        let doc = request(
            r#"{"centerX": 1.5, "centerZ": -2, "radius": 4, "heightOffset": 0.25,
                "blendRadius": 3, "priority": -2, "revision": 17, "width": null}"#,
        )
        .unwrap();
        assert_eq!(
            (doc.center_x, doc.center_z, doc.radius, doc.width),
            (1.5, -2.0, Some(4.0), None)
        );
        assert_eq!(
            (doc.height_offset, doc.priority, doc.carve_inset),
            (Some(0.25), -2, None)
        );
        assert_eq!(doc.id, None);
    }

    /// An absent (or null) `carveInset` stays absent, through the stored form too;
    /// a present one, 0 included, is kept.
    #[test]
    fn an_absent_carve_inset_stays_absent() {
        let with = |extra: &str| format!(r#"{{"centerX": 1, {BASE}{extra}}}"#);
        for (extra, want) in [
            ("", None),
            (r#", "carveInset": null"#, None),
            (r#", "carveInset": 0"#, Some(0.0)),
            (r#", "carveInset": 1.5"#, Some(1.5)),
        ] {
            let doc = request(&with(extra)).unwrap();
            assert_eq!(doc.carve_inset, want, "{extra}");
            assert_eq!(doc.spec().unwrap().carve_inset, want, "{extra}");
            let stored = serde_json::to_value(&doc).unwrap();
            assert_eq!(stored.get("carveInset").and_then(Value::as_f64), want);
            let back: ZoneDoc = serde_json::from_value(stored).unwrap();
            assert_eq!(back, doc);
        }
        assert_eq!(field(&with(r#", "carveInset": "1""#)), "carveInset");
    }

    #[test]
    fn a_whole_number_with_a_fraction_part_is_an_integer() {
        let with = |p: &str| format!(r#"{{"centerX": 1, {BASE}, "priority": {p}}}"#);
        assert_eq!(request(&with("-3883449.0")).unwrap().priority, -3_883_449);
        assert_eq!(request(&with("1e2")).unwrap().priority, 100);
        assert_eq!(request(&with("-0.0")).unwrap().priority, 0);
        assert_eq!(field(&with("2147483648.0")), "priority");
        assert_eq!(field(&with("0.5")), "priority");
    }

    #[test]
    fn names_the_bad_field() {
        let with = |extra: &str| format!(r#"{{"centerX": 1, {BASE}{extra}}}"#);
        assert_eq!(
            field(&format!(r#"{{"centerX": 1e999, {BASE}}}"#)),
            "centerX"
        );
        assert_eq!(field(&format!(r#"{{"centerX": "1", {BASE}}}"#)), "centerX");
        assert_eq!(field(&format!(r#"{{"centerX": null, {BASE}}}"#)), "centerX");
        assert_eq!(field(&format!(r#"{{"centerX": [1, {BASE}}}"#)), "centerX");
        assert_eq!(field(&with(r#", "colour": 1"#)), "colour");
        assert_eq!(field(&with(r#", "priority": 1.5"#)), "priority");
        assert_eq!(field(&with(r#", "priority": 3000000000"#)), "priority");
        assert_eq!(field(&with(r#", "id": 3"#)), "id");
        assert_eq!(field(&format!("{{{BASE}}}")), "centerX");
        assert_eq!(
            field(r#"{"centerX": 1, "centerZ": 0, "radius": 2, "height": 1}"#),
            "blendRadius"
        );
        for body in [
            "[1, 2]",
            r#"["a", 1, 2, 3, 4, null, 5, null, 1, 0, 0]"#,
            "null",
            r#"{"centerX": 1"#,
            r#"{"centerX": 1,}"#,
            "",
            "not json",
        ] {
            assert_eq!(field(body), "-", "{body}");
        }
        assert_eq!(field(&format!("{} trailing", with(""))), "-");
        assert_eq!(field(&with(r#", "centerX": 2"#)), "-");
    }

    #[test]
    fn messages_name_the_field_then_the_reason() {
        let e = request(&format!(r#"{{"centerX": "1", {BASE}}}"#)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(r#"centerX: expected a number, got "1""#),
            "{e}"
        );
        assert_eq!(e.to_string(), format!("centerX: {}", e.reason()));
        let e = request(&format!("{{{BASE}}}")).unwrap_err();
        assert_eq!(e, DocError::Missing("centerX"));
        assert_eq!(e.to_string(), "centerX: missing (required)");
        let e = request(&format!(r#"{{"centerX": 1, {BASE}, "colour": 1}}"#)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "colour: unknown field (expected one of: id, centerX, centerZ, width, depth, \
             radius, height, heightOffset, blendRadius, carveInset, priority, walkable, \
             tileMask, revision)"
        );
    }

    #[test]
    fn a_field_error_has_no_parser_position() {
        let rect = r#""centerZ": 0, "width": 4, "depth": 4, "height": 1, "blendRadius": 2"#;
        for extra in [
            r#""tileMask": [[1e12, 1]]"#,
            r#""tileMask": [[0.5, 1]]"#,
            r#""tileMask": 3"#,
            r#""walkable": "yes""#,
            r#""priority": 1.5"#,
        ] {
            let e = request(&format!(r#"{{"centerX": 0, {rect}, {extra}}}"#)).unwrap_err();
            assert!(e.field().is_some(), "{e}");
            assert!(!e.reason().contains(" at line "), "{e}");
        }
        assert_eq!(without_position("bad at line 1 column 12"), "bad");
        assert_eq!(
            without_position("at line 3 of the file"),
            "at line 3 of the file"
        );
        assert_eq!(without_position("x at line 1 column"), "x at line 1 column");
        // The whole document to blame: where the text broke is worth saying.
        assert!(request("{").unwrap_err().reason().contains(" at line "));
    }

    #[test]
    fn tile_masks_are_read_and_their_problems_named() {
        let rect = r#""centerZ": 0, "width": 4, "depth": 4, "height": 1, "blendRadius": 2"#;
        let doc = request(&format!(
            r#"{{"centerX": 0, {rect}, "tileMask": [[-2, -2], [1, 1]]}}"#
        ))
        .unwrap();
        let spec = doc.spec().unwrap();
        assert_eq!(
            spec.tile_mask.as_ref().unwrap().tiles(),
            &[(-2, -2), (1, 1)]
        );
        assert!(spec.validate(&Default::default()).is_ok());
        // Round trip through the stored form.
        let zone = spec.resolve("b", f64::NAN);
        let back = ZoneDoc::from_zone(&zone);
        assert_eq!(back.tile_mask, Some(vec![[-2, -2], [1, 1]]));
        assert_eq!(
            serde_json::to_value(&back).unwrap()["tileMask"],
            serde_json::json!([[-2, -2], [1, 1]])
        );
        for (mask, reason) in [
            (r#""tileMask": 5"#, "expected a list of [x, z] tiles, got 5"),
            (
                r#""tileMask": [[1, 2, 3]]"#,
                "tile 0: expected [x, z], got [1,2,3]",
            ),
            (
                r#""tileMask": [[1, "a"]]"#,
                r#"tile 0: expected two numbers [x, z], got "a""#,
            ),
            (
                r#""tileMask": [[0.5, 0]]"#,
                "tile 0: tile indices must be whole numbers",
            ),
            (r#""tileMask": [[1e300, 0]]"#, "tile 0: must be at most"),
        ] {
            let e = request(&format!(r#"{{"centerX": 0, {rect}, {mask}}}"#)).unwrap_err();
            assert_eq!(e.field(), Some("tileMask"), "{e}");
            assert!(e.reason().starts_with(reason), "{e}");
        }
        // A refused index is echoed as sent: exact, and short.
        for (index, got) in [
            ("9223372036854775807", "9223372036854775807"),
            ("-9223372036854775808", "-9223372036854775808"),
            ("18446744073709551615", "18446744073709551615"),
            ("1e308", "1e308"),
            ("1000000001", "1000000001"),
        ] {
            let e = request(&format!(
                r#"{{"centerX": 0, {rect}, "tileMask": [[0, 0], [0, {index}]]}}"#
            ))
            .unwrap_err();
            let want = format!("tile 1: must be at most 1000000000 in magnitude (got {got})");
            assert_eq!(e.reason(), want, "{e}");
        }
        let e = request(&format!(
            r#"{{"centerX": 0, {rect}, "tileMask": [[0.25, 0]]}}"#
        ))
        .unwrap_err();
        assert!(e.reason().ends_with("got 0.25"), "{e}");
        for (mask, needle) in [
            (r#"[[0, 0], [0, 0]]"#, "more than once"),
            (r#"[]"#, "at least one tile"),
        ] {
            let doc = request(&format!(r#"{{"centerX": 0, {rect}, "tileMask": {mask}}}"#)).unwrap();
            let e = doc.spec().unwrap_err();
            assert_eq!(e.field(), "tileMask", "{e}");
            assert!(e.reason().contains(needle), "{e}");
        }
        // Outside the rectangle, or on a disc.
        let doc = request(&format!(
            r#"{{"centerX": 0, {rect}, "tileMask": [[2, 0]]}}"#
        ))
        .unwrap();
        let e = doc
            .spec()
            .unwrap()
            .validate(&Default::default())
            .unwrap_err();
        assert_eq!(e.field(), "tileMask");
        let disc = r#""centerX": 0, "centerZ": 0, "radius": 4, "height": 1, "blendRadius": 2"#;
        let doc = request(&format!(r#"{{{disc}, "tileMask": [[0, 0]]}}"#)).unwrap();
        let e = doc
            .spec()
            .unwrap()
            .validate(&Default::default())
            .unwrap_err();
        assert_eq!(
            (e.field(), e.reason().as_str()),
            (
                "tileMask",
                "needs a rectangle (width and depth), not a radius"
            )
        );
    }

    #[test]
    fn file_entries_have_no_revision_and_no_positions() {
        let entry = |extra: &str| -> Value {
            let json = format!(r#"{{"centerX": 1, {BASE}{extra}}}"#);
            serde_json::from_str(&json).unwrap()
        };
        assert!(ZoneDoc::from_file_entry(&entry("")).is_ok());
        let e = ZoneDoc::from_file_entry(&entry(r#", "revision": 3"#)).unwrap_err();
        assert_eq!(e.field(), Some("revision"));
        assert!(
            e.reason()
                .starts_with("unknown field (expected one of: id,"),
            "{e}"
        );
        assert!(!e.reason().contains("revision"), "{e}");
        let e = ZoneDoc::from_file_entry(&entry(r#", "priority": 1.5"#)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "priority: expected a 32-bit integer, got 1.5"
        );
        let e = ZoneDoc::from_file_entry(&Value::from(5)).unwrap_err();
        assert_eq!(e.field(), None);
        // A null id is an absent id.
        let doc = ZoneDoc::from_file_entry(&entry(r#", "id": null"#)).unwrap();
        assert_eq!(doc.id, None);
    }

    /// Every key a [`ZoneDoc`] serialises is one the decoder takes, in both forms.
    #[test]
    fn decoders_take_every_stored_key() {
        let full = ZoneDoc {
            id: Some("full".into()),
            center_x: 1.0,
            center_z: 2.0,
            width: Some(3.0),
            depth: Some(4.0),
            radius: Some(5.0),
            height: Some(6.0),
            height_offset: Some(7.0),
            blend_radius: 0.5,
            carve_inset: Some(0.25),
            priority: -2,
            walkable: Some(false),
            tile_mask: Some(vec![[1, 2]]),
        };
        let json = serde_json::to_value(&full).unwrap();
        assert_eq!(json.as_object().map(|o| o.len()), Some(ZONE_KEYS.len()));
        assert_eq!(ZoneDoc::from_file_entry(&json).unwrap(), full);
        let text = json.to_string();
        assert_eq!(ZoneDoc::from_request_json(text.as_bytes()).unwrap(), full);
        assert_eq!(&REQUEST_KEYS[..ZONE_KEYS.len()], &ZONE_KEYS);
    }

    /// Found by the `bodies` fuzz target: an empty key named the field `""`.
    #[test]
    fn an_empty_key_blames_the_document() {
        for body in [
            format!(r#"{{"centerX": 1, {BASE}, "": 2}}"#),
            r#"{"centerX": 1,""centerZ": 0, "radius": 2, "height": 1}"#.to_string(),
        ] {
            let err = request(&body).unwrap_err();
            assert_eq!(err.field(), None, "{body}");
            assert!(err.reason().starts_with("unknown empty key"), "{err}");
        }
        let entry: Value = serde_json::json!({"id": "a", "": 1});
        let err = ZoneDoc::from_file_entry(&entry).unwrap_err();
        assert_eq!(err.field(), None);
    }
}
