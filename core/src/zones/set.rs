//! [`ZoneSet`]: the zones of one world, a tile-keyed spatial index over them, and the
//! two overlap rules that turn the zones reaching a point into one height.

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashMap;

use super::model::{Bounds, FlatZone, Reach};
use crate::generator::hyperscape::smooth;

/// How overlapping zones combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overlap {
    /// Zones apply in (priority, registration revision) order, each blending toward
    /// the height beneath it: continuous everywhere, and the core of the topmost zone
    /// at a point is exactly flat.
    #[default]
    Layered,
    /// The original game's rule (ALGORITHM.md §8.5): any core beats any blend; among
    /// cores the smallest normalised distance, among blends the smallest blend factor;
    /// ties go to the zone met first in the original's 3x3 tile scan.
    Hyperscape,
}

crate::names::named_enum!(Overlap, "overlap rule", {
    Layered => "layered",
    Hyperscape => "hyperscape",
});

/// A registered zone and when it was registered.
#[derive(Debug, Clone)]
struct Entry {
    zone: FlatZone,
    /// The world revision that registered (or last replaced) the zone: the layered
    /// order among equal priorities.
    revision: u64,
    /// The index tiles the zone is listed in (inclusive ranges).
    tiles: TileRange,
    /// The zone's outer bounds, kept for the `near` test.
    outer: Bounds,
}

impl Entry {
    /// True when the outer bounds grown by `margin` contain `(x, z)`.
    #[inline]
    fn near(&self, x: f64, z: f64, margin: f64) -> bool {
        let b = &self.outer;
        x >= b.min_x - margin
            && x <= b.max_x + margin
            && z >= b.min_z - margin
            && z <= b.max_z + margin
    }
}

/// What the zones say about a point, from one index lookup.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lookup<'a> {
    /// A zone reaches the point and decides its height.
    Zone(ZoneSample<'a>),
    /// No zone reaches the point, but one lies within the margin: samples the
    /// generator reads around the point may fall in it.
    Near,
    /// No zone within the margin.
    Clear,
}

/// An inclusive rectangle of index tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TileRange {
    x0: i64,
    x1: i64,
    z0: i64,
    z1: i64,
}

impl TileRange {
    fn contains(&self, tx: i64, tz: i64) -> bool {
        (self.x0..=self.x1).contains(&tx) && (self.z0..=self.z1).contains(&tz)
    }
}

/// What decided the height at a point that a zone reaches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoneSample<'a> {
    pub height: f64,
    /// The deciding zone: the winner (hyperscape) or the topmost zone (layered).
    pub zone: &'a FlatZone,
    /// How the deciding zone reaches the point.
    pub reach: Reach,
}

/// The zones of one world with a tile-keyed index, so a lookup touches only the zones
/// listed in the point's index tile: O(1) in the number of zones elsewhere.
///
/// Index tiles follow the original game's convention: tile `t` holds coordinates in
/// `[(t - 0.5) * size, (t + 0.5) * size)`, and a zone is listed in every tile from
/// `floor((c - R)/size + 0.5)` to `floor((c + R)/size + 0.5)` on each axis, `R` being
/// its larger half extent plus its blend radius.
#[derive(Debug, Clone)]
pub struct ZoneSet {
    overlap: Overlap,
    tile_size: f64,
    /// Slots; a removed zone leaves `None` until the slot is reused.
    entries: Vec<Option<Entry>>,
    free: Vec<u32>,
    by_id: HashMap<String, u32>,
    /// Registration order (ascending revision) for listings.
    by_revision: BTreeMap<u64, u32>,
    /// Tile key -> slots, in registration order. Fx hashing: the keys come from
    /// registered zones, and a lookup's hash is a third of its cost with SipHash.
    index: FxHashMap<(i64, i64), Vec<u32>>,
}

impl ZoneSet {
    /// An empty set combining zones by `overlap`, indexed by tiles of `tile_size`.
    pub fn new(overlap: Overlap, tile_size: f64) -> Self {
        ZoneSet {
            overlap,
            tile_size,
            entries: Vec::new(),
            free: Vec::new(),
            by_id: HashMap::new(),
            by_revision: BTreeMap::new(),
            index: FxHashMap::default(),
        }
    }

    pub fn overlap(&self) -> Overlap {
        self.overlap
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The number of (tile, zone) entries in the index.
    pub fn index_entries(&self) -> usize {
        self.index.values().map(Vec::len).sum()
    }

    /// The number of index tiles that list at least one zone.
    pub fn index_tiles(&self) -> usize {
        self.index.len()
    }

    pub fn get(&self, id: &str) -> Option<&FlatZone> {
        self.by_id
            .get(id)
            .and_then(|&s| self.entry(s))
            .map(|e| &e.zone)
    }

    /// The revision that registered (or last replaced) zone `id`.
    pub fn revision_of(&self, id: &str) -> Option<u64> {
        self.by_id
            .get(id)
            .and_then(|&s| self.entry(s))
            .map(|e| e.revision)
    }

    /// Every zone with its registration revision, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = (&FlatZone, u64)> + '_ {
        self.by_revision
            .iter()
            .filter_map(|(&rev, &s)| self.entry(s).map(|e| (&e.zone, rev)))
    }

    fn entry(&self, slot: u32) -> Option<&Entry> {
        self.entries.get(slot as usize).and_then(Option::as_ref)
    }

    /// The index tile holding coordinate `c`.
    #[inline]
    pub fn tile_of(&self, c: f64) -> i64 {
        // floor, exact for |v| < 2^63 (coordinates are far smaller).
        let v = c / self.tile_size + 0.5;
        let t = v as i64;
        if (t as f64) > v { t - 1 } else { t }
    }

    fn tile_range(&self, zone: &FlatZone) -> TileRange {
        let (hw, hd) = zone.half_extents();
        let r = hw.max(hd) + zone.blend_radius;
        TileRange {
            x0: self.tile_of(zone.center_x - r),
            x1: self.tile_of(zone.center_x + r),
            z0: self.tile_of(zone.center_z - r),
            z1: self.tile_of(zone.center_z + r),
        }
    }

    /// Registers `zone` at `revision`, replacing any zone with the same id (which
    /// is returned). The zone must be valid (see `ZoneSpec::validate`).
    pub fn insert(&mut self, zone: FlatZone, revision: u64) -> Option<FlatZone> {
        let old = self.remove(&zone.id);
        let tiles = self.tile_range(&zone);
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.entries.push(None);
                (self.entries.len() - 1) as u32
            }
        };
        for tx in tiles.x0..=tiles.x1 {
            for tz in tiles.z0..=tiles.z1 {
                self.index.entry((tx, tz)).or_default().push(slot);
            }
        }
        self.by_id.insert(zone.id.clone(), slot);
        self.by_revision.insert(revision, slot);
        let outer = zone.outer_bounds();
        self.entries[slot as usize] = Some(Entry {
            zone,
            revision,
            tiles,
            outer,
        });
        old
    }

    /// Removes zone `id` from the set and from every index tile it was listed in.
    pub fn remove(&mut self, id: &str) -> Option<FlatZone> {
        let slot = self.by_id.remove(id)?;
        let entry = self.entries.get_mut(slot as usize)?.take()?;
        let t = entry.tiles;
        for tx in t.x0..=t.x1 {
            for tz in t.z0..=t.z1 {
                if let Some(list) = self.index.get_mut(&(tx, tz)) {
                    list.retain(|&s| s != slot);
                    if list.is_empty() {
                        self.index.remove(&(tx, tz));
                    }
                }
            }
        }
        self.by_revision.remove(&entry.revision);
        self.free.push(slot);
        Some(entry.zone)
    }

    /// The zones listed in the index tile of `(x, z)`, in registration order.
    #[inline]
    fn candidates(&self, x: f64, z: f64) -> &[u32] {
        if self.index.is_empty() {
            return &[];
        }
        self.index
            .get(&(self.tile_of(x), self.tile_of(z)))
            .map_or(&[], Vec::as_slice)
    }

    /// True when some zone's outer bounds, grown by `margin`, contain `(x, z)`: the
    /// point or a sample within `margin` of it may read a zone.
    pub fn near(&self, x: f64, z: f64, margin: f64) -> bool {
        if self.index.is_empty() {
            return false;
        }
        for tx in self.tile_of(x - margin)..=self.tile_of(x + margin) {
            for tz in self.tile_of(z - margin)..=self.tile_of(z + margin) {
                let Some(list) = self.index.get(&(tx, tz)) else {
                    continue;
                };
                if list
                    .iter()
                    .filter_map(|&s| self.entry(s))
                    .any(|e| e.near(x, z, margin))
                {
                    return true;
                }
            }
        }
        false
    }

    /// [`ZoneSet::sample`] and [`ZoneSet::near`] from one index lookup where the
    /// margin stays inside the point's tile (the common case).
    #[inline]
    pub fn lookup(
        &self,
        x: f64,
        z: f64,
        margin: f64,
        terrain: impl FnOnce(f64, f64) -> f64,
    ) -> Lookup<'_> {
        let candidates = self.candidates(x, z);
        if !candidates.is_empty() {
            if let Some(s) = self.sample_in(candidates, x, z, terrain) {
                return Lookup::Zone(s);
            }
            if candidates
                .iter()
                .filter_map(|&s| self.entry(s))
                .any(|e| e.near(x, z, margin))
            {
                return Lookup::Near;
            }
        }
        let (tx, tz) = (self.tile_of(x), self.tile_of(z));
        let inside =
            |c: f64, t: i64| self.tile_of(c - margin) == t && self.tile_of(c + margin) == t;
        if inside(x, tx) && inside(z, tz) {
            return Lookup::Clear;
        }
        if self.near(x, z, margin) {
            Lookup::Near
        } else {
            Lookup::Clear
        }
    }

    /// The height the zones give at `(x, z)`, or `None` when no zone reaches it.
    /// `terrain(x, z)` is the height beneath the zones (hyperscape: the procedural
    /// height with mountain boost, no shoreline); it is called at most once.
    #[inline]
    pub fn sample(
        &self,
        x: f64,
        z: f64,
        terrain: impl FnOnce(f64, f64) -> f64,
    ) -> Option<ZoneSample<'_>> {
        let candidates = self.candidates(x, z);
        if candidates.is_empty() {
            return None;
        }
        self.sample_in(candidates, x, z, terrain)
    }

    #[inline]
    fn sample_in(
        &self,
        candidates: &[u32],
        x: f64,
        z: f64,
        terrain: impl FnOnce(f64, f64) -> f64,
    ) -> Option<ZoneSample<'_>> {
        match self.overlap {
            Overlap::Hyperscape => self.sample_hyperscape(candidates, x, z, terrain),
            Overlap::Layered => self.sample_layered(candidates, x, z, terrain),
        }
    }

    /// The zone that decides the height at `(x, z)`, if any (no terrain needed).
    pub fn zone_at(&self, x: f64, z: f64) -> Option<(&FlatZone, Reach)> {
        self.sample(x, z, |_, _| 0.0).map(|s| (s.zone, s.reach))
    }

    /// The original's scan rank of `entry` for a query in tile `(tx, tz)`: the index
    /// of the first tile of the 3x3 scan (dtx outer, dtz inner) that lists it.
    fn scan_block(entry: &Entry, tx: i64, tz: i64) -> u8 {
        let mut k = 0;
        for dtx in -1..=1 {
            for dtz in -1..=1 {
                if entry.tiles.contains(tx + dtx, tz + dtz) {
                    return k;
                }
                k += 1;
            }
        }
        k
    }

    fn sample_hyperscape(
        &self,
        candidates: &[u32],
        x: f64,
        z: f64,
        terrain: impl FnOnce(f64, f64) -> f64,
    ) -> Option<ZoneSample<'_>> {
        let (tx, tz) = (self.tile_of(x), self.tile_of(z));
        // (value, scan rank, entry): smallest value wins, then the earliest met.
        let mut core: Option<(f64, (u8, u64), &Entry)> = None;
        let mut blend: Option<(f64, (u8, u64), &Entry)> = None;
        for &s in candidates {
            let Some(e) = self.entry(s) else { continue };
            let Some(reach) = e.zone.reach(x, z) else {
                continue;
            };
            let rank = (Self::scan_block(e, tx, tz), e.revision);
            let (slot, v) = match reach {
                Reach::Core { distance } => (&mut core, distance),
                Reach::Blend { factor } => (&mut blend, factor),
            };
            if slot.is_none_or(|(bv, br, _)| v < bv || (v == bv && rank < br)) {
                *slot = Some((v, rank, e));
            }
        }
        if let Some((distance, _, e)) = core {
            return Some(ZoneSample {
                height: e.zone.height,
                zone: &e.zone,
                reach: Reach::Core { distance },
            });
        }
        let (factor, _, e) = blend?;
        let t = smooth(factor);
        let p = terrain(x, z);
        let h = e.zone.height;
        Some(ZoneSample {
            height: h + (p - h) * t,
            zone: &e.zone,
            reach: Reach::Blend { factor },
        })
    }

    fn sample_layered(
        &self,
        candidates: &[u32],
        x: f64,
        z: f64,
        terrain: impl FnOnce(f64, f64) -> f64,
    ) -> Option<ZoneSample<'_>> {
        let mut hits: Vec<(&Entry, Reach)> = Vec::new();
        for &s in candidates {
            if let Some(e) = self.entry(s)
                && let Some(r) = e.zone.reach(x, z)
            {
                hits.push((e, r));
            }
        }
        if hits.is_empty() {
            return None;
        }
        hits.sort_by_key(|(e, _)| (e.zone.priority, e.revision));
        // Start from the topmost core: nothing beneath it shows through.
        let start = hits
            .iter()
            .rposition(|(_, r)| matches!(r, Reach::Core { .. }));
        let mut h = match start {
            Some(i) => hits[i].0.zone.height,
            None => terrain(x, z),
        };
        for (e, reach) in &hits[start.map_or(0, |i| i + 1)..] {
            if let Reach::Blend { factor } = *reach {
                let zh = e.zone.height;
                h = zh + (h - zh) * smooth(factor);
            }
        }
        let (top, reach) = hits[hits.len() - 1];
        Some(ZoneSample {
            height: h,
            zone: &top.zone,
            reach,
        })
    }
}
