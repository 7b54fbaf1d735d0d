//! Request data (`-d`): JSON in the protobuf JSON mapping (lowerCamelCase or the
//! proto's snake_case names, numbers may be strings, enums by name), with ghz-style
//! templates ([`crate::template`]) evaluated per request. One mapping serves every
//! method: the JSON deserialises (serde) into a `prost_reflect::DynamicMessage` of the
//! method's input type, read from the descriptor pool, and is encoded once into the
//! bytes the call sends. A data array is used round-robin by request number.
//!
//! Data without templates is encoded once, at start. Data that is not valid JSON
//! until rendered (`{"x": {{.RequestNumber}}}`) is rendered as text and then parsed.
//! A decoding error names the field (`data.x`, `data[1].world`, `data.area.circle.z`).

use bytes::Bytes;
use prost::Message as _;
use prost_reflect::{DynamicMessage, FieldDescriptor, Kind, MessageDescriptor};
use serde_json::Value;

use crate::{
    Method,
    template::{Context, Rng, render_text, render_value},
};

/// Why the data does not make a request; names the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("data{path}: {reason}")]
pub struct DataError {
    /// Where in the data: `""` (the whole), `.x`, `[1].world`, `.area.circle.z`.
    pub path: String,
    pub reason: String,
}

pub(crate) fn err(path: &str, reason: impl Into<String>) -> DataError {
    DataError {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// The request data of a run, prepared once.
#[derive(Debug, Clone)]
pub struct Data {
    input: MessageDescriptor,
    items: Items,
}

#[derive(Debug, Clone)]
enum Items {
    /// No templates: the requests, encoded once.
    Static(Vec<Bytes>),
    /// JSON with templates in string values.
    Values(Vec<Value>),
    /// Text that becomes JSON once rendered.
    Text(String),
}

impl Data {
    /// Prepares `text` (JSON, possibly templated) for `method`, and checks that the
    /// first request can be built.
    pub fn parse(text: &str, method: &Method) -> Result<Data, DataError> {
        let input = method.input();
        let items = match serde_json::from_str::<Value>(text) {
            Ok(value) => {
                let items = match value {
                    Value::Array(items) if items.is_empty() => {
                        return Err(err("", "an empty array"));
                    }
                    Value::Array(items) => items,
                    other => vec![other],
                };
                if text.contains("{{") {
                    Items::Values(items)
                } else {
                    let requests = items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| encode(&input, v).map_err(|e| at(e, i, items.len())))
                        .collect::<Result<_, _>>()?;
                    Items::Static(requests)
                }
            }
            Err(_) if text.contains("{{") => Items::Text(text.to_string()),
            Err(e) => return Err(err("", format!("not JSON: {e}"))),
        };
        let data = Data { input, items };
        let mut probe = Context {
            request_number: 0,
            worker_id: 0,
            method: method.clone(),
            rng: Rng::new(0),
        };
        data.request(&mut probe)?;
        Ok(data)
    }

    /// The request numbered `ctx.request_number`, encoded.
    pub fn request(&self, ctx: &mut Context) -> Result<Bytes, DataError> {
        match &self.items {
            Items::Static(requests) => Ok(requests[pick(ctx, requests.len())].clone()),
            Items::Values(items) => {
                let i = pick(ctx, items.len());
                let value = render_value(&items[i], ctx)?;
                encode(&self.input, &value).map_err(|e| at(e, i, items.len()))
            }
            Items::Text(text) => {
                let rendered = render_text(text, ctx)?;
                let value: Value = serde_json::from_str(&rendered)
                    .map_err(|e| err("", format!("not JSON once rendered: {e}")))?;
                match value {
                    Value::Array(items) if !items.is_empty() => {
                        let i = pick(ctx, items.len());
                        encode(&self.input, &items[i]).map_err(|e| at(e, i, items.len()))
                    }
                    other => encode(&self.input, &other),
                }
            }
        }
    }
}

fn pick(ctx: &Context, n: usize) -> usize {
    (ctx.request_number % n as u64) as usize
}

/// Prefixes an item index to a data error when the data is an array.
fn at(e: DataError, i: usize, n: usize) -> DataError {
    if n > 1 {
        err(&format!("[{i}]{}", e.path), e.reason)
    } else {
        e
    }
}

/// The `input` message that `value` describes, encoded.
pub fn encode(input: &MessageDescriptor, value: &Value) -> Result<Bytes, DataError> {
    Ok(message(input, value)?.encode_to_vec().into())
}

/// The `input` message that `value` describes (the protobuf JSON mapping).
pub fn message(input: &MessageDescriptor, value: &Value) -> Result<DynamicMessage, DataError> {
    // The common case tracks nothing; a failure is decoded again to find where.
    DynamicMessage::deserialize(input.clone(), value)
        .map_err(|e| locate(input, value, e.to_string()))
}

/// Decodes `value` again, tracking the path, and names where it fails with `reason`.
fn locate(input: &MessageDescriptor, value: &Value, reason: String) -> DataError {
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(value, &mut track);
    if DynamicMessage::deserialize(input.clone(), tracked).is_ok() {
        return err("", reason);
    }
    let segments: Vec<Step> = track
        .path()
        .iter()
        .map(|s| match s {
            serde_path_to_error::Segment::Seq { index } => Step::Index(*index),
            serde_path_to_error::Segment::Map { key } => Step::Key(key.clone()),
            serde_path_to_error::Segment::Enum { variant } => Step::Key(variant.clone()),
            serde_path_to_error::Segment::Unknown => Step::Key("?".into()),
        })
        .collect();
    let mut path: String = segments.iter().map(Step::to_string).collect();
    // An error of an object itself (a key that is no field) is reported by the
    // object: name the key.
    if let Some((message, Value::Object(map))) = resolve(input, value, &segments)
        && let Some(key) = map.keys().find(|k| field(&message, k).is_none())
    {
        path.push('.');
        path.push_str(key);
        let fields: Vec<String> = message
            .fields()
            .map(|f| f.json_name().to_string())
            .collect();
        return err(
            &path,
            format!(
                "{} has no such field (fields: {})",
                message.name(),
                fields.join(", ")
            ),
        );
    }
    err(&path, reason)
}

/// One step of a data path.
enum Step {
    Key(String),
    Index(usize),
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Key(k) => write!(f, ".{k}"),
            Step::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// The field of `message` named `key` (its JSON name or its proto name).
fn field(message: &MessageDescriptor, key: &str) -> Option<FieldDescriptor> {
    message
        .get_field_by_json_name(key)
        .or_else(|| message.get_field_by_name(key))
}

/// What a data position holds, by the descriptors.
enum Position {
    Message(MessageDescriptor),
    List(Kind),
    Map(Kind),
    Scalar,
}

fn of_kind(kind: Kind) -> Position {
    match kind {
        // Well-known types have JSON forms of their own; nothing to name inside.
        Kind::Message(m) if !m.full_name().starts_with("google.protobuf.") => Position::Message(m),
        _ => Position::Scalar,
    }
}

/// The message type and JSON value at `path` under `input`, if `path` ends at a message.
fn resolve<'a>(
    input: &MessageDescriptor,
    value: &'a Value,
    path: &[Step],
) -> Option<(MessageDescriptor, &'a Value)> {
    let mut at = Position::Message(input.clone());
    let mut value = value;
    for step in path {
        (at, value) = match (at, step) {
            (Position::Message(m), Step::Key(k)) => {
                let f = field(&m, k)?;
                let next = if f.is_map() {
                    let entry = f.kind().as_message()?.map_entry_value_field();
                    Position::Map(entry.kind())
                } else if f.is_list() {
                    Position::List(f.kind())
                } else {
                    of_kind(f.kind())
                };
                (next, value.get(k)?)
            }
            (Position::List(kind), Step::Index(i)) => (of_kind(kind), value.get(i)?),
            (Position::Map(kind), Step::Key(k)) => (of_kind(kind), value.get(k)?),
            _ => return None,
        };
    }
    match at {
        Position::Message(m) => Some((m, value)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use prost_reflect::Value as Field;

    use super::*;
    use crate::methods::builtin_pool;

    fn method(call: &str) -> Method {
        Method::find(&builtin_pool().unwrap(), call).unwrap()
    }

    fn ctx(n: u64, call: &str) -> Context {
        Context {
            request_number: n,
            worker_id: 3,
            method: method(call),
            rng: Rng::new(7),
        }
    }

    fn decoded(m: &Method, bytes: &Bytes) -> DynamicMessage {
        DynamicMessage::decode(m.input(), bytes.as_ref()).unwrap()
    }

    const GET_HEIGHT: &str = "terrain.v1.TerrainService/GetHeight";
    const GET_HEIGHTS: &str = "terrain.v1.TerrainService/GetHeights";

    #[test]
    fn static_data_becomes_requests_once() {
        let m = method(GET_HEIGHT);
        let d = Data::parse(
            r#"{"world":"main","x":10,"z":"-20.5","mode":"HEIGHT_MODE_SURFACE"}"#,
            &m,
        )
        .unwrap();
        let Items::Static(ref r) = d.items else {
            panic!("static expected")
        };
        let msg = decoded(&m, &r[0]);
        assert_eq!(
            msg.get_field_by_name("world").unwrap().as_str(),
            Some("main")
        );
        assert_eq!(msg.get_field_by_name("x").unwrap().as_f64(), Some(10.0));
        assert_eq!(msg.get_field_by_name("z").unwrap().as_f64(), Some(-20.5));
        assert_eq!(
            msg.get_field_by_name("mode").unwrap().as_enum_number(),
            Some(2)
        );
        let e = Data::parse(r#"{"world":"main","y":1}"#, &m).unwrap_err();
        assert_eq!(e.path, ".y");
        assert!(
            e.reason.contains("GetHeightRequest has no such field"),
            "{e}"
        );
        let e = Data::parse(r#"{"world":"main","x":"abc"}"#, &m).unwrap_err();
        assert_eq!(e.path, ".x");
        let e = Data::parse(r#"[{"world":"a"},{"world":1}]"#, &method(GET_HEIGHTS)).unwrap_err();
        assert_eq!(e.path, "[1].world");
    }

    #[test]
    fn nested_and_repeated_fields_are_named() {
        let sub = method("terrain.v1.TerrainEvents/Subscribe");
        let e = Data::parse(
            r#"{"world":"main","area":{"circle":{"x":0,"z":"north"}}}"#,
            &sub,
        )
        .unwrap_err();
        assert_eq!(e.path, ".area.circle.z");
        let e = Data::parse(r#"{"area":{"circle":{"r":1}}}"#, &sub).unwrap_err();
        assert_eq!(e.path, ".area.circle.r");
        let e = Data::parse(r#"{"area":{"circle":{},"tiles":{}}}"#, &sub).unwrap_err();
        assert_eq!(e.path, ".area");
        let e = Data::parse(r#"{"coordinates":[1,2,"x"]}"#, &method(GET_HEIGHTS)).unwrap_err();
        assert_eq!(e.path, ".coordinates[2]");
        let e = Data::parse("[]", &sub).unwrap_err();
        assert_eq!(e.reason, "an empty array");
        // A method no code names: its request decodes all the same.
        let zone = method("terrain.v1.TerrainService/GetFlatZoneAt");
        let d = Data::parse(r#"{"world":"main","x":1,"z":2}"#, &zone).unwrap();
        let bytes = d.request(&mut ctx(0, GET_HEIGHT)).unwrap();
        assert_eq!(
            decoded(&zone, &bytes)
                .get_field_by_name("z")
                .unwrap()
                .as_f64(),
            Some(2.0)
        );
    }

    #[test]
    fn templates_render_per_request() {
        let m = method(GET_HEIGHT);
        let d = Data::parse(
            r#"{"world":"w{{.RequestNumber}}","x":"{{.RequestNumber}}","z":{{.RequestNumber}}}"#,
            &m,
        )
        .unwrap();
        assert!(matches!(d.items, Items::Text(_)));
        let msg = decoded(&m, &d.request(&mut ctx(42, GET_HEIGHT)).unwrap());
        assert_eq!(
            (
                msg.get_field_by_name("world")
                    .unwrap()
                    .as_str()
                    .map(str::to_string),
                msg.get_field_by_name("x").unwrap().as_f64(),
                msg.get_field_by_name("z").unwrap().as_f64()
            ),
            (Some("w42".to_string()), Some(42.0), Some(42.0))
        );

        let hm = method(GET_HEIGHTS);
        let d = Data::parse(
            r#"{"world":"main","coordinates":"{{randomCoordinates 500 -10 20 -5 30}}"}"#,
            &hm,
        )
        .unwrap();
        let mut c = ctx(0, GET_HEIGHTS);
        let coordinates = |bytes: Bytes| -> Vec<f64> {
            let msg = decoded(&hm, &bytes);
            let list = msg.get_field_by_name("coordinates").unwrap();
            list.as_list()
                .unwrap()
                .iter()
                .map(|v| Field::as_f64(v).unwrap())
                .collect()
        };
        let a = coordinates(d.request(&mut c).unwrap());
        let b = coordinates(d.request(&mut c).unwrap());
        assert_eq!(a.len(), 1000);
        assert_ne!(a, b, "fresh values per request");
        for p in a.chunks(2) {
            assert!(
                (-10.0..-5.0).contains(&p[0]) && (20.0..30.0).contains(&p[1]),
                "{p:?}"
            );
        }
        let e = Data::parse(r#"{"world":"{{nope}}"}"#, &m).unwrap_err();
        assert!(e.reason.contains("unknown"), "{e}");
    }
}
