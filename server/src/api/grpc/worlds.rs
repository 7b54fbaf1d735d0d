//! `ListWorlds` of `terrain.v1.TerrainService`: every hosted world
//! ([`crate::api::worlds`]) as protobuf messages, a voxel world with its parameters and
//! block kinds.

use terrain_core::voxel::VoxelConfig;
use terrain_proto::v1 as pb;
use tonic::{Request, Response, Status};

use crate::api::{
    ApiState,
    worlds::{self, BlockKindInfo, WorldInfo},
};

/// `ListWorlds`: every hosted world, in configuration order.
pub async fn list(
    state: &ApiState,
    _request: Request<pb::ListWorldsRequest>,
) -> Result<Response<pb::ListWorldsResponse>, Status> {
    let worlds = worlds::list(&state.engine)
        .into_iter()
        .map(world_message)
        .collect();
    Ok(Response::new(pb::ListWorldsResponse { worlds }))
}

fn world_message(w: WorldInfo) -> pb::World {
    pb::World {
        id: w.id,
        generator: w.generator.to_string(),
        seed: w.seed,
        tile_size: w.tile_size,
        tile_resolution: w.tile_resolution,
        revision: w.revision,
        overlap: w.overlap.to_string(),
        zones: w.zones as u64,
        layout: w.layout.map(|l| pb::WorldLayout {
            pattern: l.pattern.to_string(),
            spokes: l.spokes.to_string(),
            chunk_size: l.chunk_size,
            cell_size: l.cell_size,
        }),
        voxel: w.voxel.as_ref().map(voxel_parameters),
    }
}

fn block_kind(k: BlockKindInfo) -> pb::BlockKindInfo {
    pb::BlockKindInfo {
        id: u32::from(k.id),
        name: k.name.to_string(),
        r: u32::from(k.colour[0]),
        g: u32::from(k.colour[1]),
        b: u32::from(k.colour[2]),
        solid: k.solid,
        occludes: k.occludes,
        jitter: k.jitter,
    }
}

/// A voxel world's parameters on the wire: the main keys, and all of them as JSON.
pub fn voxel_parameters(config: &VoxelConfig) -> pb::VoxelParameters {
    pb::VoxelParameters {
        max_height: config.max_height,
        sea_level: config.sea_level,
        erosion_iterations: config.erosion_iterations,
        talus_threshold: config.talus_threshold,
        primary_biome: config
            .primary_biome
            .map(|b| b.name().to_string())
            .unwrap_or_default(),
        // A derived Serialize of plain numbers and names cannot fail.
        config_json: serde_json::to_string(config).unwrap_or_default(),
        kinds: worlds::block_kinds().into_iter().map(block_kind).collect(),
    }
}
