//! The layout layer's cost on heights: the example world's layout (rings pattern,
//! planar spokes, chunk_size 400, cell_size 8, seed 7) over hyperscape seed 7.
//!
//! - `prepare_7x7_cold`: `LayoutGround::prepare` of the 49 chunks within 3 chunks of
//!   the origin on a fresh surface (region graphs, feature indexes with hub heights,
//!   classification cells): what baking a world with grid_radius 3 costs;
//! - `height_*`: one `Terrain::height` with and without the layout (warm caches), at a
//!   point in a clearing, in a corridor and in the wilds (where the layout changes
//!   nothing but is still consulted);
//! - `apply_*`: `LayoutGround::apply` alone at those points (cache hit included);
//!   `features_lookup`: the cache hit alone; `features_apply_hub`: the clearing's
//!   features applied without the lookup;
//! - `tile_*`: one 64x64 hyperscape tile's heights through `Terrain::fill_axes`, with
//!   and without the layout.
//!
//! Run: `cargo bench -p terrain-core --bench layout`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use terrain_core::layout::{Area, LayoutConfig, LayoutGround, Pattern, ZoneClass};
use terrain_core::{Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

const SEED: u32 = 7;

fn generator() -> WorldGenerator {
    WorldGenerator::new(GeneratorKind::Hyperscape, SEED).expect("hyperscape")
}

fn config() -> LayoutConfig {
    LayoutConfig::new(Pattern::Rings, 400.0, 8.0, SEED).expect("layout config")
}

/// The 7 x 7 chunks within 3 chunks of the origin.
fn bake_area() -> Area {
    Area::new(-1200.0, -1200.0, 1599.0, 1599.0).expect("area")
}

fn surface() -> LayoutGround {
    LayoutGround::new(config(), generator()).expect("surface")
}

/// A point of each class near the origin, found from the layout's own cells.
fn class_points(s: &LayoutGround) -> [(f64, f64); 3] {
    let mut found: [Option<(f64, f64)>; 3] = [None; 3];
    for j in 0..200 {
        for i in 0..200 {
            let (x, z) = (i as f64 * 4.0 + 2.0, j as f64 * 4.0 + 2.0);
            let k = match s.classify(x, z).expect("classify").class {
                ZoneClass::Hub(_) => 0,
                ZoneClass::Spoke => 1,
                ZoneClass::Wilds => 2,
            };
            found[k].get_or_insert((x, z));
        }
    }
    found.map(|p| p.expect("every class occurs near the origin"))
}

fn prepare(c: &mut Criterion) {
    let mut group = c.benchmark_group("layout");
    group.sample_size(10);
    group.bench_function("prepare_7x7_cold", |b| {
        b.iter_batched(
            surface,
            |s| s.prepare(black_box(&bake_area())).expect("prepare"),
            criterion::BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn heights(c: &mut Criterion) {
    let s = Arc::new(surface());
    s.prepare(&bake_area()).expect("prepare");
    let plain = Terrain::new(generator(), ZoneSet::new(Overlap::Layered, 100.0));
    let laid = plain.clone().with_layout(Arc::clone(&s));
    let points = class_points(&s);
    let mut group = c.benchmark_group("layout");
    for (name, (x, z)) in ["hub", "spoke", "wilds"].into_iter().zip(points) {
        group.bench_function(format!("height_{name}_without_layout"), |b| {
            b.iter(|| plain.height(black_box(x), black_box(z)))
        });
        group.bench_function(format!("height_{name}_with_layout"), |b| {
            b.iter(|| laid.height(black_box(x), black_box(z)))
        });
    }
    for (name, (x, z)) in ["hub", "spoke", "wilds"].into_iter().zip(points) {
        group.bench_function(format!("apply_{name}"), |b| {
            b.iter(|| s.apply(black_box(x), black_box(z), black_box(1.0)))
        });
    }
    let (hx, hz) = points[0];
    let chunk = ((hx / 400.0).floor() as i64, (hz / 400.0).floor() as i64);
    let f = s.features(chunk).expect("features");
    group.bench_function("features_lookup", |b| {
        b.iter(|| s.features(black_box(chunk)).expect("features"))
    });
    group.bench_function("features_apply_hub", |b| {
        b.iter(|| f.apply(black_box(hx), black_box(hz), black_box(1.0)))
    });
    // Tile (1, 1): 64 x 64 vertices 100/63 m apart around (100, 100).
    let axis: Vec<f64> = (0..64).map(|i| 50.0 + i as f64 * 100.0 / 63.0).collect();
    let mut out = vec![0.0; 64 * 64];
    group.bench_function("tile_without_layout", |b| {
        b.iter(|| plain.fill_axes(black_box(&axis), black_box(&axis), &mut out))
    });
    group.bench_function("tile_with_layout", |b| {
        b.iter(|| laid.fill_axes(black_box(&axis), black_box(&axis), &mut out))
    });
    group.finish();
}

criterion_group!(benches, prepare, heights);
criterion_main!(benches);
