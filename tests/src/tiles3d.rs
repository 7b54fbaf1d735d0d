//! 3D Tiles documents checked as a validator checks them: the tileset JSON and the
//! subtree file's JSON against the 3D Tiles 1.1 schemas written into the tests
//! (`tests/schemas/3d-tiles-1.1`; no 3D Tiles validator installs from npm here), and
//! what the schemas cannot say (the subtree file's binary header, the implicit
//! tiling's URI templates, errors and boxes that make sense).

use serde_json::Value;

/// Panics with every error of `doc` against `schema`, each with its JSON path.
fn check(schema: &str, what: &str, doc: &Value) {
    let schema: Value = serde_json::from_str(schema).expect("a JSON schema");
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON schema");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{what} is not 3D Tiles 1.1: {errors:#?}");
}

/// Checks a tileset document: the schema, then an implicit root's templates, a
/// tileset error no smaller than the root's, and a box with a non-zero volume.
pub fn check_tileset(doc: &Value) {
    check(
        include_str!("../schemas/3d-tiles-1.1/tileset.schema.json"),
        "the tileset",
        doc,
    );
    let root = &doc["root"];
    assert!(
        doc["geometricError"].as_f64() >= root["geometricError"].as_f64(),
        "the tileset's geometricError is below its root's"
    );
    if let Some(implicit) = root.get("implicitTiling") {
        for uri in [&root["content"]["uri"], &implicit["subtrees"]["uri"]] {
            let uri = uri.as_str().expect("a URI template");
            for variable in ["{level}", "{x}", "{y}"] {
                assert!(uri.contains(variable), "{uri} lacks {variable}");
            }
        }
        assert!(
            root.get("children").is_none(),
            "an implicit root has children"
        );
    }
    if let Some(b) = root["boundingVolume"]["box"].as_array() {
        let v: Vec<f64> = b.iter().map(|x| x.as_f64().expect("a number")).collect();
        // The three half-axes must span a volume (a flat box still has two).
        let cross = [
            v[4] * v[8] - v[5] * v[7],
            v[5] * v[6] - v[3] * v[8],
            v[3] * v[7] - v[4] * v[6],
        ];
        let area = cross.iter().map(|c| c * c).sum::<f64>();
        assert!(area > 0.0, "degenerate root box {v:?}");
    }
}

/// Checks a subtree file: the header (`subt`, version 1, the JSON and binary lengths,
/// the JSON padded to 8 bytes with spaces), then its JSON against the schema;
/// answers the JSON.
pub fn check_subtree(file: &[u8]) -> Value {
    assert!(file.len() >= 24, "a subtree file has a 24-byte header");
    assert_eq!(&file[..4], b"subt", "the subtree magic");
    assert_eq!(
        u32::from_le_bytes(file[4..8].try_into().unwrap()),
        1,
        "version"
    );
    let json_len = u64::from_le_bytes(file[8..16].try_into().unwrap()) as usize;
    let bin_len = u64::from_le_bytes(file[16..24].try_into().unwrap()) as usize;
    assert_eq!(json_len % 8, 0, "the JSON chunk ends on 8 bytes");
    assert_eq!(bin_len % 8, 0, "the binary chunk ends on 8 bytes");
    assert_eq!(file.len(), 24 + json_len + bin_len, "the lengths add up");
    let text = std::str::from_utf8(&file[24..24 + json_len]).expect("UTF-8 JSON");
    let doc: Value = serde_json::from_str(text.trim_end_matches(' ')).expect("JSON");
    check(
        include_str!("../schemas/3d-tiles-1.1/subtree.schema.json"),
        "the subtree",
        &doc,
    );
    if let Some(buffers) = doc["buffers"].as_array() {
        let internal: u64 = buffers
            .iter()
            .filter(|b| b.get("uri").is_none())
            .map(|b| b["byteLength"].as_u64().unwrap())
            .sum();
        assert!(
            internal as usize <= bin_len,
            "an internal buffer beyond the file"
        );
        for view in doc["bufferViews"].as_array().expect("buffer views") {
            let end = view["byteOffset"].as_u64().unwrap() + view["byteLength"].as_u64().unwrap();
            assert!(end <= internal, "a buffer view beyond its buffer");
        }
    }
    doc
}

/// The tile metadata of a subtree file holding one `FLOAT64` property per tile (how
/// the server gives each tile its `TILE_GEOMETRIC_ERROR`), checked against its
/// table's count; `None` when the subtree has no tile metadata.
pub fn subtree_tile_errors(file: &[u8]) -> Option<Vec<f64>> {
    let doc = check_subtree(file);
    let table = &doc["propertyTables"][doc.get("tileMetadata")?.as_u64()? as usize];
    let count = table["count"].as_u64().expect("a count") as usize;
    let properties = table["properties"].as_object().expect("properties");
    assert_eq!(properties.len(), 1, "one property: {properties:?}");
    let values = properties.values().next()?["values"].as_u64()? as usize;
    let view = &doc["bufferViews"][values];
    let json_len = u64::from_le_bytes(file[8..16].try_into().unwrap()) as usize;
    let at = 24 + json_len + view["byteOffset"].as_u64()? as usize;
    let len = view["byteLength"].as_u64()? as usize;
    assert_eq!(len, count * 8, "a double per tile");
    Some(
        file[at..at + len]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tileset() -> Value {
        json!({
            "asset": {"version": "1.1"},
            "geometricError": 64.0,
            "root": {
                "boundingVolume": {"box": [0, 0, 0, 100, 0, 0, 0, 100, 0, 0, 0, 10]},
                "geometricError": 32.0,
                "refine": "REPLACE",
                "content": {"uri": "content/{level}/{x}/{y}.glb"},
                "implicitTiling": {
                    "subdivisionScheme": "QUADTREE",
                    "subtreeLevels": 3,
                    "availableLevels": 3,
                    "subtrees": {"uri": "subtrees/{level}.{x}.{y}.subtree"}
                }
            }
        })
    }

    #[test]
    fn a_tileset_of_the_specification_passes() {
        check_tileset(&tileset());
    }

    #[test]
    #[should_panic(expected = "/root: \\\"geometricError\\\" is a required property")]
    fn a_tile_without_its_error_fails() {
        let mut doc = tileset();
        doc["root"]
            .as_object_mut()
            .unwrap()
            .remove("geometricError");
        check_tileset(&doc);
    }

    #[test]
    #[should_panic(expected = "'generator' was unexpected")]
    fn a_property_of_gltf_s_asset_fails() {
        let mut doc = tileset();
        doc["asset"]["generator"] = json!("terrain-server");
        check_tileset(&doc);
    }

    #[test]
    #[should_panic(expected = "/root/refine")]
    fn an_unknown_refinement_fails() {
        let mut doc = tileset();
        doc["root"]["refine"] = json!("replace");
        check_tileset(&doc);
    }

    #[test]
    #[should_panic(expected = "the lengths add up")]
    fn a_subtree_with_a_wrong_length_fails() {
        let json =
            br#"{"tileAvailability":{"constant":1},"childSubtreeAvailability":{"constant":0}}"#;
        let mut padded = json.to_vec();
        padded.resize(json.len().div_ceil(8) * 8, b' ');
        let mut file = b"subt".to_vec();
        file.extend(1u32.to_le_bytes());
        file.extend((padded.len() as u64 + 8).to_le_bytes());
        file.extend(0u64.to_le_bytes());
        file.extend(padded);
        check_subtree(&file);
    }
}
