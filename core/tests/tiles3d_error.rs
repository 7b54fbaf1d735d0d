//! Coarse 3D Tiles contents against the full-detail surface: on squares of the island
//! (its centre, its western slopes, where it meets the sea), of an osrs world (its
//! first map squares, and the Lumbridge region's) and of a voxel world (its top-block heightfield, with
//! and without a flat zone), every content of every level is within its level's
//! geometric error of the full-detail height at every full-detail vertex under it, the
//! proven grid errors really bound their grids, and each level's content covers its
//! ground. A voxel world's grids are its height queries' answers at the block
//! corners, and its coarse contents carry the colour of the block seen from above.

use terrain_core::mesh::{build_tile, tile::vertex_coord};
use terrain_core::tiles3d::{
    ContentGrid, ContentKey, TilesetLayout, content_mesh, content_patches, leaf_error, leaf_grid,
    parent_grid, sample_depth,
};
use terrain_core::voxel::{BlockKind, VoxelConfig, base_colour};
use terrain_core::{
    FlatZone, Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, WorldSpec, ZoneSet,
    build_terrain, zones::Shape,
};

fn world(kind: GeneratorKind) -> Terrain {
    let generator = WorldGenerator::new(kind, 0).unwrap();
    let size = generator.tile_size();
    Terrain::new(generator, ZoneSet::new(Overlap::Layered, size))
}

fn island() -> Terrain {
    world(GeneratorKind::Hyperscape)
}

/// Every grid of the square, by level (level `levels` first).
fn grids(t: &Terrain, l: &TilesetLayout) -> Vec<Vec<ContentGrid>> {
    let side = l.side();
    let leaves: Vec<ContentGrid> = (0..side * side)
        .map(|k| {
            let key = ContentKey {
                level: l.levels,
                ix: k % side,
                iz: k / side,
            };
            leaf_grid(t, l, key)
        })
        .collect();
    let mut out = vec![leaves];
    for level in (0..l.levels).rev() {
        let below = out.last().unwrap();
        let n = 1u64 << level;
        let find = |k: ContentKey| below.iter().find(|g| g.key == k).unwrap();
        let level_grids = (0..n * n)
            .map(|k| {
                let key = ContentKey {
                    level,
                    ix: k % n,
                    iz: k / n,
                };
                let c = key.children().map(find);
                parent_grid(key, c)
            })
            .collect();
        out.push(level_grids);
    }
    out
}

/// A voxel world (seed 3, the default parameters) with `zones`.
fn blocks(zones: Vec<FlatZone>) -> Terrain {
    let spec = WorldSpec {
        generator: GeneratorKind::Voxel,
        seed: 3,
        overlap: Overlap::default(),
        layout: None,
        voxel: Some(VoxelConfig::default()),
    };
    build_terrain(&spec, zones.into_iter().zip(1..)).unwrap()
}

/// Checks the square of `extent` metres from `min_tile` of `t`; answers the kinds of
/// block a voxel world's coarse contents were coloured with.
fn check_square(t: &Terrain, extent: f64, min_tile: (i64, i64)) -> Vec<BlockKind> {
    let grid = t.generator().tile_grid();
    let n = grid.resolution as usize;
    let voxel = t.generator().as_voxel().is_some();
    let mut kinds = Vec::new();
    let mut l = TilesetLayout::covering(grid, extent, leaf_error(t.generator()));
    l.min_tile = min_tile;
    let all = grids(t, &l);
    // Ground that varies by more than the root's error, so every level simplifies.
    let root = &all[l.levels as usize][0];
    assert!(
        f64::from(root.max - root.min) > l.geometric_error(0),
        "{min_tile:?}: heights {} to {}",
        root.min,
        root.max
    );
    let at_level = |level: u32| &all[(l.levels - level) as usize];
    // The full-detail heights of the square as its lattice: vertex `ix` of the
    // square's tile `tx` is lattice column `tx (n - 1) + ix`.
    let cells = n - 1;
    let m = l.side() as usize * cells + 1;
    let (mut lat_x, mut lat_z, mut lat_h) = (vec![0.0; m], vec![0.0; m], vec![0.0; m * m]);
    for tz in 0..l.side() as i64 {
        for tx in 0..l.side() as i64 {
            let tile = (min_tile.0 + tx, min_tile.1 + tz);
            let (gx, gz) = (tx as usize * cells, tz as usize * cells);
            let tm = build_tile(t, tile, 0);
            for iz in 0..n {
                for ix in 0..n {
                    let x = vertex_coord(&grid, tile.0, ix);
                    let z = vertex_coord(&grid, tile.1, iz);
                    let h = tm.positions[(iz * n + ix) * 3 + 1];
                    if voxel {
                        // The top of the highest solid block, as height queries answer.
                        assert_eq!(h, t.height(x, z) as f32, "({x}, {z})");
                    }
                    (lat_x[gx + ix], lat_z[gz + iz]) = (x, z);
                    lat_h[(gz + iz) * m + gx + ix] = f64::from(h);
                }
            }
            // A leaf grid is the tile's mesh heights.
            let leaf = at_level(l.levels)
                .iter()
                .find(|g| l.tiles(g.key).min_tx == tile.0 && l.tiles(g.key).min_tz == tile.1)
                .unwrap();
            let mesh_h: Vec<f32> = tm.positions.chunks_exact(3).map(|p| p[1]).collect();
            assert_eq!(leaf.heights, mesh_h, "leaf {tile:?}");
        }
    }
    for level in 0..l.levels {
        for g in at_level(level) {
            let key = g.key;
            let rect = l.tiles(key);
            let depth = sample_depth(&l, key, |d| {
                let lv = key.level + d;
                at_level(lv)
                    .iter()
                    .filter(|s| rect.contains((l.tiles(s.key).min_tx, l.tiles(s.key).min_tz)))
                    .map(|s| s.error)
                    .fold(0.0, f64::max)
            });
            let lv = key.level + depth;
            let k = 1u64 << depth;
            let mut samples: Vec<&ContentGrid> = at_level(lv)
                .iter()
                .filter(|s| rect.contains((l.tiles(s.key).min_tx, l.tiles(s.key).min_tz)))
                .collect();
            samples.sort_by_key(|s| (s.key.iz, s.key.ix));
            assert_eq!(samples.len() as u64, k * k);
            let patches = content_patches(&l, key, &samples, &mut |k: ContentKey| {
                k.children()
                    .map(|c| at_level(c.level).iter().find(|g| g.key == c).unwrap())
                    .to_vec()
            });
            let (mesh, bound) = content_mesh(t, &l, key, &samples, depth, &patches, 0);
            let limit = l.geometric_error(level);
            assert!(bound <= limit, "{key:?}: bound {bound} > {limit}");
            // The surface at every full-detail vertex under the content.
            let p = |v: u32| {
                let i = v as usize * 3;
                (
                    f64::from(mesh.positions[i]) + mesh.placement[0],
                    f64::from(mesh.positions[i + 2]) + mesh.placement[2],
                    f64::from(mesh.positions[i + 1]),
                )
            };
            let tris: Vec<[(f64, f64, f64); 3]> = (0..mesh.indices.len() / 3)
                .map(|k| [0, 1, 2].map(|j| p(mesh.indices.get(k * 3 + j).unwrap())))
                .filter(|t| {
                    let a = (t[1].0 - t[0].0) * (t[2].1 - t[0].1)
                        - (t[1].1 - t[0].1) * (t[2].0 - t[0].0);
                    a.abs() > 1e-9
                })
                .collect();
            // Every lattice vertex under each surface triangle, found by the triangle's
            // bounding box.
            let span = |t0: i64, t1: i64, min: i64| {
                ((t0 - min) as usize * cells, (t1 + 1 - min) as usize * cells)
            };
            let (gx0, gx1) = span(rect.min_tx, rect.max_tx, min_tile.0);
            let (gz0, gz1) = span(rect.min_tz, rect.max_tz, min_tile.1);
            let w = gx1 - gx0 + 1;
            let mut covered = vec![false; w * (gz1 - gz0 + 1)];
            let mut worst = 0.0f64;
            let within = |axis: &[f64], lo: f64, hi: f64| {
                axis.partition_point(|&v| v < lo - 1e-6)..axis.partition_point(|&v| v <= hi + 1e-6)
            };
            for t in &tris {
                let (lo_x, hi_x) = (
                    t[0].0.min(t[1].0).min(t[2].0),
                    t[0].0.max(t[1].0).max(t[2].0),
                );
                let (lo_z, hi_z) = (
                    t[0].1.min(t[1].1).min(t[2].1),
                    t[0].1.max(t[1].1).max(t[2].1),
                );
                for gz in within(&lat_z, lo_z, hi_z) {
                    for gx in within(&lat_x, lo_x, hi_x) {
                        let (x, z) = (lat_x[gx], lat_z[gz]);
                        let d = (t[1].1 - t[2].1) * (t[0].0 - t[2].0)
                            + (t[2].0 - t[1].0) * (t[0].1 - t[2].1);
                        let a = ((t[1].1 - t[2].1) * (x - t[2].0)
                            + (t[2].0 - t[1].0) * (z - t[2].1))
                            / d;
                        let b = ((t[2].1 - t[0].1) * (x - t[2].0)
                            + (t[0].0 - t[2].0) * (z - t[2].1))
                            / d;
                        let c = 1.0 - a - b;
                        if a < -1e-9 || b < -1e-9 || c < -1e-9 {
                            continue;
                        }
                        assert!(
                            (gx0..=gx1).contains(&gx) && (gz0..=gz1).contains(&gz),
                            "{key:?}: a triangle over ({x}, {z}), beyond its square"
                        );
                        let s = a * t[0].2 + b * t[1].2 + c * t[2].2;
                        worst = worst.max((s - lat_h[gz * m + gx]).abs());
                        covered[(gz - gz0) * w + gx - gx0] = true;
                    }
                }
            }
            if let Some(k) = covered.iter().position(|&c| !c) {
                let (gx, gz) = (gx0 + k % w, gz0 + k / w);
                panic!("{key:?}: ({}, {}) under no triangle", lat_x[gx], lat_z[gz]);
            }
            assert!(worst <= bound + 1e-4, "{key:?}: {worst} > bound {bound}");
            assert!(worst <= limit + 1e-4, "{key:?}: {worst} > {limit}");
            if voxel {
                // Each vertex (skirts too) in the colour of its column's top block.
                assert_eq!(mesh.colours.len(), mesh.positions.len(), "{key:?}");
                for (p, c) in mesh
                    .positions
                    .chunks_exact(3)
                    .zip(mesh.colours.chunks_exact(3))
                {
                    let x = (f64::from(p[0]) + mesh.placement[0]).floor() as i64;
                    let z = (f64::from(p[2]) + mesh.placement[2]).floor() as i64;
                    let kind = t.voxel_column_top(x, z).unwrap().1;
                    assert_eq!(c, base_colour(kind).map(|c| c as f32), "({x}, {z})");
                    kinds.push(kind);
                }
            }
            // The exact range holds every height.
            assert!((gz0..=gz1).all(|gz| {
                lat_h[gz * m + gx0..=gz * m + gx1]
                    .iter()
                    .all(|&h| h as f32 >= g.min && h as f32 <= g.max)
            }));
        }
    }
    kinds.sort_by_key(|k| k.id());
    kinds.dedup();
    kinds
}

#[test]
fn contents_hold_their_level_error_on_the_plains_around_the_origin() {
    check_square(&island(), 400.0, (-2, -2));
}

#[test]
fn contents_hold_their_level_error_on_the_western_slopes() {
    check_square(&island(), 400.0, (-4, 0));
}

#[test]
fn contents_hold_their_level_error_where_the_island_meets_the_sea() {
    check_square(&island(), 400.0, (-4, -4));
}

#[test]
fn osrs_contents_hold_their_level_error_on_the_first_map_squares() {
    check_square(&world(GeneratorKind::Osrs), 256.0, (0, 0));
}

#[test]
fn osrs_contents_hold_their_level_error_around_lumbridge() {
    // Map squares (48..=51, 48..=51): x and z 3072..3328, Lumbridge's region.
    check_square(&world(GeneratorKind::Osrs), 256.0, (48, 48));
}

#[test]
fn voxel_contents_hold_their_level_error_over_the_top_blocks() {
    let kinds = check_square(&blocks(Vec::new()), 128.0, (0, 0));
    for kind in [
        BlockKind::Grass,
        BlockKind::Sand,
        BlockKind::Water,
        BlockKind::Leaves,
    ] {
        assert!(kinds.contains(&kind), "{kind:?} in {kinds:?}");
    }
}

#[test]
fn voxel_contents_hold_their_level_error_around_a_raised_pad() {
    // A pad at 60 blocks (the ground lies near 26) at the square's centre: cliffs on
    // every side.
    let pad = FlatZone {
        id: "pad".into(),
        center_x: 128.0,
        center_z: 128.0,
        shape: Shape::Rect {
            width: 40.0,
            depth: 24.0,
        },
        height: 60.0,
        blend_radius: 1.0,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    };
    let t = blocks(vec![pad]);
    assert_eq!(t.height(128.5, 128.5), 60.0);
    check_square(&t, 256.0, (0, 0));
}

#[test]
fn voxel_contents_hold_their_level_error_three_levels_above_the_chunks() {
    // 16 x 16 chunks: the root takes its samples from grids above the chunks, whose
    // errors add up over the trunks and cacti.
    check_square(&blocks(Vec::new()), 512.0, (0, 0));
}
