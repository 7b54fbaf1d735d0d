//! Simplified tile meshes against the exact heights: at every full-detail vertex of the
//! island's tiles, with and without zones (carved floors included), the simplified
//! surface is within the error asked for; kept vertices are full-detail vertices with
//! their served heights; skirts hang [`skirt_depth`] below every edge.

use std::collections::HashMap;

use terrain_core::mesh::{TileMesh, build_tile, simplify_tile, skirt_depth};
use terrain_core::zones::{Shape, ZoneHeight, ZoneSpec};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

fn island() -> Terrain {
    Terrain::new(
        WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap(),
        ZoneSet::new(Overlap::Layered, 100.0),
    )
}

/// The island with a carved arena floor, a raised plaza and a sunk pit.
fn island_with_zones() -> Terrain {
    let mut t = island();
    let zones = [
        ("arena", 70.0, 92.0, 20.0, 24.0, 0.4, Some(1.0)),
        ("plaza", -830.0, 410.0, 60.0, 40.0, 6.0, None),
        ("pit", 1220.0, -655.0, 35.0, 35.0, -9.0, Some(2.0)),
    ];
    for (rev, (id, x, z, w, d, off, carve)) in zones.into_iter().enumerate() {
        let spec = ZoneSpec {
            center_x: x,
            center_z: z,
            shape: Shape::Rect { width: w, depth: d },
            height: ZoneHeight::Offset(off),
            blend_radius: 8.0,
            carve_inset: carve,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        let zone = spec.resolve(id, t.procedural(x, z));
        t.zones_mut().insert(zone, rev as u64 + 1);
    }
    t
}

/// The largest distance between `simple`'s surface and `full`'s vertex heights at
/// every full-detail vertex under a triangle of it; checks the kept vertices and the
/// skirt depth on the way.
fn worst_error(full: &TileMesh, simple: &TileMesh, error: f64) -> f64 {
    let n = full.resolution as usize;
    let key = |p: &[f32]| (p[0].to_bits(), p[2].to_bits());
    let grid: HashMap<_, usize> = full
        .positions
        .chunks_exact(3)
        .enumerate()
        .map(|(i, p)| (key(p), i))
        .collect();
    // Each simplified vertex: a full-detail vertex (same position, height, normal) or a
    // skirt vertex right below one.
    let mut on_grid = Vec::new();
    for (k, p) in simple.positions.chunks_exact(3).enumerate() {
        let i = *grid
            .get(&key(p))
            .expect("a vertex off the full-detail grid");
        let full_y = full.positions[i * 3 + 1];
        if p[1] == full_y {
            assert_eq!(
                simple.normals[k * 3..k * 3 + 3],
                full.normals[i * 3..i * 3 + 3]
            );
            if !full.colours.is_empty() {
                assert_eq!(
                    simple.colours[k * 3..k * 3 + 3],
                    full.colours[i * 3..i * 3 + 3]
                );
                assert_eq!(simple.biomes[k], full.biomes[i]);
            }
            on_grid.push(Some(i));
        } else {
            let depth = f64::from(full_y) - f64::from(p[1]);
            assert!((depth - skirt_depth(error)).abs() < 1e-3, "skirt {depth}");
            on_grid.push(None);
        }
    }
    let mut worst = 0.0f64;
    let mut covered = vec![false; n * n];
    let idx: Vec<u32> = (0..simple.indices.len())
        .map(|k| simple.indices.get(k).unwrap())
        .collect();
    for t in idx.chunks_exact(3) {
        let Some(v) = t
            .iter()
            .map(|&v| on_grid[v as usize])
            .collect::<Option<Vec<usize>>>()
        else {
            continue; // a skirt triangle
        };
        let c: Vec<(i64, i64)> = v
            .iter()
            .map(|&i| ((i % n) as i64, (i / n) as i64))
            .collect();
        let h: Vec<f64> = t
            .iter()
            .map(|&k| f64::from(simple.positions[k as usize * 3 + 1]))
            .collect();
        let orient = |a: (i64, i64), b: (i64, i64), q: (i64, i64)| {
            (b.0 - a.0) * (q.1 - a.1) - (b.1 - a.1) * (q.0 - a.0)
        };
        let area = orient(c[0], c[1], c[2]);
        assert!(area < 0, "wound against the full mesh");
        let (x0, x1) = (
            c.iter().map(|p| p.0).min().unwrap(),
            c.iter().map(|p| p.0).max().unwrap(),
        );
        let (z0, z1) = (
            c.iter().map(|p| p.1).min().unwrap(),
            c.iter().map(|p| p.1).max().unwrap(),
        );
        for z in z0..=z1 {
            for x in x0..=x1 {
                let q = (x, z);
                let w = [
                    orient(c[1], c[2], q),
                    orient(c[2], c[0], q),
                    orient(c[0], c[1], q),
                ];
                if w.iter().any(|&w| w > 0) {
                    continue;
                }
                let a = area as f64;
                let s: f64 = (0..3).map(|k| (w[k] as f64 / a) * h[k]).sum();
                let i = z as usize * n + x as usize;
                covered[i] = true;
                worst = worst.max((s - f64::from(full.positions[i * 3 + 1])).abs());
            }
        }
    }
    // Every vertex of a triangle of the full mesh is under the simplified surface.
    for k in 0..full.indices.len() {
        let v = full.indices.get(k).unwrap() as usize;
        assert!(covered[v], "full-detail vertex {v} left uncovered");
    }
    worst
}

fn check_tiles(terrain: &Terrain, tiles: &[(i64, i64)], errors: &[f64]) -> usize {
    let mut checked = 0;
    for &key in tiles {
        let full = build_tile(terrain, key, 1);
        let mut last = usize::MAX;
        for &e in errors {
            let s = simplify_tile(&full, e);
            let worst = worst_error(&full, &s, e);
            assert!(worst <= e, "tile {key:?} at {e} m: {worst}");
            assert!(
                s.indices.len() <= last.saturating_add(6 * 4 * 64),
                "tile {key:?} at {e} m grew"
            );
            last = s.indices.len();
            checked += 1;
        }
    }
    checked
}

/// Every tile of the 10 km island (100 x 100 tiles) in rows `z0..z1`.
fn island_rows(z0: i64, z1: i64) {
    let tiles: Vec<(i64, i64)> = (z0..z1)
        .flat_map(|tz| (-50..50).map(move |tx| (tx, tz)))
        .collect();
    let n = check_tiles(&island(), &tiles, &[0.05, 0.25, 1.0, 2.0]);
    assert_eq!(n, tiles.len() * 4);
}

#[test]
fn every_island_tile_is_within_its_error_at_every_vertex_rows_south() {
    island_rows(-50, -25);
}

#[test]
fn every_island_tile_is_within_its_error_at_every_vertex_rows_mid_south() {
    island_rows(-25, 0);
}

#[test]
fn every_island_tile_is_within_its_error_at_every_vertex_rows_mid_north() {
    island_rows(0, 25);
}

#[test]
fn every_island_tile_is_within_its_error_at_every_vertex_rows_north() {
    island_rows(25, 50);
}

#[test]
fn zones_and_carved_floors_hold_the_error_and_stay_carved() {
    let t = island_with_zones();
    let tiles = [(1, 1), (0, 1), (1, 0), (-8, 4), (-9, 4), (12, -7), (12, -6)];
    check_tiles(&t, &tiles, &[0.0, 0.05, 0.1, 0.5, 2.0]);
    // The carved arena: its tile's simplified meshes leave the same cells out.
    let full = build_tile(&t, (1, 1), 1);
    let s = simplify_tile(&full, 0.5);
    let inside = |m: &TileMesh| {
        // Triangles whose centroid is inside the carved area (the floor minus its inset).
        let idx: Vec<u32> = (0..m.indices.len())
            .map(|k| m.indices.get(k).unwrap())
            .collect();
        idx.chunks_exact(3)
            .filter(|t| {
                let c = t.iter().fold((0.0, 0.0), |a, &v| {
                    let p = &m.positions[v as usize * 3..];
                    (a.0 + f64::from(p[0]) / 3.0, a.1 + f64::from(p[2]) / 3.0)
                });
                let (x, z) = (c.0 + m.placement[0], c.1 + m.placement[2]);
                (x - 70.0).abs() < 8.0 && (z - 92.0).abs() < 10.0
            })
            .count()
    };
    assert_eq!(inside(&full), 0);
    assert_eq!(inside(&s), 0);
    assert!(s.indices.len() < full.indices.len() / 2);
}

#[test]
fn no_error_answers_the_full_mesh() {
    let t = island();
    let full = build_tile(&t, (3, -2), 7);
    assert_eq!(simplify_tile(&full, 0.0), full);
    let coarse = simplify_tile(&full, 1.0);
    assert_eq!(coarse.version, 7);
    assert!(coarse.positions.len() < full.positions.len() / 3);
}

#[test]
fn a_tiny_error_never_answers_more_than_full_detail() {
    // At 1e-9 m nearly every vertex of a bumpy tile is kept, and the skirts would add
    // 4 x 64 more: the full-detail mesh (error 0, within any error) is answered instead.
    let t = island();
    for key in [(0, 0), (3, -2), (-20, 11)] {
        let full = build_tile(&t, key, 1);
        for e in [1e-9, 1e-6, 1e-3] {
            let s = simplify_tile(&full, e);
            assert!(
                s.positions.len() <= full.positions.len(),
                "tile {key:?} at {e} m: {} vertices, full detail {}",
                s.positions.len() / 3,
                full.positions.len() / 3
            );
            assert!(
                s.indices.len() <= full.indices.len(),
                "tile {key:?} at {e} m"
            );
        }
    }
}
