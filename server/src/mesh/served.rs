//! What the cache holds and serves: a tile's [`CachedMesh`] (a heightfield
//! [`TileMesh`] or a voxel chunk's [`ChunkMesh`]), the [`ServedMesh`] a request gets,
//! and what a mesh costs the cache's budget.

use std::sync::Arc;

use terrain_core::{
    mesh::{
        GlbError, TileMesh,
        glb::{ColouredMesh, coloured_to_glb},
        to_glb,
    },
    voxel::{MeshPart, VoxelMesh},
};

use super::encoded::Encodings;

/// A voxel world's chunk mesh: the greedy mesh of its blocks, with positions made
/// relative to the chunk's placement (as a [`TileMesh`]'s are).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkMesh {
    /// The chunk (the world's tile).
    pub key: (i64, i64),
    /// The revision of the last change that touched the chunk (0: none).
    pub version: u64,
    /// World position of the chunk's origin: `(32 cx, 0, 32 cz)`.
    pub placement: [f64; 3],
    /// Opaque and transparent parts, quad and face counts; positions relative to
    /// `placement`.
    pub mesh: VoxelMesh,
}

impl ChunkMesh {
    /// Chunk `key`'s mesh at `version` from `mesh`, whose positions are world metres.
    /// The shift is exact for block corners within 2^24 m of the origin.
    pub fn new(key: (i64, i64), version: u64, mut mesh: VoxelMesh) -> Self {
        let size = terrain_core::voxel::CHUNK as f64;
        let placement = [key.0 as f64 * size, 0.0, key.1 as f64 * size];
        for part in [&mut mesh.opaque, &mut mesh.transparent] {
            for p in &mut part.positions {
                p[0] = (f64::from(p[0]) - placement[0]) as f32;
                p[2] = (f64::from(p[2]) - placement[2]) as f32;
            }
        }
        ChunkMesh {
            key,
            version,
            placement,
            mesh,
        }
    }

    /// The lowest and highest vertex of both parts (0, 0 for an empty mesh): the
    /// `minHeight` / `maxHeight` both surfaces report.
    pub fn height_range(&self) -> (f32, f32) {
        let ys = self
            .mesh
            .opaque
            .positions
            .iter()
            .chain(&self.mesh.transparent.positions)
            .map(|p| p[1]);
        let (lo, hi) = ys.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
        if lo > hi { (0.0, 0.0) } else { (lo, hi) }
    }

    /// The chunk's mesh as glb: a node at the chunk's placement, the opaque part and
    /// the transparent part as two coloured primitives.
    pub fn to_glb(&self) -> Result<Vec<u8>, GlbError> {
        let (cx, cz) = self.key;
        coloured_to_glb(&ColouredMesh {
            name: format!("chunk_{cx}_{cz}"),
            translation: self.placement,
            extras: serde_json::json!({
                "chunkX": cx,
                "chunkZ": cz,
                "version": self.version,
                "quads": self.mesh.quads,
                "visibleFaces": self.mesh.visible_faces,
            }),
            primitives: self.mesh.primitives(),
        })
    }
}

/// `served` as glb, as [`MeshCache::encoded`](super::MeshCache::encoded) stores it: the body of `mesh.glb` and a
/// finest 3D Tiles content alike.
pub fn encode_glb(served: &ServedMesh) -> Result<Vec<u8>, String> {
    served.mesh.to_glb().map_err(|e| e.to_string())
}

/// What the cache holds for one tile.
#[derive(Debug, Clone, PartialEq)]
pub enum CachedMesh {
    /// A heightfield tile (hyperscape, osrs).
    Tile(TileMesh),
    /// A voxel chunk.
    Chunk(ChunkMesh),
}

impl CachedMesh {
    /// The revision of the last change that touched the tile.
    pub fn version(&self) -> u64 {
        match self {
            CachedMesh::Tile(m) => m.version,
            CachedMesh::Chunk(m) => m.version,
        }
    }

    /// The tile's indices.
    pub fn key(&self) -> (i64, i64) {
        match self {
            CachedMesh::Tile(m) => m.key,
            CachedMesh::Chunk(m) => m.key,
        }
    }

    /// The mesh as glb.
    pub fn to_glb(&self) -> Result<Vec<u8>, GlbError> {
        match self {
            CachedMesh::Tile(m) => to_glb(m),
            CachedMesh::Chunk(m) => m.to_glb(),
        }
    }

    /// The bytes the cached mesh holds (its heap arrays), saturating at `u32::MAX`.
    pub fn bytes(&self) -> u32 {
        match self {
            CachedMesh::Tile(m) => mesh_bytes(m),
            CachedMesh::Chunk(m) => {
                let part = |p: &MeshPart| {
                    (p.positions.len() + p.normals.len() + p.colours.len()) * 12
                        + p.indices.len() * 4
                };
                let bytes = part(&m.mesh.opaque) + part(&m.mesh.transparent);
                u32::try_from(bytes).unwrap_or(u32::MAX)
            }
        }
    }
}

/// A mesh as served, with the world revision it was read at.
#[derive(Debug, Clone)]
pub struct ServedMesh {
    pub mesh: Arc<CachedMesh>,
    /// The world's revision when the request read it (>= `mesh.version`).
    pub revision: u64,
    /// Whether the cache held it (`false`: built for this request).
    pub cached: bool,
    /// The encodings made of this mesh, shared with its cache entry
    /// ([`MeshCache::encoded`](super::MeshCache::encoded)).
    pub encoded: Arc<Encodings>,
}

/// The bytes a cached mesh holds (its heap arrays), saturating at `u32::MAX`.
pub fn mesh_bytes(mesh: &TileMesh) -> u32 {
    let bytes = mesh.positions.len() * 4
        + mesh.normals.len() * 4
        + mesh.heights.len() * 8
        + mesh.colours.len() * 4
        + mesh.biomes.len()
        + mesh.indices.len()
            * match mesh.indices {
                terrain_core::mesh::Indices::U16(_) => 2,
                terrain_core::mesh::Indices::U32(_) => 4,
            };
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

/// The bytes one tile mesh of `grid` holds in the cache (what [`mesh_bytes`] counts
/// for a heightfield mesh of that grid, at most: positions, normals, f64 heights,
/// colours, biome ids and u32 indices). Voxel chunk meshes are counted at the same size: their greedy quads
/// are usually far fewer.
pub fn tile_mesh_bytes(grid: &terrain_core::tile::TileGrid) -> u64 {
    let n = u64::from(grid.resolution);
    let vertices = n * n;
    let indices = n.saturating_sub(1).pow(2) * 6;
    vertices * (3 * 4 + 3 * 4 + 8 + 3 * 4 + 1) + indices * 4
}
