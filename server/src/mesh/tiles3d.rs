//! A world's 3D Tiles tileset ([`terrain_core::tiles3d`]): content grids built
//! bottom-up on the compute pool (one sliced job per level, so a cold root takes turns
//! with every other request slice by slice instead of holding the pool), kept by
//! content and version, and content glbs cached by content and version within an
//! eighth of `limits.mesh_cache_bytes`.
//!
//! A content's version is the newest version of the mesh tiles it covers, so after a
//! zone change exactly the contents covering the changed tiles get a new version (and
//! ETag); everything else is served from the caches. The finest level's
//! contents are the meshes of [`MeshCache`] in the glb encoding kept with them, the
//! bytes `mesh.glb` serves: the full-detail tile meshes, or a voxel world's greedy
//! chunk meshes (whose coarse levels are grids of the top-block heightfield, see
//! [`terrain_core::tiles3d`]).
//!
//! Work a request could not finish within three quarters of `request_timeout` even
//! with the compute pool to itself (a cold root: every full-detail height under the
//! square) is not waited for: coarse contents and the root grid are made in tasks of
//! their own (once, however many ask at one version), which outlive the requests;
//! `MeshCache::made` estimates the work (the world's `tiles3d_height` and
//! `tiles3d_sample` meters times the grids not kept and the union to simplify), and
//! when that passes the budget, or the work is not made within it, answers
//! `UNAVAILABLE` (503) with `Retry-After` instead of running into the timeout; the
//! retry is served from the grids and contents the work left. So 3D Tiles work at any
//! `request_timeout`.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use bytes::Bytes;
use moka::future::Cache;
use terrain_core::{
    mesh::to_glb,
    tiles3d::{
        ContentGrid, ContentKey, Patch, TilesetLayout, content_mesh, declared_error,
        descendant_keys, grid_from_terrain, needs_patch, parent_grid, sample_depth,
    },
};
use tokio::sync::watch;

use super::{MeshCache, MeshError, MeshFormat, encode_glb, locked};
use crate::world::{World, WorldState};

/// Grids kept at most (about 16 KiB each); levels above the two finest only, whose
/// grids are cheap to make again from the tiles.
const MAX_GRIDS: usize = 8192;

type GridKey = (String, ContentKey);

/// Kept grids, by content, each with the version it was made at. When full, the half
/// used longest ago goes: a tileset larger than the store (a wide `tileset_extent`, or
/// many worlds) keeps the grids its viewers are using instead of starting again from
/// nothing.
#[derive(Debug)]
struct Grids {
    kept: HashMap<GridKey, Kept>,
    capacity: usize,
    /// Counts uses; each use gets the next value, so no two entries share one.
    clock: u64,
}

#[derive(Debug)]
struct Kept {
    version: u64,
    grid: Arc<ContentGrid>,
    used: u64,
}

impl Grids {
    fn new(capacity: usize) -> Self {
        Grids {
            kept: HashMap::new(),
            capacity: capacity.max(2),
            clock: 0,
        }
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Whether the grid of `key` is kept at `version` (not marked used).
    fn has(&self, key: &GridKey, version: u64) -> bool {
        self.kept.get(key).is_some_and(|k| k.version == version)
    }

    /// The grid of `key` if it is kept at `version`, marked used.
    fn get(&mut self, key: &GridKey, version: u64) -> Option<Arc<ContentGrid>> {
        let now = self.tick();
        let kept = self.kept.get_mut(key).filter(|k| k.version == version)?;
        kept.used = now;
        Some(Arc::clone(&kept.grid))
    }

    /// Keeps `grid` of `key` at `version` (replacing an older one); evicts the half
    /// used longest ago first if the store is full.
    fn insert(&mut self, key: GridKey, version: u64, grid: Arc<ContentGrid>) {
        if self.kept.len() >= self.capacity && !self.kept.contains_key(&key) {
            let mut used: Vec<u64> = self.kept.values().map(|k| k.used).collect();
            let half = used.len() / 2;
            let (_, &mut cut, _) = used.select_nth_unstable(half);
            self.kept.retain(|_, k| k.used >= cut);
        }
        let used = self.tick();
        self.kept.insert(
            key,
            Kept {
                version,
                grid,
                used,
            },
        );
    }
}

/// A grid some request is building: its version, the builder's token, and where the
/// grid arrives (`None` until it is made).
type Building = HashMap<GridKey, (u64, u64, watch::Receiver<Option<Arc<ContentGrid>>>)>;

/// What a 3D Tiles request needs made: the tileset's height range (its root grid), or
/// a content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wanted {
    Range,
    Content(ContentKey),
}

impl Wanted {
    /// How answers name it: `tileset.json`, or `content/{level}/{x}/{y}.glb`.
    fn describe(self, layout: &TilesetLayout) -> String {
        match self {
            Wanted::Range => "tileset.json (its root grid)".to_string(),
            Wanted::Content(k) => {
                format!("content/{}/{}/{}.glb", k.level, k.ix, layout.tileset_y(k))
            }
        }
    }
}

/// What a build of [`Wanted`] made.
#[derive(Debug, Clone)]
enum Made {
    /// The tileset's height range and newest version.
    Range((f64, f64), u64),
    /// A content's version and glb.
    Content(u64, Bytes),
}

/// 3D Tiles work being made in a task of its own: the version it is made at, when it
/// started, how long it was estimated to take alone, and where its outcome arrives.
#[derive(Debug, Clone)]
struct Warm {
    version: u64,
    started: Instant,
    alone: Duration,
    done: watch::Receiver<Option<Result<Made, MeshError>>>,
}

/// The tilesets of every world of one server.
#[derive(Clone)]
pub struct Tilesets {
    grids: Arc<Mutex<Grids>>,
    /// Grids of the kept level being built from the terrain, which a request needing
    /// the same grid at the same version waits for instead of building it again (a
    /// first view asks for the tileset's root and several coarse contents at once).
    building: Arc<Mutex<Building>>,
    builders: Arc<AtomicU64>,
    contents: Cache<GridKey, (u64, Bytes)>,
    /// Work too costly for a request, being made in the background, by world.
    warming: Arc<Mutex<HashMap<(String, Wanted), Warm>>>,
}

/// The grids one request announced it builds; when it ends, by finishing or by being
/// dropped, its announcements go (whoever waits on a grid it never made builds it).
struct Announced {
    building: Arc<Mutex<Building>>,
    token: u64,
    world: String,
    senders: HashMap<ContentKey, watch::Sender<Option<Arc<ContentGrid>>>>,
}

impl Announced {
    /// Hands `grid` of `key` to those waiting for it.
    fn made(&mut self, key: ContentKey, grid: &Arc<ContentGrid>) {
        if let Some(sender) = self.senders.remove(&key) {
            sender.send_replace(Some(Arc::clone(grid)));
        }
        let mut building = locked(&self.building);
        let gk = (self.world.clone(), key);
        if building.get(&gk).is_some_and(|e| e.1 == self.token) {
            building.remove(&gk);
        }
    }
}

impl Drop for Announced {
    fn drop(&mut self) {
        let mut building = locked(&self.building);
        for key in self.senders.keys() {
            let gk = (self.world.clone(), *key);
            if building.get(&gk).is_some_and(|e| e.1 == self.token) {
                building.remove(&gk);
            }
        }
    }
}

impl std::fmt::Debug for Tilesets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tilesets")
            .field("contents", &self.contents.entry_count())
            .finish_non_exhaustive()
    }
}

impl Tilesets {
    /// How many grids requests have announced they are building.
    #[cfg(test)]
    pub(super) fn announced(&self) -> usize {
        locked(&self.building).len()
    }

    pub fn new(budget: usize) -> Self {
        Tilesets {
            grids: Arc::new(Mutex::new(Grids::new(MAX_GRIDS))),
            building: Arc::default(),
            builders: Arc::default(),
            warming: Arc::default(),
            contents: Cache::builder()
                .name("3dtiles-contents")
                .max_capacity(budget as u64 / 8)
                .weigher(|_k: &GridKey, v: &(u64, Bytes)| {
                    u32::try_from(v.1.len()).unwrap_or(u32::MAX)
                })
                .build(),
        }
    }
}

/// A content's patch as [`MeshCache::content`] finds it: its parent patch's index
/// (`None`: the content itself), the index of the grid it replaces among its parent's,
/// and its four grids.
type PatchNode = (Option<usize>, usize, Vec<Arc<ContentGrid>>);

/// The patches of `nodes` whose parent is `parent`, each with its own, ordered by the
/// grid they replace (as [`terrain_core::tiles3d::content_patches`] orders them).
fn patch_tree(nodes: &[PatchNode], parent: Option<usize>) -> Vec<Patch<'_>> {
    let mut out: Vec<Patch<'_>> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.0 == parent)
        .map(|(k, (_, sample, grids))| Patch {
            sample: *sample,
            grids: grids.iter().map(|g| &**g).collect(),
            patches: patch_tree(nodes, Some(k)),
        })
        .collect();
    out.sort_by_key(|p| p.sample);
    out
}

/// The newest tile version under `key`.
pub fn content_version(state: &WorldState, layout: &TilesetLayout, key: ContentKey) -> u64 {
    state.newest_tile_version(&layout.tiles(key))
}

impl MeshCache {
    /// The grids of `keys` as of `state`, in their order: kept grids as they are, the
    /// others built bottom-up on the compute pool, one sliced job per level. A grid at
    /// the kept level or finer is made from the terrain in one slice (16 full-detail
    /// tiles at most, [`grid_from_terrain`]), and so is a sampled one (the coarse
    /// levels of a square over 128 x 128 tiles, [`TilesetLayout::exact`]: four tiles'
    /// heights); other coarser ones from their children. So a cold root (1,024 slices
    /// of 16 tiles on the island, then 256, 64, ... parents) is one request of the fair
    /// queue, taking turns with every other request slice by slice, and holds the grids
    /// of the kept level only; and what a request plans is bounded whatever the
    /// square: at most the island root's 1,365 grids.
    pub async fn content_grids(
        &self,
        world: &World,
        state: &Arc<WorldState>,
        layout: TilesetLayout,
        keys: &[ContentKey],
    ) -> Result<Vec<Arc<ContentGrid>>, MeshError> {
        let base = layout.levels.saturating_sub(2);
        let kept = |level: u32| level + 2 <= layout.levels;
        let id = world.id().to_string();
        // Top-down: the grids kept at their current version, and those to build, by
        // level (a grid coarser than `base` needs its children).
        let mut have: HashMap<ContentKey, Arc<ContentGrid>> = HashMap::new();
        // By level: each grid to build with the version it is built at.
        let mut build: BTreeMap<u32, Vec<(ContentKey, u64)>> = BTreeMap::new();
        // Grids of the base level another request is building: waited for.
        let mut joined = Vec::new();
        let mut announced = Announced {
            building: Arc::clone(&self.tilesets.building),
            token: self.tilesets.builders.fetch_add(1, Ordering::Relaxed),
            world: id.clone(),
            senders: HashMap::new(),
        };
        let mut seen = HashSet::new();
        let mut frontier = keys.to_vec();
        {
            let mut grids = locked(&self.tilesets.grids);
            let mut building = locked(&self.tilesets.building);
            while let Some(key) = frontier.pop() {
                if !seen.insert(key) {
                    continue;
                }
                let version = content_version(state, &layout, key);
                let gk = (id.clone(), key);
                if let Some(g) = grids.get(&gk, version) {
                    have.insert(key, g);
                    continue;
                }
                if key.level == base {
                    match building.get(&gk) {
                        Some((v, _, rx)) if *v == version => {
                            joined.push((key, rx.clone()));
                            continue;
                        }
                        _ => {
                            let (tx, rx) = watch::channel(None);
                            building.insert(gk, (version, announced.token, rx));
                            announced.senders.insert(key, tx);
                        }
                    }
                }
                build.entry(key.level).or_default().push((key, version));
                // A sampled grid is made from the terrain in one slice: nothing under
                // it is planned, whatever the square's size.
                if key.level < base && layout.exact(key.level) {
                    frontier.extend(key.children());
                }
            }
        }
        // Bottom-up, finest level first; the grids joined are waited for before the
        // first level coarser than the base (after this request's own base grids, so
        // both requests' slices run at once).
        for (level, planned) in build.into_iter().rev() {
            if level < base {
                self.join(world, &mut joined, &mut have, state, layout)
                    .await?;
            }
            let (keys, versions): (Vec<ContentKey>, Vec<u64>) = planned.into_iter().unzip();
            let built = if level >= base || !layout.exact(level) {
                self.terrain_grids(world, state, layout, &keys).await?
            } else {
                let children = keys
                    .iter()
                    .map(|k| {
                        let c = k.children().map(|c| have.get(&c).cloned());
                        match c {
                            [Some(a), Some(b), Some(c), Some(d)] => Ok([a, b, c, d]),
                            _ => Err(MeshError::Build(format!(
                                "3D Tiles grid {k:?}: a child grid is missing"
                            ))),
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let job_keys = keys.clone();
                self.compute
                    .run_sliced(keys.len(), move |i| {
                        let [a, b, c, d] = &children[i];
                        parent_grid(job_keys[i], [&**a, &**b, &**c, &**d])
                    })
                    .await
                    .map_err(|e| MeshError::Build(e.to_string()))?
            };
            let mut grids = locked(&self.tilesets.grids);
            for ((key, version), grid) in keys.into_iter().zip(versions).zip(built) {
                let grid = Arc::new(grid);
                if kept(level) {
                    grids.insert((id.clone(), key), version, Arc::clone(&grid));
                }
                if level == base {
                    announced.made(key, &grid);
                }
                have.insert(key, grid);
            }
        }
        // Joined grids asked for directly (nothing coarser was built).
        self.join(world, &mut joined, &mut have, state, layout)
            .await?;
        keys.iter()
            .map(|k| {
                have.get(k)
                    .cloned()
                    .ok_or_else(|| MeshError::Build(format!("3D Tiles grid {k:?} not built")))
            })
            .collect()
    }

    /// Waits for the grids other requests were building, and builds those whose
    /// builder went away without making them (one sliced job).
    async fn join(
        &self,
        world: &World,
        joined: &mut Vec<(ContentKey, watch::Receiver<Option<Arc<ContentGrid>>>)>,
        have: &mut HashMap<ContentKey, Arc<ContentGrid>>,
        state: &Arc<WorldState>,
        layout: TilesetLayout,
    ) -> Result<(), MeshError> {
        let mut missed = Vec::new();
        for (key, mut rx) in joined.drain(..) {
            let grid = rx
                .wait_for(Option::is_some)
                .await
                .ok()
                .and_then(|g| g.clone());
            match grid {
                Some(grid) => {
                    have.insert(key, grid);
                }
                None => missed.push(key),
            }
        }
        let built = self.terrain_grids(world, state, layout, &missed).await?;
        for (key, grid) in missed.into_iter().zip(built) {
            have.insert(key, Arc::new(grid));
        }
        Ok(())
    }

    /// The grids of `keys` made from the terrain, one slice each, counted and
    /// measured (the world's `tiles3d_height` meter).
    async fn terrain_grids(
        &self,
        world: &World,
        state: &Arc<WorldState>,
        layout: TilesetLayout,
        keys: &[ContentKey],
    ) -> Result<Vec<ContentGrid>, MeshError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let (job, job_keys) = (Arc::clone(state), keys.to_vec());
        let (built, took) = self
            .compute
            .run_sliced_timed(keys.len(), move |i| {
                grid_from_terrain(job.terrain(), &layout, job_keys[i])
            })
            .await
            .map_err(|e| MeshError::Build(e.to_string()))?;
        let heights = keys.iter().map(|&k| terrain_heights(&layout, k)).sum();
        world.meters().tiles3d_height.observe(heights, took);
        self.metrics.tiles3d_grids_built(keys.len() as u64);
        Ok(built)
    }

    /// The grids of `key`'s descendants `depth` levels down, row by row from the
    /// lowest x and z.
    async fn descendants(
        &self,
        world: &World,
        state: &Arc<WorldState>,
        layout: TilesetLayout,
        key: ContentKey,
        depth: u32,
    ) -> Result<Vec<Arc<ContentGrid>>, MeshError> {
        let keys = descendant_keys(key, depth);
        self.content_grids(world, state, layout, &keys).await
    }

    /// Content `key` of `world`'s tileset as glb, with its version: cached, or built
    /// (a full-detail tile's mesh at the finest level, a coarse content mesh above: its
    /// samples as deep as [`sample_depth`] takes them, and a [`Patch`] from deeper
    /// grids for every sample that [`needs_patch`], so that a content over exact grids
    /// is within its level's error whatever the zones), in a task of its own and
    /// waited for within the budget, or answered [`MeshError::Warming`] while it goes
    /// on (`MeshCache::made`).
    pub async fn content(
        &self,
        world: &Arc<World>,
        state: Arc<WorldState>,
        layout: TilesetLayout,
        key: ContentKey,
    ) -> Result<(u64, Bytes), MeshError> {
        let version = content_version(&state, &layout, key);
        let ck = (world.id().to_string(), key);
        if let Some((v, bytes)) = self.tilesets.contents.get(&ck).await
            && v == version
        {
            return Ok((v, bytes));
        }
        // A full-detail content is a tile mesh, admitted by the mesh cache.
        if key.level == layout.levels {
            return self.build_content(world, state, layout, key, version).await;
        }
        match self
            .made(world, &state, layout, Wanted::Content(key))
            .await?
        {
            Made::Content(version, bytes) => Ok((version, bytes)),
            Made::Range(..) => Err(MeshError::Build("3D Tiles: a range for a content".into())),
        }
    }

    /// Content `key` at `version` (its current one in `state`) built and cached.
    async fn build_content(
        &self,
        world: &Arc<World>,
        state: Arc<WorldState>,
        layout: TilesetLayout,
        key: ContentKey,
        version: u64,
    ) -> Result<(u64, Bytes), MeshError> {
        let ck = (world.id().to_string(), key);
        let bytes = if key.level == layout.levels {
            let tiles = layout.tiles(key);
            let served = self
                .get(world, Arc::clone(&state), (tiles.min_tx, tiles.min_tz))
                .await?;
            // The tile's own glb encoding: `mesh.glb`'s bytes, made once for both.
            self.encoded(world.id(), &served, MeshFormat::Glb, encode_glb)
                .await?
        } else {
            let mut depth = 1;
            let budget = layout.geometric_error(key.level);
            let mut samples = self.descendants(world, &state, layout, key, 1).await?;
            loop {
                let worst = samples.iter().map(|g| g.error).fold(0.0, f64::max);
                let want = sample_depth(&layout, key, |d| if d <= depth { worst } else { 0.0 });
                if want <= depth || worst <= budget / 2.0 {
                    break;
                }
                depth += 1;
                samples = self.descendants(world, &state, layout, key, depth).await?;
            }
            // Grids whose error leaves less than half the level's error to the
            // simplification are patched from their four children, and those in turn
            // (down to the full-detail tiles at worst): each patch with its parent
            // patch (`None`: the content), the index of the grid it replaces, and its
            // grids.
            let mut patches: Vec<PatchNode> = Vec::new();
            let mut work: Vec<(Option<usize>, usize, ContentKey)> = samples
                .iter()
                .enumerate()
                .filter(|(_, g)| needs_patch(&layout, key.level, g))
                .map(|(i, g)| (None, i, g.key))
                .collect();
            while let Some((parent, i, below)) = work.pop() {
                let grids = self.descendants(world, &state, layout, below, 1).await?;
                let node = patches.len();
                work.extend(
                    grids
                        .iter()
                        .enumerate()
                        .filter(|(_, g)| needs_patch(&layout, key.level, g))
                        .map(|(j, g)| (Some(node), j, g.key)),
                );
                patches.push((parent, i, grids));
            }
            let job = Arc::clone(&state);
            // The union, and each patch's union of its four grids.
            let samples_read =
                union_samples(&layout, depth) + patches.len() as u64 * union_samples(&layout, 1);
            let meters = Arc::clone(world.meters());
            self.compute
                .run(move || {
                    let start = Instant::now();
                    let refs: Vec<&ContentGrid> = samples.iter().map(|g| &**g).collect();
                    let patches = patch_tree(&patches, None);
                    let (mesh, bound) =
                        content_mesh(job.terrain(), &layout, key, &refs, depth, &patches, version);
                    if bound > layout.geometric_error(key.level) {
                        // Only where the samples are sampled grids, whose errors are
                        // measured one level finer, not proven: the subtrees declare
                        // what is proven of such a content.
                        tracing::debug!(
                            ?key,
                            bound,
                            declared = declared_error(&layout, job.terrain(), key),
                            "3D Tiles content over sampled grids measured beyond its level's error"
                        );
                    }
                    let glb = to_glb(&mesh).map_err(|e| e.to_string());
                    meters.tiles3d_sample.observe(samples_read, start.elapsed());
                    glb
                })
                .await
                .map_err(|e| MeshError::Build(e.to_string()))?
                .map(Bytes::from)
                .map_err(MeshError::Encode)?
        };
        self.tilesets
            .contents
            .insert(ck, (version, bytes.clone()))
            .await;
        Ok((version, bytes))
    }

    /// The heights every content lies in and the newest tile version of the square:
    /// the root grid's exact range; on a square over 128 x 128 tiles, whose root grid
    /// is sampled, the terrain's proven range over the square
    /// ([`terrain_core::Terrain::height_bounds`]), which needs no grid; on a voxel world
    /// the whole block range, 0 to `max_height`, which needs no grid either (a chunk
    /// mesh is its blocks, which the top-block heightfield does not bound: water and
    /// leaves lie above it, faces beside ice and toward columns beyond the square
    /// reach below it).
    ///
    /// The root grid is made in a task of its own and waited for within the budget, or
    /// answered [`MeshError::Warming`] while it goes on (`MeshCache::made`).
    pub async fn tileset_range(
        &self,
        world: &Arc<World>,
        state: Arc<WorldState>,
        layout: TilesetLayout,
    ) -> Result<((f64, f64), u64), MeshError> {
        if state.terrain().generator().as_voxel().is_some() || !layout.exact(0) {
            return self.build_range(world, state, layout).await;
        }
        match self.made(world, &state, layout, Wanted::Range).await? {
            Made::Range(range, version) => Ok((range, version)),
            Made::Content(..) => Err(MeshError::Build("3D Tiles: a content for a range".into())),
        }
    }

    /// [`MeshCache::tileset_range`], its root grid built however long that takes.
    async fn build_range(
        &self,
        world: &Arc<World>,
        state: Arc<WorldState>,
        layout: TilesetLayout,
    ) -> Result<((f64, f64), u64), MeshError> {
        let root = ContentKey::ROOT;
        let version = content_version(&state, &layout, root);
        if let Some(voxel) = state.terrain().generator().as_voxel() {
            return Ok(((0.0, f64::from(voxel.config().max_height)), version));
        }
        if !layout.exact(0) {
            let (x0, z0, x1, z1) = layout.content_bounds(root);
            let range = state.terrain().height_bounds(x0, z0, x1, z1);
            return Ok((range, version));
        }
        let grid = self
            .content_grids(world, &state, layout, &[root])
            .await?
            .remove(0);
        Ok(((f64::from(grid.min), f64::from(grid.max)), version))
    }
}

/// Heights the grid of `key` reads from the terrain when it is made from it
/// ([`grid_from_terrain`]): every vertex of every tile under it where the level is
/// exact, four grids' worth where it is sampled.
fn terrain_heights(layout: &TilesetLayout, key: ContentKey) -> u64 {
    let n = layout.n() as u64;
    if layout.exact(key.level) {
        let side = 1u64 << (layout.levels - key.level.min(layout.levels));
        side * side * n * n
    } else {
        4 * n * n
    }
}

/// Samples of the union a content simplifies from `depth` levels below it.
fn union_samples(layout: &TilesetLayout, depth: u32) -> u64 {
    let m = (1u64 << depth) * (layout.n() as u64 - 1) + 1;
    m * m
}

impl MeshCache {
    /// `wanted` as of `state`, made in a task of its own (once, however many ask at its
    /// version) so that it outlives the requests that wait for it, and waited for
    /// within the budget share of `request_timeout`. The work is estimated from the
    /// world's meters: the heights the grids not kept at their current version read,
    /// spread over the pool, then (a content) its mesh simplified on one thread from
    /// the union of its samples as deep as it may take them. When that estimate alone
    /// passes the budget, or the work is not made within it, the answer is
    /// [`MeshError::Warming`], with the estimate's time left as `Retry-After`; the
    /// work goes on, and the grids and content it leaves are served to the retry.
    async fn made(
        &self,
        world: &Arc<World>,
        state: &Arc<WorldState>,
        layout: TilesetLayout,
        wanted: Wanted,
    ) -> Result<Made, MeshError> {
        let version = match wanted {
            Wanted::Range => content_version(state, &layout, ContentKey::ROOT),
            Wanted::Content(key) => content_version(state, &layout, key),
        };
        let budget = self.compute.budget();
        let id = (world.id().to_string(), wanted);
        let warm = {
            let mut warming = locked(&self.tilesets.warming);
            match warming.get(&id) {
                Some(warm) if warm.version == version => warm.clone(),
                _ => {
                    let (alone, total) = self.estimate(world, state, &layout, wanted);
                    let warm = self.start(world, state, layout, wanted, version, alone, total);
                    warming.insert(id, warm.clone());
                    warm
                }
            }
        };
        let warming = |warm: &Warm| MeshError::Warming {
            what: wanted.describe(&layout),
            alone: warm.alone,
            retry_after: Duration::from_secs(
                warm.alone
                    .saturating_sub(warm.started.elapsed())
                    .as_secs_f64()
                    .ceil()
                    .clamp(1.0, 3600.0) as u64,
            ),
        };
        if warm.alone > budget {
            return Err(warming(&warm));
        }
        let mut done = warm.done.clone();
        match tokio::time::timeout(budget, done.wait_for(Option::is_some)).await {
            Ok(Ok(outcome)) => outcome
                .clone()
                .unwrap_or_else(|| Err(MeshError::Build("3D Tiles build: no outcome".into()))),
            Ok(Err(_)) => Err(MeshError::Build(
                "3D Tiles build: the task went away".into(),
            )),
            Err(_) => Err(warming(&warm)),
        }
    }

    /// Starts making `wanted` at `version` in a task of its own, its estimate queued
    /// on the pool as the server's own work.
    #[allow(clippy::too_many_arguments)]
    fn start(
        &self,
        world: &Arc<World>,
        state: &Arc<WorldState>,
        layout: TilesetLayout,
        wanted: Wanted,
        version: u64,
        alone: Duration,
        total: Duration,
    ) -> Warm {
        let (tx, done) = watch::channel(None);
        let long = alone > self.compute.budget();
        if long {
            tracing::info!(
                world = world.id(),
                what = wanted.describe(&layout),
                estimate = ?alone,
                "3D Tiles work too long for a request: building it in the background"
            );
        }
        let charged = self.compute.charge(total);
        let (meshes, world, state) = (self.clone(), Arc::clone(world), Arc::clone(state));
        tokio::spawn(async move {
            let _charged = charged;
            let started = Instant::now();
            let made = match wanted {
                Wanted::Range => meshes
                    .build_range(&world, state, layout)
                    .await
                    .map(|(range, version)| Made::Range(range, version)),
                Wanted::Content(key) => meshes
                    .build_content(&world, state, layout, key, version)
                    .await
                    .map(|(version, bytes)| Made::Content(version, bytes)),
            };
            match &made {
                Ok(_) if long => tracing::info!(
                    world = world.id(),
                    what = wanted.describe(&layout),
                    took = ?started.elapsed(),
                    "3D Tiles background build done"
                ),
                Ok(_) => {}
                Err(e) => tracing::warn!(
                    world = world.id(),
                    what = wanted.describe(&layout),
                    error = %e,
                    "3D Tiles build failed"
                ),
            }
            tx.send_replace(Some(made));
            let id = (world.id().to_string(), wanted);
            let mut warming = locked(&meshes.tilesets.warming);
            if warming.get(&id).is_some_and(|w| w.version == version) {
                warming.remove(&id);
            }
        });
        Warm {
            version,
            started: Instant::now(),
            alone,
            done,
        }
    }

    /// The estimated time of making `wanted` alone on the pool, and its total pool
    /// time (`MeshCache::made`).
    fn estimate(
        &self,
        world: &World,
        state: &WorldState,
        layout: &TilesetLayout,
        wanted: Wanted,
    ) -> (Duration, Duration) {
        let meters = world.meters();
        let (keys, samples) = match wanted {
            Wanted::Range => (vec![ContentKey::ROOT], 0),
            Wanted::Content(key) => {
                let deepest = layout.max_sample_depth(key.level);
                let keys = (1..=deepest)
                    .flat_map(|depth| descendant_keys(key, depth))
                    .collect();
                (keys, union_samples(layout, deepest))
            }
        };
        let grids = meters
            .tiles3d_height
            .estimate(self.heights_to_read(world, state, layout, &keys));
        let mesh = meters.tiles3d_sample.estimate(samples);
        let threads = u32::try_from(self.compute.threads().max(1)).unwrap_or(u32::MAX);
        (grids / threads + mesh, grids + mesh)
    }

    /// Heights the grids of `keys` (and those they are made from) read from the
    /// terrain, leaving out the grids kept at their current version: the plan
    /// [`MeshCache::content_grids`] makes, counted instead of built.
    fn heights_to_read(
        &self,
        world: &World,
        state: &WorldState,
        layout: &TilesetLayout,
        keys: &[ContentKey],
    ) -> u64 {
        let base = layout.levels.saturating_sub(2);
        let grids = locked(&self.tilesets.grids);
        let mut seen = HashSet::new();
        let mut frontier = keys.to_vec();
        let mut heights = 0u64;
        while let Some(key) = frontier.pop() {
            if key.level > layout.levels || !seen.insert(key) {
                continue;
            }
            let version = content_version(state, layout, key);
            if grids.has(&(world.id().to_string(), key), version) {
                continue;
            }
            if key.level < base && layout.exact(key.level) {
                frontier.extend(key.children());
            } else {
                heights = heights.saturating_add(terrain_heights(layout, key));
            }
        }
        heights
    }
}

#[cfg(test)]
mod grid_store_tests {
    use super::*;

    fn key(ix: u64) -> GridKey {
        let key = ContentKey {
            level: 3,
            ix,
            iz: 0,
        };
        ("main".to_string(), key)
    }

    fn grid(ix: u64) -> Arc<ContentGrid> {
        Arc::new(ContentGrid {
            key: key(ix).1,
            n: 1,
            heights: vec![ix as f32],
            error: 0.0,
            min: 0.0,
            max: 0.0,
        })
    }

    fn kept(store: &Grids) -> Vec<u64> {
        let mut ix: Vec<u64> = store.kept.keys().map(|k| k.1.ix).collect();
        ix.sort_unstable();
        ix
    }

    /// A full store gives up the half used longest ago, not everything: grids in use
    /// stay however many others came and went.
    #[test]
    fn a_full_store_keeps_the_grids_used_last() {
        let mut store = Grids::new(4);
        for ix in 0..4 {
            store.insert(key(ix), 1, grid(ix));
        }
        assert!(store.get(&key(0), 1).is_some());
        assert!(store.get(&key(2), 1).is_some());
        store.insert(key(4), 1, grid(4));
        assert_eq!(kept(&store), [0, 2, 4]);
        // A grid used again and again survives a stream of new ones.
        for ix in 5..40 {
            assert!(store.get(&key(0), 1).is_some(), "grid 0 before {ix}");
            store.insert(key(ix), 1, grid(ix));
            assert!(store.kept.len() <= 4);
        }
        assert!(kept(&store).contains(&0), "{:?}", kept(&store));
    }

    /// A grid is found only at the version it was made at; a newer one replaces it in
    /// place, evicting nothing.
    #[test]
    fn grids_answer_at_their_version_and_are_replaced_in_place() {
        let mut store = Grids::new(2);
        store.insert(key(0), 1, grid(0));
        store.insert(key(1), 1, grid(1));
        assert!(store.get(&key(0), 2).is_none());
        store.insert(key(0), 2, grid(0));
        assert_eq!(kept(&store), [0, 1]);
        assert!(store.get(&key(0), 1).is_none());
        assert_eq!(store.get(&key(0), 2).map(|g| g.heights[0]), Some(0.0));
        assert!(store.get(&key(1), 1).is_some());
    }
}
