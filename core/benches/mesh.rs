//! Tile mesh generation: one 64x64 hyperscape tile with normals (a 66x66 height grid),
//! on one core and across all cores.
//!
//! Run: `cargo bench --workspace --bench mesh`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use terrain_core::mesh::{SurfaceTile, build_tile, surface_height};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

fn island() -> Terrain {
    let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).expect("hyperscape");
    Terrain::new(generator, ZoneSet::new(Overlap::Layered, 100.0))
}

fn tiles(c: &mut Criterion) {
    let t = island();
    let mut group = c.benchmark_group("mesh");
    // Inland, partly coastal, and ocean tiles: the island spans about -4..4.
    for key in [(0, 0), (1, -1), (3, -3), (6, 6)] {
        group.bench_function(format!("tile_{}_{}", key.0, key.1), |b| {
            b.iter(|| build_tile(black_box(&t), black_box(key), 1))
        });
    }
    // All 81 tiles of the island's 9x9 block, spread over every core.
    let keys: Vec<(i64, i64)> = (-4..=4)
        .flat_map(|tz| (-4..=4).map(move |tx| (tx, tz)))
        .collect();
    group.throughput(Throughput::Elements(keys.len() as u64));
    group.sample_size(20);
    group.bench_function("island_81_tiles_parallel", |b| {
        b.iter(|| {
            keys.par_iter()
                .map(|&k| build_tile(&t, k, 1).indices.len())
                .sum::<usize>()
        })
    });
    group.bench_function("island_81_tiles_serial", |b| {
        b.iter(|| {
            keys.iter()
                .map(|&k| build_tile(&t, k, 1).indices.len())
                .sum::<usize>()
        })
    });
    group.finish();
}

/// Surface-mode heights at 4096 random points of tile (1, -1): evaluated (three
/// exact vertex heights per point) and from the tile's cached vertex heights.
fn surface(c: &mut Criterion) {
    let t = island();
    let mut s: u64 = 0x5eed;
    let points: Vec<(f64, f64)> = (0..4096)
        .map(|_| {
            let mut next = || {
                s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                (s >> 11) as f64 / (1u64 << 53) as f64
            };
            (50.0 + next() * 100.0, -150.0 + next() * 100.0)
        })
        .collect();
    let tile = SurfaceTile::new(&t, (1, -1));
    let mut group = c.benchmark_group("surface");
    group.throughput(Throughput::Elements(points.len() as u64));
    group.bench_function("evaluated", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|&(x, z)| surface_height(&t, black_box(x), black_box(z)))
                .sum::<f64>()
        })
    });
    group.bench_function("cached_tile", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|&(x, z)| tile.height(black_box(x), black_box(z)).unwrap_or(0.0))
                .sum::<f64>()
        })
    });
    group.finish();
}

criterion_group!(benches, tiles, surface);
criterion_main!(benches);
