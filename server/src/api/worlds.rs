//! What `ListWorlds` reports of each hosted world, read once here for both surfaces
//! (`GET /v1/worlds` and `TerrainService.ListWorlds` each only spell it): the shared
//! model's [`WorldInfo`] (the world's identity and tile grid, its revision and zones at
//! one snapshot, its layout layer, its walkability rule and, for a voxel world, its
//! parameters) and the voxel
//! generator's block kinds ([`block_kinds`]), and the towns its rule's difficulty reads
//! (listed with the rule: `walkability.towns`).

use terrain_core::walk::{Town, WalkRule};
pub use terrain_model::{BlockKindInfo, WorldInfo, WorldLayout, block_kinds};

use crate::{query::QueryEngine, world::World};

/// A world as listed: the shared model's description, and the towns its walkability
/// rule reads (the world's `towns` under the `hyperscape` rule, whose difficulty reads
/// them; empty under every other rule).
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub info: WorldInfo,
    pub towns: Vec<Town>,
}

/// `world` as it stands now.
pub fn info(world: &World) -> Listed {
    let towns = match world.walk_rule() {
        WalkRule::Hyperscape { .. } => world.towns().to_vec(),
        _ => Vec::new(),
    };
    Listed {
        info: description(world),
        towns,
    }
}

/// `world`'s description in the shared model.
fn description(world: &World) -> WorldInfo {
    let state = world.snapshot();
    let grid = world.tile_grid();
    WorldInfo {
        id: world.id().to_string(),
        generator: world.kind().as_str().to_string(),
        seed: world.seed(),
        tile_size: grid.size,
        tile_resolution: grid.resolution,
        revision: state.revision(),
        overlap: state.zones().overlap().as_str().to_string(),
        zones: state.zones().len() as u64,
        layout: world.layout().map(|l| WorldLayout {
            pattern: l.layout.pattern.as_str().to_string(),
            spokes: l.layout.spokes.as_str().to_string(),
            chunk_size: l.layout.chunk_size,
            cell_size: l.layout.cell_size,
        }),
        voxel: world.voxel().copied(),
        walkability: Some(world.walk_rule().clone()),
    }
}

/// Every hosted world, in configuration order.
pub fn list(engine: &QueryEngine) -> Vec<Listed> {
    engine.worlds().iter().map(|w| info(w)).collect()
}
