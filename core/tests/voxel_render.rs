//! Culling equals a brute-force six-neighbour check over chunks and their borders;
//! the greedy mesh covers exactly the visible faces of each kind; flat zones level
//! voxel columns to whole blocks under both overlap rules.

use std::collections::{BTreeMap, BTreeSet};

use terrain_core::generator::Generator;
use terrain_core::voxel::{BlockKind, CHUNK, Chunk, base_colour, face_visible, instance_colour};
use terrain_core::zones::Shape;
use terrain_core::{FlatZone, GeneratorKind, Overlap, Terrain, WorldSpec, build_terrain};

fn terrain(seed: u32, overlap: Overlap, zones: Vec<FlatZone>) -> Terrain {
    let spec = WorldSpec {
        generator: GeneratorKind::Voxel,
        seed,
        overlap,
        layout: None,
        voxel: None,
    };
    build_terrain(&spec, zones.into_iter().zip(1..)).unwrap()
}

/// Blocks of chunks `lo..hi` (both axes), by world coordinates.
struct World {
    chunks: BTreeMap<(i64, i64), Chunk>,
    h: i64,
}

impl World {
    fn new(t: &Terrain, lo: i64, hi: i64) -> World {
        let mut chunks = BTreeMap::new();
        for cz in lo..hi {
            for cx in lo..hi {
                chunks.insert((cx, cz), t.voxel_chunk(cx, cz).unwrap());
            }
        }
        let h = i64::from(chunks.values().next().unwrap().height());
        World { chunks, h }
    }

    fn get(&self, x: i64, y: i64, z: i64) -> BlockKind {
        if y < 0 {
            return BlockKind::Stone;
        }
        if y >= self.h {
            return BlockKind::Air;
        }
        let c = &self.chunks[&(x.div_euclid(CHUNK), z.div_euclid(CHUNK))];
        c.block(
            x.rem_euclid(CHUNK) as usize,
            y as usize,
            z.rem_euclid(CHUNK) as usize,
        )
    }
}

const DIRS: [[i64; 3]; 6] = [
    [1, 0, 0],
    [-1, 0, 0],
    [0, 1, 0],
    [0, -1, 0],
    [0, 0, 1],
    [0, 0, -1],
];

fn zone(id: &str, x: f64, z: f64, height: f64, priority: i32) -> FlatZone {
    FlatZone {
        id: id.into(),
        center_x: x,
        center_z: z,
        shape: Shape::Circle { radius: 5.0 },
        height,
        blend_radius: 3.0,
        carve_inset: None,
        priority,
        walkable: None,
        tile_mask: None,
    }
}

#[test]
fn culling_equals_a_brute_force_check_across_chunk_borders() {
    // A zone straddling the corner of four chunks as well.
    let t = terrain(4, Overlap::Layered, vec![zone("z", 32.0, 32.0, 30.4, 0)]);
    let world = World::new(&t, -1, 3);
    let seed = 4;
    for cz in 0..2 {
        for cx in 0..2 {
            let inst = t.voxel_instances(cx, cz).unwrap();
            let mut got = BTreeSet::new();
            let mut prev = None;
            for k in &inst.kinds {
                assert!(prev < Some(k.kind), "kinds in BlockKind order");
                prev = Some(k.kind);
                assert_eq!(k.positions.len(), k.colours.len());
                for (p, c) in k.positions.iter().zip(&k.colours) {
                    assert!(got.insert((p[0] as i64, p[1] as i64, p[2] as i64, k.kind)));
                    let col = instance_colour(seed, k.kind, p[0].into(), p[1].into(), p[2].into());
                    assert_eq!(*c, col);
                    let base = base_colour(k.kind);
                    let j = f64::from(k.kind.info().jitter);
                    for i in 0..3 {
                        let lo = (base[i] * (1.0 - j)) as f32 - 1e-6;
                        let hi = ((base[i] * (1.0 + j)).min(1.0)) as f32 + 1e-6;
                        assert!((lo..=hi).contains(&c[i]), "{:?} {c:?}", k.kind);
                    }
                }
            }
            let (mut want, mut total) = (BTreeSet::new(), 0);
            for z in cz * CHUNK..(cz + 1) * CHUNK {
                for x in cx * CHUNK..(cx + 1) * CHUNK {
                    for y in 0..world.h {
                        let b = world.get(x, y, z);
                        if b == BlockKind::Air {
                            continue;
                        }
                        total += 1;
                        let hidden = DIRS
                            .iter()
                            .all(|d| world.get(x + d[0], y + d[1], z + d[2]).occludes());
                        if !hidden {
                            want.insert((x, y, z, b));
                        }
                    }
                }
            }
            assert_eq!(got, want, "chunk ({cx}, {cz})");
            assert_eq!(inst.visible, want.len() as u64);
            assert_eq!(inst.total, total);
            assert!(inst.visible < inst.total);
        }
    }
}

#[test]
fn the_greedy_mesh_covers_exactly_the_visible_faces_of_each_kind() {
    let t = terrain(8, Overlap::Hyperscape, vec![zone("z", 20.0, 40.0, 12.6, 0)]);
    let world = World::new(&t, -1, 3);
    let by_colour: BTreeMap<[u32; 3], BlockKind> = BlockKind::ALL
        .iter()
        .map(|&k| (base_colour(k).map(|c| (c as f32).to_bits()), k))
        .collect();
    assert_eq!(
        by_colour.len(),
        BlockKind::ALL.len(),
        "base colours tell kinds apart"
    );
    for (cx, cz) in [(0, 0), (1, 1), (0, 1)] {
        let mesh = t.voxel_mesh(cx, cz).unwrap();
        let mut want = BTreeSet::new();
        for z in cz * CHUNK..(cz + 1) * CHUNK {
            for x in cx * CHUNK..(cx + 1) * CHUNK {
                for y in 0..world.h {
                    let a = world.get(x, y, z);
                    for (i, d) in DIRS.iter().enumerate() {
                        if face_visible(a, world.get(x + d[0], y + d[1], z + d[2])) {
                            want.insert((a, i, x, y, z));
                        }
                    }
                }
            }
        }
        let mut got = BTreeSet::new();
        let mut cells = 0u64;
        let mut quads = 0;
        for (part, opaque) in [(&mesh.opaque, true), (&mesh.transparent, false)] {
            assert_eq!(part.positions.len() % 4, 0);
            assert_eq!(part.indices.len(), part.positions.len() / 4 * 6);
            for q in 0..part.positions.len() / 4 {
                quads += 1;
                let v = &part.positions[4 * q..4 * q + 4];
                let n = part.normals[4 * q];
                let kind = by_colour[&part.colours[4 * q].map(f32::to_bits)];
                assert_eq!(kind.occludes(), opaque, "{kind:?} in the wrong part");
                let axis = (0..3).find(|&i| n[i] != 0.0).unwrap();
                let dir = DIRS.iter().position(|d| d[axis] as f32 == n[axis]).unwrap();
                // Counter-clockwise seen from outside: (v1 - v0) x (v2 - v0) along n.
                let e1: Vec<f32> = (0..3).map(|i| v[1][i] - v[0][i]).collect();
                let e2: Vec<f32> = (0..3).map(|i| v[2][i] - v[0][i]).collect();
                let cross = [
                    e1[1] * e2[2] - e1[2] * e2[1],
                    e1[2] * e2[0] - e1[0] * e2[2],
                    e1[0] * e2[1] - e1[1] * e2[0],
                ];
                assert!(cross[axis] * n[axis] > 0.0);
                let lo: Vec<i64> = (0..3)
                    .map(|i| v.iter().map(|p| p[i]).fold(f32::MAX, f32::min) as i64)
                    .collect();
                let hi: Vec<i64> = (0..3)
                    .map(|i| v.iter().map(|p| p[i]).fold(f32::MIN, f32::max) as i64)
                    .collect();
                let plane = lo[axis];
                let block = if n[axis] > 0.0 { plane - 1 } else { plane };
                let range = |i: usize| {
                    if i == axis {
                        block..block + 1
                    } else {
                        lo[i]..hi[i]
                    }
                };
                let (rx, ry, rz) = (range(0), range(1), range(2));
                for x in rx {
                    for y in ry.clone() {
                        for z in rz.clone() {
                            cells += 1;
                            assert!(got.insert((kind, dir, x, y, z)), "overlap at {x} {y} {z}");
                        }
                    }
                }
            }
        }
        assert_eq!(got, want, "chunk ({cx}, {cz})");
        assert_eq!(cells, want.len() as u64);
        assert_eq!(mesh.visible_faces, want.len() as u64);
        assert_eq!(mesh.quads, quads);
        assert!(
            mesh.quads * 2 < mesh.visible_faces,
            "{} quads for {} faces",
            mesh.quads,
            mesh.visible_faces
        );
        assert!(!mesh.transparent.positions.is_empty());
    }
}

#[test]
fn zones_level_voxel_columns_to_whole_blocks_under_both_overlap_rules() {
    for overlap in [Overlap::Layered, Overlap::Hyperscape] {
        let zones = vec![
            zone("a", 10.0, 10.0, 33.5, 0),
            zone("b", 22.0, 16.0, 20.2, 1),
        ];
        let t = terrain(2, overlap, zones);
        let c = t.voxel_chunk(0, 0).unwrap();
        let n = CHUNK as usize;
        let (mut levelled, mut stepped) = (0, BTreeSet::new());
        for lz in 0..n {
            for lx in 0..n {
                let (x, z) = (lx as f64, lz as f64);
                let h = t.height(x + 0.3, z + 0.9);
                let top = c
                    .column_blocks(lx, lz)
                    .iter()
                    .rposition(|b| b.solid())
                    .map_or(0, |y| y + 1);
                assert_eq!(h, top as f64, "{overlap:?} ({lx}, {lz})");
                assert_eq!(h.fract(), 0.0);
                assert_eq!(c.columns()[lz * n + lx].height as f64, h);
                if let Some((zone, _)) = t.sample(x + 0.5, z + 0.5).zone {
                    stepped.insert(h as i64);
                    if zone.id == "a" && ((x + 0.5 - 10.0).hypot(z + 0.5 - 10.0)) < 3.0 {
                        assert_eq!(h, 34.0, "33.5 rounds up");
                        levelled += 1;
                    }
                }
            }
        }
        assert!(levelled > 10);
        assert!(
            stepped.len() > 4,
            "the blend ring steps by whole blocks: {stepped:?}"
        );
        // Area path with zones equals per point.
        let xs: Vec<f64> = (0..=32).map(f64::from).collect();
        let mut area = vec![0.0; 33 * 33];
        t.fill_axes(&xs, &xs, &mut area);
        for (iz, &z) in xs.iter().enumerate() {
            for (ix, &x) in xs.iter().enumerate() {
                assert_eq!(
                    area[iz * 33 + ix].to_bits(),
                    t.height(x, z).to_bits(),
                    "({x}, {z})"
                );
            }
        }
    }
}
