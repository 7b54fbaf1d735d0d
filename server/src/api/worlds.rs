//! What `ListWorlds` reports of each hosted world, read once here for both surfaces
//! (`GET /v1/worlds` and `TerrainService.ListWorlds` each only spell it): the world's
//! identity and tile grid, its revision and zones at one snapshot, its layout layer and,
//! for a voxel world, its parameters and the block kinds.

use terrain_core::voxel::{BlockKind, VoxelConfig};

use crate::{query::QueryEngine, world::World};

/// One hosted world.
#[derive(Debug, Clone)]
pub struct WorldInfo {
    pub id: String,
    pub generator: &'static str,
    pub seed: u32,
    pub tile_size: f64,
    pub tile_resolution: u32,
    /// The revision and zone figures are read from one snapshot.
    pub revision: u64,
    pub overlap: &'static str,
    pub zones: usize,
    pub layout: Option<LayoutInfo>,
    /// A voxel world's parameters (its block kinds are [`block_kinds`]).
    pub voxel: Option<VoxelConfig>,
}

/// A world's layout layer.
#[derive(Debug, Clone, Copy)]
pub struct LayoutInfo {
    pub pattern: &'static str,
    pub spokes: &'static str,
    pub chunk_size: f64,
    pub cell_size: f64,
}

/// One block kind of the voxel generator.
#[derive(Debug, Clone, Copy)]
pub struct BlockKindInfo {
    pub id: u8,
    pub name: &'static str,
    /// sRGB 0..255.
    pub colour: [u8; 3],
    pub solid: bool,
    pub occludes: bool,
    pub jitter: f32,
}

impl WorldInfo {
    /// `world` as it stands now.
    pub fn of(world: &World) -> Self {
        let state = world.snapshot();
        let grid = world.tile_grid();
        WorldInfo {
            id: world.id().to_string(),
            generator: world.kind().as_str(),
            seed: world.seed(),
            tile_size: grid.size,
            tile_resolution: grid.resolution,
            revision: state.revision(),
            overlap: state.zones().overlap().as_str(),
            zones: state.zones().len(),
            layout: world.layout().map(|l| LayoutInfo {
                pattern: l.layout.pattern.as_str(),
                spokes: l.layout.spokes.as_str(),
                chunk_size: l.layout.chunk_size,
                cell_size: l.layout.cell_size,
            }),
            voxel: world.voxel().copied(),
        }
    }
}

/// Every hosted world, in configuration order.
pub fn list(engine: &QueryEngine) -> Vec<WorldInfo> {
    engine.worlds().iter().map(|w| WorldInfo::of(w)).collect()
}

/// The voxel generator's block kinds, in id order.
pub fn block_kinds() -> Vec<BlockKindInfo> {
    BlockKind::ALL
        .iter()
        .map(|&kind| {
            let info = kind.info();
            BlockKindInfo {
                id: kind.id(),
                name: kind.name(),
                colour: info.colour,
                solid: info.solid,
                occludes: info.occludes,
                jitter: info.jitter,
            }
        })
        .collect()
}
