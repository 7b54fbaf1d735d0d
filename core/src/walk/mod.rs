//! Movement authority: may an entity stand here, may it walk there, and how does it get
//! there. The answers every party must agree on, next to the heights they come from.
//!
//! - [`rule`]: a world's [`WalkRule`] and the per-biome slope limits ([`BiomeLimits`]).
//! - [`Walker`] (here): terrain info at a point ([`TerrainInfo`]: height, biome, slope,
//!   underwater, walkable and the [`Reason`] it is not) by a world's rule.
//! - [`path`]: path checks along a polyline, the original's 21 samples per segment
//!   ([`Walker::check_sampled`]) or every movement tile a segment crosses
//!   ([`Walker::check_tiles`]).
//! - [`grid`]: every movement tile of a rectangle judged at once from the area path
//!   ([`WalkGrid`]), and the blocks a query touched ([`WalkGrids`]).
//! - [`difficulty`]: the difficulty of a position ([`Walker::difficulty`]); with the
//!   normal, a point's [`PointDetails`] ([`Walker::details`]).
//! - [`flags`]: a walkability grid as one byte of flags a 1 m tile ([`Walker::flags`]).
//! - [`find`]: path finding over the movement-tile grid, bounded ([`find::find_path`]).
//!
//! The slope is the original's (docs/src/reference/walkability.md, "The slope"): the largest of the eight finite
//! differences of the final height (zones included) at 1 m, the diagonals over
//! `1 * SQRT2`, each an f64 in the original's order of operations.

pub mod difficulty;
pub mod find;
pub mod flags;
pub mod grid;
pub mod limits;
pub mod path;
pub mod rule;

use libm::{floor, sqrt};

use crate::{
    Generator, Terrain, WorldGenerator,
    generator::hyperscape::{Biome, Colours, Hyperscape, colours::BIOME_NAMES},
    zones::Reach,
};

pub use difficulty::{Difficulty, FALLBACK_TOWNS, MAX_TOWNS, Town};
pub use grid::{BlockStore, Build, GridBlocks, Lattice, WalkGrid, WalkGrids};
pub use path::PathCheck;
pub use rule::{BiomeLimits, BiomesError, HYPERSCAPE_WATER, MAX_STEP, WalkRule};

/// The distance of the slope's neighbour samples, `TERRAIN_CONSTANTS.SLOPE_CHECK_DISTANCE`.
const SLOPE_DISTANCE: f64 = 1.0;
/// The original's biome lookup tile, `CONFIG.TILE_SIZE`.
const BIOME_TILE: f64 = 100.0;
/// The original's five starter towns, in biome tiles (`getBiomeAt`), in its order.
const TOWNS: [(f64, f64); 5] = [
    (0.0, 0.0),
    (10.0, 0.0),
    (-10.0, 0.0),
    (0.0, 10.0),
    (0.0, -10.0),
];
/// A tile within this (Euclidean, in tiles, strict) of a town is plains.
const TOWN_RADIUS: f64 = 3.0;
/// The side (m) of the squares [`Walker::infos`] groups a batch's points by for the
/// area path.
const AREA_CELL: f64 = 32.0;
/// Fewer points of a batch in one square take the neighbourhood path.
const AREA_MIN_POINTS: usize = 8;

/// Why a point is not walkable. Its wire code is [`Reason::code`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The ground is under water.
    Water,
    /// The slope is over the limit of the point's biome.
    Slope,
    /// The core of a flat zone registered with `walkable: false` (a building).
    Zone,
    /// A move rises more than one block ([`WalkRule::BlockStep`]): judged between
    /// consecutive movement tiles, never at a point alone.
    Step,
}

impl Reason {
    /// The code on the wire (`reason` of terrain info and path answers).
    pub fn code(self) -> &'static str {
        match self {
            Reason::Water => "water",
            Reason::Slope => "slope",
            Reason::Zone => "zone",
            Reason::Step => "step",
        }
    }

    /// The original's `reason` string (`isPositionWalkable`).
    pub fn original_message(self) -> &'static str {
        match self {
            Reason::Water => "Water bodies are impassable",
            Reason::Slope => "Steep mountain slopes block movement",
            // The original's zones carry no walkability; this server's message.
            Reason::Zone => "A structure blocks movement",
            Reason::Step => "The step up is more than one block",
        }
    }
}

/// The original's slope from a point's height `h0` and its eight neighbours at 1 m, in
/// the order N, S, E, W, NE, NW, SE, SW: the largest absolute difference, the diagonals
/// over `1 * SQRT2` (`Math.max` over the array, left to right).
pub(crate) fn slope_of(h0: f64, neighbours: [f64; 8]) -> f64 {
    let c = SLOPE_DISTANCE;
    let d = c * std::f64::consts::SQRT_2;
    let mut slope = f64::NEG_INFINITY;
    for (k, hn) in neighbours.into_iter().enumerate() {
        slope = slope.max((hn - h0).abs() / if k < 4 { c } else { d });
    }
    slope
}

/// What a world's rule says about one point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerrainInfo {
    /// The final height (zones included), metres.
    pub height: f64,
    /// The biome the rule used; `None` where the world has no biomes.
    pub biome: Option<&'static str>,
    /// The original's 8-direction slope at 1 m (rise over run).
    pub slope: f64,
    /// The ground is below the rule's water level.
    pub underwater: bool,
    /// `None` when walkable, else why not.
    pub reason: Option<Reason>,
}

impl TerrainInfo {
    pub fn walkable(&self) -> bool {
        self.reason.is_none()
    }
}

/// What terrain info answers at a point besides the rule's judgement ([`TerrainInfo`]):
/// the original's surface normal ([`Terrain::normal`], `getNormalAt`) and, under the
/// `hyperscape` rule, its difficulty ([`Walker::difficulty`],
/// `getDifficultyAtWorldPosition`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointDetails {
    /// The unit normal `(x, y, z)`; x and z are `-0` on flat ground.
    pub normal: [f64; 3],
    /// `None` under rules other than `hyperscape` and on other worlds.
    pub difficulty: Option<Difficulty>,
}

/// What a rule needs of the generator, computed once per walker.
#[derive(Debug)]
enum Biomes<'a> {
    /// The original's lookup: plains in the towns, else the first centre's type.
    Original(Biome),
    /// The worker's dominant biome at the point.
    Dominant {
        hyperscape: &'a Hyperscape,
        colours: Colours,
    },
    /// No biomes (osrs, voxel).
    None,
}

/// Walkability queries over one terrain by one rule.
#[derive(Debug)]
pub struct Walker<'a> {
    terrain: &'a Terrain,
    rule: &'a WalkRule,
    biomes: Biomes<'a>,
    /// Some zone carries `walkable`: points are looked up in the zones first.
    zone_rules: bool,
}

impl<'a> Walker<'a> {
    /// A walker over `terrain` by `rule`. A biome rule on a world without biomes
    /// (osrs, voxel) reads no biome: every point takes the manifest's missing-biome
    /// limit (none) and only water blocks.
    pub fn new(terrain: &'a Terrain, rule: &'a WalkRule) -> Self {
        let hyperscape = match terrain.generator() {
            WorldGenerator::Hyperscape(h) => Some(&**h),
            _ => None,
        };
        let biomes = match (rule, hyperscape) {
            (WalkRule::Hyperscape { .. }, Some(h)) => {
                Biomes::Original(h.biome_centers().first().map_or(Biome::Plains, |c| c.biome))
            }
            (WalkRule::Slope { .. }, Some(h)) => Biomes::Dominant {
                hyperscape: h,
                colours: h.colours(),
            },
            _ => Biomes::None,
        };
        let zone_rules = terrain.zones().any_walkable();
        Walker {
            terrain,
            rule,
            biomes,
            zone_rules,
        }
    }

    /// The judgement of the zone whose core decides the ground at `(x, z)`, when that
    /// zone carries `walkable`: `Some(None)` a floor (walkable whatever the terrain rule
    /// says), `Some(Some(Zone))` a building. `None`: the terrain rule decides (no zone
    /// there, its blend ring, or a zone without `walkable`).
    pub fn zone_judgement(&self, x: f64, z: f64) -> Option<Option<Reason>> {
        if !self.zone_rules {
            return None;
        }
        match self.terrain.zones().zone_at(x, z)? {
            (zone, Reach::Core { .. }) => zone.walkable.map(|w| (!w).then_some(Reason::Zone)),
            (_, Reach::Blend { .. }) => None,
        }
    }

    pub fn terrain(&self) -> &Terrain {
        self.terrain
    }

    /// The difficulty of `(x, z)` ([`difficulty::difficulty`]) with `towns`, under the
    /// `hyperscape` rule on the island (its manifest's tiers); `None` under other rules
    /// and on other worlds. The biome is the world's (the seed's first biome centre's
    /// type): the original reads it without the starter towns' plains, which only its
    /// walkability applies.
    pub fn difficulty(&self, x: f64, z: f64, towns: &[Town]) -> Option<Difficulty> {
        let (Biomes::Original(first), WalkRule::Hyperscape { limits }) = (&self.biomes, self.rule)
        else {
            return None;
        };
        let WorldGenerator::Hyperscape(h) = self.terrain.generator() else {
            return None;
        };
        let biome = first.as_str();
        Some(difficulty::difficulty(
            h.noise(),
            towns,
            biome,
            limits.difficulty(biome),
            x,
            z,
        ))
    }

    /// The normal and difficulty of `(x, z)` with `towns` ([`PointDetails`]): what the
    /// server's terrain info and the SDK's replica answer next to [`Walker::info`].
    pub fn details(&self, x: f64, z: f64, towns: &[Town]) -> PointDetails {
        PointDetails {
            normal: self.terrain.normal(x, z),
            difficulty: self.difficulty(x, z, towns),
        }
    }

    /// The final height at `(x, z)`.
    pub fn height(&self, x: f64, z: f64) -> f64 {
        self.terrain.height(x, z)
    }

    /// The original's slope at `(x, z)` whose own height is `h0` (docs/src/reference/walkability.md, "The slope").
    pub fn slope_from(&self, x: f64, z: f64, h0: f64) -> f64 {
        let c = SLOPE_DISTANCE;
        let h = |x, z| self.terrain.height(x, z);
        let neighbours = [
            h(x, z + c),
            h(x, z - c),
            h(x + c, z),
            h(x - c, z),
            h(x + c, z + c),
            h(x - c, z + c),
            h(x + c, z - c),
            h(x - c, z - c),
        ];
        slope_of(h0, neighbours)
    }

    /// The heights of the 3 x 3 neighbourhoods of `points` at the slope's distance
    /// ([`Terrain::neighbourhoods`]).
    fn neighbourhoods(&self, points: &[(f64, f64)], out: &mut [[f64; 9]]) {
        self.terrain.neighbourhoods(points, SLOPE_DISTANCE, out);
    }

    /// The slope at a point from its neighbourhood's heights (`3 * j + i` at
    /// `(x + (i - 1) c, z + (j - 1) c)`): the neighbours `slope_from` reads, in its
    /// order.
    fn slope_of_neighbourhood(h: &[f64; 9]) -> f64 {
        // N, S, E, W, then NE, NW, SE, SW.
        slope_of(h[4], [h[7], h[1], h[5], h[3], h[8], h[6], h[2], h[0]])
    }

    /// The biome the rule uses at `(x, z)` with final height `height`.
    fn biome(&self, x: f64, z: f64, height: f64) -> Option<&'static str> {
        match &self.biomes {
            Biomes::Original(first) => {
                let (tx, tz) = (floor(x / BIOME_TILE), floor(z / BIOME_TILE));
                let in_town = TOWNS.iter().any(|&(cx, cz)| {
                    let (dx, dz) = (tx - cx, tz - cz);
                    sqrt(dx * dx + dz * dz) < TOWN_RADIUS
                });
                Some(if in_town { "plains" } else { first.as_str() })
            }
            Biomes::Dominant {
                hyperscape,
                colours,
            } => {
                let id = colours.at(hyperscape.noise(), x, z, height as f32).biome;
                Some(
                    BIOME_NAMES
                        .get(usize::from(id))
                        .copied()
                        .unwrap_or("plains"),
                )
            }
            Biomes::None => None,
        }
    }

    /// The rule's water level and the slope limit of `biome`.
    fn limits(&self, biome: Option<&str>) -> (Option<f64>, f64) {
        match self.rule {
            WalkRule::Hyperscape { limits } => (
                Some(HYPERSCAPE_WATER),
                biome.map_or(f64::INFINITY, |b| limits.max_slope(b)),
            ),
            WalkRule::Slope {
                limits,
                water_level,
            } => (
                Some(*water_level),
                biome.map_or(f64::INFINITY, |b| limits.max_slope(b)),
            ),
            WalkRule::MaxSlope {
                max_slope,
                water_level,
            } => (*water_level, *max_slope),
            WalkRule::BlockStep { sea_level } => (Some(*sea_level), f64::INFINITY),
        }
    }

    /// Whether ground of final height `height` at `(x, z)` is under water below
    /// `level`. Under `block-step` a column a flat zone levels is dry whatever its
    /// height (the zone's columns hold no water), the rest is the top block's: water
    /// exactly where the column is below sea level (ice stands at sea level).
    fn underwater(&self, x: f64, z: f64, height: f64, level: Option<f64>) -> bool {
        let Some(level) = level else {
            return false;
        };
        if height >= level {
            return false;
        }
        match self.rule {
            WalkRule::BlockStep { .. } => {
                self.terrain.zones().is_empty() || self.terrain.sample(x, z).zone.is_none()
            }
            _ => true,
        }
    }

    /// Whether the rule judges moves between neighbouring tiles (`block-step`).
    pub fn judges_steps(&self) -> bool {
        self.rule.max_step().is_some()
    }

    /// Whether a move from ground of height `from` to a neighbouring tile of height
    /// `to` rises too much for the rule (never, for rules without steps).
    pub fn step_blocked(&self, from: f64, to: f64) -> bool {
        self.rule.max_step().is_some_and(|max| to - from > max)
    }

    /// Terrain info at `(x, z)`: the original's `getTerrainInfoAt` with the reason of its
    /// `isPositionWalkable`, by this walker's rule. The slope is computed even under
    /// water, as the original does.
    ///
    /// The nine heights are computed together ([`Terrain::neighbourhoods`]); the
    /// answer equals [`Walker::info_point_by_point`]'s bit for bit (tested).
    pub fn info(&self, x: f64, z: f64) -> TerrainInfo {
        let mut h = [[0.0; 9]];
        self.neighbourhoods(&[(x, z)], &mut h);
        self.info_from(x, z, &h[0])
    }

    /// [`Walker::info`] at each of `points`, in order, bit for bit (tested).
    ///
    /// Points that lie together take the area path: the batch is grouped by the
    /// `AREA_CELL` square each point falls in, and a group whose points share
    /// heights (movement-tile centres, whole metres: any points whose neighbours at
    /// 1 m are other points' coordinates, to the bit) gets the distinct heights its
    /// points read from one generator pass over their coordinates
    /// (`Walker::area_infos`), when that pass computes at most eight heights per
    /// point. The rest share the axis parts of their distinct coordinates when those
    /// repeat (`Walker::shared_axes_infos`), else compute their nine heights
    /// together ([`Terrain::neighbourhoods`]), several sharing the generator's lane
    /// groups.
    pub fn infos(&self, points: &[(f64, f64)]) -> Vec<TerrainInfo> {
        if points.len() < AREA_MIN_POINTS {
            return self.neighbourhood_infos(points);
        }
        let cell = |(x, z): (f64, f64)| {
            // Saturating casts: far points share the edge cells, which only costs
            // them the area path.
            (floor(x / AREA_CELL) as i64, floor(z / AREA_CELL) as i64)
        };
        let mut order: Vec<((i64, i64), usize)> = points
            .iter()
            .enumerate()
            .map(|(i, &p)| (cell(p), i))
            .collect();
        order.sort_unstable();
        let mut out: Vec<Option<TerrainInfo>> = vec![None; points.len()];
        let mut scattered = Vec::new();
        let mut group = Vec::new();
        for cell in order.chunk_by(|a, b| a.0 == b.0) {
            group.clear();
            group.extend(cell.iter().map(|&(_, i)| points[i]));
            let answered = cell.len() >= AREA_MIN_POINTS
                && self.area_infos(&group, |k, info| out[cell[k].1] = Some(info));
            if !answered {
                scattered.extend(cell.iter().map(|&(_, i)| i));
            }
        }
        let centres: Vec<(f64, f64)> = scattered.iter().map(|&i| points[i]).collect();
        let infos = self
            .shared_axes_infos(&centres)
            .unwrap_or_else(|| self.neighbourhood_infos(&centres));
        for (&i, info) in scattered.iter().zip(infos) {
            out[i] = Some(info);
        }
        // Every point was answered: by its square's lattice, or with the rest.
        out.into_iter().flatten().collect()
    }

    /// [`Walker::info`] at each of `points`, in order, their neighbourhoods computed
    /// in batches, several sharing the generator's lane groups.
    fn neighbourhood_infos(&self, points: &[(f64, f64)]) -> Vec<TerrainInfo> {
        const BATCH: usize = 64;
        let mut h = [[0.0; 9]; BATCH];
        let mut out = Vec::with_capacity(points.len());
        for batch in points.chunks(BATCH) {
            let h = &mut h[..batch.len()];
            self.neighbourhoods(batch, h);
            out.extend(
                batch
                    .iter()
                    .zip(h.iter())
                    .map(|(&(x, z), h)| self.info_from(x, z, h)),
            );
        }
        out
    }

    /// [`Walker::info`] with its nine heights evaluated one by one
    /// ([`Walker::height`] and [`Walker::slope_from`]): the straightforward reference
    /// the neighbourhood path is tested (and benchmarked) against.
    pub fn info_point_by_point(&self, x: f64, z: f64) -> TerrainInfo {
        let height = self.height(x, z);
        let slope = self.slope_from(x, z, height);
        self.judge(x, z, height, slope)
    }

    /// Terrain info from the point's neighbourhood heights.
    fn info_from(&self, x: f64, z: f64, h: &[f64; 9]) -> TerrainInfo {
        self.judge(x, z, h[4], Self::slope_of_neighbourhood(h))
    }

    /// Terrain info at `(x, z)` of final height `height` and slope `slope`.
    fn judge(&self, x: f64, z: f64, height: f64, slope: f64) -> TerrainInfo {
        let biome = self.biome(x, z, height);
        let (water, max_slope) = self.limits(biome);
        let underwater = self.underwater(x, z, height, water);
        let reason = if let Some(judged) = self.zone_judgement(x, z) {
            judged
        } else if underwater {
            Some(Reason::Water)
        } else if slope > max_slope {
            Some(Reason::Slope)
        } else {
            None
        };
        TerrainInfo {
            height,
            biome,
            slope,
            underwater,
            reason,
        }
    }

    /// `None` if an entity may stand at `(x, z)`, else why not. A zone's `walkable`
    /// decides over its core; under water the slope is not computed (one height
    /// instead of nine).
    pub fn blocked(&self, x: f64, z: f64) -> Option<Reason> {
        if let Some(judged) = self.zone_judgement(x, z) {
            return judged;
        }
        let height = self.height(x, z);
        let biome = self.biome(x, z, height);
        let (water, max_slope) = self.limits(biome);
        if self.underwater(x, z, height, water) {
            return Some(Reason::Water);
        }
        if max_slope == f64::INFINITY {
            return None;
        }
        let mut h = [[0.0; 9]];
        self.neighbourhoods(&[(x, z)], &mut h);
        (Self::slope_of_neighbourhood(&h[0]) > max_slope).then_some(Reason::Slope)
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::seq::SliceRandom;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::{GeneratorKind, Overlap, ZoneSet, zones::ZoneDoc};

    /// Every field of an answer, the floats as bits.
    fn bits(i: &TerrainInfo) -> (u64, u64, Option<&'static str>, bool, Option<Reason>) {
        (
            i.height.to_bits(),
            i.slope.to_bits(),
            i.biome,
            i.underwater,
            i.reason,
        )
    }

    /// Every height-field rule: the original's, `slope` and `max-slope` (water at 9 m).
    fn height_field_rules() -> [WalkRule; 3] {
        [
            WalkRule::Hyperscape {
                limits: BiomeLimits::hyperscape(),
            },
            WalkRule::Slope {
                limits: BiomeLimits::hyperscape(),
                water_level: 9.0,
            },
            WalkRule::MaxSlope {
                max_slope: 0.3,
                water_level: Some(9.0),
            },
        ]
    }

    /// The island with one zone given as JSON, under `overlap`.
    fn island_with(overlap: Overlap, json: &str) -> Terrain {
        let mut zones = ZoneSet::new(overlap, 100.0);
        let doc: ZoneDoc = serde_json::from_str(json).unwrap();
        zones.insert(doc.spec().unwrap().resolve("z", f64::NAN), 1);
        Terrain::new(
            WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap(),
            zones,
        )
    }

    /// The island of `seed` with zones (when `zoned`) around the points
    /// `neighbourhood_path_equals_the_point_by_point_one` draws: blended plateaus and
    /// pits, a building and a floor, on land, the pond and the coast.
    fn zoned_island(seed: u32, overlap: Overlap, zoned: bool) -> Terrain {
        let mut zones = ZoneSet::new(overlap, 100.0);
        if zoned {
            let specs = [
                r#"{"centerX": 0.0, "centerZ": 0.0, "width": 20.0, "depth": 14.0, "height": 40.0, "blendRadius": 6.0}"#,
                r#"{"centerX": -80.0, "centerZ": 60.0, "radius": 12.0, "height": 11.0, "blendRadius": 5.0, "walkable": true}"#,
                r#"{"centerX": 300.0, "centerZ": -40.0, "width": 30.0, "depth": 10.0, "height": 9.5, "blendRadius": 8.0}"#,
                r#"{"centerX": 40.5, "centerZ": -30.0, "width": 8.0, "depth": 8.0, "height": 14.0, "blendRadius": 3.0, "walkable": false}"#,
                r#"{"centerX": -250.0, "centerZ": 200.0, "radius": 20.0, "height": 3.0, "blendRadius": 10.0}"#,
            ];
            for (i, json) in specs.iter().enumerate() {
                let doc: ZoneDoc = serde_json::from_str(json).unwrap();
                let id = format!("z{i}");
                zones.insert(doc.spec().unwrap().resolve(&id, f64::NAN), i as u64 + 1);
            }
        }
        Terrain::new(
            WorldGenerator::new(GeneratorKind::Hyperscape, seed).unwrap(),
            zones,
        )
    }

    /// `info` (and `infos`, `blocked`), which compute a point's nine heights together,
    /// equal the straightforward point-by-point info bit for bit: random points (and
    /// whole and half metres) over the island, the pond, the coast and the zones,
    /// several seeds, both overlap rules, with and without zones, under every
    /// height-field rule.
    #[test]
    fn neighbourhood_path_equals_the_point_by_point_one() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0123_4567_89ab_cdef);
        let rules = height_field_rules();
        let (mut seen, mut zoned_heights) = ([0usize; 4], 0);
        for seed in [0, 1, 7] {
            for overlap in [Overlap::Hyperscape, Overlap::Layered] {
                for zoned in [false, true] {
                    let t = zoned_island(seed, overlap, zoned);
                    let bare = zoned_island(seed, overlap, false);
                    let points: Vec<(f64, f64)> = (0..700)
                        .map(|k| {
                            let (cx, cz, r) = [
                                (0.0, 0.0, 40.0),
                                (-80.0, 60.0, 30.0),
                                (300.0, -40.0, 30.0),
                                (40.5, -30.0, 12.0),
                                (-250.0, 200.0, 40.0),
                                (0.0, 0.0, 480.0),
                            ][k % 6];
                            let (x, z): (f64, f64) =
                                (cx + rng.random_range(-r..r), cz + rng.random_range(-r..r));
                            match k % 3 {
                                0 => (x.floor() + 0.5, z.floor() + 0.5),
                                1 => (x.floor(), z),
                                _ => (x, z),
                            }
                        })
                        .collect();
                    for rule in &rules {
                        let walker = Walker::new(&t, rule);
                        let batch = walker.infos(&points);
                        for (&(x, z), got) in points.iter().zip(&batch) {
                            let want = walker.info_point_by_point(x, z);
                            assert_eq!(
                                bits(&walker.info(x, z)),
                                bits(&want),
                                "{rule:?} ({x}, {z})"
                            );
                            assert_eq!(bits(got), bits(&want), "{rule:?} batch ({x}, {z})");
                            assert_eq!(walker.blocked(x, z), want.reason, "{rule:?} ({x}, {z})");
                            seen[match want.reason {
                                None => 0,
                                Some(Reason::Water) => 1,
                                Some(Reason::Slope) => 2,
                                _ => 3,
                            }] += 1;
                            if zoned && want.height != bare.height(x, z) {
                                zoned_heights += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
        assert!(
            zoned_heights > 500,
            "{zoned_heights} points the zones change"
        );
    }

    /// Batches whose points lie together take the area path, or share axis parts,
    /// and answer what `info` does, bit for bit: blocks of movement-tile centres and
    /// of whole metres (the lattice) and a town's entities on random tiles (shared
    /// axis parts) over the zones, the pond and the coast of the island (both overlap
    /// rules, every height-field rule), a zoned voxel world under `block-step` and a
    /// zoned osrs world under `max-slope`, mixed in one shuffled batch with scattered
    /// points.
    #[test]
    fn area_path_batches_equal_the_point_path() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        let block = |(cx, cz): (f64, f64), n: i32, offset: f64| -> Vec<(f64, f64)> {
            (0..n * n)
                .map(|k| {
                    let (i, j) = (f64::from(k % n - n / 2), f64::from(k / n - n / 2));
                    (cx.floor() + i + offset, cz.floor() + j + offset)
                })
                .collect()
        };
        let zone = |json: &str, id: &str, revision: u64| {
            let doc: ZoneDoc = serde_json::from_str(json).unwrap();
            (doc.spec().unwrap().resolve(id, f64::NAN), revision)
        };
        // A terrain, the rules to ask it by, the centres of the blocks asked.
        type Case = (Terrain, Vec<WalkRule>, Vec<(f64, f64)>);
        let mut worlds: Vec<Case> = Vec::new();
        for overlap in [Overlap::Hyperscape, Overlap::Layered] {
            // The zones, the pond's side and two stretches of coast.
            let centres = vec![
                (0.0, 0.0),
                (-80.0, 60.0),
                (40.5, -30.0),
                (-250.0, 200.0),
                (470.0, 10.0),
                (-20.0, -455.0),
            ];
            worlds.push((
                zoned_island(0, overlap, true),
                height_field_rules().to_vec(),
                centres,
            ));
        }
        let other = |generator, seed, voxel, zone_json: &str| {
            crate::build_terrain(
                &crate::WorldSpec {
                    generator,
                    seed,
                    overlap: Overlap::Layered,
                    layout: None,
                    voxel,
                },
                [zone(zone_json, "z", 1)],
            )
            .unwrap()
        };
        worlds.push((
            other(
                GeneratorKind::Voxel,
                3,
                Some(Default::default()),
                r#"{"centerX": 10.0, "centerZ": 0.0, "width": 12.0, "depth": 12.0, "heightOffset": 5.0, "blendRadius": 6.0}"#,
            ),
            vec![WalkRule::BlockStep { sea_level: 24.0 }],
            vec![(10.0, 0.0), (-300.0, 170.0), (900.0, -40.0)],
        ));
        worlds.push((
            other(
                GeneratorKind::Osrs,
                0,
                None,
                r#"{"centerX": 3200.0, "centerZ": 3200.0, "width": 16.0, "depth": 16.0, "heightOffset": 3.0, "blendRadius": 8.0}"#,
            ),
            vec![WalkRule::MaxSlope {
                max_slope: 0.5,
                water_level: None,
            }],
            vec![(3200.0, 3200.0), (3150.0, 3300.0)],
        ));
        let mut seen = [0usize; 4];
        for (terrain, rules, centres) in &worlds {
            let mut batch = Vec::new();
            for &c in centres {
                batch.extend(block(c, 12, 0.5));
                batch.extend(block(c, 8, 0.0));
            }
            let scattered: Vec<(f64, f64)> = (0..60)
                .map(|_| {
                    let (a, b) = (rng.random::<f64>(), rng.random::<f64>());
                    let (cx, cz) = centres[rng.random_range(0..centres.len())];
                    (cx + (a - 0.5) * 300.0, cz + (b - 0.5) * 300.0)
                })
                .collect();
            batch.extend(&scattered);
            // Towns at the first and last centres (a zone; the coast on the island):
            // 300 entities each on random movement tiles of a 60 m square, too sparse
            // for the lattice but on shared rows and columns.
            let town: Vec<(f64, f64)> = [centres[0], centres[centres.len() - 1]]
                .into_iter()
                .flat_map(|(tx, tz)| {
                    (0..300)
                        .map(|_| {
                            let (a, b) = (
                                f64::from(rng.random_range(0..60)),
                                f64::from(rng.random_range(0..60)),
                            );
                            (tx.floor() - 29.5 + a, tz.floor() - 29.5 + b)
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            batch.extend(&town);
            batch.shuffle(&mut rng);
            for rule in rules {
                let walker = Walker::new(terrain, rule);
                // The blocks pay on the area path, the town on shared axis parts;
                // scattered points on neither.
                assert!(walker.area_infos(&block(centres[0], 12, 0.5), |_, _| ()));
                assert!(!walker.area_infos(&scattered[..20], |_, _| ()));
                assert!(!walker.area_infos(&town, |_, _| ()));
                assert!(walker.shared_axes_infos(&town).is_some());
                assert!(walker.shared_axes_infos(&scattered).is_none());
                for (&(x, z), got) in batch.iter().zip(walker.infos(&batch)) {
                    let want = walker.info_point_by_point(x, z);
                    assert_eq!(bits(&got), bits(&want), "{rule:?} ({x}, {z})");
                    seen[match want.reason {
                        None => 0,
                        Some(Reason::Water) => 1,
                        Some(Reason::Slope) => 2,
                        _ => 3,
                    }] += 1;
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 20), "{seen:?}");
    }

    #[test]
    fn a_zone_s_walkable_decides_over_its_core_and_the_terrain_rule_elsewhere() {
        let rule = WalkRule::MaxSlope {
            max_slope: 0.5,
            water_level: Some(9.0),
        };
        for overlap in [Overlap::Hyperscape, Overlap::Layered] {
            // A steep plateau: its blend ring is too steep to walk under any of the
            // three settings; only its core differs.
            let zone = |walkable: &str| {
                island_with(
                    overlap,
                    &format!(
                        r#"{{"centerX": 0.0, "centerZ": 0.0, "width": 20.0, "depth": 20.0, "height": 60.0, "blendRadius": 4.0{walkable}}}"#
                    ),
                )
            };
            let (open, floor, hall) = (
                zone(""),
                zone(r#", "walkable": true"#),
                zone(r#", "walkable": false"#),
            );
            let (open, floor, hall) = (
                Walker::new(&open, &rule),
                Walker::new(&floor, &rule),
                Walker::new(&hall, &rule),
            );
            // The core's edge: flat on the zone side, the ring's drop a metre out.
            let edge = (9.5, 0.0);
            assert_eq!(open.blocked(edge.0, edge.1), Some(Reason::Slope));
            assert_eq!(floor.blocked(edge.0, edge.1), None);
            assert_eq!(floor.info(edge.0, edge.1).reason, None);
            assert!(floor.info(edge.0, edge.1).slope > 0.5);
            assert_eq!(hall.blocked(0.0, 0.0), Some(Reason::Zone));
            assert_eq!(hall.info(0.0, 0.0).reason, Some(Reason::Zone));
            assert_eq!(open.blocked(0.0, 0.0), None);
            // The ring is the terrain rule's under all three.
            for w in [&open, &floor, &hall] {
                assert_eq!(w.blocked(12.0, 0.0), Some(Reason::Slope));
                assert_eq!(w.info(12.0, 0.0).height, open.info(12.0, 0.0).height);
            }
        }
    }
}
