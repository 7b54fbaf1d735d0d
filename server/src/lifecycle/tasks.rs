//! A world lifecycle's tasks, owned by the server's [`Tasks`]: generation workers
//! that build queued tiles into the mesh cache (nearest first) and announce them, and
//! a timer that culls tiles whose grace ended, expires silent HTTP viewers and keeps
//! the layout around viewers (prepared ahead, collected behind).
//!
//! The timer sleeps until the earliest due cull or the next sweep, whichever comes
//! first; only a cull due before that deadline wakes it early
//! ([`Tracker::take_timer_wake`](super::tracker::Tracker::take_timer_wake)).

use std::{
    collections::BTreeSet,
    pin::pin,
    sync::{Arc, atomic::Ordering},
    time::{Duration, Instant},
};

use terrain_core::{layout::Area, tile::tile_index};

use super::{WorldLifecycle, bake, rings::Tile};
use crate::shutdown::Tasks;

/// How often the timer wakes with nothing scheduled (viewer expiry, layout GC).
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);
/// The most chunks the layout is prepared ahead of a viewer, on every side.
const MAX_EXPAND_REACH: i64 = 64;

impl WorldLifecycle {
    /// Starts `workers` generation workers and the timer on `tasks`; they end when
    /// its token fires.
    pub fn spawn_tasks(self: &Arc<Self>, workers: usize, tasks: &Tasks) {
        for _ in 0..workers.max(1) {
            let me = Arc::clone(self);
            tasks.spawn_until_cancelled(async move { me.work_loop().await });
        }
        let me = Arc::clone(self);
        tasks.spawn_until_cancelled(async move { me.timer_loop().await });
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
        let state = self.world.snapshot();
        let result = self.meshes.prefetch_live(&self.world, state, tile).await;
        let mut tracker = self.lock();
        match result {
            Ok(built) => {
                if !tracker.holds(tile) {
                    // Dropped from every ring while it was being built: not live.
                    self.meshes.unpin(self.world.id(), tile);
                }
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
    /// sooner than that wakes it early.
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
        let (Some(surface), Some(settings)) = (self.world.layout_ground(), self.world.layout())
        else {
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

#[cfg(test)]
mod tests {
    use terrain_core::GeneratorKind;

    use super::*;
    use crate::{
        compute::Compute,
        config::{LifecycleConfig, Limits, WorldConfig},
        lifecycle::{rings::Viewer, tracker::Owner},
        mesh::MeshCache,
        metrics::Metrics,
        store::ZoneStore,
        world::Worlds,
    };

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
        let budget = Arc::new(crate::lifecycle::budget::LiveBudget::new(u64::MAX));
        let lc = WorldLifecycle::new(world, config, 1e9, meshes, budget, metrics, compute);
        (dir, Arc::new(lc))
    }

    fn viewer(id: String, x: f64, z: f64) -> Viewer {
        Viewer {
            id,
            x,
            z,
            view_width: 100.0,
            view_depth: 100.0,
            ..Viewer::default()
        }
    }

    /// Marks every queued tile generated (the workers' bookkeeping, without meshes).
    fn generate_all(lc: &WorldLifecycle) {
        let mut tracker = lc.lock();
        while let Some(tile) = tracker.next_job() {
            tracker.generated(tile, Instant::now());
        }
    }

    /// After a viewer left, the pending cull once woke the timer again at once, for
    /// the whole grace (a core at 100 %, requests starved behind it). It sleeps until
    /// the sweep or the cull, with one cull or 250,000 pending. (What 10,000 viewers
    /// leaving costs is the `lifecycle/leave_10000_viewers` benchmark.)
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
        for (i, id) in ids.iter().enumerate() {
            let (x, z) = ((i % 100) as f64 * 1000.0, (i / 100) as f64 * 1000.0);
            lc.upsert(viewer(id.clone(), x, z), Owner::Http)
                .expect("viewer");
        }
        generate_all(&lc);
        for id in &ids {
            lc.remove(id, Owner::Http).expect("removed");
        }
        assert_eq!(lc.live().viewers, 0);
        let wakes = idle(Arc::clone(&lc)).await;
        assert!(
            wakes <= 2,
            "{wakes} timer passes in 500 ms with 250,000 culls pending"
        );
        timer.abort();
    }
}
