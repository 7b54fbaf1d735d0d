//! Request templates: ghz's `{{ ... }}` expressions evaluated per request into JSON,
//! before [`crate::data`] turns the JSON into a protobuf message.
//!
//! - fields: `{{.RequestNumber}}`, `{{.WorkerID}}`, `{{.FullyQualifiedName}}`,
//!   `{{.MethodName}}`, `{{.ServiceName}}`, `{{.TimestampUnix}}`,
//!   `{{.TimestampUnixMilli}}`, `{{.TimestampUnixNano}}`, `{{.UUID}}`;
//! - functions: `{{randomInt MIN MAX}}` (ghz's), and, to spread queries over an
//!   area, `{{randomFloat MIN MAX}}` and `{{randomCoordinates N MINX MINZ MAXX
//!   MAXZ}}` (N `x, z` pairs, uniform over the rectangle).
//!
//! A string value that is exactly one template becomes that value's JSON type
//! (`render_value`), so `{"x": "{{randomFloat -450 450}}"}` is a number and
//! `{"coordinates": "{{randomCoordinates 10000 -450 -450 450 450}}"}` an array; text
//! that is not JSON until rendered is rendered as text (`render_text`). Random values
//! come from a per-worker generator seeded by the worker number, so a run is
//! reproducible.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Number, Value};

use crate::{
    Method,
    data::{DataError, err},
};

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
pub(crate) fn render_text(text: &str, ctx: &mut Context) -> Result<String, DataError> {
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

pub(crate) fn render_value(value: &Value, ctx: &mut Context) -> Result<Value, DataError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(n: u64) -> Context {
        Context {
            request_number: n,
            worker_id: 3,
            method: Method::find(
                &crate::methods::builtin_pool().unwrap(),
                "grpc.health.v1.Health/Check",
            )
            .unwrap(),
            rng: Rng::new(7),
        }
    }

    #[test]
    fn fields_and_functions_render() {
        let mut c = ctx(42);
        let v = serde_json::json!({"a": "w{{.RequestNumber}}", "b": "{{.RequestNumber}}", "c": "{{ .MethodName }}"});
        let r = render_value(&v, &mut c).unwrap();
        assert_eq!(r, serde_json::json!({"a": "w42", "b": 42, "c": "Check"}));
        assert_eq!(
            render_text("{\"s\":\"{{.ServiceName}}\"}", &mut c).unwrap(),
            "{\"s\":\"grpc.health.v1.Health\"}"
        );
        let Rendered::Numbers(p) = eval("randomCoordinates 3 -1 -1 1 1", &mut c).unwrap() else {
            panic!()
        };
        assert_eq!(p.len(), 6);
        assert!(eval("nope", &mut c).is_err());
        assert!(render_text("{{.RequestNumber", &mut c).is_err());
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
