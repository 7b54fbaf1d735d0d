//! A tile mesh as binary glTF 2.0 (`.glb`): one node placed at the tile's world
//! position holding one indexed triangle mesh with positions and normals, so standard
//! loaders (three.js, Blender, the `gltf` crate) open it as-is.

use std::borrow::Cow;

use serde_json::json;

use super::tile::{Indices, TileMesh};

/// glTF buffer-view targets and component types.
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const TRIANGLES: u32 = 4;

/// Why a mesh could not be encoded.
#[derive(Debug, thiserror::Error)]
pub enum GlbError {
    #[error("glb: {0}")]
    Encode(String),
}

/// Appends `values` as little-endian bytes.
fn put_f32(buf: &mut Vec<u8>, values: &[f32]) {
    for v in values {
        buf.extend_from_slice(&v.to_le_bytes());
    }
}

/// Per-component min and max of an `x, y, z` array (glTF requires them for POSITION).
fn bounds(values: &[f32]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for v in values.chunks_exact(3) {
        for k in 0..3 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    (lo, hi)
}

/// Encodes `mesh` as a `.glb` file. Positions are relative to the node, whose
/// translation is the tile's placement, so the mesh lands at its world position.
pub fn to_glb(mesh: &TileMesh) -> Result<Vec<u8>, GlbError> {
    let vertices = mesh.positions.len() / 3;
    let mut bin = Vec::with_capacity(mesh.positions.len() * 8 + mesh.indices.len() * 4);
    put_f32(&mut bin, &mesh.positions);
    put_f32(&mut bin, &mesh.normals);
    let index_offset = bin.len();
    let index_type = match &mesh.indices {
        Indices::U16(v) => {
            v.iter()
                .for_each(|i| bin.extend_from_slice(&i.to_le_bytes()));
            UNSIGNED_SHORT
        }
        Indices::U32(v) => {
            v.iter()
                .for_each(|i| bin.extend_from_slice(&i.to_le_bytes()));
            UNSIGNED_INT
        }
    };
    let index_bytes = bin.len() - index_offset;
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let attr_bytes = vertices * 12;
    let (lo, hi) = bounds(&mesh.positions);
    let (tx, tz) = mesh.key;
    let doc = json!({
        "asset": { "version": "2.0", "generator": "terrain-server" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{
            "name": format!("tile_{tx}_{tz}"),
            "mesh": 0,
            "translation": mesh.placement,
            "extras": { "tileX": tx, "tileZ": tz, "version": mesh.version },
        }],
        "meshes": [{
            "name": format!("terrain_{tx}_{tz}"),
            "primitives": [{
                "attributes": { "POSITION": 0, "NORMAL": 1 },
                "indices": 2,
                "mode": TRIANGLES,
            }],
        }],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": attr_bytes, "byteStride": 12, "target": ARRAY_BUFFER },
            { "buffer": 0, "byteOffset": attr_bytes, "byteLength": attr_bytes, "byteStride": 12, "target": ARRAY_BUFFER },
            { "buffer": 0, "byteOffset": index_offset, "byteLength": index_bytes, "target": ELEMENT_ARRAY_BUFFER },
        ],
        "accessors": [
            { "bufferView": 0, "componentType": FLOAT, "count": vertices, "type": "VEC3", "min": lo, "max": hi },
            { "bufferView": 1, "componentType": FLOAT, "count": vertices, "type": "VEC3" },
            { "bufferView": 2, "componentType": index_type, "count": mesh.indices.len(), "type": "SCALAR" },
        ],
    });
    let json = serde_json::to_vec(&doc).map_err(|e| GlbError::Encode(e.to_string()))?;
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: 0,
        },
        json: Cow::Owned(json),
        bin: Some(Cow::Owned(bin)),
    };
    glb.to_vec().map_err(|e| GlbError::Encode(e.to_string()))
}
