//! `LocalTerrain` lookups at one snapshot of the hyperscape island (seed 0, no zones):
//! the exact height, the surface-mode height evaluated on the spot, and the
//! surface-mode height from cached tiles (`SurfaceReader`, its nine tiles already read),
//! over 4096 random points of a 3 x 3 tile block.
//!
//! Run: `cargo bench -p terrain-client --bench replica -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use terrain_client::{Snapshot, SurfaceReader};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

fn lookups(c: &mut Criterion) {
    let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).expect("seed 0");
    let zones = ZoneSet::new(Overlap::Layered, generator.tile_size());
    let snapshot = Arc::new(Snapshot::from_terrain(Terrain::new(generator, zones), 1));
    let mut s: u64 = 0x5eed;
    let mut next = move || {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let points: Vec<(f64, f64)> = (0..4096)
        .map(|_| (-150.0 + next() * 300.0, -150.0 + next() * 300.0))
        .collect();
    let mut reader = SurfaceReader::new(Arc::clone(&snapshot));
    for &(x, z) in &points {
        reader.height_at(x, z).expect("in range");
    }
    let mut group = c.benchmark_group("replica");
    group.throughput(Throughput::Elements(points.len() as u64));
    group.bench_function("exact_height", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|&(x, z)| {
                    snapshot
                        .height_at(black_box(x), black_box(z))
                        .unwrap_or(f64::NAN)
                })
                .sum::<f64>()
        })
    });
    group.bench_function("surface_evaluated", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|&(x, z)| {
                    snapshot
                        .surface_height_at(black_box(x), black_box(z))
                        .unwrap_or(f64::NAN)
                })
                .sum::<f64>()
        })
    });
    group.bench_function("surface_cached", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|&(x, z)| {
                    reader
                        .height_at(black_box(x), black_box(z))
                        .unwrap_or(f64::NAN)
                })
                .sum::<f64>()
        })
    });
    // Points in walking order (each near the last): the reader's last-tile fast path.
    let mut walk = points.clone();
    walk.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.total_cmp(&b.0)));
    group.bench_function("surface_cached_walk", |b| {
        b.iter(|| {
            walk.iter()
                .map(|&(x, z)| {
                    reader
                        .height_at(black_box(x), black_box(z))
                        .unwrap_or(f64::NAN)
                })
                .sum::<f64>()
        })
    });
    group.finish();
}

criterion_group!(benches, lookups);
criterion_main!(benches);
