//! Voxel chunks never depend on what was generated before, in which order or on which
//! thread, and equal the same area generated as one region; the area path of heights
//! equals the per-point path bit for bit, and heights equal the blocks.

use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;
use rand::seq::SliceRandom;
use terrain_core::generator::{Generator, Grid};
use terrain_core::voxel::{CHUNK, Chunk, Voxel, VoxelConfig};
use terrain_core::{GeneratorKind, Overlap, WorldSpec, build_terrain};

fn voxel(seed: u32) -> Voxel {
    Voxel::new(seed, VoxelConfig::default()).unwrap()
}

fn same(a: &Chunk, b: &Chunk) {
    assert_eq!((a.cx(), a.cz()), (b.cx(), b.cz()));
    assert!(a == b, "chunk ({}, {}) differs", a.cx(), a.cz());
}

#[test]
fn a_chunk_alone_after_neighbours_shuffled_and_on_two_threads_is_the_same() {
    let v = voxel(11);
    let alone = voxel(11).chunk(1, -1);
    // After its neighbours, in a shuffled order, on one generator.
    let mut order: Vec<(i64, i64)> = (0..3).flat_map(|x| (-2..1).map(move |z| (x, z))).collect();
    order.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(0x2545_f491));
    let mut later = None;
    for &(x, z) in &order {
        let c = v.chunk(x, z);
        if (x, z) == (1, -1) {
            later = Some(c);
        }
    }
    same(&alone, &later.unwrap());
    let again = v.chunk(1, -1);
    same(&alone, &again);
    // Two threads, each generating chunks around it in opposite orders.
    let (a, b) = std::thread::scope(|s| {
        let t1 = s.spawn(|| {
            (0..3).for_each(|x| drop(v.chunk(x, -2)));
            v.chunk(1, -1)
        });
        let t2 = s.spawn(|| {
            (0..3).rev().for_each(|x| drop(v.chunk(x, 0)));
            v.chunk(1, -1)
        });
        (t1.join().unwrap(), t2.join().unwrap())
    });
    same(&alone, &a);
    same(&alone, &b);
}

#[test]
fn chunks_equal_one_five_by_five_region() {
    let v = voxel(5);
    let n = CHUNK as usize;
    let region = v.area(-2 * CHUNK, -2 * CHUNK, 5 * n, 5 * n);
    let h = region.height() as i64;
    for cz in -2..3i64 {
        for cx in -2..3i64 {
            let c = v.chunk(cx, cz);
            for lz in 0..n {
                for lx in 0..n {
                    let (x, z) = (cx * CHUNK + lx as i64, cz * CHUNK + lz as i64);
                    assert_eq!(Some(&c.columns()[lz * n + lx]), region.column(x, z));
                    for y in 0..h {
                        assert_eq!(
                            c.block(lx, y as usize, lz),
                            region.get(x, y, z),
                            "({x}, {y}, {z})"
                        );
                    }
                }
            }
        }
    }
}

/// The top of the highest solid block of a chunk column.
fn top(c: &Chunk, x: usize, z: usize) -> i32 {
    c.column_blocks(x, z)
        .iter()
        .rposition(|b| b.solid())
        .map_or(0, |y| y as i32 + 1)
}

#[test]
fn heights_equal_the_blocks_and_the_area_path_equals_the_point_path() {
    for seed in [1, 2, 3] {
        let v = voxel(seed);
        for (cx, cz) in [(0, 0), (-1, 2)] {
            let c = v.chunk(cx, cz);
            let n = CHUNK as usize;
            let (x0, z0) = ((cx * CHUNK) as f64, (cz * CHUNK) as f64);
            // Tile vertices: 33 x 33 on block corners.
            let axis = |o: f64| (0..=n).map(|i| o + i as f64).collect::<Vec<_>>();
            let (xs, zs) = (axis(x0), axis(z0));
            let mut area = vec![0.0; xs.len() * zs.len()];
            v.fill_axes(&xs, &zs, &mut area);
            for (iz, &z) in zs.iter().enumerate() {
                for (ix, &x) in xs.iter().enumerate() {
                    let p = v.height(x, z);
                    assert_eq!(
                        area[iz * xs.len() + ix].to_bits(),
                        p.to_bits(),
                        "({x}, {z})"
                    );
                    if ix < n && iz < n {
                        assert_eq!(p, f64::from(top(&c, ix, iz)));
                        assert_eq!(c.columns()[iz * n + ix].height, top(&c, ix, iz));
                        // Any point of the column has the column's height.
                        assert_eq!(v.height(x + 0.75, z + 0.25), p);
                    }
                }
            }
            let grid = Grid {
                x0: x0 + 0.5,
                z0: z0 - 3.5,
                step: 1.0,
                nx: 40,
                nz: 7,
            };
            let mut rows = vec![0.0; 40 * 5];
            v.fill_rows(&grid, 1..6, &mut rows);
            for iz in 1..6 {
                for ix in 0..40 {
                    let p = v.height(grid.x(ix), grid.z(iz));
                    assert_eq!(rows[(iz - 1) * 40 + ix].to_bits(), p.to_bits());
                }
            }
        }
    }
}

#[test]
fn the_world_spec_builds_voxel_terrain_and_refuses_misplaced_parameters() {
    let spec = WorldSpec {
        generator: GeneratorKind::Voxel,
        seed: 9,
        overlap: Overlap::Layered,
        layout: None,
        voxel: Some(VoxelConfig::diorama()),
    };
    let t = build_terrain(&spec, []).unwrap();
    let direct = Voxel::new(9, VoxelConfig::diorama()).unwrap();
    same(&t.voxel_chunk(0, 0).unwrap(), &direct.chunk(0, 0));
    assert_eq!(t.generator().tile_grid().size, 32.0);
    assert_eq!(t.generator().tile_grid().resolution, 33);
    assert!(!t.generator().tile_grid().centred);
    let bad = WorldSpec {
        voxel: Some(VoxelConfig {
            sea_level: 999,
            ..VoxelConfig::default()
        }),
        ..spec
    };
    assert_eq!(
        build_terrain(&bad, []).unwrap_err().field(),
        "voxel.sea_level"
    );
    let other = WorldSpec {
        generator: GeneratorKind::Hyperscape,
        ..spec
    };
    assert_eq!(build_terrain(&other, []).unwrap_err().field(), "voxel");
    let plain = build_terrain(
        &WorldSpec {
            voxel: None,
            ..other
        },
        [],
    )
    .unwrap();
    assert!(plain.voxel_chunk(0, 0).is_none());
    assert!(plain.voxel_instances(0, 0).is_none());
    assert!(plain.voxel_mesh(0, 0).is_none());
    let t = build_terrain(
        &WorldSpec {
            voxel: None,
            ..spec
        },
        [],
    )
    .unwrap();
    same(&t.voxel_chunk(2, 3).unwrap(), &voxel(9).chunk(2, 3));
    assert!(
        t.voxel_chunk(terrain_core::voxel::MAX_CHUNK + 1, 0)
            .is_none()
    );
}
