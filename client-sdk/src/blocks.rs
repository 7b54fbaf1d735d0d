//! Voxel chunk calls of [`TerrainClient`]: `GetChunkBlocks` (columns and the block
//! volume, decoded into a `terrain-core` [`Chunk`]) and `GetChunkInstances` (visible
//! blocks by kind, the packed arrays decoded into plain vectors).

use terrain_core::voxel::{BlockKind, Chunk};
use terrain_proto::v1;

use crate::{ClientError, TerrainClient};

/// One column of a chunk, as served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkColumn {
    /// The top of the highest solid block.
    pub height: i32,
    pub biome: String,
    pub surface: String,
    /// `None`: no decoration is rooted in the column.
    pub decoration: Option<String>,
    pub water_depth: u32,
    pub river: bool,
}

/// A chunk's blocks at its version.
#[derive(Debug, Clone)]
pub struct ChunkBlocks {
    pub chunk_x: i64,
    pub chunk_z: i64,
    /// The revision of the last change that touched the chunk.
    pub version: u64,
    /// The world's revision when the chunk was served.
    pub revision: u64,
    /// 32 x 32 columns, index `z * 32 + x`.
    pub columns: Vec<ChunkColumn>,
    /// The block volume, decoded from its compact binary form.
    pub chunk: Chunk,
    /// The size of that binary form, in bytes.
    pub encoded_bytes: usize,
    pub total_blocks: u64,
}

/// The visible blocks of one kind: `terrain-core`'s, as a local cull makes them.
pub use terrain_core::voxel::KindInstances;

/// A chunk's visible blocks at its version.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkInstances {
    pub chunk_x: i64,
    pub chunk_z: i64,
    pub version: u64,
    pub revision: u64,
    /// Kinds with a visible block, in id order.
    pub kinds: Vec<KindInstances>,
    pub visible: u64,
    pub total: u64,
}

/// `bytes` as little-endian 4-byte values, three per item.
fn triples<T>(bytes: &[u8], what: &str, read: fn([u8; 4]) -> T) -> Result<Vec<[T; 3]>, ClientError>
where
    T: Copy,
{
    if !bytes.len().is_multiple_of(12) {
        return Err(ClientError::Protocol(format!(
            "{what}: {} bytes is not a whole number of 12-byte triples",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(12)
        .map(|t| {
            let v = |k: usize| read([t[k], t[k + 1], t[k + 2], t[k + 3]]);
            [v(0), v(4), v(8)]
        })
        .collect())
}

impl TryFrom<v1::ChunkBlocks> for ChunkBlocks {
    type Error = ClientError;

    fn try_from(m: v1::ChunkBlocks) -> Result<Self, ClientError> {
        let chunk =
            Chunk::decode(&m.blocks).map_err(|e| ClientError::Protocol(format!("blocks: {e}")))?;
        Ok(ChunkBlocks {
            chunk_x: m.chunk_x,
            chunk_z: m.chunk_z,
            version: m.version,
            revision: m.revision,
            columns: m
                .columns
                .into_iter()
                .map(|c| ChunkColumn {
                    height: c.height,
                    biome: c.biome,
                    surface: c.surface,
                    decoration: (!c.decoration.is_empty()).then_some(c.decoration),
                    water_depth: c.water_depth,
                    river: c.river,
                })
                .collect(),
            chunk,
            encoded_bytes: m.blocks.len(),
            total_blocks: m.total_blocks,
        })
    }
}

impl TryFrom<v1::ChunkInstances> for ChunkInstances {
    type Error = ClientError;

    fn try_from(m: v1::ChunkInstances) -> Result<Self, ClientError> {
        let kinds = m
            .kinds
            .into_iter()
            .map(|k| {
                let kind = u8::try_from(k.kind)
                    .ok()
                    .and_then(BlockKind::from_id)
                    .ok_or_else(|| {
                        ClientError::Protocol(format!("unknown block kind {}", k.kind))
                    })?;
                let positions = triples(&k.positions, "positions", i32::from_le_bytes)?;
                let colours = triples(&k.colours, "colours", f32::from_le_bytes)?;
                if positions.len() != colours.len() {
                    return Err(ClientError::Protocol(format!(
                        "kind {}: {} positions but {} colours",
                        k.name,
                        positions.len(),
                        colours.len()
                    )));
                }
                Ok(KindInstances {
                    kind,
                    positions,
                    colours,
                })
            })
            .collect::<Result<_, ClientError>>()?;
        Ok(ChunkInstances {
            chunk_x: m.chunk_x,
            chunk_z: m.chunk_z,
            version: m.version,
            revision: m.revision,
            kinds,
            visible: m.visible,
            total: m.total,
        })
    }
}

impl TerrainClient {
    /// Chunk `(chunk_x, chunk_z)` of voxel world `world`: its columns and blocks.
    pub async fn chunk_blocks(
        &mut self,
        world: &str,
        chunk_x: i64,
        chunk_z: i64,
    ) -> Result<ChunkBlocks, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("GetChunkBlocks", || {
                let mut c = inner.clone();
                let req = v1::GetChunkBlocksRequest {
                    world: world.to_string(),
                    chunk_x,
                    chunk_z,
                };
                async move { ChunkBlocks::try_from(c.get_chunk_blocks(req).await?.into_inner()) }
            })
            .await
    }

    /// The visible blocks of chunk `(chunk_x, chunk_z)` of voxel world `world`.
    pub async fn chunk_instances(
        &mut self,
        world: &str,
        chunk_x: i64,
        chunk_z: i64,
    ) -> Result<ChunkInstances, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("GetChunkInstances", || {
                let mut c = inner.clone();
                let req = v1::GetChunkInstancesRequest {
                    world: world.to_string(),
                    chunk_x,
                    chunk_z,
                };
                async move {
                    ChunkInstances::try_from(c.get_chunk_instances(req).await?.into_inner())
                }
            })
            .await
    }
}
