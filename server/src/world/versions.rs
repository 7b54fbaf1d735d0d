//! Tile versions: for each mesh tile, the revision of the last change that touched it
//! (0 for a tile no change has touched).
//!
//! The versions live in [`super::WorldState`] beside the zones, and the registry
//! updates them in the same new snapshot that installs a change, so a reader always
//! sees heights and versions of the same revision: a mesh can never be labelled with a
//! version older than the heights it was built from.
//!
//! At start-up they are rebuilt from the world's mutation log: each mutation touches
//! the tiles of its zone and, for a replacement, of the zone it replaced (what
//! [`super::registry::changed_tiles`] reported when it was accepted).

use std::collections::HashMap;

use terrain_core::{FlatZone, TileGrid};

use super::registry::changed_tiles;
use crate::store::{Mutation, MutationKind};

/// Per-tile versions of one world. Only touched tiles are stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TileVersions {
    touched: HashMap<(i64, i64), u64>,
}

impl TileVersions {
    /// The version of `tile`: the revision of the last change that touched it, or 0.
    pub fn get(&self, tile: (i64, i64)) -> u64 {
        self.touched.get(&tile).copied().unwrap_or(0)
    }

    /// Marks `tiles` as touched by `revision`.
    pub fn touch(&mut self, tiles: &[(i64, i64)], revision: u64) {
        for &tile in tiles {
            self.touched.insert(tile, revision);
        }
    }

    /// Raises the tiles of each of `zones` to at least the revision that registered
    /// it: zones whose log entries were pruned (or restored from a backup, with no log)
    /// still mark the tiles they shape, so no tile they changed reads as version 0.
    pub fn cover<'a>(
        &mut self,
        layout: &TileGrid,
        zones: impl IntoIterator<Item = (&'a FlatZone, u64)>,
    ) {
        for (zone, revision) in zones {
            for tile in super::registry::changed_tiles(layout, [zone]) {
                let version = self.touched.entry(tile).or_insert(0);
                *version = (*version).max(revision);
            }
        }
    }

    /// How many tiles some change has touched.
    pub fn len(&self) -> usize {
        self.touched.len()
    }

    /// True when no change has touched any tile.
    pub fn is_empty(&self) -> bool {
        self.touched.is_empty()
    }

    /// Replays a mutation log (in revision order) over `layout`: each entry touches
    /// the tiles of its zone and of the zone it replaced.
    pub fn replay(layout: &TileGrid, log: &[(u64, Mutation)]) -> Self {
        let mut versions = TileVersions::default();
        let mut live: HashMap<&str, &FlatZone> = HashMap::new();
        for (revision, mutation) in log {
            let zone = &mutation.zone;
            let old = live.get(zone.id.as_str()).copied();
            let tiles = changed_tiles(layout, old.into_iter().chain([zone]));
            versions.touch(&tiles, *revision);
            match mutation.kind {
                MutationKind::Removed => {
                    live.remove(zone.id.as_str());
                }
                MutationKind::Registered | MutationKind::Replaced => {
                    live.insert(zone.id.as_str(), zone);
                }
            }
        }
        versions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::square_zone as zone;

    fn mutation(kind: MutationKind, x: f64) -> Mutation {
        Mutation {
            kind,
            zone: zone(x),
        }
    }

    #[test]
    fn replay_follows_replacements_and_removals() {
        let layout = TileGrid {
            size: 100.0,
            resolution: 64,
            centred: true,
        };
        let log = [
            (1, mutation(MutationKind::Registered, 0.0)),
            (2, mutation(MutationKind::Replaced, 300.0)),
            (3, mutation(MutationKind::Removed, 300.0)),
        ];
        let v = TileVersions::replay(&layout, &log);
        // Replacing moved the zone away from (0, 0): revision 2 touched both tiles.
        assert_eq!(v.get((0, 0)), 2);
        assert_eq!(v.get((3, 0)), 3);
        assert_eq!(v.get((1, 0)), 0);
        assert_eq!(v.len(), 2);
    }
}
