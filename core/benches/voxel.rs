//! Voxel chunks on one core: one chunk's blocks with its apron (erosion and decoration
//! reach), its culled instances, its greedy mesh, its binary encoding, and one
//! column's height on the per-point path.
//!
//! Run: `cargo bench -p terrain-core --bench voxel`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use terrain_core::generator::Generator;
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldSpec, build_terrain};

fn world() -> Terrain {
    let spec = WorldSpec {
        generator: GeneratorKind::Voxel,
        seed: 1,
        overlap: Overlap::Layered,
        layout: None,
        voxel: None,
    };
    build_terrain(&spec, []).expect("default voxel world")
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

criterion_group!(benches, chunks);
criterion_main!(benches);
