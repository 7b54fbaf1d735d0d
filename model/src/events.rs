//! Tile events: the area a subscription wants ([`Area`]), what a mutation did
//! ([`MutationKind`]) and the event itself ([`TileEvent`]), with their protobuf forms
//! (`SubscriptionArea`, `EventCause.kind`, `TileEvent`).

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use terrain_core::{quote::Num, tiles3d::ContentRect, zones::Bounds};
use terrain_proto::v1 as pb;

use crate::{
    ChangedTiles, FieldError, Tile, TileRect, tile_keys,
    tiles::{rect_of_proto, rect_to_proto},
    tiles_of_keys,
};

/// An area of interest.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Area {
    /// Every event of the world.
    #[default]
    All,
    /// A tile rectangle, inclusive (`min_tx..=max_tx` by `min_tz..=max_tz`): an event
    /// matches when one of its tiles is inside.
    Tiles {
        min_tx: i64,
        min_tz: i64,
        max_tx: i64,
        max_tz: i64,
    },
    /// A circle in metres: an event matches when its bounds intersect it.
    Circle { x: f64, z: f64, radius: f64 },
}

impl Area {
    /// A tile rectangle `[minTx, minTz, maxTx, maxTz]`, checked (`field` names it in
    /// errors).
    pub fn tiles(v: [i64; 4], field: &'static str) -> Result<Area, FieldError> {
        let [min_tx, min_tz, max_tx, max_tz] = v;
        if min_tx > max_tx || min_tz > max_tz {
            return Err(FieldError::new(
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

    /// A circle, checked: finite centre, finite radius >= 0 (errors name `x`, `z` or
    /// `radius`).
    pub fn circle(x: f64, z: f64, radius: f64) -> Result<Area, FieldError> {
        for (field, v) in [("x", x), ("z", z), ("radius", radius)] {
            if !v.is_finite() {
                return Err(FieldError::new(field, "must be a finite number"));
            }
        }
        if radius < 0.0 {
            return Err(FieldError::new("radius", "must be >= 0"));
        }
        Ok(Area::Circle { x, z, radius })
    }

    /// This area, refused when a circle's centre lies beyond `max_coordinate` on
    /// either axis (field `x` or `z`), as every other coordinate a server takes.
    pub fn within(self, max_coordinate: f64) -> Result<Area, FieldError> {
        if let Area::Circle { x, z, .. } = self {
            for (field, v) in [("x", x), ("z", z)] {
                if v.abs() > max_coordinate {
                    return Err(FieldError::new(
                        field,
                        format!(
                            "must be within ±{} (max_coordinate), got {}",
                            Num(max_coordinate),
                            Num(v)
                        ),
                    ));
                }
            }
        }
        Ok(self)
    }

    /// Whether `event` touches this area.
    pub fn matches(&self, event: &TileEvent) -> bool {
        match *self {
            Area::All => true,
            Area::Tiles {
                min_tx,
                min_tz,
                max_tx,
                max_tz,
            } => {
                let area = TileRect {
                    min_tx,
                    min_tz,
                    max_tx,
                    max_tz,
                };
                if event.tile_rects.is_empty() {
                    // An event of a server that sends no rectangles.
                    event.tiles.iter().any(|&t| area.contains(t))
                } else {
                    event.tile_rects.iter().any(|r| r.intersects(&area))
                }
            }
            Area::Circle { x, z, radius } => {
                let b = &event.bounds;
                let dx = x - x.clamp(b.min_x, b.max_x);
                let dz = z - z.clamp(b.min_z, b.max_z);
                dx * dx + dz * dz <= radius * radius
            }
        }
    }

    /// The area of a request, checked (unset: everything). Errors name `area.tiles`,
    /// `x`, `z` or `radius`.
    pub fn from_proto(area: Option<&pb::SubscriptionArea>) -> Result<Area, FieldError> {
        use pb::subscription_area::Area as A;
        match area.and_then(|a| a.area.as_ref()) {
            None => Ok(Area::All),
            Some(A::Tiles(t)) => {
                Area::tiles([t.min_tx, t.min_tz, t.max_tx, t.max_tz], "area.tiles")
            }
            Some(A::Circle(c)) => Area::circle(c.x, c.z, c.radius),
        }
    }

    /// The protobuf form (`None` for everything).
    pub fn to_proto(self) -> Option<pb::SubscriptionArea> {
        use pb::subscription_area::Area as A;
        let area = match self {
            Area::All => return None,
            Area::Tiles {
                min_tx,
                min_tz,
                max_tx,
                max_tz,
            } => A::Tiles(pb::AreaTiles {
                min_tx,
                min_tz,
                max_tx,
                max_tz,
            }),
            Area::Circle { x, z, radius } => A::Circle(pb::AreaCircle { x, z, radius }),
        };
        Some(pb::SubscriptionArea { area: Some(area) })
    }
}

/// What a committed mutation did to its zone. Named `registered`, `replaced` and
/// `removed` in events, answers, logs and the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MutationKind {
    /// A new zone id.
    Registered,
    /// A different zone under an existing id.
    Replaced,
    /// The zone is gone.
    Removed,
}

impl MutationKind {
    /// The name used in events, logs, the store and API answers.
    pub fn as_str(self) -> &'static str {
        match self {
            MutationKind::Registered => "registered",
            MutationKind::Replaced => "replaced",
            MutationKind::Removed => "removed",
        }
    }
}

impl FromStr for MutationKind {
    type Err = FieldError;

    /// The kind [`MutationKind::as_str`] names; anything else is refused (field `kind`).
    fn from_str(s: &str) -> Result<Self, FieldError> {
        match s {
            "registered" => Ok(MutationKind::Registered),
            "replaced" => Ok(MutationKind::Replaced),
            "removed" => Ok(MutationKind::Removed),
            other => Err(FieldError::new(
                "kind",
                format!("unknown cause kind {other:?}"),
            )),
        }
    }
}

/// One committed mutation of a world, as subscribers see it: the tiles it regenerated.
#[derive(Debug, Clone, PartialEq)]
pub struct TileEvent {
    pub world: String,
    pub revision: u64,
    /// The zone the mutation changed.
    pub zone: String,
    pub kind: MutationKind,
    /// Tiles whose heights or normals changed, row-major (z outer, x inner): listed
    /// only when there are at most [`crate::TILE_LIST_MAX`] (empty otherwise).
    pub tiles: Vec<Tile>,
    /// The changed tiles as a few inclusive rectangles (they may overlap): always
    /// set, whatever the size of the change.
    pub tile_rects: Vec<TileRect>,
    /// How many tiles the union of `tile_rects` holds.
    pub tile_count: u64,
    /// The rectangle whose heights may have changed.
    pub bounds: Bounds,
    /// The largest absolute height change inside `bounds`, metres; `None` only for a
    /// replayed event whose log entry never recorded it.
    pub max_height_delta: Option<f64>,
    /// The zone's `walkable` after the change: `None` for a removal or a zone
    /// without it (the terrain rule decides over its core).
    pub walkable: Option<bool>,
    /// The world's 3D Tiles contents the change changed, per level
    /// ([`terrain_core::tiles3d::TilesetLayout::changed_contents`]).
    pub tileset_contents: Vec<ContentRect>,
}

impl TileEvent {
    /// The event's tile fields for `changed`: its rectangles, count and (small
    /// changes only) list.
    pub fn tile_fields(changed: &ChangedTiles) -> (Vec<Tile>, Vec<TileRect>, u64) {
        (changed.listed(), changed.rects.clone(), changed.count)
    }

    /// True when the change touched `tile` (from the rectangles; from the list for
    /// an event without any).
    pub fn touches(&self, tile: Tile) -> bool {
        if self.tile_rects.is_empty() {
            self.tiles.contains(&tile)
        } else {
            self.tile_rects.iter().any(|r| r.contains(tile))
        }
    }
}

impl From<&TileEvent> for pb::TileEvent {
    fn from(e: &TileEvent) -> Self {
        pb::TileEvent {
            world: e.world.clone(),
            revision: e.revision,
            cause: Some(pb::EventCause {
                zone: e.zone.clone(),
                kind: e.kind.as_str().to_string(),
                walkable: e.walkable,
            }),
            tiles: tile_keys(&e.tiles),
            tile_rects: e.tile_rects.iter().map(rect_to_proto).collect(),
            tile_count: e.tile_count,
            bounds: Some(pb::EventBounds {
                min_x: e.bounds.min_x,
                min_z: e.bounds.min_z,
                max_x: e.bounds.max_x,
                max_z: e.bounds.max_z,
            }),
            max_height_delta: e.max_height_delta,
            tileset_contents: e.tileset_contents.iter().map(content_to_proto).collect(),
        }
    }
}

/// A 3D Tiles content rectangle on the wire.
fn content_to_proto(c: &ContentRect) -> pb::TilesetContentRect {
    pb::TilesetContentRect {
        level: c.level,
        min_x: c.min_x,
        min_y: c.min_y,
        max_x: c.max_x,
        max_y: c.max_y,
    }
}

/// [`content_to_proto`] undone.
fn content_of_proto(c: &pb::TilesetContentRect) -> ContentRect {
    ContentRect {
        level: c.level,
        min_x: c.min_x,
        min_y: c.min_y,
        max_x: c.max_x,
        max_y: c.max_y,
    }
}

impl TryFrom<pb::TileEvent> for TileEvent {
    type Error = FieldError;

    /// Refuses an event without `cause` or `bounds`, or with an unknown `cause.kind`.
    fn try_from(t: pb::TileEvent) -> Result<Self, FieldError> {
        let cause = t.cause.ok_or_else(|| FieldError::new("cause", "missing"))?;
        let kind = cause.kind.parse().map_err(|e: FieldError| FieldError {
            field: "cause.kind".into(),
            reason: e.reason,
        })?;
        let b = t
            .bounds
            .ok_or_else(|| FieldError::new("bounds", "missing"))?;
        Ok(TileEvent {
            world: t.world,
            revision: t.revision,
            zone: cause.zone,
            kind,
            tiles: tiles_of_keys(t.tiles),
            tile_rects: t.tile_rects.iter().map(rect_of_proto).collect(),
            tile_count: t.tile_count,
            bounds: Bounds {
                min_x: b.min_x,
                min_z: b.min_z,
                max_x: b.max_x,
                max_z: b.max_z,
            },
            max_height_delta: t.max_height_delta,
            walkable: cause.walkable,
            tileset_contents: t.tileset_contents.iter().map(content_of_proto).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event() -> TileEvent {
        TileEvent {
            world: "main".into(),
            revision: 1,
            zone: "a".into(),
            kind: MutationKind::Registered,
            tiles: vec![(0, 0), (1, 0)],
            tile_rects: vec![TileRect {
                min_tx: 0,
                min_tz: 0,
                max_tx: 1,
                max_tz: 0,
            }],
            tile_count: 2,
            bounds: Bounds {
                min_x: 40.0,
                min_z: -10.0,
                max_x: 60.0,
                max_z: 10.0,
            },
            max_height_delta: Some(1.0),
            walkable: None,
            tileset_contents: vec![ContentRect {
                level: 3,
                min_x: 4,
                min_y: 2,
                max_x: 5,
                max_y: 3,
            }],
        }
    }

    #[test]
    fn tile_rectangles_match_any_tile() {
        let e = event();
        assert!(Area::tiles([1, 0, 3, 3], "t").unwrap().matches(&e));
        assert!(!Area::tiles([2, -5, 3, 3], "t").unwrap().matches(&e));
        assert_eq!(Area::tiles([3, 0, 1, 0], "t").unwrap_err().field, "t");
    }

    /// A change too large to list its tiles matches a tile area by its rectangles;
    /// an event without rectangles (an older server's) by its list.
    #[test]
    fn tile_areas_match_rectangles_of_unlisted_tiles() {
        let changed = ChangedTiles::new([TileRect {
            min_tx: -469,
            min_tz: -469,
            max_tx: 468,
            max_tz: 468,
        }]);
        let (tiles, tile_rects, tile_count) = TileEvent::tile_fields(&changed);
        assert!(tiles.is_empty());
        assert_eq!(tile_count, 938 * 938);
        let big = TileEvent {
            tiles,
            tile_rects,
            tile_count,
            ..event()
        };
        assert!(
            Area::tiles([400, 400, 500, 500], "t")
                .unwrap()
                .matches(&big)
        );
        assert!(!Area::tiles([469, 0, 500, 0], "t").unwrap().matches(&big));
        assert!(big.touches((-469, 468)) && !big.touches((-470, 0)));
        let old = TileEvent {
            tile_rects: Vec::new(),
            tile_count: 0,
            ..event()
        };
        assert!(Area::tiles([1, 0, 3, 3], "t").unwrap().matches(&old));
        assert!(!Area::tiles([2, -5, 3, 3], "t").unwrap().matches(&old));
        assert!(old.touches((1, 0)) && !old.touches((2, 0)));
    }

    #[test]
    fn circles_match_intersecting_bounds() {
        let e = event();
        assert!(Area::circle(50.0, 0.0, 0.0).unwrap().matches(&e));
        assert!(Area::circle(70.0, 0.0, 10.0).unwrap().matches(&e));
        assert!(!Area::circle(70.0, 20.0, 10.0).unwrap().matches(&e));
        assert_eq!(Area::circle(0.0, 0.0, -1.0).unwrap_err().field, "radius");
        assert_eq!(Area::circle(f64::NAN, 0.0, 1.0).unwrap_err().field, "x");
        let far = |x, z| Area::circle(x, z, 1.0).unwrap().within(1e9);
        assert_eq!(far(1e10, 0.0).unwrap_err().field, "x");
        assert_eq!(far(0.0, -1e10).unwrap_err().field, "z");
        assert!(far(1e9, -1e9).is_ok() && Area::All.within(1e9).is_ok());
    }

    /// A far centre is echoed short and exact (`1e308`, not its 309 digits).
    #[test]
    fn far_centres_are_echoed_short() {
        let err = Area::circle(1e308, 0.0, 1.0)
            .unwrap()
            .within(1e9)
            .unwrap_err();
        assert_eq!(
            err.reason,
            "must be within ±1000000000 (max_coordinate), got 1e308"
        );
        let err = Area::circle(0.0, -1.5e17, 1.0)
            .unwrap()
            .within(1e16)
            .unwrap_err();
        assert_eq!(
            err.reason,
            "must be within ±1e16 (max_coordinate), got -1.5e17"
        );
    }

    #[test]
    fn areas_round_trip_through_protobuf_and_are_checked() {
        for area in [
            Area::All,
            Area::tiles([0, -1, 2, 3], "t").unwrap(),
            Area::circle(1.5, -2.0, 10.0).unwrap(),
        ] {
            assert_eq!(Area::from_proto(area.to_proto().as_ref()), Ok(area));
        }
        let bad = pb::SubscriptionArea {
            area: Some(pb::subscription_area::Area::Tiles(pb::AreaTiles {
                min_tx: 2,
                min_tz: 0,
                max_tx: 1,
                max_tz: 0,
            })),
        };
        assert_eq!(
            Area::from_proto(Some(&bad)).unwrap_err().field,
            "area.tiles"
        );
    }

    #[test]
    fn events_round_trip_through_protobuf() {
        let e = event();
        let message = pb::TileEvent::from(&e);
        assert_eq!(
            message.cause.as_ref().map(|c| c.kind.as_str()),
            Some("registered")
        );
        assert_eq!(TileEvent::try_from(message.clone()), Ok(e));
        let mut unknown = message.clone();
        if let Some(c) = unknown.cause.as_mut() {
            c.kind = "moved".into();
        }
        let err = TileEvent::try_from(unknown).unwrap_err();
        assert_eq!(err.to_string(), "cause.kind: unknown cause kind \"moved\"");
        let no_bounds = pb::TileEvent {
            bounds: None,
            ..message
        };
        assert_eq!(TileEvent::try_from(no_bounds).unwrap_err().field, "bounds");
    }

    #[test]
    fn mutation_kinds_keep_their_names() {
        for kind in [
            MutationKind::Registered,
            MutationKind::Replaced,
            MutationKind::Removed,
        ] {
            assert_eq!(kind.as_str().parse::<MutationKind>(), Ok(kind));
        }
        assert!("Registered".parse::<MutationKind>().is_err());
    }
}
