//! The JSON text frames of the events WebSocket.
//!
//! Server to client: [`message`] (an event or a `resync`) and [`error`] (a refused
//! area message). Client to server: [`area`] (a new area of interest).

use serde::Serialize;
use serde_json::{Value, json};

use crate::{
    error::ApiError,
    events::{Area, Message},
};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EventJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    world: &'a str,
    revision: u64,
    cause: CauseJson<'a>,
    tiles: Vec<[i64; 2]>,
    bounds: BoundsJson,
    max_height_delta: Option<f64>,
}

#[derive(Serialize)]
struct CauseJson<'a> {
    zone: &'a str,
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BoundsJson {
    min_x: f64,
    min_z: f64,
    max_x: f64,
    max_z: f64,
}

#[derive(Serialize)]
struct ResyncJson {
    #[serde(rename = "type")]
    kind: &'static str,
    revision: u64,
}

/// The frame of a stream message: an event
/// `{"type": "event", "world", "revision", "cause": {"zone", "kind"}, "tiles",
/// "bounds": {"minX", "minZ", "maxX", "maxZ"}, "maxHeightDelta"}` or
/// `{"type": "resync", "revision"}`.
pub fn message(message: &Message) -> Result<String, serde_json::Error> {
    match message {
        Message::Event(e) => serde_json::to_string(&EventJson {
            kind: "event",
            world: &e.world,
            revision: e.revision,
            cause: CauseJson {
                zone: &e.zone,
                kind: e.kind.as_str(),
            },
            tiles: e.tiles.iter().map(|&(x, z)| [x, z]).collect(),
            bounds: BoundsJson {
                min_x: e.bounds.min_x,
                min_z: e.bounds.min_z,
                max_x: e.bounds.max_x,
                max_z: e.bounds.max_z,
            },
            max_height_delta: e.max_height_delta,
        }),
        Message::Resync { revision } => serde_json::to_string(&ResyncJson {
            kind: "resync",
            revision: *revision,
        }),
    }
}

/// The frame answering a refused client message:
/// `{"type": "error", "error": {"code", "message", "field"}}`.
pub fn error(err: &ApiError) -> String {
    json!({"type": "error", "error": {
        "code": err.code().as_str(),
        "message": err.to_string(),
        "field": err.field(),
    }})
    .to_string()
}

/// The area a client sends: `{"tiles": [minTx, minTz, maxTx, maxTz]}`,
/// `{"x", "z", "radius"}` or `{}` (everything).
pub fn area(text: &str) -> Result<Area, ApiError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| ApiError::invalid("area", format!("not JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(ApiError::invalid("area", "must be a JSON object"));
    };
    if let Some(tiles) = map.get("tiles") {
        let v: [i64; 4] = serde_json::from_value(tiles.clone())
            .map_err(|_| ApiError::invalid("tiles", "must be [minTx, minTz, maxTx, maxTz]"))?;
        return Ok(Area::tiles(v, "tiles")?);
    }
    let number = |field: &'static str| {
        map.get(field)
            .and_then(Value::as_f64)
            .ok_or_else(|| ApiError::invalid(field, "must be a number"))
    };
    if map.contains_key("x") || map.contains_key("z") || map.contains_key("radius") {
        return Ok(Area::circle(number("x")?, number("z")?, number("radius")?)?);
    }
    if map.is_empty() {
        return Ok(Area::All);
    }
    Err(ApiError::invalid(
        "area",
        "expected {\"tiles\": [...]}, {\"x\", \"z\", \"radius\"} or {}",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_areas() {
        assert_eq!(area("{}").unwrap(), Area::All);
        assert_eq!(
            area(r#"{"x": 1, "z": 2, "radius": 3}"#).unwrap(),
            Area::Circle {
                x: 1.0,
                z: 2.0,
                radius: 3.0
            }
        );
        assert!(matches!(
            area(r#"{"tiles": [0, 0, 1, 1]}"#),
            Ok(Area::Tiles { max_tz: 1, .. })
        ));
        assert_eq!(area(r#"{"x": 1}"#).unwrap_err().field(), Some("z"));
        assert_eq!(area("[1]").unwrap_err().field(), Some("area"));
    }
}
