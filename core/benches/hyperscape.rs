//! Hyperscape generator throughput: per point, by area, and one tile's 66x66 bordered
//! grid (the heights a tile mesh with normals needs).
//!
//! Run: `cargo bench --workspace --bench hyperscape`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use terrain_core::generator::hyperscape::{Hyperscape, tile};
use terrain_core::{Generator, Grid};

/// A 66x66 grid over tile (1, -1): island interior with some coast.
fn tile_grid() -> Grid {
    Grid::new(
        50.0 - tile::step(),
        -150.0 - tile::step(),
        tile::step(),
        66,
        66,
    )
    .expect("valid grid")
}

fn per_point(c: &mut Criterion) {
    let g = Hyperscape::new(0);
    let grid = tile_grid();
    let mut group = c.benchmark_group("hyperscape");
    group.throughput(Throughput::Elements(grid.len() as u64));
    group.bench_function("per_point_66x66", |b| {
        b.iter(|| {
            let mut sum = 0.0;
            for iz in 0..grid.nz {
                for ix in 0..grid.nx {
                    sum += g.height(black_box(grid.x(ix)), black_box(grid.z(iz)));
                }
            }
            sum
        })
    });
    let mut out = vec![0.0; grid.len()];
    group.bench_function("area_66x66", |b| {
        b.iter(|| g.fill(black_box(&grid), &mut out))
    });
    // The worst case for the area path: a grid straddling the coast, where the shore
    // band needs four extra samples per point.
    let coast = Grid::new(250.0, -260.0, tile::step(), 66, 66).expect("valid grid");
    group.bench_function("area_66x66_coast", |b| {
        b.iter(|| g.fill(black_box(&coast), &mut out))
    });
    group.bench_function("tile_normals_64x64", |b| {
        b.iter(|| tile::worker_normals(&g, black_box(1), black_box(-1)))
    });
    // The 1045 points of the seed-0 reference table: a grid over the island and the
    // sea around it, random points and landmarks.
    let points: Vec<(f64, f64)> = include_str!("../tests/data/hyperscape/seed0_heights.csv")
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split(',');
            Some((f.next()?.parse().ok()?, f.next()?.parse().ok()?))
        })
        .collect();
    group.throughput(Throughput::Elements(points.len() as u64));
    group.bench_function("per_point_reference_points", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|&(x, z)| g.height(black_box(x), black_box(z)))
                .sum::<f64>()
        })
    });
    group.finish();
}

criterion_group!(benches, per_point);
criterion_main!(benches);
