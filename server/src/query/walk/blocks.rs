//! Walkability grids kept across requests: the blocks of 64 x 64 movement tiles
//! ([`WalkGrid`]) that path checks and searches judge tiles from, by world, block and
//! the newest version of the terrain tiles the block reads (its tiles and the 1 m
//! around them that their slopes sample). A change gives new versions to exactly the
//! tiles its event names, so the blocks over them are built again at their new version
//! and blocks elsewhere stay hits; entries of old versions age out of the budget.
//!
//! Searches build every block they enter (they judge most of its tiles). Path checks
//! cross a few tiles of each block, so a check judges the tiles of a block nobody kept
//! one by one the first time it meets that block, and builds it the second time
//! (within [`ASKED_FOR`]): ground entities keep walking over is judged from grids,
//! ground crossed once is not paid for as a whole block.
//!
//! Weighed by their bytes within an eighth of `limits.mesh_cache_bytes`.

use std::{sync::Arc, time::Duration};

use moka::sync::Cache;
use terrain_core::{
    TileGrid,
    walk::{BlockStore, WalkGrid, grid::BLOCK},
    zones::Bounds,
};

use crate::{
    metrics::Metrics,
    world::{World, WorldState},
};

/// A block by world, block index and the newest version of the tiles it reads.
type BlockKey = (Arc<str>, (i64, i64), u64);

/// How long a block a path check met once is remembered: a second check over it
/// within this builds it.
pub const ASKED_FOR: Duration = Duration::from_secs(60);

/// Blocks of movement tiles of every world, kept across requests (clones share them).
#[derive(Clone)]
pub struct WalkBlocks {
    grids: Cache<BlockKey, Arc<WalkGrid>>,
    /// Blocks a path check met and did not build.
    asked: Cache<BlockKey, ()>,
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for WalkBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not moka's Debug, which lists every entry.
        f.debug_struct("WalkBlocks")
            .field("blocks", &self.grids.entry_count())
            .field("bytes", &self.grids.weighted_size())
            .finish_non_exhaustive()
    }
}

impl WalkBlocks {
    /// A cache of at most `budget` bytes of blocks.
    pub fn new(budget: usize, metrics: Arc<Metrics>) -> Self {
        WalkBlocks {
            grids: Cache::builder()
                .name("walk-grids")
                .max_capacity(budget as u64)
                .weigher(|_: &BlockKey, grid: &Arc<WalkGrid>| {
                    u32::try_from(grid.bytes()).unwrap_or(u32::MAX)
                })
                .build(),
            asked: Cache::builder()
                .name("walk-grids-asked")
                .max_capacity(65_536)
                .time_to_live(ASKED_FOR)
                .build(),
            metrics,
        }
    }

    /// The store one query of `world` over `state` (the world's current snapshot)
    /// lends its [`terrain_core::walk::WalkGrids`].
    pub fn store<'a>(&'a self, world: &World, state: &'a WorldState) -> WorldBlocks<'a> {
        WorldBlocks {
            blocks: self,
            world: Arc::from(world.id()),
            grid: world.tile_grid(),
            state,
        }
    }
}

/// [`WalkBlocks`] for one query: one world at one snapshot.
#[derive(Debug)]
pub struct WorldBlocks<'a> {
    blocks: &'a WalkBlocks,
    world: Arc<str>,
    grid: TileGrid,
    state: &'a WorldState,
}

impl WorldBlocks<'_> {
    fn key(&self, (bx, bz): (i64, i64)) -> BlockKey {
        // The block's tiles span `BLOCK` metres from its corner; their slopes sample
        // 1 m beyond.
        let (x0, z0) = ((bx * BLOCK) as f64, (bz * BLOCK) as f64);
        let reads = Bounds {
            min_x: x0 - 1.0,
            min_z: z0 - 1.0,
            max_x: x0 + BLOCK as f64 + 1.0,
            max_z: z0 + BLOCK as f64 + 1.0,
        };
        let version = self
            .state
            .newest_tile_version(&self.grid.rect_touching(&reads, 0.0));
        (Arc::clone(&self.world), (bx, bz), version)
    }
}

impl BlockStore for WorldBlocks<'_> {
    fn get(&self, block: (i64, i64)) -> Option<Arc<WalkGrid>> {
        let grid = self.blocks.grids.get(&self.key(block))?;
        self.blocks.metrics.walk_grid(&self.world, false);
        Some(grid)
    }

    fn put(&self, block: (i64, i64), grid: Arc<WalkGrid>) {
        let key = self.key(block);
        self.blocks.asked.invalidate(&key);
        self.blocks.grids.insert(key, grid);
        self.blocks.metrics.walk_grid(&self.world, true);
    }

    fn wants(&self, block: (i64, i64)) -> bool {
        let key = self.key(block);
        if self.blocks.asked.contains_key(&key) {
            return true;
        }
        self.blocks.asked.insert(key, ());
        false
    }
}
