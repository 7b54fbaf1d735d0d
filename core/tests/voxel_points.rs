//! A voxel terrain's one-column paths (heights, procedural heights, a column and the
//! block seen from above it) equal what the blocks of a volume over the column say,
//! with flat zones and without, over random columns near and far.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use terrain_core::generator::Generator;
use terrain_core::voxel::{self, VoxelConfig};
use terrain_core::zones::Shape;
use terrain_core::{FlatZone, GeneratorKind, Overlap, Terrain, WorldSpec, build_terrain};

fn terrain(seed: u32, config: VoxelConfig) -> Terrain {
    let spec = WorldSpec {
        generator: GeneratorKind::Voxel,
        seed,
        overlap: Overlap::Layered,
        layout: None,
        voxel: Some(config),
    };
    build_terrain(&spec, []).unwrap()
}

fn zone(id: &str, x: f64, z: f64, shape: Shape, height: f64, blend: f64) -> FlatZone {
    FlatZone {
        id: id.into(),
        center_x: x,
        center_z: z,
        shape,
        height,
        blend_radius: blend,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    }
}

/// Every one-column path at column `(x, z)` against the volume of the 3 x 3 columns
/// around it.
fn check(t: &Terrain, x: i64, z: i64, at: &str) {
    let volume = t.voxel_area(x - 1, z - 1, 3, 3).unwrap();
    let column = *volume.column(x, z).unwrap();
    let (own, top) = t.voxel_column_top(x, z).unwrap();
    assert_eq!(own, column, "{at}");
    assert_eq!(top, volume.top(x, z), "{at}");
    let (fx, fz) = (x as f64 + 0.25, z as f64 + 0.75);
    assert_eq!(t.height(fx, fz), f64::from(column.height), "{at}");
    if t.zones().is_empty() {
        let g = t.generator();
        assert_eq!(g.height(fx, fz), f64::from(column.height), "{at}");
        // The procedural height is the eroded ground: the top of the terrain blocks
        // under water, ice and decorations.
        let ground = (0..i64::from(volume.height()))
            .rev()
            .find(|&y| {
                use voxel::BlockKind::*;
                matches!(
                    volume.get(x, y, z),
                    Stone | Dirt | Grass | Moss | Sand | Snow
                )
            })
            .map_or(0, |y| y + 1);
        assert_eq!(g.procedural(fx, fz), ground as f64, "{at}");
    }
}

#[test]
fn one_column_paths_equal_the_volume_at_random_columns() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2545_f491_4f6c_dd1d);
    let steep = VoxelConfig {
        amplitude: 17,
        ..VoxelConfig::default()
    };
    for (name, config) in [
        ("default", VoxelConfig::default()),
        ("diorama", VoxelConfig::diorama()),
        ("steepest", steep),
    ] {
        for seed in [1u32, 7] {
            let t = terrain(seed, config);
            for i in 0..1200 {
                let span = [200i64, 50_000, 16_777_000][i % 3];
                let x = rng.random_range(-span..span);
                let z = rng.random_range(-span..span);
                check(&t, x, z, &format!("{name} seed {seed} ({x}, {z})"));
            }
        }
    }
}

#[test]
fn one_column_paths_equal_the_volume_around_zones() {
    let mut t = terrain(3, VoxelConfig::default());
    // A pad on a hill, a square under the sea with a wide blend, a small disc: every
    // column of the area is levelled, blended, or a neighbour of one.
    let zones = [
        zone("hill", 20.0, 30.0, Shape::Circle { radius: 9.0 }, 40.4, 6.0),
        zone(
            "sea",
            -30.0,
            -10.0,
            Shape::Rect {
                width: 20.0,
                depth: 12.0,
            },
            5.0,
            15.0,
        ),
        zone("dot", 0.5, 0.5, Shape::Circle { radius: 1.5 }, 26.0, 0.0),
    ];
    for (i, z) in zones.into_iter().enumerate() {
        t.zones_mut().insert(z, i as u64 + 1);
    }
    for z in -40..50 {
        for x in -60..40 {
            check(&t, x, z, &format!("({x}, {z})"));
        }
    }
}
