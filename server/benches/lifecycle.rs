//! The lifecycle's bookkeeping cost: 1,000 viewers each moving every 100 ms. One
//! iteration is one frame: every viewer reports its new position once (rings, ring
//! counts, queue, transitions), then the queued tiles are taken and marked generated
//! (the bookkeeping of generation, without building meshes). The budget is the frame:
//! 100 ms. Measured with prediction off (no velocity reported) and on (each viewer
//! reports its 30 m/s velocity, and the default 2 s look-ahead holds its path).
//!
//! `lifecycle/leave_10000_viewers`: 10,000 viewers 1 km apart (25 tiles each, none
//! shared, all generated) leave one by one, which queues 250,000 tiles for the cull.
//!
//! `cargo bench -p terrain-server --bench lifecycle`

use std::{
    hint::black_box,
    time::{Duration, Instant},
};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use terrain_core::TileGrid;
use terrain_server::{
    config::LifecycleConfig,
    lifecycle::{
        rings::Viewer,
        tracker::{Owner, Tracker},
    },
};

const VIEWERS: usize = 1000;

/// Hyperscape's tile grid.
const LAYOUT: TileGrid = TileGrid {
    size: 100.0,
    resolution: 64,
    centred: true,
};

/// Viewer `i`'s position at frame `f`: spread over a 32 x 32 grid 400 m apart, each
/// walking its own direction at 30 m/s (3 m a frame), so tile borders are crossed.
fn position(i: usize, f: u64) -> (f64, f64) {
    let (gx, gz) = ((i % 32) as f64, (i / 32) as f64);
    let angle = i as f64 * 2.399963;
    let d = 3.0 * f as f64;
    (
        gx * 400.0 + d * libm::cos(angle),
        gz * 400.0 + d * libm::sin(angle),
    )
}

/// Viewer `i`'s velocity (m/s), its walk as [`position`] makes it.
fn velocity(i: usize) -> (f64, f64) {
    let angle = i as f64 * 2.399963;
    (30.0 * libm::cos(angle), 30.0 * libm::sin(angle))
}

fn frame(t: &mut Tracker, f: u64, now: Instant, predict: bool) -> usize {
    let mut transitions = 0;
    for i in 0..VIEWERS {
        let (x, z) = position(i, f);
        let (velocity_x, velocity_z) = if predict { velocity(i) } else { (0.0, 0.0) };
        let viewer = Viewer {
            id: format!("viewer-{i}"),
            x,
            z,
            view_width: 200.0,
            view_depth: 150.0,
            velocity_x,
            velocity_z,
        };
        let (_, step) = t
            .upsert(viewer, Owner::Http, now, |_| Ok(()))
            .expect("valid viewer");
        transitions += step.map_or(0, |s| s.transitions.len());
    }
    while let Some(tile) = t.next_job() {
        transitions += t.generated(tile, now).map_or(0, |s| s.transitions.len());
    }
    let (step, _) = t.cull_due(now);
    transitions + step.map_or(0, |s| s.transitions.len())
}

/// A tracker holding `n` generated viewers 1 km apart, and their ids.
fn spread_viewers(n: usize, now: Instant) -> (Tracker, Vec<String>) {
    let config = LifecycleConfig {
        cull_grace: Duration::from_secs(10),
        max_viewers_per_world: 2 * n,
        ..LifecycleConfig::default()
    };
    let mut t = Tracker::new(LAYOUT, config, 1e9);
    let ids: Vec<String> = (0..n).map(|i| format!("viewer-{i}")).collect();
    for (i, id) in ids.iter().enumerate() {
        let viewer = Viewer {
            id: id.clone(),
            x: (i % 100) as f64 * 1000.0,
            z: (i / 100) as f64 * 1000.0,
            view_width: 100.0,
            view_depth: 100.0,
            ..Viewer::default()
        };
        t.upsert(viewer, Owner::Http, now, |_| Ok(()))
            .expect("valid viewer");
    }
    while let Some(tile) = t.next_job() {
        t.generated(tile, now);
    }
    (t, ids)
}

fn leave(c: &mut Criterion) {
    let now = Instant::now();
    let mut group = c.benchmark_group("lifecycle");
    group.sample_size(10);
    group.bench_function("leave_10000_viewers", |b| {
        b.iter_batched(
            || spread_viewers(10_000, now),
            |(mut t, ids)| {
                for id in &ids {
                    black_box(t.remove(id, Owner::Http, now).expect("viewer"));
                }
                t
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let now = Instant::now();
    for (name, predict) in [
        ("frame_1000_viewers", false),
        ("frame_1000_viewers_predicting", true),
    ] {
        let config = LifecycleConfig {
            lookahead: Duration::from_secs(2),
            ..LifecycleConfig::default()
        };
        let mut t = Tracker::new(LAYOUT, config, 1e9);
        frame(&mut t, 0, now, predict);
        let mut f = 1;
        c.bench_function(&format!("lifecycle/{name}"), |b| {
            b.iter(|| {
                f += 1;
                black_box(frame(&mut t, f, now, predict))
            })
        });
    }
}

criterion_group!(benches, bench, leave);
criterion_main!(benches);
