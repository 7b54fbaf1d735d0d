//! The JSON body of `PUT .../flat-zones/{id}`: a zone ([`ZoneDoc`], lowerCamelCase),
//! decoded so every problem names its field: a number too large for f64 in
//! `centerX`, a string in `width`, an unknown key, a missing `blendRadius`. Only a
//! body that is not a JSON object at all is blamed on `body`.
//!
//! `revision` (which answers carry) is accepted and ignored, so a zone read from the
//! API can be sent back as it is.

use std::{borrow::Cow, cell::RefCell, fmt};

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde_json::{Map, Value};
use terrain_core::zones::ZoneDoc;

use crate::error::ApiError;

/// What a key holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Text,
    Number,
    NullableNumber,
    Integer,
    /// Output-only: accepted, ignored.
    Ignored,
}

/// The keys of a zone body.
const FIELDS: [(&str, Kind); 12] = [
    ("id", Kind::Text),
    ("centerX", Kind::Number),
    ("centerZ", Kind::Number),
    ("width", Kind::NullableNumber),
    ("depth", Kind::NullableNumber),
    ("radius", Kind::NullableNumber),
    ("height", Kind::NullableNumber),
    ("heightOffset", Kind::NullableNumber),
    ("blendRadius", Kind::Number),
    ("carveInset", Kind::Number),
    ("priority", Kind::Integer),
    ("revision", Kind::Ignored),
];

/// Decodes a zone body.
pub fn decode_zone(body: &[u8]) -> Result<ZoneDoc, ApiError> {
    let mut map = parse_object(body)?;
    for (key, value) in &map {
        check_field(key, value)?;
    }
    map.remove("revision");
    serde_json::from_value(Value::Object(map)).map_err(|e| {
        let message = e.to_string();
        match missing_field(&message) {
            Some(field) => ApiError::invalid(field.to_string(), "missing (required)"),
            None => ApiError::invalid("body", message),
        }
    })
}

/// Refuses unknown keys and values of the wrong type, naming the key.
fn check_field(key: &str, value: &Value) -> Result<(), ApiError> {
    let Some(&(name, kind)) = FIELDS.iter().find(|(k, _)| *k == key) else {
        let known: Vec<&str> = FIELDS.iter().map(|(k, _)| *k).collect();
        let reason = format!("unknown field (expected one of: {})", known.join(", "));
        return Err(ApiError::invalid(key.to_string(), reason));
    };
    let (ok, expected) = match kind {
        Kind::Text => (value.is_string(), "a string"),
        Kind::Number => (value.is_number(), "a number"),
        Kind::NullableNumber => (value.is_number() || value.is_null(), "a number"),
        Kind::Integer => (
            value.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
            "an integer in the 32-bit range",
        ),
        Kind::Ignored => (true, ""),
    };
    if ok {
        Ok(())
    } else {
        Err(ApiError::invalid(
            name,
            format!("expected {expected}, got {value}"),
        ))
    }
}

/// The field of serde's "missing field `x`" message.
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split_once('`').map(|(field, _)| field)
}

/// Parses a JSON object, remembering which key's value was being read when parsing
/// failed (e.g. `1e999`, out of the f64 range), to blame that key.
fn parse_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let current = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(body);
    let result = ObjectSeed(&current)
        .deserialize(&mut de)
        .and_then(|map| de.end().map(|()| map));
    result.map_err(|err| match current.take() {
        Some(key) => ApiError::invalid(key, err.to_string()),
        None => ApiError::invalid("body", err.to_string()),
    })
}

/// The top-level object; `.0` holds the key whose value is being read.
struct ObjectSeed<'a>(&'a RefCell<Option<String>>);

impl<'de> DeserializeSeed<'de> for ObjectSeed<'_> {
    type Value = Map<String, Value>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ObjectSeed<'_> {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a zone object {"centerX", "centerZ", "width", "depth", ...}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<Cow<'de, str>>()? {
            if map.contains_key(key.as_ref()) {
                return Err(de::Error::custom(format!("duplicate field `{key}`")));
            }
            *self.0.borrow_mut() = Some(key.to_string());
            let value: Value = access.next_value()?;
            *self.0.borrow_mut() = None;
            map.insert(key.into_owned(), value);
        }
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(body: &str) -> String {
        decode_zone(body.as_bytes())
            .unwrap_err()
            .field()
            .unwrap_or("-")
            .to_string()
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
        assert_eq!(
            (doc.height_offset, doc.priority, doc.carve_inset),
            (Some(0.25), -2, 0.0)
        );
        assert_eq!(doc.id, None);
    }

    #[test]
    fn names_the_bad_field() {
        let base = r#""centerZ": 0, "width": 2, "depth": 2, "height": 1, "blendRadius": 1"#;
        assert_eq!(
            field(&format!(r#"{{"centerX": 1e999, {base}}}"#)),
            "centerX"
        );
        assert_eq!(field(&format!(r#"{{"centerX": "1", {base}}}"#)), "centerX");
        assert_eq!(
            field(&format!(r#"{{"centerX": 1, {base}, "colour": 1}}"#)),
            "colour"
        );
        assert_eq!(
            field(&format!(r#"{{"centerX": 1, {base}, "priority": 1.5}}"#)),
            "priority"
        );
        assert_eq!(
            field(&format!(r#"{{"centerX": 1, {base}, "id": 3}}"#)),
            "id"
        );
        assert_eq!(field(&format!(r#"{{{base}}}"#)), "centerX");
        assert_eq!(
            field(r#"{"centerX": 1, "centerZ": 0, "radius": 2, "height": 1}"#),
            "blendRadius"
        );
        assert_eq!(field(r#"[1, 2]"#), "body");
        assert_eq!(field(r#"{"centerX": 1"#), "body");
        assert_eq!(field(r#""#), "body");
        assert_eq!(
            field(&format!(r#"{{"centerX": 1, {base}}} trailing"#)),
            "body"
        );
        assert_eq!(
            field(&format!(r#"{{"centerX": 1, "centerX": 2, {base}}}"#)),
            "body"
        );
    }
}
