//! `GET /v1/worlds`: every hosted world ([`crate::api::worlds`]), as JSON.

use std::sync::Arc;

use axum::{Json, extract::State};
use serde::Serialize;
use terrain_core::{
    voxel::VoxelConfig,
    walk::{Town, WalkRule},
};

use crate::api::{
    ApiState,
    worlds::{self, BlockKindInfo, Listed, WorldLayout},
};

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorldBody {
    id: String,
    #[schema(example = "osrs")]
    generator: String,
    seed: u32,
    tile_size: f64,
    tile_resolution: u32,
    revision: u64,
    #[schema(example = "priority")]
    overlap: String,
    zones: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    layout: Option<WorldLayoutBody>,
    /// A voxel world's parameters: its `[worlds.voxel]` table, keys in lowerCamelCase.
    #[serde(skip_serializing_if = "Option::is_none")]
    voxel: Option<VoxelBody>,
    /// A voxel world's block kinds, in id order.
    #[serde(skip_serializing_if = "Option::is_none")]
    block_kinds: Option<Vec<BlockKindBody>>,
    /// The walkability rule the world judges movement by, every parameter it reads
    /// (what a client needs to judge movement locally with the same answers). Every
    /// world this server hosts has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    walkability: Option<WalkRuleBody>,
}

/// A world's walkability rule (see the movement chapter).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WalkRuleBody {
    /// `hyperscape`, `slope`, `max-slope` or `block-step`.
    #[schema(example = "block-step")]
    name: &'static str,
    /// `hyperscape` and `slope`: each biome's largest walkable slope, sorted by id (a
    /// biome not listed has no limit); empty for the other rules.
    biomes: Vec<BiomeSlopeBody>,
    /// Ground strictly below this height is under water; `null`: no water.
    water_level: Option<f64>,
    /// `max-slope`: the one slope limit (rise over run); `null` for the other rules.
    max_slope: Option<f64>,
    /// `block-step`: the largest rise of one move between neighbouring columns, in
    /// blocks; `null` for the other rules.
    max_step: Option<f64>,
    /// `hyperscape`: the towns terrain info's difficulty fades in from (config
    /// `towns`); empty for the other rules.
    towns: Vec<TownBody>,
}

/// One biome's largest walkable slope and difficulty tier.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BiomeSlopeBody {
    #[schema(example = "swamp")]
    id: String,
    max_slope: f64,
    /// The biome's difficulty tier (the manifest's `difficulty`); `null` where the
    /// manifest gives none (the biome is safe).
    difficulty: Option<f64>,
}

/// A town: difficulty is 0 within `radius` metres of its centre and fades in over the
/// next 300 m.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TownBody {
    x: f64,
    z: f64,
    radius: f64,
}

impl WalkRuleBody {
    /// `rule` with `towns`.
    fn new(rule: &WalkRule, towns: &[Town]) -> Self {
        WalkRuleBody {
            name: rule.name(),
            biomes: rule
                .biome_limits()
                .map(|l| {
                    let tiers: std::collections::BTreeMap<&str, f64> =
                        l.difficulty_entries().collect();
                    l.entries()
                        .map(|(id, max_slope)| BiomeSlopeBody {
                            id: id.to_string(),
                            max_slope,
                            difficulty: tiers.get(id).copied(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            water_level: rule.water_level(),
            max_slope: rule.max_slope(),
            max_step: rule.max_step(),
            towns: towns
                .iter()
                .map(|t| TownBody {
                    x: t.x,
                    z: t.z,
                    radius: t.radius,
                })
                .collect(),
        }
    }
}

impl From<Listed> for WorldBody {
    fn from(listed: Listed) -> Self {
        let w = listed.info;
        let walkability = w
            .walkability
            .as_ref()
            .map(|r| WalkRuleBody::new(r, &listed.towns));
        WorldBody {
            walkability,
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
            voxel: w.voxel.map(VoxelBody::from),
        }
    }
}

/// A voxel world's parameters (see `[worlds.voxel]` in the configuration).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VoxelBody {
    max_height: u32,
    sea_level: u32,
    base_height: u32,
    amplitude: u32,
    scale: f64,
    warp: f64,
    erosion_iterations: u32,
    talus_threshold: u32,
    /// `null`: derived from the seed, per region of `biomeRegion` blocks.
    #[schema(example = "temperate")]
    primary_biome: Option<&'static str>,
    biome_region: u32,
    patch_scale: f64,
    patch_threshold: f64,
    river_scale: f64,
    river_width: f64,
}

impl From<VoxelConfig> for VoxelBody {
    fn from(c: VoxelConfig) -> Self {
        VoxelBody {
            max_height: c.max_height,
            sea_level: c.sea_level,
            base_height: c.base_height,
            amplitude: c.amplitude,
            scale: c.scale,
            warp: c.warp,
            erosion_iterations: c.erosion_iterations,
            talus_threshold: c.talus_threshold,
            primary_biome: c.primary_biome.map(|b| b.name()),
            biome_region: c.biome_region,
            patch_scale: c.patch_scale,
            patch_threshold: c.patch_threshold,
            river_scale: c.river_scale,
            river_width: c.river_width,
        }
    }
}

/// A world's layout layer, as `ListWorlds` reports it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorldLayoutBody {
    pattern: String,
    spokes: String,
    chunk_size: f64,
    cell_size: f64,
}

impl From<WorldLayout> for WorldLayoutBody {
    fn from(l: WorldLayout) -> Self {
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
