//! The chunk lifecycle (seed 004's bake, simulate and cull, on the server): which
//! ground is live around the viewers game servers report, prepared before anyone
//! stands on it and released when nobody needs it.
//!
//! - [`rings`]: viewers and the sim / spawn / active tile rings around their views.
//! - [`tracker`]: one world's viewers, ring counts, generation queue, cull schedule
//!   and the transitions they produce (synchronous, under one lock).
//! - [`bake`]: the start-up bake: layout around spawn points, warm meshes.
//! - [`WorldLifecycle`]: a tracker with its tasks: workers that build queued tiles
//!   into the mesh cache (nearest first), and a timer that culls tiles whose grace
//!   period ended, expires silent HTTP viewers and garbage-collects layout chunks.
//!
//! Transitions are broadcast per world in steps numbered by `sequence`; a step is
//! sent while the tracker's lock is held, so every listener sees steps in order.

pub mod bake;
pub mod rings;
pub mod tracker;

use std::{
    collections::{BTreeSet, HashMap},
    pin::pin,
    sync::{
        Arc, Mutex, MutexGuard,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use terrain_core::{layout::Area, tile::tile_index};
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

use self::{
    rings::{Tile, Viewer},
    tracker::{Owner, Step, TileSets, Tracker},
};
use crate::{
    compute::Compute, config::LifecycleConfig, error::ApiError, mesh::MeshCache, metrics::Metrics,
    world::World, world::Worlds,
};

/// Steps a slow listener may fall behind before it gets a fresh snapshot instead.
const STEP_BUFFER: usize = 1024;
/// How often the timer wakes with nothing scheduled (viewer expiry, layout GC).
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);
/// The most chunks the layout is prepared ahead of a viewer, on every side.
const MAX_EXPAND_REACH: i64 = 64;

/// One world's lifecycle.
#[derive(Debug)]
pub struct WorldLifecycle {
    world: Arc<World>,
    meshes: Arc<MeshCache>,
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
}

/// What a listener starts from: the announced tiles as of `sequence`, then every
/// later step from `steps`.
#[derive(Debug)]
pub struct Follow {
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
        metrics: Arc<Metrics>,
        compute: Compute,
    ) -> Self {
        let tracker = Tracker::new(world.layout(), config, max_coordinate);
        WorldLifecycle {
            world,
            meshes,
            metrics,
            tracker: Mutex::new(tracker),
            steps: broadcast::channel(STEP_BUFFER).0,
            work: Notify::new(),
            timer: Notify::new(),
            timer_wakes: AtomicU64::new(0),
            next_stream: AtomicU64::new(1),
            compute,
        }
    }

    /// The world this lifecycle tracks.
    pub fn world(&self) -> &Arc<World> {
        &self.world
    }

    fn lock(&self) -> MutexGuard<'_, Tracker> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        self.tracker.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds or moves `viewer`; returns its ring sets.
    pub fn upsert(&self, viewer: Viewer, owner: Owner) -> Result<TileSets, ApiError> {
        let mut tracker = self.lock();
        let (rects, step) = tracker.upsert(viewer, owner, Instant::now())?;
        self.after(&mut tracker, step);
        Ok(TileSets::of_rects(&rects))
    }

    /// Removes viewer `id`, or `NOT_FOUND`.
    pub fn remove(&self, id: &str, owner: Owner) -> Result<(), ApiError> {
        let mut tracker = self.lock();
        let step =
            tracker
                .remove(id, owner, Instant::now())
                .ok_or_else(|| ApiError::UnknownViewer {
                    world: self.world.id().to_string(),
                    id: id.to_string(),
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

    /// The announced tiles and a receiver of every later step, taken atomically.
    pub fn follow(&self) -> Follow {
        let tracker = self.lock();
        Follow {
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

    /// Starts `workers` generation workers and the timer; they stop on `shutdown`.
    pub fn spawn_tasks(self: &Arc<Self>, workers: usize, shutdown: &CancellationToken) {
        for _ in 0..workers.max(1) {
            let me = Arc::clone(self);
            let token = shutdown.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = token.cancelled() => {}
                    () = me.work_loop() => {}
                }
            });
        }
        let me = Arc::clone(self);
        let token = shutdown.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = token.cancelled() => {}
                () = me.timer_loop() => {}
            }
        });
    }

    /// Builds queued tiles, nearest first, forever.
    async fn work_loop(&self) {
        loop {
            let mut notified = pin!(self.work.notified());
            notified.as_mut().enable();
            let job = self.lock().next_job();
            match job {
                Some(tile) => self.generate(tile).await,
                None => notified.await,
            }
        }
    }

    /// Builds `tile` into the mesh cache, then announces it.
    async fn generate(&self, tile: Tile) {
        let state = self.world.read_owned().await;
        let result = self.meshes.prefetch(&self.world, state, tile).await;
        let mut tracker = self.lock();
        match result {
            Ok(built) => {
                let step = tracker.generated(tile, Instant::now());
                self.metrics
                    .lifecycle_counts(self.world.id(), u64::from(built), 0, 0);
                self.after(&mut tracker, step);
            }
            Err(err) => {
                tracing::error!(world = self.world.id(), ?tile, error = %err, "tile generation failed");
                tracker.failed(tile);
            }
        }
    }

    /// Culls tiles whose grace ended and expires silent viewers, forever. Sleeps until
    /// the earliest due cull or the next sweep, whichever is first; only a cull due
    /// sooner than that wakes it early ([`Tracker::take_timer_wake`]).
    async fn timer_loop(&self) {
        loop {
            // Enabled before the deadline is read: a wake-up sent after it counts.
            let mut notified = pin!(self.timer.notified());
            notified.as_mut().enable();
            self.timer_wakes.fetch_add(1, Ordering::Relaxed);
            let now = Instant::now();
            let culled = {
                let mut tracker = self.lock();
                tracker.set_timer_until(None);
                let expired = tracker.expire(now);
                self.after(&mut tracker, expired);
                let (step, culled) = tracker.cull_due(now);
                self.after(&mut tracker, step);
                culled
            };
            if !culled.is_empty() {
                self.meshes.release(self.world.id(), &culled).await;
                tracing::debug!(
                    world = self.world.id(),
                    tiles = culled.len(),
                    "tiles culled"
                );
            }
            self.maintain_layout().await;
            let wake = {
                let mut tracker = self.lock();
                let sweep = Instant::now() + SWEEP_INTERVAL;
                let wake = tracker.next_cull().map_or(sweep, |at| at.min(sweep));
                tracker.set_timer_until(Some(wake));
                wake
            };
            tokio::select! {
                () = tokio::time::sleep_until(wake.into()) => {}
                () = notified => {}
            }
        }
    }

    /// How many times the timer loop has run (a busy loop shows here).
    pub fn timer_wakes(&self) -> u64 {
        self.timer_wakes.load(Ordering::Relaxed)
    }

    /// Worlds with a layout: prepares the chunks within `expand_radius` of every
    /// viewer, and drops the cached chunks farther than `gc_radius` from every viewer
    /// and outside the spawn grids (they regenerate identically when needed again).
    async fn maintain_layout(&self) {
        let (Some(surface), Some(settings)) = (self.world.surface(), self.world.layer()) else {
            return;
        };
        let positions = self.lock().viewer_positions();
        let surface = Arc::clone(surface);
        let settings = *settings;
        let spawn = self.world.spawn().to_vec();
        let job = move || {
            let size = surface.config().chunk_size;
            // Checked: a chunk index that does not fit is beyond any layout.
            let chunk_of = |v: f64| tile_index((v / size).floor());
            // The squared distance from `p` to the nearest point of chunk `c`.
            let dist2 = |c: (i64, i64), p: (f64, f64)| {
                let axis = |k: i64, v: f64| {
                    let (lo, hi) = (k as f64 * size, (k + 1) as f64 * size);
                    (lo - v).max(0.0).max(v - hi)
                };
                let (dx, dz) = (axis(c.0, p.0), axis(c.1, p.1));
                dx * dx + dz * dz
            };
            // Bounded before iterating: preparing is only a head start (chunks are
            // built on demand anyway), so a wider expand_radius is clamped.
            let reach = tile_index((settings.expand_radius / size).ceil())
                .map_or(MAX_EXPAND_REACH, |r| r.clamp(0, MAX_EXPAND_REACH));
            let expand2 = settings.expand_radius * settings.expand_radius;
            let mut wanted = BTreeSet::new();
            for &(x, z) in &positions {
                let (Some(cx), Some(cz)) = (chunk_of(x), chunk_of(z)) else {
                    continue;
                };
                for dz in -reach..=reach {
                    for dx in -reach..=reach {
                        let c = (cx + dx, cz + dz);
                        if dist2(c, (x, z)) <= expand2 {
                            wanted.insert((c.1, c.0));
                        }
                    }
                }
            }
            let mut built = 0;
            for (cz, cx) in wanted {
                let (x, z) = ((cx as f64 + 0.5) * size, (cz as f64 + 0.5) * size);
                // Chunks beyond the layout's range have no features: nothing to build.
                if let Ok(area) = Area::new(x, z, x, z) {
                    built += surface.prepare(&area).unwrap_or(0);
                }
            }
            // The bake refused spawn points beyond the grid before the server was ready.
            let pinned: BTreeSet<(i64, i64)> =
                bake::spawn_chunks(&surface, &spawn, settings.grid_radius)
                    .unwrap_or_default()
                    .into_iter()
                    .collect();
            let gc2 = settings.gc_radius * settings.gc_radius;
            let dropped = surface.retain_chunks(|c| {
                pinned.contains(&c) || positions.iter().any(|&p| dist2(c, p) <= gc2)
            });
            (built, dropped, surface.cached_chunks())
        };
        match self.compute.run(job).await {
            Ok((built, dropped, held)) => {
                self.metrics.layout_chunks(self.world.id(), held, dropped);
                if built > 0 || dropped > 0 {
                    tracing::debug!(
                        world = self.world.id(),
                        built,
                        dropped,
                        held,
                        "layout expanded around viewers and collected"
                    );
                }
            }
            Err(err) => {
                tracing::error!(world = self.world.id(), error = %err, "layout upkeep failed")
            }
        }
    }
}

/// Every world's lifecycle.
#[derive(Debug)]
pub struct Lifecycles {
    by_id: HashMap<String, Arc<WorldLifecycle>>,
    /// Fires at shutdown: open streams end.
    closed: CancellationToken,
}

impl Lifecycles {
    pub fn new(
        worlds: &Worlds,
        config: LifecycleConfig,
        max_coordinate: f64,
        meshes: &Arc<MeshCache>,
        metrics: &Arc<Metrics>,
        compute: &Compute,
    ) -> Self {
        let by_id = worlds
            .iter()
            .map(|w| {
                let lc = WorldLifecycle::new(
                    Arc::clone(w),
                    config,
                    max_coordinate,
                    Arc::clone(meshes),
                    Arc::clone(metrics),
                    compute.clone(),
                );
                (w.id().to_string(), Arc::new(lc))
            })
            .collect();
        Lifecycles {
            by_id,
            closed: CancellationToken::new(),
        }
    }

    /// Fires when the server shuts down.
    pub fn closed(&self) -> CancellationToken {
        self.closed.clone()
    }

    /// Ends every open `TrackViewers` stream (shutdown).
    pub fn close(&self) {
        self.closed.cancel();
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

    /// Starts every world's tasks.
    pub fn spawn_tasks(&self, workers: usize, shutdown: &CancellationToken) {
        for lc in self.iter() {
            lc.spawn_tasks(workers, shutdown);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        config::{Limits, WorldConfig},
        store::ZoneStore,
    };
    use terrain_core::GeneratorKind;

    /// World `main` (hyperscape) with its lifecycle, no tasks running; the store's
    /// directory lives as long as the answer.
    fn lifecycle(config: LifecycleConfig) -> (tempfile::TempDir, Arc<WorldLifecycle>) {
        let dir = tempfile::tempdir().expect("temporary directory");
        let store = Arc::new(ZoneStore::open(dir.path()).expect("store"));
        let worlds = Worlds::open(
            &[WorldConfig::new("main", GeneratorKind::Hyperscape, 0)],
            &store,
            &Limits::default(),
            &[],
        )
        .expect("worlds");
        let metrics = Arc::new(Metrics::new().expect("metrics"));
        let compute = Compute::new().expect("compute pool");
        let meshes = Arc::new(MeshCache::new(
            1 << 20,
            compute.clone(),
            Arc::clone(&metrics),
        ));
        let world = Arc::clone(worlds.iter().next().expect("main"));
        let lc = WorldLifecycle::new(world, config, 1e9, meshes, metrics, compute);
        (dir, Arc::new(lc))
    }

    fn viewer(id: String, x: f64, z: f64) -> Viewer {
        Viewer {
            id,
            x,
            z,
            view_width: 100.0,
            view_depth: 100.0,
        }
    }

    /// CPU time of this thread so far (Linux), else wall time since `start`: the
    /// machine may be busy, so bookkeeping costs are measured in CPU time.
    fn cpu_time(start: Instant) -> Duration {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok())
            .map_or_else(|| start.elapsed(), Duration::from_nanos)
    }

    /// Marks every queued tile generated (the workers' bookkeeping, without meshes).
    fn generate_all(lc: &WorldLifecycle) {
        let mut tracker = lc.lock();
        while let Some(tile) = tracker.next_job() {
            tracker.generated(tile, Instant::now());
        }
    }

    /// Issue 12: after a viewer left, the pending cull woke the timer again at once,
    /// for the whole grace (a core at 100 %, requests starved behind it). Now it
    /// sleeps until the sweep or the cull, and 10,000 viewers leave in well under a
    /// second of bookkeeping each way.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pending_cull_does_not_keep_the_timer_busy() {
        let config = LifecycleConfig {
            cull_grace: Duration::from_secs(10),
            max_viewers_per_world: 20_000,
            ..LifecycleConfig::default()
        };
        let (_dir, lc) = lifecycle(config);
        let timer = tokio::spawn({
            let lc = Arc::clone(&lc);
            async move { lc.timer_loop().await }
        });
        lc.upsert(viewer("a".into(), 0.0, 0.0), Owner::Http)
            .expect("viewer");
        generate_all(&lc);
        lc.remove("a", Owner::Http).expect("removed");
        assert!(
            lc.lock().next_cull().is_some(),
            "25 tiles wait for the grace"
        );
        let idle = |lc: Arc<WorldLifecycle>| async move {
            let before = lc.timer_wakes();
            tokio::time::sleep(Duration::from_millis(500)).await;
            lc.timer_wakes() - before
        };
        let wakes = idle(Arc::clone(&lc)).await;
        assert!(
            wakes <= 2,
            "{wakes} timer passes in 500 ms with a cull pending"
        );

        // 10,000 viewers 1 km apart (25 tiles each, none shared), then all removed.
        let ids: Vec<String> = (0..10_000).map(|i| format!("v{i}")).collect();
        let origin = Instant::now();
        let start = cpu_time(origin);
        for (i, id) in ids.iter().enumerate() {
            let (x, z) = ((i % 100) as f64 * 1000.0, (i / 100) as f64 * 1000.0);
            lc.upsert(viewer(id.clone(), x, z), Owner::Http)
                .expect("viewer");
        }
        generate_all(&lc);
        let added = cpu_time(origin) - start;
        let start = cpu_time(origin);
        for id in &ids {
            lc.remove(id, Owner::Http).expect("removed");
        }
        let removed = cpu_time(origin) - start;
        assert!(
            removed < Duration::from_secs(3),
            "10,000 viewers removed in {removed:?} of CPU (added in {added:?})"
        );
        assert_eq!(lc.live().viewers, 0);
        let wakes = idle(Arc::clone(&lc)).await;
        assert!(
            wakes <= 2,
            "{wakes} timer passes in 500 ms with 250,000 culls pending"
        );
        timer.abort();
    }
}
