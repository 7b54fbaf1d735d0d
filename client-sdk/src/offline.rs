//! The JSON an offline replica is built from, into this crate's types: a world as
//! `GET /v1/worlds` lists it, and zones as `GET /v1/worlds/{world}/flat-zones`
//! answers them (Node's `LocalTerrain.offline`, the WebAssembly replica). The terrain
//! is then built by [`crate::build_terrain`], the function a live replica builds with.
//! Errors are messages naming the field (`walkability.name: unknown rule "x"`).

use crate::{WorldInfo, WorldLayout, ZoneEntry, ZoneHeight, ZoneList};
use serde_json::{Map, Value};
use terrain_core::voxel::VoxelConfig;
use terrain_core::walk::{BiomeLimits, MAX_STEP, WalkRule};
use terrain_core::zones::ZoneDoc;

fn field<'a>(o: &'a Map<String, Value>, name: &str) -> Result<&'a Value, String> {
    o.get(name).ok_or_else(|| format!("{name}: required"))
}

fn string(o: &Map<String, Value>, name: &str) -> Result<String, String> {
    field(o, name)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{name}: expected a string"))
}

fn number(o: &Map<String, Value>, name: &str) -> Result<f64, String> {
    field(o, name)?
        .as_f64()
        .ok_or_else(|| format!("{name}: expected a number"))
}

fn unsigned(o: &Map<String, Value>, name: &str) -> Result<u64, String> {
    field(o, name)?
        .as_u64()
        .ok_or_else(|| format!("{name}: expected a non-negative integer"))
}

fn u32_of(o: &Map<String, Value>, name: &str) -> Result<u32, String> {
    u32::try_from(unsigned(o, name)?).map_err(|_| format!("{name}: out of range"))
}

/// `tileSize` -> `tile_size`: the voxel table's keys as the configuration spells them.
fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn optional_number(o: &Map<String, Value>, name: &str) -> Result<Option<f64>, String> {
    match o.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| format!("{name}: expected a number or null")),
    }
}

/// A world's `walkability` object as `GET /v1/worlds` lists it; errors name the field
/// under `walkability`.
fn walk_rule(o: &Map<String, Value>) -> Result<WalkRule, String> {
    let name = string(o, "name")?;
    let limits = || -> Result<BiomeLimits, String> {
        let list = match o.get("biomes") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list.clone(),
            Some(_) => return Err("biomes: expected an array".into()),
        };
        let mut entries = Vec::with_capacity(list.len());
        for (i, b) in list.iter().enumerate() {
            let b = b
                .as_object()
                .ok_or_else(|| format!("biomes[{i}]: expected an object"))?;
            let id = string(b, "id").map_err(|e| format!("biomes[{i}].{e}"))?;
            let slope = number(b, "maxSlope").map_err(|e| format!("biomes[{i}].{e}"))?;
            entries.push((id, slope));
        }
        BiomeLimits::from_entries(entries).map_err(|e| format!("biomes: {e}"))
    };
    let water = optional_number(o, "waterLevel")?;
    let needs_water = || water.ok_or_else(|| format!("waterLevel: required by the {name:?} rule"));
    match name.as_str() {
        "hyperscape" => Ok(WalkRule::Hyperscape { limits: limits()? }),
        "slope" => Ok(WalkRule::Slope {
            limits: limits()?,
            water_level: needs_water()?,
        }),
        "max-slope" => match optional_number(o, "maxSlope")? {
            Some(s) if s.is_finite() && s > 0.0 => Ok(WalkRule::MaxSlope {
                max_slope: s,
                water_level: water,
            }),
            other => Err(format!("maxSlope: must be a number above 0, got {other:?}")),
        },
        "block-step" => match optional_number(o, "maxStep")? {
            None => Ok(WalkRule::BlockStep {
                sea_level: needs_water()?,
            }),
            Some(s) if s == MAX_STEP => Ok(WalkRule::BlockStep {
                sea_level: needs_water()?,
            }),
            Some(s) => Err(format!(
                "maxStep: only a step of {MAX_STEP} is known, got {s}"
            )),
        },
        other => Err(format!("name: unknown rule {other:?}")),
    }
}

/// One world of `GET /v1/worlds` (its lowerCamelCase JSON).
pub fn world_info(json: &str) -> Result<WorldInfo, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let o = value.as_object().ok_or("expected a JSON object")?;
    let layout = match o.get("layout") {
        None | Some(Value::Null) => None,
        Some(Value::Object(l)) => Some(WorldLayout {
            pattern: string(l, "pattern").map_err(|e| format!("layout.{e}"))?,
            spokes: string(l, "spokes").map_err(|e| format!("layout.{e}"))?,
            chunk_size: number(l, "chunkSize").map_err(|e| format!("layout.{e}"))?,
            cell_size: number(l, "cellSize").map_err(|e| format!("layout.{e}"))?,
        }),
        Some(_) => return Err("layout: expected an object".into()),
    };
    let voxel = match o.get("voxel") {
        None | Some(Value::Null) => None,
        Some(Value::Object(v)) => {
            // The listed table, keys back in the configuration's snake_case; a null
            // (`primaryBiome`: chosen per region) is the key left out.
            let config: Map<String, Value> = v
                .iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(k, value)| (snake(k), value.clone()))
                .collect();
            let config: VoxelConfig =
                serde_json::from_value(Value::Object(config)).map_err(|e| format!("voxel: {e}"))?;
            Some(config)
        }
        Some(_) => return Err("voxel: expected an object".into()),
    };
    let walkability = match o.get("walkability") {
        None | Some(Value::Null) => None,
        Some(Value::Object(w)) => Some(walk_rule(w).map_err(|e| format!("walkability.{e}"))?),
        Some(_) => return Err("walkability: expected an object".into()),
    };
    Ok(WorldInfo {
        id: string(o, "id")?,
        generator: string(o, "generator")?,
        seed: u32_of(o, "seed")?,
        tile_size: number(o, "tileSize")?,
        tile_resolution: u32_of(o, "tileResolution")?,
        revision: unsigned(o, "revision")?,
        overlap: string(o, "overlap")?,
        zones: unsigned(o, "zones")?,
        layout,
        voxel,
        walkability,
    })
}

/// The towns of one world of `GET /v1/worlds` (`walkability.towns`, `{x, z, radius}`
/// each: the difficulty rule's, empty where the rule has none), checked as the server
/// checks a world's towns ([`crate::view::towns_of`]).
pub fn world_towns(json: &str) -> Result<Vec<terrain_core::walk::Town>, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let towns = match value.get("walkability").and_then(|w| w.get("towns")) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(towns)) => towns,
        Some(_) => return Err("walkability.towns: expected an array".into()),
    };
    let mut flat = Vec::with_capacity(3 * towns.len());
    for (i, town) in towns.iter().enumerate() {
        let o = town
            .as_object()
            .ok_or_else(|| format!("walkability.towns[{i}]: expected an object"))?;
        for key in ["x", "z", "radius"] {
            flat.push(number(o, key).map_err(|e| format!("walkability.towns[{i}].{e}"))?);
        }
    }
    crate::view::towns_of(&flat).map_err(|e| format!("walkability.{e}"))
}

/// The zones of `GET /v1/worlds/{world}/flat-zones` (`{"zones": [...], "revision"}`),
/// or a bare array of zones. Each zone needs its `id` and an absolute `height`; its
/// `revision` (the one that registered it, which orders layered zones) defaults to
/// its position (1, 2, ...). The list's revision defaults to the largest zone
/// revision.
pub fn zone_list(json: &str) -> Result<ZoneList, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let (items, revision) = match &value {
        Value::Array(items) => (items, None),
        Value::Object(o) => {
            let items = field(o, "zones")?
                .as_array()
                .ok_or("zones: expected an array")?;
            (items, Some(unsigned(o, "revision")?))
        }
        _ => return Err("expected {\"zones\": [...], \"revision\": n} or an array".into()),
    };
    let mut zones = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        zones.push(entry(item, i as u64 + 1).map_err(|e| format!("zones[{i}]{e}"))?);
    }
    let revision = revision.unwrap_or_else(|| zones.iter().map(|z| z.revision).max().unwrap_or(0));
    Ok(ZoneList {
        zones,
        revision,
        epoch: String::new(),
    })
}

/// One zone as `GET /v1/worlds/{world}/flat-zones/{id}` answers it (or as one item of
/// [`zone_list`]): its `id`, an absolute `height`, and its `revision` (the one that
/// registered it, which orders layered zones), `revision` when it has none. Errors
/// name the field (`height: ...`).
pub fn zone(json: &str, revision: u64) -> Result<ZoneEntry, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    entry(&value, revision).map_err(|e| e.trim_start_matches(['.', ':', ' ']).to_string())
}

/// One item of a zone list, its revision `revision` when it has none; errors start
/// with `.field` or `: why`, for the caller to put the item's name in front.
fn entry(item: &Value, revision: u64) -> Result<ZoneEntry, String> {
    let at = |e: String| format!(".{e}");
    let mut o = item
        .as_object()
        .ok_or_else(|| ": expected an object".to_string())?
        .clone();
    let zone_revision = match o.remove("revision") {
        None => revision,
        Some(r) => r
            .as_u64()
            .ok_or_else(|| at("revision: expected a non-negative integer".into()))?,
    };
    let doc: ZoneDoc = serde_json::from_value(Value::Object(o)).map_err(|e| format!(": {e}"))?;
    let id = doc.id.clone().ok_or_else(|| at("id: required".into()))?;
    let spec = doc
        .spec()
        .map_err(|e| at(format!("{}: {}", e.field(), e.reason())))?;
    let height = match spec.height {
        ZoneHeight::Absolute(h) => h,
        ZoneHeight::Offset(_) => {
            return Err(at(
                "heightOffset: offline zones need an absolute height (as listed)".into(),
            ));
        }
    };
    Ok(ZoneEntry {
        zone: spec.resolve(id, height),
        revision: zone_revision,
    })
}
