//! Encoded meshes: the response bodies made of one cached mesh, kept with it.
//!
//! A cached tile holds its mesh and, beside it, one slot per wire format
//! ([`MeshFormat`]: the JSON body, the glb, the protobuf `TileMesh`). The first
//! request for a format encodes the mesh on the compute pool and fills the slot;
//! every later request for that tile version copies the bytes and encodes nothing.
//! A new version of the tile is a new entry with empty slots, so an encoding is
//! never served for a version it was not made from. Each encoding is counted in
//! `terrain_mesh_encodings_total{format}`, and the cache counts the encoded bytes
//! in its `mesh_cache_bytes` budget (the entry is weighed again once a slot fills).
//!
//! Parts of an answer that change without the tile changing (the world revision a
//! request read) are not in the stored bytes; the edge stamps them in (see
//! `api/http/mesh.rs` and `api/grpc/mesh.rs`).

use std::sync::{Arc, OnceLock};

use bytes::Bytes;

use super::{CachedMesh, MeshCache, MeshError, ServedMesh};

/// A wire format a mesh is encoded in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshFormat {
    /// The JSON body of `GET .../mesh`.
    Json,
    /// The glb of `GET .../mesh.glb`.
    Glb,
    /// The protobuf `TileMesh` of `GetTileMesh` / `GetTileMeshes`.
    Protobuf,
}

impl MeshFormat {
    const ALL: [MeshFormat; 3] = [MeshFormat::Json, MeshFormat::Glb, MeshFormat::Protobuf];

    /// The `format` label of `terrain_mesh_encodings_total`.
    pub fn as_str(self) -> &'static str {
        match self {
            MeshFormat::Json => "json",
            MeshFormat::Glb => "glb",
            MeshFormat::Protobuf => "protobuf",
        }
    }

    fn slot(self) -> usize {
        match self {
            MeshFormat::Json => 0,
            MeshFormat::Glb => 1,
            MeshFormat::Protobuf => 2,
        }
    }
}

/// The encodings made so far of one cached mesh (a failed encoding is kept too:
/// it would fail the same way again).
#[derive(Debug, Default)]
pub struct Encodings {
    slots: [OnceLock<Result<Bytes, String>>; 3],
}

impl Encodings {
    /// The bytes the encodings hold.
    pub fn bytes(&self) -> usize {
        MeshFormat::ALL
            .iter()
            .filter_map(|f| self.slots[f.slot()].get())
            .map(|r| r.as_ref().map_or(0, Bytes::len))
            .sum()
    }

    /// The encoding in `format`, if made.
    pub fn get(&self, format: MeshFormat) -> Option<&Result<Bytes, String>> {
        self.slots[format.slot()].get()
    }
}

/// What a cache entry holds: the mesh and its encodings.
#[derive(Debug, Clone)]
pub(super) struct Cached {
    pub mesh: Arc<CachedMesh>,
    pub encoded: Arc<Encodings>,
}

impl Cached {
    /// A freshly built mesh, not yet encoded.
    pub fn new(mesh: CachedMesh) -> Self {
        Cached {
            mesh: Arc::new(mesh),
            encoded: Arc::default(),
        }
    }

    /// The cache weight: the mesh's arrays and the encoded bytes, saturating.
    pub fn weight(&self) -> u32 {
        let encoded = u32::try_from(self.encoded.bytes()).unwrap_or(u32::MAX);
        self.mesh.bytes().saturating_add(encoded)
    }
}

impl MeshCache {
    /// `served` encoded in `format` by `encode`: the stored bytes when this version
    /// of the tile was encoded before, otherwise encoded now on the compute pool
    /// (once, whoever else asks meanwhile), counted, and stored with the mesh. The
    /// encoding is made at revision 0 whatever request asks first, so the stored bytes
    /// hold no request's revision; an edge whose form carries one stamps it in.
    pub async fn encoded(
        &self,
        world: &str,
        served: &ServedMesh,
        format: MeshFormat,
        encode: fn(&ServedMesh) -> Result<Vec<u8>, String>,
    ) -> Result<Bytes, MeshError> {
        if let Some(done) = served.encoded.get(format) {
            return done.clone().map_err(MeshError::Encode);
        }
        let job = ServedMesh {
            revision: 0,
            ..served.clone()
        };
        let metrics = Arc::clone(&self.metrics);
        let done = self
            .compute
            .run(move || {
                job.encoded.slots[format.slot()]
                    .get_or_init(|| {
                        metrics.mesh_encoded(format.as_str());
                        encode(&job).map(Bytes::from)
                    })
                    .clone()
            })
            .await
            .map_err(|e| MeshError::Build(e.to_string()))?;
        self.reweigh(world, served).await;
        done.map_err(MeshError::Encode)
    }

    /// Weighs `served`'s entry again (its encodings grew), if the cache still holds
    /// that entry.
    async fn reweigh(&self, world: &str, served: &ServedMesh) {
        let key = (world.to_string(), served.mesh.key().0, served.mesh.key().1);
        let encoded = Arc::clone(&served.encoded);
        let put = self.cache.entry(key).and_compute_with(|entry| async move {
            match entry {
                Some(e) if Arc::ptr_eq(&e.value().encoded, &encoded) => {
                    moka::ops::compute::Op::Put(e.into_value())
                }
                _ => moka::ops::compute::Op::Nop,
            }
        });
        put.await;
        self.update_size().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrain_core::mesh::Indices;

    #[test]
    fn an_entry_weighs_its_mesh_and_its_encodings() {
        let mesh = terrain_core::mesh::TileMesh {
            key: (0, 0),
            version: 1,
            resolution: 2,
            placement: [0.0; 3],
            min_height: 0.0,
            max_height: 0.0,
            positions: vec![0.0; 12],
            normals: vec![0.0; 12],
            heights: vec![0.0; 4],
            colours: Vec::new(),
            biomes: Vec::new(),
            indices: Indices::U16(vec![0, 1, 2]),
        };
        let entry = Cached::new(CachedMesh::Tile(mesh));
        let bare = entry.weight();
        assert_eq!(bare, entry.mesh.bytes());
        let slot = &entry.encoded.slots[MeshFormat::Glb.slot()];
        slot.get_or_init(|| Ok(Bytes::from(vec![0u8; 1000])));
        assert_eq!(entry.weight(), bare + 1000);
        let failed = &entry.encoded.slots[MeshFormat::Json.slot()];
        failed.get_or_init(|| Err("refused".into()));
        assert_eq!(entry.weight(), bare + 1000, "a failure holds no bytes");
    }
}
