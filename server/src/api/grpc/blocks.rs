//! The voxel chunk RPCs of `terrain.v1.TerrainService`: `GetChunkBlocks` and
//! `GetChunkInstances`.
//!
//! As the mesh RPCs, bulk arrays travel as little-endian `bytes` (instance positions
//! as i32 triples, colours as f32 triples); the block volume is the chunk's compact
//! binary form (`Chunk::encode`). A world that is not voxel is `FAILED_PRECONDITION`
//! (field `world`); chunk indices are checked as tile indices (fields `chunk_x`,
//! `chunk_z`).

use terrain_proto::v1 as pb;
use tonic::{Request, Response, Status};

use crate::{api::ApiState, query::mesh::TileFields};

/// How gRPC names a chunk's indices in errors: the request fields.
fn chunk_fields() -> TileFields {
    TileFields::new("chunk_x", "chunk_z")
}

/// `GetChunkBlocks`: the chunk's columns and its encoded block volume.
pub async fn get_blocks(
    state: &ApiState,
    request: Request<pb::GetChunkBlocksRequest>,
) -> Result<Response<pb::ChunkBlocks>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let chunk = (request.chunk_x, request.chunk_z);
    let answer = engine.chunk_blocks(world, chunk, &chunk_fields()).await?;
    let message = engine
        .compute()
        .run(move || {
            let c = &answer.chunk;
            pb::ChunkBlocks {
                chunk_x: c.cx(),
                chunk_z: c.cz(),
                version: answer.version,
                revision: answer.revision,
                height: c.height(),
                columns: c
                    .columns()
                    .iter()
                    .map(|col| pb::ChunkColumn {
                        height: col.height,
                        biome: col.biome.name().to_string(),
                        surface: col.surface.name().to_string(),
                        decoration: col.decoration.map(|d| d.name()).unwrap_or("").to_string(),
                        water_depth: col.water_depth,
                        river: col.river,
                    })
                    .collect(),
                blocks: c.encode(),
                total_blocks: c.total_blocks(),
            }
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?;
    Ok(Response::new(message))
}

/// `GetChunkInstances`: the chunk's visible blocks by kind.
pub async fn get_instances(
    state: &ApiState,
    request: Request<pb::GetChunkInstancesRequest>,
) -> Result<Response<pb::ChunkInstances>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let chunk = (request.chunk_x, request.chunk_z);
    let answer = engine
        .chunk_instances(world, chunk, &chunk_fields())
        .await?;
    let kinds = answer
        .instances
        .kinds
        .iter()
        .filter(|k| !k.positions.is_empty())
        .map(|k| pb::KindInstances {
            kind: u32::from(k.kind.id()),
            name: k.kind.name().to_string(),
            positions: k
                .positions
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
            colours: k
                .colours
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
            count: k.positions.len() as u64,
        })
        .collect();
    Ok(Response::new(pb::ChunkInstances {
        chunk_x: answer.key.0,
        chunk_z: answer.key.1,
        version: answer.version,
        revision: answer.revision,
        kinds,
        visible: answer.instances.visible,
        total: answer.instances.total,
    }))
}
