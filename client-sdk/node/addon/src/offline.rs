//! The JSON that `LocalTerrain.offline` reads, into terrain-client's types: a world
//! as `GET /v1/worlds` lists it, and zones as `GET /v1/worlds/{world}/flat-zones`
//! answers them. The terrain is then built by `terrain_client::build_terrain`, the
//! function a live replica builds with.

use serde_json::{Map, Value};
use terrain_client::{WorldInfo, WorldLayout, ZoneEntry, ZoneHeight, ZoneList};
use terrain_core::voxel::VoxelConfig;
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
    })
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
        let at = |e: String| format!("zones[{i}].{e}");
        let mut o = item
            .as_object()
            .ok_or_else(|| format!("zones[{i}]: expected an object"))?
            .clone();
        let zone_revision = match o.remove("revision") {
            None => i as u64 + 1,
            Some(r) => r
                .as_u64()
                .ok_or_else(|| at("revision: expected a non-negative integer".into()))?,
        };
        let doc: ZoneDoc =
            serde_json::from_value(Value::Object(o)).map_err(|e| format!("zones[{i}]: {e}"))?;
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
        zones.push(ZoneEntry {
            zone: spec.resolve(id, height),
            revision: zone_revision,
        });
    }
    let revision = revision.unwrap_or_else(|| zones.iter().map(|z| z.revision).max().unwrap_or(0));
    Ok(ZoneList { zones, revision })
}
