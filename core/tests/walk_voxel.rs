//! The `block-step` rule of voxel worlds against the blocks themselves: a column may be
//! stood on when its top block is solid and not under water (ice over water is), and a
//! move to a neighbouring column may rise at most one block. The oracle reads the
//! served chunks' blocks (`Terrain::voxel_chunk`), never the walker's heights.

use std::collections::HashMap;

use terrain_core::{
    GeneratorKind, Overlap, Terrain, WorldSpec, build_terrain,
    voxel::{Biome, BlockKind, VoxelConfig},
    walk::{PathCheck, Reason, WalkGrids, WalkRule, Walker, find::find_path},
    zones::ZoneDoc,
};

const SEA: u32 = 24;

fn voxel(config: VoxelConfig, zones: &[&str]) -> Terrain {
    let spec = WorldSpec {
        generator: GeneratorKind::Voxel,
        seed: 3,
        overlap: Overlap::Layered,
        layout: None,
        voxel: Some(config),
    };
    let zones = zones.iter().enumerate().map(|(i, json)| {
        let doc: ZoneDoc = serde_json::from_str(json).unwrap();
        (
            doc.spec().unwrap().resolve(format!("z{i}"), f64::NAN),
            i as u64 + 1,
        )
    });
    build_terrain(&spec, zones).unwrap()
}

fn rule() -> WalkRule {
    WalkRule::BlockStep {
        sea_level: f64::from(SEA),
    }
}

/// What the blocks say of one column: the top of its highest solid block, whether
/// water lies above it, and the kind of that block.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Col {
    height: f64,
    water: bool,
    top: BlockKind,
}

/// Every column of chunks `-r..r` in both axes, read from the blocks.
fn columns(t: &Terrain, r: i64) -> HashMap<(i64, i64), Col> {
    let mut out = HashMap::new();
    for cz in -r..r {
        for cx in -r..r {
            let chunk = t.voxel_chunk(cx, cz).unwrap();
            for lz in 0..32 {
                for lx in 0..32 {
                    let blocks = chunk.column_blocks(lx, lz);
                    let y = blocks.iter().rposition(|b| b.solid()).unwrap();
                    let water = blocks[y..].contains(&BlockKind::Water);
                    let col = Col {
                        height: (y + 1) as f64,
                        water,
                        top: blocks[y],
                    };
                    out.insert((cx * 32 + lx as i64, cz * 32 + lz as i64), col);
                }
            }
        }
    }
    out
}

fn centre(t: (i64, i64)) -> (f64, f64) {
    (t.0 as f64 + 0.5, t.1 as f64 + 0.5)
}

/// A dry zone below the sea, and worlds with water and with ice.
fn worlds() -> Vec<(&'static str, Terrain)> {
    let icy = VoxelConfig {
        primary_biome: Some(Biome::Icy),
        ..VoxelConfig::default()
    };
    let pit = r#"{"centerX": 40, "centerZ": -30, "width": 12, "depth": 8, "height": 20, "blendRadius": 3}"#;
    vec![
        ("default", voxel(VoxelConfig::default(), &[])),
        ("default with a pit", voxel(VoxelConfig::default(), &[pit])),
        ("icy", voxel(icy, &[pit])),
    ]
}

#[test]
fn columns_are_judged_by_their_blocks() {
    let rule = rule();
    for (name, t) in worlds() {
        let walker = Walker::new(&t, &rule);
        let cols = columns(&t, 3);
        let (mut wet, mut dry, mut ice, mut dry_below_sea) = (0, 0, 0, 0);
        for (&(x, z), col) in &cols {
            for (px, pz) in [centre((x, z)), (x as f64 + 0.03, z as f64 + 0.97)] {
                let info = walker.info(px, pz);
                assert_eq!(info.height, col.height, "{name} ({px}, {pz})");
                assert_eq!(info.underwater, col.water, "{name} ({px}, {pz}) {col:?}");
                let want = col.water.then_some(Reason::Water);
                assert_eq!(info.reason, want, "{name} ({px}, {pz}) {col:?}");
                assert_eq!(walker.blocked(px, pz), want, "{name} ({px}, {pz})");
                assert_eq!(info.biome, None);
            }
            if col.water {
                wet += 1;
            } else {
                dry += 1;
                ice += usize::from(col.top == BlockKind::Ice);
                dry_below_sea += usize::from(col.height < f64::from(SEA));
            }
        }
        assert!(wet > 0 && dry > 0, "{name}: {wet} wet, {dry} dry");
        if name == "icy" {
            // Ice over water is walkable, at sea level.
            assert!(ice > 0, "{name}: no ice");
        }
        if name != "default" {
            // The pit's columns are dry below the sea.
            assert!(dry_below_sea > 0, "{name}: {dry_below_sea}");
        } else {
            assert_eq!(dry_below_sea, 0);
        }
        // The grid judges the same, and keeps the same heights.
        let grid = walker.grid(-96, -96, 192, 192);
        for (&(x, z), col) in &cols {
            assert_eq!(grid.get(x, z), Some(col.water.then_some(Reason::Water)));
            assert_eq!(grid.height(x, z), Some(col.height));
        }
    }
}

/// What the rule says of the straight move from column `a` to its neighbour `b` along
/// the segment between their centres: the tiles the walk visits (`a`, for a diagonal
/// the two beside the corner, `b`), the first one blocked and why.
fn oracle(cols: &HashMap<(i64, i64), Col>, a: (i64, i64), b: (i64, i64)) -> PathCheck {
    let rise = |p: (i64, i64), q: (i64, i64)| cols[&q].height - cols[&p].height > 1.0;
    let water = |p: (i64, i64)| cols[&p].water;
    let mut visits: Vec<((i64, i64), bool)> = vec![(a, water(a))];
    if a.0 != b.0 && a.1 != b.1 {
        for s in [(b.0, a.1), (a.0, b.1)] {
            visits.push((s, water(s) || rise(a, s)));
        }
        let (s1, s2) = ((b.0, a.1), (a.0, b.1));
        visits.push((b, water(b) || rise(a, b) || rise(s1, b) || rise(s2, b)));
    } else {
        visits.push((b, water(b) || rise(a, b)));
    }
    let mut path = Vec::new();
    for (t, bad) in visits {
        path.push(centre(t));
        if bad {
            let reason = if water(t) {
                Reason::Water
            } else {
                Reason::Step
            };
            return PathCheck {
                blocked: Some((centre(t), reason)),
                path,
            };
        }
    }
    PathCheck {
        blocked: None,
        path,
    }
}

#[test]
fn a_move_may_rise_one_block() {
    let rule = rule();
    for (name, t) in worlds() {
        let walker = Walker::new(&t, &rule);
        let mut grids = WalkGrids::new(&walker);
        let cols = columns(&t, 2);
        let (mut steps, mut climbs, mut falls) = (0, 0, 0);
        for z in -63..63 {
            for x in -63..63 {
                for (dx, dz) in [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1)] {
                    let (a, b) = ((x, z), (x + dx, z + dz));
                    let want = oracle(&cols, a, b);
                    let seg = [centre(a), centre(b)];
                    assert_eq!(walker.check_tiles(&seg, 1.0), want, "{name} {a:?} -> {b:?}");
                    assert_eq!(grids.check_tiles(&seg), want, "{name} {a:?} -> {b:?}");
                    let d = cols[&b].height - cols[&a].height;
                    match want.blocked {
                        Some((_, Reason::Step)) => steps += 1,
                        None if d == 1.0 => climbs += 1,
                        None if d < -1.0 => falls += 1,
                        _ => {}
                    }
                }
            }
        }
        assert!(
            steps > 0 && climbs > 0 && falls > 0,
            "{name}: {steps} steps, {climbs} climbs, {falls} falls"
        );
        // The original's samples judge points only: no step is ever a reason.
        for z in (-60..60).step_by(7) {
            let seg = [(-60.5, z as f64 + 0.5), (60.5, z as f64 + 0.5)];
            let sampled = walker.check_sampled(&seg);
            assert!(!matches!(sampled.blocked, Some((_, Reason::Step))));
        }
    }
}

/// Three plateaus levelled by zones: `a` at 40 blocks, `b` beside it at 42 (a two-block
/// rise), `c` along both at 41 (a one-block stair between them).
#[test]
fn a_two_block_rise_blocks_and_the_search_takes_the_stair() {
    let plateau = |cx: f64, cz: f64, w: f64, d: f64, h: f64| {
        format!(
            r#"{{"centerX": {cx}, "centerZ": {cz}, "width": {w}, "depth": {d}, "height": {h}, "blendRadius": 0}}"#
        )
    };
    let a = plateau(5.0, 5.0, 10.0, 10.0, 40.0);
    let b = plateau(15.0, 5.0, 10.0, 10.0, 42.0);
    let c = plateau(10.0, 12.0, 20.0, 4.0, 41.0);
    let rule = rule();
    let with_stair = voxel(VoxelConfig::default(), &[&a, &b, &c]);
    let walker = Walker::new(&with_stair, &rule);
    assert_eq!(walker.height(9.5, 5.5), 40.0);
    assert_eq!(walker.height(10.5, 5.5), 42.0);
    assert_eq!(walker.height(10.5, 10.5), 41.0);
    let across = [(5.5, 5.5), (15.5, 5.5)];
    let check = walker.check_tiles(&across, 1.0);
    assert_eq!(check.blocked, Some(((10.5, 5.5), Reason::Step)));
    assert_eq!(check.path.len(), 6);
    // Falling two blocks is allowed; a one-block rise too.
    assert_eq!(
        walker.check_tiles(&[(15.5, 5.5), (5.5, 5.5)], 1.0).blocked,
        None
    );
    assert_eq!(
        walker.check_tiles(&[(5.5, 9.5), (5.5, 10.5)], 1.0).blocked,
        None
    );
    assert_eq!(
        walker
            .check_tiles(&[(5.5, 10.5), (15.5, 10.5), (15.5, 9.5)], 1.0)
            .blocked,
        None
    );
    // A point alone is never blocked for a step.
    assert_eq!(walker.info(10.5, 5.5).reason, None);

    let mut grids = WalkGrids::new(&walker);
    let found = find_path((5.5, 5.5), (15.5, 5.5), 1.0, 100_000, &mut grids).unwrap();
    assert!(found.length > 10.0, "{found:?}");
    assert!(found.waypoints.iter().any(|&(_, z)| z >= 10.0), "{found:?}");
    assert_eq!(walker.check_tiles(&found.waypoints, 1.0).blocked, None);
    // Down the cliff the straight line is the path.
    let back = find_path((15.5, 5.5), (5.5, 5.5), 1.0, 100_000, &mut grids).unwrap();
    assert_eq!(back.waypoints, [(15.5, 5.5), (5.5, 5.5)]);
    assert_eq!(back.grid_length, 10.0);
}

/// The map's walk layer reads judgements and rises off a lattice of pixel centres: each
/// point as the walker judges it, and rising exactly where the blocks of its column
/// stand more than one block above one of its eight neighbours'.
#[test]
fn a_lattice_s_rises_are_the_columns_over_a_two_block_step() {
    let rule = rule();
    for (name, t) in worlds() {
        let walker = Walker::new(&t, &rule);
        let cols = columns(&t, 2);
        // Pixel centres at 0.5 m and at 2 m (zooms 5 and 3 of the map).
        for (m, n) in [(0.5, 96), (2.0, 30)] {
            let axis: Vec<f64> = (0..n)
                .map(|i| (i as f64 - n as f64 / 2.0 + 0.5) * m)
                .collect();
            let lattice = walker.step_rises(&axis, &axis);
            let mut rising = 0;
            for (j, &z) in axis.iter().enumerate() {
                for (i, &x) in axis.iter().enumerate() {
                    let k = j * axis.len() + i;
                    assert_eq!(lattice.cells[k], walker.blocked(x, z), "{name} ({x}, {z})");
                    let (tx, tz) = (x.floor() as i64, z.floor() as i64);
                    let top = cols[&(tx, tz)].height;
                    let want = (-1..=1)
                        .flat_map(|dz| (-1..=1).map(move |dx| (dx, dz)))
                        .any(|(dx, dz)| top - cols[&(tx + dx, tz + dz)].height > 1.0);
                    assert_eq!(lattice.rises[k], want, "{name} {m} m ({x}, {z})");
                    rising += usize::from(want);
                }
            }
            assert!(rising > 0, "{name} {m} m: no column over a two-block step");
        }
    }
}
