//! Meshes as binary glTF 2.0 (`.glb`), so standard loaders (three.js, Blender, the
//! `gltf` crate) open them as-is.
//!
//! - [`to_glb`]: a heightfield tile mesh: one node placed at the tile's world position
//!   holding one indexed triangle mesh with positions and normals.
//! - [`coloured_to_glb`]: a mesh of several primitives with per-vertex colours
//!   (`COLOR_0`, linear RGB), each opaque or transparent: a voxel chunk's opaque blocks
//!   and its transparent kinds (water, ice, leaves) in a primitive of their own, with an
//!   alpha-blended, double-sided material. Empty primitives are left out (glTF forbids
//!   empty accessors); a mesh with none is a node without a mesh.
//!   [`VoxelMesh::primitives`] gives a greedy voxel mesh's two: the voxel generator
//!   builds the geometry and knows no glTF, the glTF form of it is this module's.

use std::borrow::Cow;

use serde_json::json;

use super::tile::{Indices, TileMesh};
use crate::generator::voxel::VoxelMesh;

/// glTF buffer-view targets and component types.
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const TRIANGLES: u32 = 4;

/// The alpha of the material of transparent primitives (vertex colours are RGB).
pub const TRANSPARENT_ALPHA: f32 = 0.6;

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
///
/// A mesh with a colour per vertex carries them as `COLOR_0` (float VEC3, linear
/// RGB): the original worker's on hyperscape tiles, the top blocks' on a voxel world's
/// coarse 3D Tiles contents. One with a biome id per vertex too (hyperscape) carries
/// each vertex's dominant biome id as `_BIOME` (float SCALAR, as the original's
/// `biomeId` attribute).
pub fn to_glb(mesh: &TileMesh) -> Result<Vec<u8>, GlbError> {
    let vertices = mesh.positions.len() / 3;
    let coloured = vertices > 0 && mesh.colours.len() == vertices * 3;
    let with_biomes = coloured && mesh.biomes.len() == vertices;
    let mut bin = Vec::with_capacity(mesh.positions.len() * 12 + mesh.indices.len() * 4);
    // Vertex attributes first, each a tightly packed float array (4-byte aligned).
    let mut views = Vec::new();
    let mut attribute = |bin: &mut Vec<u8>, values: &[f32], stride: usize| {
        let offset = bin.len();
        put_f32(bin, values);
        views.push(json!({
            "buffer": 0, "byteOffset": offset, "byteLength": bin.len() - offset,
            "byteStride": stride, "target": ARRAY_BUFFER,
        }));
    };
    attribute(&mut bin, &mesh.positions, 12);
    attribute(&mut bin, &mesh.normals, 12);
    if coloured {
        attribute(&mut bin, &mesh.colours, 12);
    }
    if with_biomes {
        let biomes: Vec<f32> = mesh.biomes.iter().map(|&b| f32::from(b)).collect();
        attribute(&mut bin, &biomes, 4);
    }
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
    views.push(json!({
        "buffer": 0, "byteOffset": index_offset, "byteLength": index_bytes,
        "target": ELEMENT_ARRAY_BUFFER,
    }));
    let (lo, hi) = bounds(&mesh.positions);
    let (tx, tz) = mesh.key;
    let mut accessors = vec![
        json!({ "bufferView": 0, "componentType": FLOAT, "count": vertices, "type": "VEC3", "min": lo, "max": hi }),
        json!({ "bufferView": 1, "componentType": FLOAT, "count": vertices, "type": "VEC3" }),
    ];
    let mut attributes = json!({ "POSITION": 0, "NORMAL": 1 });
    if coloured {
        accessors.push(
            json!({ "bufferView": 2, "componentType": FLOAT, "count": vertices, "type": "VEC3" }),
        );
        attributes["COLOR_0"] = json!(2);
    }
    if with_biomes {
        accessors.push(
            json!({ "bufferView": 3, "componentType": FLOAT, "count": vertices, "type": "SCALAR" }),
        );
        attributes["_BIOME"] = json!(3);
    }
    let index_accessor = accessors.len();
    accessors.push(json!({
        "bufferView": views.len() - 1, "componentType": index_type,
        "count": mesh.indices.len(), "type": "SCALAR",
    }));
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
                "attributes": attributes,
                "indices": index_accessor,
                "mode": TRIANGLES,
            }],
        }],
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": views,
        "accessors": accessors,
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

/// One primitive of a [`ColouredMesh`]: indexed triangles with per-vertex positions,
/// unit normals and linear RGB colours in `0..=1` (all three arrays equally long).
#[derive(Debug, Clone, Copy)]
pub struct ColouredPrimitive<'a> {
    pub positions: &'a [[f32; 3]],
    pub normals: &'a [[f32; 3]],
    pub colours: &'a [[f32; 3]],
    /// Three per triangle, each below `positions.len()`.
    pub indices: &'a [u32],
    /// Drawn with the alpha-blended material ([`TRANSPARENT_ALPHA`], double-sided).
    pub transparent: bool,
}

impl VoxelMesh {
    /// Its glb primitives: the opaque part, then the transparent one (blended).
    pub fn primitives(&self) -> Vec<ColouredPrimitive<'_>> {
        [(&self.opaque, false), (&self.transparent, true)]
            .map(|(part, transparent)| ColouredPrimitive {
                positions: &part.positions,
                normals: &part.normals,
                colours: &part.colours,
                indices: &part.indices,
                transparent,
            })
            .to_vec()
    }
}

/// A mesh of coloured primitives under one node.
#[derive(Debug, Clone)]
pub struct ColouredMesh<'a> {
    /// The node's and mesh's name.
    pub name: String,
    /// The node's translation: positions are relative to it.
    pub translation: [f64; 3],
    /// The node's `extras` (for example the chunk and its version).
    pub extras: serde_json::Value,
    pub primitives: Vec<ColouredPrimitive<'a>>,
}

/// Appends `values` as little-endian f32 triples.
fn put_vec3(buf: &mut Vec<u8>, values: &[[f32; 3]]) {
    for v in values {
        put_f32(buf, v);
    }
}

/// Encodes `mesh` as a `.glb` file: one node with `mesh.translation`, one mesh whose
/// non-empty primitives carry `POSITION`, `NORMAL`, `COLOR_0` (float VEC3) and u32
/// indices, material 0 (opaque) or 1 (transparent). Refuses primitives whose arrays
/// disagree in length or whose indices point past their vertices.
pub fn coloured_to_glb(mesh: &ColouredMesh<'_>) -> Result<Vec<u8>, GlbError> {
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut primitives = Vec::new();
    let mut view = |bin: &mut Vec<u8>, start: usize, target: u32, stride: Option<usize>| {
        let mut v = serde_json::json!({
            "buffer": 0, "byteOffset": start, "byteLength": bin.len() - start, "target": target,
        });
        if let Some(stride) = stride {
            v["byteStride"] = stride.into();
        }
        views.push(v);
        views.len() - 1
    };
    for (p, prim) in mesh.primitives.iter().enumerate() {
        let n = prim.positions.len();
        if prim.normals.len() != n || prim.colours.len() != n {
            return Err(GlbError::Encode(format!(
                "primitive {p}: {n} positions, {} normals, {} colours",
                prim.normals.len(),
                prim.colours.len()
            )));
        }
        if !prim.indices.len().is_multiple_of(3) {
            return Err(GlbError::Encode(format!(
                "primitive {p}: {} indices is not a whole number of triangles",
                prim.indices.len()
            )));
        }
        if let Some(&i) = prim.indices.iter().find(|&&i| i as usize >= n) {
            return Err(GlbError::Encode(format!(
                "primitive {p}: index {i} beyond its {n} vertices"
            )));
        }
        if n == 0 || prim.indices.is_empty() {
            continue;
        }
        let flat: Vec<f32> = prim.positions.iter().flatten().copied().collect();
        let (lo, hi) = bounds(&flat);
        let mut attribute = |bin: &mut Vec<u8>, values: &[[f32; 3]], min_max: bool| {
            let start = bin.len();
            put_vec3(bin, values);
            let v = view(bin, start, ARRAY_BUFFER, Some(12));
            let mut a = serde_json::json!({
                "bufferView": v, "componentType": FLOAT, "count": n, "type": "VEC3",
            });
            if min_max {
                a["min"] = serde_json::json!(lo);
                a["max"] = serde_json::json!(hi);
            }
            accessors.push(a);
            accessors.len() - 1
        };
        let position = attribute(&mut bin, prim.positions, true);
        let normal = attribute(&mut bin, prim.normals, false);
        let colour = attribute(&mut bin, prim.colours, false);
        let start = bin.len();
        for i in prim.indices {
            bin.extend_from_slice(&i.to_le_bytes());
        }
        let v = view(&mut bin, start, ELEMENT_ARRAY_BUFFER, None);
        accessors.push(serde_json::json!({
            "bufferView": v, "componentType": UNSIGNED_INT, "count": prim.indices.len(), "type": "SCALAR",
        }));
        primitives.push(json!({
            "attributes": { "POSITION": position, "NORMAL": normal, "COLOR_0": colour },
            "indices": accessors.len() - 1,
            "material": usize::from(prim.transparent),
            "mode": TRIANGLES,
        }));
    }
    let mut node = json!({
        "name": mesh.name,
        "translation": mesh.translation,
        "extras": mesh.extras,
    });
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": "terrain-server" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
    });
    if !primitives.is_empty() {
        // Both materials are listed whenever either is used, so indices stay 0 and 1;
        // an unused one is only a validator hint, never an error.
        node["mesh"] = 0.into();
        doc["meshes"] = json!([{ "name": mesh.name, "primitives": primitives }]);
        doc["materials"] = json!([
            {
                "name": "opaque",
                "pbrMetallicRoughness": { "baseColorFactor": [1.0, 1.0, 1.0, 1.0], "metallicFactor": 0.0, "roughnessFactor": 1.0 },
            },
            {
                "name": "transparent",
                "pbrMetallicRoughness": { "baseColorFactor": [1.0, 1.0, 1.0, TRANSPARENT_ALPHA], "metallicFactor": 0.0, "roughnessFactor": 1.0 },
                "alphaMode": "BLEND",
                "doubleSided": true,
            },
        ]);
        doc["buffers"] = json!([{ "byteLength": bin.len() }]);
        doc["bufferViews"] = views.into();
        doc["accessors"] = accessors.into();
    }
    doc["nodes"] = json!([node]);
    let json = serde_json::to_vec(&doc).map_err(|e| GlbError::Encode(e.to_string()))?;
    let glb = gltf::binary::Glb {
        header: gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            length: 0,
        },
        json: Cow::Owned(json),
        bin: (!bin.is_empty()).then_some(Cow::Owned(bin)),
    };
    glb.to_vec().map_err(|e| GlbError::Encode(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions, normals and colours of one primitive.
    type Arrays = (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<[f32; 3]>);

    /// A unit quad at height `y`, facing up, in one colour.
    fn quad(y: f32, colour: [f32; 3]) -> Arrays {
        let p = vec![[0.0, y, 0.0], [1.0, y, 0.0], [1.0, y, 1.0], [0.0, y, 1.0]];
        (p, vec![[0.0, 1.0, 0.0]; 4], vec![colour; 4])
    }

    #[test]
    fn coloured_primitives_round_trip_through_a_loader() {
        let (p0, n0, c0) = quad(3.0, [0.2, 0.5, 0.1]);
        let (p1, n1, c1) = quad(2.5, [0.1, 0.2, 0.9]);
        let indices = [0, 2, 1, 0, 3, 2];
        let mesh = ColouredMesh {
            name: "chunk_1_-2".into(),
            translation: [32.0, 0.0, -64.0],
            extras: json!({ "chunkX": 1, "chunkZ": -2, "version": 4 }),
            primitives: vec![
                ColouredPrimitive {
                    positions: &p0,
                    normals: &n0,
                    colours: &c0,
                    indices: &indices,
                    transparent: false,
                },
                ColouredPrimitive {
                    positions: &[],
                    normals: &[],
                    colours: &[],
                    indices: &[],
                    transparent: false,
                },
                ColouredPrimitive {
                    positions: &p1,
                    normals: &n1,
                    colours: &c1,
                    indices: &indices,
                    transparent: true,
                },
            ],
        };
        let bytes = coloured_to_glb(&mesh).unwrap();
        let doc = gltf::Gltf::from_slice(&bytes).unwrap();
        let blob = doc.blob.as_deref().unwrap();
        let node = doc.nodes().next().unwrap();
        assert_eq!(node.transform().decomposed().0, [32.0, 0.0, -64.0]);
        let m = node.mesh().unwrap();
        // The empty primitive is left out.
        let prims: Vec<_> = m.primitives().collect();
        assert_eq!(prims.len(), 2);
        for (prim, (want_y, want_c, blend)) in
            prims.iter().zip([(3.0, c0[0], false), (2.5, c1[0], true)])
        {
            let r = prim.reader(|_| Some(blob));
            let ys: Vec<f32> = r.read_positions().unwrap().map(|p| p[1]).collect();
            assert_eq!(ys, vec![want_y; 4]);
            let cs: Vec<[f32; 3]> = r.read_colors(0).unwrap().into_rgb_f32().collect();
            assert_eq!(cs, vec![want_c; 4]);
            let is: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
            assert_eq!(is, indices);
            let mode = prim.material().alpha_mode();
            assert_eq!(mode == gltf::material::AlphaMode::Blend, blend);
        }
    }

    #[test]
    fn inconsistent_primitives_are_refused_and_empty_meshes_have_no_mesh() {
        let (p, n, c) = quad(1.0, [1.0, 1.0, 1.0]);
        let prim = |indices: &'static [u32], colours| ColouredPrimitive {
            positions: &p,
            normals: &n,
            colours,
            indices,
            transparent: false,
        };
        let mesh = |prims| ColouredMesh {
            name: "m".into(),
            translation: [0.0; 3],
            extras: json!({}),
            primitives: prims,
        };
        let err = coloured_to_glb(&mesh(vec![prim(&[0, 1, 4], &c)])).unwrap_err();
        assert!(err.to_string().contains("index 4"), "{err}");
        let err = coloured_to_glb(&mesh(vec![prim(&[0, 1, 2], &c[..3])])).unwrap_err();
        assert!(err.to_string().contains("3 colours"), "{err}");
        let err = coloured_to_glb(&mesh(vec![prim(&[0, 1], &c)])).unwrap_err();
        assert!(err.to_string().contains("whole number"), "{err}");
        let bytes = coloured_to_glb(&mesh(vec![])).unwrap();
        let doc = gltf::Gltf::from_slice(&bytes).unwrap();
        assert!(doc.nodes().next().unwrap().mesh().is_none());
    }
}
