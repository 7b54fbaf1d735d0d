//! [`LiveBudget`]: the bound on live tiles that keeps the mesh cache's promise.
//!
//! A tile is held from the moment a viewer's active ring takes it until it is culled,
//! and its mesh is pinned in the cache meanwhile (`crate::mesh`), so a mesh asked for
//! right after its tile turned active is always a hit. Pinned meshes must fit in
//! memory: the held tiles of every world together may take at most
//! `mesh_cache_bytes` of meshes (each world's tiles at the size of one of its tile
//! meshes). A viewer whose active ring would take the worlds over that is refused
//! (`RESOURCE_EXHAUSTED`, HTTP 429, naming `viewWidth`), saying how many tiles it
//! needs and how many fit; nothing changes.
//!
//! Worlds check against the others' counts as last published, without a lock across
//! worlds: two worlds admitting views at the same instant may overshoot by those views.

use std::{collections::HashMap, sync::Mutex};

use crate::sync::locked;

/// The shared budget of held tiles, in mesh bytes.
#[derive(Debug)]
pub struct LiveBudget {
    limit: u64,
    /// Per world: tiles held and the bytes of one of its tile meshes.
    held: Mutex<HashMap<String, (usize, u64)>>,
}

/// A view the budget cannot hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    /// Tiles this world would hold with the view.
    pub tiles: usize,
    /// Tiles of this world that fit, given what the other worlds hold.
    pub fit: usize,
    /// The budget, in bytes.
    pub limit: u64,
}

impl LiveBudget {
    /// A budget of `limit` bytes of live tile meshes.
    pub fn new(limit: u64) -> Self {
        LiveBudget {
            limit,
            held: Mutex::default(),
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, (usize, u64)>> {
        locked(&self.held)
    }

    /// Whether `world` may hold `tiles` tiles of `tile_bytes` each.
    pub fn admit(&self, world: &str, tiles: usize, tile_bytes: u64) -> Result<(), OverBudget> {
        let others: u64 = self
            .held()
            .iter()
            .filter(|(id, _)| id.as_str() != world)
            .map(|(_, &(n, bytes))| n as u64 * bytes)
            .sum();
        let room = self.limit.saturating_sub(others);
        let fit = usize::try_from(room / tile_bytes.max(1)).unwrap_or(usize::MAX);
        if tiles <= fit {
            Ok(())
        } else {
            Err(OverBudget {
                tiles,
                fit,
                limit: self.limit,
            })
        }
    }

    /// Records that `world` holds `tiles` tiles of `tile_bytes` each.
    pub fn set(&self, world: &str, tiles: usize, tile_bytes: u64) {
        self.held().insert(world.to_string(), (tiles, tile_bytes));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worlds_share_the_budget() {
        let budget = LiveBudget::new(1000);
        assert_eq!(budget.admit("a", 10, 100), Ok(()));
        assert!(budget.admit("a", 11, 100).is_err());
        budget.set("a", 6, 100);
        // b has 400 bytes left: 4 tiles of 100, or 2 of 200.
        assert_eq!(budget.admit("b", 2, 200), Ok(()));
        assert_eq!(
            budget.admit("b", 3, 200),
            Err(OverBudget {
                tiles: 3,
                fit: 2,
                limit: 1000
            })
        );
        // A world's own count is replaced, not added to.
        assert_eq!(budget.admit("a", 10, 100), Ok(()));
        budget.set("a", 0, 100);
        assert_eq!(budget.admit("b", 5, 200), Ok(()));
    }
}
