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

use terrain_core::{FlatZone, TileGrid, TileRect};
use terrain_model::{ChangedTiles, TILE_LIST_MAX};

use super::registry::changed_tiles;
use crate::store::{Mutation, MutationKind};

/// Per-tile versions of one world. Only touched tiles are stored: one entry per
/// tile for rectangles of at most [`TILE_LIST_MAX`] tiles, and one layer per larger
/// rectangle (a 10 km zone on 32 m tiles covers up to 880,000 tiles; its versions
/// take one layer, not a map of that many entries).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TileVersions {
    touched: HashMap<(i64, i64), u64>,
    /// Large rectangles and the revision that touched them. A layer inside a later
    /// one is dropped (the later revision wins everywhere in it), and so are the
    /// per-tile entries it covers.
    layers: Vec<(TileRect, u64)>,
}

impl TileVersions {
    /// The version of `tile`: the revision of the last change that touched it, or 0.
    pub fn get(&self, tile: (i64, i64)) -> u64 {
        let listed = self.touched.get(&tile).copied().unwrap_or(0);
        self.layers
            .iter()
            .filter(|(r, _)| r.contains(tile))
            .fold(listed, |v, &(_, revision)| v.max(revision))
    }

    /// The newest version of any tile of `rect`: by tile for a rectangle of fewer tiles
    /// than the listed entries, otherwise by one pass over the entries (a tileset's root
    /// covers 16,384 tiles; a world with few zones lists a few hundred).
    pub fn newest_in(&self, rect: &TileRect) -> u64 {
        let layered = self
            .layers
            .iter()
            .filter(|(r, _)| r.intersects(rect))
            .map(|&(_, v)| v)
            .max()
            .unwrap_or(0);
        let listed = if rect.len() <= self.touched.len() as u64 {
            rect.tiles()
                .filter_map(|t| self.touched.get(&t).copied())
                .max()
        } else {
            self.touched
                .iter()
                .filter(|(t, _)| rect.contains(**t))
                .map(|(_, &v)| v)
                .max()
        };
        layered.max(listed.unwrap_or(0))
    }

    /// Marks the tiles of `changed` as touched by `revision` (later than any before).
    pub fn touch(&mut self, changed: &ChangedTiles, revision: u64) {
        for rect in &changed.rects {
            self.raise(rect, revision);
        }
    }

    /// Raises the tiles of `rect` to at least `revision`.
    fn raise(&mut self, rect: &TileRect, revision: u64) {
        if rect.len() <= TILE_LIST_MAX {
            for tile in rect.tiles() {
                let version = self.touched.entry(tile).or_insert(0);
                *version = (*version).max(revision);
            }
            return;
        }
        let inside = |a: &TileRect, b: &TileRect| {
            a.min_tx >= b.min_tx
                && a.max_tx <= b.max_tx
                && a.min_tz >= b.min_tz
                && a.max_tz <= b.max_tz
        };
        if self
            .layers
            .iter()
            .any(|(r, v)| *v >= revision && inside(rect, r))
        {
            return;
        }
        self.layers
            .retain(|(r, v)| !(*v <= revision && inside(r, rect)));
        let before = self.touched.len();
        self.touched
            .retain(|&t, v| !(*v <= revision && rect.contains(t)));
        if self.touched.len() * 4 < before {
            self.touched.shrink_to_fit();
        }
        self.layers.push((*rect, revision));
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
            for rect in &changed_tiles(layout, [zone]).rects {
                self.raise(rect, revision);
            }
        }
    }

    /// How many tiles some change has touched.
    pub fn len(&self) -> u64 {
        let layered = ChangedTiles::new(self.layers.iter().map(|&(r, _)| r));
        let listed = self
            .touched
            .keys()
            .filter(|&&t| !layered.contains(t))
            .count() as u64;
        listed + layered.count
    }

    /// True when no change has touched any tile.
    pub fn is_empty(&self) -> bool {
        self.touched.is_empty() && self.layers.is_empty()
    }

    /// What the versions hold: per-tile entries and large layers.
    pub fn entries(&self) -> (usize, usize) {
        (self.touched.len(), self.layers.len())
    }

    /// Replays a mutation log (in revision order) over `layout`: each entry touches
    /// the tiles of its zone and of the zone it replaced.
    pub fn replay(layout: &TileGrid, log: &[(u64, Mutation)]) -> Self {
        let mut versions = TileVersions::default();
        let mut live: HashMap<&str, &FlatZone> = HashMap::new();
        for (revision, mutation) in log {
            let zone = &mutation.zone;
            let old = live.get(zone.id.as_str()).copied();
            let changed = changed_tiles(layout, old.into_iter().chain([zone]));
            versions.touch(&changed, *revision);
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
    fn the_newest_version_in_a_rectangle_is_its_tiles_newest() {
        let rect = |min_tx, min_tz, max_tx, max_tz| TileRect {
            min_tx,
            min_tz,
            max_tx,
            max_tz,
        };
        let mut v = TileVersions::default();
        v.touch(&ChangedTiles::new([rect(0, 0, 1, 1)]), 3);
        v.touch(&ChangedTiles::new([rect(5, 5, 5, 5)]), 4);
        // Larger than TILE_LIST_MAX: a layer.
        v.touch(&ChangedTiles::new([rect(-100, 20, 100, 40)]), 7);
        for (r, want) in [
            (rect(0, 0, 0, 0), 3),
            (rect(-10, -10, 10, 10), 4),
            (rect(2, 2, 4, 4), 0),
            (rect(6, 6, 200, 19), 0),
            (rect(6, 6, 200, 20), 7),
            (rect(-1000, -1000, 1000, 1000), 7),
        ] {
            let by_tile = r.tiles().map(|t| v.get(t)).max().unwrap_or(0);
            assert_eq!(v.newest_in(&r), want, "{r:?}");
            assert_eq!(by_tile, want, "{r:?}");
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

    /// A zone of the largest legal size on 32 m tiles takes one layer, not 880,000
    /// entries; versions inside and outside it, and after later changes over it, are
    /// what a per-tile map would say (the brute-force oracle).
    #[test]
    fn large_changes_take_one_layer() {
        let voxel = TileGrid {
            size: 32.0,
            resolution: 33,
            centred: false,
        };
        let mut big = zone(0.0);
        big.id = "big".into();
        big.shape = terrain_core::zones::Shape::Rect {
            width: 10_000.0,
            depth: 10_000.0,
        };
        big.blend_radius = 10_000.0;
        let mut v = TileVersions::default();
        let mut oracle: HashMap<(i64, i64), u64> = HashMap::new();
        let mut step = |v: &mut TileVersions, zone: &FlatZone, revision: u64| {
            let changed = changed_tiles(&voxel, [zone]);
            for tile in
                voxel.tiles_touching(&zone.outer_bounds(), super::super::registry::TILE_MARGIN)
            {
                oracle.insert(tile, revision);
            }
            v.touch(&changed, revision);
        };
        step(&mut v, &zone(40.0), 1);
        step(&mut v, &big, 2);
        step(&mut v, &zone(100.0), 3);
        let mut moved = big.clone();
        moved.center_x = 3_000.0;
        step(&mut v, &moved, 4);
        assert!(
            v.entries().0 <= 256 && v.entries().1 <= 2,
            "{:?}",
            v.entries()
        );
        assert_eq!(v.len(), oracle.len() as u64);
        for tx in (-600..700).step_by(7) {
            for tz in (-600..600).step_by(11) {
                let want = oracle.get(&(tx, tz)).copied().unwrap_or(0);
                assert_eq!(v.get((tx, tz)), want, "({tx}, {tz})");
            }
        }
        for tile in [(1, 0), (3, 0), (-469, -469), (562, 468), (563, 0)] {
            assert_eq!(
                v.get(tile),
                oracle.get(&tile).copied().unwrap_or(0),
                "{tile:?}"
            );
        }
        // Covering with the same zone at a later revision folds into one layer.
        v.cover(&voxel, [(&moved, 9)]);
        assert_eq!(v.get((100, 0)), 9);
        assert!(v.entries().1 <= 2);
    }
}
