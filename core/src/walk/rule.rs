//! A world's walkability rule and the per-biome slope limits it reads.
//!
//! - [`WalkRule::Hyperscape`]: exactly the original game's `isPositionWalkable` and
//!   `getTerrainInfoAt` (docs/src/reference/walkability.md), quirks included: the biome of the 100 m tile
//!   `(floor(x/100), floor(z/100))` at its centre, `plains` within the five starter towns,
//!   elsewhere the type of the seed's first biome centre; that biome's `maxSlope`; water
//!   below 9.0 m, strict.
//! - [`WalkRule::Slope`]: what the original means. The biome at the point is the dominant
//!   biome of the vertex colours (the worker's blend, the one the map and meshes show);
//!   the limit is that biome's `maxSlope`; water is below the world's water level.
//! - [`WalkRule::MaxSlope`]: one slope limit everywhere (osrs tile heights, whose worlds
//!   have no biomes), and an optional water level.
//! - [`WalkRule::BlockStep`]: block games' rule on voxel worlds. A column may be stood on
//!   when its top block is solid and not under water (ice over water is solid, so
//!   walkable); a move to a neighbouring column may rise at most [`MAX_STEP`] block (a
//!   two-block rise blocks, reason `step`), falls of any height are allowed.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The original's water threshold, `TERRAIN_CONSTANTS.WATER_THRESHOLD`: land is `h >= 9`.
pub const HYPERSCAPE_WATER: f64 = 9.0;

/// The largest rise, in blocks, of one move between neighbouring columns under
/// [`WalkRule::BlockStep`].
pub const MAX_STEP: f64 = 1.0;

/// The biome manifest (`biomes.json` of the original's assets at 23cfb78): each biome's
/// largest walkable slope, as tabulated in docs/src/reference/walkability.md, "The biome limits".
const BUILTIN_HYPERSCAPE: [(&str, f64); 8] = [
    ("plains", 0.8),
    ("forest", 0.8),
    ("valley", 0.8),
    ("mountains", 0.9),
    ("tundra", 0.8),
    ("desert", 0.6),
    ("lakes", 0.8),
    ("swamp", 0.5),
];

/// The same manifest's `difficulty` of each biome: the tier the original's
/// `getDifficultyAtWorldPosition` starts from.
const BUILTIN_DIFFICULTY: [(&str, f64); 8] = [
    ("plains", 0.0),
    ("forest", 1.0),
    ("valley", 0.0),
    ("mountains", 2.0),
    ("tundra", 3.0),
    ("desert", 2.0),
    ("lakes", 0.0),
    ("swamp", 1.0),
];

/// Why a biome manifest was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum BiomesError {
    #[error("biomes.json: {path}: {message}")]
    Json { path: String, message: String },
    #[error("biomes.json: [{index}].maxSlope: must be a finite number >= 0, got {value}")]
    MaxSlope { index: usize, value: f64 },
    #[error("biomes.json: [{index}].id: duplicate biome id {id:?}")]
    Duplicate { index: usize, id: String },
}

impl BiomesError {
    /// The field the error is about, for an API error's `field`.
    pub fn field(&self) -> String {
        match self {
            BiomesError::Json { path, .. } => path.clone(),
            BiomesError::MaxSlope { index, .. } => format!("[{index}].maxSlope"),
            BiomesError::Duplicate { index, .. } => format!("[{index}].id"),
        }
    }
}

/// One entry of `biomes.json`: the fields walkability reads (the rest is ignored, as the
/// original's `DataManager` keeps it for other systems).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BiomeDoc {
    id: String,
    max_slope: f64,
    #[serde(default)]
    difficulty: Option<f64>,
}

/// Each biome's largest walkable slope (rise over run), by the biome's id.
#[derive(Debug, Clone, PartialEq)]
pub struct BiomeLimits {
    max_slope: BTreeMap<String, f64>,
    /// Each biome's difficulty tier, where the manifest gives one.
    difficulty: BTreeMap<String, f64>,
}

impl BiomeLimits {
    /// The values of the original's manifest (`builtin:hyperscape`).
    pub fn hyperscape() -> Self {
        BiomeLimits {
            max_slope: BUILTIN_HYPERSCAPE
                .iter()
                .map(|&(id, s)| (id.to_string(), s))
                .collect(),
            difficulty: BUILTIN_DIFFICULTY
                .iter()
                .map(|&(id, d)| (id.to_string(), d))
                .collect(),
        }
    }

    /// A `biomes.json`: an array of objects with at least `id` and `maxSlope`.
    pub fn from_json(text: &str) -> Result<Self, BiomesError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let docs: Vec<BiomeDoc> =
            serde_path_to_error::deserialize(de).map_err(|e| BiomesError::Json {
                path: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        let difficulty: BTreeMap<String, f64> = docs
            .iter()
            .filter_map(|d| {
                d.difficulty
                    .filter(|v| v.is_finite())
                    .map(|v| (d.id.clone(), v))
            })
            .collect();
        let mut limits = Self::from_entries(docs.into_iter().map(|d| (d.id, d.max_slope)))?;
        limits.difficulty = difficulty;
        Ok(limits)
    }

    /// The limits of `(id, maxSlope)` entries (a world description's list), checked as
    /// a manifest's entries are.
    pub fn from_entries(
        entries: impl IntoIterator<Item = (String, f64)>,
    ) -> Result<Self, BiomesError> {
        let mut max_slope = BTreeMap::new();
        for (index, (id, slope)) in entries.into_iter().enumerate() {
            if !slope.is_finite() || slope < 0.0 {
                return Err(BiomesError::MaxSlope {
                    index,
                    value: slope,
                });
            }
            if max_slope.insert(id.clone(), slope).is_some() {
                return Err(BiomesError::Duplicate { index, id });
            }
        }
        Ok(BiomeLimits {
            max_slope,
            difficulty: BTreeMap::new(),
        })
    }

    /// These limits with `tiers` as the biomes' difficulty tiers (a world
    /// description's list: each biome's `difficulty`, where its manifest gives one),
    /// instead of the ones they had. A tier that is not finite is left out, as a
    /// manifest's is.
    pub fn with_difficulty(mut self, tiers: impl IntoIterator<Item = (String, f64)>) -> Self {
        self.difficulty = tiers.into_iter().filter(|(_, t)| t.is_finite()).collect();
        self
    }

    /// Every biome's difficulty tier the manifest gives, sorted by id.
    pub fn difficulty_entries(&self) -> impl Iterator<Item = (&str, f64)> + '_ {
        self.difficulty.iter().map(|(id, &d)| (id.as_str(), d))
    }

    /// Every biome's limit, sorted by id.    /// Every biome's limit, sorted by id.
    pub fn entries(&self) -> impl Iterator<Item = (&str, f64)> + '_ {
        self.max_slope.iter().map(|(id, &s)| (id.as_str(), s))
    }

    /// The difficulty tier of `biome` (the manifest's `difficulty`; 0 where it gives
    /// none).
    pub fn difficulty(&self, biome: &str) -> f64 {
        self.difficulty.get(biome).copied().unwrap_or(0.0)
    }

    /// The largest walkable slope of `biome`; a biome the manifest lacks has no limit.
    pub fn max_slope(&self, biome: &str) -> f64 {
        self.max_slope.get(biome).copied().unwrap_or(f64::INFINITY)
    }
}

/// How a world decides whether an entity may stand at a point.
#[derive(Debug, Clone, PartialEq)]
pub enum WalkRule {
    /// The original game's rule, quirks included (docs/src/reference/walkability.md).
    Hyperscape { limits: BiomeLimits },
    /// The dominant biome at the point, its limit, water below `water_level`.
    Slope {
        limits: BiomeLimits,
        water_level: f64,
    },
    /// One slope limit everywhere; water below `water_level` when given.
    MaxSlope {
        max_slope: f64,
        water_level: Option<f64>,
    },
    /// Voxel worlds: the top block solid and not water (a column below `sea_level` that
    /// no flat zone levels is under water, unless frozen: ice stands at sea level), and
    /// a move between neighbouring columns rising at most [`MAX_STEP`] block.
    BlockStep { sea_level: f64 },
}

impl WalkRule {
    /// The rule's name in configuration (`walkability = "..."`).
    pub fn name(&self) -> &'static str {
        match self {
            WalkRule::Hyperscape { .. } => "hyperscape",
            WalkRule::Slope { .. } => "slope",
            WalkRule::MaxSlope { .. } => "max-slope",
            WalkRule::BlockStep { .. } => "block-step",
        }
    }

    /// The per-biome limits the rule reads, if any.
    pub fn biome_limits(&self) -> Option<&BiomeLimits> {
        match self {
            WalkRule::Hyperscape { limits } | WalkRule::Slope { limits, .. } => Some(limits),
            WalkRule::MaxSlope { .. } | WalkRule::BlockStep { .. } => None,
        }
    }

    /// The water level: ground strictly below it is under water.
    pub fn water_level(&self) -> Option<f64> {
        match self {
            WalkRule::Hyperscape { .. } => Some(HYPERSCAPE_WATER),
            WalkRule::Slope { water_level, .. } => Some(*water_level),
            WalkRule::MaxSlope { water_level, .. } => *water_level,
            WalkRule::BlockStep { sea_level } => Some(*sea_level),
        }
    }

    /// The one slope limit of `max-slope`.
    pub fn max_slope(&self) -> Option<f64> {
        match self {
            WalkRule::MaxSlope { max_slope, .. } => Some(*max_slope),
            _ => None,
        }
    }

    /// The largest rise of one move between neighbouring columns, under `block-step`.
    pub fn max_step(&self) -> Option<f64> {
        match self {
            WalkRule::BlockStep { .. } => Some(MAX_STEP),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_names_the_bad_field() {
        let ok = BiomeLimits::from_json(r#"[{"id":"plains","maxSlope":0.6,"color":1}]"#).unwrap();
        assert_eq!(ok.max_slope("plains"), 0.6);
        assert_eq!(ok.max_slope("swamp"), f64::INFINITY);
        let cases = [
            (r#"[{"id":"plains"}]"#, "[0]"),
            (
                r#"[{"id":"a","maxSlope":0.5},{"id":"b","maxSlope":"x"}]"#,
                "[1].maxSlope",
            ),
            (r#"[{"id":"a","maxSlope":-1}]"#, "[0].maxSlope"),
            (
                r#"[{"id":"a","maxSlope":1},{"id":"a","maxSlope":1}]"#,
                "[1].id",
            ),
        ];
        for (text, field) in cases {
            let err = BiomeLimits::from_json(text).unwrap_err();
            assert_eq!(err.field(), field, "{text}: {err}");
        }
    }

    #[test]
    fn the_builtin_manifest_is_the_spec_s_table() {
        let l = BiomeLimits::hyperscape();
        assert_eq!(l.max_slope("swamp"), 0.5);
        assert_eq!(l.max_slope("plains"), 0.8);
        assert_eq!(l.max_slope("mountains"), 0.9);
        assert_eq!(l.max_slope("desert"), 0.6);
    }
}
