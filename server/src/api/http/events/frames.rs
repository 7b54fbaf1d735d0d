//! The JSON text frames of the events WebSocket.
//!
//! Server to client: [`message`] (an event or a `resync`), [`area_applied`] (the
//! acknowledgement of an area change) and [`error`] (a refused area message). Client
//! to server: [`area`] (a new area of interest, decoded as every small JSON body is,
//! [`decode_object`]).

use std::collections::BTreeMap;

use bytes::Bytes;
use serde::{Deserialize, Serialize, de::IgnoredAny};
use serde_json::json;
use tokio_tungstenite::tungstenite::{
    Utf8Bytes,
    protocol::frame::{
        Frame,
        coding::{Data, OpCode},
    },
};

use super::super::body::{ObjectError, decode_object, present};
use crate::{
    api::ApiError,
    events::{Area, Event, Message, Published},
};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EventJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    world: &'a str,
    revision: u64,
    /// The epoch of the world's history `revision` belongs to (resume with both).
    epoch: &'a str,
    cause: CauseJson<'a>,
    /// Listed only up to `TILE_LIST_MAX` tiles; `tileRects` always says which.
    tiles: Vec<[i64; 2]>,
    tile_rects: Vec<[i64; 4]>,
    tile_count: u64,
    bounds: BoundsJson,
    max_height_delta: Option<f64>,
    /// `[level, minX, minY, maxX, maxY]` in tileset indices.
    tileset_contents: Vec<[u64; 5]>,
}

#[derive(Serialize)]
struct CauseJson<'a> {
    zone: &'a str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    walkable: Option<bool>,
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
struct ResyncJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    revision: u64,
    epoch: &'a str,
}

/// The frame of a stream message: an event
/// `{"type": "event", "world", "revision", "cause": {"zone", "kind"}, "tiles",
/// "tileRects": [[minTx, minTz, maxTx, maxTz]], "tileCount",
/// "bounds": {"minX", "minZ", "maxX", "maxZ"}, "maxHeightDelta",
/// "tilesetContents": [[level, minX, minY, maxX, maxY]], "epoch"}` or
/// `{"type": "resync", "revision", "epoch"}`, `epoch` the world's history's (the
/// stream's: the same for every subscriber of the world, so an event's JSON is
/// serialised once and shared by every subscriber it reaches,
/// [`crate::events::Published::json`]; each frame borrows that buffer, checked as
/// UTF-8, not copied).
pub fn message(message: &Message, epoch: &str) -> Result<Utf8Bytes, String> {
    match message {
        Message::Event(e) => event_frame(e, epoch),
        Message::Resync { revision, epoch } => serde_json::to_string(&ResyncJson {
            kind: "resync",
            revision: *revision,
            epoch,
        })
        .map(Utf8Bytes::from)
        .map_err(|err| err.to_string()),
    }
}

/// The frame of one event (`epoch` its world's history's): the buffer every
/// subscriber shares, as [`message`] makes it.
pub fn event_frame(e: &Published, epoch: &str) -> Result<Utf8Bytes, String> {
    let json = e.json(|e| event(e, epoch).map_err(|err| err.to_string()))?;
    Utf8Bytes::try_from(json).map_err(|err| err.to_string())
}

/// One event's whole WebSocket text frame (unmasked, as a server sends it): the
/// header and [`event_frame`]'s text, made once per event and shared by every
/// subscriber the hub writes it to ([`super::wire`]).
pub fn event_wire<'a>(e: &'a Published, epoch: &str) -> Result<&'a Bytes, &'a str> {
    e.frame(|| {
        let text = event_frame(e, epoch)?;
        let mut frame = Vec::with_capacity(text.len() + 10);
        Frame::message(Bytes::from(text), OpCode::Data(Data::Text), true)
            .format(&mut frame)
            .map_err(|err| err.to_string())?;
        Ok(Bytes::from(frame))
    })
}

/// The JSON frame of one event.
fn event(e: &Event, epoch: &str) -> Result<String, serde_json::Error> {
    serde_json::to_string(&EventJson {
        kind: "event",
        world: &e.world,
        revision: e.revision,
        epoch,
        cause: CauseJson {
            zone: &e.zone,
            kind: e.kind.as_str(),
            walkable: e.walkable,
        },
        tiles: e.tiles.iter().map(|&(x, z)| [x, z]).collect(),
        tile_rects: e
            .tile_rects
            .iter()
            .map(|r| [r.min_tx, r.min_tz, r.max_tx, r.max_tz])
            .collect(),
        tile_count: e.tile_count,
        bounds: BoundsJson {
            min_x: e.bounds.min_x,
            min_z: e.bounds.min_z,
            max_x: e.bounds.max_x,
            max_z: e.bounds.max_z,
        },
        max_height_delta: e.max_height_delta,
        tileset_contents: e
            .tileset_contents
            .iter()
            .map(|c| [u64::from(c.level), c.min_x, c.min_y, c.max_x, c.max_y])
            .collect(),
    })
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

/// An area message as the client writes it; which fields are present decides the
/// area. Unknown fields are ignored, as they always were.
#[derive(Deserialize)]
struct AreaMessage {
    #[serde(default, deserialize_with = "present")]
    tiles: Option<[i64; 4]>,
    #[serde(default, deserialize_with = "present")]
    x: Option<f64>,
    #[serde(default, deserialize_with = "present")]
    z: Option<f64>,
    #[serde(default, deserialize_with = "present")]
    radius: Option<f64>,
    /// Any other field: only whether there is one matters.
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

/// What a field must be, for the error naming it.
fn expected(field: &str) -> &'static str {
    if field.starts_with("tiles") {
        "must be [minTx, minTz, maxTx, maxTz]"
    } else {
        "must be a number"
    }
}

/// The area a client sends: `{"tiles": [minTx, minTz, maxTx, maxTz]}`,
/// `{"x", "z", "radius"}` or `{}` (everything). Errors name the field by its path
/// (`tiles`, `tiles[1]`, `radius`), or `area` for the message as a whole.
pub fn area(text: &str) -> Result<Area, ApiError> {
    let message: AreaMessage = decode_object(text.as_bytes()).map_err(|e| match e {
        // The value's path (`tiles`, `tiles[1]`, `radius`) and what it must hold.
        ObjectError::Value {
            field: Some(field), ..
        } => {
            let reason = expected(&field);
            ApiError::invalid(field, reason)
        }
        e => e.into_api("area"),
    })?;
    let circle = [
        ("x", message.x),
        ("z", message.z),
        ("radius", message.radius),
    ];
    let round = circle.iter().any(|(_, v)| v.is_some());
    if let Some(tiles) = message.tiles {
        if round {
            // As the query form: one area, never a silent pick between two.
            return Err(ApiError::invalid(
                "tiles",
                "give tiles or x, z and radius, not both",
            ));
        }
        return Ok(Area::tiles(tiles, "tiles")?);
    }
    if round {
        let [x, z, radius] =
            circle.map(|(field, v)| v.ok_or_else(|| ApiError::invalid(field, expected(field))));
        return Ok(Area::circle(x?, z?, radius?)?);
    }
    if message.other.is_empty() {
        return Ok(Area::All);
    }
    Err(ApiError::invalid(
        "area",
        "expected {\"tiles\": [...]}, {\"x\", \"z\", \"radius\"} or {}",
    ))
}

/// The frame acknowledging an area change: `{"type": "area", "area", "revision"}`,
/// the area as the client would send it; every event after `revision` is matched
/// against it.
pub fn area_applied(area: &Area, revision: u64) -> String {
    let area = match *area {
        Area::All => json!({}),
        Area::Tiles {
            min_tx,
            min_tz,
            max_tx,
            max_tz,
        } => json!({"tiles": [min_tx, min_tz, max_tx, max_tz]}),
        Area::Circle { x, z, radius } => json!({"x": x, "z": z, "radius": radius}),
    };
    json!({"type": "area", "area": area, "revision": revision}).to_string()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::metrics::Metrics;

    /// Every subscriber's frame of one event is the one JSON buffer the event holds.
    #[test]
    fn frames_of_one_event_share_its_json() {
        let mut event = crate::events::sample_event(4, vec![(0, 0)]);
        event.tileset_contents = vec![terrain_core::tiles3d::ContentRect {
            level: 2,
            min_x: 1,
            min_y: 0,
            max_x: 2,
            max_y: 1,
        }];
        let metrics = Arc::new(Metrics::new().unwrap());
        let published = Message::Event(Arc::new(Published::new(event, metrics)));
        let frames: Vec<Utf8Bytes> = (0..3)
            .map(|_| message(&published, "0000000000000001").unwrap())
            .collect();
        let json: serde_json::Value = serde_json::from_str(frames[0].as_str()).unwrap();
        assert_eq!(
            (json["type"].as_str(), json["revision"].as_u64()),
            (Some("event"), Some(4))
        );
        assert_eq!(
            json["tilesetContents"],
            serde_json::json!([[2, 1, 0, 2, 1]])
        );
        assert!(
            frames
                .iter()
                .all(|f| f.as_str().as_ptr() == frames[0].as_str().as_ptr())
        );
    }

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

    /// A key given twice names that key (not "must be a JSON object"), and tiles
    /// with a circle are refused as in the query form.
    #[test]
    fn duplicate_keys_and_two_areas_are_refused_by_name() {
        for (text, field) in [
            (r#"{"x": 1, "x": 2, "z": 0, "radius": 1}"#, "x"),
            (r#"{"tiles": [0, 0, 1, 1], "tiles": [0, 0, 2, 2]}"#, "tiles"),
            (r#"{"x": 1, "z": 0, "radius": 1, "radius": 3}"#, "radius"),
        ] {
            let err = area(text).unwrap_err();
            assert_eq!(err.field(), Some(field), "{text}");
            assert!(err.to_string().contains("more than once"), "{err}");
        }
        let err = area(r#"{"tiles":[0,0,0,0],"x":1}"#).unwrap_err();
        assert_eq!(err.field(), Some("tiles"));
        assert!(err.to_string().contains("not both"), "{err}");
    }

    #[test]
    fn acknowledgements_echo_the_area_as_a_client_sends_it() {
        for text in [
            r#"{"tiles":[0,-1,2,3]}"#,
            r#"{"x":1.5,"z":-2.0,"radius":10.0}"#,
            "{}",
        ] {
            let ack: serde_json::Value =
                serde_json::from_str(&area_applied(&area(text).unwrap(), 7)).unwrap();
            assert_eq!(ack["type"], "area");
            assert_eq!(ack["revision"], 7);
            let sent: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(ack["area"], sent);
            assert_eq!(area(&ack["area"].to_string()), area(text));
        }
    }

    #[test]
    fn area_errors_name_the_field_by_its_path() {
        let field = |text: &str| area(text).unwrap_err().field().map(String::from);
        assert_eq!(field(r#"{"tiles": [1, 2, 3]}"#).as_deref(), Some("tiles"));
        assert_eq!(
            field(r#"{"tiles": [0, "a", 1, 1]}"#).as_deref(),
            Some("tiles[1]")
        );
        assert_eq!(field(r#"{"tiles": null}"#).as_deref(), Some("tiles"));
        assert_eq!(
            field(r#"{"tiles": [1, 0, 0, 0]}"#).as_deref(),
            Some("tiles")
        );
        assert_eq!(
            field(r#"{"x": 1, "z": "2", "radius": 3}"#).as_deref(),
            Some("z")
        );
        assert_eq!(
            field(r#"{"x": 1, "z": 2, "radius": -3}"#).as_deref(),
            Some("radius")
        );
        assert_eq!(field(r#"{"foo": 1}"#).as_deref(), Some("area"));
        assert_eq!(field(r#"{} {}"#).as_deref(), Some("area"));
        assert_eq!(field("{").as_deref(), Some("area"));
        let err = area(r#"{"tiles": [1, 2, 3]}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tiles: must be [minTx, minTz, maxTx, maxTz]"
        );
        assert!(
            area("nope")
                .unwrap_err()
                .to_string()
                .starts_with("area: not JSON")
        );
        // Unknown fields beside a known one are ignored.
        assert!(matches!(
            area(r#"{"tiles": [0, 0, 1, 1], "note": "x"}"#),
            Ok(Area::Tiles { max_tx: 1, .. })
        ));
    }
}
