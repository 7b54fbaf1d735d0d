//! Movement through the replica at one snapshot of the hyperscape island (seed 0, no
//! zones, the `slope` rule of layered worlds):
//!
//! - `tick_1000_entities`: one 100 ms game tick of 1,000 entities walking at 4 m/s in
//!   fixed directions over the island's 400 m centre (turning back where blocked), each
//!   move exactly checked (every 1 m tile crossed) by a [`LocalMover`] kept across ticks
//!   (its grids warm);
//! - `tick_1000_entities_point_by_point`: the same moves by [`LocalWalk::check_path`]
//!   (every tile judged from its nine heights, no grids);
//! - `terrain_info_1000`: terrain info at 1,000 random points in one call (the
//!   neighbourhoods in batches, `Walker::infos`);
//! - `terrain_info_1000_point_by_point`: the same points by
//!   `Walker::info_point_by_point` (nine heights one by one), for comparison.
//!
//! Run: `cargo bench -p terrain-client --bench walk -- --warm-up-time 1 --measurement-time 5`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use terrain_client::{LocalMover, LocalWalk, PathMode, Snapshot};
use terrain_core::{
    GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet,
    walk::{BiomeLimits, WalkRule, Walker},
};

/// An entity: its position and its velocity per tick.
type Entity = ((f64, f64), (f64, f64));

/// Entities: position and velocity per tick (4 m/s over 100 ms).
fn entities(n: usize) -> Vec<Entity> {
    let mut s: u64 = 0x5eed_cafe;
    let mut next = move || {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let p = (-200.0 + next() * 400.0, -200.0 + next() * 400.0);
            let a = next() * std::f64::consts::TAU;
            (p, (0.4 * libm::cos(a), 0.4 * libm::sin(a)))
        })
        .collect()
}

/// Moves every entity one tick by `check` of its move: on when clear, turned back when
/// blocked; answers how many were blocked.
fn tick(world: &mut [Entity], check: impl FnOnce(&[[(f64, f64); 2]]) -> Vec<bool>) -> usize {
    let moves: Vec<[(f64, f64); 2]> = world
        .iter()
        .map(|&(p, v)| [p, (p.0 + v.0, p.1 + v.1)])
        .collect();
    let blocked = check(&moves);
    let mut n = 0;
    for ((e, m), b) in world.iter_mut().zip(&moves).zip(blocked) {
        if b {
            e.1 = (-e.1.0, -e.1.1);
            n += 1;
        } else {
            e.0 = m[1];
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).expect("seed 0");
    let zones = ZoneSet::new(Overlap::Layered, generator.tile_size());
    let snapshot = Arc::new(Snapshot::from_terrain(Terrain::new(generator, zones), 1));
    let rule = WalkRule::Slope {
        limits: BiomeLimits::hyperscape(),
        water_level: 9.0,
    };
    let mut group = c.benchmark_group("walk");
    group.throughput(Throughput::Elements(1000));

    let mut mover = LocalMover::new(Arc::clone(&snapshot), rule.clone());
    let mut world = entities(1000);
    let by_mover = |mover: &mut LocalMover, moves: &[[(f64, f64); 2]]| {
        mover
            .check_moves(moves.iter().map(|m| &m[..]))
            .into_iter()
            .map(|c| c.blocked.is_some())
            .collect()
    };
    // Warm: the first ticks build the blocks the entities stand on.
    for _ in 0..20 {
        tick(&mut world, |m| by_mover(&mut mover, m));
    }
    group.bench_function("tick_1000_entities", |b| {
        b.iter(|| black_box(tick(&mut world, |m| by_mover(&mut mover, m))))
    });

    let walk = LocalWalk::new(&snapshot, &rule);
    let mut world = entities(1000);
    group.bench_function("tick_1000_entities_point_by_point", |b| {
        b.iter(|| {
            black_box(tick(&mut world, |moves| {
                moves
                    .iter()
                    .map(|m| {
                        let check = walk.check_path(m, PathMode::Exact).expect("valid");
                        check.blocked.is_some()
                    })
                    .collect()
            }))
        })
    });

    let points: Vec<(f64, f64)> = entities(1000).into_iter().map(|(p, _)| p).collect();
    group.bench_function("terrain_info_1000", |b| {
        b.iter(|| black_box(walk.terrain_info(black_box(&points)).expect("valid")))
    });
    let walker = Walker::new(snapshot.terrain(), &rule);
    group.bench_function("terrain_info_1000_point_by_point", |b| {
        b.iter(|| {
            for &(x, z) in &points {
                black_box(walker.info_point_by_point(x, z));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
