//! Tile meshes: a bounded cache of built meshes shared by every world, and the commit
//! listener that keeps cached tiles current.
//!
//! - A tile's mesh is a [`CachedMesh`]: the heightfield [`TileMesh`] of hyperscape and
//!   osrs worlds, or the greedy [`ChunkMesh`] of a voxel world's chunk (its tile),
//!   whichever the world's terrain builds; both are cached, versioned and rebuilt on
//!   commit alike.
//! - A request reads the world's state (terrain and tile versions of one revision)
//!   and asks the cache for the tile at that version. A cached mesh at that version
//!   or newer is a hit; otherwise the mesh is built on the compute pool from the
//!   state the request read. Calls for the same tile are serialised by the cache's
//!   per-key lock, so concurrent requests for one uncached tile build it once: the
//!   first builds, the others find its mesh.
//! - The cache holds at most `limits.mesh_cache_bytes` of mesh data (positions,
//!   normals, indices and f64 heights), evicting the least useful tiles first (moka's
//!   TinyLFU).
//! - Live tiles are pinned: a tile the lifecycle built because it turned active
//!   ([`MeshCache::prefetch_live`]) stays servable from memory until it is culled
//!   ([`MeshCache::release`]), even if the cache evicted it meanwhile, so a mesh asked
//!   for right after its tile turned active is always a hit. What is pinned is bounded
//!   by the lifecycle: the live tiles of every world together may take at most
//!   `mesh_cache_bytes` (a viewer whose rings would need more is refused), so meshes
//!   take at most twice `mesh_cache_bytes` (the cache, plus pinned tiles it evicted).
//! - Each cached tile also keeps the response bodies encoded from it, per format
//!   (`encoded`): a warm request copies bytes and encodes nothing. They count in
//!   the cache's budget.
//! - Simplified meshes (a `maxError` above 0, [`MeshCache::simplified`]) are kept in a
//!   cache of their own, by tile and error, holding at most a quarter of
//!   `limits.mesh_cache_bytes`; an entry is served only for the tile version it was
//!   simplified from, and is made from the full-detail mesh this cache serves.
//! - [`MeshCache`] is also a [`CommitListener`]: after a change commits (the world's
//!   state already shows the new heights and versions), it starts rebuilding the
//!   affected tiles that are cached, in parallel on the compute pool (one request of
//!   one slice per tile, taking turns with the others), and returns without waiting
//!   for them, so a change over many hot tiles is acknowledged as fast as one over a
//!   single tile. Before it returns (before the change is acknowledged or announced)
//!   each rebuild is registered under its tile and version: a request that needs the
//!   new version meanwhile waits for that rebuild instead of building the tile again,
//!   and is served the rebuilt mesh. A stale mesh is never served (its version is too
//!   old), whether or not a rebuild is under way.

use std::{
    collections::HashMap,
    fmt,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant},
};

mod encoded;
pub mod tiles3d;
pub mod walk;

pub use encoded::{Encodings, MeshFormat};

use encoded::Cached;
use futures::{
    FutureExt,
    future::{BoxFuture, Shared},
};
use moka::{future::Cache, ops::compute::Op};
use terrain_core::{
    mesh::{
        GlbError, TileMesh, build_tile,
        glb::{ColouredMesh, coloured_to_glb},
        simplify_tile, to_glb,
    },
    voxel::{MeshPart, VoxelMesh},
};

use crate::{
    compute::Compute,
    cost::Busy,
    error::{ErrorCode, ServiceError},
    metrics::Metrics,
    world::{CommitListener, Outcome, World, WorldState},
};

/// Why a mesh could not be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MeshError {
    /// The compute pool lost the build (a panic, or shutting down).
    #[error("internal error: building tile mesh: {0}")]
    Build(String),
    /// The cache gave back no entry for a tile it had just computed: a bug.
    #[error("internal error: mesh cache: the entry vanished")]
    Vanished,
    /// The mesh could not be encoded for the response.
    #[error("internal error: encoding tile mesh: {0}")]
    Encode(String),
    /// The compute pool's queued work and this build's would not finish in time.
    #[error(transparent)]
    Busy(#[from] Busy),
}

impl ServiceError for MeshError {
    fn error_code(&self) -> ErrorCode {
        match self {
            MeshError::Busy(e) => e.error_code(),
            _ => ErrorCode::Internal,
        }
    }

    fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            MeshError::Busy(e) => e.retry_after(),
            _ => None,
        }
    }
}

/// A tile of a world: `(world id, tile x, tile z)`.
type MeshKey = (String, i64, i64);

/// A simplified tile of a world: `(world id, tile x, tile z, max error's f64 bits)`.
type LodKey = (String, i64, i64, u64);

/// A voxel world's chunk mesh: the greedy mesh of its blocks, with positions made
/// relative to the chunk's placement (as a [`TileMesh`]'s are).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkMesh {
    /// The chunk (the world's tile).
    pub key: (i64, i64),
    /// The revision of the last change that touched the chunk (0: none).
    pub version: u64,
    /// World position of the chunk's origin: `(32 cx, 0, 32 cz)`.
    pub placement: [f64; 3],
    /// Opaque and transparent parts, quad and face counts; positions relative to
    /// `placement`.
    pub mesh: VoxelMesh,
}

impl ChunkMesh {
    /// Chunk `key`'s mesh at `version` from `mesh`, whose positions are world metres.
    /// The shift is exact for block corners within 2^24 m of the origin.
    pub fn new(key: (i64, i64), version: u64, mut mesh: VoxelMesh) -> Self {
        let size = terrain_core::voxel::CHUNK as f64;
        let placement = [key.0 as f64 * size, 0.0, key.1 as f64 * size];
        for part in [&mut mesh.opaque, &mut mesh.transparent] {
            for p in &mut part.positions {
                p[0] = (f64::from(p[0]) - placement[0]) as f32;
                p[2] = (f64::from(p[2]) - placement[2]) as f32;
            }
        }
        ChunkMesh {
            key,
            version,
            placement,
            mesh,
        }
    }

    /// The lowest and highest vertex of both parts (0, 0 for an empty mesh): the
    /// `minHeight` / `maxHeight` both surfaces report.
    pub fn height_range(&self) -> (f32, f32) {
        let ys = self
            .mesh
            .opaque
            .positions
            .iter()
            .chain(&self.mesh.transparent.positions)
            .map(|p| p[1]);
        let (lo, hi) = ys.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
        if lo > hi { (0.0, 0.0) } else { (lo, hi) }
    }

    /// The chunk's mesh as glb: a node at the chunk's placement, the opaque part and
    /// the transparent part as two coloured primitives.
    pub fn to_glb(&self) -> Result<Vec<u8>, GlbError> {
        let (cx, cz) = self.key;
        coloured_to_glb(&ColouredMesh {
            name: format!("chunk_{cx}_{cz}"),
            translation: self.placement,
            extras: serde_json::json!({
                "chunkX": cx,
                "chunkZ": cz,
                "version": self.version,
                "quads": self.mesh.quads,
                "visibleFaces": self.mesh.visible_faces,
            }),
            primitives: self.mesh.primitives(),
        })
    }
}

/// `served` as glb, as [`MeshCache::encoded`] stores it: the body of `mesh.glb` and a
/// finest 3D Tiles content alike.
pub fn encode_glb(served: &ServedMesh) -> Result<Vec<u8>, String> {
    served.mesh.to_glb().map_err(|e| e.to_string())
}

/// What the cache holds for one tile.
#[derive(Debug, Clone, PartialEq)]
pub enum CachedMesh {
    /// A heightfield tile (hyperscape, osrs).
    Tile(TileMesh),
    /// A voxel chunk.
    Chunk(ChunkMesh),
}

impl CachedMesh {
    /// The revision of the last change that touched the tile.
    pub fn version(&self) -> u64 {
        match self {
            CachedMesh::Tile(m) => m.version,
            CachedMesh::Chunk(m) => m.version,
        }
    }

    /// The tile's indices.
    pub fn key(&self) -> (i64, i64) {
        match self {
            CachedMesh::Tile(m) => m.key,
            CachedMesh::Chunk(m) => m.key,
        }
    }

    /// The mesh as glb.
    pub fn to_glb(&self) -> Result<Vec<u8>, GlbError> {
        match self {
            CachedMesh::Tile(m) => to_glb(m),
            CachedMesh::Chunk(m) => m.to_glb(),
        }
    }

    /// The bytes the cached mesh holds (its heap arrays), saturating at `u32::MAX`.
    pub fn bytes(&self) -> u32 {
        match self {
            CachedMesh::Tile(m) => mesh_bytes(m),
            CachedMesh::Chunk(m) => {
                let part = |p: &MeshPart| {
                    (p.positions.len() + p.normals.len() + p.colours.len()) * 12
                        + p.indices.len() * 4
                };
                let bytes = part(&m.mesh.opaque) + part(&m.mesh.transparent);
                u32::try_from(bytes).unwrap_or(u32::MAX)
            }
        }
    }
}

/// A mesh as served, with the world revision it was read at.
#[derive(Debug, Clone)]
pub struct ServedMesh {
    pub mesh: Arc<CachedMesh>,
    /// The world's revision when the request read it (>= `mesh.version`).
    pub revision: u64,
    /// Whether the cache held it (`false`: built for this request).
    pub cached: bool,
    /// The encodings made of this mesh, shared with its cache entry
    /// ([`MeshCache::encoded`]).
    pub encoded: Arc<Encodings>,
}

/// A rebuild under way after a commit: the tile's new version and the rebuilt
/// entry (once it is in the cache), for every request that needs it meanwhile.
#[derive(Clone)]
struct Rebuild {
    version: u64,
    done: Built,
}

/// The outcome of a build, shared by everyone waiting for it.
type Built = Shared<BoxFuture<'static, Result<Cached, MeshError>>>;

/// Who asked for a build: a request (admitted by cost, or refused) or the server
/// building ahead of requests (queued, never refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Work {
    Request,
    Ahead,
}

/// The rebuilds under way, by tile.
type Rebuilds = Arc<Mutex<HashMap<MeshKey, Rebuild>>>;

/// The mesh cache of one server. A clone shares the cache, pins, rebuilds and pool
/// (a commit's rebuild holds one to finish after its listener returned).
#[derive(Clone)]
pub struct MeshCache {
    cache: Cache<MeshKey, Cached>,
    /// Simplified meshes, by tile and error.
    lod: Cache<LodKey, Cached>,
    /// The worlds' 3D Tiles grids and contents ([`tiles3d`]).
    tilesets: tiles3d::Tilesets,
    /// The worlds' blocks of movement tiles for path queries ([`walk`]).
    walk: walk::WalkBlocks,
    /// The meshes of live tiles, kept until they are culled (shared with `cache`
    /// while it holds them too).
    pinned: Arc<Mutex<HashMap<MeshKey, Cached>>>,
    /// The rebuilds started by commits and not yet in the cache.
    rebuilding: Rebuilds,
    /// The builds started by requests (or prefetches) and not yet in the cache.
    building: Rebuilds,
    compute: Compute,
    metrics: Arc<Metrics>,
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

/// The bytes a cached mesh holds (its heap arrays), saturating at `u32::MAX`.
pub fn mesh_bytes(mesh: &TileMesh) -> u32 {
    let bytes = mesh.positions.len() * 4
        + mesh.normals.len() * 4
        + mesh.heights.len() * 8
        + mesh.colours.len() * 4
        + mesh.biomes.len()
        + mesh.indices.len()
            * match mesh.indices {
                terrain_core::mesh::Indices::U16(_) => 2,
                terrain_core::mesh::Indices::U32(_) => 4,
            };
    u32::try_from(bytes).unwrap_or(u32::MAX)
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
            walk: walk::WalkBlocks::new(budget / 8, Arc::clone(&metrics)),
            pinned: Arc::default(),
            rebuilding: Arc::default(),
            building: Arc::default(),
            compute,
            metrics,
        }
    }

    /// The blocks of movement tiles path checks and searches keep ([`walk`]).
    pub fn walk_blocks(&self) -> &walk::WalkBlocks {
        &self.walk
    }

    fn pinned(&self) -> std::sync::MutexGuard<'_, HashMap<MeshKey, Cached>> {
        locked(&self.pinned)
    }

    /// The rebuild under way of `key` at `version` or newer, if any.
    fn rebuild(&self, key: &MeshKey, version: u64) -> Option<Rebuild> {
        locked(&self.rebuilding)
            .get(key)
            .filter(|r| r.version >= version)
            .cloned()
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
    fn cached_in(&self, world: &str, outcome: &Outcome) -> Vec<(i64, i64)> {
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
    async fn fetch(
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
        let entry = build.await?;
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
    fn build(
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
            Work::Request => self.compute.admit(cost)?,
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
    async fn keep_newest(&self, key: MeshKey, mesh: Cached) -> Cached {
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
    async fn update_size(&self) {
        self.cache.run_pending_tasks().await;
        self.metrics.mesh_cache_bytes(self.cache.weighted_size());
    }

    /// Puts `mesh`, built for `key` at `version`, in the cache (and in the pinned set
    /// if the tile is live), keeping a newer mesh already there, and ends the tile's
    /// rebuild.
    async fn install(
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

/// The bytes one tile mesh of `grid` holds in the cache (what [`mesh_bytes`] counts
/// for a heightfield mesh of that grid, at most: positions, normals, f64 heights,
/// colours, biome ids and u32 indices). Voxel chunk meshes are counted at the same size: their greedy quads
/// are usually far fewer.
pub fn tile_mesh_bytes(grid: &terrain_core::tile::TileGrid) -> u64 {
    let n = u64::from(grid.resolution);
    let vertices = n * n;
    let indices = n.saturating_sub(1).pow(2) * 6;
    vertices * (3 * 4 + 3 * 4 + 8 + 3 * 4 + 1) + indices * 4
}

/// Builds `tile` at `version`, with the time it took: a voxel world's chunk mesh, or
/// the heightfield tile of any other world.
fn timed(state: &WorldState, tile: (i64, i64), version: u64) -> (CachedMesh, Duration) {
    let start = Instant::now();
    let terrain = state.terrain();
    let mesh = match terrain.voxel_mesh(tile.0, tile.1) {
        Some(mesh) => CachedMesh::Chunk(ChunkMesh::new(tile, version, mesh)),
        None => CachedMesh::Tile(build_tile(terrain, tile, version)),
    };
    (mesh, start.elapsed())
}

fn locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl CommitListener for MeshCache {
    /// Starts rebuilding the changed tiles that are cached, at their new version, in
    /// parallel on the compute pool, and registers each rebuild under its tile before
    /// returning. Called on the registry's blocking thread, after the change is
    /// installed; it does not wait for the builds (outside a Tokio runtime, where it
    /// cannot start them in the background, it does).
    fn committed(&self, world: &World, outcome: &Outcome) {
        let id = world.id();
        let cached = self.cached_in(id, outcome);
        if cached.is_empty() {
            return;
        }
        let state = world.snapshot();
        let mut rebuilds = Vec::with_capacity(cached.len());
        for &tile in &cached {
            let version = state.tile_version(tile);
            let key = (id.to_string(), tile.0, tile.1);
            let (meshes, state) = (self.clone(), Arc::clone(&state));
            let job_key = key.clone();
            let done = async move {
                let built = meshes
                    .compute
                    .run(move || timed(&state, tile, version))
                    .await
                    .map_err(|e| MeshError::Build(e.to_string()));
                meshes.install(job_key, version, built).await
            }
            .boxed()
            .shared();
            let rebuild = Rebuild { version, done };
            locked(&self.rebuilding).insert(key, rebuild.clone());
            rebuilds.push(rebuild.done);
        }
        drop(state);
        let (world_id, revision, tiles) = (id.to_string(), outcome.revision, cached.len());
        let meshes = self.clone();
        let finish = async move {
            let failed = futures::future::join_all(rebuilds)
                .await
                .into_iter()
                .filter_map(Result::err)
                .next();
            meshes.update_size().await;
            match failed {
                // Not fatal: a stale entry is never served, the next request builds.
                Some(e) => {
                    tracing::warn!(world = %world_id, revision, error = %e, "rebuilding cached tile meshes")
                }
                None => {
                    tracing::debug!(world = %world_id, revision, tiles, "cached tile meshes rebuilt")
                }
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(finish);
            }
            Err(_) => futures::executor::block_on(finish),
        }
    }
}

#[cfg(test)]
mod tests;
