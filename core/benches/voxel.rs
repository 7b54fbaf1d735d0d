//! Voxel chunks on one core: one chunk's blocks with its apron (erosion and decoration
//! reach), its culled instances, its greedy mesh, its binary encoding, and one
//! column's height on the per-point path; then heights beside hyperscape's in one run
//! (`heights/...`): random points on a fresh world (nothing cached), sparse (2,000
//! over 4 km x 4 km) and dense (100,000 over 1 km x 1 km), the 258 x 258 heights a
//! cold zoom-0 map tile reads (16 m apart), a batch of 1,000,000 random points over
//! 4 km x 4 km, and the largest heightmap (2048 x 2048 samples 1 m apart) in the bands
//! a server fills.
//!
//! Run: `cargo bench -p terrain-core --bench voxel`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use terrain_core::generator::{Generator, Grid};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldSpec, build_terrain};

fn world() -> Terrain {
    terrain(GeneratorKind::Voxel)
}

fn terrain(generator: GeneratorKind) -> Terrain {
    let spec = WorldSpec {
        generator,
        seed: 1,
        overlap: Overlap::Layered,
        layout: None,
        voxel: None,
    };
    build_terrain(&spec, []).expect("default world")
}

/// `n` points, uniform over the square `[x0, x0 + side)^2`, from a fixed sequence.
fn random_points(n: usize, x0: f64, side: f64) -> Vec<(f64, f64)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2545_f491_4f6c_dd1d);
    (0..n)
        .map(|_| {
            (
                rng.random_range(x0..x0 + side),
                rng.random_range(x0..x0 + side),
            )
        })
        .collect()
}

fn heights(c: &mut Criterion) {
    let mut group = c.benchmark_group("heights");
    group.sample_size(10);
    let sparse = random_points(2_000, -2048.0, 4096.0);
    let dense = random_points(100_000, 0.0, 1024.0);
    let batch = random_points(1_000_000, -2048.0, 4096.0);
    // Pixel centres of map tile (0, 0) at zoom 0 with its one-pixel border.
    let axis: Vec<f64> = (-1..=256).map(|i| (f64::from(i) + 0.5) * 16.0).collect();
    for kind in [GeneratorKind::Voxel, GeneratorKind::Hyperscape] {
        let name = kind.as_str();
        for (label, points) in [("random_2000_4km", &sparse), ("random_100k_1km", &dense)] {
            group.throughput(Throughput::Elements(points.len() as u64));
            group.bench_function(format!("{name}/{label}"), |b| {
                b.iter_batched(
                    || terrain(kind),
                    |t| {
                        let sum: f64 = points.iter().map(|&(x, z)| t.height(x, z)).sum();
                        black_box(sum)
                    },
                    BatchSize::PerIteration,
                )
            });
        }
        group.throughput(Throughput::Elements((axis.len() * axis.len()) as u64));
        group.bench_function(format!("{name}/map_zoom0_heights"), |b| {
            b.iter_batched(
                || (terrain(kind), vec![0.0; axis.len() * axis.len()]),
                |(t, mut out)| {
                    t.generator().fill_axes(&axis, &axis, &mut out);
                    black_box(out)
                },
                BatchSize::PerIteration,
            )
        });
        group.throughput(Throughput::Elements(batch.len() as u64));
        group.bench_function(format!("{name}/batch_1m_4km"), |b| {
            b.iter_batched(
                || terrain(kind),
                |t| {
                    let sum: f64 = batch.iter().map(|&(x, z)| t.height(x, z)).sum();
                    black_box(sum)
                },
                BatchSize::PerIteration,
            )
        });
        // The largest heightmap (2048 x 2048 samples, 1 m apart), in the bands of
        // whole rows a server slice fills (4,096 samples: two rows).
        let grid = Grid::new(-1024.0, -1024.0, 1.0, 2048, 2048).expect("grid");
        group.throughput(Throughput::Elements(grid.len() as u64));
        group.bench_function(format!("{name}/heightmap_2048"), |b| {
            b.iter_batched(
                || (terrain(kind), vec![0.0; grid.len()]),
                |(t, mut out)| {
                    for (band, part) in out.chunks_mut(2 * grid.nx).enumerate() {
                        t.fill_rows(&grid, 2 * band..2 * band + 2, part);
                    }
                    black_box(out)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

fn chunks(c: &mut Criterion) {
    let t = world();
    let mut group = c.benchmark_group("voxel");
    group.bench_function("chunk_blocks", |b| {
        b.iter(|| t.voxel_chunk(black_box(3), black_box(-2)))
    });
    group.bench_function("chunk_instances", |b| {
        b.iter(|| t.voxel_instances(black_box(3), black_box(-2)))
    });
    group.bench_function("chunk_greedy_mesh", |b| {
        b.iter(|| t.voxel_mesh(black_box(3), black_box(-2)))
    });
    let chunk = t.voxel_chunk(3, -2).expect("voxel world");
    group.bench_function("chunk_encode", |b| b.iter(|| black_box(&chunk).encode()));
    let bytes = chunk.encode();
    group.bench_function("chunk_decode", |b| {
        b.iter(|| terrain_core::voxel::Chunk::decode(black_box(&bytes)))
    });
    group.bench_function("height_per_point", |b| {
        b.iter(|| t.height(black_box(100.5), black_box(-60.25)))
    });
    group.finish();
}

criterion_group!(benches, chunks, heights);
criterion_main!(benches);
