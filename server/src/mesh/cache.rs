//! [`MeshCache`]: the bounded cache of built meshes shared by every world, its
//! pinned live tiles, its simplified meshes and the rebuilds under way.

use std::{
    collections::HashMap,
    fmt,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use super::encoded::Cached;
use futures::{
    FutureExt,
    future::{BoxFuture, Shared},
};
use moka::{future::Cache, ops::compute::Op};
use terrain_core::mesh::{build_tile, simplify_tile};

use super::{CachedMesh, ChunkMesh, MeshError, ServedMesh, tiles3d};
use crate::{
    compute::Compute,
    cost::Scope,
    metrics::Metrics,
    sync::locked,
    world::{Outcome, World, WorldState},
};

/// A tile mesh's build, for its refusal when it could not finish in time alone.
const BUILD_SCOPE: Scope = Scope {
    field: "x",
    narrow: "a tile mesh cannot be asked for in parts: raise request_timeout",
    spread: false,
    kept: true,
};

/// A tile of a world: `(world id, tile x, tile z)`.
pub(super) type MeshKey = (String, i64, i64);

/// A simplified tile of a world: `(world id, tile x, tile z, max error's f64 bits)`.
pub(super) type LodKey = (String, i64, i64, u64);

/// A rebuild under way after a commit: the tile's new version and the rebuilt
/// entry (once it is in the cache), for every request that needs it meanwhile.
#[derive(Clone)]
pub(super) struct Rebuild {
    pub(super) version: u64,
    pub(super) done: Built,
}

/// The outcome of a build, shared by everyone waiting for it.
pub(super) type Built = Shared<BoxFuture<'static, Result<Cached, MeshError>>>;

/// Who asked for a build: a request (admitted by cost, or refused) or the server
/// building ahead of requests (queued, never refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Work {
    Request,
    Ahead,
}

/// The rebuilds under way, by tile.
pub(super) type Rebuilds = Arc<Mutex<HashMap<MeshKey, Rebuild>>>;

/// The rebuild in `rebuilds` of `key` at `version` or newer, if any.
pub(super) fn rebuild_from(rebuilds: &Rebuilds, key: &MeshKey, version: u64) -> Option<Rebuild> {
    locked(rebuilds)
        .get(key)
        .filter(|r| r.version >= version)
        .cloned()
}

/// The mesh cache of one server. A clone shares the cache, pins, rebuilds and pool
/// (a commit's rebuild holds one to finish after its listener returned).
#[derive(Clone)]
pub struct MeshCache {
    pub(super) cache: Cache<MeshKey, Cached>,
    /// Simplified meshes, by tile and error.
    pub(super) lod: Cache<LodKey, Cached>,
    /// The worlds' 3D Tiles grids and contents ([`tiles3d`]).
    pub(super) tilesets: tiles3d::Tilesets,
    /// The meshes of live tiles, kept until they are culled (shared with `cache`
    /// while it holds them too).
    pub(super) pinned: Arc<Mutex<HashMap<MeshKey, Cached>>>,
    /// The rebuilds started by commits and not yet in the cache.
    pub(super) rebuilding: Rebuilds,
    /// The builds started by requests (or prefetches) and not yet in the cache.
    pub(super) building: Rebuilds,
    pub(super) compute: Compute,
    pub(super) metrics: Arc<Metrics>,
}

impl fmt::Debug for MeshCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not moka's Debug, which lists every entry.
        f.debug_struct("MeshCache")
            .field("tiles", &self.cache.entry_count())
            .field("bytes", &self.cache.weighted_size())
            .field("pinned", &self.pinned().len())
            .finish_non_exhaustive()
    }
}

impl MeshCache {
    /// A cache of at most `budget` bytes of mesh data, building on `compute` and
    /// counting in `metrics`.
    pub fn new(budget: usize, compute: Compute, metrics: Arc<Metrics>) -> Self {
        let cache = Cache::builder()
            .name("tile-meshes")
            .max_capacity(budget as u64)
            .weigher(|_key: &MeshKey, entry: &Cached| entry.weight())
            .build();
        let lod = Cache::builder()
            .name("tile-meshes-simplified")
            .max_capacity(budget as u64 / 4)
            // Weighed at twice their arrays: room for the encodings made of them.
            .weigher(|_key: &LodKey, entry: &Cached| entry.mesh.bytes().saturating_mul(2))
            .build();
        MeshCache {
            cache,
            lod,
            tilesets: tiles3d::Tilesets::new(budget),
            pinned: Arc::default(),
            rebuilding: Arc::default(),
            building: Arc::default(),
            compute,
            metrics,
        }
    }

    pub(super) fn pinned(&self) -> std::sync::MutexGuard<'_, HashMap<MeshKey, Cached>> {
        locked(&self.pinned)
    }

    /// The rebuild under way of `key` at `version` or newer, if any.
    pub(super) fn rebuild(&self, key: &MeshKey, version: u64) -> Option<Rebuild> {
        rebuild_from(&self.rebuilding, key, version)
    }

    /// The number of rebuilds started by commits and not finished.
    pub fn rebuilds_pending(&self) -> usize {
        locked(&self.rebuilding).len()
    }

    /// The mesh of `tile` as of `state` (a read of `world`): cached, or built on the
    /// compute pool and cached. The caller has validated `tile`.
    pub async fn get(
        &self,
        world: &World,
        state: Arc<WorldState>,
        tile: (i64, i64),
    ) -> Result<ServedMesh, MeshError> {
        let served = self.fetch(world, state, tile, Work::Request).await?;
        self.metrics.mesh_lookup(world.id(), served.cached);
        Ok(served)
    }

    /// `served` (a full-detail mesh of `world`) simplified to at most `max_error`
    /// metres of vertical error at every vertex ([`simplify_tile`]): cached per tile,
    /// version and error, or simplified now on the compute pool. `max_error <= 0` and
    /// voxel chunks (exact greedy meshes) answer `served` itself.
    pub async fn simplified(
        &self,
        world: &str,
        served: ServedMesh,
        max_error: f64,
    ) -> Result<ServedMesh, MeshError> {
        if max_error.is_nan() || max_error <= 0.0 || !matches!(&*served.mesh, CachedMesh::Tile(_)) {
            return Ok(served);
        }
        let (tile, version) = (served.mesh.key(), served.mesh.version());
        let key = (world.to_string(), tile.0, tile.1, max_error.to_bits());
        if let Some(entry) = self.lod.get(&key).await
            && entry.mesh.version() == version
        {
            return Ok(ServedMesh {
                mesh: entry.mesh,
                revision: served.revision,
                cached: served.cached,
                encoded: entry.encoded,
            });
        }
        let full = Arc::clone(&served.mesh);
        let simple = self
            .compute
            .run(move || match &*full {
                CachedMesh::Tile(mesh) => CachedMesh::Tile(simplify_tile(mesh, max_error)),
                CachedMesh::Chunk(chunk) => CachedMesh::Chunk(chunk.clone()),
            })
            .await
            .map_err(|e| MeshError::Build(e.to_string()))?;
        let entry = Cached::new(simple);
        let kept = entry.clone();
        let stored = self
            .lod
            .entry(key)
            .and_compute_with(|old| async move {
                match old {
                    Some(e) if e.value().mesh.version() >= version => Op::Nop,
                    _ => Op::Put(kept),
                }
            })
            .await;
        let entry = stored
            .into_entry()
            .map(|e| e.into_value())
            .filter(|e| e.mesh.version() == version)
            .unwrap_or(entry);
        Ok(ServedMesh {
            mesh: entry.mesh,
            revision: served.revision,
            cached: false,
            encoded: entry.encoded,
        })
    }

    /// Builds `tile` into the cache ahead of requests (the lifecycle's generation);
    /// returns whether it had to be built. Not counted as a request.
    pub async fn prefetch(
        &self,
        world: &World,
        state: Arc<WorldState>,
        tile: (i64, i64),
    ) -> Result<bool, MeshError> {
        Ok(!self.fetch(world, state, tile, Work::Ahead).await?.cached)
    }

    /// Builds `tile` ahead of requests because it turned live, and pins its mesh
    /// until [`MeshCache::release`]; returns whether it had to be built.
    pub async fn prefetch_live(
        &self,
        world: &World,
        state: Arc<WorldState>,
        tile: (i64, i64),
    ) -> Result<bool, MeshError> {
        let served = self.fetch(world, state, tile, Work::Ahead).await?;
        let key = (world.id().to_string(), tile.0, tile.1);
        let mut pinned = self.pinned();
        // A commit may have pinned a newer mesh meanwhile: keep the newest.
        let newer = pinned
            .get(&key)
            .is_some_and(|m| m.mesh.version() > served.mesh.version());
        if !newer {
            let entry = Cached {
                mesh: served.mesh,
                encoded: served.encoded,
            };
            pinned.insert(key, entry);
        }
        Ok(!served.cached)
    }

    /// The served surface of `tile` of `world` from its cached (or pinned) mesh, when
    /// that mesh is a heightfield tile of exactly `version`; builds nothing.
    pub async fn surface_tile(
        &self,
        world: &str,
        tile: (i64, i64),
        version: u64,
        layout: terrain_core::TileGrid,
    ) -> Option<terrain_core::mesh::SurfaceTile> {
        let key = (world.to_string(), tile.0, tile.1);
        let entry = match self.cache.get(&key).await {
            Some(entry) => entry,
            None => self.pinned().get(&key).cloned()?,
        };
        match &*entry.mesh {
            CachedMesh::Tile(mesh) if mesh.version == version => {
                terrain_core::mesh::SurfaceTile::from_mesh(mesh, layout)
            }
            _ => None,
        }
    }

    /// Whether `tile` of `world` is cached or pinned (at any version).
    pub fn contains(&self, world: &str, tile: (i64, i64)) -> bool {
        let key = (world.to_string(), tile.0, tile.1);
        self.cache.contains_key(&key) || self.pinned().contains_key(&key)
    }

    /// The cached or pinned tiles of `world` that `outcome` changed, row-major. A
    /// change that lists its tiles is looked up tile by tile; a larger one (up to
    /// 880,000 tiles) is matched the other way round: the cached tiles against its
    /// rectangles, so the cost follows the cache, not the change.
    pub(super) fn cached_in(&self, world: &str, outcome: &Outcome) -> Vec<(i64, i64)> {
        let changed = &outcome.changed;
        if changed.count <= terrain_model::TILE_LIST_MAX {
            return outcome
                .tiles
                .iter()
                .copied()
                .filter(|&tile| self.contains(world, tile))
                .collect();
        }
        let hit =
            |(w, x, z): &MeshKey| (w == world && changed.contains((*x, *z))).then_some((*x, *z));
        let mut tiles: Vec<(i64, i64)> = self.cache.iter().filter_map(|(k, _)| hit(&k)).collect();
        tiles.extend(self.pinned().keys().filter_map(hit));
        tiles.sort_unstable_by_key(|&(x, z)| (z, x));
        tiles.dedup();
        tiles
    }

    /// Unpins `tile` of `world` (a tile that stopped being live before it was built).
    pub fn unpin(&self, world: &str, tile: (i64, i64)) {
        self.pinned().remove(&(world.to_string(), tile.0, tile.1));
    }

    /// The number of pinned (live) tiles.
    pub fn pinned_tiles(&self) -> usize {
        self.pinned().len()
    }

    /// Releases the cached and pinned meshes of `tiles` (culled tiles).
    pub async fn release(&self, world: &str, tiles: &[(i64, i64)]) {
        {
            let mut pinned = self.pinned();
            for &(x, z) in tiles {
                pinned.remove(&(world.to_string(), x, z));
            }
        }
        for &(x, z) in tiles {
            self.cache.invalidate(&(world.to_string(), x, z)).await;
        }
        if !tiles.is_empty() {
            self.update_size().await;
        }
    }

    /// The cached mesh, or a new one built and cached.
    pub(super) async fn fetch(
        &self,
        world: &World,
        state: Arc<WorldState>,
        tile: (i64, i64),
        work: Work,
    ) -> Result<ServedMesh, MeshError> {
        let (version, revision) = (state.tile_version(tile), state.revision());
        let key = (world.id().to_string(), tile.0, tile.1);
        if let Some(entry) = self.cache.get(&key).await
            && entry.mesh.version() >= version
        {
            return Ok(ServedMesh {
                mesh: entry.mesh,
                revision,
                cached: true,
                encoded: entry.encoded,
            });
        }
        let pinned = self.pinned().get(&key).cloned();
        if let Some(entry) = pinned
            && entry.mesh.version() >= version
        {
            // Evicted from the cache but live: serve it, and offer it back.
            self.cache.insert(key, entry.clone()).await;
            return Ok(ServedMesh {
                mesh: entry.mesh,
                revision,
                cached: true,
                encoded: entry.encoded,
            });
        }
        if let Some(rebuild) = self.rebuild(&key, version)
            && let Ok(entry) = rebuild.done.await
        {
            // A commit's rebuild of this tile: wait for it rather than build it again.
            // (Had it failed, the request builds the tile below.)
            return Ok(ServedMesh {
                mesh: entry.mesh,
                revision,
                cached: true,
                encoded: entry.encoded,
            });
        }
        let (build, started) = self.build(world, state, tile, version, work)?;
        let entry = match work {
            // Not ready by the request's deadline: 503 with `Retry-After`, the build
            // goes on and fills the cache.
            Work::Request => {
                let what = || format!("the mesh of tile ({}, {})", tile.0, tile.1);
                let estimate = world.meters().mesh.estimate(1);
                self.compute
                    .ready_within(what, estimate, build)
                    .await
                    .map_err(MeshError::from)??
            }
            Work::Ahead => build.await?,
        };
        Ok(ServedMesh {
            mesh: entry.mesh,
            revision,
            cached: !started,
            encoded: entry.encoded,
        })
    }

    /// The build of `tile` at `version` under way, or a new one (and `true`): admitted
    /// by its cost when a request asks ([`crate::cost`]), queued as work when the
    /// server builds ahead, and run in a task of its own, so that it fills the cache
    /// even when the request that started it times out or goes away.
    pub(super) fn build(
        &self,
        world: &World,
        state: Arc<WorldState>,
        tile: (i64, i64),
        version: u64,
        work: Work,
    ) -> Result<(Built, bool), MeshError> {
        let key = (world.id().to_string(), tile.0, tile.1);
        let mut building = locked(&self.building);
        if let Some(build) = building.get(&key).filter(|b| b.version >= version) {
            return Ok((build.done.clone(), false));
        }
        let meters = Arc::clone(world.meters());
        let cost = meters.mesh.estimate(1);
        let admitted = match work {
            Work::Request => self.compute.admit(&meters.mesh, 1, BUILD_SCOPE)?,
            Work::Ahead => self.compute.charge(cost),
        };
        let meshes = self.clone();
        let job_key = key.clone();
        let task = tokio::spawn(async move {
            let _admitted = admitted;
            let built = meshes
                .compute
                .run(move || timed(&state, tile, version))
                .await
                .map_err(|e| MeshError::Build(e.to_string()));
            let result = match built {
                Ok((mesh, took)) => {
                    meters.mesh.observe(1, took);
                    meshes.metrics.mesh_built(took);
                    let kept = meshes.keep_newest(job_key.clone(), Cached::new(mesh)).await;
                    meshes.update_size().await;
                    Ok(kept)
                }
                Err(e) => Err(e),
            };
            let mut building = locked(&meshes.building);
            if building.get(&job_key).is_some_and(|b| b.version == version) {
                building.remove(&job_key);
            }
            result
        });
        let done = async move {
            task.await
                .map_err(|e| MeshError::Build(format!("build task: {e}")))?
        }
        .boxed()
        .shared();
        let build = Rebuild {
            version,
            done: done.clone(),
        };
        building.insert(key, build);
        Ok((done, true))
    }

    /// Puts `mesh` in the cache under `key` unless a newer mesh is there already (the
    /// per-key lock orders this with every other build of the tile), and answers the
    /// one the cache holds.
    pub(super) async fn keep_newest(&self, key: MeshKey, mesh: Cached) -> Cached {
        let version = mesh.mesh.version();
        let kept = mesh.clone();
        let result = self
            .cache
            .entry(key)
            .and_compute_with(|entry| async move {
                match entry {
                    Some(e) if e.value().mesh.version() >= version => Op::Nop,
                    _ => Op::Put(kept),
                }
            })
            .await;
        result.into_entry().map_or(mesh, |entry| entry.into_value())
    }

    /// Applies the cache's pending bookkeeping (admission, eviction) and publishes
    /// its size.
    pub(super) async fn update_size(&self) {
        self.cache.run_pending_tasks().await;
        self.metrics.mesh_cache_bytes(self.cache.weighted_size());
    }

    /// Puts `mesh`, built for `key` at `version`, in the cache (and in the pinned set
    /// if the tile is live), keeping a newer mesh already there, and ends the tile's
    /// rebuild.
    pub(super) async fn install(
        self,
        key: MeshKey,
        version: u64,
        built: Result<(CachedMesh, Duration), MeshError>,
    ) -> Result<Cached, MeshError> {
        let finished = built.map(|(mesh, elapsed)| {
            self.metrics.mesh_built(elapsed);
            self.metrics.tiles_regenerated(&key.0, 1);
            Cached::new(mesh)
        });
        if let Ok(mesh) = &finished {
            if let Some(pin) = self.pinned().get_mut(&key)
                && pin.mesh.version() < version
            {
                *pin = mesh.clone();
            }
            self.keep_newest(key.clone(), mesh.clone()).await;
        }
        let mut rebuilding = locked(&self.rebuilding);
        if rebuilding.get(&key).is_some_and(|r| r.version == version) {
            rebuilding.remove(&key);
        }
        finished
    }

    /// The number of cached tiles (approximate: pending evictions may remain).
    pub fn tiles(&self) -> u64 {
        self.cache.entry_count()
    }
}

/// Builds `tile` at `version`, with the time it took: a voxel world's chunk mesh, or
/// the heightfield tile of any other world.
pub(super) fn timed(state: &WorldState, tile: (i64, i64), version: u64) -> (CachedMesh, Duration) {
    let start = Instant::now();
    let terrain = state.terrain();
    let mesh = match terrain.voxel_mesh(tile.0, tile.1) {
        Some(mesh) => CachedMesh::Chunk(ChunkMesh::new(tile, version, mesh)),
        None => CachedMesh::Tile(build_tile(terrain, tile, version)),
    };
    (mesh, start.elapsed())
}
