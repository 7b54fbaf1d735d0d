//! Movement queries on the island (seed 0, no zones) by the original's rule:
//!
//! - `info_per_point`: terrain info (nine heights, biome, reason) at 1,000 land points,
//!   one `info` call each (the nine heights computed together);
//! - `info_per_point_nine_heights`: the same by `info_point_by_point`, the nine heights
//!   evaluated one by one (the straightforward path, for comparison);
//! - `infos_1000`: the same 1,000 points in one `infos` call;
//! - `infos_block_64x64`, `infos_town_1000`: batches whose points lie together (the
//!   4,096 movement tiles of a 64 m block; 1,000 entities on the tiles of a 100 m
//!   town), which take the area path; `info_per_point_*` the same points one call each;
//! - `blocked_per_point`: the walkable test alone at the same points;
//! - `check_tiles_100m`: a tiles-mode path check over a 100 m segment (about 140 tiles);
//! - `check_sampled_100m`: the original's 21-sample check over the same segment;
//! - `check_tiles_100m_warm_grids`: the same over the cached 64 x 64 grids it touches;
//! - `grid_64x64`: one block of 4,096 movement tiles judged from the area path;
//! - `find_200m_warm_grids`: a path found over 200 m on warm grids;
//! - `find_200m`: the same, every tile judged point by point (no grids);
//! - `voxel_check_tiles_100m_warm_grids`, `voxel_find_100m_warm_grids`: a voxel world
//!   (seed 3, the defaults) under `block-step`, every move's rise judged too.
//!
//! The original's code under Node on this machine class: `getTerrainInfoAt` 85 us,
//! `isPositionWalkable` 40 us, `findWalkablePath` over 100 m 577 us.
//!
//! Run: `cargo bench -p terrain-core --bench walk -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use terrain_core::walk::{
    BiomeLimits, WalkGrids, WalkRule, Walker, find::find_path, path::PointJudge,
};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

fn bench(c: &mut Criterion) {
    let terrain = Terrain::new(
        WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap(),
        ZoneSet::new(Overlap::Hyperscape, 100.0),
    );
    let rule = WalkRule::Hyperscape {
        limits: BiomeLimits::hyperscape(),
    };
    let walker = Walker::new(&terrain, &rule);
    let points: Vec<(f64, f64)> = (0..1000)
        .map(|i| {
            let a = f64::from(i) * 0.618_033_988_749_895 * std::f64::consts::TAU;
            let r = 20.0 + f64::from(i % 100) * 2.5;
            (r * libm::cos(a), r * libm::sin(a))
        })
        .collect();
    let mut g = c.benchmark_group("walk");
    g.throughput(Throughput::Elements(points.len() as u64));
    g.bench_function("info_per_point", |b| {
        b.iter(|| {
            for &(x, z) in &points {
                black_box(walker.info(x, z));
            }
        })
    });
    g.bench_function("info_per_point_nine_heights", |b| {
        b.iter(|| {
            for &(x, z) in &points {
                black_box(walker.info_point_by_point(x, z));
            }
        })
    });
    g.bench_function("infos_1000", |b| {
        b.iter(|| black_box(walker.infos(&points)))
    });
    // Batches whose points lie together: the 4,096 movement-tile centres of a
    // 64 m x 64 m block (row-major), and 1,000 entities on random tile centres of a
    // 100 m x 100 m town; each also one `info` call per point, for comparison.
    let block: Vec<(f64, f64)> = (0..64 * 64)
        .map(|k| (f64::from(k % 64) - 31.5, f64::from(k / 64) - 31.5))
        .collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2545_f491_4f6c_dd1d);
    let mut tile = move || f64::from(rng.random_range(0..100)) - 49.5;
    let town: Vec<(f64, f64)> = (0..1000).map(|_| (tile() + 30.0, tile() - 60.0)).collect();
    for (name, batch) in [("block_64x64", &block), ("town_1000", &town)] {
        g.throughput(Throughput::Elements(batch.len() as u64));
        g.bench_function(format!("infos_{name}"), |b| {
            b.iter(|| black_box(walker.infos(black_box(batch))))
        });
        g.bench_function(format!("info_per_point_{name}"), |b| {
            b.iter(|| {
                for &(x, z) in batch.iter() {
                    black_box(walker.info(x, z));
                }
            })
        });
    }
    g.throughput(Throughput::Elements(points.len() as u64));
    g.bench_function("blocked_per_point", |b| {
        b.iter(|| {
            for &(x, z) in &points {
                black_box(walker.blocked(x, z));
            }
        })
    });
    g.throughput(Throughput::Elements(1));
    let segment = [(-40.0, -30.0), (45.0, 22.7)];
    g.bench_function("check_tiles_100m", |b| {
        b.iter(|| black_box(walker.check_tiles(black_box(&segment), 1.0)))
    });
    g.bench_function("check_sampled_100m", |b| {
        b.iter(|| black_box(walker.check_sampled(black_box(&segment))))
    });
    let mut warm = WalkGrids::new(&walker);
    warm.check_tiles(&segment);
    g.bench_function("check_tiles_100m_warm_grids", |b| {
        b.iter(|| black_box(warm.check_tiles(black_box(&segment))))
    });
    g.bench_function("grid_64x64", |b| {
        b.iter(|| black_box(walker.grid(black_box(-32), -32, 64, 64)))
    });
    let mut grids = WalkGrids::new(&walker);
    let (from, to) = ((-100.3, -20.2), (99.6, 10.4));
    find_path(from, to, 1.0, 200_000, &mut grids).unwrap();
    g.bench_function("find_200m_warm_grids", |b| {
        b.iter(|| find_path(from, to, 1.0, 200_000, &mut grids))
    });
    g.sample_size(10);
    g.bench_function("find_200m", |b| {
        b.iter(|| {
            find_path(
                (-100.3, -20.2),
                (99.6, 10.4),
                1.0,
                200_000,
                PointJudge {
                    walker: &walker,
                    tile: 1.0,
                },
            )
        })
    });
    g.sample_size(100);
    let voxel = terrain_core::build_terrain(
        &terrain_core::WorldSpec {
            generator: GeneratorKind::Voxel,
            seed: 3,
            overlap: Overlap::Layered,
            layout: None,
            voxel: Some(Default::default()),
        },
        std::iter::empty(),
    )
    .unwrap();
    let steps = WalkRule::BlockStep { sea_level: 24.0 };
    let walker = Walker::new(&voxel, &steps);
    let mut grids = WalkGrids::new(&walker);
    // The first clear 100 m segment of a scan (land, no two-block rise on the way), and
    // the first pair of land points 100 m apart that the straight check blocks but a
    // search connects.
    let candidates = (0..400).map(|k| {
        let (x, z) = (
            f64::from(k % 20) * 53.1 - 530.0,
            f64::from(k / 20) * 47.3 - 470.0,
        );
        [(x, z), (x + 96.0, z + 28.0)]
    });
    let mut segment = None;
    let mut search = None;
    for seg in candidates {
        let check = grids.check_tiles(&seg);
        if check.blocked.is_none() && segment.is_none() {
            segment = Some(seg);
        }
        if search.is_none()
            && matches!(check.blocked, Some((_, terrain_core::walk::Reason::Step)))
            && walker.blocked(seg[0].0, seg[0].1).is_none()
            && walker.blocked(seg[1].0, seg[1].1).is_none()
            && let Ok(f) = find_path(seg[0], seg[1], 1.0, 200_000, &mut grids)
        {
            search = Some((seg, f.length, f.expanded));
        }
    }
    let segment = segment.expect("a clear voxel segment");
    let (pair, length, expanded) = search.expect("a voxel search");
    eprintln!("voxel segment {segment:?}; search {pair:?}: {length:.1} m, {expanded} expanded");
    g.bench_function("voxel_check_tiles_100m_warm_grids", |b| {
        b.iter(|| black_box(grids.check_tiles(black_box(&segment))))
    });
    let (from, to) = (pair[0], pair[1]);
    g.bench_function("voxel_find_100m_warm_grids", |b| {
        b.iter(|| find_path(from, to, 1.0, 200_000, &mut grids))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
