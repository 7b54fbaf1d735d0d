//! One hosted world's configuration: its generator, how its flat zones overlap, and
//! where its start-up zones come from (a manifest directory and zone files).
//!
//! ```toml
//! [[worlds]]
//! id = "main"
//! generator = "hyperscape"
//! seed = 0
//! overlap = "hyperscape"            # or "layered" (the default)
//! manifests = "manifests"           # stations.json, world-areas.json, model-bounds.json
//! zones = ["zones/arenas.json"]     # arrays of zones
//!
//! [[worlds]]
//! id = "blocks"
//! generator = "voxel"               # 32 x 32-column chunks of 1 m blocks
//! seed = 3                          # any u32
//! [worlds.voxel]                    # VoxelConfig's keys, each optional
//! max_height = 64
//! sea_level = 12
//! ```
//!
//! `walkability`, `biomes` and `max_slope` choose the world's walkability rule, and
//! `towns` the towns its difficulty reads ([`super::walk`]).
//!
//! `[worlds.voxel]` is refused on any other generator (key `worlds[i].voxel`); a
//! voxel world without it takes `VoxelConfig::default()`, and a bad value is refused
//! naming its key (`worlds[i].voxel.sea_level: ...`).
//!
//! Relative paths resolve against the configuration file's directory. The values
//! [`BUILTIN_MANIFESTS`] and [`BUILTIN_DUEL_FLOORS`] name the copies of
//! `worlds/hyperscape/` compiled into the binary, which the default world uses.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, de};
use terrain_core::{
    GeneratorError, GeneratorKind, Overlap,
    voxel::VoxelConfig,
    walk::{FALLBACK_TOWNS, Town},
};

use super::{
    ConfigError, WorldSpec,
    lifecycle::LayoutSettings,
    walk::{WalkKeys, WalkSettings},
};

/// `manifests = "builtin:hyperscape"`: the hyperscape manifests compiled in.
pub const BUILTIN_MANIFESTS: &str = "builtin:hyperscape";
/// `zones = ["builtin:duel-arena-floors"]`: the duel arena floors compiled in.
pub const BUILTIN_DUEL_FLOORS: &str = "builtin:duel-arena-floors";

/// Where a world's manifests come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Manifests {
    /// A directory holding `stations.json` and `world-areas.json` (and optionally
    /// `model-bounds.json`).
    Dir(PathBuf),
    /// The hyperscape manifests compiled into the binary.
    BuiltinHyperscape,
}

impl Manifests {
    /// The configured value: [`BUILTIN_MANIFESTS`] or a path, resolved against `base`.
    pub fn parse(value: &str, base: &Path) -> Self {
        if value == BUILTIN_MANIFESTS {
            Manifests::BuiltinHyperscape
        } else {
            Manifests::Dir(base.join(value))
        }
    }
}

impl<'de> Deserialize<'de> for Manifests {
    /// The configured string, its path still relative ([`super::WorldSpec::rebase`]).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = String::deserialize(d)?;
        Ok(Manifests::parse(&value, Path::new("")))
    }
}

/// A file of zones (a JSON array) registered at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZoneFile {
    Path(PathBuf),
    /// The duel arena floors compiled into the binary.
    BuiltinDuelFloors,
}

impl ZoneFile {
    /// The configured value: [`BUILTIN_DUEL_FLOORS`] or a path, resolved against `base`.
    pub fn parse(value: &str, base: &Path) -> Self {
        if value == BUILTIN_DUEL_FLOORS {
            ZoneFile::BuiltinDuelFloors
        } else {
            ZoneFile::Path(base.join(value))
        }
    }
}

impl<'de> Deserialize<'de> for ZoneFile {
    /// A non-empty file name, its path still relative ([`super::WorldSpec::rebase`]).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = String::deserialize(d)?;
        if value.is_empty() {
            return Err(de::Error::custom(
                "expected a file name, got an empty string",
            ));
        }
        Ok(ZoneFile::parse(&value, Path::new("")))
    }
}

/// One hosted world, validated: the id matches `[A-Za-z0-9_-]{1,64}` and the generator
/// accepts the seed. The zone sources are read when the server starts.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldConfig {
    pub id: String,
    pub generator: GeneratorKind,
    pub seed: u32,
    /// How overlapping flat zones combine.
    pub overlap: Overlap,
    /// Registered first at start-up: station and area zones.
    pub manifests: Option<Manifests>,
    /// Registered after the manifests, file by file, in order.
    pub zone_files: Vec<ZoneFile>,
    /// Where players appear: the ground around them is baked before the server is
    /// ready. Never empty (default: the origin).
    pub spawn: Vec<[f64; 2]>,
    /// The layout layer (hubs and spokes), when configured.
    pub layout: Option<LayoutSettings>,
    /// A voxel world's generator parameters: `Some` for every voxel world once
    /// resolved (the defaults when the file has no `[worlds.voxel]`), `None` for any
    /// other generator.
    pub voxel: Option<VoxelConfig>,
    /// The walkability rule as configured (each part defaulted by [`WorldConfig::walk_rule`]).
    pub walk: WalkSettings,
    /// The towns the `hyperscape` rule's difficulty fades in from (`towns`; default
    /// the original's five fallback towns). Never empty.
    pub towns: Vec<Town>,
    /// The side in metres of the square the world's 3D Tiles tileset covers
    /// (`tileset_extent`; default [`default_tileset_extent`]).
    pub tileset_extent: f64,
}

/// The largest `tileset_extent`, in metres.
pub const MAX_TILESET_EXTENT: f64 = 1_000_000.0;

/// The square a world's tileset covers by default: the original's 10 km island for
/// hyperscape worlds, 100 map squares (6.4 km) for osrs worlds, 4,096 columns for voxel
/// worlds.
pub fn default_tileset_extent(generator: GeneratorKind) -> f64 {
    match generator {
        GeneratorKind::Hyperscape => 10_000.0,
        GeneratorKind::Osrs => 6_400.0,
        GeneratorKind::Voxel => 4_096.0,
    }
}

impl WorldConfig {
    /// The walkability rule this world follows.
    pub fn walk_rule(&self) -> terrain_core::walk::WalkRule {
        self.walk
            .rule(self.generator, self.overlap, self.voxel.as_ref())
    }

    /// A world entry with layered overlap and no start-up zones; checked by
    /// [`super::Config::validate`].
    pub fn new(id: impl Into<String>, generator: GeneratorKind, seed: u32) -> Self {
        WorldConfig {
            id: id.into(),
            generator,
            seed,
            overlap: Overlap::default(),
            manifests: None,
            zone_files: Vec::new(),
            spawn: vec![[0.0, 0.0]],
            layout: None,
            voxel: (generator == GeneratorKind::Voxel).then(VoxelConfig::default),
            walk: WalkSettings::default(),
            towns: FALLBACK_TOWNS.to_vec(),
            tileset_extent: default_tileset_extent(generator),
        }
    }

    /// The default world: `main`, hyperscape seed 0, with the island's stations and
    /// duel arena floors compiled into the binary, combined by the default `layered`
    /// rule (continuous where zones overlap; configure `overlap = "hyperscape"` for
    /// the original game's rule and its cliffs).
    pub fn default_main() -> Self {
        WorldConfig {
            overlap: Overlap::Layered,
            manifests: Some(Manifests::BuiltinHyperscape),
            zone_files: vec![ZoneFile::BuiltinDuelFloors],
            ..WorldConfig::new("main", GeneratorKind::Hyperscape, 0)
        }
    }

    /// This world without start-up zones (tests that compare against the bare
    /// generator use it).
    pub fn without_zones(mut self) -> Self {
        self.manifests = None;
        self.zone_files.clear();
        self
    }
}

/// A generator's refusal, keyed by world and by the field its variant is about
/// (`worlds[1].seed: ...`).
pub(super) fn generator_error(index: usize, err: &GeneratorError) -> ConfigError {
    match err {
        GeneratorError::OsrsSeed(seed) => ConfigError::invalid(
            format!("worlds[{index}].seed"),
            format!("the osrs generator has no seed; it must be 0 (got {seed})"),
        ),
        other => ConfigError::invalid(
            format!("worlds[{index}].{}", other.field()),
            other.to_string(),
        ),
    }
}

/// Checks world `index`'s voxel settings against its generator: required (after
/// defaulting) and valid on a voxel world, absent on any other.
pub(super) fn check_voxel(
    index: usize,
    generator: GeneratorKind,
    voxel: Option<&VoxelConfig>,
) -> Result<(), ConfigError> {
    match (generator, voxel) {
        (GeneratorKind::Voxel, Some(config)) => config.validate().map_err(|e| {
            ConfigError::invalid(format!("worlds[{index}].{}", e.field()), e.to_string())
        }),
        (GeneratorKind::Voxel, None) => Err(ConfigError::invalid(
            format!("worlds[{index}].voxel"),
            "missing: a voxel world needs its voxel settings",
        )),
        (other, Some(_)) => Err(ConfigError::invalid(
            format!("worlds[{index}].voxel"),
            format!(
                "only a voxel world takes voxel settings (generator is {:?})",
                other.as_str()
            ),
        )),
        (_, None) => Ok(()),
    }
}

/// Turns raw world entries into validated ones; ids and seeds are checked by
/// [`super::Config::validate`].
pub(super) fn resolve_worlds(specs: Vec<WorldSpec>) -> Result<Vec<WorldConfig>, ConfigError> {
    specs
        .into_iter()
        .enumerate()
        .map(|(i, spec)| {
            let key = |k: &str| format!("worlds[{i}].{k}");
            for (name, value) in [("id", &spec.id), ("generator", &spec.generator)] {
                if value.is_empty() {
                    return Err(ConfigError::invalid(key(name), "missing (required)"));
                }
            }
            let generator = spec
                .generator
                .parse::<GeneratorKind>()
                .map_err(|e| ConfigError::invalid(key("generator"), e.to_string()))?;
            let voxel = match generator {
                GeneratorKind::Voxel => Some(spec.voxel.unwrap_or_default()),
                _ => spec.voxel,
            };
            check_voxel(i, generator, voxel.as_ref())?;
            let (walk, towns) = WalkSettings::resolve(
                i,
                generator,
                spec.overlap,
                voxel.as_ref(),
                WalkKeys {
                    walkability: spec.walkability.as_deref(),
                    biomes: spec.biomes.as_deref(),
                    max_slope: spec.max_slope,
                    towns: spec.towns.as_deref(),
                },
            )?;
            let tileset_extent = match spec.tileset_extent {
                None => default_tileset_extent(generator),
                Some(e) if e.is_finite() && e > 0.0 && e <= MAX_TILESET_EXTENT => e,
                Some(e) => {
                    return Err(ConfigError::invalid(
                        key("tileset_extent"),
                        format!("must be a side in metres above 0 and at most {MAX_TILESET_EXTENT} (got {e})"),
                    ));
                }
            };
            let mut spawn = spec.spawn;
            let layout = match spec.layout {
                None => None,
                Some(l) => {
                    if let Some(points) = &l.spawn {
                        if spawn.is_some() {
                            return Err(ConfigError::invalid(
                                key("layout.spawn"),
                                "given twice: set spawn either on the world or in its layout",
                            ));
                        }
                        spawn = Some(points.clone());
                    }
                    Some(
                        l.resolve(spec.seed, &key("layout"))
                            .map_err(|(key, message)| ConfigError::invalid(key, message))?,
                    )
                }
            };
            Ok(WorldConfig {
                id: spec.id,
                generator,
                seed: spec.seed,
                overlap: spec.overlap,
                manifests: spec.manifests,
                zone_files: spec.zone_files,
                spawn: spawn.unwrap_or_else(|| vec![[0.0, 0.0]]),
                tileset_extent,
                layout,
                voxel,
                walk,
                towns,
            })
        })
        .collect()
}
