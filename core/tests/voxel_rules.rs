//! Each generator rule shows: biomes (primary, secondary patches, regions), water and
//! ice, rivers, the coast rule, erosion and each decoration; the binary chunk form
//! round-trips and refuses damaged bytes naming what is wrong.

use terrain_core::voxel::{Biome, BlockKind, CHUNK, Chunk, Decoration, Volume, Voxel, VoxelConfig};

fn world(seed: u32, config: VoxelConfig) -> Voxel {
    Voxel::new(seed, config).unwrap()
}

fn only(b: Biome) -> VoxelConfig {
    VoxelConfig {
        primary_biome: Some(b),
        patch_threshold: 1.0,
        ..VoxelConfig::default()
    }
}

fn area(v: &Voxel, n: usize) -> Volume {
    v.area(-(n as i64) / 2, -(n as i64) / 2, n, n)
}

fn columns(a: &Volume) -> impl Iterator<Item = (i64, i64)> + '_ {
    let (x0, z0, w, d) = a.rect();
    (z0..z0 + d as i64).flat_map(move |z| (x0..x0 + w as i64).map(move |x| (x, z)))
}

fn decorations(a: &Volume) -> Vec<Decoration> {
    let mut v: Vec<_> = columns(a)
        .filter_map(|(x, z)| a.column(x, z).unwrap().decoration)
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn each_biome_has_its_surface_water_and_decorations() {
    let expect: [(Biome, &[Decoration]); 5] = [
        (Biome::Desert, &[Decoration::Cactus]),
        (
            Biome::Temperate,
            &[Decoration::Flower, Decoration::Rock, Decoration::Tree],
        ),
        (
            Biome::Humid,
            &[Decoration::Flower, Decoration::LilyPad, Decoration::Tree],
        ),
        (Biome::Tundra, &[Decoration::Rock, Decoration::Tree]),
        (Biome::Icy, &[Decoration::IceSpike]),
    ];
    for (biome, decos) in expect {
        let v = world(3, only(biome));
        let a = area(&v, 192);
        let sea = v.config().sea_level as i64;
        let (mut land, mut wet) = (0, 0);
        for (x, z) in columns(&a) {
            let c = a.column(x, z).unwrap();
            assert_eq!(c.biome, biome);
            let ground = (0..a.height() as i64)
                .rev()
                .find(|&y| {
                    !matches!(
                        a.get(x, y, z),
                        BlockKind::Air
                            | BlockKind::Water
                            | BlockKind::Ice
                            | BlockKind::LilyPad
                            | BlockKind::Flower
                            | BlockKind::Leaves
                            | BlockKind::Cactus
                            | BlockKind::Rock
                            | BlockKind::PackedIce
                            | BlockKind::Wood
                    )
                })
                .unwrap();
            assert_eq!(a.get(x, ground, z), c.surface);
            if c.water_depth > 0 {
                wet += 1;
                assert_eq!(ground + 1 + i64::from(c.water_depth), sea);
                let top = a.get(x, sea - 1, z);
                assert_eq!(
                    top,
                    if biome == Biome::Icy {
                        BlockKind::Ice
                    } else {
                        BlockKind::Water
                    }
                );
                assert_eq!(
                    c.height as i64,
                    if biome == Biome::Icy { sea } else { ground + 1 }
                );
            } else {
                land += 1;
                let inner =
                    [(0, -1), (1, 0), (0, 1), (-1, 0)].map(|(dx, dz)| a.column(x + dx, z + dz));
                if inner.iter().all(|n| n.is_some_and(|n| n.water_depth == 0)) {
                    assert_eq!(c.surface, biome.land_surface());
                }
            }
        }
        assert!(
            land > 100 && wet > 100,
            "{biome:?}: {land} land, {wet} water columns"
        );
        assert_eq!(decorations(&a), decos, "{biome:?}");
    }
}

#[test]
fn secondary_patches_and_regions_vary_the_primary_biome() {
    let all_secondary = VoxelConfig {
        patch_threshold: -1.0,
        ..only(Biome::Desert)
    };
    let a = area(&world(1, all_secondary), 32);
    assert!(columns(&a).all(|(x, z)| a.column(x, z).unwrap().biome == Biome::Temperate));
    // Default patches: an oasis of temperate inside a desert.
    let patchy = VoxelConfig {
        primary_biome: Some(Biome::Desert),
        ..VoxelConfig::default()
    };
    let a = area(&world(1, patchy), 384);
    let n = |b| {
        columns(&a)
            .filter(|&(x, z)| a.column(x, z).unwrap().biome == b)
            .count()
    };
    assert!(
        n(Biome::Desert) > 1000 && n(Biome::Temperate) > 1000,
        "{} {}",
        n(Biome::Desert),
        n(Biome::Temperate)
    );
    // Per region: different primaries; with one region, one primary from the seed.
    let sample = |config: VoxelConfig, seed| {
        let v = world(seed, config);
        let mut b: Vec<Biome> = (0..36)
            .map(|i| {
                v.area((i % 6) * 300, (i / 6) * 300, 1, 1)
                    .column((i % 6) * 300, (i / 6) * 300)
                    .unwrap()
                    .biome
            })
            .collect();
        b.sort();
        b.dedup();
        b
    };
    let regions = VoxelConfig {
        biome_region: 64,
        patch_threshold: 1.0,
        ..VoxelConfig::default()
    };
    assert!(sample(regions, 7).len() >= 3);
    let one = VoxelConfig {
        biome_region: 0,
        ..regions
    };
    assert_eq!(sample(one, 7).len(), 1);
    let firsts: Vec<Vec<Biome>> = (0..12).map(|s| sample(one, s)).collect();
    assert!(
        firsts.iter().any(|b| b != &firsts[0]),
        "the seed picks the primary biome"
    );
}

#[test]
fn rivers_carve_water_and_the_coast_rule_makes_sand() {
    let v = world(2, only(Biome::Temperate));
    let dry = world(
        2,
        VoxelConfig {
            river_width: 0.0,
            ..only(Biome::Temperate)
        },
    );
    let (a, b) = (area(&v, 384), area(&dry, 384));
    let water = |a: &Volume, x, z| a.column(x, z).is_some_and(|c| c.water_depth > 0);
    let (mut rivers, mut carved, mut coast) = (0, 0, 0);
    for (x, z) in columns(&a) {
        let c = a.column(x, z).unwrap();
        assert!(!b.column(x, z).unwrap().river);
        if c.river {
            rivers += 1;
            assert!(c.water_depth > 0, "a river column is water");
            if !water(&b, x, z) {
                carved += 1;
            }
            continue;
        }
        let next = [(0, -1), (1, 0), (0, 1), (-1, 0)]
            .iter()
            .any(|&(dx, dz)| water(&a, x + dx, z + dz));
        let inner = [(0, -1), (1, 0), (0, 1), (-1, 0)]
            .iter()
            .all(|&(dx, dz)| a.column(x + dx, z + dz).is_some());
        if !inner {
            continue;
        }
        if c.water_depth == 0 && next {
            assert_eq!(c.surface, BlockKind::Sand, "coast at ({x}, {z})");
            coast += 1;
        }
        if c.water_depth == 0 && !next && c.surface == BlockKind::Sand {
            panic!("sand at ({x}, {z}) away from water");
        }
    }
    assert!(
        rivers > 50 && carved > 20 && coast > 50,
        "{rivers} {carved} {coast}"
    );
}

#[test]
fn erosion_lowers_steep_columns() {
    let steep = VoxelConfig {
        amplitude: 40,
        scale: 24.0,
        base_height: 30,
        sea_level: 4,
        ..only(Biome::Temperate)
    };
    let excess = |k: u32| {
        let v = world(
            6,
            VoxelConfig {
                erosion_iterations: k,
                ..steep
            },
        );
        let a = v.area(0, 0, 64, 64);
        let ground = |x, z| {
            let c = a.column(x, z).unwrap();
            c.height
                - if matches!(c.decoration, Some(Decoration::Tree | Decoration::Rock)) {
                    6
                } else {
                    0
                }
        };
        let mut sum = 0;
        for z in 1..63 {
            for x in 1..63 {
                let low = [(0, -1), (1, 0), (0, 1), (-1, 0)]
                    .iter()
                    .map(|&(dx, dz)| ground(x + dx, z + dz))
                    .min()
                    .unwrap();
                sum += (ground(x, z) - low - 2).max(0);
            }
        }
        sum
    };
    let (raw, eroded) = (excess(0), excess(8));
    assert!(eroded * 2 < raw, "talus excess {raw} -> {eroded}");
}

#[test]
fn a_tree_near_a_chunk_edge_puts_leaves_in_the_next_chunk() {
    let v = world(5, only(Biome::Humid));
    let mut found = 0;
    for cx in 0..3 {
        let c = v.chunk(cx, 0);
        let next = v.chunk(cx + 1, 0);
        for z in 2..30 {
            for x in [31usize, 30] {
                let col = c.columns()[z * 32 + x];
                if col.decoration != Some(Decoration::Tree) {
                    continue;
                }
                // The canopy layer below the top reaches two columns east.
                let b = next.block(x + 2 - 32, col.height as usize - 1, z);
                if b == BlockKind::Leaves {
                    found += 1;
                }
            }
        }
    }
    assert!(found > 0, "no canopy across a chunk edge");
}

#[test]
fn chunks_round_trip_their_binary_form_and_refuse_damage() {
    let v = world(12, VoxelConfig::default());
    let c = v.chunk(-3, 7);
    let bytes = c.encode();
    let one_byte_per_block = (CHUNK * CHUNK) as usize * c.height() as usize;
    assert!(
        bytes.len() * 3 < one_byte_per_block,
        "{} bytes",
        bytes.len()
    );
    assert_eq!(Chunk::decode(&bytes).unwrap(), c);
    let refused = |b: &[u8]| Chunk::decode(b).unwrap_err();
    let e = refused(&bytes[..bytes.len() / 2]);
    assert_eq!(e.field(), "truncated", "{e}");
    assert!(e.to_string().contains("column"), "{e}");
    let mut b = bytes.clone();
    b[0] = b'X';
    assert_eq!(refused(&b).field(), "magic");
    let mut b = bytes.clone();
    b[4] = 9;
    assert_eq!(
        refused(&b).to_string(),
        "version: format version 9 is not supported (expected 1)"
    );
    let mut b = bytes.clone();
    b[21] = 3;
    assert_eq!(refused(&b).field(), "height");
    let mut b = bytes.clone();
    b[23] = 200;
    assert_eq!(refused(&b).to_string(), "palette: unknown block id 200");
    let n = usize::from(bytes[22]);
    let mut b = bytes.clone();
    b[23 + n] ^= 0x01; // column 0's height
    let e = refused(&b);
    assert_eq!(e.field(), "column", "{e}");
    assert!(
        e.to_string().starts_with("column 0 (x 0, z 0): height"),
        "{e}"
    );
    let mut b = bytes.clone();
    b[23 + n + 5] = 40; // column 0's first run's palette index
    assert!(
        refused(&b).to_string().contains("palette index 40"),
        "{}",
        refused(&b)
    );
    let mut b = bytes.clone();
    b[23 + n + 3] ^= 0x01; // water depth: structurally fine, caught by the checksum
    assert_eq!(refused(&b).field(), "checksum");
    let mut b = bytes.clone();
    b.extend_from_slice(&[0, 0]);
    assert_eq!(
        refused(&b).to_string(),
        "trailing: 2 bytes after the checksum"
    );
    assert_eq!(refused(&[]).field(), "truncated");
}
