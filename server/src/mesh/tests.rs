//! The commit listener's rebuilds: started before the change is acknowledged, not
//! waited for, and waited for by the requests that need them.

use std::{
    sync::{Arc, Mutex, mpsc},
    time::Duration,
};

use terrain_core::{GeneratorKind, mesh::build_tile};

use super::*;
use crate::{
    compute::Compute,
    config::{Limits, WorldConfig},
    metrics::Metrics,
    store::{ZoneStore, log::ZoneLog, memory::MemoryLog},
    test_support::square_zone,
    world::CommitListener,
    world::{Worlds, follow::Replication},
};

/// Occupies every thread of `compute` until the answer's sender is dropped or sent
/// to; answers once every thread is held.
async fn hold_pool(compute: &Compute) -> mpsc::Sender<()> {
    let (release, wait) = mpsc::channel::<()>();
    let wait = Arc::new(Mutex::new(wait));
    let (held_tx, held_rx) = mpsc::channel();
    for _ in 0..compute.threads() {
        let (wait, held_tx, compute) = (Arc::clone(&wait), held_tx.clone(), compute.clone());
        tokio::spawn(async move {
            compute
                .run(move || {
                    held_tx.send(()).unwrap();
                    // Every holder wakes when the sender goes.
                    let _ = locked(&wait).recv();
                })
                .await
        });
    }
    let threads = compute.threads();
    tokio::task::spawn_blocking(move || {
        for _ in 0..threads {
            held_rx
                .recv_timeout(Duration::from_secs(10))
                .expect("the pool's threads were held");
        }
    })
    .await
    .unwrap();
    release
}

/// A mesh cache with its compute pool and metrics, beside a store in a temporary
/// directory.
struct Cache {
    _dir: tempfile::TempDir,
    store: Arc<ZoneStore>,
    metrics: Arc<Metrics>,
    compute: Compute,
    meshes: Arc<MeshCache>,
}

impl Cache {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ZoneStore::open(dir.path()).unwrap());
        let metrics = Arc::new(Metrics::new().unwrap());
        let compute = Compute::new().unwrap();
        let meshes = Arc::new(MeshCache::new(
            64 << 20,
            compute.clone(),
            Arc::clone(&metrics),
        ));
        Cache {
            _dir: dir,
            store,
            metrics,
            compute,
            meshes,
        }
    }
}

/// World `main` (hyperscape, seed 0) on `store`, its changes rebuilding `meshes`,
/// following an in-memory log.
async fn world_of(
    store: &Arc<ZoneStore>,
    meshes: &Arc<MeshCache>,
    metrics: &Arc<Metrics>,
) -> (Arc<Worlds>, Replication) {
    let listeners: Vec<Arc<dyn CommitListener>> = vec![Arc::clone(meshes) as _];
    let configs = [WorldConfig::new("main", GeneratorKind::Hyperscape, 0)];
    let worlds = Arc::new(Worlds::open(&configs, store, &Limits::default(), &listeners).unwrap());
    let log = Arc::new(MemoryLog::new("memory"));
    let logs: Vec<Arc<dyn ZoneLog>> = vec![log as _];
    let replication = Replication::start(&worlds, logs, Arc::clone(metrics)).await;
    (worlds, replication)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_is_acknowledged_before_its_rebuild_and_the_next_request_waits_for_it() {
    let Cache {
        _dir,
        store,
        metrics,
        compute,
        meshes,
    } = Cache::new();
    let (worlds, _replication) = world_of(&store, &meshes, &metrics).await;
    let world = worlds.get("main").unwrap();

    let served = meshes.get(world, world.snapshot(), (0, 0)).await.unwrap();
    assert!(!served.cached);
    assert_eq!(served.mesh.version(), 0);

    // With every compute thread busy, no mesh can be built: the change is still
    // acknowledged, its rebuild registered.
    let release = hold_pool(&compute).await;
    let change = world.register("a", square_zone(0.0).spec());
    let outcome = tokio::time::timeout(Duration::from_secs(10), change)
        .await
        .expect("the change waited for its rebuild")
        .unwrap();
    assert_eq!(outcome.tiles, vec![(0, 0)]);
    assert_eq!(meshes.rebuilds_pending(), 1);

    // A request for the new version waits for the rebuild, not a build of its own.
    let state = world.snapshot();
    assert_eq!(state.tile_version((0, 0)), outcome.revision);
    let request = tokio::spawn({
        let (meshes, world) = (Arc::clone(&meshes), Arc::clone(world));
        async move { meshes.get(&world, world.snapshot(), (0, 0)).await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!request.is_finished(), "served before the pool could build");
    drop(release);
    let served = tokio::time::timeout(Duration::from_secs(30), request)
        .await
        .expect("the request was answered")
        .unwrap()
        .unwrap();
    assert!(served.cached, "the request built the tile itself");
    assert_eq!(served.mesh.version(), outcome.revision);
    let want = build_tile(state.terrain(), (0, 0), outcome.revision);
    assert_eq!(*served.mesh, CachedMesh::Tile(want));
    assert_eq!(meshes.rebuilds_pending(), 0);
    // And the rebuilt mesh is what the cache now serves.
    let again = meshes.get(world, world.snapshot(), (0, 0)).await.unwrap();
    assert!(again.cached);
    assert!(Arc::ptr_eq(&again.mesh, &served.mesh));
}

/// Changes to one cached tile while the pool is busy are each acknowledged at once;
/// when the pool frees, only the newest version is rebuilt (the rebuilds later changes
/// replaced are skipped, not built and thrown away), and a request gets that mesh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rebuilds_a_later_change_replaced_are_skipped() {
    let cache = Cache::new();
    let (meshes, metrics) = (&cache.meshes, &cache.metrics);
    let (worlds, _replication) = world_of(&cache.store, meshes, metrics).await;
    let world = worlds.get("main").unwrap();
    meshes.get(world, world.snapshot(), (0, 0)).await.unwrap();

    let release = hold_pool(&cache.compute).await;
    let mut revisions = Vec::new();
    for i in 0..5 {
        let change = world.register("a", square_zone(f64::from(i) * 0.5).spec());
        let outcome = tokio::time::timeout(Duration::from_secs(10), change)
            .await
            .expect("the change waited for its rebuild")
            .unwrap();
        assert_eq!(outcome.tiles, vec![(0, 0)]);
        revisions.push(outcome.revision);
    }
    assert_eq!(
        meshes.rebuilds_pending(),
        1,
        "one rebuild per tile is current"
    );
    drop(release);
    let served = tokio::time::timeout(
        Duration::from_secs(30),
        meshes.get(world, world.snapshot(), (0, 0)),
    )
    .await
    .expect("the request was answered")
    .unwrap();
    let newest = *revisions.last().unwrap();
    assert_eq!(served.mesh.version(), newest);
    let want = build_tile(world.snapshot().terrain(), (0, 0), newest);
    assert_eq!(*served.mesh, CachedMesh::Tile(want));
    // Every rebuild has ended: the four replaced ones without building.
    for _ in 0..300 {
        if meshes.rebuilds_pending() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(meshes.rebuilds_pending(), 0);
    let text = metrics.render();
    assert!(
        text.contains(r#"terrain_tiles_regenerated_total{world="main"} 1"#),
        "{text}"
    );
}

/// A request waiting for a grid another request announced builds it itself when that
/// request goes away first: the grids it answers are those of a fresh build.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grid_whose_builder_went_away_is_built_by_its_waiter() {
    let Cache {
        _dir,
        store,
        compute,
        meshes,
        ..
    } = Cache::new();
    let mut config = WorldConfig::new("main", GeneratorKind::Hyperscape, 0);
    // 16 x 16 tiles: levels 0 to 4, 16 grids of 4 x 4 tiles at the kept level.
    config.tileset_extent = 1600.0;
    let worlds = Arc::new(Worlds::open(&[config], &store, &Limits::default(), &[]).unwrap());
    let world = Arc::clone(worlds.get("main").unwrap());
    let layout = *world.tileset();
    assert_eq!(layout.levels, 4);
    let root = terrain_core::tiles3d::ContentKey {
        level: 0,
        ix: 0,
        iz: 0,
    };
    let grids = |meshes: &Arc<MeshCache>| {
        let (meshes, world) = (Arc::clone(meshes), Arc::clone(&world));
        async move {
            let state = world.snapshot();
            meshes.content_grids(&world, &state, layout, &[root]).await
        }
    };

    // With the pool held, the first request announces the 16 grids and waits for the
    // pool; the second joins them all.
    let release = hold_pool(&compute).await;
    let builder = tokio::spawn(grids(&meshes));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while meshes.tilesets.announced() < 16 {
        assert!(
            std::time::Instant::now() < deadline,
            "the grids were announced"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let waiter = tokio::spawn(grids(&meshes));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished(), "answered before any grid was made");
    // The builder goes away before making any: its announcements go with it.
    builder.abort();
    assert!(builder.await.unwrap_err().is_cancelled());
    assert_eq!(meshes.tilesets.announced(), 0);
    drop(release);
    let answer = tokio::time::timeout(Duration::from_secs(60), waiter)
        .await
        .expect("the waiter was answered")
        .unwrap()
        .unwrap();
    let state = world.snapshot();
    let fresh = terrain_core::tiles3d::grid_from_terrain(state.terrain(), &layout, root);
    assert_eq!(*answer[0], fresh);
}

/// A coarse content over a zone far above the ground with a hard edge, which no grid
/// one level above the finest comes near, is the terrain core's content with its
/// patches, byte for byte: its samples as deep as `sample_depth` takes them, and the
/// samples over the pad meshed from finer grids (`tiles3d_zones` in terrain-core
/// measures such contents against the full-detail surface).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_content_over_a_steep_zone_is_patched_as_the_core_patches_it() {
    use terrain_core::tiles3d::{
        ContentGrid, ContentKey, content_mesh, content_patches, grid_from_terrain, sample_depth,
    };
    let Cache {
        _dir,
        store,
        metrics,
        meshes,
        ..
    } = Cache::new();
    let listeners: Vec<Arc<dyn CommitListener>> = vec![Arc::clone(&meshes) as _];
    let mut config = WorldConfig::new("main", GeneratorKind::Hyperscape, 0);
    // 16 x 16 tiles: the root takes its samples one level above the finest.
    config.tileset_extent = 1600.0;
    let worlds = Arc::new(Worlds::open(&[config], &store, &Limits::default(), &listeners).unwrap());
    let logs: Vec<Arc<dyn ZoneLog>> = vec![Arc::new(MemoryLog::new("memory")) as _];
    let _replication = Replication::start(&worlds, logs, Arc::clone(&metrics)).await;
    let world = worlds.get("main").unwrap();
    let layout = *world.tileset();
    assert_eq!(layout.levels, 4);
    // A 30 m pad 70 m high on the island's western slopes, with a hard edge.
    let mut pad = square_zone(-420.0);
    pad.center_z = 130.0;
    pad.shape = terrain_core::zones::Shape::Rect {
        width: 30.0,
        depth: 30.0,
    };
    pad.height = 70.0;
    pad.blend_radius = 0.0;
    tokio::time::timeout(Duration::from_secs(60), world.register("a", pad.spec()))
        .await
        .expect("the change was acknowledged")
        .unwrap();
    let state = world.snapshot();
    let root = ContentKey {
        level: 0,
        ix: 0,
        iz: 0,
    };
    let (version, served) = meshes
        .content(world, Arc::clone(&state), layout, root)
        .await
        .unwrap();

    // The core's content from every grid of the square, built bottom-up.
    let t = state.terrain();
    let mut levels: Vec<Vec<ContentGrid>> = Vec::new();
    for level in (0..=layout.levels).rev() {
        let n = 1u64 << level;
        let grids = (0..n * n)
            .map(|k| {
                let key = ContentKey {
                    level,
                    ix: k % n,
                    iz: k / n,
                };
                match levels.last() {
                    None => grid_from_terrain(t, &layout, key),
                    Some(below) => {
                        let c = key
                            .children()
                            .map(|c| &below[(c.iz * 2 * n + c.ix) as usize]);
                        terrain_core::tiles3d::parent_grid(key, c)
                    }
                }
            })
            .collect();
        levels.push(grids);
    }
    let get = |k: ContentKey| {
        &levels[(layout.levels - k.level) as usize][(k.iz * (1u64 << k.level) + k.ix) as usize]
    };
    let below = |d: u32| -> Vec<&ContentGrid> {
        terrain_core::tiles3d::descendant_keys(root, d)
            .into_iter()
            .map(get)
            .collect()
    };
    let depth = sample_depth(&layout, root, |d| {
        below(d).iter().map(|g| g.error).fold(0.0, f64::max)
    });
    let samples = below(depth);
    let patches = content_patches(&layout, root, &samples, &mut |k: ContentKey| {
        k.children().map(get).to_vec()
    });
    assert!(!patches.is_empty(), "the pad's samples are patched");
    let (mesh, bound) = content_mesh(t, &layout, root, &samples, depth, &patches, version);
    assert!(bound <= layout.geometric_error(0), "{bound}");
    let want = terrain_core::mesh::to_glb(&mesh).unwrap();
    assert_eq!(version, tiles3d::content_version(&state, &layout, root));
    assert!(served[..] == want[..], "the served root is the core's");
}
