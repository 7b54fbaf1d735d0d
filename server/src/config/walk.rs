//! A world's walkability rule: which points an entity may stand on, for terrain info,
//! path checks and path finding.
//!
//! ```toml
//! [[worlds]]
//! id = "main"
//! generator = "hyperscape"
//! overlap = "hyperscape"
//! walkability = "hyperscape"        # the original's isPositionWalkable, quirks included
//! biomes = "builtin:hyperscape"     # or a directory holding biomes.json
//!
//! [[worlds]]
//! id = "old"
//! generator = "osrs"
//! walkability = "max-slope"
//! max_slope = 1.0                   # rise over run
//! ```
//!
//! Defaults by generator: a hyperscape world under the `hyperscape` overlap rule takes
//! `hyperscape` (the original's answers, bit for bit); under `layered`, `slope` (the
//! biome at the point and its limit, water below 9 m). osrs worlds take `max-slope`
//! with limit 1 and no water; voxel worlds `block-step` (the top block solid and not
//! water, ice over water walkable, a move to a neighbouring column rising at most one
//! block). `block-step` reads blocks, so only voxel worlds take it; they may take
//! `max-slope` instead (water below the sea level).
//!
//! Under the `hyperscape` rule terrain info also answers the original's difficulty,
//! which fades in with the distance from the nearest town: `towns` lists them (at most
//! [`MAX_TOWNS`]; by default the original's five fallback towns):
//!
//! ```toml
//! [[worlds]]
//! id = "main"
//! walkability = "hyperscape"
//! towns = [{ x = 0, z = 0, radius = 25 }, { x = 400, z = -250, radius = 40 }]
//! ```

use std::path::Path;

use serde::Deserialize;
use terrain_core::{
    GeneratorKind, Overlap,
    voxel::VoxelConfig,
    walk::{BiomeLimits, FALLBACK_TOWNS, HYPERSCAPE_WATER, Town, WalkRule},
};

use super::ConfigError;

/// The most towns a world may list: each point of terrain info measures its distance
/// to every town (core's limit, which the replicas apply too).
pub use terrain_core::walk::difficulty::MAX_TOWNS;

/// One entry of `towns`, as the file gives it.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table { x, z, radius }")]
pub struct TownSpec {
    pub x: f64,
    pub z: f64,
    pub radius: f64,
}

/// World `index`'s towns: the configured ones, checked (at least one and at most
/// [`MAX_TOWNS`], finite centres, finite radii above 0, and only under the `hyperscape`
/// rule, the one whose difficulty reads them), or the original's five fallback towns.
/// Errors name the key (`worlds[0].towns[2].radius`).
fn resolve_towns(
    index: usize,
    towns: Option<&[TownSpec]>,
    rule: &WalkRule,
) -> Result<Vec<Town>, ConfigError> {
    let key = |k: &str| format!("worlds[{index}].towns{k}");
    let Some(towns) = towns else {
        return Ok(FALLBACK_TOWNS.to_vec());
    };
    if !matches!(rule, WalkRule::Hyperscape { .. }) {
        return Err(ConfigError::invalid(
            key(""),
            format!(
                "only the \"hyperscape\" walkability rule reads towns (its difficulty); this world's rule is {:?}",
                rule.name()
            ),
        ));
    }
    if towns.is_empty() {
        return Err(ConfigError::invalid(
            key(""),
            "at least one town (leave `towns` out for the original's five fallback towns)",
        ));
    }
    if towns.len() > MAX_TOWNS {
        return Err(ConfigError::invalid(
            key(""),
            format!("{} towns exceed the limit of {MAX_TOWNS}", towns.len()),
        ));
    }
    towns
        .iter()
        .enumerate()
        .map(|(i, t)| {
            for (name, v) in [("x", t.x), ("z", t.z)] {
                if !v.is_finite() {
                    return Err(ConfigError::invalid(
                        key(&format!("[{i}].{name}")),
                        format!("must be a finite number (got {v})"),
                    ));
                }
            }
            if !(t.radius.is_finite() && t.radius > 0.0) {
                return Err(ConfigError::invalid(
                    key(&format!("[{i}].radius")),
                    format!("must be a finite number above 0 (got {})", t.radius),
                ));
            }
            Ok(Town {
                x: t.x,
                z: t.z,
                radius: t.radius,
            })
        })
        .collect()
}

/// `biomes = "builtin:hyperscape"`: the per-biome limits of the spec, compiled in.
pub const BUILTIN_BIOMES: &str = "builtin:hyperscape";

/// The default `max-slope` limit: one metre of rise per metre.
pub const DEFAULT_MAX_SLOPE: f64 = 1.0;

/// The rules by configured name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleName {
    Hyperscape,
    Slope,
    MaxSlope,
    BlockStep,
}

impl RuleName {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "hyperscape" => Some(RuleName::Hyperscape),
            "slope" => Some(RuleName::Slope),
            "max-slope" => Some(RuleName::MaxSlope),
            "block-step" => Some(RuleName::BlockStep),
            _ => None,
        }
    }
}

/// A world's walkability as configured: each part optional, defaulted by
/// [`WalkSettings::rule`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WalkSettings {
    pub rule: Option<RuleName>,
    /// Per-biome limits read from a manifest; `None`: the builtin ones.
    pub biomes: Option<BiomeLimits>,
    pub max_slope: Option<f64>,
}

/// A world's movement keys as the file gives them.
#[derive(Debug, Clone, Copy, Default)]
pub struct WalkKeys<'a> {
    pub walkability: Option<&'a str>,
    pub biomes: Option<&'a str>,
    pub max_slope: Option<f64>,
    pub towns: Option<&'a [TownSpec]>,
}

impl WalkSettings {
    /// World `index`'s movement configuration in one step: its `walkability`,
    /// `biomes` and `max_slope` read and checked, and the towns its rule (the
    /// configured one or the default for `generator` under `overlap`) reads.
    pub(super) fn resolve(
        index: usize,
        generator: GeneratorKind,
        overlap: Overlap,
        voxel: Option<&VoxelConfig>,
        keys: WalkKeys<'_>,
    ) -> Result<(Self, Vec<Town>), ConfigError> {
        let settings = Self::read(index, generator, keys)?;
        let rule = settings.rule(generator, overlap, voxel);
        let towns = resolve_towns(index, keys.towns, &rule)?;
        Ok((settings, towns))
    }

    /// Reads and checks world `index`'s `walkability`, `biomes` and `max_slope`.
    fn read(
        index: usize,
        generator: GeneratorKind,
        keys: WalkKeys<'_>,
    ) -> Result<Self, ConfigError> {
        let WalkKeys {
            walkability,
            biomes,
            max_slope,
            ..
        } = keys;
        let key = |k: &str| format!("worlds[{index}].{k}");
        let rule = match walkability {
            None => None,
            Some(name) => Some(RuleName::parse(name).ok_or_else(|| {
                ConfigError::invalid(
                    key("walkability"),
                    format!(
                        "unknown rule {}; expected \"hyperscape\", \"slope\", \"max-slope\" or \"block-step\"",
                        terrain_core::quote::Quoted(name)
                    ),
                )
            })?),
        };
        if matches!(rule, Some(RuleName::Hyperscape | RuleName::Slope))
            && generator != GeneratorKind::Hyperscape
        {
            return Err(ConfigError::invalid(
                key("walkability"),
                format!(
                    "the {:?} rule reads hyperscape biomes; a {:?} world takes \"max-slope\"",
                    walkability.unwrap_or_default(),
                    generator.as_str()
                ),
            ));
        }
        if rule == Some(RuleName::BlockStep) && generator != GeneratorKind::Voxel {
            return Err(ConfigError::invalid(
                key("walkability"),
                format!(
                    "the \"block-step\" rule reads blocks; a {:?} world takes \"max-slope\"",
                    generator.as_str()
                ),
            ));
        }
        let biomes = match biomes {
            None => None,
            Some(BUILTIN_BIOMES) => Some(BiomeLimits::hyperscape()),
            Some(dir) => Some(read_biomes(Path::new(dir), &key("biomes"))?),
        };
        if let Some(slope) = max_slope
            && !(slope.is_finite() && slope > 0.0)
        {
            return Err(ConfigError::invalid(
                key("max_slope"),
                format!("must be a finite number above 0 (got {slope})"),
            ));
        }
        Ok(WalkSettings {
            rule,
            biomes,
            max_slope,
        })
    }

    /// The rule a world of `generator` under `overlap` follows: the configured one,
    /// or the generator's default.
    pub fn rule(
        &self,
        generator: GeneratorKind,
        overlap: Overlap,
        voxel: Option<&VoxelConfig>,
    ) -> WalkRule {
        let limits = || self.biomes.clone().unwrap_or_else(BiomeLimits::hyperscape);
        let name = self.rule.unwrap_or(match (generator, overlap) {
            (GeneratorKind::Hyperscape, Overlap::Hyperscape) => RuleName::Hyperscape,
            (GeneratorKind::Hyperscape, _) => RuleName::Slope,
            (GeneratorKind::Voxel, _) => RuleName::BlockStep,
            _ => RuleName::MaxSlope,
        });
        match name {
            RuleName::Hyperscape => WalkRule::Hyperscape { limits: limits() },
            RuleName::Slope => WalkRule::Slope {
                limits: limits(),
                water_level: HYPERSCAPE_WATER,
            },
            RuleName::MaxSlope => WalkRule::MaxSlope {
                max_slope: self.max_slope.unwrap_or(DEFAULT_MAX_SLOPE),
                water_level: match generator {
                    GeneratorKind::Hyperscape => Some(HYPERSCAPE_WATER),
                    GeneratorKind::Voxel => voxel.map(|v| f64::from(v.sea_level)),
                    _ => None,
                },
            },
            RuleName::BlockStep => WalkRule::BlockStep {
                sea_level: f64::from(
                    voxel.map_or(VoxelConfig::default().sea_level, |v| v.sea_level),
                ),
            },
        }
    }
}

/// The limits of `dir/biomes.json`; errors name `key` and the manifest's field.
fn read_biomes(dir: &Path, key: &str) -> Result<BiomeLimits, ConfigError> {
    let path = dir.join("biomes.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        ConfigError::invalid(key.to_string(), format!("reading {}: {e}", path.display()))
    })?;
    BiomeLimits::from_json(&text).map_err(|e| {
        ConfigError::invalid(
            format!("{key} ({}{})", path.display(), e.field()),
            e.to_string(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_generator_has_its_default_rule() {
        let none = WalkSettings::default();
        let h = GeneratorKind::Hyperscape;
        assert_eq!(none.rule(h, Overlap::Hyperscape, None).name(), "hyperscape");
        assert_eq!(none.rule(h, Overlap::Layered, None).name(), "slope");
        assert_eq!(
            none.rule(GeneratorKind::Osrs, Overlap::Layered, None),
            WalkRule::MaxSlope {
                max_slope: 1.0,
                water_level: None
            }
        );
        let voxel = VoxelConfig::default();
        let voxel = VoxelConfig {
            sea_level: 30,
            ..voxel
        };
        assert_eq!(
            none.rule(GeneratorKind::Voxel, Overlap::Layered, Some(&voxel)),
            WalkRule::BlockStep { sea_level: 30.0 }
        );
        let slope = WalkSettings::read(
            0,
            GeneratorKind::Voxel,
            WalkKeys {
                walkability: Some("max-slope"),
                biomes: None,
                max_slope: None,
                towns: None,
            },
        )
        .unwrap();
        assert_eq!(
            slope.rule(GeneratorKind::Voxel, Overlap::Layered, Some(&voxel)),
            WalkRule::MaxSlope {
                max_slope: 1.0,
                water_level: Some(30.0)
            }
        );
    }

    #[test]
    fn bad_settings_name_their_key() {
        let h = GeneratorKind::Hyperscape;
        let err = WalkSettings::read(
            2,
            h,
            WalkKeys {
                walkability: Some("steep"),
                biomes: None,
                max_slope: None,
                towns: None,
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("worlds[2].walkability"), "{err}");
        let err = WalkSettings::read(
            0,
            GeneratorKind::Osrs,
            WalkKeys {
                walkability: Some("slope"),
                biomes: None,
                max_slope: None,
                towns: None,
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("worlds[0].walkability"), "{err}");
        let err = WalkSettings::read(
            3,
            GeneratorKind::Osrs,
            WalkKeys {
                walkability: Some("block-step"),
                biomes: None,
                max_slope: None,
                towns: None,
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("worlds[3].walkability"), "{err}");
        let err = WalkSettings::read(
            1,
            h,
            WalkKeys {
                walkability: None,
                biomes: None,
                max_slope: Some(-1.0),
                towns: None,
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("worlds[1].max_slope"), "{err}");
        let err = WalkSettings::read(
            1,
            h,
            WalkKeys {
                walkability: None,
                biomes: Some("/nonexistent-dir"),
                max_slope: None,
                towns: None,
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("worlds[1].biomes"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("biomes.json"),
            r#"[{"id":"a","maxSlope":"x"}]"#,
        )
        .unwrap();
        let dir_name = dir.path().to_str().unwrap();
        let err = WalkSettings::read(
            1,
            h,
            WalkKeys {
                walkability: None,
                biomes: Some(dir_name),
                max_slope: None,
                towns: None,
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("[0].maxSlope"), "{err}");
        std::fs::write(
            dir.path().join("biomes.json"),
            r#"[{"id":"plains","maxSlope":0.25}]"#,
        )
        .unwrap();
        let ok = WalkSettings::read(
            1,
            h,
            WalkKeys {
                walkability: Some("slope"),
                biomes: Some(dir_name),
                max_slope: None,
                towns: None,
            },
        )
        .unwrap();
        match ok.rule(h, Overlap::Layered, None) {
            WalkRule::Slope { limits, .. } => assert_eq!(limits.max_slope("plains"), 0.25),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn towns_default_to_the_fallback_and_bad_ones_name_their_key() {
        let h = WalkRule::Hyperscape {
            limits: BiomeLimits::hyperscape(),
        };
        assert_eq!(resolve_towns(0, None, &h).unwrap(), FALLBACK_TOWNS);
        let town = TownSpec {
            x: 10.0,
            z: -20.0,
            radius: 30.0,
        };
        assert_eq!(
            resolve_towns(0, Some(&[town]), &h).unwrap(),
            [Town {
                x: 10.0,
                z: -20.0,
                radius: 30.0
            }]
        );
        let key = |towns: &[TownSpec], rule: &WalkRule| {
            let err = resolve_towns(3, Some(towns), rule).unwrap_err();
            let text = err.to_string();
            text.split(':').next().unwrap().to_string()
        };
        assert_eq!(key(&[], &h), "worlds[3].towns");
        assert_eq!(key(&vec![town; MAX_TOWNS + 1], &h), "worlds[3].towns");
        assert!(resolve_towns(3, Some(&vec![town; MAX_TOWNS]), &h).is_ok());
        let slope = WalkRule::MaxSlope {
            max_slope: 1.0,
            water_level: None,
        };
        assert_eq!(key(&[town], &slope), "worlds[3].towns");
        for (bad, field) in [
            (
                TownSpec {
                    x: f64::NAN,
                    ..town
                },
                "worlds[3].towns[1].x",
            ),
            (
                TownSpec {
                    z: f64::INFINITY,
                    ..town
                },
                "worlds[3].towns[1].z",
            ),
            (
                TownSpec {
                    radius: 0.0,
                    ..town
                },
                "worlds[3].towns[1].radius",
            ),
            (
                TownSpec {
                    radius: -1.0,
                    ..town
                },
                "worlds[3].towns[1].radius",
            ),
        ] {
            assert_eq!(key(&[town, bad], &h), field);
        }
    }
}
