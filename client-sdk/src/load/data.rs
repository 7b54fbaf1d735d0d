//! Request data (`-d`): JSON in the protobuf JSON mapping (lowerCamelCase or the
//! proto's snake_case names; numbers may be strings), with ghz-style templates
//! evaluated per request:
//!
//! - fields: `{{.RequestNumber}}`, `{{.WorkerID}}`, `{{.FullyQualifiedName}}`,
//!   `{{.MethodName}}`, `{{.ServiceName}}`, `{{.TimestampUnix}}`,
//!   `{{.TimestampUnixMilli}}`, `{{.TimestampUnixNano}}`, `{{.UUID}}`;
//! - functions: `{{randomInt MIN MAX}}` (ghz's), and, to spread queries over an
//!   area, `{{randomFloat MIN MAX}}` and `{{randomCoordinates N MINX MINZ MAXX
//!   MAXZ}}` (N `x, z` pairs, uniform over the rectangle).
//!
//! A string value that is exactly one template becomes that value's JSON type, so
//! `{"x": "{{randomFloat -450 450}}"}` is a number and
//! `{"coordinates": "{{randomCoordinates 10000 -450 -450 450 450}}"}` an array. Data
//! that is not valid JSON until rendered (`{"x": {{.RequestNumber}}}`) is rendered
//! as text and then parsed. A data array is used round-robin by request number.
//! Random values come from a per-worker generator seeded by the worker number, so a
//! run is reproducible.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Number, Value};
use terrain_proto::v1;
use tonic_health::pb::HealthCheckRequest;

use crate::load::{Method, call::Message};

/// Why the data does not make a request; names the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("data{path}: {reason}")]
pub struct DataError {
    pub path: String,
    pub reason: String,
}

fn err(path: &str, reason: impl Into<String>) -> DataError {
    DataError {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// What one request's template can see.
#[derive(Debug)]
pub struct Context {
    pub request_number: u64,
    pub worker_id: usize,
    pub method: Method,
    pub rng: Rng,
}

/// splitmix64: small, fast, and reproducible from a seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub fn float(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        lo + (hi - lo) * u
    }
}

/// The request data of a run, prepared once.
#[derive(Debug, Clone)]
pub enum Data {
    /// No templates: the messages, built once and cloned per request.
    Static(Vec<Message>),
    /// JSON with templates in string values.
    Values(Vec<Value>),
    /// Text that becomes JSON once rendered.
    Text(String),
}

impl Data {
    /// Prepares `text` (JSON, possibly templated) for `method`, and checks that the
    /// first request can be built.
    pub fn parse(text: &str, method: Method) -> Result<Data, DataError> {
        let data = match serde_json::from_str::<Value>(text) {
            Ok(value) => {
                let items = match value {
                    Value::Array(items) if items.is_empty() => {
                        return Err(err("", "an empty array"));
                    }
                    Value::Array(items) => items,
                    other => vec![other],
                };
                if text.contains("{{") {
                    Data::Values(items)
                } else {
                    let messages = items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| message(method, v).map_err(|e| at(e, i, items.len())))
                        .collect::<Result<_, _>>()?;
                    Data::Static(messages)
                }
            }
            Err(_) if text.contains("{{") => Data::Text(text.to_string()),
            Err(e) => return Err(err("", format!("not JSON: {e}"))),
        };
        let mut probe = Context {
            request_number: 0,
            worker_id: 0,
            method,
            rng: Rng::new(0),
        };
        data.request(&mut probe)?;
        Ok(data)
    }

    /// The request numbered `ctx.request_number`.
    pub fn request(&self, ctx: &mut Context) -> Result<Message, DataError> {
        match self {
            Data::Static(messages) => Ok(messages[pick(ctx, messages.len())].clone()),
            Data::Values(items) => {
                let i = pick(ctx, items.len());
                let value = render_value(&items[i], ctx)?;
                message(ctx.method, &value).map_err(|e| at(e, i, items.len()))
            }
            Data::Text(text) => {
                let rendered = render_text(text, ctx)?;
                let value: Value = serde_json::from_str(&rendered)
                    .map_err(|e| err("", format!("not JSON once rendered: {e}")))?;
                match value {
                    Value::Array(items) if !items.is_empty() => {
                        let i = pick(ctx, items.len());
                        message(ctx.method, &items[i]).map_err(|e| at(e, i, items.len()))
                    }
                    other => message(ctx.method, &other),
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

// === Templates ===

/// The value of one `{{ ... }}` expression.
enum Rendered {
    Number(f64),
    Integer(i64),
    Text(String),
    Numbers(Vec<f64>),
}

impl Rendered {
    fn into_text(self) -> String {
        match self {
            Rendered::Number(v) => v.to_string(),
            Rendered::Integer(v) => v.to_string(),
            Rendered::Text(s) => s,
            Rendered::Numbers(vs) => vs.iter().map(f64::to_string).collect::<Vec<_>>().join(","),
        }
    }

    fn into_value(self) -> Value {
        let num = |v: f64| Number::from_f64(v).map_or(Value::Null, Value::Number);
        match self {
            Rendered::Number(v) => num(v),
            Rendered::Integer(v) => Value::from(v),
            Rendered::Text(s) => Value::String(s),
            Rendered::Numbers(vs) => Value::Array(vs.into_iter().map(num).collect()),
        }
    }
}

fn eval(expr: &str, ctx: &mut Context) -> Result<Rendered, DataError> {
    let words: Vec<&str> = expr.split_whitespace().collect();
    let bad = |reason: String| err("", format!("template {{{{{expr}}}}}: {reason}"));
    let nums = |args: &[&str], n: usize| -> Result<Vec<f64>, DataError> {
        if args.len() != n {
            return Err(bad(format!("takes {n} arguments")));
        }
        args.iter()
            .map(|a| {
                a.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| bad(format!("{a:?} is not a number")))
            })
            .collect()
    };
    let now = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
    };
    Ok(match words.as_slice() {
        [".RequestNumber"] => Rendered::Integer(ctx.request_number as i64),
        [".WorkerID"] => Rendered::Text(format!("w{}", ctx.worker_id)),
        [".FullyQualifiedName"] => Rendered::Text(ctx.method.to_string()),
        [".MethodName"] => Rendered::Text(ctx.method.name().to_string()),
        [".ServiceName"] => Rendered::Text(ctx.method.service().to_string()),
        [".TimestampUnix"] => Rendered::Integer(now().as_secs() as i64),
        [".TimestampUnixMilli"] => Rendered::Integer(now().as_millis() as i64),
        [".TimestampUnixNano"] => Rendered::Integer(now().as_nanos() as i64),
        [".UUID"] => {
            let (a, b) = (ctx.rng.next_u64(), ctx.rng.next_u64());
            Rendered::Text(format!(
                "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
                a >> 32,
                (a >> 16) & 0xffff,
                a & 0xfff,
                ((b >> 48) & 0x3fff) | 0x8000,
                b & 0xffff_ffff_ffff
            ))
        }
        ["randomInt", args @ ..] => {
            let v = nums(args, 2)?;
            let (lo, hi) = (v[0] as i64, v[1] as i64);
            if hi <= lo {
                return Err(bad("MAX must exceed MIN".into()));
            }
            Rendered::Integer(lo + (ctx.rng.next_u64() % (hi - lo) as u64) as i64)
        }
        ["randomFloat", args @ ..] => {
            let v = nums(args, 2)?;
            Rendered::Number(ctx.rng.float(v[0], v[1]))
        }
        ["randomCoordinates", args @ ..] => {
            let v = nums(args, 5)?;
            if v[0] < 0.0 || v[0].fract() != 0.0 {
                return Err(bad("N must be a whole number".into()));
            }
            let n = v[0] as usize;
            let mut out = Vec::with_capacity(2 * n);
            for _ in 0..n {
                out.push(ctx.rng.float(v[1], v[3]));
                out.push(ctx.rng.float(v[2], v[4]));
            }
            Rendered::Numbers(out)
        }
        _ => return Err(bad("unknown field or function".into())),
    })
}

/// Renders every `{{ ... }}` in `text`.
fn render_text(text: &str, ctx: &mut Context) -> Result<String, DataError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| err("", "a template {{ without }}"))?;
        out.push_str(&eval(after[..end].trim(), ctx)?.into_text());
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

fn render_value(value: &Value, ctx: &mut Context) -> Result<Value, DataError> {
    Ok(match value {
        Value::String(s) if s.contains("{{") => {
            let t = s.trim();
            let single = t.starts_with("{{") && t.ends_with("}}") && t[2..].find("{{").is_none();
            if single && t.len() >= 4 {
                eval(t[2..t.len() - 2].trim(), ctx)?.into_value()
            } else {
                Value::String(render_text(s, ctx)?)
            }
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| render_value(v, ctx))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), render_value(v, ctx)?)))
                .collect::<Result<Map<_, _>, DataError>>()?,
        ),
        other => other.clone(),
    })
}

// === JSON to protobuf messages ===

/// The fields of a data object, each looked up by its lowerCamelCase or snake_case
/// name; an unknown field is an error.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    input: &'static str,
}

impl<'a> Fields<'a> {
    fn new(value: &'a Value, input: &'static str, known: &[&str]) -> Result<Self, DataError> {
        let map = value
            .as_object()
            .ok_or_else(|| err("", format!("{input} must be a JSON object")))?;
        for key in map.keys() {
            if !known.iter().any(|k| *k == key || snake(k) == *key) {
                return Err(err(
                    &format!(".{key}"),
                    format!("{input} has no such field (fields: {})", known.join(", ")),
                ));
            }
        }
        Ok(Fields { map, input })
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).or_else(|| self.map.get(&snake(name)))
    }

    fn string(&self, name: &str) -> Result<String, DataError> {
        match self.get(name) {
            None => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(err(
                &format!(".{name}"),
                format!("expected a string, got {v}"),
            )),
        }
    }

    fn f64(&self, name: &str) -> Result<f64, DataError> {
        self.get(name)
            .map_or(Ok(0.0), |v| number(v, &format!(".{name}")))
    }

    fn int(&self, name: &str) -> Result<i64, DataError> {
        let v = self.f64(name)?;
        if v.fract() != 0.0 || v.abs() > 9.007_199_254_740_992e15 {
            return Err(err(&format!(".{name}"), format!("{v} is not an integer")));
        }
        Ok(v as i64)
    }

    fn uint(&self, name: &str) -> Result<u32, DataError> {
        let v = self.int(name)?;
        u32::try_from(v).map_err(|_| err(&format!(".{name}"), format!("{v} is not a u32")))
    }

    fn numbers(&self, name: &str) -> Result<Vec<f64>, DataError> {
        match self.get(name) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                // The path is only built for an element that is not a plain number.
                .map(|(i, v)| {
                    v.as_f64()
                        .map_or_else(|| number(v, &format!(".{name}[{i}]")), Ok)
                })
                .collect(),
            Some(v) => Err(err(
                &format!(".{name}"),
                format!("{} expects an array of numbers, got {v}", self.input),
            )),
        }
    }
}

fn snake(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A JSON number, or a string holding one (the protobuf JSON mapping allows both).
fn number(v: &Value, path: &str) -> Result<f64, DataError> {
    let parsed = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| err(path, format!("expected a number, got {v}")))
}

/// The request message of `method` that `value` describes.
pub fn message(method: Method, value: &Value) -> Result<Message, DataError> {
    Ok(match method {
        Method::ListWorlds => {
            Fields::new(value, "ListWorldsRequest", &[])?;
            Message::ListWorlds(v1::ListWorldsRequest {})
        }
        Method::GetHeight => {
            let f = Fields::new(value, "GetHeightRequest", &["world", "x", "z", "mode"])?;
            let mode = match f.get("mode") {
                None => 0,
                Some(Value::String(s)) => v1::HeightMode::from_str_name(s)
                    .ok_or_else(|| err(".mode", format!("unknown HeightMode {s:?}")))?
                    as i32,
                Some(_) => f.int("mode")? as i32,
            };
            Message::GetHeight(v1::GetHeightRequest {
                world: f.string("world")?,
                x: f.f64("x")?,
                z: f.f64("z")?,
                mode,
            })
        }
        Method::GetHeights => {
            let f = Fields::new(value, "GetHeightsRequest", &["world", "coordinates"])?;
            Message::GetHeights(v1::GetHeightsRequest {
                world: f.string("world")?,
                coordinates: f.numbers("coordinates")?,
            })
        }
        Method::GetHeightmap => {
            let f = Fields::new(
                value,
                "GetHeightmapRequest",
                &["world", "x0", "z0", "step", "nx", "nz"],
            )?;
            Message::GetHeightmap(v1::GetHeightmapRequest {
                world: f.string("world")?,
                x0: f.f64("x0")?,
                z0: f.f64("z0")?,
                step: f.f64("step")?,
                nx: f.uint("nx")?,
                nz: f.uint("nz")?,
            })
        }
        Method::GetTileMesh => {
            let f = Fields::new(value, "GetTileMeshRequest", &["world", "tileX", "tileZ"])?;
            Message::GetTileMesh(v1::GetTileMeshRequest {
                world: f.string("world")?,
                tile_x: f.int("tileX")?,
                tile_z: f.int("tileZ")?,
            })
        }
        Method::HealthCheck => {
            let f = Fields::new(value, "HealthCheckRequest", &["service"])?;
            Message::HealthCheck(HealthCheckRequest {
                service: f.string("service")?,
            })
        }
        Method::Subscribe => {
            let f = Fields::new(
                value,
                "SubscribeRequest",
                &["world", "area", "fromRevision"],
            )?;
            let from_revision = match f.get("fromRevision") {
                None => None,
                Some(_) => Some(
                    u64::try_from(f.int("fromRevision")?)
                        .map_err(|_| err(".fromRevision", "must be >= 0"))?,
                ),
            };
            Message::Subscribe(v1::SubscribeRequest {
                world: f.string("world")?,
                area: f.get("area").map(area).transpose()?,
                from_revision,
            })
        }
    })
}

fn area(value: &Value) -> Result<v1::SubscriptionArea, DataError> {
    use v1::subscription_area::Area;
    let f = Fields::new(value, "SubscriptionArea", &["tiles", "circle"])?;
    let area = match (f.get("tiles"), f.get("circle")) {
        (Some(t), None) => {
            let t = Fields::new(t, "AreaTiles", &["minTx", "minTz", "maxTx", "maxTz"])?;
            Area::Tiles(v1::AreaTiles {
                min_tx: t.int("minTx")?,
                min_tz: t.int("minTz")?,
                max_tx: t.int("maxTx")?,
                max_tz: t.int("maxTz")?,
            })
        }
        (None, Some(c)) => {
            let c = Fields::new(c, "AreaCircle", &["x", "z", "radius"])?;
            Area::Circle(v1::AreaCircle {
                x: c.f64("x")?,
                z: c.f64("z")?,
                radius: c.f64("radius")?,
            })
        }
        _ => return Err(err(".area", "give exactly one of tiles and circle")),
    };
    Ok(v1::SubscriptionArea { area: Some(area) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(n: u64) -> Context {
        Context {
            request_number: n,
            worker_id: 3,
            method: Method::GetHeight,
            rng: Rng::new(7),
        }
    }

    #[test]
    fn static_data_becomes_messages_once() {
        let d = Data::parse(
            r#"{"world":"main","x":10,"z":"-20.5","mode":"HEIGHT_MODE_SURFACE"}"#,
            Method::GetHeight,
        )
        .unwrap();
        let Data::Static(ref m) = d else {
            panic!("static expected")
        };
        assert_eq!(
            m[0],
            Message::GetHeight(v1::GetHeightRequest {
                world: "main".into(),
                x: 10.0,
                z: -20.5,
                mode: 2
            })
        );
        let e = Data::parse(r#"{"world":"main","y":1}"#, Method::GetHeight).unwrap_err();
        assert_eq!(e.path, ".y");
        let e = Data::parse(r#"{"world":"main","x":"abc"}"#, Method::GetHeight).unwrap_err();
        assert_eq!(e.path, ".x");
        let e = Data::parse(r#"[{"world":"a"},{"world":1}]"#, Method::GetHeights).unwrap_err();
        assert_eq!(e.path, "[1].world");
    }

    #[test]
    fn templates_render_per_request() {
        let d = Data::parse(
            r#"{"world":"w{{.RequestNumber}}","x":"{{.RequestNumber}}","z":{{.RequestNumber}}}"#,
            Method::GetHeight,
        )
        .unwrap();
        assert!(matches!(d, Data::Text(_)));
        let Message::GetHeight(m) = d.request(&mut ctx(42)).unwrap() else {
            panic!()
        };
        assert_eq!((m.world.as_str(), m.x, m.z), ("w42", 42.0, 42.0));

        let d = Data::parse(
            r#"{"world":"main","coordinates":"{{randomCoordinates 500 -10 20 -5 30}}"}"#,
            Method::GetHeights,
        )
        .unwrap();
        let mut c = ctx(0);
        c.method = Method::GetHeights;
        let Message::GetHeights(a) = d.request(&mut c).unwrap() else {
            panic!()
        };
        let Message::GetHeights(b) = d.request(&mut c).unwrap() else {
            panic!()
        };
        assert_eq!(a.coordinates.len(), 1000);
        assert_ne!(a.coordinates, b.coordinates, "fresh values per request");
        for p in a.coordinates.chunks(2) {
            assert!(
                (-10.0..-5.0).contains(&p[0]) && (20.0..30.0).contains(&p[1]),
                "{p:?}"
            );
        }
        let e = Data::parse(r#"{"world":"{{nope}}"}"#, Method::GetHeight).unwrap_err();
        assert!(e.reason.contains("unknown"), "{e}");
    }

    #[test]
    fn random_ints_stay_in_range() {
        let mut c = ctx(0);
        for _ in 0..1000 {
            let Rendered::Integer(v) = eval("randomInt 5 8", &mut c).unwrap() else {
                panic!()
            };
            assert!((5..8).contains(&v));
        }
    }
}
