//! Hyperscape generator throughput: per point, by area, and one tile's 66x66 bordered
//! grid (the heights a tile mesh with normals needs).
//!
//! Run: `cargo bench --workspace --bench hyperscape`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use terrain_core::generator::hyperscape::{Hyperscape, tile};
use terrain_core::mesh::tile::normals_from_grid;
use terrain_core::{Generator, Grid};

/// The column and row coordinates of `grid`.
fn axes(grid: &Grid) -> (Vec<f64>, Vec<f64>) {
    (
        (0..grid.nx).map(|i| grid.x(i)).collect(),
        (0..grid.nz).map(|i| grid.z(i)).collect(),
    )
}

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
    // The same grid on the scalar code alone (what the four-lane path replaces).
    let (gx, gz) = axes(&grid);
    group.bench_function("area_66x66_scalar", |b| {
        b.iter(|| g.fill_axes_scalar(black_box(&gx), black_box(&gz), &mut out))
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
    // `worker_normals` on the scalar area path: its bordered grid, then the normals.
    let wx: Vec<f64> = (-1..=64).map(|i| tile::worker_coord(1, i)).collect();
    let wz: Vec<f64> = (-1..=64).map(|i| tile::worker_coord(-1, i)).collect();
    group.bench_function("tile_normals_64x64_scalar", |b| {
        b.iter(|| {
            let mut h = vec![0.0; wx.len() * wz.len()];
            g.fill_axes_scalar(black_box(&wx), black_box(&wz), &mut h);
            let grid32: Vec<f32> = h.iter().map(|&h| h as f32).collect();
            normals_from_grid(&grid32, 64, tile::step())
        })
    });
    // The vertex colours of the tile (64x64, heights from the grid above): four
    // vertices at a time, and one by one on the scalar code.
    g.fill_axes(&wx, &wz, &mut out);
    let colours = g.colours();
    let h32: Vec<f32> = out.iter().map(|&h| h as f32).collect();
    let height = |ix: usize, iz: usize| h32[(iz + 1) * 66 + ix + 1];
    group.throughput(Throughput::Elements(64 * 64));
    group.bench_function("colours_64x64", |b| {
        b.iter(|| {
            let mut n = 0u32;
            colours.grid(g.noise(), &wx[1..65], &wz[1..65], height, |c| {
                n += u32::from(c.biome)
            });
            n
        })
    });
    group.bench_function("colours_64x64_scalar", |b| {
        b.iter(|| {
            let mut n = 0u32;
            for iz in 0..64 {
                for ix in 0..64 {
                    let c = colours.at(g.noise(), wx[ix + 1], wz[iz + 1], height(ix, iz));
                    n += u32::from(c.biome);
                }
            }
            n
        })
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
    // 10,000 points uniform in the 350 m disc around the spawn: every one island (the
    // five layers, the mask, the pow, the boost), what `getHeightAt` at an arbitrary
    // point costs the Node adapter beyond its call.
    let disc = disc_points(10_000, 350.0);
    group.throughput(Throughput::Elements(disc.len() as u64));
    group.bench_function("per_point_disc_350", |b| {
        b.iter(|| {
            disc.iter()
                .map(|&(x, z)| g.height(black_box(x), black_box(z)))
                .sum::<f64>()
        })
    });
    group.finish();
}

/// `n` points uniform in the disc of `radius` around the origin (a seeded generator).
fn disc_points(n: usize, radius: f64) -> Vec<(f64, f64)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|_| {
            let d = radius * rng.random::<f64>().sqrt();
            let a = rng.random_range(0.0..std::f64::consts::TAU);
            (d * a.cos(), d * a.sin())
        })
        .collect()
}

criterion_group!(benches, per_point);
criterion_main!(benches);
