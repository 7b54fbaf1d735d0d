//! Benchmarks of the `osrs` generator: the integer area path against the per-point
//! path on one 64x64 map square, and `Generator::fill` of a 65x65 tile mesh against
//! per-point `height`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use terrain_core::generator::osrs::{Osrs, tile_height, tile_heights_area};
use terrain_core::{Generator, Grid};

/// World tile corner of the benchmarked map square (Lumbridge).
const X0: i32 = 3200;
const Y0: i32 = 3200;

fn integer_api(c: &mut Criterion) {
    let mut group = c.benchmark_group("osrs/tiles_64x64");
    group.bench_function("area", |b| {
        b.iter(|| tile_heights_area(black_box(X0), black_box(Y0), 64, 64))
    });
    group.bench_function("per_point", |b| {
        b.iter(|| {
            let (x0, y0) = (black_box(X0), black_box(Y0));
            let mut out = Vec::with_capacity(64 * 64);
            for y in y0..y0 + 64 {
                out.extend((x0..x0 + 64).map(|x| tile_height(x, y)));
            }
            out
        })
    });
    group.finish();
}

fn generator(c: &mut Criterion) {
    let osrs = Osrs::new();
    let grid = Grid::new(f64::from(X0), f64::from(Y0), 1.0, 65, 65).expect("valid grid");
    let mut out = vec![0.0; grid.len()];
    let mut group = c.benchmark_group("osrs/mesh_65x65");
    group.bench_function("fill", |b| {
        b.iter(|| {
            osrs.fill(black_box(&grid), &mut out);
            black_box(&out);
        })
    });
    group.bench_function("per_point_height", |b| {
        b.iter(|| {
            let grid = black_box(&grid);
            for (iz, row) in out.chunks_exact_mut(grid.nx).enumerate() {
                for (ix, h) in row.iter_mut().enumerate() {
                    *h = osrs.height(grid.x(ix), grid.z(iz));
                }
            }
            black_box(&out);
        })
    });
    group.finish();
}

criterion_group!(benches, integer_api, generator);
criterion_main!(benches);
