//! A world's description and the one function that turns it, with its zones, into
//! the [`Terrain`] every party answers heights from.
//!
//! The server builds each hosted world with [`build_terrain`] and the client SDK's
//! local replica builds its copy with the same call from what the server lists
//! (generator, seed, overlap rule, layout settings, zones), so the bit-equality of
//! server and replica rests on this one function, not on two copies of it.

use std::sync::Arc;

use crate::{
    generator::{GeneratorError, GeneratorKind, WorldGenerator},
    layout::{LayoutConfig, LayoutError, LayoutGround},
    terrain::Terrain,
    voxel::VoxelConfig,
    zones::{FlatZone, Overlap, ZoneSet},
};

/// Everything a world's terrain derives from besides its zones.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldSpec {
    pub generator: GeneratorKind,
    pub seed: u32,
    /// How overlapping zones combine.
    pub overlap: Overlap,
    /// The hub / spoke layout layer, if the world has one (its seed is the world's).
    pub layout: Option<LayoutConfig>,
    /// The voxel generator's parameters: `None` takes the defaults on a voxel world,
    /// and must be `None` on the others.
    pub voxel: Option<VoxelConfig>,
}

/// Why a world's terrain could not be built; [`BuildError::field`] says which
/// setting.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Generator(#[from] GeneratorError),
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

impl BuildError {
    /// The setting the error is about: `seed`, a `voxel.*` key, `voxel` or `layout`.
    pub fn field(&self) -> &'static str {
        match self {
            BuildError::Generator(e) => e.field(),
            BuildError::Layout(_) => "layout",
        }
    }
}

/// The terrain of world `spec` with `zones` (each with the revision that registered
/// it, in registration order) on top: the generator, the layout layer between it and
/// the zones when configured, and the zone set with the world's overlap rule.
pub fn build_terrain(
    spec: &WorldSpec,
    zones: impl IntoIterator<Item = (FlatZone, u64)>,
) -> Result<Terrain, BuildError> {
    let generator = match (spec.generator, spec.voxel) {
        (GeneratorKind::Voxel, _) if spec.layout.is_some() => {
            return Err(GeneratorError::VoxelLayout.into());
        }
        (GeneratorKind::Voxel, config) => {
            WorldGenerator::voxel(spec.seed, config.unwrap_or_default())?
        }
        (kind, Some(_)) => return Err(GeneratorError::VoxelParameters(kind).into()),
        (kind, None) => WorldGenerator::new(kind, spec.seed)?,
    };
    let mut set = ZoneSet::new(spec.overlap, generator.tile_size());
    for (zone, revision) in zones {
        set.insert(zone, revision);
    }
    let layout = match spec.layout {
        Some(config) => Some(Arc::new(LayoutGround::new(
            LayoutConfig {
                seed: spec.seed,
                ..config
            },
            generator.clone(),
        )?)),
        None => None,
    };
    let terrain = Terrain::new(generator, set);
    Ok(match layout {
        Some(surface) => terrain.with_layout(surface),
        None => terrain,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        generator::Generator,
        layout::{Pattern, SpokeRule},
        zones::Shape,
    };

    #[test]
    fn builds_generator_layout_and_zones_together() {
        let zone = FlatZone {
            id: "a".into(),
            center_x: 10.0,
            center_z: -4.0,
            shape: Shape::Circle { radius: 6.0 },
            height: 42.5,
            blend_radius: 2.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        let layout = LayoutConfig {
            pattern: Pattern::Grid,
            spokes: SpokeRule::Grid,
            chunk_size: 256.0,
            cell_size: 16.0,
            seed: 0,
        };
        let spec = WorldSpec {
            generator: GeneratorKind::Hyperscape,
            seed: 7,
            overlap: Overlap::Layered,
            layout: Some(layout),
            voxel: None,
        };
        let terrain = build_terrain(&spec, [(zone.clone(), 3)]).unwrap();
        assert_eq!(terrain.height(10.0, -4.0), 42.5);
        assert_eq!(terrain.zones().revision_of("a"), Some(3));
        // The layout takes the world's seed, whatever the config said.
        let surface = terrain.layout().unwrap();
        let direct = LayoutGround::new(
            LayoutConfig { seed: 7, ..layout },
            WorldGenerator::new(GeneratorKind::Hyperscape, 7).unwrap(),
        )
        .unwrap();
        let (x, z) = (300.0, 170.0);
        let p = terrain.generator().height(x, z);
        assert_eq!(
            surface.apply(x, z, p).to_bits(),
            direct.apply(x, z, p).to_bits()
        );
        // Without a layout: the generator and the zones only.
        let plain = build_terrain(
            &WorldSpec {
                layout: None,
                ..spec
            },
            [],
        )
        .unwrap();
        assert!(plain.layout().is_none());
        assert_eq!(
            plain.height(x, z).to_bits(),
            terrain.generator().height(x, z).to_bits()
        );
        let bad = LayoutConfig {
            cell_size: 512.0,
            ..layout
        };
        let err = build_terrain(
            &WorldSpec {
                layout: Some(bad),
                ..spec
            },
            [],
        )
        .unwrap_err();
        assert_eq!(err.field(), "layout");
    }

    /// Another zone set over the same generator and layout answers what the world
    /// built with those zones answers, and shares the layout.
    #[test]
    fn with_zones_is_the_world_built_with_those_zones() {
        let zone = |id: &str, x: f64, height: f64| FlatZone {
            id: id.into(),
            center_x: x,
            center_z: 4.0,
            shape: Shape::Circle { radius: 6.0 },
            height,
            blend_radius: 3.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        let layout = LayoutConfig {
            pattern: Pattern::Grid,
            spokes: SpokeRule::Grid,
            chunk_size: 256.0,
            cell_size: 16.0,
            seed: 0,
        };
        for overlap in [Overlap::Layered, Overlap::Hyperscape] {
            let spec = WorldSpec {
                generator: GeneratorKind::Hyperscape,
                seed: 3,
                overlap,
                layout: Some(layout),
                voxel: None,
            };
            let first = [(zone("a", 0.0, 30.0), 1), (zone("b", 5.0, 35.0), 2)];
            let second = [(zone("b", 5.0, 35.0), 2), (zone("a", 8.0, 20.0), 4)];
            let built = build_terrain(&spec, first.clone()).unwrap();
            let other = built.with_zones(second.clone());
            let fresh = build_terrain(&spec, second).unwrap();
            assert_eq!(other.zones().overlap(), overlap);
            assert_eq!(other.zones().revision_of("a"), Some(4));
            assert!(std::ptr::eq(
                other.layout().unwrap(),
                built.layout().unwrap()
            ));
            for i in 0..400 {
                let (x, z) = (f64::from(i % 20) - 4.5, f64::from(i / 20) - 6.25);
                assert_eq!(
                    other.height(x, z).to_bits(),
                    fresh.height(x, z).to_bits(),
                    "({x}, {z})"
                );
            }
            // Zone a's old core: level ground before, the terrain now.
            assert_eq!(built.height(-4.0, 4.0), 30.0);
            assert_ne!(other.height(-4.0, 4.0), 30.0);
        }
    }
}
