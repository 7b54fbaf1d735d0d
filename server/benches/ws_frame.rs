//! The per-subscriber cost of an event's WebSocket frame: the event's JSON is encoded
//! once and held by the domain as plain bytes; each subscriber's frame borrows that
//! buffer after a UTF-8 check (`frames::message`). Beside it, in the same run, the
//! frame made by copying the text per subscriber, which this design avoids. The event
//! lists 256 tiles, the most a frame lists.
//!
//! `cargo bench -p terrain-server --bench ws_frame`

use std::{hint::black_box, sync::Arc};

use axum::extract::ws::Utf8Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use terrain_core::{TileGrid, tiles3d::TilesetLayout, zones::Bounds};
use terrain_server::{
    api::http::events::frames,
    events::{Event, Message, Published},
    metrics::Metrics,
    store::MutationKind,
};

fn event() -> Event {
    let tiles: Vec<(i64, i64)> = (0..256).map(|i| (i % 16 - 8, i / 16 - 8)).collect();
    let rects = vec![terrain_core::TileRect {
        min_tx: -8,
        min_tz: -8,
        max_tx: 7,
        max_tz: 7,
    }];
    // The island's tileset (10 km, 128 x 128 tiles of 64 vertices).
    let island = TilesetLayout::covering(
        TileGrid {
            size: 100.0,
            resolution: 64,
            centred: true,
        },
        10_000.0,
        0.25,
    );
    Event {
        world: "main".into(),
        revision: 123_456,
        zone: "market-square".into(),
        kind: MutationKind::Replaced,
        tile_rects: rects.clone(),
        tile_count: tiles.len() as u64,
        tiles,
        bounds: Bounds {
            min_x: -512.25,
            min_z: -512.5,
            max_x: 511.75,
            max_z: 511.5,
        },
        max_height_delta: Some(3.25),
        walkable: None,
        tileset_contents: island.changed_contents(&rects),
    }
}

fn bench(c: &mut Criterion) {
    let metrics = Arc::new(Metrics::new().expect("metrics"));
    let message = Message::Event(Arc::new(Published::new(event(), metrics)));
    let first = frames::message(&message, "0000000000000001").expect("a frame");
    let text = first.as_str().to_string();
    println!("frame: {} bytes", text.len());
    let mut group = c.benchmark_group("ws_frame");
    group.bench_function("shared_buffer_utf8_checked", |b| {
        b.iter(|| {
            black_box(frames::message(black_box(&message), "0000000000000001").expect("a frame"))
        })
    });
    group.bench_function("copied_per_subscriber", |b| {
        b.iter(|| black_box(Utf8Bytes::from(black_box(text.as_str()))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
