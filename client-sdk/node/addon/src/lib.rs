//! `terrain-node`: terrain-client's [`terrain_client::LocalTerrain`] for Node.js
//! (napi-rs). The heights are computed by the same Rust code the Rust SDK and the
//! server run, so they are the same bits; this crate only converts arguments.
//!
//! `LocalTerrain.open(url, world)` loads a world from a server and follows its events
//! on the addon's tokio runtime (napi's `tokio_rt`); `LocalTerrain.offline(world,
//! zones)` builds a fixed replica from JSON descriptions with no server. Reads
//! (`heightAt`, `surfaceHeightAt`, `heights`, `surfaceHeights`) are synchronous, from
//! the current snapshot, and so is movement (`terrainInfo`, `terrainInfos`, `checkPath`,
//! `findPath`): the Rust SDK's [`terrain_client::LocalWalk`] by the world's listed
//! walkability rule, the server's answers bit for bit.
//!
//! The snapshot the reads see (the *view*) moves on only on the JavaScript thread:
//! each snapshot the follower publishes is handed over through a threadsafe function,
//! whose callback takes it as the view and then calls the package's `onPublish` with
//! the view's epoch and the rectangles where its zones changed, in one step no
//! JavaScript code runs between. So JavaScript can keep what it read at one epoch
//! (`src/surface.ts` keeps tile surfaces, `src/tiles.ts` heights and walkability at
//! tile centres) and know, from what it is handed, the moment and the place that
//! stops being the replica's state.
//!
//! [`hyperscape`] is the native half of the `HyperscapeTerrain` adapter: the original
//! game's point answers, walk grids, and zone changes made in this process that the
//! view shows at once, before the server has them.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, RwLock, Weak},
};

use napi::{
    Env, Error, Result, Status,
    bindgen_prelude::*,
    threadsafe_function::{ThreadsafeCallContext, ThreadsafeFunction, ThreadsafeFunctionCallMode},
};
use napi_derive::napi;
use terrain_client::{
    ClientBuilder, ClientError, LocalWalk, PathMode, ReplicaEvent, Snapshot, SurfaceReader,
    check_point,
};
use terrain_core::walk::WalkRule;
use tokio::sync::{broadcast, watch};

mod events;
pub mod hyperscape;
mod offline;

/// The per-call reads as plain functions of the replica's `External` handle. A
/// `#[napi]` class method pays napi-rs's borrow tracking of `this` on every call (a
/// registry lookup and an allocation, most of a call's cost when the height itself
/// takes 100 ns); an `External` argument is one `napi_get_value_external`.
/// `src/native.ts` puts them behind the class's methods, so callers see no difference.
///
/// `surfaceHeightAt` is answered in JavaScript (`src/surface.ts`) from tile surfaces
/// these functions hand over: [`fast::replica_surface_layout`] gives the tile grid and the
/// view's epoch, [`fast::replica_surface_tile`] one tile's float32 vertex heights at the view, and
/// [`fast::replica_surface_evaluated`] answers a point on the spot (tiles not kept).
pub mod fast {
    use std::sync::Arc;

    use napi::{
        Result,
        bindgen_prelude::{External, Float32Array, Float64Array},
    };
    use napi_derive::napi;
    use terrain_core::mesh::SurfaceTile;

    use crate::{Replica, invalid, sdk_error};

    /// `LocalTerrain.heightAt` through the handle.
    #[napi(catch_unwind, ts_args_type = "handle: unknown, x: number, z: number")]
    pub fn replica_height_at(handle: &External<Arc<Replica>>, x: f64, z: f64) -> Result<f64> {
        handle.height_at(x, z)
    }

    /// The surface-mode height at `(x, z)` at the view, evaluated on the spot (no tile
    /// is computed or kept).
    #[napi(catch_unwind, ts_args_type = "handle: unknown, x: number, z: number")]
    pub fn replica_surface_evaluated(
        handle: &External<Arc<Replica>>,
        x: f64,
        z: f64,
    ) -> Result<f64> {
        handle
            .snapshot()?
            .surface_height_at(x, z)
            .map_err(sdk_error)
    }

    /// `[epoch, size, shift, step, n]`: the view's epoch and the tile grid surface
    /// reads use (tile `t` owns `floor(c / size + shift) = t`, its vertices are
    /// `step` apart, `n` per edge).
    #[napi(catch_unwind, ts_args_type = "handle: unknown")]
    pub fn replica_surface_layout(handle: &External<Arc<Replica>>) -> Result<Float64Array> {
        let (snapshot, epoch) = handle.view()?;
        let layout = snapshot.terrain().generator().tile_grid();
        let shift = if layout.centred { 0.5 } else { 0.0 };
        let n = layout.resolution.max(2);
        Ok(Float64Array::new(vec![
            epoch as f64,
            layout.size,
            shift,
            layout.step(),
            f64::from(n),
        ]))
    }

    /// Tile `(tx, tz)`'s float32 vertex heights at the view, row-major (`iz * n +
    /// ix`): the surface the server serves for that tile. Each is a float32 value
    /// already (core rounds the vertex heights to f32 and widens them back), so the
    /// `Float32Array` holds it exactly, in half the memory, and JavaScript reads back
    /// the very double core interpolates.
    #[napi(catch_unwind, ts_args_type = "handle: unknown, tx: number, tz: number")]
    pub fn replica_surface_tile(
        handle: &External<Arc<Replica>>,
        tx: f64,
        tz: f64,
    ) -> Result<Float32Array> {
        let index = |t: f64, name: &str| {
            if t.fract() == 0.0 && t.abs() <= f64::from(1u32 << 30) {
                Ok(t as i64)
            } else {
                Err(invalid(format!("{name}: expected a tile index, got {t}")))
            }
        };
        let key = (index(tx, "tx")?, index(tz, "tz")?);
        let snapshot = handle.snapshot()?;
        let tile = SurfaceTile::new(snapshot.terrain(), key);
        let heights: Vec<f32> = tile.heights().iter().map(|&h| h as f32).collect();
        Ok(Float32Array::new(heights))
    }
}

/// `surfaceHeightAt` reads of one tile, at one snapshot, after which the tile's whole
/// surface is computed and kept: reads of a tile an entity stands on then cost a cell
/// lookup. Computing a tile's surface costs about ten reads evaluated on the spot
/// (2-8 us against 0.6 us, measured from Node), so a tile read once or twice is not
/// computed, and one read often pays for itself within a few reads.
const SURFACE_TILE_READS: u32 = 16;

/// Surface tiles `surfaceHeightAt` keeps (about 32 KiB each), so a replica read all
/// over the world stays bounded (32 MiB). A full cache computes no more tiles: reads of
/// other tiles are evaluated on the spot ...
const SURFACE_TILES_KEPT: usize = 1024;

/// ... until this many of them, when the kept tiles are evidently no longer where the
/// reads are (the entities moved on) and the cache starts afresh. Reads spread over
/// more tiles than are kept then rebuild it every few passes instead of every pass.
const SURFACE_FULL_MISSES: u32 = 16 * 1024;

/// The surface tiles `surfaceHeightAt` has computed, at one snapshot.
#[derive(Debug)]
struct SurfaceCache {
    reader: SurfaceReader,
    /// Reads per tile not yet computed (forgotten past 16 entries per kept tile).
    reads: HashMap<(i64, i64), u32>,
    /// Reads evaluated on the spot because the cache was full.
    full_misses: u32,
}

impl SurfaceCache {
    fn new(snapshot: Arc<Snapshot>) -> Self {
        SurfaceCache {
            reader: SurfaceReader::new(snapshot),
            reads: HashMap::new(),
            full_misses: 0,
        }
    }

    /// The surface-mode height at `(x, z)`: the same bits whether read from a kept
    /// tile or evaluated on the spot; a point the server would refuse is refused.
    fn height_at(&mut self, x: f64, z: f64) -> std::result::Result<f64, ClientError> {
        check_point(x, z)?;
        if let Some(h) = self.reader.cached_height_at(x, z) {
            return Ok(h);
        }
        let snapshot = Arc::clone(self.reader.snapshot());
        let layout = snapshot.terrain().generator().tile_grid();
        if self.reads.len() >= 16 * SURFACE_TILES_KEPT {
            self.reads.clear();
        }
        let reads = self
            .reads
            .entry((layout.tile_of(x), layout.tile_of(z)))
            .or_default();
        *reads += 1;
        if *reads < SURFACE_TILE_READS {
            return snapshot.surface_height_at(x, z);
        }
        if self.reader.cached_tiles() >= SURFACE_TILES_KEPT {
            self.full_misses += 1;
            if self.full_misses < SURFACE_FULL_MISSES {
                return snapshot.surface_height_at(x, z);
            }
            *self = SurfaceCache::new(snapshot);
        }
        self.reader.height_at(x, z)
    }
}

/// What the JS object reads from: a following replica, or a fixed snapshot and the
/// rule its world description gave (if any).
#[derive(Clone)]
enum Source {
    Live(Arc<terrain_client::LocalTerrain>),
    Offline(Option<WalkRule>),
}

impl Source {
    fn walk_rule(&self) -> Result<&WalkRule> {
        match self {
            Source::Live(r) => r.walk_rule().map_err(js_error),
            Source::Offline(rule) => rule.as_ref().ok_or_else(|| {
                invalid("world: the description has no `walkability` (GET /v1/worlds lists it)")
            }),
        }
    }
}

/// An open replica: where it reads from and the snapshot the reads see.
struct Open {
    source: Source,
    /// The server's state the view is built on: a live replica's is the follower's
    /// latest as of the last hand-over on the JavaScript thread ([`Replica::publish`]).
    base: Arc<Snapshot>,
    /// The snapshot every read answers at: `base` with the zone changes made in this
    /// process and not yet in `base` on top ([`hyperscape::Overlay`]; none: `base`
    /// itself).
    view: Arc<Snapshot>,
    /// Bumped each time `view` changes: what JavaScript keeps, it keeps by epoch.
    epoch: u64,
    /// Zone changes made in this process, applied over `base` until the server's
    /// revision that holds them reaches it; the towns of the difficulty rule.
    overlay: hyperscape::Overlay,
}

impl Open {
    /// Takes `base` as the server's state: drops the local changes it now holds and
    /// builds the view again (see [`Open::rebuild`]).
    fn rebase(&mut self, base: Arc<Snapshot>) -> Vec<f64> {
        self.base = base;
        self.rebuild()
    }

    /// Builds the view from `base` and the pending local changes; when it differs
    /// from the one before, bumps the epoch. Answers `[epoch, n, minX, minZ, maxX,
    /// maxZ, ...]`: the view's epoch and the `n` rectangles where the zones changed
    /// (a zone's outer bounds, old and new), so a reader's cache can drop what lies
    /// there and keep the rest.
    fn rebuild(&mut self) -> Vec<f64> {
        self.overlay.prune(&self.base);
        let view = self.overlay.apply(&self.base);
        let mut out = vec![0.0, 0.0];
        if !Arc::ptr_eq(&view, &self.view) {
            hyperscape::changed_bounds(self.view.terrain(), view.terrain(), &mut out);
            self.view = view;
            self.epoch += 1;
        }
        out[0] = self.epoch as f64;
        out[1] = ((out.len() - 2) / 4) as f64;
        out
    }
}

/// One point of terrain info, as the server's `terrain-info` answers it.
#[napi(object, use_nullable = true)]
#[derive(Debug)]
pub struct TerrainInfo {
    /// The final height (zones included), metres.
    pub height: f64,
    /// The biome the rule used; `null` where the world has none.
    pub biome: Option<String>,
    /// The 8-direction slope at 1 m (rise over run).
    pub slope: f64,
    pub underwater: bool,
    pub walkable: bool,
    /// `null` when walkable, else `water`, `slope` or `zone`.
    pub reason: Option<String>,
}

/// A path check's answer.
#[napi(object, use_nullable = true)]
pub struct PathCheck {
    pub blocked: bool,
    /// The first blocked point `[x, z]`, `null` when not blocked.
    pub at: Option<Vec<f64>>,
    /// Why `at` is blocked (`water`, `slope`, `zone`, `step`), `null` when not.
    pub reason: Option<String>,
    /// `[x0, z0, x1, z1, ...]`: hyperscape mode the samples when not blocked (empty when
    /// blocked), exact mode the centres of the tiles crossed up to the blocked one.
    pub path: Float64Array,
}

impl std::fmt::Debug for PathCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PathCheck")
            .field("blocked", &self.blocked)
            .field("at", &self.at)
            .field("reason", &self.reason)
            .field("path", &&self.path[..])
            .finish()
    }
}

/// Options of `findPath`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct FindOptions {
    /// Most tiles to expand (default 100,000; 1 to 1,000,000).
    pub max_nodes: Option<f64>,
    /// Longest straight distance between the ends, metres (default 1,000; at most 5,000).
    pub max_distance: Option<f64>,
}

/// A path search's answer.
#[napi(object, use_nullable = true)]
pub struct FoundPath {
    pub found: bool,
    /// `[x0, z0, x1, z1, ...]`: `from`, the corners, `to`; empty when not found.
    pub waypoints: Float64Array,
    /// The waypoint polyline's length, metres (0 when not found).
    pub length: f64,
    /// Tiles taken off the open set.
    pub expanded: f64,
    /// When not found: `start_blocked`, `goal_blocked`, `no_path` or `node_budget`.
    pub reason: Option<String>,
}

impl std::fmt::Debug for FoundPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FoundPath")
            .field("found", &self.found)
            .field("waypoints", &&self.waypoints[..])
            .field("length", &self.length)
            .field("expanded", &self.expanded)
            .field("reason", &self.reason)
            .finish()
    }
}

fn info_object(p: terrain_client::PointInfo) -> TerrainInfo {
    TerrainInfo {
        height: p.height,
        walkable: p.walkable(),
        biome: p.biome,
        slope: p.slope,
        underwater: p.underwater,
        reason: p.reason.map(|r| r.code().to_string()),
    }
}

fn flat(points: &[(f64, f64)]) -> Float64Array {
    Float64Array::new(points.iter().flat_map(|&(x, z)| [x, z]).collect())
}

/// `unreachable` code of the SDK's answer, as the server spells it.
fn unreachable_code(u: terrain_client::Unreachable) -> &'static str {
    match u {
        terrain_client::Unreachable::StartBlocked => "start_blocked",
        terrain_client::Unreachable::GoalBlocked => "goal_blocked",
        terrain_client::Unreachable::NoPath => "no_path",
        terrain_client::Unreachable::NodeBudget => "node_budget",
    }
}

/// Options of `LocalTerrain.open`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct OpenOptions {
    /// PEM file of the CA that signed the server's certificate (`https://` URLs).
    pub ca_file: Option<String>,
    /// Connect timeout in milliseconds (default: the Rust SDK's, 5 s): a whole number
    /// from 1 to [`MAX_TIMEOUT_MS`].
    pub connect_timeout_ms: Option<f64>,
}

/// The longest timeout an option may give: one hour, in milliseconds.
pub const MAX_TIMEOUT_MS: f64 = 3_600_000.0;

/// How long `waitForRevision` waits when not told: 30 s, the SDK's request timeout.
const DEFAULT_WAIT_MS: f64 = 30_000.0;

/// A timeout option in milliseconds, checked: a whole number from 1 to
/// [`MAX_TIMEOUT_MS`], else an error naming `field`.
fn timeout_ms(field: &str, ms: f64) -> Result<std::time::Duration> {
    if ms.fract() == 0.0 && (1.0..=MAX_TIMEOUT_MS).contains(&ms) {
        Ok(std::time::Duration::from_millis(ms as u64))
    } else {
        Err(invalid(format!(
            "{field}: must be a whole number of milliseconds from 1 to {MAX_TIMEOUT_MS}, got {ms}"
        )))
    }
}

/// What the follower applied, handed to `nextEvent` once the view shows it.
#[derive(Debug, Clone)]
pub enum Applied {
    Event(ReplicaEvent),
    /// The forwarding task fell behind the follower by this many events.
    Missed(u64),
}

/// The state a `LocalTerrain` shares with the per-call functions of [`fast`]: the
/// source and view (gone once closed), and `surfaceHeights`' tiles.
pub struct Replica {
    open: RwLock<Option<Open>>,
    /// The view's revision, sent on each change of the view: `waitForRevision` waits
    /// on it.
    published: watch::Sender<u64>,
    /// What the follower applied, sent once the view shows it: `nextEvent` reads it.
    applied: broadcast::Sender<Applied>,
    /// `surfaceHeights`' tiles, replaced when the view moves on.
    surface: Mutex<Option<SurfaceCache>>,
}

impl std::fmt::Debug for Replica {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replica")
            .field("closed", &self.source().is_err())
            .finish_non_exhaustive()
    }
}

impl Replica {
    fn new(source: Source, view: Arc<Snapshot>) -> Self {
        Replica {
            published: watch::channel(view.revision()).0,
            applied: broadcast::channel(terrain_client::REPLICA_EVENTS).0,
            open: RwLock::new(Some(Open {
                source,
                base: Arc::clone(&view),
                view,
                epoch: 0,
                overlay: hyperscape::Overlay::default(),
            })),
            surface: Mutex::new(None),
        }
    }

    fn read<T>(&self, f: impl FnOnce(&Open) -> T) -> Result<T> {
        let open = self.open.read().unwrap_or_else(|e| e.into_inner());
        Ok(f(open.as_ref().ok_or_else(closed_error)?))
    }

    fn source(&self) -> Result<Source> {
        self.read(|o| o.source.clone())
    }

    /// The snapshot reads answer at.
    fn snapshot(&self) -> Result<Arc<Snapshot>> {
        self.read(|o| Arc::clone(&o.view))
    }

    /// The view and its epoch.
    fn view(&self) -> Result<(Arc<Snapshot>, u64)> {
        self.read(|o| (Arc::clone(&o.view), o.epoch))
    }

    /// Takes the follower's latest snapshot as the base of the view (on the
    /// JavaScript thread, from the hand-over's callback); answers the view's epoch and
    /// the rectangles where its zones changed ([`Open::rebuild`]; `[0, 0]` once
    /// closed).
    fn publish(&self) -> Vec<f64> {
        let mut open = self.open.write().unwrap_or_else(|e| e.into_inner());
        let Some(open) = open.as_mut() else {
            return vec![0.0, 0.0];
        };
        if let Source::Live(r) = &open.source {
            let latest = r.snapshot();
            if !Arc::ptr_eq(&latest, &open.base) {
                let changed = open.rebase(latest);
                self.published.send_replace(open.base.revision());
                return changed;
            }
        }
        vec![open.epoch as f64, 0.0]
    }

    /// `f` over the open state, for a change of the view made on the JavaScript
    /// thread (the adapter's zone changes).
    fn change<T>(&self, f: impl FnOnce(&mut Open) -> Result<T>) -> Result<T> {
        let mut open = self.open.write().unwrap_or_else(|e| e.into_inner());
        f(open.as_mut().ok_or_else(closed_error)?)
    }

    fn height_at(&self, x: f64, z: f64) -> Result<f64> {
        self.read(|o| o.view.height_at(x, z))?.map_err(sdk_error)
    }

    fn surface_height_at(&self, x: f64, z: f64) -> Result<f64> {
        self.with_surface(|cache| cache.height_at(x, z))?
            .map_err(sdk_error)
    }

    /// The surface heights of `points`, all at one snapshot.
    fn surface_heights(&self, points: std::slice::ChunksExact<'_, f64>) -> Result<Vec<f64>> {
        self.with_surface(|cache| {
            points
                .enumerate()
                .map(|(i, p)| cache.height_at(p[0], p[1]).map_err(|e| point_error(i, e)))
                .collect()
        })?
    }

    /// `f` over the surface cache of the view (a new one when the view moved on).
    fn with_surface<T>(&self, f: impl FnOnce(&mut SurfaceCache) -> T) -> Result<T> {
        let snapshot = self.snapshot()?;
        let mut cache = self.surface.lock().unwrap_or_else(|e| e.into_inner());
        let cache = match cache.as_mut() {
            Some(c) if Arc::ptr_eq(c.reader.snapshot(), &snapshot) => c,
            _ => cache.insert(SurfaceCache::new(snapshot)),
        };
        Ok(f(cache))
    }

    fn close(&self) {
        *self.open.write().unwrap_or_else(|e| e.into_inner()) = None;
        *self.surface.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// One hand-over to the JavaScript thread: take the follower's latest snapshot as the
/// view, then pass on what it applied.
struct Handoff {
    replica: Arc<Replica>,
    applied: Applied,
}

impl Handoff {
    /// On the JavaScript thread: the view's epoch after the hand-over and where its
    /// zones changed ([`Replica::publish`]), for `onPublish`.
    fn run(self) -> Float64Array {
        let changed = self.replica.publish();
        // No receiver is not an error: nobody reads events.
        let _ = self.replica.applied.send(self.applied);
        Float64Array::new(changed)
    }
}

/// The threadsafe function of `onPublish`: weak, so a replica never keeps Node's event
/// loop alive by itself.
type Publisher = ThreadsafeFunction<Handoff, (), Float64Array, Status, false, true>;

/// Hands every snapshot the follower publishes to the JavaScript thread, until the
/// replica is closed or gone.
async fn forward(
    mut feed: broadcast::Receiver<ReplicaEvent>,
    replica: Weak<Replica>,
    mut closed: watch::Receiver<bool>,
    publisher: Publisher,
) {
    loop {
        let applied = tokio::select! {
            event = feed.recv() => match event {
                Ok(e) => Applied::Event(e),
                Err(broadcast::error::RecvError::Lagged(missed)) => Applied::Missed(missed),
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = closed.wait_for(|c| *c) => return,
        };
        let Some(replica) = replica.upgrade() else {
            return;
        };
        let status = publisher.call(
            Handoff { replica, applied },
            ThreadsafeFunctionCallMode::NonBlocking,
        );
        if status != Status::Ok {
            // The environment is going away.
            return;
        }
    }
}

/// A local replica of one world: heights bit for bit what the server answers at
/// [`LocalTerrain::revision`].
#[napi]
pub struct LocalTerrain {
    shared: Arc<Replica>,
    world: String,
    /// Set on close: pending `waitForRevision` and `nextEvent` promises settle.
    closed: watch::Sender<bool>,
    /// What the follower applied, from the opening, each once the view shows it
    /// (none for offline replicas).
    events: Option<events::Receiver>,
}

impl std::fmt::Debug for LocalTerrain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalTerrain")
            .field("world", &self.world)
            .field("closed", &self.shared.source().is_err())
            .finish()
    }
}

/// The largest whole number a JavaScript number holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

fn js_error(e: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, e.to_string())
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, message.into())
}

fn closed_error() -> Error {
    Error::new(Status::GenericFailure, "LocalTerrain is closed")
}

/// The points of a flat `[x0, z0, x1, z1, ...]` array, or why not.
fn pairs(points: &[f64]) -> Result<std::slice::ChunksExact<'_, f64>> {
    if !points.len().is_multiple_of(2) {
        return Err(invalid(format!(
            "points: expected x, z pairs (an even length), got {} numbers",
            points.len()
        )));
    }
    Ok(points.chunks_exact(2))
}

/// The error of point `i` of a flat `[x0, z0, ...]` array, its field the number's
/// index there (`points[3]: must be finite`).
fn point_error(i: usize, e: ClientError) -> Error {
    match e {
        ClientError::InvalidArgument { field, message } => {
            let at = 2 * i + usize::from(field == "z");
            invalid(format!("points[{at}]: {message}"))
        }
        other => sdk_error(other),
    }
}

/// An SDK error as a JS error; an invalid argument names its field as JS spells it.
fn sdk_error(e: terrain_client::ClientError) -> Error {
    match e {
        terrain_client::ClientError::InvalidArgument { field, message } => {
            let field = match field.as_str() {
                "max_nodes" => "maxNodes".to_string(),
                "max_distance" => "maxDistance".to_string(),
                _ => match field.strip_prefix("coordinates") {
                    // The flat array's index, as the server's `coordinates[k]`.
                    Some(rest) => format!("points{rest}"),
                    None => field,
                },
            };
            invalid(format!("{field}: {message}"))
        }
        other => js_error(other),
    }
}

impl LocalTerrain {
    fn infos(&self, points: &[(f64, f64)]) -> Result<Vec<TerrainInfo>> {
        let (source, snapshot) = self.reading()?;
        let infos = LocalWalk::new(&snapshot, source.walk_rule()?)
            .terrain_info(points)
            .map_err(sdk_error)?;
        Ok(infos.points.into_iter().map(info_object).collect())
    }

    fn new(source: Source, view: Arc<Snapshot>, world: String) -> Self {
        let live = matches!(source, Source::Live(_));
        let shared = Arc::new(Replica::new(source, view));
        let events = live.then(|| Arc::new(tokio::sync::Mutex::new(shared.applied.subscribe())));
        LocalTerrain {
            events,
            shared,
            world,
            closed: watch::channel(false).0,
        }
    }

    /// The source and the view, at once.
    fn reading(&self) -> Result<(Source, Arc<Snapshot>)> {
        self.shared
            .read(|o| (o.source.clone(), Arc::clone(&o.view)))
    }

    fn snapshot(&self) -> Result<Arc<Snapshot>> {
        self.shared.snapshot()
    }
}

#[napi]
impl LocalTerrain {
    /// Connects to `url`, loads world `world` (config and zones at one revision) and
    /// follows its events from that revision. Each snapshot the follower publishes
    /// becomes the view on the JavaScript thread, and `onPublish` is then called with
    /// `[epoch, n, rectangles...]` (the view's epoch and where its zones changed;
    /// `src/native.ts` passes it; see the module docs).
    ///
    /// Writable: `src/native.ts` puts the package's `open` (which passes `onPublish`)
    /// in its place.
    #[napi(
        writable,
        ts_args_type = "url: string, world: string, options: OpenOptions | null | undefined, onPublish: (changed: Float64Array) => void",
        ts_return_type = "Promise<LocalTerrain>"
    )]
    pub fn open<'env>(
        env: &'env Env,
        url: String,
        world: String,
        options: Option<OpenOptions>,
        on_publish: Function<'env, Float64Array, ()>,
    ) -> Result<PromiseRaw<'env, LocalTerrain>> {
        let publisher: Publisher = on_publish
            .build_threadsafe_function::<Handoff>()
            .weak::<true>()
            .build_callback(|ctx: ThreadsafeCallContext<Handoff>| Ok(ctx.value.run()))?;
        let options = options.unwrap_or_default();
        let connect_timeout = options
            .connect_timeout_ms
            .map(|ms| timeout_ms("connectTimeoutMs", ms))
            .transpose()?;
        env.spawn_future(async move {
            let mut builder = ClientBuilder::new(url);
            if let Some(ca) = options.ca_file {
                builder = builder.ca_file(ca);
            }
            if let Some(t) = connect_timeout {
                builder = builder.connect_timeout(t);
            }
            let client = builder.connect().await.map_err(js_error)?;
            let replica = terrain_client::LocalTerrain::open(client, &world)
                .await
                .map_err(js_error)?;
            let replica = Arc::new(replica);
            // Subscribed before the first view is taken: no later snapshot is missed.
            let feed = replica.events();
            let view = replica.snapshot();
            let terrain = LocalTerrain::new(Source::Live(replica), view, world);
            tokio::spawn(forward(
                feed,
                Arc::downgrade(&terrain.shared),
                terrain.closed.subscribe(),
                publisher,
            ));
            Ok(terrain)
        })
    }

    /// A fixed replica with no server: `world` is one world of `GET /v1/worlds` (JSON),
    /// `zones` the answer of `GET /v1/worlds/{world}/flat-zones` (`{"zones": [...],
    /// "revision": n}`) or just its array of zones (each with an absolute `height`).
    #[napi(catch_unwind)]
    pub fn offline(world: String, zones: String) -> Result<LocalTerrain> {
        let info = offline::world_info(&world).map_err(|e| invalid(format!("world: {e}")))?;
        let list = offline::zone_list(&zones).map_err(|e| invalid(format!("zones: {e}")))?;
        let terrain = terrain_client::build_terrain(&info, &list).map_err(js_error)?;
        let snapshot = Snapshot::from_terrain(terrain, list.revision);
        Ok(LocalTerrain::new(
            Source::Offline(info.walkability),
            Arc::new(snapshot),
            info.id,
        ))
    }

    /// The world's id.
    #[napi(getter, catch_unwind)]
    pub fn world(&self) -> String {
        self.world.clone()
    }

    /// Whether the replica follows a server (false for `offline` ones).
    #[napi(getter, catch_unwind)]
    pub fn live(&self) -> bool {
        matches!(self.shared.source(), Ok(Source::Live(_)))
    }

    /// The world revision the replica reflects.
    #[napi(getter, catch_unwind)]
    pub fn revision(&self) -> Result<i64> {
        let r = self.snapshot()?.revision();
        i64::try_from(r).map_err(js_error)
    }

    /// The exact height at `(x, z)` (`GetHeight`'s exact mode).
    #[napi(catch_unwind)]
    pub fn height_at(&self, x: f64, z: f64) -> Result<f64> {
        self.shared.height_at(x, z)
    }

    /// The surface-mode height at `(x, z)`: the served mesh's triangle under the point.
    ///
    /// A tile read `SURFACE_TILE_READS` times at one snapshot has its surface
    /// computed and kept, so reads where entities stand are a cell lookup; at most
    /// `SURFACE_TILES_KEPT` tiles are kept. (The package's `surfaceHeightAt` answers
    /// in JavaScript instead, from tiles of [`fast::replica_surface_tile`].)
    #[napi(catch_unwind)]
    pub fn surface_height_at(&self, x: f64, z: f64) -> Result<f64> {
        self.shared.surface_height_at(x, z)
    }

    /// The replica as an `External` for the per-call functions of [`fast`], which
    /// `src/native.ts` routes `heightAt` and `surfaceHeightAt` through.
    #[napi(getter, catch_unwind, ts_type = "unknown")]
    pub fn handle(&self) -> External<Arc<Replica>> {
        External::new(Arc::clone(&self.shared))
    }

    /// Exact heights of `points` (`[x0, z0, x1, z1, ...]`, read in place), all at one
    /// snapshot.
    #[napi(catch_unwind)]
    pub fn heights(&self, points: &[f64]) -> Result<Float64Array> {
        let snapshot = self.snapshot()?;
        let out = pairs(points)?
            .enumerate()
            .map(|(i, p)| {
                snapshot
                    .height_at(p[0], p[1])
                    .map_err(|e| point_error(i, e))
            })
            .collect::<Result<Vec<f64>>>()?;
        Ok(Float64Array::new(out))
    }

    /// Surface-mode heights of `points` (as [`Self::heights`]), through the same kept
    /// tiles as [`Self::surface_height_at`]: the same bits (the served mesh's) either way.
    #[napi(catch_unwind)]
    pub fn surface_heights(&self, points: &[f64]) -> Result<Float64Array> {
        Ok(Float64Array::new(
            self.shared.surface_heights(pairs(points)?)?,
        ))
    }

    /// The revision of the zone deciding the height at `(x, z)`, with its id: `null`
    /// where the terrain decided.
    #[napi(catch_unwind)]
    pub fn zone_at(&self, x: f64, z: f64) -> Result<Option<String>> {
        check_point(x, z).map_err(sdk_error)?;
        let snapshot = self.snapshot()?;
        Ok(snapshot
            .terrain()
            .sample(x, z)
            .zone
            .map(|(z, _)| z.id.clone()))
    }

    /// Terrain info at `(x, z)` by the world's walkability rule: what the server's
    /// `terrain-info` answers at [`Self::revision`].
    #[napi(catch_unwind)]
    pub fn terrain_info(&self, x: f64, z: f64) -> Result<TerrainInfo> {
        check_point(x, z).map_err(sdk_error)?;
        let mut infos = self.infos(&[(x, z)])?;
        infos.pop().ok_or_else(|| js_error("no answer"))
    }

    /// Terrain info at `points` (`[x0, z0, x1, z1, ...]`), all at one snapshot.
    #[napi(catch_unwind)]
    pub fn terrain_infos(&self, points: &[f64]) -> Result<Vec<TerrainInfo>> {
        let points: Vec<(f64, f64)> = pairs(points)?.map(|p| (p[0], p[1])).collect();
        self.infos(&points)
    }

    /// The path check of the polyline `points` (`[x0, z0, ...]`) in `mode`
    /// (`"hyperscape"` or `"exact"`, the default).
    #[napi(
        catch_unwind,
        ts_args_type = "points: Float64Array, mode?: \"hyperscape\" | \"exact\" | null"
    )]
    pub fn check_path(&self, points: &[f64], mode: Option<String>) -> Result<PathCheck> {
        let mode = match mode.as_deref() {
            None | Some("exact") => PathMode::Exact,
            Some("hyperscape") => PathMode::Hyperscape,
            Some(other) => {
                return Err(invalid(format!(
                    "mode: unknown mode {other:?}; expected \"hyperscape\" or \"exact\""
                )));
            }
        };
        let points: Vec<(f64, f64)> = pairs(points)?.map(|p| (p[0], p[1])).collect();
        let (source, snapshot) = self.reading()?;
        let check = LocalWalk::new(&snapshot, source.walk_rule()?)
            .check_path(&points, mode)
            .map_err(sdk_error)?;
        Ok(PathCheck {
            blocked: check.blocked.is_some(),
            at: check.blocked.map(|((x, z), _)| vec![x, z]),
            reason: check.blocked.map(|(_, r)| r.code().to_string()),
            path: flat(&check.path),
        })
    }

    /// A shortest path over the 1 m movement tiles from `(fromX, fromZ)` to `(toX, toZ)`.
    #[napi(catch_unwind)]
    pub fn find_path(
        &self,
        from_x: f64,
        from_z: f64,
        to_x: f64,
        to_z: f64,
        options: Option<FindOptions>,
    ) -> Result<FoundPath> {
        let options = options.unwrap_or_default();
        let max_nodes = match options.max_nodes {
            None => None,
            Some(n) if n.fract() == 0.0 && n >= 0.0 && n <= u64::MAX as f64 => Some(n as u64),
            Some(n) => {
                return Err(invalid(format!(
                    "maxNodes: must be a whole number, got {n}"
                )));
            }
        };
        let (source, snapshot) = self.reading()?;
        let found = LocalWalk::new(&snapshot, source.walk_rule()?)
            .find_path(
                (from_x, from_z),
                (to_x, to_z),
                max_nodes,
                options.max_distance,
            )
            .map_err(sdk_error)?;
        Ok(match found.found {
            Ok(waypoints) => FoundPath {
                found: true,
                waypoints: flat(&waypoints),
                length: found.length,
                expanded: found.expanded as f64,
                reason: None,
            },
            Err(why) => FoundPath {
                found: false,
                waypoints: Float64Array::new(Vec::new()),
                length: found.length,
                expanded: found.expanded as f64,
                reason: Some(unreachable_code(why).to_string()),
            },
        })
    }

    /// Resolves once the replica reflects `revision` or later, with the revision
    /// reached; rejects if the replica stopped following (the error says why), was
    /// closed, or has not reached it within `timeoutMs` (default 30 s; the error
    /// gives the revision it is at). An offline replica resolves at once when it is at
    /// `revision`.
    #[napi(
        catch_unwind,
        ts_args_type = "revision: number, timeoutMs?: number | null",
        ts_return_type = "Promise<number>"
    )]
    pub fn wait_for_revision<'env>(
        &self,
        env: &'env Env,
        revision: f64,
        timeout: Option<f64>,
    ) -> Result<PromiseRaw<'env, i64>> {
        if !(revision.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&revision)) {
            return Err(invalid(format!(
                "revision: must be a whole number from 0 to 2^53 - 1, got {revision}"
            )));
        }
        let wanted = revision as u64;
        let timeout = timeout_ms("timeoutMs", timeout.unwrap_or(DEFAULT_WAIT_MS))?;
        let (source, view) = self.reading()?;
        let replica = match source {
            Source::Live(r) => r,
            Source::Offline(_) => {
                let at = view.revision();
                return env.spawn_future(async move {
                    if at >= wanted {
                        i64::try_from(at).map_err(js_error)
                    } else {
                        Err(invalid(format!(
                            "revision {wanted}: an offline replica stays at {at}"
                        )))
                    }
                });
            }
        };
        let mut closed = self.closed.subscribe();
        let mut published = self.shared.published.subscribe();
        let progress = self.shared.published.subscribe();
        env.spawn_future(async move {
            // The follower reaching `wanted`, then the view (which takes the
            // follower's snapshots on the JavaScript thread) reaching it too.
            let reached = async {
                replica.wait_for_revision(wanted).await.map_err(js_error)?;
                let at = published
                    .wait_for(|r| *r >= wanted)
                    .await
                    .map_err(|_| closed_error())?;
                i64::try_from(*at).map_err(js_error)
            };
            tokio::select! {
                r = reached => r,
                _ = closed.wait_for(|c| *c) => Err(closed_error()),
                _ = tokio::time::sleep(timeout) => Err(Error::new(
                    Status::Cancelled,
                    format!(
                        "revision {wanted}: not reached within {} ms (the replica is at {}; \
                         is the server reachable?)",
                        timeout.as_millis(),
                        *progress.borrow()
                    ),
                )),
            }
        })
    }

    /// The next event of the replica, once the snapshot it describes is the one the
    /// reads see (the view took it on the JavaScript thread before the event was
    /// passed on: re-snap what stands inside its `bounds`); events come in revision
    /// order, each once, from the replica's opening. Resolves `null` for an offline
    /// replica or once closed; rejects with the reason once the replica stopped
    /// following for good (a server that came back with another history is not
    /// that: the replica rebuilds and says `rebuilt`).
    #[napi(ts_return_type = "Promise<LocalEvent | null>")]
    pub fn next_event<'env>(
        &self,
        env: &'env Env,
    ) -> Result<PromiseRaw<'env, Option<events::LocalEvent>>> {
        let Some(receiver) = self.events.clone() else {
            return env.spawn_future(async { Ok(None) });
        };
        if self.shared.source().is_err() {
            return env.spawn_future(async { Ok(None) });
        }
        let shared = Arc::clone(&self.shared);
        let mut closed = self.closed.subscribe();
        let stopped = |reason: &dyn std::fmt::Display| {
            js_error(format!("the replica stopped following: {reason}"))
        };
        env.spawn_future(async move {
            let mut receiver = receiver.lock().await;
            // Stopped before this call (its event already taken): say so, never hang.
            if receiver.is_empty()
                && let Ok(Source::Live(replica)) = shared.source()
                && let Some(e) = replica.stopped()
            {
                return Err(stopped(&e));
            }
            tokio::select! {
                event = receiver.recv() => Ok(match event {
                    Ok(Applied::Event(ReplicaEvent::Stopped { reason })) => {
                        return Err(stopped(&reason));
                    }
                    Ok(Applied::Event(e)) => Some(events::LocalEvent::of(e)),
                    Ok(Applied::Missed(missed))
                    | Err(broadcast::error::RecvError::Lagged(missed)) => {
                        let at = shared.snapshot()?.revision();
                        Some(events::LocalEvent::lagged(at, missed))
                    }
                    Err(broadcast::error::RecvError::Closed) => None,
                }),
                _ = closed.wait_for(|c| *c) => Ok(None),
            }
        })
    }

    /// Stops following and releases the replica; later calls throw. Idempotent.
    #[napi(catch_unwind)]
    pub fn close(&mut self) {
        self.shared.close();
        self.closed.send_replace(true);
    }
}
