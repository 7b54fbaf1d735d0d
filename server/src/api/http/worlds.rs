//! `GET /v1/worlds`: every hosted world ([`crate::api::worlds`]), as JSON.

use std::sync::Arc;

use axum::{Json, extract::State};
use serde::Serialize;
use terrain_core::voxel::VoxelConfig;

use crate::api::{
    ApiState,
    worlds::{self, BlockKindInfo, LayoutInfo, WorldInfo},
};

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorldBody {
    id: String,
    #[schema(example = "osrs")]
    generator: &'static str,
    seed: u32,
    tile_size: f64,
    tile_resolution: u32,
    revision: u64,
    #[schema(example = "priority")]
    overlap: &'static str,
    zones: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    layout: Option<WorldLayoutBody>,
    /// A voxel world's parameters, keyed as its `[worlds.voxel]` table.
    #[serde(skip_serializing_if = "Option::is_none")]
    voxel: Option<VoxelConfig>,
    /// A voxel world's block kinds, in id order.
    #[serde(skip_serializing_if = "Option::is_none")]
    block_kinds: Option<Vec<BlockKindBody>>,
}

impl From<WorldInfo> for WorldBody {
    fn from(w: WorldInfo) -> Self {
        WorldBody {
            id: w.id,
            generator: w.generator,
            seed: w.seed,
            tile_size: w.tile_size,
            tile_resolution: w.tile_resolution,
            revision: w.revision,
            overlap: w.overlap,
            zones: w.zones,
            layout: w.layout.map(WorldLayoutBody::from),
            block_kinds: w.voxel.map(|_| {
                worlds::block_kinds()
                    .into_iter()
                    .map(BlockKindBody::from)
                    .collect()
            }),
            voxel: w.voxel,
        }
    }
}

/// A world's layout layer, as `ListWorlds` reports it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorldLayoutBody {
    pattern: &'static str,
    spokes: &'static str,
    chunk_size: f64,
    cell_size: f64,
}

impl From<LayoutInfo> for WorldLayoutBody {
    fn from(l: LayoutInfo) -> Self {
        WorldLayoutBody {
            pattern: l.pattern,
            spokes: l.spokes,
            chunk_size: l.chunk_size,
            cell_size: l.cell_size,
        }
    }
}

/// One block kind of a voxel world, as `ListWorlds` reports it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlockKindBody {
    id: u8,
    name: &'static str,
    /// sRGB 0..255.
    colour: [u8; 3],
    solid: bool,
    occludes: bool,
    jitter: f32,
}

impl From<BlockKindInfo> for BlockKindBody {
    fn from(k: BlockKindInfo) -> Self {
        BlockKindBody {
            id: k.id,
            name: k.name,
            colour: k.colour,
            solid: k.solid,
            occludes: k.occludes,
            jitter: k.jitter,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct WorldsBody {
    worlds: Vec<WorldBody>,
}

#[utoipa::path(
    get,
    path = "/v1/worlds",
    tag = "worlds",
    responses((status = 200, description = "Every hosted world, in configuration order", body = WorldsBody)),
)]
pub async fn list_worlds(State(state): State<Arc<ApiState>>) -> Json<WorldsBody> {
    let worlds = worlds::list(&state.engine)
        .into_iter()
        .map(WorldBody::from)
        .collect();
    Json(WorldsBody { worlds })
}
