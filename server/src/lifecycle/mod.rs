//! The chunk lifecycle (bake, simulate and cull, on the server; docs/src/reference/lifecycle.md): which
//! ground is live around the viewers game servers report, prepared before anyone
//! stands on it and released when nobody needs it.
//!
//! - [`rings`]: viewers and the sim / spawn / active tile rings around their views,
//!   with checked tile arithmetic (a view beyond the grid or the tile limit is
//!   refused before any range is iterated).
//! - [`tracker`]: one world's viewers, ring counts, generation queue, cull schedule
//!   and the transitions they produce (synchronous, under one lock).
//! - [`tasks`]: the async side: workers that build queued tiles into the mesh cache
//!   (nearest first), and a timer that culls tiles whose grace period ended, expires
//!   silent HTTP viewers and garbage-collects layout chunks. The server's
//!   [`Tasks`] owns them; they end on its token.
//! - [`bake`]: the start-up bake: layout around spawn points, warm meshes.
//! - [`budget`]: [`budget::LiveBudget`], the bound on live tiles across worlds that
//!   lets their meshes stay pinned in the cache.
//! - [`error`]: [`LifecycleError`], classed for the edge (429 for a full world, 409
//!   for a viewer another reporter owns, 413 for a view over the tile limit).
//! - [`WorldLifecycle`]: a tracker behind its lock, the step broadcast and the
//!   wake-ups of its tasks; [`Lifecycles`]: every world's.
//!
//! Transitions are broadcast per world in steps numbered by `sequence`; a step is
//! sent while the tracker's lock is held, so every listener sees steps in order.

pub mod bake;
pub mod budget;
pub mod error;
pub mod rings;
pub mod tasks;
pub mod tracker;

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, MutexGuard,
        atomic::{AtomicU64, Ordering},
    },
    time::Instant,
};

use tokio::sync::{Notify, broadcast};

pub use self::error::LifecycleError;
use self::{
    budget::LiveBudget,
    rings::Viewer,
    tracker::{Owner, Step, TileSets, Tracker, tile_sets_of},
};
use crate::{
    compute::Compute,
    config::{LifecycleConfig, Limits},
    mesh::MeshCache,
    metrics::Metrics,
    shutdown::Tasks,
    sync::locked,
    world::World,
    world::Worlds,
};

/// Steps a slow listener may fall behind before it gets a fresh snapshot instead.
const STEP_BUFFER: usize = 1024;

/// One world's lifecycle.
#[derive(Debug)]
pub struct WorldLifecycle {
    world: Arc<World>,
    meshes: Arc<MeshCache>,
    /// The live tiles every world may hold together, and one tile mesh's bytes here.
    budget: Arc<LiveBudget>,
    tile_bytes: u64,
    metrics: Arc<Metrics>,
    tracker: Mutex<Tracker>,
    steps: broadcast::Sender<Arc<Step>>,
    /// Wakes the workers when tiles are queued.
    work: Notify,
    /// Wakes the timer when a cull is scheduled before its deadline.
    timer: Notify,
    /// Passes of the timer loop.
    timer_wakes: AtomicU64,
    next_stream: AtomicU64,
    /// Builds layout chunks off the runtime.
    compute: Compute,
    /// How long a viewer may go without an update (HTTP) and a `TrackViewers` stream
    /// without a message.
    viewer_ttl: std::time::Duration,
}

/// A listener's feed of transition steps: the announced tiles as of `sequence`, then
/// every later step from `steps`. (Not to be confused with `world::follow`, which
/// follows a shared zone store.)
#[derive(Debug)]
pub struct StepFeed {
    pub sequence: u64,
    pub viewers: usize,
    pub announced: TileSets,
    pub steps: broadcast::Receiver<Arc<Step>>,
}

/// The union of the viewers' rings.
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    pub sequence: u64,
    pub viewers: usize,
    pub tiles: TileSets,
}

impl WorldLifecycle {
    pub fn new(
        world: Arc<World>,
        config: LifecycleConfig,
        max_coordinate: f64,
        meshes: Arc<MeshCache>,
        budget: Arc<LiveBudget>,
        metrics: Arc<Metrics>,
        compute: Compute,
    ) -> Self {
        let viewer_ttl = config.viewer_ttl;
        let tracker = Tracker::new(world.tile_grid(), config, max_coordinate);
        let tile_bytes = crate::mesh::tile_mesh_bytes(&world.tile_grid());
        WorldLifecycle {
            world,
            meshes,
            budget,
            tile_bytes,
            metrics,
            tracker: Mutex::new(tracker),
            steps: broadcast::channel(STEP_BUFFER).0,
            work: Notify::new(),
            timer: Notify::new(),
            timer_wakes: AtomicU64::new(0),
            next_stream: AtomicU64::new(1),
            compute,
            viewer_ttl,
        }
    }

    /// The world this lifecycle tracks.
    pub fn world(&self) -> &Arc<World> {
        &self.world
    }

    /// How long an HTTP viewer may go without an update, and a `TrackViewers` stream
    /// without a message, before it is dropped (`viewer_ttl`).
    pub fn viewer_ttl(&self) -> std::time::Duration {
        self.viewer_ttl
    }

    fn lock(&self) -> MutexGuard<'_, Tracker> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        locked(&self.tracker)
    }

    /// Adds or moves `viewer`; returns its ring sets.
    pub fn upsert(&self, viewer: Viewer, owner: Owner) -> Result<TileSets, LifecycleError> {
        let mut tracker = self.lock();
        let world = self.world.id();
        let admit = |tiles| {
            self.budget
                .admit(world, tiles, self.tile_bytes)
                .map_err(|over| LifecycleError::OverLiveBudget {
                    world: world.to_string(),
                    tiles: over.tiles,
                    fit: over.fit,
                    limit: over.limit,
                })
        };
        let (rects, step) = tracker.upsert(viewer, owner, Instant::now(), admit)?;
        self.after(&mut tracker, step);
        Ok(tile_sets_of(&rects))
    }

    /// Removes viewer `id`, or `NOT_FOUND`.
    pub fn remove(&self, id: &str, owner: Owner) -> Result<(), LifecycleError> {
        let mut tracker = self.lock();
        let step = tracker.remove(id, owner, Instant::now()).map_err(|_| {
            LifecycleError::UnknownViewer {
                world: self.world.id().to_string(),
                id: id.to_string(),
            }
        })?;
        self.after(&mut tracker, step);
        Ok(())
    }

    /// A new stream's owner tag.
    pub fn stream_owner(&self) -> Owner {
        Owner::Stream(self.next_stream.fetch_add(1, Ordering::Relaxed))
    }

    /// Removes every viewer `owner` reported (a stream ended).
    pub fn remove_owner(&self, owner: Owner) {
        let mut tracker = self.lock();
        let step = tracker.remove_owner(owner, Instant::now());
        self.after(&mut tracker, step);
    }

    /// The union of every viewer's rings.
    pub fn live(&self) -> Live {
        let tracker = self.lock();
        Live {
            sequence: tracker.sequence(),
            viewers: tracker.viewers(),
            tiles: tracker.live(),
        }
    }

    /// Every viewer with its ring rectangles (sim, spawn, active), by id, and the
    /// step sequence they are as of.
    pub fn viewers(&self) -> (u64, Vec<(rings::Viewer, [rings::TileRect; 3])>) {
        let tracker = self.lock();
        (tracker.sequence(), tracker.viewer_list())
    }

    /// The announced tiles and a receiver of every later step, taken atomically.
    pub fn subscribe(&self) -> StepFeed {
        let tracker = self.lock();
        StepFeed {
            sequence: tracker.sequence(),
            viewers: tracker.viewers(),
            announced: tracker.announced(),
            steps: self.steps.subscribe(),
        }
    }

    /// Publishes `step` (under the lock, so in order), wakes whoever has work, and
    /// brings the metrics up to date.
    fn after(&self, tracker: &mut Tracker, step: Option<Arc<Step>>) {
        if let Some(step) = step {
            // No listener is fine.
            let _ = self.steps.send(step);
        }
        if tracker.queued() > 0 {
            self.work.notify_waiters();
        }
        // Only a cull due before the timer's deadline wakes it: waking it for every
        // pending cull made it spin for the whole grace (a core at 100%, requests
        // starved behind it).
        if tracker.take_timer_wake() {
            self.timer.notify_one();
        }
        self.budget
            .set(self.world.id(), tracker.held(), self.tile_bytes);
        let counters = tracker.take_counters();
        self.metrics
            .lifecycle_counts(self.world.id(), 0, counters.dropped, counters.culled);
        self.metrics.lifecycle_state(
            self.world.id(),
            tracker.viewers(),
            tracker.live_counts(),
            tracker.queued(),
        );
    }
}

/// Every world's lifecycle.
#[derive(Debug)]
pub struct Lifecycles {
    by_id: HashMap<String, Arc<WorldLifecycle>>,
    /// The server's background tasks: these worlds' workers and timers, and the
    /// readers of open `TrackViewers` streams. Its token fires at shutdown: open
    /// streams end.
    tasks: Tasks,
}

impl Lifecycles {
    pub fn new(
        worlds: &Worlds,
        config: LifecycleConfig,
        limits: &Limits,
        meshes: &Arc<MeshCache>,
        metrics: &Arc<Metrics>,
        compute: &Compute,
        tasks: &Tasks,
    ) -> Self {
        // Live tiles' meshes are pinned: together they may take the cache's budget.
        let budget = Arc::new(LiveBudget::new(limits.mesh_cache_bytes as u64));
        let by_id = worlds
            .iter()
            .map(|w| {
                let lc = WorldLifecycle::new(
                    Arc::clone(w),
                    config,
                    w.max_coordinate(),
                    Arc::clone(meshes),
                    Arc::clone(&budget),
                    Arc::clone(metrics),
                    compute.clone(),
                );
                (w.id().to_string(), Arc::new(lc))
            })
            .collect();
        Lifecycles {
            by_id,
            tasks: tasks.clone(),
        }
    }

    /// The tasks that own stream readers; its token fires when the server shuts down.
    pub fn tasks(&self) -> &Tasks {
        &self.tasks
    }

    /// Every world's lifecycle, in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<WorldLifecycle>> {
        let mut all: Vec<_> = self.by_id.values().collect();
        all.sort_by(|a, b| a.world().id().cmp(b.world().id()));
        all.into_iter()
    }

    /// The lifecycle of world `id` (which the caller has resolved).
    pub fn get(&self, id: &str) -> Option<&Arc<WorldLifecycle>> {
        self.by_id.get(id)
    }

    /// Starts every world's workers and timer.
    pub fn spawn_tasks(&self, workers: usize) {
        for lc in self.iter() {
            lc.spawn_tasks(workers, &self.tasks);
        }
    }
}
