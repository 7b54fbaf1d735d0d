//! The zones the Hyperscape game derives from its manifests (docs/src/reference/zones.md, "Zones from the game's manifests"):
//! `stations.json` (station types: whether they flatten the ground, padding, blend,
//! footprint), `world-areas.json` (areas in the original's merge order, their stations
//! and `flatZones`) and optionally `model-bounds.json` (footprints from model sizes).
//!
//! A pure function from the manifests' JSON text to [`NamedZone`]s in the game's
//! registration order, with heights left unresolved: station and manifest zones sit
//! at an offset from the procedural height at their centre, which
//! [`ZoneSpec::resolve`](crate::zones::ZoneSpec::resolve) turns into metres. The
//! manifests carry many keys this module does not read; they are ignored, and absent
//! and null read alike (the original's `??` defaults). Every error names the file, the
//! entry and the field. Generic zone files are [`crate::zones::parse_zone_file`].
//!
//! It stays with hyperscape rather than moving to the zones: what it reads is that
//! game's own data (station types, its areas' merge order, its model bounds), and what
//! it builds is the generic zones ([`NamedZone`], [`ZoneSpec`]) of the layer below, so
//! the dependency runs downward; the zones know no generator.

use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::zones::manifest::{SeenIds, field_error, kind, named, parse};
use crate::zones::{ManifestError, NamedZone, Shape, ZoneHeight, ZoneSpec};

const STATIONS: &str = "stations.json";
const WORLD_AREAS: &str = "world-areas.json";
const MODEL_BOUNDS: &str = "model-bounds.json";

/// The original's built-in areas, merged before `world-areas.json`; none has stations
/// (§9.1), so they only fix the position of areas the manifest redefines.
const BUILT_IN_AREAS: [&str; 3] = ["starter_area", "wilderness_test", "duel_arena"];
/// The groups of `world-areas.json`, in merge order (§9.1).
const GROUPS: [&str; 5] = [
    "starterTowns",
    "level1Areas",
    "level2Areas",
    "level3Areas",
    "specialAreas",
];

/// `flattenPadding` when a station type does not give it (§9.2).
const DEFAULT_PADDING: f64 = 0.3;
/// `flattenBlendRadius` when a station type does not give it (§9.2).
const DEFAULT_BLEND: f64 = 0.5;
/// Model dimensions above this are taken as corrupt bounds: the footprint is 1x1.
const MAX_MODEL_DIMENSION: f64 = 100.0;
/// The largest footprint derived from model bounds, in tiles.
const MAX_MODEL_TILES: f64 = 10.0;
/// Station footprints are in 1 m movement tiles.
const MOVEMENT_TILE: f64 = 1.0;

// === impl Obj ===

/// A JSON object being read, with its path for error messages.
struct Obj<'a> {
    file: &'static str,
    path: String,
    map: &'a Map<String, Value>,
}

impl<'a> Obj<'a> {
    fn new(file: &'static str, path: String, v: &'a Value) -> Result<Self, ManifestError> {
        match v {
            Value::Object(map) => Ok(Obj { file, path, map }),
            other => Err(field_error(
                file,
                &path,
                format!("expected an object, got {}", kind(other)),
            )),
        }
    }

    fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn error(&self, key: &str, reason: impl Into<String>) -> ManifestError {
        field_error(self.file, &self.path_of(key), reason)
    }

    /// The value of `key`; absent and null both read as missing, like the original's
    /// `??` defaults.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn typed<T>(
        &self,
        key: &str,
        what: &str,
        read: impl Fn(&'a Value) -> Option<T>,
    ) -> Result<Option<T>, ManifestError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => read(v)
                .map(Some)
                .ok_or_else(|| self.error(key, format!("expected {what}, got {}", kind(v)))),
        }
    }

    fn opt_num(&self, key: &str) -> Result<Option<f64>, ManifestError> {
        self.typed(key, "a number", Value::as_f64)
    }

    fn num(&self, key: &str) -> Result<f64, ManifestError> {
        self.opt_num(key)?
            .ok_or_else(|| self.error(key, "required (a number)"))
    }

    /// An optional number that must not be negative.
    fn opt_size(&self, key: &str) -> Result<Option<f64>, ManifestError> {
        match self.opt_num(key)? {
            Some(v) if v < 0.0 => Err(self.error(key, format!("must not be negative (got {v})"))),
            v => Ok(v),
        }
    }

    fn opt_str(&self, key: &str) -> Result<Option<&'a str>, ManifestError> {
        self.typed(key, "a string", Value::as_str)
    }

    fn str(&self, key: &str) -> Result<&'a str, ManifestError> {
        self.opt_str(key)?
            .ok_or_else(|| self.error(key, "required (a string)"))
    }

    fn obj(&self, key: &str) -> Result<Obj<'a>, ManifestError> {
        let v = self
            .get(key)
            .ok_or_else(|| self.error(key, "required (an object)"))?;
        Obj::new(self.file, self.path_of(key), v)
    }

    /// The objects of array `key` (absent or null: none), each with its path.
    fn items(&self, key: &str) -> Result<Vec<Obj<'a>>, ManifestError> {
        let items = self.typed(key, "an array", Value::as_array)?;
        let path = self.path_of(key);
        items
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .enumerate()
            .map(|(i, v)| Obj::new(self.file, format!("{path}[{i}]"), v))
            .collect()
    }
}

// === stations.json and model-bounds.json ===

/// Where a station type's footprint comes from (§9.2 step 3).
#[derive(Debug, Clone, PartialEq)]
enum Footprint {
    /// An explicit footprint, in tiles.
    Tiles(f64, f64),
    /// The model's bounds (if the bounds manifest lists it) times its scale.
    Model { asset: String, scale: f64 },
    /// Neither: 1x1.
    Unit,
}

/// A station type of `stations.json`, as far as ground flattening goes.
#[derive(Debug, Clone, PartialEq)]
struct StationType {
    flatten: bool,
    padding: f64,
    blend: f64,
    footprint: Footprint,
}

/// Station types by type name; for a repeated type the last entry wins (§9.2).
fn station_types(json: &str) -> Result<HashMap<String, StationType>, ManifestError> {
    let doc = parse(STATIONS, json)?;
    let root = Obj::new(STATIONS, String::new(), &doc)?;
    let mut types = HashMap::new();
    for entry in root.items("stations")? {
        let name = entry.str("type")?;
        types.insert(name.to_string(), station_type(&entry)?);
    }
    Ok(types)
}

fn station_type(e: &Obj) -> Result<StationType, ManifestError> {
    let footprint = match (e.get("footprint"), e.opt_str("model")?) {
        (Some(v), _) => explicit_footprint(e, v)?,
        (None, Some(model)) if !model.is_empty() => Footprint::Model {
            asset: model.to_string(),
            scale: e.opt_num("modelScale")?.unwrap_or(1.0),
        },
        _ => Footprint::Unit,
    };
    Ok(StationType {
        flatten: e.typed("flattenGround", "a boolean", Value::as_bool)? == Some(true),
        padding: e.opt_size("flattenPadding")?.unwrap_or(DEFAULT_PADDING),
        blend: e.opt_size("flattenBlendRadius")?.unwrap_or(DEFAULT_BLEND),
        footprint,
    })
}

/// `footprint`: a named size or `{width, depth}` in tiles.
fn explicit_footprint(e: &Obj, v: &Value) -> Result<Footprint, ManifestError> {
    let named = |n: f64| Ok(Footprint::Tiles(n, n));
    match v {
        Value::String(s) if s == "standard" => named(1.0),
        Value::String(s) if s == "large" => named(2.0),
        Value::String(s) if s == "massive" => named(3.0),
        Value::Object(_) => {
            let f = e.obj("footprint")?;
            let (w, d) = (f.num("width")?, f.num("depth")?);
            for (key, v) in [("width", w), ("depth", d)] {
                if v <= 0.0 {
                    return Err(f.error(key, format!("must be greater than 0 (got {v})")));
                }
            }
            Ok(Footprint::Tiles(w, d))
        }
        other => Err(e.error(
            "footprint",
            format!(
                "expected \"standard\", \"large\", \"massive\" or {{width, depth}}, got {other}"
            ),
        )),
    }
}

/// `model-bounds.json`: the model entries by asset path (the last entry wins, as in
/// the original's map). Dimensions are read only for the models stations use.
fn model_bounds(doc: &Value) -> Result<HashMap<&str, Obj<'_>>, ManifestError> {
    let root = Obj::new(MODEL_BOUNDS, String::new(), doc)?;
    let mut models = HashMap::new();
    for entry in root.items("models")? {
        models.insert(entry.str("assetPath")?, entry);
    }
    Ok(models)
}

/// JavaScript's `Math.round`: the nearest integer, halves towards +infinity.
fn js_round(v: f64) -> f64 {
    let f = libm::floor(v);
    if v - f >= 0.5 { f + 1.0 } else { f }
}

/// The footprint `(fx, fz)` in tiles (§9.2 step 3).
fn footprint(
    fp: &Footprint,
    bounds: Option<&HashMap<&str, Obj>>,
) -> Result<(f64, f64), ManifestError> {
    let (asset, scale) = match fp {
        Footprint::Tiles(w, d) => return Ok((*w, *d)),
        Footprint::Unit => return Ok((1.0, 1.0)),
        Footprint::Model { asset, scale } => (asset.as_str(), *scale),
    };
    let Some(entry) = bounds.and_then(|b| b.get(asset)) else {
        return Ok((1.0, 1.0));
    };
    let dims = entry.obj("dimensions")?;
    let (dx, dz) = (dims.num("x")?, dims.num("z")?);
    if dx > MAX_MODEL_DIMENSION || dz > MAX_MODEL_DIMENSION {
        return Ok((1.0, 1.0));
    }
    let tiles = |d: f64| js_round(d * scale / MOVEMENT_TILE).clamp(1.0, MAX_MODEL_TILES);
    Ok((tiles(dx), tiles(dz)))
}

// === world-areas.json ===

/// The area keys of each group of `world-areas.json` in document order (serde_json's
/// `Map` sorts keys, but the original iterates areas in insertion order).
struct GroupKeys([Vec<String>; 5]);

/// The keys of one JSON object, in document order.
struct KeyOrder(Vec<String>);

impl<'de> Deserialize<'de> for GroupKeys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = GroupKeys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<GroupKeys, A::Error> {
                let mut groups: [Vec<String>; 5] = Default::default();
                while let Some(key) = map.next_key::<String>()? {
                    match GROUPS.iter().position(|g| *g == key) {
                        Some(i) => {
                            let keys: Option<KeyOrder> = map.next_value()?;
                            groups[i] = keys.map_or_else(Vec::new, |k| k.0);
                        }
                        None => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(GroupKeys(groups))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for KeyOrder {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyOrder;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyOrder, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(KeyOrder(keys))
            }
        }
        d.deserialize_map(V)
    }
}

/// JavaScript orders integer-like keys ("0", "42": canonical array indices) before
/// all others, ascending; the rest keep insertion order.
fn js_key_rank(key: &str) -> (u8, u64) {
    let digits = !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit());
    let canonical = digits && (key == "0" || !key.starts_with('0'));
    match key.parse::<u64>() {
        Ok(n) if canonical && n < u64::from(u32::MAX) => (0, n),
        _ => (1, 0),
    }
}

/// The areas in the original's iteration order (§9.1), each with its path
/// (`group.key`). Built-in areas the manifest does not redefine are left out.
fn areas<'a>(doc: &'a Value, json: &str) -> Result<Vec<Obj<'a>>, ManifestError> {
    let root = Obj::new(WORLD_AREAS, String::new(), doc)?;
    let mut groups = Vec::new();
    for group in GROUPS {
        let objects = root
            .get(group)
            .map(|v| Obj::new(WORLD_AREAS, group.to_string(), v));
        groups.push((group, objects.transpose()?));
    }
    // Only now, with every group known to be an object or null, read the key order.
    let keys: GroupKeys = serde_json::from_str(json).map_err(|source| ManifestError::Json {
        file: WORLD_AREAS,
        source,
    })?;
    let mut order: Vec<(&str, Option<(&str, &'a Value)>)> =
        BUILT_IN_AREAS.iter().map(|k| (*k, None)).collect();
    for ((group, areas), keys) in groups.iter().zip(&keys.0) {
        let Some(areas) = areas else { continue };
        for key in keys {
            let Some((key, area)) = areas.map.get_key_value(key) else {
                continue;
            };
            match order.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = Some((group, area)),
                None => order.push((key, Some((group, area)))),
            }
        }
    }
    order.sort_by_key(|(k, _)| js_key_rank(k));
    order
        .into_iter()
        .filter_map(|(key, area)| area.map(|(group, v)| (format!("{group}.{key}"), v)))
        .map(|(path, v)| Obj::new(WORLD_AREAS, path, v))
        .collect()
}

// === zones ===

/// The zone of one area station, or `None` when its type is unknown or does not
/// flatten the ground (§9.2).
fn station_zone(
    s: &Obj,
    types: &HashMap<String, StationType>,
    bounds: Option<&HashMap<&str, Obj>>,
) -> Result<Option<NamedZone>, ManifestError> {
    let Some(t) = types.get(s.str("type")?).filter(|t| t.flatten) else {
        return Ok(None);
    };
    let id = format!("station_{}", s.str("id")?);
    let position = s.obj("position")?;
    let (fx, fz) = footprint(&t.footprint, bounds)?;
    let spec = ZoneSpec {
        center_x: position.num("x")?,
        center_z: position.num("z")?,
        shape: Shape::Rect {
            width: fx * MOVEMENT_TILE + t.padding * 2.0,
            depth: fz * MOVEMENT_TILE + t.padding * 2.0,
        },
        // The procedural height at the centre.
        height: ZoneHeight::Offset(0.0),
        blend_radius: t.blend,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    };
    named(WORLD_AREAS, &s.path, id, spec).map(Some)
}

/// One entry of an area's `flatZones` (§9.3): an explicit `height` wins, else the
/// procedural height plus `heightOffset` (default 0). No carve inset.
fn area_flat_zone(z: &Obj) -> Result<NamedZone, ManifestError> {
    let height = match z.opt_num("height")? {
        Some(h) => ZoneHeight::Absolute(h),
        None => ZoneHeight::Offset(z.opt_num("heightOffset")?.unwrap_or(0.0)),
    };
    let spec = ZoneSpec {
        center_x: z.num("centerX")?,
        center_z: z.num("centerZ")?,
        shape: Shape::Rect {
            width: z.num("width")?,
            depth: z.num("depth")?,
        },
        height,
        blend_radius: z.num("blendRadius")?,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    };
    named(WORLD_AREAS, &z.path, z.str("id")?.to_string(), spec)
}

/// The zones the game derives from its manifests, in its registration order (§9):
/// area by area in the order of §9.1, each area's flattening stations first (in
/// manifest order), then its `flatZones`. Without `model_bounds_json` (the bounds
/// manifest not loaded) model-sized stations get a 1x1 footprint.
///
/// Station zones and `heightOffset` zones carry `ZoneHeight::Offset` from the
/// procedural height at their centre. Every zone is validated against the default
/// [`ZoneLimits`](crate::zones::ZoneLimits); ids must be unique.
pub fn manifest_zones(
    stations_json: &str,
    world_areas_json: &str,
    model_bounds_json: Option<&str>,
) -> Result<Vec<NamedZone>, ManifestError> {
    let types = station_types(stations_json)?;
    let bounds_doc = model_bounds_json
        .map(|json| parse(MODEL_BOUNDS, json))
        .transpose()?;
    let bounds = bounds_doc.as_ref().map(model_bounds).transpose()?;
    let doc = parse(WORLD_AREAS, world_areas_json)?;
    let mut zones = Vec::new();
    let mut seen = SeenIds::default();
    for area in areas(&doc, world_areas_json)? {
        for station in area.items("stations")? {
            if let Some(zone) = station_zone(&station, &types, bounds.as_ref())? {
                seen.check(WORLD_AREAS, &station.path, &zone.id)?;
                zones.push(zone);
            }
        }
        for flat in area.items("flatZones")? {
            let zone = area_flat_zone(&flat)?;
            seen.check(WORLD_AREAS, &flat.path, &zone.id)?;
            zones.push(zone);
        }
    }
    Ok(zones)
}
