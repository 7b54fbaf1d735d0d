//! Resuming an event subscription from a revision, with 100,000 entries retained:
//! the last 10 events and the whole history, by [`replay`] (which reads only the
//! entries after the resume point, and each replaced version through its entry's
//! link back) and by the previous way (reading and folding the whole retained log,
//! reproduced here as it was) side by side in one run; and the last 10 over entries
//! without the link (as logged before it existed), whose replaced versions are found
//! by reading the log back from the resume point.
//!
//! `cargo bench -p terrain-server --bench resume`

use std::{collections::HashMap, hint::black_box};

use criterion::{Criterion, criterion_group, criterion_main};
use terrain_core::{FlatZone, TileGrid, tiles3d::TilesetLayout, zones::Shape};
use terrain_server::{
    events::{Area, replay::replay},
    store::{LogEntry, Mutation, MutationKind, ZoneStore},
    world::registry::changed_tiles,
};

const RETAINED: u64 = 100_000;

fn zone(id: String, x: f64) -> FlatZone {
    FlatZone {
        id,
        center_x: x,
        center_z: 0.0,
        shape: Shape::Rect {
            width: 10.0,
            depth: 10.0,
        },
        height: 1.0,
        blend_radius: 2.0,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    }
}

/// The previous resume: every retained entry read and folded, events kept after
/// `from` (tiles of the zone and the version it replaced).
fn replay_whole_log(store: &ZoneStore, layout: &TileGrid, from: u64, to: u64) -> usize {
    let history = store.history("main", to).unwrap();
    let mut latest: HashMap<&str, &FlatZone> = HashMap::new();
    let mut events = Vec::new();
    for entry in &history {
        let zone = &entry.mutation.zone;
        if entry.revision > from {
            let previous = match entry.mutation.kind {
                MutationKind::Replaced => latest.get(zone.id.as_str()).copied(),
                _ => None,
            };
            events.push(changed_tiles(layout, previous.into_iter().chain([zone])));
        }
        match entry.mutation.kind {
            MutationKind::Removed => latest.remove(zone.id.as_str()),
            _ => latest.insert(zone.id.as_str(), zone),
        };
    }
    events.len()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let store = ZoneStore::open(dir.path()).unwrap();
    let layout = TileGrid {
        size: 64.0,
        resolution: 64,
        centred: true,
    };
    let tileset = TilesetLayout::covering(layout, 10_000.0, 0.25);
    // 1,000 zones, each registered and then replaced 99 times, spread over the map.
    let entries: Vec<LogEntry> = (1..=RETAINED)
        .map(|revision| {
            let n = revision - 1;
            let kind = if n < 1000 {
                MutationKind::Registered
            } else {
                MutationKind::Replaced
            };
            let id = format!("zone-{}", n % 1000);
            LogEntry {
                revision,
                mutation: Mutation {
                    kind,
                    zone: zone(id, (n % 1000) as f64 * 50.0 + (n / 1000) as f64),
                },
                max_height_delta: Some(0.5),
                // The previous version of this zone, 1,000 revisions back (commits
                // log the link; the fold below ignores it).
                replaces: (n >= 1000).then(|| revision - 1000),
            }
        })
        .collect();
    store.append_history("main", &entries).unwrap();
    let unlinked_dir = tempfile::tempdir().unwrap();
    let unlinked = ZoneStore::open(unlinked_dir.path()).unwrap();
    let old: Vec<LogEntry> = entries
        .iter()
        .cloned()
        .map(|e| LogEntry {
            replaces: None,
            ..e
        })
        .collect();
    unlinked.append_history("main", &old).unwrap();
    let mut group = c.benchmark_group("resume");
    group.sample_size(10);
    group.bench_function("last_10/unlinked", |b| {
        b.iter(|| {
            let from = RETAINED - 10;
            black_box(replay(&unlinked, &tileset, "main", from, RETAINED, &Area::All).unwrap())
        })
    });
    for (name, from) in [("last_10", RETAINED - 10), ("whole", 0)] {
        group.bench_function(format!("{name}/by_revision"), |b| {
            b.iter(|| {
                black_box(replay(&store, &tileset, "main", from, RETAINED, &Area::All).unwrap())
            })
        });
        group.bench_function(format!("{name}/whole_log_fold"), |b| {
            b.iter(|| black_box(replay_whole_log(&store, &layout, from, RETAINED)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
