//! [`ZoneSet`]: the zones of one world, a tile-keyed spatial index over them, and the
//! two overlap rules that turn the zones reaching a point into one height.

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashMap;

use super::model::{Bounds, FlatZone, Reach};
use crate::maths::smooth;

mod area;
pub use area::AreaLookup;

/// How overlapping zones combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overlap {
    /// Zones apply in (priority, registration revision) order, each blending toward
    /// the height beneath it: continuous everywhere, and the core of the topmost zone
    /// at a point is exactly flat.
    #[default]
    Layered,
    /// The original game's rule (docs/src/reference/zones.md, "The hyperscape overlap rule"): any core beats any blend; among
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
    /// The index tiles the zone reaches (inclusive ranges): its candidacy for a
    /// point, and its rank in the original's 3x3 scan.
    tiles: TileRange,
    /// The index level it is listed in (see [`ZoneSet`]).
    level: u8,
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

    /// True when the two ranges share a tile.
    fn meets(&self, o: &TileRange) -> bool {
        self.x0 <= o.x1 && o.x0 <= self.x1 && self.z0 <= o.z1 && o.z0 <= self.z1
    }

    /// This range in cells of `level` (each [`FANOUT`]^level index tiles wide).
    fn at(&self, level: usize) -> TileRange {
        TileRange {
            x0: cell(self.x0, level),
            x1: cell(self.x1, level),
            z0: cell(self.z0, level),
            z1: cell(self.z1, level),
        }
    }

    /// The lowest level whose cells the range spans at most [`SPAN`] of per axis
    /// (the top level for anything larger).
    fn level(&self) -> usize {
        (0..LEVELS)
            .find(|&l| {
                let c = self.at(l);
                c.x1 - c.x0 < SPAN && c.z1 - c.z0 < SPAN
            })
            .unwrap_or(LEVELS - 1)
    }

    fn cells(&self) -> impl Iterator<Item = (i64, i64)> + use<> {
        let (z0, z1) = (self.z0, self.z1);
        (self.x0..=self.x1).flat_map(move |x| (z0..=z1).map(move |z| (x, z)))
    }
}

/// `union` grown to hold `outer` and `tiles`.
fn merged(
    union: Option<(Bounds, TileRange)>,
    outer: Bounds,
    tiles: TileRange,
) -> (Bounds, TileRange) {
    let Some((b, t)) = union else {
        return (outer, tiles);
    };
    (
        Bounds {
            min_x: b.min_x.min(outer.min_x),
            min_z: b.min_z.min(outer.min_z),
            max_x: b.max_x.max(outer.max_x),
            max_z: b.max_z.max(outer.max_z),
        },
        TileRange {
            x0: t.x0.min(tiles.x0),
            x1: t.x1.max(tiles.x1),
            z0: t.z0.min(tiles.z0),
            z1: t.z1.max(tiles.z1),
        },
    )
}

/// Cells per axis of one index level over the level below it.
const FANOUT: i64 = 16;
/// A zone is listed in the lowest level where it spans at most this many cells per
/// axis: at most `SPAN^2` (256) index entries per zone, whatever its size.
const SPAN: i64 = 16;
/// Index levels: level `l`'s cells are `16^l` index tiles wide, so the top level's
/// are 2^20 tiles wide (far wider than any legal zone on any tile grid).
const LEVELS: usize = 6;

/// The cell of `level` holding index tile `t`.
#[inline]
fn cell(t: i64, level: usize) -> i64 {
    t.div_euclid(FANOUT.pow(level as u32))
}

/// One level of the index: cell key -> slots, in registration order.
#[derive(Debug, Clone, Default)]
struct Level {
    /// Fx hashing: the keys come from registered zones, and a lookup's hash is a
    /// third of its cost with SipHash.
    cells: FxHashMap<(i64, i64), Vec<u32>>,
    /// Zones listed in this level: a lookup skips empty levels.
    zones: usize,
}

impl Level {
    fn slots(&self, key: (i64, i64)) -> &[u32] {
        if self.zones == 0 {
            return &[];
        }
        self.cells.get(&key).map_or(&[], Vec::as_slice)
    }
}

/// The zones whose tile range holds one index tile, level by level.
#[derive(Clone)]
struct Candidates<'a> {
    set: &'a ZoneSet,
    tx: i64,
    tz: i64,
    level: usize,
    slots: std::slice::Iter<'a, u32>,
}

impl<'a> Iterator for Candidates<'a> {
    type Item = &'a Entry;

    #[inline]
    fn next(&mut self) -> Option<&'a Entry> {
        loop {
            if let Some(&s) = self.slots.next() {
                match self.set.entry(s) {
                    // Level 0 lists a zone in exactly the tiles of its range.
                    Some(e) if self.level == 0 || e.tiles.contains(self.tx, self.tz) => {
                        return Some(e);
                    }
                    _ => continue,
                }
            }
            self.level += 1;
            if self.level >= LEVELS || self.set.upper == 0 {
                return None;
            }
            let key = (cell(self.tx, self.level), cell(self.tz, self.level));
            self.slots = self.set.levels[self.level].slots(key).iter();
        }
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
/// whose range holds the point's index tile: O(1) in the number of zones elsewhere.
///
/// Index tiles follow the original game's convention: tile `t` holds coordinates in
/// `[(t - 0.5) * size, (t + 0.5) * size)`, and a zone's range is every tile from
/// `floor((c - R)/size + 0.5)` to `floor((c + R)/size + 0.5)` on each axis, `R` being
/// its larger half extent plus its blend radius.
///
/// The index has `LEVELS` levels of cells, level `l`'s cells being `16^l` tiles
/// wide; a zone is listed in the cells of the lowest level where its range spans at
/// most 16 cells per axis. So a zone costs at most 256 entries whatever its size (a
/// 30 km zone on 32 m tiles spans 938 x 938 tiles, 880,000 entries in a one-level
/// index), and a lookup reads one cell per level that holds any zone (only level 0
/// for worlds of small zones), keeping the zones whose range holds its tile.
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
    /// The index, level 0 (tiles) first.
    levels: [Level; LEVELS],
    /// Zones listed above level 0: when none, a lookup reads level 0 only.
    upper: usize,
    /// Zones that carry `walkable`: when none, a walker judges by the terrain rule
    /// alone without looking zones up ([`ZoneSet::any_walkable`]).
    walkable: usize,
    /// The union of every zone's outer bounds and of every zone's tile range (none
    /// when there are no zones): [`ZoneSet::lookup`]'s answer for a point outside
    /// both is `Clear` without reading the index ([`ZoneSet::clear_of_all`]).
    extent: Option<(Bounds, TileRange)>,
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
            levels: Default::default(),
            upper: 0,
            walkable: 0,
            extent: None,
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

    /// Whether some zone carries `walkable` (kept as zones come and go: O(1)).
    pub fn any_walkable(&self) -> bool {
        self.walkable > 0
    }

    /// The number of (cell, zone) entries in the index, over all levels: at most
    /// 256 per zone.
    pub fn index_entries(&self) -> usize {
        self.levels
            .iter()
            .flat_map(|l| l.cells.values())
            .map(Vec::len)
            .sum()
    }

    /// The number of index cells, over all levels, that list at least one zone.
    pub fn index_tiles(&self) -> usize {
        self.levels.iter().map(|l| l.cells.len()).sum()
    }

    /// The cells the index has room for without growing, over all levels: what its
    /// tables hold in memory (they shrink as zones go).
    pub fn index_capacity(&self) -> usize {
        self.levels.iter().map(|l| l.cells.capacity()).sum()
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
        // floor, exact for |v| < 2^63 (coordinates are far smaller); saturating at the
        // ends of `i64` (the cast saturates, NaN gives 0), so no input overflows.
        let v = c / self.tile_size + 0.5;
        let t = v as i64;
        if (t as f64) > v {
            t.saturating_sub(1)
        } else {
            t
        }
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
        let level = tiles.level();
        let index = &mut self.levels[level];
        for key in tiles.at(level).cells() {
            index.cells.entry(key).or_default().push(slot);
        }
        index.zones += 1;
        if level > 0 {
            self.upper += 1;
        }
        if zone.walkable.is_some() {
            self.walkable += 1;
        }
        self.by_id.insert(zone.id.clone(), slot);
        self.by_revision.insert(revision, slot);
        let outer = zone.outer_bounds();
        self.extent = Some(merged(self.extent, outer, tiles));
        self.entries[slot as usize] = Some(Entry {
            zone,
            revision,
            tiles,
            level: level as u8,
            outer,
        });
        old
    }

    /// The lowest and highest height of the zones whose outer bounds meet `rect`, if
    /// any does: a height a zone decides is its own or a blend of it with what lies
    /// beneath. Rectangles clear of every zone's bounds read none of them.
    pub fn heights_meeting(&self, rect: &Bounds) -> Option<(f64, f64)> {
        let (extent, _) = self.extent.as_ref()?;
        if !extent.meets(rect) {
            return None;
        }
        self.entries
            .iter()
            .flatten()
            .filter(|e| e.outer.meets(rect))
            .map(|e| e.zone.height)
            .fold(None, |range, h| {
                Some(range.map_or((h, h), |(lo, hi): (f64, f64)| (lo.min(h), hi.max(h))))
            })
    }

    /// Removes zone `id` from the set and from every index cell it was listed in.
    /// The index gives memory back as it empties: a level whose table is less than
    /// a quarter full shrinks to fit.
    pub fn remove(&mut self, id: &str) -> Option<FlatZone> {
        let slot = self.by_id.remove(id)?;
        let entry = self.entries.get_mut(slot as usize)?.take()?;
        let level = usize::from(entry.level);
        let index = &mut self.levels[level];
        for key in entry.tiles.at(level).cells() {
            if let Some(list) = index.cells.get_mut(&key) {
                list.retain(|&s| s != slot);
                if list.is_empty() {
                    index.cells.remove(&key);
                }
            }
        }
        index.zones -= 1;
        if index.cells.len() * 4 < index.cells.capacity() {
            index.cells.shrink_to_fit();
        }
        if level > 0 {
            self.upper -= 1;
        }
        if entry.zone.walkable.is_some() {
            self.walkable -= 1;
        }
        self.by_revision.remove(&entry.revision);
        self.free.push(slot);
        self.extent = self
            .entries
            .iter()
            .flatten()
            .fold(None, |u, e| Some(merged(u, e.outer, e.tiles)));
        Some(entry.zone)
    }

    /// True when `(x, z)` is outside every zone's outer bounds grown by `margin` and
    /// its index tile outside every zone's tile range: then no zone is a candidate
    /// there and none is near it, so [`ZoneSet::lookup`] answers `Clear` (and does,
    /// without this test, after an index lookup). The comparisons are `Entry::near`'s
    /// against the smallest minimum and largest maximum, so they cannot disagree with
    /// it; NaN coordinates are never clear here.
    #[inline]
    fn clear_of_all(&self, x: f64, z: f64, margin: f64) -> bool {
        let Some((b, t)) = &self.extent else {
            return true;
        };
        let outside = x < b.min_x - margin
            || x > b.max_x + margin
            || z < b.min_z - margin
            || z > b.max_z + margin;
        outside && !t.contains(self.tile_of(x), self.tile_of(z))
    }

    /// The zones whose range holds the index tile of `(x, z)`.
    #[inline]
    fn candidates(&self, x: f64, z: f64) -> Candidates<'_> {
        let (tx, tz) = if self.by_id.is_empty() {
            (0, 0)
        } else {
            (self.tile_of(x), self.tile_of(z))
        };
        Candidates {
            set: self,
            tx,
            tz,
            level: 0,
            slots: self.levels[0].slots((tx, tz)).iter(),
        }
    }

    /// True when some zone's outer bounds, grown by `margin`, contain `(x, z)`: the
    /// point or a sample within `margin` of it may read a zone.
    pub fn near(&self, x: f64, z: f64, margin: f64) -> bool {
        if self.by_id.is_empty() {
            return false;
        }
        let window = TileRange {
            x0: self.tile_of(x - margin),
            x1: self.tile_of(x + margin),
            z0: self.tile_of(z - margin),
            z1: self.tile_of(z + margin),
        };
        for (level, index) in self.levels.iter().enumerate() {
            if index.zones == 0 {
                continue;
            }
            for key in window.at(level).cells() {
                let hit = index
                    .slots(key)
                    .iter()
                    .filter_map(|&s| self.entry(s))
                    .any(|e| e.tiles.meets(&window) && e.near(x, z, margin));
                if hit {
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
        if self.clear_of_all(x, z, margin) {
            return Lookup::Clear;
        }
        self.lookup_indexed(x, z, margin, terrain)
    }

    /// [`ZoneSet::lookup`] through the index alone.
    #[inline]
    fn lookup_indexed(
        &self,
        x: f64,
        z: f64,
        margin: f64,
        terrain: impl FnOnce(f64, f64) -> f64,
    ) -> Lookup<'_> {
        let mut candidates = self.candidates(x, z).peekable();
        if candidates.peek().is_some() {
            if let Some(s) = self.sample_in(candidates.clone(), x, z, terrain) {
                return Lookup::Zone(s);
            }
            if candidates.any(|e| e.near(x, z, margin)) {
                return Lookup::Near;
            }
        }
        self.lookup_beyond_candidates(x, z, margin)
    }

    /// The rest of a lookup whose candidates neither reach `(x, z)` nor are near it:
    /// `Clear` when the margin stays inside the point's tile (any zone near it would
    /// be a candidate), else whatever [`ZoneSet::near`] finds in the tiles around.
    #[inline]
    fn lookup_beyond_candidates<'a>(&'a self, x: f64, z: f64, margin: f64) -> Lookup<'a> {
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
        let mut candidates = self.candidates(x, z).peekable();
        candidates.peek()?;
        self.sample_in(candidates, x, z, terrain)
    }

    #[inline]
    fn sample_in<'a>(
        &'a self,
        candidates: impl Iterator<Item = &'a Entry>,
        x: f64,
        z: f64,
        terrain: impl FnOnce(f64, f64) -> f64,
    ) -> Option<ZoneSample<'a>> {
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

    fn sample_hyperscape<'a>(
        &'a self,
        candidates: impl Iterator<Item = &'a Entry>,
        x: f64,
        z: f64,
        terrain: impl FnOnce(f64, f64) -> f64,
    ) -> Option<ZoneSample<'a>> {
        let (tx, tz) = (self.tile_of(x), self.tile_of(z));
        // (value, scan rank, entry): smallest value wins, then the earliest met.
        let mut core: Option<(f64, (u8, u64), &Entry)> = None;
        let mut blend: Option<(f64, (u8, u64), &Entry)> = None;
        for e in candidates {
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

    fn sample_layered<'a>(
        &'a self,
        candidates: impl Iterator<Item = &'a Entry>,
        x: f64,
        z: f64,
        terrain: impl FnOnce(f64, f64) -> f64,
    ) -> Option<ZoneSample<'a>> {
        let mut hits: Vec<(&Entry, Reach)> = Vec::new();
        for e in candidates {
            if let Some(r) = e.zone.reach(x, z) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zones::model::Shape;

    #[test]
    fn overlap_names_round_trip() {
        for &o in Overlap::ALL {
            assert_eq!(o.to_string().parse::<Overlap>(), Ok(o));
        }
    }

    fn zone(id: &str, x: f64, z: f64, size: f64, blend: f64, priority: i32) -> FlatZone {
        FlatZone {
            id: id.into(),
            center_x: x,
            center_z: z,
            shape: Shape::Rect {
                width: size,
                depth: size * 0.7,
            },
            height: f64::from(priority),
            blend_radius: blend,
            carve_inset: None,
            priority,
            walkable: None,
            tile_mask: None,
        }
    }

    /// The candidates of a tile by brute force: every zone whose range holds it.
    fn oracle(set: &ZoneSet, x: f64, z: f64) -> Vec<&Entry> {
        let (tx, tz) = (set.tile_of(x), set.tile_of(z));
        set.entries
            .iter()
            .flatten()
            .filter(|e| e.tiles.contains(tx, tz))
            .collect()
    }

    fn zones() -> Vec<FlatZone> {
        // Sizes from one tile to the largest legal zone (10 km, blend 10 km), at every
        // level of the index, overlapping and straddling cell edges.
        let mut out = Vec::new();
        let mut seed = 7_u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for i in 0..60 {
            let size = 10.0 * libm::pow(1000.0, next());
            let blend = if i % 7 == 0 { 10_000.0 } else { size * next() };
            let (x, z) = (next() * 40_000.0 - 20_000.0, next() * 40_000.0 - 20_000.0);
            out.push(zone(&format!("z{i}"), x, z, size, blend, i % 5));
        }
        out
    }

    /// `any_walkable` follows the zones that carry `walkable` through insertions,
    /// replacements and removals.
    #[test]
    fn any_walkable_counts_the_zones_that_carry_it() {
        let mut set = ZoneSet::new(Overlap::Hyperscape, 100.0);
        assert!(!set.any_walkable());
        set.insert(zone("a", 0.0, 0.0, 10.0, 2.0, 0), 1);
        assert!(!set.any_walkable());
        let floor = |id: &str, w| FlatZone {
            walkable: Some(w),
            ..zone(id, 50.0, 0.0, 10.0, 2.0, 0)
        };
        set.insert(floor("b", true), 2);
        set.insert(floor("c", false), 3);
        assert!(set.any_walkable());
        set.remove("b");
        assert!(set.any_walkable());
        // Replaced by a zone without it, then the last one removed.
        set.insert(zone("c", 50.0, 0.0, 10.0, 2.0, 0), 4);
        assert!(!set.any_walkable());
        set.insert(floor("d", true), 5);
        set.remove("d");
        assert!(!set.any_walkable());
        assert_eq!(set.len(), 2);
    }

    /// Whatever level a zone is listed in, a point sees exactly the zones whose
    /// range holds its tile (so heights, winners and `near` are the one-level
    /// index's), on both overlap rules.
    #[test]
    fn every_level_answers_what_a_one_level_index_would() {
        for overlap in [Overlap::Layered, Overlap::Hyperscape] {
            let mut set = ZoneSet::new(overlap, 32.0);
            for (i, z) in zones().into_iter().enumerate() {
                set.insert(z, i as u64 + 1);
            }
            assert!(set.upper > 0 && set.levels[0].zones > 0);
            let mut seed = 11_u64;
            for _ in 0..20_000 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                let x = ((seed >> 20) % 60_000) as f64 - 30_000.0 + 0.25;
                let z = ((seed >> 40) % 60_000) as f64 - 30_000.0 + 0.75;
                let mut got: Vec<u64> = set.candidates(x, z).map(|e| e.revision).collect();
                let mut want: Vec<u64> = oracle(&set, x, z).iter().map(|e| e.revision).collect();
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "({x}, {z})");
                let brute = set.sample_in(oracle(&set, x, z).into_iter(), x, z, terrain);
                assert_eq!(set.sample(x, z, terrain), brute, "({x}, {z})");
                let margin = 40.0;
                let near = set.entries.iter().flatten().any(|e| {
                    e.near(x, z, margin) && {
                        let w = |c: f64| (set.tile_of(c - margin), set.tile_of(c + margin));
                        let ((x0, x1), (z0, z1)) = (w(x), w(z));
                        e.tiles.meets(&TileRange { x0, x1, z0, z1 })
                    }
                });
                assert_eq!(set.near(x, z, margin), near, "({x}, {z})");
                // What lets an area pass skip `near` before `lookup`.
                let clear = set.lookup(x, z, margin, terrain) == Lookup::Clear;
                assert_eq!(clear, !near, "({x}, {z})");
            }
        }
    }

    /// Uniform draws in [0, 1) from `seed` (a 64-bit LCG's top 53 bits).
    fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// The ground the zones blend toward in these tests: a plane.
    fn terrain(x: f64, z: f64) -> f64 {
        x * 0.001 + z * 0.002
    }

    /// `lookup`'s shortcut for points clear of every zone answers what the index
    /// answers, for sets that grow and shrink (the union is recomputed as zones
    /// go), on points far out, around the union's edges and inside it, with small and
    /// large margins.
    #[test]
    fn the_clear_shortcut_answers_what_the_index_answers() {
        let mut next = uniform(0x5eed_c1ea);
        let all = zones();
        let mut set = ZoneSet::new(Overlap::Hyperscape, 32.0);
        assert!(
            set.clear_of_all(1.0, 2.0, 1.0),
            "an empty set is clear everywhere"
        );
        let mut shortcuts = 0;
        for round in 0..all.len() * 2 {
            // Insert the first half one by one, then remove them again.
            let k = round % all.len();
            if round < all.len() {
                set.insert(all[k].clone(), round as u64 + 1);
            } else {
                set.remove(&all[k].id);
            }
            let Some((b, _)) = set.extent else {
                assert!(set.is_empty());
                continue;
            };
            for i in 0..4_000 {
                let (w, d) = (b.max_x - b.min_x, b.max_z - b.min_z);
                let (x, z) = match i % 3 {
                    0 => (
                        b.min_x + (next() * 3.0 - 1.0) * w,
                        b.min_z + (next() * 3.0 - 1.0) * d,
                    ),
                    1 => (b.min_x - next() * 64.0, b.max_z + next() * 64.0),
                    _ => (b.max_x + next() * 64.0, b.min_z + next() * 3.0 * d - d),
                };
                let margin = [0.5, 1.0, 40.0][i % 3];
                let got = set.lookup(x, z, margin, terrain);
                assert_eq!(
                    got,
                    set.lookup_indexed(x, z, margin, terrain),
                    "({x}, {z}) margin {margin}"
                );
                // Clear exactly where no zone is near (an area pass relies on it).
                assert_eq!(
                    got == Lookup::Clear,
                    !set.near(x, z, margin),
                    "({x}, {z}) margin {margin}"
                );
                shortcuts += usize::from(set.clear_of_all(x, z, margin));
            }
        }
        assert!(
            shortcuts > 10_000,
            "the shortcut answered only {shortcuts} lookups"
        );
    }

    /// Many small zones in a grid (rectangles, circles and tile masks, 24 m apart,
    /// as placed buildings are), over `tile` metre index tiles.
    fn dense_zones() -> Vec<FlatZone> {
        let mut out = Vec::new();
        for i in 0..120_i32 {
            let (x, z) = (
                f64::from(i % 12) * 24.0 - 130.0,
                f64::from(i / 12) * 24.0 - 110.0,
            );
            let mut zone = zone(&format!("d{i}"), x, z, 8.0, f64::from(i % 4), i % 3);
            match i % 5 {
                0 => zone.shape = Shape::Circle { radius: 5.0 },
                1 => {
                    zone.shape = Shape::Rect {
                        width: 8.0,
                        depth: 8.0,
                    };
                    let (tx, tz) = (x.floor() as i64, z.floor() as i64);
                    let tiles = [
                        [tx - 2, tz - 2],
                        [tx - 1, tz - 2],
                        [tx, tz + 1],
                        [tx + 1, tz],
                    ];
                    zone.tile_mask = Some(crate::zones::TileMask::new(&tiles).unwrap());
                }
                _ => {}
            }
            out.push(zone);
        }
        out
    }

    /// An area's lookups answer what the point lookup answers at every point of the
    /// area, bit for bit (and at points outside it), on both overlap rules, for dense
    /// small zones and for the widely spread sets of every index level, over random
    /// grids of random sizes; and the narrowing narrows.
    #[test]
    fn an_area_lookup_answers_what_each_point_lookup_answers() {
        let mut next = uniform(0xa4ea);
        let (mut points, mut zoned, mut kept, mut read) = (0, 0, 0, 0);
        for overlap in [Overlap::Layered, Overlap::Hyperscape] {
            for (set_zones, tile, reach, dense) in [
                (dense_zones(), 100.0, 200.0, true),
                (dense_zones(), 32.0, 200.0, true),
                (zones(), 32.0, 25_000.0, false),
            ] {
                let mut set = ZoneSet::new(overlap, tile);
                for (i, z) in set_zones.into_iter().enumerate() {
                    set.insert(z, i as u64 + 1);
                }
                for _ in 0..300 {
                    let (cx, cz) = ((next() * 2.0 - 1.0) * reach, (next() * 2.0 - 1.0) * reach);
                    let span = [3.0, 12.0, 40.0, 300.0][(next() * 4.0) as usize];
                    let axis = |n: usize, c: f64, r: f64| -> Vec<f64> {
                        (0..n)
                            .map(|i| c - span / 2.0 + r * span * i as f64 / n as f64)
                            .collect()
                    };
                    let (nx, nz) = (1 + (next() * 30.0) as usize, 1 + (next() * 30.0) as usize);
                    let (xs, zs) = (axis(nx, cx, next() + 0.5), axis(nz, cz, next() + 0.5));
                    let margin = [0.5, 1.0, 3.0][(next() * 3.0) as usize];
                    let mut area = set.area_lookup(&xs, &zs, margin);
                    for &z in &zs {
                        for &x in &xs {
                            let (got, want) = (
                                area.lookup(x, z, terrain),
                                set.lookup(x, z, margin, terrain),
                            );
                            assert_eq!(got, want, "({x}, {z}) margin {margin}");
                            if let (Lookup::Zone(a), Lookup::Zone(b)) = (got, want) {
                                assert_eq!(a.height.to_bits(), b.height.to_bits());
                                zoned += 1;
                            }
                            points += 1;
                        }
                    }
                    // A point outside the area is looked up on its own.
                    let (x, z) = (cx + span * 2.0, cz);
                    assert_eq!(
                        area.lookup(x, z, terrain),
                        set.lookup(x, z, margin, terrain)
                    );
                    if dense && span <= 40.0 {
                        let (k, r) = area.narrowed();
                        kept += k;
                        read += r;
                    }
                }
            }
        }
        assert!(
            points > 300_000 && zoned > 20_000,
            "{points} points, {zoned} in zones"
        );
        // Small areas among small zones: most of a tile's candidates are left out.
        assert!(kept * 4 < read, "narrowed {read} candidates to {kept} only");
    }

    /// The largest legal zone on 32 m tiles costs at most 256 index entries (not the
    /// 879,844 tiles it spans), and removing every zone empties the index and shrinks
    /// its tables back.
    #[test]
    fn a_zone_costs_a_bounded_index_and_gives_it_back() {
        let mut set = ZoneSet::new(Overlap::Layered, 32.0);
        let empty = set.index_capacity();
        let big = zone("big", 0.0, 0.0, 10_000.0, 10_000.0, 0);
        let range = set.tile_range(&big);
        let tiles = (range.x1 - range.x0 + 1) * (range.z1 - range.z0 + 1);
        assert!(tiles > 800_000, "{tiles}");
        set.insert(big, 1);
        assert!(set.index_entries() <= 256, "{}", set.index_entries());
        assert_eq!(
            set.zone_at(0.0, 0.0).map(|(z, _)| z.id.as_str()),
            Some("big")
        );
        assert_eq!(
            set.zone_at(14_000.0, 1.0).map(|(z, _)| z.id.as_str()),
            Some("big")
        );
        // Many small zones fill level 0, then all go.
        for i in 0..2_000 {
            let x = f64::from(i) * 50.0;
            set.insert(
                zone(&format!("s{i}"), x, 3.0, 20.0, 5.0, 1),
                2 + u64::from(i as u32),
            );
        }
        let full = set.index_capacity();
        assert!(full > empty + 1_000, "{full}");
        assert!(set.remove("big").is_some());
        for i in 0..2_000 {
            assert!(set.remove(&format!("s{i}")).is_some());
        }
        assert_eq!(
            (set.index_entries(), set.index_tiles(), set.upper),
            (0, 0, 0)
        );
        assert!(set.index_capacity() <= 64, "{}", set.index_capacity());
        assert_eq!(set.zone_at(0.0, 0.0), None);
    }
}
