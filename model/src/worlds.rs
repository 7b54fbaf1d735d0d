//! What `ListWorlds` says of a hosted world: [`WorldInfo`] (its identity, tile grid,
//! revision and zones at one snapshot, its [`WorldLayout`] and, for a voxel world, its
//! generator parameters) and the voxel generator's block kinds ([`BlockKindInfo`]),
//! with their protobuf forms (`World`, `WorldLayout`, `VoxelParameters`,
//! `BlockKindInfo`).
//!
//! The generator, overlap rule and layout names stay names here: a client lists a
//! world whose generator it does not know, and only building a local replica of it
//! fails (`terrain_client::build_terrain`).

use terrain_core::{
    quote::Num,
    voxel::{BlockKind, VoxelConfig},
    walk::{BiomeLimits, HYPERSCAPE_WATER, MAX_STEP, Town, WalkRule},
};
use terrain_proto::v1 as pb;

use crate::FieldError;

/// One hosted world, as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldInfo {
    pub id: String,
    /// `"hyperscape"`, `"osrs"` or `"voxel"`.
    pub generator: String,
    pub seed: u32,
    /// Edge length of one mesh tile, in world units.
    pub tile_size: f64,
    /// Vertices along one edge of a tile mesh.
    pub tile_resolution: u32,
    /// The world's revision when it was listed (read from the same snapshot as
    /// `zones`).
    pub revision: u64,
    /// How overlapping zones combine: `"layered"` or `"hyperscape"`.
    pub overlap: String,
    /// The number of registered flat zones when it was listed.
    pub zones: u64,
    /// The layout layer, for worlds with one.
    pub layout: Option<WorldLayout>,
    /// A voxel world's generator parameters, every key (the wire carries them as
    /// `VoxelParameters.config_json`; its block kinds are [`block_kinds`]).
    pub voxel: Option<VoxelConfig>,
    /// The walkability rule the world judges movement by, with every parameter it
    /// reads; `None` from a server that does not describe it.
    pub walkability: Option<WalkRule>,
}

/// A walkability rule on the wire: each biome with its limit and difficulty tier; no
/// towns (a world's towns are its own: [`town_messages`] fills `towns`).
pub fn walk_rule_message(rule: &WalkRule) -> pb::WalkRule {
    pb::WalkRule {
        name: rule.name().to_string(),
        biomes: rule
            .biome_limits()
            .map(|l| {
                let tiers: std::collections::BTreeMap<&str, f64> = l.difficulty_entries().collect();
                l.entries()
                    .map(|(id, max_slope)| pb::BiomeSlope {
                        id: id.to_string(),
                        max_slope,
                        difficulty: tiers.get(id).copied(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        water_level: rule.water_level(),
        max_slope: rule.max_slope(),
        max_step: rule.max_step(),
        towns: Vec::new(),
    }
}

/// Towns on the wire (`WalkRule.towns`).
pub fn town_messages(towns: &[Town]) -> Vec<pb::Town> {
    towns
        .iter()
        .map(|t| pb::Town {
            x: t.x,
            z: t.z,
            radius: t.radius,
        })
        .collect()
}

/// The towns of a `WalkRule` message: each centre finite and each radius finite and
/// above 0, else refused naming it (`walkability.towns[2].radius`). Empty where the
/// rule has none (then [`terrain_core::walk::Walker::difficulty`] reads the original's
/// fallback towns, as the server's default configuration lists them).
pub fn towns_of(m: &pb::WalkRule) -> Result<Vec<Town>, FieldError> {
    m.towns
        .iter()
        .enumerate()
        .map(|(i, t)| {
            for (key, v) in [("x", t.x), ("z", t.z)] {
                if !v.is_finite() {
                    return Err(FieldError::new(
                        format!("walkability.towns[{i}].{key}"),
                        format!("must be finite, got {v}"),
                    ));
                }
            }
            if !(t.radius.is_finite() && t.radius > 0.0) {
                return Err(FieldError::new(
                    format!("walkability.towns[{i}].radius"),
                    format!("must be a finite number above 0, got {}", Num(t.radius)),
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

/// The rule a `WalkRule` message describes; errors name the field under
/// `walkability`.
pub fn walk_rule_of(m: pb::WalkRule) -> Result<WalkRule, FieldError> {
    let limits = |biomes: Vec<pb::BiomeSlope>| {
        let tiers: Vec<(String, f64)> = biomes
            .iter()
            .filter_map(|b| b.difficulty.map(|d| (b.id.clone(), d)))
            .collect();
        if let Some(i) = biomes
            .iter()
            .position(|b| b.difficulty.is_some_and(|d| !d.is_finite()))
        {
            return Err(FieldError::new(
                format!("walkability.biomes[{i}].difficulty"),
                format!("must be finite, got {:?}", biomes[i].difficulty),
            ));
        }
        let limits = BiomeLimits::from_entries(biomes.into_iter().map(|b| (b.id, b.max_slope)));
        limits.map(|l| l.with_difficulty(tiers)).map_err(|e| {
            let field = match e {
                terrain_core::walk::BiomesError::Duplicate { index, .. } => {
                    format!("walkability.biomes[{index}].id")
                }
                terrain_core::walk::BiomesError::MaxSlope { index, .. } => {
                    format!("walkability.biomes[{index}].max_slope")
                }
                terrain_core::walk::BiomesError::Json { .. } => "walkability.biomes".into(),
            };
            FieldError::new(field, e.to_string())
        })
    };
    let level = |v: Option<f64>| match v {
        Some(l) if l.is_finite() => Ok(l),
        Some(l) => Err(FieldError::new(
            "walkability.water_level",
            format!("must be finite, got {l}"),
        )),
        None => Err(FieldError::new(
            "walkability.water_level",
            format!("required by the {:?} rule", m.name),
        )),
    };
    match m.name.as_str() {
        "hyperscape" => {
            if m.water_level.is_some_and(|l| l != HYPERSCAPE_WATER) {
                return Err(FieldError::new(
                    "walkability.water_level",
                    format!("the hyperscape rule's water level is {HYPERSCAPE_WATER}"),
                ));
            }
            Ok(WalkRule::Hyperscape {
                limits: limits(m.biomes)?,
            })
        }
        "slope" => Ok(WalkRule::Slope {
            water_level: level(m.water_level)?,
            limits: limits(m.biomes)?,
        }),
        "max-slope" => match m.max_slope {
            Some(s) if s.is_finite() && s > 0.0 => Ok(WalkRule::MaxSlope {
                max_slope: s,
                water_level: m.water_level.map(|l| level(Some(l))).transpose()?,
            }),
            other => Err(FieldError::new(
                "walkability.max_slope",
                format!("must be a finite number above 0, got {other:?}"),
            )),
        },
        "block-step" => {
            if m.max_step.is_some_and(|s| s != MAX_STEP) {
                return Err(FieldError::new(
                    "walkability.max_step",
                    format!(
                        "only a step of {MAX_STEP} block is known, got {:?}",
                        m.max_step
                    ),
                ));
            }
            Ok(WalkRule::BlockStep {
                sea_level: level(m.water_level)?,
            })
        }
        other => Err(FieldError::new(
            "walkability.name",
            format!("unknown rule {other:?}"),
        )),
    }
}

/// A world's layout layer, as listed: with the world's generator and seed, everything
/// its hubs, spokes and flattening derive from.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldLayout {
    /// `"grid"`, `"zigzag"`, `"rings"` or `"chaotic"`.
    pub pattern: String,
    /// `"grid"` or `"planar"`.
    pub spokes: String,
    pub chunk_size: f64,
    pub cell_size: f64,
}

/// One block kind of the voxel generator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockKindInfo {
    pub id: u8,
    pub name: &'static str,
    /// sRGB 0..255.
    pub colour: [u8; 3],
    pub solid: bool,
    pub occludes: bool,
    pub jitter: f32,
}

/// The voxel generator's block kinds, in id order.
pub fn block_kinds() -> Vec<BlockKindInfo> {
    BlockKind::ALL
        .iter()
        .map(|&kind| {
            let info = kind.info();
            BlockKindInfo {
                id: kind.id(),
                name: kind.name(),
                colour: info.colour,
                solid: info.solid,
                occludes: info.occludes,
                jitter: info.jitter,
            }
        })
        .collect()
}

impl From<BlockKindInfo> for pb::BlockKindInfo {
    fn from(k: BlockKindInfo) -> Self {
        let [r, g, b] = k.colour.map(u32::from);
        pb::BlockKindInfo {
            id: u32::from(k.id),
            name: k.name.to_string(),
            r,
            g,
            b,
            solid: k.solid,
            occludes: k.occludes,
            jitter: k.jitter,
        }
    }
}

/// A voxel world's parameters on the wire: the main keys, all of them as JSON, and the
/// block kinds.
fn voxel_parameters(config: &VoxelConfig) -> pb::VoxelParameters {
    pb::VoxelParameters {
        max_height: config.max_height,
        sea_level: config.sea_level,
        erosion_iterations: config.erosion_iterations,
        talus_threshold: config.talus_threshold,
        primary_biome: config
            .primary_biome
            .map(|b| b.name().to_string())
            .unwrap_or_default(),
        // A derived Serialize of plain numbers and names cannot fail.
        config_json: serde_json::to_string(config).unwrap_or_default(),
        kinds: block_kinds()
            .into_iter()
            .map(pb::BlockKindInfo::from)
            .collect(),
    }
}

impl From<&WorldInfo> for pb::World {
    fn from(w: &WorldInfo) -> Self {
        pb::World {
            id: w.id.clone(),
            generator: w.generator.clone(),
            seed: w.seed,
            tile_size: w.tile_size,
            tile_resolution: w.tile_resolution,
            revision: w.revision,
            overlap: w.overlap.clone(),
            zones: w.zones,
            layout: w.layout.as_ref().map(|l| pb::WorldLayout {
                pattern: l.pattern.clone(),
                spokes: l.spokes.clone(),
                chunk_size: l.chunk_size,
                cell_size: l.cell_size,
            }),
            voxel: w.voxel.as_ref().map(voxel_parameters),
            walkability: w.walkability.as_ref().map(walk_rule_message),
        }
    }
}

impl TryFrom<pb::World> for WorldInfo {
    type Error = FieldError;

    /// Refuses a voxel world whose `config_json` is not a voxel configuration (field
    /// `voxel.config_json`), and a walkability rule that is not one (fields under
    /// `walkability`).
    fn try_from(w: pb::World) -> Result<Self, FieldError> {
        let voxel = w
            .voxel
            .map(|v| serde_json::from_str::<VoxelConfig>(&v.config_json))
            .transpose()
            .map_err(|e| FieldError::new("voxel.config_json", e.to_string()))?;
        let walkability = w.walkability.map(walk_rule_of).transpose()?;
        Ok(WorldInfo {
            id: w.id,
            generator: w.generator,
            seed: w.seed,
            tile_size: w.tile_size,
            tile_resolution: w.tile_resolution,
            revision: w.revision,
            overlap: w.overlap,
            zones: w.zones,
            layout: w.layout.map(|l| WorldLayout {
                pattern: l.pattern,
                spokes: l.spokes,
                chunk_size: l.chunk_size,
                cell_size: l.cell_size,
            }),
            voxel,
            walkability,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(voxel: Option<VoxelConfig>) -> WorldInfo {
        WorldInfo {
            id: "main".into(),
            generator: "voxel".into(),
            seed: 3,
            tile_size: 32.0,
            tile_resolution: 33,
            revision: 4,
            overlap: "layered".into(),
            zones: 2,
            layout: Some(WorldLayout {
                pattern: "grid".into(),
                spokes: "planar".into(),
                chunk_size: 256.0,
                cell_size: 8.0,
            }),
            voxel,
            walkability: Some(WalkRule::BlockStep { sea_level: 41.0 }),
        }
    }

    #[test]
    fn worlds_round_trip_through_protobuf_with_their_block_kinds() {
        let config = VoxelConfig {
            sea_level: 41,
            ..VoxelConfig::default()
        };
        let info = world(Some(config));
        let message = pb::World::from(&info);
        let voxel = message.voxel.as_ref().expect("voxel parameters");
        assert_eq!(voxel.sea_level, 41);
        assert_eq!(voxel.kinds.len(), BlockKind::ALL.len());
        assert_eq!(voxel.kinds[0].id, 0);
        assert_eq!(WorldInfo::try_from(message), Ok(info));
        let plain = world(None);
        assert_eq!(WorldInfo::try_from(pb::World::from(&plain)), Ok(plain));
    }

    #[test]
    fn every_walkability_rule_round_trips_and_a_bad_one_names_its_field() {
        let custom =
            BiomeLimits::from_entries([("swamp".into(), 0.25), ("desert".into(), 0.5)]).unwrap();
        for rule in [
            WalkRule::Hyperscape {
                limits: BiomeLimits::hyperscape(),
            },
            WalkRule::Slope {
                limits: custom.clone(),
                water_level: 7.5,
            },
            WalkRule::MaxSlope {
                max_slope: 1.5,
                water_level: None,
            },
            WalkRule::MaxSlope {
                max_slope: 0.75,
                water_level: Some(3.0),
            },
            WalkRule::BlockStep { sea_level: 24.0 },
        ] {
            let info = WorldInfo {
                walkability: Some(rule),
                ..world(None)
            };
            assert_eq!(WorldInfo::try_from(pb::World::from(&info)), Ok(info));
        }
        // The biomes go sorted by id.
        let m = walk_rule_message(&WalkRule::Slope {
            limits: custom,
            water_level: 9.0,
        });
        let ids: Vec<&str> = m.biomes.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(ids, ["desert", "swamp"]);
        assert_eq!(m.water_level, Some(9.0));
        let good = walk_rule_message(&WalkRule::BlockStep { sea_level: 24.0 });
        assert_eq!((good.max_step, good.max_slope), (Some(1.0), None));
        let cases = [
            (
                pb::WalkRule {
                    name: "steep".into(),
                    ..good.clone()
                },
                "walkability.name",
            ),
            (
                pb::WalkRule {
                    max_step: Some(2.0),
                    ..good.clone()
                },
                "walkability.max_step",
            ),
            (
                pb::WalkRule {
                    water_level: None,
                    ..good.clone()
                },
                "walkability.water_level",
            ),
            (
                pb::WalkRule {
                    name: "max-slope".into(),
                    ..good.clone()
                },
                "walkability.max_slope",
            ),
            (
                pb::WalkRule {
                    name: "slope".into(),
                    biomes: vec![pb::BiomeSlope {
                        id: "a".into(),
                        max_slope: -1.0,
                        difficulty: None,
                    }],
                    ..good.clone()
                },
                "walkability.biomes[0].max_slope",
            ),
            (
                pb::WalkRule {
                    name: "hyperscape".into(),
                    water_level: None,
                    biomes: vec![pb::BiomeSlope {
                        id: "a".into(),
                        max_slope: 1.0,
                        difficulty: Some(f64::NAN),
                    }],
                    ..good
                },
                "walkability.biomes[0].difficulty",
            ),
        ];
        for (message, field) in cases {
            let mut w = pb::World::from(&world(None));
            w.walkability = Some(message);
            assert_eq!(WorldInfo::try_from(w).unwrap_err().field, field);
        }
    }

    /// The manifest's difficulty tiers travel with the biomes, so a listed rule judges
    /// difficulty as the server's does; towns travel beside it and are checked.
    #[test]
    fn difficulty_tiers_and_towns_round_trip_and_bad_towns_name_their_field() {
        let rule = WalkRule::Hyperscape {
            limits: BiomeLimits::hyperscape(),
        };
        let m = walk_rule_message(&rule);
        let swamp = m.biomes.iter().find(|b| b.id == "swamp").unwrap();
        assert_eq!((swamp.max_slope, swamp.difficulty), (0.5, Some(1.0)));
        let back = walk_rule_of(m.clone()).unwrap();
        assert_eq!(back, rule);
        assert_eq!(back.biome_limits().unwrap().difficulty("tundra"), 3.0);
        assert!(m.towns.is_empty());
        let towns = terrain_core::walk::FALLBACK_TOWNS.to_vec();
        let with = pb::WalkRule {
            towns: town_messages(&towns),
            ..m
        };
        assert_eq!(towns_of(&with), Ok(towns));
        let bad = |i: usize, t: pb::Town| {
            let mut m = with.clone();
            m.towns[i] = t;
            towns_of(&m).unwrap_err().field
        };
        let town = pb::Town {
            x: 1.0,
            z: 2.0,
            radius: 3.0,
        };
        for (t, field) in [
            (
                pb::Town {
                    x: f64::NAN,
                    ..town
                },
                "walkability.towns[2].x",
            ),
            (
                pb::Town {
                    z: f64::INFINITY,
                    ..town
                },
                "walkability.towns[2].z",
            ),
            (
                pb::Town {
                    radius: 0.0,
                    ..town
                },
                "walkability.towns[2].radius",
            ),
        ] {
            assert_eq!(bad(2, t), field);
        }
        // A huge radius is echoed short and exact, not in 309 digits.
        let mut m = with.clone();
        m.towns[0].radius = -1e308;
        assert_eq!(
            towns_of(&m).unwrap_err().reason,
            "must be a finite number above 0, got -1e308"
        );
    }

    #[test]
    fn a_voxel_world_without_a_configuration_is_refused() {
        let mut message = pb::World::from(&world(Some(VoxelConfig::default())));
        if let Some(v) = message.voxel.as_mut() {
            v.config_json = "{\"bogus\": 1}".into();
        }
        let err = WorldInfo::try_from(message).unwrap_err();
        assert_eq!(err.field, "voxel.config_json");
    }
}
