//! Coarse 3D Tiles contents against the full-detail surface: on squares of the island
//! (its centre, its western slopes, where it meets the sea; each varies by more than
//! its root's error) and of an osrs world (its first map squares, and the
//! Lumbridge region's), every content of every level is within its level's
//! geometric error of the full-detail height at every full-detail vertex under it, the
//! proven grid errors really bound their grids, and each level's content covers its
//! ground.

use terrain_core::mesh::{build_tile, tile::vertex_coord};
use terrain_core::tiles3d::{
    ContentGrid, ContentKey, TilesetLayout, content_mesh, leaf_grid, parent_grid, sample_depth,
};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

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

/// A 4 x 4-tile square of `t` from `min_tile`.
fn check_square(t: &Terrain, min_tile: (i64, i64)) {
    let grid = t.generator().tile_grid();
    let (n, size) = (grid.resolution as usize, grid.size);
    let mut l = TilesetLayout::covering(grid, 4.0 * size, 0.25);
    assert_eq!(l.levels, 2);
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
    // The full-detail heights of the square, by world position.
    let mut full = Vec::new();
    for tz in 0..l.side() as i64 {
        for tx in 0..l.side() as i64 {
            let tile = (min_tile.0 + tx, min_tile.1 + tz);
            let m = build_tile(t, tile, 0);
            for iz in 0..n {
                for ix in 0..n {
                    let x = vertex_coord(&grid, tile.0, ix);
                    let z = vertex_coord(&grid, tile.1, iz);
                    full.push((x, z, f64::from(m.positions[(iz * n + ix) * 3 + 1])));
                }
            }
            // A leaf grid is the tile's mesh heights.
            let leaf = at_level(l.levels)
                .iter()
                .find(|g| l.tiles(g.key).min_tx == tile.0 && l.tiles(g.key).min_tz == tile.1)
                .unwrap();
            let mesh_h: Vec<f32> = m.positions.chunks_exact(3).map(|p| p[1]).collect();
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
            let (mesh, bound) = content_mesh(t, &l, key, &samples, depth, 0);
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
            let (x0, x1) = (
                mesh.placement[0],
                mesh.placement[0] + size * (rect.max_tx - rect.min_tx + 1) as f64,
            );
            let (z0, z1) = (
                mesh.placement[2],
                mesh.placement[2] + size * (rect.max_tz - rect.min_tz + 1) as f64,
            );
            let mut worst = 0.0f64;
            let mut seen = 0;
            for &(x, z, h) in &full {
                if x < x0 - 1e-6 || x > x1 + 1e-6 || z < z0 - 1e-6 || z > z1 + 1e-6 {
                    continue;
                }
                let s = tris.iter().find_map(|t| {
                    let d = (t[1].1 - t[2].1) * (t[0].0 - t[2].0)
                        + (t[2].0 - t[1].0) * (t[0].1 - t[2].1);
                    let a =
                        ((t[1].1 - t[2].1) * (x - t[2].0) + (t[2].0 - t[1].0) * (z - t[2].1)) / d;
                    let b =
                        ((t[2].1 - t[0].1) * (x - t[2].0) + (t[0].0 - t[2].0) * (z - t[2].1)) / d;
                    let c = 1.0 - a - b;
                    (a >= -1e-9 && b >= -1e-9 && c >= -1e-9)
                        .then(|| a * t[0].2 + b * t[1].2 + c * t[2].2)
                });
                let s = s.unwrap_or_else(|| panic!("{key:?}: ({x}, {z}) under no triangle"));
                worst = worst.max((s - h).abs());
                seen += 1;
            }
            assert!(seen > 0);
            assert!(worst <= bound + 1e-4, "{key:?}: {worst} > bound {bound}");
            assert!(worst <= limit + 1e-4, "{key:?}: {worst} > {limit}");
            // The exact range holds every height.
            assert!(
                full.iter()
                    .filter(|f| f.0 >= x0 && f.0 <= x1 && f.1 >= z0 && f.1 <= z1)
                    .all(|f| f.2 as f32 >= g.min && f.2 as f32 <= g.max)
            );
        }
    }
}

#[test]
fn contents_hold_their_level_error_on_the_plains_around_the_origin() {
    check_square(&island(), (-2, -2));
}

#[test]
fn contents_hold_their_level_error_on_the_western_slopes() {
    check_square(&island(), (-4, 0));
}

#[test]
fn contents_hold_their_level_error_where_the_island_meets_the_sea() {
    check_square(&island(), (-4, -4));
}

#[test]
fn osrs_contents_hold_their_level_error_on_the_first_map_squares() {
    check_square(&world(GeneratorKind::Osrs), (0, 0));
}

#[test]
fn osrs_contents_hold_their_level_error_around_lumbridge() {
    // Map squares (48..=51, 48..=51): x and z 3072..3328, Lumbridge's region.
    check_square(&world(GeneratorKind::Osrs), (48, 48));
}
