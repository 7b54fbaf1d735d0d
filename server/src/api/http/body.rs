//! Request bodies, read one way: every `POST` and `PUT` route takes its body through
//! [`JsonBody`], whose rejection is the [`ApiError`] naming the field.
//!
//! The extractor applies the one `Content-Type` rule (below), reads the body up to the
//! body type's own byte limit ([`RequestBody::limit`], refused `413` as soon as it is
//! passed) and hands the bytes to the type's decoder. Small bodies (movement requests,
//! viewers, WebSocket area messages) go through [`decode_object`]: serde with the path
//! of the value at fault tracked, every error mapped by its position in the document,
//! never by serde's message text. Zones are decoded by terrain-core's own document
//! rule ([`super::zone_body`]), batches of points by a streaming visitor that keeps a
//! million points one allocation ([`super::batch_body`]).

use std::{borrow::Cow, cell::RefCell, collections::BTreeSet, fmt, future::Future, sync::Arc};

use axum::{
    body::Bytes,
    extract::{FromRequest, Request},
    http::{HeaderMap, header::CONTENT_TYPE},
};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde::de::{self, DeserializeOwned, Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_path_to_error::Segment;

use crate::api::{ApiError, ApiState};

/// The wire format of a body (and of a batch's answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFormat {
    /// `application/json`, also assumed when no content type is given.
    Json,
    /// `application/octet-stream`: little-endian f64 pairs in, f64 heights out (the
    /// height batch only).
    Binary,
}

/// A body type read by [`JsonBody`]: its byte limit and its decoder.
pub trait RequestBody: Sized + Send {
    /// Whether `application/octet-stream` is read too (the height batch's binary form).
    const BINARY: bool = false;

    /// The largest body accepted, bytes; a larger one is refused `413` (field `body`)
    /// before the rest of it is read.
    fn limit(state: &ApiState) -> usize;

    /// Decodes the body, naming the field at fault. Large bodies may be decoded on the
    /// compute pool, so this is asynchronous.
    fn decode(
        state: &ApiState,
        format: BodyFormat,
        body: Bytes,
    ) -> impl Future<Output = Result<Self, ApiError>> + Send;
}

/// The body of a `POST` or `PUT` route, decoded as `T` says.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<T: RequestBody> FromRequest<Arc<ApiState>> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &Arc<ApiState>) -> Result<Self, ApiError> {
        let format = if T::BINARY {
            BodyFormat::of(req.headers())?
        } else {
            require_json(req.headers())?;
            BodyFormat::Json
        };
        let limit = T::limit(state);
        let body = Limited::new(req.into_body(), limit)
            .collect()
            .await
            .map_err(|err| match err.downcast_ref::<LengthLimitError>() {
                Some(_) => ApiError::BodyTooLarge { limit },
                None => ApiError::invalid("body", format!("could not be read: {err}")),
            })?
            .to_bytes();
        T::decode(state, format, body).await.map(JsonBody)
    }
}

/// The one `Content-Type` rule of the JSON body routes: JSON is read when the type is
/// absent, `application/json` or any `application/*+json` (parameters such as
/// `charset` allowed), and also `text/plain` and `application/x-www-form-urlencoded`,
/// what `curl -d` sends, so quick manual calls work. The batch route also reads
/// `application/octet-stream`. Any other type is refused `415 Unsupported Media Type`
/// (field `content-type`) before the body is read.
const JSON_TYPES: &str = "application/json";

/// The media type of the request's body, lower-cased without parameters; `None` when
/// the request names none.
fn media_type(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(CONTENT_TYPE)?;
    let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
    let mime = text
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    Some((mime, text))
}

/// Whether `mime` is read as JSON.
fn is_json(mime: &str) -> bool {
    matches!(
        mime,
        "application/json" | "text/plain" | "application/x-www-form-urlencoded"
    ) || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// Refuses a body that is not JSON by the `JSON_TYPES` rule: `415`, naming the type.
pub fn require_json(headers: &HeaderMap) -> Result<(), ApiError> {
    match media_type(headers) {
        Some((mime, text)) if !is_json(&mime) => Err(ApiError::UnsupportedMediaType {
            got: text,
            expected: JSON_TYPES,
        }),
        _ => Ok(()),
    }
}

impl BodyFormat {
    /// The format named by the request's `Content-Type`: JSON by the rule of
    /// [`require_json`], or `application/octet-stream`; anything else is `415`.
    pub fn of(headers: &HeaderMap) -> Result<Self, ApiError> {
        match media_type(headers) {
            None => Ok(BodyFormat::Json),
            Some((mime, _)) if is_json(&mime) => Ok(BodyFormat::Json),
            Some((mime, _)) if mime == "application/octet-stream" => Ok(BodyFormat::Binary),
            Some((_, text)) => Err(ApiError::UnsupportedMediaType {
                got: text,
                expected: "application/json or application/octet-stream",
            }),
        }
    }
}

/// What is wrong with a JSON object ([`decode_object`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectError {
    /// Not JSON, or text after the object.
    NotJson(String),
    /// JSON, but not an object.
    NotObject,
    /// A key given twice.
    Repeated(String),
    /// A value that is not what its key takes, or a key the object does not take:
    /// `field` is the key (`points`), with the index of an array element below it
    /// (`points[2]`); `None` when the object as a whole is at fault.
    Value {
        field: Option<String>,
        reason: String,
    },
}

impl ObjectError {
    /// The API error blaming `whole` (`body`, `area`) when no key can be named.
    pub fn into_api(self, whole: &'static str) -> ApiError {
        match self {
            ObjectError::NotJson(reason) => ApiError::invalid(whole, format!("not JSON: {reason}")),
            ObjectError::NotObject => ApiError::invalid(whole, "must be a JSON object"),
            ObjectError::Repeated(key) => ApiError::invalid(key, "given more than once"),
            ObjectError::Value { field, reason } => match field {
                Some(field) => ApiError::invalid(field, reason),
                None => ApiError::invalid(whole, reason),
            },
        }
    }
}

/// Decodes one JSON object into `T` (serde), naming what is wrong by where it is: the
/// text is checked to be one JSON object whose keys are each given once, then `T` is
/// decoded with the path of the value being read tracked. A key `T` requires is best
/// declared `Option` and checked with [`required`], so that its absence is named.
pub fn decode_object<T: DeserializeOwned>(text: &[u8]) -> Result<T, ObjectError> {
    let mut json = serde_json::Deserializer::from_slice(text);
    let repeated = RefCell::new(None);
    if let Err(err) = json.deserialize_map(UniqueKeys(&repeated)) {
        return Err(match repeated.into_inner() {
            // An empty key cannot name a field: the object is to blame.
            Some(key) if key.is_empty() => ObjectError::Value {
                field: None,
                reason: "the empty key \"\" is given more than once".to_string(),
            },
            Some(key) => ObjectError::Repeated(key),
            None if err.is_data() => ObjectError::NotObject,
            None => ObjectError::NotJson(err.to_string()),
        });
    }
    json.end()
        .map_err(|err| ObjectError::NotJson(err.to_string()))?;
    let mut json = serde_json::Deserializer::from_slice(text);
    serde_path_to_error::deserialize(&mut json).map_err(|err| {
        let mut field = String::new();
        for segment in err.path().iter().take(2) {
            match segment {
                Segment::Map { key } if field.is_empty() => field.push_str(key),
                Segment::Seq { index } if !field.is_empty() => {
                    field.push_str(&format!("[{index}]"));
                }
                _ => break,
            }
        }
        // (An empty key, `{"": 1}`, cannot name a field either.)
        ObjectError::Value {
            field: (!field.is_empty() && !field.starts_with('[')).then_some(field),
            reason: err.into_inner().to_string(),
        }
    })
}

/// For `#[serde(default, deserialize_with = "present")]`: a key that, when given, must
/// hold a `T` (`null` is refused like any other wrong type); absent, `None`.
pub fn present<'de, D: de::Deserializer<'de>, T: de::Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A key the body must give: `missing (required)` when absent (or null).
pub fn required<T>(field: &'static str, value: Option<T>) -> Result<T, ApiError> {
    value.ok_or_else(|| ApiError::invalid(field, "missing (required)"))
}

/// Reads an object's keys (values skipped), failing at the first key given twice and
/// leaving it in the cell.
struct UniqueKeys<'a>(&'a RefCell<Option<String>>);

impl<'de> Visitor<'de> for UniqueKeys<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if !seen.insert(key.clone()) {
                *self.0.borrow_mut() = Some(key.into_owned());
                return Err(de::Error::custom("a key is given more than once"));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Probe {
        points: Option<Vec<[f64; 2]>>,
        #[serde(default)]
        mode: Option<String>,
    }

    fn error(text: &str) -> ObjectError {
        decode_object::<Probe>(text.as_bytes()).unwrap_err()
    }

    fn value(field: Option<&str>) -> impl Fn(&ObjectError) -> bool + '_ {
        move |e| matches!(e, ObjectError::Value { field: f, .. } if f.as_deref() == field)
    }

    #[test]
    fn decodes_an_object() {
        let probe: Probe = decode_object(br#" {"points": [[1, 2.5]], "mode": "exact"} "#).unwrap();
        assert_eq!(probe.points, Some(vec![[1.0, 2.5]]));
        assert_eq!(probe.mode.as_deref(), Some("exact"));
        let empty: Probe = decode_object(b"{}").unwrap();
        assert_eq!(
            empty,
            Probe {
                points: None,
                mode: None
            }
        );
        assert_eq!(
            required("points", empty.points).unwrap_err().to_string(),
            "points: missing (required)"
        );
    }

    #[test]
    fn names_what_is_wrong_by_where_it_is() {
        assert!(value(Some("points[1]"))(&error(
            r#"{"points": [[1, 2], [3]]}"#
        )));
        assert!(value(Some("points[0]"))(&error(
            r#"{"points": [[1, "2"]]}"#
        )));
        assert!(value(Some("points"))(&error(r#"{"points": 3}"#)));
        assert!(value(Some("mode"))(&error(r#"{"mode": 3}"#)));
        assert!(value(Some("extra"))(&error(
            r#"{"points": [], "extra": 1}"#
        )));
        assert_eq!(
            error(r#"{"mode": "a", "points": [], "mode": "b"}"#),
            ObjectError::Repeated("mode".into())
        );
        // A repeated key inside a value is the value's problem, not the object's.
        assert!(value(Some("points[0]"))(&error(
            r#"{"points": [{"x": 1, "x": 2}]}"#
        )));
        assert_eq!(error("[1, 2]"), ObjectError::NotObject);
        assert_eq!(error("3"), ObjectError::NotObject);
        for text in ["", "{", r#"{"points": [[1, 2]]} trailing"#, "{} {}", "nope"] {
            assert!(matches!(error(text), ObjectError::NotJson(_)), "{text:?}");
        }
        let api = error(r#"{"mode": 1, "mode": 2}"#).into_api("body");
        assert_eq!(api.to_string(), "mode: given more than once");
        assert_eq!(error("[]").into_api("area").field(), Some("area"));
        // An empty key is the object's fault, never an empty field name.
        assert!(value(None)(&error(r#"{"": 1}"#)));
        assert!(value(None)(&error(r#"{"": 1, "": 2}"#)));
        assert_eq!(error(r#"{"": 1}"#).into_api("body").field(), Some("body"));
    }
}
