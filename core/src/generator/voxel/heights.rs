//! The height-only path of the voxel generator: a column's height without building its
//! neighbours' columns, and a bounded cache of whole chunks of heights that points
//! share.
//!
//! A column's height is its eroded ground (or sea level under ice) plus a solid
//! decoration. On a world whose raw ground changes slowly enough (`bounds`: every
//! default and diorama world), erosion provably leaves a column alone unless a river
//! nearby may have undercut it, and a column is under water exactly where its raw top
//! is, so a column's height reads its own raw column, its biome only where water or a
//! decoration roll ([`SURFACE_ROLLS`]) can change the height, and its four neighbours'
//! raw tops only where the coast rule can ([`Voxel::point_height`]): about a
//! microsecond.
//!
//! Otherwise (near such a river, or on a steeper world) erosion iteration `i` reads the
//! column and its four neighbours at iteration `i - 1`, so `k` iterations of one column
//! read the raw columns within Manhattan distance `k` (a diamond of `2k² + 2k + 1`
//! columns, 41 for `k = 4`), not the `(2k + 3)²` square the rectangle path computes
//! ([`Voxel::diamond_height`]; the coast rule's columns erode a diamond one wider). The
//! arithmetic is the rectangle path's, step for step, so the heights are the same bits
//! (`tests::the_diamond_path_is_the_rectangle_path`,
//! `tests::points_are_the_rectangle_path_on_every_world`, `core/tests/voxel_seams.rs`).
//!
//! The cache holds [`CACHE_CHUNKS`] chunks of 1,024 one-byte heights (1 KiB each) per
//! world. A chunk enters it after [`MISSES_BEFORE_CHUNK`] points of it were asked for one
//! by one (building its 1,024 columns then costs about as much as that many single
//! points), so sparse points take the point path and points asked for again and again
//! read the chunk. The cache never changes an answer: an entry is the rectangle path's
//! heights.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use super::volume::{DECORATION_REACH, fill_column, leaf, public};
use super::{
    BlockKind, CHUNK, Column, Decoration, Voxel,
    block::Biome,
    columns::{ColumnData, Rect, ZoneTops},
    field::{RawPoint, SALT_DECORATION, hash2},
};

/// Decoration rolls (`hash % 1000`) below this may place a land decoration, which
/// depends on the column's surface and hence on the coast rule; at or above it the
/// decoration does not depend on the surface
/// (`tests::rolls_from_surface_rolls_on_ignore_the_surface`).
pub(crate) const SURFACE_ROLLS: u64 = 115;

/// Decoration rolls below this may place a tree; at or above it no column holds one
/// (`tests::rolls_from_surface_rolls_on_ignore_the_surface`).
pub(crate) const TREE_ROLLS: u64 = 70;

/// Chunks of heights a world's cache holds (1 KiB each: 8 MiB).
pub const CACHE_CHUNKS: usize = 8192;

/// Points of one chunk answered one by one before the whole chunk is built and cached.
pub const MISSES_BEFORE_CHUNK: u32 = 512;

/// The cached heights of one chunk, row-major (x fastest).
type ChunkHeights = Arc<[u8; (CHUNK * CHUNK) as usize]>;

/// A bounded map of chunk heights, shared by every clone of a generator.
#[derive(Default)]
pub(crate) struct HeightCache {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Chunk heights and the tick they were last read at.
    chunks: HashMap<(i64, i64), (ChunkHeights, u64)>,
    /// Points answered one by one per chunk not (yet) cached.
    misses: HashMap<(i64, i64), u32>,
    tick: u64,
}

impl std::fmt::Debug for HeightCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let chunks = self.inner.lock().map(|i| i.chunks.len()).unwrap_or(0);
        f.debug_struct("HeightCache")
            .field("chunks", &chunks)
            .finish()
    }
}

/// What a lookup found.
enum Lookup {
    Hit(i32),
    /// Not cached; `true` when the chunk has now been asked for often enough to build.
    Miss(bool),
}

impl HeightCache {
    fn lookup(&self, chunk: (i64, i64), index: usize) -> Lookup {
        // A poisoned lock only means another thread panicked mid-update; the map is
        // still a valid map (every entry is inserted whole).
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.tick += 1;
        let tick = inner.tick;
        if let Some((heights, seen)) = inner.chunks.get_mut(&chunk) {
            *seen = tick;
            return Lookup::Hit(i32::from(heights[index]));
        }
        if inner.misses.len() >= 4 * CACHE_CHUNKS {
            inner.misses.clear();
        }
        let n = inner.misses.entry(chunk).or_insert(0);
        *n += 1;
        Lookup::Miss(*n >= MISSES_BEFORE_CHUNK)
    }

    fn insert(&self, chunk: (i64, i64), heights: ChunkHeights) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.tick += 1;
        let tick = inner.tick;
        inner.misses.remove(&chunk);
        inner.chunks.insert(chunk, (heights, tick));
        if inner.chunks.len() > CACHE_CHUNKS {
            // Drop the least recently read half: amortised O(1) per insert.
            let mut ticks: Vec<u64> = inner.chunks.values().map(|(_, t)| *t).collect();
            let mid = ticks.len() / 2;
            let (_, cut, _) = ticks.select_nth_unstable(mid);
            let cut = *cut;
            inner.chunks.retain(|_, (_, t)| *t > cut);
        }
    }

    /// Chunks held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.inner.lock().map(|i| i.chunks.len()).unwrap_or(0)
    }
}

impl Voxel {
    /// The height of column `(x, z)` without flat zones: from the cache, or by the
    /// diamond path (building and caching the chunk once it is asked for often).
    pub(crate) fn column_height(&self, x: i64, z: i64) -> i32 {
        let chunk = (x.div_euclid(CHUNK), z.div_euclid(CHUNK));
        let (ix, iz) = (x.rem_euclid(CHUNK), z.rem_euclid(CHUNK));
        let index = (iz * CHUNK + ix) as usize;
        match self.heights.lookup(chunk, index) {
            Lookup::Hit(h) => h,
            Lookup::Miss(false) => self.point_height(x, z),
            Lookup::Miss(true) => match self.chunk_heights(chunk) {
                Some(heights) => {
                    let h = i32::from(heights[index]);
                    self.heights.insert(chunk, heights);
                    h
                }
                None => self.point_height(x, z),
            },
        }
    }

    /// The heights of a whole chunk by the rectangle path; `None` if one does not fit
    /// a byte (never with `max_height <= 255`).
    fn chunk_heights(&self, (cx, cz): (i64, i64)) -> Option<ChunkHeights> {
        let n = CHUNK as usize;
        let heights = self.heights_rect(cx * CHUNK, cz * CHUNK, n, n);
        let mut out = [0u8; (CHUNK * CHUNK) as usize];
        for (o, &h) in out.iter_mut().zip(&heights.v) {
            *o = u8::try_from(h).ok()?;
        }
        Some(Arc::new(out))
    }

    /// The heights of the `w` x `d` columns from `(x0, z0)` without zones: the
    /// rectangle path's columns' heights, each column's biome, coast and decoration
    /// read only where water or its decoration roll can change its height.
    pub(crate) fn heights_rect(&self, x0: i64, z0: i64, w: usize, d: usize) -> Rect<i32> {
        let g = self.eroded(x0 - 1, z0 - 1, w + 2, d + 2);
        let sea = self.config.sea_level as i32;
        let water = |x: i64, z: i64| g.at(x, z).0 < sea;
        let mut v = Vec::with_capacity(w * d);
        for z in z0..z0 + d as i64 {
            for x in x0..x0 + w as i64 {
                let (ground, river) = g.at(x, z);
                let wet = ground < sea;
                if !wet && hash2(self.seed, SALT_DECORATION, x, z) % 1000 >= SURFACE_ROLLS {
                    v.push(ground);
                    continue;
                }
                let biome = self.fields.biome(x, z);
                let coast =
                    water(x, z - 1) || water(x + 1, z) || water(x, z + 1) || water(x - 1, z);
                let surface = if wet || (!river && coast) {
                    BlockKind::Sand
                } else {
                    biome.land_surface()
                };
                let c = self.finish(x, z, ground, river, false, biome, surface);
                v.push(c.height(sea, biome.frozen()));
            }
        }
        Rect { x0, z0, w, d, v }
    }

    /// The height of column `(x, z)` without flat zones, built from as little as
    /// proves it: on a world whose slopes bound erosion (`bounds`), its raw column
    /// (unless a river nearby may have eroded it: then its diamond), its biome only
    /// when water or a decoration could change the height, and its four neighbours'
    /// raw tops only when the coast rule could; on other worlds,
    /// [`Voxel::diamond_height`].
    pub(crate) fn point_height(&self, x: i64, z: i64) -> i32 {
        if self.slopes.is_none() {
            return self.diamond_height(x, z);
        }
        let sea = self.config.sea_level as i32;
        let roll = hash2(self.seed, SALT_DECORATION, x, z) % 1000;
        let coast = roll < SURFACE_ROLLS;
        let ((ground, river), point) = self.eroded_with_point(x, z);
        let wet = ground < sea;
        if !wet && !coast {
            return ground;
        }
        let biome: Biome = self.fields.biome(x, z);
        let surface = if wet || (coast && !river && self.water_around(x, z, None, point)) {
            BlockKind::Sand
        } else {
            biome.land_surface()
        };
        let c = self.finish(x, z, ground, river, false, biome, surface);
        c.height(sea, biome.frozen())
    }

    /// The eroded (ground, river) of column `(x, z)`: its raw column where the slopes
    /// prove erosion leaves it alone, else from its diamond.
    pub(crate) fn eroded_point(&self, x: i64, z: i64) -> (i32, bool) {
        self.eroded_with_point(x, z).0
    }

    /// [`Voxel::eroded_point`] with the column's raw point when the slopes bound its
    /// neighbours.
    fn eroded_with_point(&self, x: i64, z: i64) -> ((i32, bool), Option<RawPoint>) {
        let k = self.config.erosion_iterations as i64;
        match self.bounded(x, z) {
            Some((Some(g), p)) => (g, Some(p)),
            Some((None, p)) => (self.eroded_diamond(x, z, k)[0], Some(p)),
            None => (self.eroded_diamond(x, z, k)[0], None),
        }
    }

    /// Whether one of the four neighbours of `(x, z)` is under water (zones given by
    /// `zones` are dry); `point`, the column's raw point, may prove them dry at once.
    fn water_around(&self, x: i64, z: i64, zones: ZoneTops<'_>, point: Option<RawPoint>) -> bool {
        if point.is_some_and(|p| self.dry_around(x, z, &p)) {
            return false;
        }
        let water =
            |x: i64, z: i64| zones.and_then(|f| f(x, z)).is_none() && self.unzoned_water(x, z);
        water(x, z - 1) || water(x + 1, z) || water(x, z + 1) || water(x - 1, z)
    }

    /// A column from its ground, biome and surface: water, and its decoration unless
    /// a zone levelled it.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        x: i64,
        z: i64,
        ground: i32,
        river: bool,
        zoned: bool,
        biome: Biome,
        surface: BlockKind,
    ) -> ColumnData {
        let sea = self.config.sea_level as i32;
        let wet = !zoned && ground < sea;
        let mut c = ColumnData {
            ground,
            zoned,
            river,
            biome,
            water_depth: if wet { (sea - ground) as u32 } else { 0 },
            surface,
            decoration: None,
            size: 0,
        };
        if !zoned {
            (c.decoration, c.size) = self.decoration(x, z, &c);
        }
        c
    }

    /// Column `(x, z)` with the zones `zones` applied, as the rectangle path gives it
    /// (`self.columns(x, z, 1, 1, zones)`), from its own raw column and its
    /// neighbours' raw tops where the slopes allow.
    pub(crate) fn column_data(&self, x: i64, z: i64, zones: ZoneTops<'_>) -> ColumnData {
        if self.slopes.is_none() {
            return self.columns(x, z, 1, 1, zones).v[0];
        }
        let sea = self.config.sea_level as i32;
        let max = self.config.max_height as i32;
        let ((eroded, river), point) = self.eroded_with_point(x, z);
        let (ground, zoned) = match zones.and_then(|f| f(x, z)) {
            Some(top) => (top.clamp(1, max), true),
            None => (eroded, false),
        };
        let biome = self.fields.biome(x, z);
        let surface = if !zoned && ground < sea {
            BlockKind::Sand
        } else if !river && self.water_around(x, z, zones, point) {
            // The coast rule.
            BlockKind::Sand
        } else {
            biome.land_surface()
        };
        self.finish(x, z, ground, river, zoned, biome, surface)
    }

    /// The ground and trunk size of the tree column `(x, z)` holds (zones as
    /// `zones`), if any: [`Voxel::column_data`]'s decoration, read in the order that
    /// rules a tree out soonest (a zone, water, the biome and roll, then the coast).
    fn tree_at(&self, x: i64, z: i64, zones: ZoneTops<'_>) -> Option<(i32, i32)> {
        if zones.and_then(|f| f(x, z)).is_some() {
            return None;
        }
        let ((ground, river), point) = self.eroded_with_point(x, z);
        if ground < self.config.sea_level as i32 {
            return None;
        }
        let biome = self.fields.biome(x, z);
        // On the biome's land surface; the coast's sand holds no tree.
        let land = self.finish(x, z, ground, river, false, biome, biome.land_surface());
        if land.decoration != Some(Decoration::Tree) {
            return None;
        }
        if !river && self.water_around(x, z, zones, point) {
            return None;
        }
        Some((ground, land.size))
    }

    /// Column `(x, z)` as served and the block seen from straight above it, zones
    /// given as whole-block tops (as `Terrain` gives them): what the 1 x 1 volume
    /// there gives as its column and [`Volume::top`](super::Volume::top), without
    /// building it: from the column and the trees within [`DECORATION_REACH`] whose
    /// decoration roll can make one.
    pub fn column_top(
        &self,
        x: i64,
        z: i64,
        zones: Option<&dyn Fn(i64, i64) -> Option<i32>>,
    ) -> (Column, BlockKind) {
        let sea = self.config.sea_level as i32;
        let c = self.column_data(x, z, zones);
        let mut blocks = vec![BlockKind::Air; self.config.max_height as usize];
        fill_column(&mut blocks, &c, sea);
        let mut top = blocks
            .iter()
            .rposition(|&b| b != BlockKind::Air)
            .map_or((-1, BlockKind::Air), |y| (y as i32, blocks[y]));
        let r = DECORATION_REACH;
        for dz in -r..=r {
            for dx in -r..=r {
                let (tx, tz) = (x - dx, z - dz);
                if (dx, dz) == (0, 0)
                    || hash2(self.seed, SALT_DECORATION, tx, tz) % 1000 >= TREE_ROLLS
                {
                    continue;
                }
                let Some((ground, size)) = self.tree_at(tx, tz, zones) else {
                    continue;
                };
                // The tree's highest leaf over this column, if it is above its blocks
                // (leaves fill only air).
                let crown = ground + size;
                let highest = (crown - 2..=crown)
                    .rev()
                    .find(|&y| leaf(dx, dz, y, ground, size));
                if let Some(y) = highest.filter(|&y| y > top.0) {
                    top = (y, BlockKind::Leaves);
                }
            }
        }
        (public(&c, sea), top.1)
    }

    /// The height of column `(x, z)` from the diamonds of raw columns it depends on.
    pub(crate) fn diamond_height(&self, x: i64, z: i64) -> i32 {
        let sea = self.config.sea_level as i32;
        let roll = hash2(self.seed, SALT_DECORATION, x, z) % 1000;
        let coast = roll < SURFACE_ROLLS;
        let k = self.config.erosion_iterations as i64;
        let eroded = self.eroded_diamond(x, z, k + i64::from(coast));
        let (ground, river) = eroded[0];
        let wet = ground < sea;
        // Dry, with a roll no land decoration takes: neither the biome nor the surface
        // can change the height.
        if !wet && !coast {
            return ground;
        }
        let biome: Biome = self.fields.biome(x, z);
        let surface = if wet || (coast && !river && eroded[1..].iter().any(|&(g, _)| g < sea)) {
            BlockKind::Sand
        } else {
            biome.land_surface()
        };
        let mut c = ColumnData {
            ground,
            zoned: false,
            river,
            biome,
            water_depth: if wet { (sea - ground) as u32 } else { 0 },
            surface,
            decoration: None,
            size: 0,
        };
        (c.decoration, c.size) = self.decoration(x, z, &c);
        c.height(sea, biome.frozen())
    }

    /// Talus erosion of the diamond of radius `r` around `(x, z)`: the eroded
    /// (ground, river) of the centre, then (if `r` exceeds the iterations) of its
    /// north, east, south and west neighbours.
    fn eroded_diamond(&self, x: i64, z: i64, r: i64) -> Vec<(i32, bool)> {
        let k = self.config.erosion_iterations as i64;
        let side = (2 * r + 1) as usize;
        let at = |dx: i64, dz: i64| ((dz + r) as usize) * side + (dx + r) as usize;
        let mut cur = vec![(0i32, false); side * side];
        for dz in -r..=r {
            let w = r - dz.abs();
            for dx in -w..=w {
                let raw = self.fields.raw(x + dx, z + dz);
                cur[at(dx, dz)] = (raw.top, raw.river);
            }
        }
        let t = self.config.talus_threshold as i32;
        let mut next = cur.clone();
        for i in 1..=k {
            let reach = r - i;
            for dz in -reach..=reach {
                let w = reach - dz.abs();
                for dx in -w..=w {
                    let (h, river) = cur[at(dx, dz)];
                    let n = [
                        cur[at(dx, dz - 1)].0,
                        cur[at(dx + 1, dz)].0,
                        cur[at(dx, dz + 1)].0,
                        cur[at(dx - 1, dz)].0,
                    ];
                    next[at(dx, dz)] = (super::columns::talus(h, n, t), river);
                }
            }
            std::mem::swap(&mut cur, &mut next);
        }
        let mut out = vec![cur[at(0, 0)]];
        if r > k {
            out.extend([at(0, -1), at(1, 0), at(0, 1), at(-1, 0)].map(|i| cur[i]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::voxel::VoxelConfig;

    #[test]
    fn rolls_from_surface_rolls_on_ignore_the_surface() {
        let v = Voxel::new(1, VoxelConfig::default()).unwrap();
        let surfaces = [
            BlockKind::Sand,
            BlockKind::Grass,
            BlockKind::Moss,
            BlockKind::Snow,
        ];
        for i in 0..20_000u64 {
            let h = crate::generator::voxel::field::mix(i);
            for &biome in Biome::ALL.iter() {
                let land = |surface| ColumnData {
                    ground: 20,
                    zoned: false,
                    river: false,
                    biome,
                    water_depth: 0,
                    surface,
                    decoration: None,
                    size: 0,
                };
                let decos: Vec<_> = surfaces.map(|s| v.decoration_by_hash(h, &land(s))).into();
                if h % 1000 >= SURFACE_ROLLS {
                    assert!(
                        decos.iter().all(|d| d.0.is_none()),
                        "roll {} {biome:?}",
                        h % 1000
                    );
                }
                let wet = ColumnData {
                    water_depth: 3,
                    surface: BlockKind::Sand,
                    ..land(BlockKind::Sand)
                };
                let tree = decos
                    .iter()
                    .chain([&v.decoration_by_hash(h, &wet)])
                    .any(|d| d.0 == Some(Decoration::Tree));
                assert!(
                    !tree || h % 1000 < TREE_ROLLS,
                    "roll {} {biome:?}",
                    h % 1000
                );
            }
        }
    }

    #[test]
    fn the_diamond_path_is_the_rectangle_path() {
        let configs = [
            VoxelConfig::default(),
            VoxelConfig::diorama(),
            VoxelConfig {
                erosion_iterations: 0,
                ..VoxelConfig::diorama()
            },
            VoxelConfig {
                erosion_iterations: 9,
                talus_threshold: 1,
                amplitude: 40,
                ..VoxelConfig::default()
            },
        ];
        for (n, config) in configs.into_iter().enumerate() {
            for seed in [1u32, 3, 7] {
                let v = Voxel::new(seed, config).unwrap();
                let sea = config.sea_level as i32;
                let (x0, z0) = (-37 + 1000 * n as i64, 21 - 700 * seed as i64);
                let rect = v.columns(x0, z0, 40, 40, None);
                for z in z0..z0 + 40 {
                    for x in x0..x0 + 40 {
                        let c = rect.at(x, z);
                        let want = c.height(sea, c.biome.frozen());
                        assert_eq!(
                            v.diamond_height(x, z),
                            want,
                            "config {n} seed {seed} ({x}, {z})"
                        );
                    }
                }
            }
        }
    }

    /// A fixed sequence of pseudo-random numbers.
    fn sequence(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed;
        move || {
            state = crate::generator::voxel::field::mix(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
            state
        }
    }

    /// Worlds for the agreement tests: the defaults, the diorama, no erosion, wide
    /// rivers, as steep as the slopes still bound (amplitude 17: slope 1.90 of the
    /// threshold 2; threshold 1 and 3), and one too steep for them (every column from its
    /// diamond).
    fn worlds() -> Vec<(&'static str, VoxelConfig)> {
        let d = VoxelConfig::default();
        vec![
            ("default", d),
            ("diorama", VoxelConfig::diorama()),
            (
                "no erosion",
                VoxelConfig {
                    erosion_iterations: 0,
                    ..d
                },
            ),
            (
                "rivers",
                VoxelConfig {
                    river_width: 0.2,
                    river_scale: 64.0,
                    ..d
                },
            ),
            ("steepest", VoxelConfig { amplitude: 17, ..d }),
            (
                "threshold 1",
                VoxelConfig {
                    amplitude: 8,
                    talus_threshold: 1,
                    erosion_iterations: 7,
                    ..d
                },
            ),
            (
                "threshold 3",
                VoxelConfig {
                    amplitude: 26,
                    talus_threshold: 3,
                    sea_level: 30,
                    river_width: 0.1,
                    ..d
                },
            ),
            ("too steep", VoxelConfig { amplitude: 40, ..d }),
        ]
    }

    /// Column corners to test around: the origin's chunk edges, negative, and far out
    /// to the edge of the coordinate range (2^24).
    const CORNERS: [(i64, i64); 6] = [
        (-37, 21),
        (31, -33),
        (-5_000, -7_000),
        (123_456, -654_321),
        (16_777_216 - 40, 16_777_216 - 40),
        (-16_777_216, 16_777_216 - 40),
    ];

    #[test]
    fn points_are_the_rectangle_path_on_every_world() {
        for (name, config) in worlds() {
            let steep = name == "too steep";
            assert_eq!(
                Voxel::slopes_of(&config).is_none(),
                steep,
                "{name}: {:?}",
                Voxel::slopes_of(&config)
            );
            for seed in [1u32, 7] {
                let v = Voxel::new(seed, config).unwrap();
                let sea = config.sea_level as i32;
                let (mut settled, mut columns) = (0, 0);
                for &(x0, z0) in &CORNERS {
                    let rect = v.columns(x0, z0, 40, 40, None);
                    let eroded = v.eroded(x0, z0, 40, 40);
                    for z in z0..z0 + 40 {
                        for x in x0..x0 + 40 {
                            let c = rect.at(x, z);
                            let at = format!("{name} seed {seed} ({x}, {z})");
                            assert_eq!(
                                v.point_height(x, z),
                                c.height(sea, c.biome.frozen()),
                                "{at}"
                            );
                            assert_eq!(v.eroded_point(x, z), eroded.at(x, z), "{at}");
                            assert_eq!(v.column_data(x, z, None), c, "{at}");
                            let water = !c.zoned && c.ground < sea;
                            assert_eq!(v.unzoned_water(x, z), water, "{at}");
                            settled += usize::from(v.settled(x, z).is_some());
                            columns += 1;
                        }
                    }
                }
                // Both paths are taken: most columns need no neighbour, and rivers
                // make some that do.
                if steep {
                    assert_eq!(settled, 0, "{name}");
                } else if name != "no erosion" {
                    assert!(
                        settled * 10 > columns * 7,
                        "{name} seed {seed}: {settled} of {columns}"
                    );
                    assert!(
                        settled < columns,
                        "{name} seed {seed}: every column settled"
                    );
                }
            }
        }
    }

    #[test]
    fn random_points_are_the_rectangle_path() {
        let mut next = sequence(5);
        for (name, config) in worlds() {
            let v = Voxel::new(next() as u32, config).unwrap();
            let sea = config.sea_level as i32;
            for _ in 0..1500 {
                let span = [64, 100_000, 16_777_216][(next() % 3) as usize];
                let x = (next() % (2 * span)) as i64 - span as i64;
                let z = (next() % (2 * span)) as i64 - span as i64;
                let c = v.columns(x, z, 1, 1, None).v[0];
                let at = format!("{name} ({x}, {z})");
                assert_eq!(
                    v.point_height(x, z),
                    c.height(sea, c.biome.frozen()),
                    "{at}"
                );
                assert_eq!(v.column_data(x, z, None), c, "{at}");
            }
        }
    }

    /// A flat zone as whole-block tops: a disc of radius 6 at `(cx, cz)`, levelled
    /// to `top`.
    fn disc(cx: i64, cz: i64, top: i32) -> impl Fn(i64, i64) -> Option<i32> {
        move |x, z| ((x - cx).pow(2) + (z - cz).pow(2) <= 36).then_some(top)
    }

    #[test]
    fn columns_and_tops_are_the_volume_s_with_and_without_zones() {
        for (name, config) in worlds() {
            for seed in [2u32, 9] {
                let v = Voxel::new(seed, config).unwrap();
                for &(x0, z0) in &CORNERS[..4] {
                    // A zone under water and one on a hill, both inside the area.
                    let low = disc(x0 + 8, z0 + 8, 3);
                    let high = disc(x0 + 20, z0 + 12, config.sea_level as i32 + 6);
                    let both = |x, z| low(x, z).or_else(|| high(x, z));
                    for zones in [None, Some(&both as &dyn Fn(i64, i64) -> Option<i32>)] {
                        let vol = v.volume(x0, z0, 28, 24, zones);
                        for z in z0..z0 + 24 {
                            for x in x0..x0 + 28 {
                                let at = format!(
                                    "{name} seed {seed} ({x}, {z}) zoned {}",
                                    zones.is_some()
                                );
                                let (column, top) = v.column_top(x, z, zones);
                                assert_eq!(Some(&column), vol.column(x, z), "{at}");
                                assert_eq!(top, vol.top(x, z), "{at}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn an_understated_gradient_bound_is_caught() {
        // With a gradient bound of 0.3 (the field reaches 4.35), a world of amplitude
        // 128 passes for smooth: its columns would skip erosion that changes them.
        let config = VoxelConfig {
            amplitude: 128,
            ..VoxelConfig::default()
        };
        let mut v = Voxel::new(1, config).unwrap();
        v.slopes = crate::generator::voxel::bounds::Slopes::of(&config, 0.3);
        assert!(v.slopes.is_some());
        let sea = config.sea_level as i32;
        let rect = v.columns(0, 0, 40, 40, None);
        let wrong = (0..40)
            .flat_map(|z| (0..40).map(move |x| (x, z)))
            .filter(|&(x, z)| {
                let c = rect.at(x, z);
                v.point_height(x, z) != c.height(sea, c.biome.frozen())
            })
            .count();
        assert!(wrong > 100, "{wrong}");
    }

    #[test]
    fn cached_chunks_answer_what_single_points_do_and_stay_bounded() {
        let v = Voxel::new(7, VoxelConfig::default()).unwrap();
        // Every column of chunk (2, -3), asked twice: the first asks build the chunk.
        for pass in 0..2 {
            for z in -96..-64 {
                for x in 64..96 {
                    assert_eq!(
                        v.column_height(x, z),
                        v.diamond_height(x, z),
                        "pass {pass} ({x}, {z})"
                    );
                }
            }
        }
        assert_eq!(v.heights.len(), 1);
        let cache = HeightCache::default();
        for i in 0..(CACHE_CHUNKS as i64 + 10) {
            cache.insert((i, 0), Arc::new([0; 1024]));
        }
        assert!(cache.len() <= CACHE_CHUNKS, "{}", cache.len());
    }
}
