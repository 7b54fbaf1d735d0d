//! The area of interest of a subscription, and which events it wants.
//!
//! - a tile rectangle (inclusive): an event matches when one of its tiles lies in it;
//! - a circle (centre and radius in metres): an event matches when its bounds
//!   intersect the circle;
//! - everything (no area).
//!
//! Parsed from the WebSocket query string (`?tiles=minTx,minTz,maxTx,maxTz` or
//! `?x=&z=&radius=`), from WebSocket text messages (`{"tiles": [...]}`,
//! `{"x", "z", "radius"}`, `{}`) and from the protobuf `SubscriptionArea`, with
//! errors that name the field.

use std::sync::RwLock;

use serde_json::Value;
use terrain_proto::v1 as pb;

use super::Event;
use crate::error::ApiError;

/// An area of interest.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Area {
    /// Every event of the world.
    #[default]
    All,
    /// Tiles `min_tx..=max_tx` by `min_tz..=max_tz`.
    Tiles {
        min_tx: i64,
        min_tz: i64,
        max_tx: i64,
        max_tz: i64,
    },
    /// A circle in world metres.
    Circle { x: f64, z: f64, radius: f64 },
}

impl Area {
    /// Whether `event` touches this area.
    pub fn matches(&self, event: &Event) -> bool {
        match *self {
            Area::All => true,
            Area::Tiles {
                min_tx,
                min_tz,
                max_tx,
                max_tz,
            } => event
                .tiles
                .iter()
                .any(|&(x, z)| (min_tx..=max_tx).contains(&x) && (min_tz..=max_tz).contains(&z)),
            Area::Circle { x, z, radius } => {
                let b = &event.bounds;
                let dx = x - x.clamp(b.min_x, b.max_x);
                let dz = z - z.clamp(b.min_z, b.max_z);
                dx * dx + dz * dz <= radius * radius
            }
        }
    }

    /// A tile rectangle, checked (`field` names it in errors).
    pub fn tiles(v: [i64; 4], field: &'static str) -> Result<Area, ApiError> {
        let [min_tx, min_tz, max_tx, max_tz] = v;
        if min_tx > max_tx || min_tz > max_tz {
            return Err(ApiError::invalid(
                field,
                "must be minTx,minTz,maxTx,maxTz with min <= max",
            ));
        }
        Ok(Area::Tiles {
            min_tx,
            min_tz,
            max_tx,
            max_tz,
        })
    }

    /// A circle, checked: finite centre, finite radius >= 0.
    pub fn circle(x: f64, z: f64, radius: f64) -> Result<Area, ApiError> {
        for (field, v) in [("x", x), ("z", z), ("radius", radius)] {
            if !v.is_finite() {
                return Err(ApiError::invalid(field, "must be a finite number"));
            }
        }
        if radius < 0.0 {
            return Err(ApiError::invalid("radius", "must be >= 0"));
        }
        Ok(Area::Circle { x, z, radius })
    }

    /// The area a WebSocket client sends: `{"tiles": [minTx, minTz, maxTx, maxTz]}`,
    /// `{"x", "z", "radius"}` or `{}` (everything).
    pub fn from_json(text: &str) -> Result<Area, ApiError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ApiError::invalid("area", format!("not JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(ApiError::invalid("area", "must be a JSON object"));
        };
        if let Some(tiles) = map.get("tiles") {
            let v: [i64; 4] = serde_json::from_value(tiles.clone())
                .map_err(|_| ApiError::invalid("tiles", "must be [minTx, minTz, maxTx, maxTz]"))?;
            return Area::tiles(v, "tiles");
        }
        let number = |field: &'static str| {
            map.get(field)
                .and_then(Value::as_f64)
                .ok_or_else(|| ApiError::invalid(field, "must be a number"))
        };
        if map.contains_key("x") || map.contains_key("z") || map.contains_key("radius") {
            return Area::circle(number("x")?, number("z")?, number("radius")?);
        }
        if map.is_empty() {
            return Ok(Area::All);
        }
        Err(ApiError::invalid(
            "area",
            "expected {\"tiles\": [...]}, {\"x\", \"z\", \"radius\"} or {}",
        ))
    }

    /// The area of a gRPC request (unset: everything).
    pub fn from_proto(area: Option<&pb::SubscriptionArea>) -> Result<Area, ApiError> {
        use pb::subscription_area::Area as A;
        match area.and_then(|a| a.area.as_ref()) {
            None => Ok(Area::All),
            Some(A::Tiles(t)) => {
                Area::tiles([t.min_tx, t.min_tz, t.max_tx, t.max_tz], "area.tiles")
            }
            Some(A::Circle(c)) => Area::circle(c.x, c.z, c.radius),
        }
    }
}

/// A subscription's area: written by its client (WebSocket message or gRPC
/// `UpdateSubscription`), read by the hub at each publish.
#[derive(Debug, Default)]
pub struct AreaCell(RwLock<Area>);

impl AreaCell {
    pub fn new(area: Area) -> Self {
        AreaCell(RwLock::new(area))
    }

    pub fn get(&self) -> Area {
        *self.0.read().unwrap_or_else(|p| p.into_inner())
    }

    pub fn set(&self, area: Area) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = area;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MutationKind;
    use terrain_core::zones::Bounds;

    fn event() -> Event {
        Event {
            world: "main".into(),
            revision: 1,
            zone: "a".into(),
            kind: MutationKind::Registered,
            tiles: vec![(0, 0), (1, 0)],
            bounds: Bounds {
                min_x: 40.0,
                min_z: -10.0,
                max_x: 60.0,
                max_z: 10.0,
            },
            max_height_delta: Some(1.0),
        }
    }

    #[test]
    fn tile_rectangles_match_any_tile() {
        let e = event();
        assert!(Area::tiles([1, 0, 3, 3], "t").unwrap().matches(&e));
        assert!(!Area::tiles([2, -5, 3, 3], "t").unwrap().matches(&e));
        assert!(Area::tiles([3, 0, 1, 0], "t").is_err());
    }

    #[test]
    fn circles_match_intersecting_bounds() {
        let e = event();
        assert!(Area::circle(50.0, 0.0, 0.0).unwrap().matches(&e));
        assert!(Area::circle(70.0, 0.0, 10.0).unwrap().matches(&e));
        assert!(!Area::circle(70.0, 20.0, 10.0).unwrap().matches(&e));
        assert_eq!(
            Area::circle(0.0, 0.0, -1.0).unwrap_err().field(),
            Some("radius")
        );
    }

    #[test]
    fn json_areas() {
        assert_eq!(Area::from_json("{}").unwrap(), Area::All);
        assert_eq!(
            Area::from_json(r#"{"x": 1, "z": 2, "radius": 3}"#).unwrap(),
            Area::Circle {
                x: 1.0,
                z: 2.0,
                radius: 3.0
            }
        );
        assert!(matches!(
            Area::from_json(r#"{"tiles": [0, 0, 1, 1]}"#),
            Ok(Area::Tiles { max_tz: 1, .. })
        ));
        assert_eq!(
            Area::from_json(r#"{"x": 1}"#).unwrap_err().field(),
            Some("z")
        );
        assert_eq!(Area::from_json("[1]").unwrap_err().field(), Some("area"));
    }
}
