//! Tile meshes against the original game's tile tables, and their invariants: shared
//! edges, the split diagonal, carving, and the served surface.

use terrain_core::mesh::{Indices, build_tile, surface_height};
use terrain_core::zones::{Shape, ZoneHeight, ZoneSpec};
use terrain_core::{Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

const TILE_VERTICES: &str = include_str!("data/hyperscape/seed0_tile_vertices.csv");

fn island() -> Terrain {
    Terrain::new(
        WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap(),
        ZoneSet::new(Overlap::Layered, 100.0),
    )
}

#[test]
fn reference_tiles_match_heights_and_normals() {
    let t = island();
    let mut worst: (f64, f64) = (0.0, 0.0);
    for key in [(0, 0), (1, -2), (3, 0)] {
        let mesh = build_tile(&t, key, 0);
        assert_eq!(mesh.resolution, 64);
        assert_eq!(
            mesh.placement,
            [key.0 as f64 * 100.0, 0.0, key.1 as f64 * 100.0]
        );
        let rows = TILE_VERTICES
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>());
        for r in
            rows.filter(|r| (r[0].parse::<i64>().unwrap(), r[1].parse::<i64>().unwrap()) == key)
        {
            let (ix, iz): (usize, usize) = (r[2].parse().unwrap(), r[3].parse().unwrap());
            let v = iz * 64 + ix;
            let num = |k: usize| r[k].parse::<f64>().unwrap();
            // Positions are the main thread's: placement + float32 local coordinates.
            assert_eq!(mesh.placement[0] + f64::from(mesh.positions[v * 3]), num(4));
            assert_eq!(
                mesh.placement[2] + f64::from(mesh.positions[v * 3 + 2]),
                num(5)
            );
            // Like the original's worker (which serves every tile without zones), heights
            // are sampled at unrounded coordinates: equal to its float32 heights, and
            // within the float32 rounding of the positions (~1e-6 m) of the main
            // thread's heights at the rounded positions.
            assert_eq!(
                mesh.heights[v] as f32,
                num(7) as f32,
                "worker height {key:?} [{ix},{iz}]"
            );
            let dh = (mesh.heights[v] - num(6)).abs();
            assert!(
                dh <= 2e-6,
                "{key:?} [{ix},{iz}] height {} vs {}",
                mesh.heights[v],
                num(6)
            );
            assert_eq!(mesh.positions[v * 3 + 1], mesh.heights[v] as f32);
            for k in 0..3 {
                let dn = (f64::from(mesh.normals[v * 3 + k]) - num(8 + k)).abs();
                assert!(
                    dn <= 1e-6,
                    "{key:?} [{ix},{iz}] normal[{k}] {} vs {}",
                    mesh.normals[v * 3 + k],
                    num(8 + k)
                );
                worst.1 = worst.1.max(dn);
            }
            worst.0 = worst.0.max(dh);
        }
        assert_eq!(mesh.indices.len(), 63 * 63 * 6);
        assert!(matches!(mesh.indices, Indices::U16(_)));
        let ys: Vec<f32> = mesh.positions.iter().skip(1).step_by(3).copied().collect();
        assert_eq!(
            mesh.min_height,
            ys.iter().copied().fold(f32::INFINITY, f32::min)
        );
        assert_eq!(
            mesh.max_height,
            ys.iter().copied().fold(f32::NEG_INFINITY, f32::max)
        );
    }
    eprintln!(
        "tile meshes: heights within {:e} m of height_main, normals within {:e}",
        worst.0, worst.1
    );
}

#[test]
fn neighbouring_tiles_share_their_edge() {
    let t = island();
    let (a, b) = (build_tile(&t, (0, 0), 0), build_tile(&t, (1, 0), 0));
    let (c, d) = (build_tile(&t, (2, 3), 0), build_tile(&t, (2, 4), 0));
    for i in 0..64 {
        // x edge: a's last column is b's first.
        let (va, vb) = (i * 64 + 63, i * 64);
        assert!((a.heights[va] - b.heights[vb]).abs() < 1e-12);
        for k in 0..3 {
            assert!((a.normals[va * 3 + k] - b.normals[vb * 3 + k]).abs() < 1e-6);
        }
        // z edge: c's last row is d's first.
        let (vc, vd) = (63 * 64 + i, i);
        assert!((c.heights[vc] - d.heights[vd]).abs() < 1e-12);
        for k in 0..3 {
            assert!((c.normals[vc * 3 + k] - d.normals[vd * 3 + k]).abs() < 1e-6);
        }
    }
}

#[test]
fn triangles_split_along_the_documented_diagonal() {
    let mesh = build_tile(&island(), (0, 0), 0);
    // Cell (0, 0): a = 0, b = 64, c = 65, d = 1.
    let first: Vec<u32> = (0..6).map(|k| mesh.indices.get(k).unwrap()).collect();
    assert_eq!(first, [0, 64, 1, 64, 65, 1]);
}

fn floor_zone(carve_inset: Option<f64>) -> Terrain {
    let mut t = island();
    let spec = ZoneSpec {
        center_x: 70.0,
        center_z: 92.0,
        shape: Shape::Rect {
            width: 20.0,
            depth: 24.0,
        },
        height: ZoneHeight::Offset(0.4),
        blend_radius: 1.0,
        carve_inset,
        priority: 0,
        walkable: None,
        tile_mask: None,
    };
    let zone = spec.resolve("duel_arena_floor_1", t.procedural(70.0, 92.0));
    t.zones_mut().insert(zone, 1);
    t
}

#[test]
fn carved_cells_are_absent_and_heights_unchanged() {
    let (carved, plain) = (floor_zone(Some(1.0)), floor_zone(None));
    let (m, p) = (
        build_tile(&carved, (1, 1), 1),
        build_tile(&plain, (1, 1), 1),
    );
    assert_eq!(m.heights, p.heights, "carving never changes a height");
    assert_eq!(p.indices.len(), 63 * 63 * 6);
    let zone = carved.zones().get("duel_arena_floor_1").unwrap().clone();
    let n = 64;
    let mut expect_carved = 0;
    let vx = |v: usize| m.placement[0] + f64::from(m.positions[v * 3]);
    let vz = |v: usize| m.placement[2] + f64::from(m.positions[v * 3 + 2]);
    let mut present = std::collections::HashSet::new();
    for k in (0..m.indices.len()).step_by(6) {
        present.insert(m.indices.get(k).unwrap() as usize);
    }
    for iz in 0..n - 1 {
        for ix in 0..n - 1 {
            let a = iz * n + ix;
            let corners = [a, a + 1, a + n, a + n + 1];
            let inside = corners
                .iter()
                .all(|&v| (vx(v) - 70.0).abs() <= 9.0 && (vz(v) - 92.0).abs() <= 11.0);
            assert_eq!(!present.contains(&a), inside, "cell ({ix}, {iz})");
            expect_carved += usize::from(inside);
        }
    }
    assert!(expect_carved > 50, "{expect_carved}");
    assert_eq!(m.indices.len(), (63 * 63 - expect_carved) * 6);
    // Inside the core every vertex sits exactly at the floor height.
    for v in 0..n * n {
        if (vx(v) - 70.0).abs() <= 10.0 && (vz(v) - 92.0).abs() <= 12.0 {
            assert_eq!(m.heights[v], zone.height);
        }
    }
}

/// The cells `(ix, iz)` a 64 x 64 mesh leaves out, and the world position of every
/// vertex (its float32 local position plus the placement).
fn carved_and_vertices(m: &terrain_core::mesh::TileMesh) -> (Vec<bool>, Vec<(f64, f64)>) {
    let n = 64;
    let mut carved = vec![true; (n - 1) * (n - 1)];
    for k in (0..m.indices.len()).step_by(6) {
        let a = m.indices.get(k).unwrap() as usize;
        carved[(a / n) * (n - 1) + a % n] = false;
    }
    let at = (0..n * n)
        .map(|v| {
            (
                m.placement[0] + f64::from(m.positions[v * 3]),
                m.placement[2] + f64::from(m.positions[v * 3 + 2]),
            )
        })
        .collect();
    (carved, at)
}

/// Each cell is carved exactly when `carves` holds at its four corners.
fn assert_carved_where(
    m: &terrain_core::mesh::TileMesh,
    carves: impl Fn(f64, f64) -> bool,
) -> usize {
    let n = 64;
    let (carved, at) = carved_and_vertices(m);
    let mut count = 0;
    for iz in 0..n - 1 {
        for ix in 0..n - 1 {
            let a = iz * n + ix;
            let want = [a, a + 1, a + n, a + n + 1]
                .iter()
                .all(|&v| carves(at[v].0, at[v].1));
            assert_eq!(carved[iz * (n - 1) + ix], want, "cell ({ix}, {iz})");
            count += usize::from(want);
        }
    }
    count
}

#[test]
fn an_inset_of_zero_carves_the_whole_core() {
    let m = build_tile(&floor_zone(Some(0.0)), (1, 1), 1);
    let count = assert_carved_where(&m, |x, z| {
        (x - 70.0).abs() <= 10.0 && (z - 92.0).abs() <= 12.0
    });
    assert_eq!(m.indices.len(), (63 * 63 - count) * 6);
    // More than an inset of 1 carves, which is more than none.
    let inset = build_tile(&floor_zone(Some(1.0)), (1, 1), 1);
    let inset = 63 * 63 - inset.indices.len() / 6;
    assert!(count > inset && inset > 50, "{count} {inset}");
    assert_eq!(
        build_tile(&floor_zone(None), (1, 1), 1).indices.len(),
        63 * 63 * 6
    );
}

#[test]
fn a_circle_carves_its_radius_less_the_inset() {
    let mut t = island();
    let spec = ZoneSpec {
        center_x: 120.0,
        center_z: 80.0,
        shape: Shape::Circle { radius: 9.0 },
        height: ZoneHeight::Absolute(20.0),
        blend_radius: 2.0,
        carve_inset: Some(1.5),
        priority: 0,
        walkable: None,
        tile_mask: None,
    };
    t.zones_mut().insert(spec.resolve("pad", 0.0), 1);
    let m = build_tile(&t, (1, 1), 1);
    let r2 = 7.5 * 7.5;
    let count = assert_carved_where(&m, |x, z| (x - 120.0).powi(2) + (z - 80.0).powi(2) <= r2);
    assert!(count > 50, "{count}");
}

/// A masked zone carves its footprint's vertices (their tile `(floor(x), floor(z))` in
/// the mask), the same with an inset, with none and with 0, as the original does.
#[test]
fn a_mask_carves_its_footprint_whatever_the_inset() {
    // An L: a 12 x 4 bar along x and a 4 x 8 leg along z, inside a 16 x 16 rectangle.
    let tiles: Vec<[i64; 2]> = (0..12)
        .flat_map(|x| (0..4).map(move |z| [62 + x, 84 + z]))
        .chain((0..4).flat_map(|x| (4..12).map(move |z| [62 + x, 84 + z])))
        .collect();
    let mask = terrain_core::zones::TileMask::new(&tiles).unwrap();
    let mut counts = Vec::new();
    for inset in [None, Some(0.0), Some(2.5)] {
        let mut t = island();
        let spec = ZoneSpec {
            center_x: 70.0,
            center_z: 92.0,
            shape: Shape::Rect {
                width: 16.0,
                depth: 16.0,
            },
            height: ZoneHeight::Absolute(25.0),
            blend_radius: 10.0,
            carve_inset: inset,
            priority: 0,
            walkable: None,
            tile_mask: Some(mask.clone()),
        };
        spec.validate(&Default::default()).unwrap();
        t.zones_mut().insert(spec.resolve("building", 0.0), 1);
        let m = build_tile(&t, (1, 1), 1);
        let count = assert_carved_where(&m, |x, z| {
            tiles.contains(&[x.floor() as i64, z.floor() as i64])
        });
        counts.push(count);
    }
    assert!(counts[0] > 10, "{counts:?}");
    assert_eq!(counts, [counts[0]; 3]);
}

#[test]
fn surface_height_is_the_triangle_plane() {
    let t = island();
    let mesh = build_tile(&t, (0, 0), 0);
    // At vertices the surface is the float32 vertex height.
    for &(ix, iz) in &[(0usize, 0usize), (10, 20), (63, 63), (31, 5)] {
        let v = iz * 64 + ix;
        let (x, z) = (
            f64::from(mesh.positions[v * 3]),
            f64::from(mesh.positions[v * 3 + 2]),
        );
        let s = surface_height(&t, x, z);
        assert!(
            (s - f64::from(mesh.vertex_height(ix, iz))).abs() < 1e-4,
            "({ix},{iz})"
        );
    }
    // Largest difference between the exact field and the surface over one tile.
    let mut worst: f64 = 0.0;
    for i in 0..200 {
        for j in 0..200 {
            let (x, z) = (
                -50.0 + i as f64 * 0.5 + 0.123,
                -50.0 + j as f64 * 0.5 + 0.321,
            );
            worst = worst.max((surface_height(&t, x, z) - t.height(x, z)).abs());
        }
    }
    eprintln!("tile (0, 0): largest |exact - surface| = {worst:.4} m over 40,000 samples");
    assert!(worst > 1e-4 && worst < 1.0, "{worst}");
}

#[test]
fn glb_opens_in_a_gltf_loader_with_the_same_geometry() {
    let t = floor_zone(Some(1.0));
    let mesh = build_tile(&t, (1, 1), 7);
    let bytes = terrain_core::mesh::to_glb(&mesh).expect("encode");
    let doc = gltf::Gltf::from_slice(&bytes).expect("a valid glb");
    let blob = doc.blob.as_deref().expect("binary chunk");
    let node = doc.nodes().next().expect("one node");
    assert_eq!(node.transform().decomposed().0, [100.0, 0.0, 100.0]);
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob));
    let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    let normals: Vec<[f32; 3]> = reader.read_normals().unwrap().collect();
    let indices: Vec<u32> = reader.read_indices().unwrap().into_u32().collect();
    assert_eq!(positions.concat(), mesh.positions);
    assert_eq!(normals.concat(), mesh.normals);
    assert_eq!(
        indices,
        (0..mesh.indices.len())
            .map(|k| mesh.indices.get(k).unwrap())
            .collect::<Vec<_>>()
    );
    assert!(
        indices.len() < 63 * 63 * 6,
        "carved cells are absent from the glb too"
    );
    // The worker's vertex colours as COLOR_0, the biome ids as _BIOME.
    let colours: Vec<[f32; 3]> = reader.read_colors(0).unwrap().into_rgb_f32().collect();
    assert_eq!(colours.concat(), mesh.colours);
    let biome = prim
        .attributes()
        .find(|(semantic, _)| *semantic == gltf::Semantic::Extras("BIOME".into()))
        .expect("_BIOME")
        .1;
    assert_eq!(
        (biome.count(), biome.dimensions()),
        (64 * 64, gltf::accessor::Dimensions::Scalar)
    );
    let view = biome.view().unwrap();
    let bytes = &blob[view.offset()..view.offset() + view.length()];
    let ids: Vec<u8> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u8)
        .collect();
    assert_eq!(ids, mesh.biomes);
}
