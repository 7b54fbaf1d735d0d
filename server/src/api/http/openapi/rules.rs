//! The input rules of the document: what each parameter and body accepts, as the
//! decoders check it, with the running server's own limits (`max_coordinate`,
//! `max_zone_size`, `max_batch_points`, ...) filled in, so a client (or schemathesis)
//! that keeps to the document is not refused and one that does not is.
//!
//! Rules that JSON Schema cannot state (a heightmap's far corner, a tile's metres
//! within `max_coordinate`, which depend on two values or on the world) stay in the
//! operations' descriptions.

use serde_json::{Value, json};
use terrain_core::zones::MAX_MASK_TILES;

use crate::{
    config::Limits,
    lifecycle::rings::{MAX_VIEWER_ID_LEN, MAX_VIEWER_SPEED},
    map::{Layer, MAX_ZOOM, MIN_ZOOM},
    query::{
        HeightMode, MIN_HEIGHTMAP_STEP,
        walk::{MAX_DISTANCE, MAX_NODES, MAX_PATH_POINTS},
        zones::MAX_PAGE_SIZE,
    },
};

/// Query parameters that are a coordinate in metres, on every route that has them.
const COORDINATES: &[&str] = &["x", "z", "x0", "z0", "minX", "minZ", "maxX", "maxZ"];

/// A zone or viewer id, as its path segment: `[A-Za-z0-9_.:-]{1,128}`, not `.` or `..`.
fn id_schema() -> Value {
    json!({
        "type": "string",
        "pattern": format!("^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{{0,{}}}$|^[.][A-Za-z0-9_:-][A-Za-z0-9_.:-]{{0,{}}}$|^[.][.][A-Za-z0-9_.:-]{{1,{}}}$",
            MAX_VIEWER_ID_LEN - 1, MAX_VIEWER_ID_LEN - 2, MAX_VIEWER_ID_LEN - 2),
    })
}

/// A finite number in `[-max, max]`.
fn within(max: f64) -> Value {
    json!({"type": "number", "minimum": -max, "maximum": max})
}

/// The body of `PUT .../flat-zones/{id}`: the keys of a zone, each checked as the
/// registry checks it (`width` and `depth` or `radius`; `height` or `heightOffset`;
/// a null is an absent key). `id` is left out (it must equal the path's); `revision`
/// is accepted and ignored, whatever it holds.
pub fn zone_request(limits: &Limits) -> Value {
    let mc = limits.max_coordinate;
    let size = limits.max_zone_size;
    let positive = json!({"type": "number", "exclusiveMinimum": 0.0, "maximum": size});
    let extent = json!({"type": "number", "minimum": 0.0, "maximum": size});
    let absent = json!({"type": "null"});
    json!({
        "type": "object",
        "description": "A flat zone as a client writes it (a zone read from the API, with its \
            `id` and `revision`, may be sent back as it is).",
        "required": ["centerX", "centerZ", "blendRadius"],
        "additionalProperties": false,
        "properties": {
            "centerX": within(mc),
            "centerZ": within(mc),
            "width": {"type": ["number", "null"], "description": "With `depth`, a rectangle (not with `radius`)"},
            "depth": {"type": ["number", "null"]},
            "radius": {"type": ["number", "null"], "description": "A circle (not with `width`, `depth`)"},
            "height": {"type": ["number", "null"], "description": "Absolute height, metres (not with `heightOffset`)"},
            "heightOffset": {"type": ["number", "null"], "description": "Height relative to the terrain at the centre (not with `height`)"},
            "blendRadius": extent,
            "carveInset": {"type": ["number", "null"], "minimum": 0.0, "maximum": size,
                "description": "Mesh cells under the core shrunk by this much are left out (0: the whole core); absent (or null), none, and answers leave it out. A zone with a tileMask carves its footprint whatever this is"},
            "priority": {"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX},
            "walkable": {"type": ["boolean", "null"], "description": "Movement over the core: true a floor, false a building that blocks; absent, the world's rule"},
            "tileMask": {
                "type": ["array", "null"],
                "description": "A building footprint: the core is these whole-metre tiles [x, z] (tile (x, z) covers [x, x+1) x [z, z+1)), each inside the rectangle (width and depth), each once; absent, the whole rectangle",
                "minItems": 1,
                "maxItems": MAX_MASK_TILES,
                "uniqueItems": true,
                "items": {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 2,
                    "items": {"type": "integer", "minimum": -1e9, "maximum": 1e9},
                },
            },
            "revision": {"description": "Output only: accepted and ignored"},
        },
        "allOf": [
            {"oneOf": [
                {"required": ["width", "depth"], "properties": {"width": positive, "depth": positive, "radius": absent}},
                {"required": ["radius"], "properties": {"radius": positive, "width": absent, "depth": absent}},
            ]},
            {"oneOf": [
                {"required": ["height"], "properties": {"height": within(mc), "heightOffset": absent}},
                {"required": ["heightOffset"], "properties": {"heightOffset": within(mc), "height": absent}},
            ]},
        ],
        "example": {"centerX": 10.0, "centerZ": -4.0, "radius": 6.0, "height": 12.5, "blendRadius": 2.0},
    })
}

/// The schema of one parameter of the operation at `path`, or `None` to keep the
/// derived one.
fn parameter(path: &str, location: &str, name: &str, limits: &Limits) -> Option<Value> {
    let mc = limits.max_coordinate;
    let map_tile = path.ends_with("/map/{z}/{x}/{file}");
    let content = path.ends_with("/3dtiles/content/{level}/{x}/{file}");
    Some(match (location, name) {
        // One spelling per index: decimal digits, no sign, no leading zero.
        ("path", "file") if content => {
            json!({"type": "string", "pattern": "^(0|[1-9][0-9]*)[.]glb$"})
        }
        ("path", "z") if map_tile => {
            json!({"type": "integer", "minimum": MIN_ZOOM, "maximum": MAX_ZOOM})
        }
        ("path", "file") if map_tile => json!({"type": "string", "pattern": "^-?[0-9]+[.]png$"}),
        ("query", "layer") if map_tile => {
            let names: Vec<&str> = Layer::ALL.iter().map(|l| l.name()).collect();
            json!({"type": "string", "enum": names})
        }
        ("path", "id") => id_schema(),
        ("query", "mode") => {
            let names: Vec<&str> = HeightMode::ALL.iter().map(|m| m.as_str()).collect();
            json!({"type": "string", "enum": names})
        }
        ("query", "format") => json!({"type": "string", "enum": ["json", "binary"]}),
        ("query", "step") => json!({"type": "number", "minimum": MIN_HEIGHTMAP_STEP}),
        ("query", "nx" | "nz") => {
            json!({"type": "integer", "minimum": 1, "maximum": limits.max_heightmap_samples})
        }
        ("query", "radius") => json!({"type": "number", "exclusiveMinimum": 0.0}),
        ("query", "fromRevision" | "revision") => {
            json!({"type": "integer", "minimum": 0, "maximum": u64::MAX})
        }
        ("query", "pageSize") => {
            json!({"type": "integer", "minimum": 0, "maximum": MAX_PAGE_SIZE})
        }
        ("query", "pageToken") => json!({"type": "string", "maxLength": 256}),
        ("query", "fromEpoch") => json!({"type": "string", "pattern": "^[0-9a-fA-F]{16}$"}),
        ("query", "tiles") => {
            json!({"type": "string", "pattern": "^-?[0-9]+,-?[0-9]+,-?[0-9]+,-?[0-9]+$"})
        }
        ("query", name) if COORDINATES.contains(&name) => within(mc),
        ("header", "Upgrade") => json!({"type": "string", "enum": ["websocket"]}),
        ("header", "Connection") => json!({"type": "string", "enum": ["Upgrade"]}),
        ("header", "Sec-WebSocket-Version") => json!({"type": "string", "enum": ["13"]}),
        ("header", "Sec-WebSocket-Key") => {
            json!({"type": "string", "pattern": "^[A-Za-z0-9+/]{22}==$"})
        }
        _ => return None,
    })
}

/// Applies the rules, with `limits`, to the document `doc` (as JSON).
pub fn apply(doc: &mut Value, limits: &Limits) {
    let mc = limits.max_coordinate;
    link_keys(doc);
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, item) in paths.iter_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for op in item.values_mut() {
                // Every body route needs its body (utoipa leaves `required` out for a
                // body given as a `$ref`).
                if let Some(body) = op.get_mut("requestBody").and_then(Value::as_object_mut) {
                    body.insert("required".to_string(), Value::Bool(true));
                }
                let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) else {
                    continue;
                };
                for param in params {
                    let location = param["in"].as_str().unwrap_or_default().to_string();
                    let name = param["name"].as_str().unwrap_or_default().to_string();
                    if let Some(schema) = parameter(path, &location, &name, limits) {
                        param["schema"] = schema;
                    }
                }
            }
        }
    }
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    schemas.insert("ZoneRequest".to_string(), zone_request(limits));
    // `ZoneDoc` is the zone part of an answer (`ZoneJson`), which carries `revision`
    // beside it: the stored form's `deny_unknown_fields` does not hold there.
    if let Some(doc) = schemas.get_mut("ZoneDoc").and_then(Value::as_object_mut) {
        doc.remove("additionalProperties");
    }
    for name in ["PointsBody", "InfoBody"] {
        let Some(points) = schemas.get_mut(name) else {
            continue;
        };
        points["additionalProperties"] = json!(false);
        points["properties"]["points"]["maxItems"] = json!(limits.max_batch_points);
        points["properties"]["points"]["items"] = json!({
            "type": "array",
            "prefixItems": [within(mc), within(mc)],
            "minItems": 2,
            "maxItems": 2,
        });
        revision_property(&mut points["properties"]["revision"]);
    }
    if let Some(info) = schemas.get_mut("InfoBody") {
        info["properties"]["points"]["minItems"] = json!(1);
    }
    let point = json!({
        "type": "array",
        "prefixItems": [within(mc), within(mc)],
        "minItems": 2,
        "maxItems": 2,
    });
    if let Some(check) = schemas.get_mut("CheckBody") {
        check["additionalProperties"] = json!(false);
        check["properties"]["points"]["minItems"] = json!(1);
        check["properties"]["points"]["maxItems"] = json!(MAX_PATH_POINTS);
        check["properties"]["points"]["items"] = point.clone();
        revision_property(&mut check["properties"]["revision"]);
        check["properties"]["mode"] = json!({
            "type": ["string", "null"],
            "enum": ["hyperscape", "exact", null],
            "description": "`hyperscape` (the original's 21 samples per segment) or `exact` (every 1 m tile crossed; the default)",
        });
    }
    if let Some(find) = schemas.get_mut("FindBody") {
        find["additionalProperties"] = json!(false);
        find["properties"]["from"] = point.clone();
        find["properties"]["to"] = point;
        find["properties"]["maxNodes"] = json!({
            "type": ["integer", "null"], "minimum": 1, "maximum": MAX_NODES,
            "description": "Most tiles to expand (default 100,000)",
        });
        find["properties"]["maxDistance"] = json!({
            "type": ["number", "null"], "exclusiveMinimum": 0.0, "maximum": MAX_DISTANCE,
            "description": "Longest straight distance between `from` and `to`, metres (default 1,000)",
        });
    }
    if let Some(viewer) = schemas.get_mut("ViewerRequest") {
        viewer["additionalProperties"] = json!(false);
        let extent = json!({"type": "number", "minimum": 0.0, "maximum": 2.0 * mc});
        let props = &mut viewer["properties"];
        props["x"] = within(mc);
        props["z"] = within(mc);
        props["viewWidth"] = extent.clone();
        props["viewDepth"] = extent;
        // Optional (0 when absent), not nullable: metres per second.
        for key in ["velocityX", "velocityZ"] {
            props[key] = within(MAX_VIEWER_SPEED);
            props[key]["description"] = json!("Metres per second (0 when absent)");
        }
    }
}

/// A body's optional `revision`: an unsigned 64-bit integer or null (the derived
/// schema's `int64` format would cap it at 2^63 - 1), with its derived description.
fn revision_property(property: &mut Value) {
    let description = property.get("description").cloned();
    *property = json!({"type": ["integer", "null"], "minimum": 0, "maximum": u64::MAX});
    if let Some(description) = description {
        property["description"] = description;
    }
}

/// Link objects as OpenAPI spells their keys: utoipa 5 writes `operation_id`,
/// `operation_ref` and `request_body`, which no reader knows.
fn link_keys(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(links)) = map.get_mut("links") {
                for link in links.values_mut().filter_map(Value::as_object_mut) {
                    for (from, to) in [
                        ("operation_id", "operationId"),
                        ("operation_ref", "operationRef"),
                        ("request_body", "requestBody"),
                    ] {
                        if let Some(v) = link.remove(from) {
                            link.insert(to.to_string(), v);
                        }
                    }
                }
            }
            map.values_mut().for_each(link_keys);
        }
        Value::Array(items) => items.iter_mut().for_each(link_keys),
        _ => {}
    }
}
