//! Map tiles per second, cold (rendered and encoded: what a cache miss costs) and warm
//! (served from the map tile cache), at zoom 0 (16 m a pixel), zoom 2 (4 m a pixel)
//! and zoom 5 (0.5 m a pixel), over the island of hyperscape seed 0 and a voxel world (seed 1, default
//! parameters: each pixel is coloured by its column's top block). Cold renders run on
//! the server's compute pool, band by band, as a request's would; one iteration is one
//! map tile. The walk layer's cold renders (`walk-cold`) judge every pixel by the
//! world's walkability rule.
//!
//! `cargo bench -p terrain-server --bench map`

use std::{hint::black_box, sync::Arc};

use criterion::{Criterion, criterion_group, criterion_main};
use terrain_core::GeneratorKind;
use terrain_server::{
    Limits, WorldConfig,
    compute::Compute,
    map::{Layer, MAP_CACHE_BYTES, MapCache, MapTile},
    store::ZoneStore,
    world::World,
};

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(ZoneStore::open(dir.path()).unwrap());
    let compute = Compute::new().unwrap();
    let mut group = c.benchmark_group("map_tile");
    group.throughput(criterion::Throughput::Elements(1));
    for (kind, seed) in [(GeneratorKind::Hyperscape, 0), (GeneratorKind::Voxel, 1)] {
        let config = WorldConfig::new(kind.as_str(), kind, seed);
        let world = World::open(&config, Arc::clone(&store), &Limits::default(), &[]).unwrap();
        for zoom in [0u8, 2, 5] {
            // A tile over land and sea: (-1, -1) at zoom 2, (0, 0) at zooms 0 and 5.
            let tile = match zoom {
                2 => MapTile { zoom, x: -1, y: -1 },
                _ => MapTile { zoom, x: 0, y: 0 },
            };
            let name = kind.as_str();
            group.bench_function(format!("{name}/cold/zoom{zoom}"), |b| {
                b.iter(|| {
                    // A fresh cache each time: every call renders.
                    let cache = MapCache::new(MAP_CACHE_BYTES, compute.clone());
                    let served = runtime
                        .block_on(cache.get(&world, tile, Layer::Terrain))
                        .unwrap();
                    assert!(!served.cached);
                    black_box(served.png.png.len())
                })
            });
            let cache = MapCache::new(MAP_CACHE_BYTES, compute.clone());
            runtime
                .block_on(cache.get(&world, tile, Layer::Terrain))
                .unwrap();
            group.bench_function(format!("{name}/warm/zoom{zoom}"), |b| {
                b.iter(|| {
                    let served = runtime
                        .block_on(cache.get(&world, tile, Layer::Terrain))
                        .unwrap();
                    assert!(served.cached);
                    black_box(served.png.png.len())
                })
            });
            group.bench_function(format!("{name}/walk-cold/zoom{zoom}"), |b| {
                b.iter(|| {
                    let cache = MapCache::new(MAP_CACHE_BYTES, compute.clone());
                    let served = runtime
                        .block_on(cache.get(&world, tile, Layer::Walk))
                        .unwrap();
                    assert!(!served.cached);
                    black_box(served.png.png.len())
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
