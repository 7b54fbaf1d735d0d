//! Admission by cost: what a request's work is estimated to take on the compute pool,
//! and the queue of admitted work it is measured against.
//!
//! Counting requests in flight (`max_in_flight`) does not stop a server from taking
//! on more work than it can finish: thirty cold voxel map tiles fit in the slots and
//! all time out together. So every request that takes work to the pool first asks
//! [`CostQueue::admit`] with an estimate (a [`Meter`]'s time per unit times its units).
//! The queue holds the estimates of the admitted work not yet finished; a request is
//! refused at once (`RESOURCE_EXHAUSTED` / 503 with `Retry-After`, as when the slots
//! are full) when, taking turns on the pool with that work ([`CostQueue`]), it would
//! not finish within three quarters of `request_timeout`. Work that would not finish in
//! that time even with the pool to itself is refused too ([`TooCostly`], `RESOURCE_EXHAUSTED`
//! / 413 without `Retry-After`, since retrying cannot help): its message names the field
//! that sizes it and how to ask for less, instead of the request running into the timeout.
//!
//! A meter starts from a timing of the bare generator taken when its world opens
//! ([`Meters::time_generator`]) and follows what the work really took (an
//! exponentially weighted mean of the pool time per unit, the first measurement
//! replacing the seed), so estimates follow the machine, warm caches and the build
//! profile. Estimates only decide admission: they never change an answer.

use std::{
    collections::BTreeMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use terrain_core::{
    Generator, Terrain,
    walk::{
        Reason, WalkGrids, WalkRule, Walker,
        find::{MOVEMENT_TILE, find_path},
        path::TileJudge,
    },
};

use crate::error::{ErrorCode, ServiceError};
use crate::sync::locked;

/// The weight of a new measurement in a meter's mean.
const WEIGHT: f64 = 0.25;

/// The share of `request_timeout` the queued work plus a request's own may fill.
const BUDGET_SHARE: f64 = 0.75;

/// Estimated nanoseconds of one pool thread per unit of some kind of work, learnt from
/// what that work took.
#[derive(Debug)]
pub struct Meter {
    /// The `f64` bits of the nanoseconds per unit.
    ns_per_unit: AtomicU64,
    /// Whether any measurement replaced the seed.
    measured: AtomicBool,
    /// Whether the seed is a timing of this kind of work ([`Meter::seed`]) rather
    /// than a guess from another kind.
    calibrated: AtomicBool,
}

impl Meter {
    /// A meter estimating `seed` nanoseconds per unit until it measures.
    pub fn new(seed: f64) -> Self {
        Meter {
            ns_per_unit: AtomicU64::new(seed.max(0.0).to_bits()),
            measured: false.into(),
            calibrated: false.into(),
        }
    }

    /// Replaces the estimate with `ns` nanoseconds per unit, a timing of this kind of
    /// work, unless a measurement already replaced the seed.
    pub fn seed(&self, ns: f64) {
        if !self.measured.load(Ordering::Relaxed) {
            self.ns_per_unit
                .store(ns.max(0.0).to_bits(), Ordering::Relaxed);
            self.calibrated.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the estimate comes from timings of its own kind of work (a measurement,
    /// or a calibration when the world opened), not from a guess such as a cold
    /// height's time: only such an estimate refuses work as too large even alone.
    pub fn settled(&self) -> bool {
        self.measured.load(Ordering::Relaxed) || self.calibrated.load(Ordering::Relaxed)
    }

    /// Nanoseconds per unit now.
    pub fn ns_per_unit(&self) -> f64 {
        f64::from_bits(self.ns_per_unit.load(Ordering::Relaxed))
    }

    /// The estimated pool time of `units` units.
    pub fn estimate(&self, units: u64) -> Duration {
        let ns = self.ns_per_unit() * units as f64;
        Duration::from_nanos(ns.min(u64::MAX as f64) as u64)
    }

    /// Records that `units` units took `took` of pool time.
    pub fn observe(&self, units: u64, took: Duration) {
        if units == 0 {
            return;
        }
        let sample = took.as_nanos() as f64 / units as f64;
        let first = !self.measured.swap(true, Ordering::Relaxed);
        let _ = self
            .ns_per_unit
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                let mean = if first {
                    sample
                } else {
                    f64::from_bits(bits) * (1.0 - WEIGHT) + sample * WEIGHT
                };
                Some(mean.to_bits())
            });
    }
}

/// The meters of one world, one per kind of work: each learns only from its own
/// work, so cheap work of one kind never moves the estimate another kind is admitted
/// by (a short path search costs more per unit than a batch point, in fixed costs).
#[derive(Debug)]
pub struct Meters {
    /// Per point of a height batch.
    pub batch: Meter,
    /// Per sample of a heightmap.
    pub heightmap: Meter,
    /// Per map tile rendered.
    pub map: Meter,
    /// Per height a walk-layer map tile reads.
    pub walk_map: Meter,
    /// Per mesh built (a heightfield tile, or a voxel chunk's greedy mesh).
    pub mesh: Meter,
    /// Per voxel chunk of blocks or instances built.
    pub chunk: Meter,
    /// Per height terrain info reads (nine a point).
    pub terrain_info: Meter,
    /// Per height a path check judges.
    pub path_check: Meter,
    /// Per node of a path search ([`search_units`]).
    pub path_node: Meter,
    /// Per zone of a past revision's ground rebuilt ([`rebuild_units`]).
    pub rebuild: Meter,
    /// Per height a 3D Tiles grid reads from the terrain.
    pub tiles3d_height: Meter,
    /// Per sample of the union a 3D Tiles content's mesh is simplified from.
    pub tiles3d_sample: Meter,
}

/// Heights a path search's node is first estimated at: each expanded node judges up to
/// eight neighbours, read in blocks of movement tiles.
const HEIGHTS_PER_NODE: f64 = 4.0;

/// The fixed cost of a path search (building or reading the movement-tile blocks around
/// its ends), in nodes: a short search's time is mostly this.
pub const SEARCH_OVERHEAD_NODES: u64 = 1024;

/// The units a path search is estimated and measured in: its nodes (the node budget
/// when admitting, the expanded nodes when measuring) and its fixed cost.
pub fn search_units(nodes: u64) -> u64 {
    nodes.saturating_add(SEARCH_OVERHEAD_NODES)
}

/// A past revision's ground is first estimated at this many nanoseconds a zone (the
/// zone set and its index built afresh; about 2 us a zone measured on this machine
/// class), until one is measured.
const REBUILD_NS_PER_ZONE: f64 = 2000.0;

/// The units a rebuild of a ground with `zones` zones is estimated and measured in: its
/// zones, and a fixed cost of a few zones' worth.
pub fn rebuild_units(zones: usize) -> u64 {
    zones as u64 + 16
}

/// A 3D Tiles content's mesh is first estimated at this many nanoseconds per sample of
/// the union it is simplified from (colours and normals included; about 0.3 us
/// measured on this machine class), until one is measured.
const SIMPLIFY_NS_PER_SAMPLE: f64 = 300.0;

/// Map tile heights per tile (258 x 258, the tile and its one-pixel border).
const MAP_HEIGHTS: f64 = 258.0 * 258.0;

impl Meters {
    /// Meters seeded from `height_ns`, the pool time of one cold height, with
    /// `tile_vertices` heights per mesh tile and `chunk_columns` columns per voxel
    /// chunk.
    pub fn seeded(height_ns: f64, tile_vertices: f64, chunk_columns: f64) -> Self {
        Meters {
            batch: Meter::new(height_ns),
            heightmap: Meter::new(height_ns),
            map: Meter::new(height_ns * MAP_HEIGHTS),
            walk_map: Meter::new(height_ns),
            mesh: Meter::new(height_ns * tile_vertices),
            chunk: Meter::new(height_ns * chunk_columns),
            terrain_info: Meter::new(height_ns),
            path_check: Meter::new(height_ns),
            path_node: Meter::new(height_ns * HEIGHTS_PER_NODE),
            rebuild: Meter::new(REBUILD_NS_PER_ZONE),
            tiles3d_height: Meter::new(height_ns),
            tiles3d_sample: Meter::new(SIMPLIFY_NS_PER_SAMPLE),
        }
    }

    /// Each meter by the name of its work (the `work` label of
    /// `terrain_work_estimate_seconds`).
    pub fn named(&self) -> [(&'static str, &Meter); 12] {
        [
            ("batch_point", &self.batch),
            ("heightmap_sample", &self.heightmap),
            ("map_tile", &self.map),
            ("walk_map_height", &self.walk_map),
            ("mesh", &self.mesh),
            ("chunk", &self.chunk),
            ("terrain_info_height", &self.terrain_info),
            ("path_check_height", &self.path_check),
            ("path_node", &self.path_node),
            ("rebuild_zone", &self.rebuild),
            ("tiles3d_height", &self.tiles3d_height),
            ("tiles3d_sample", &self.tiles3d_sample),
        ]
    }

    /// The pool time of one cold height of `terrain`: the median over eight runs of
    /// eight points of a lattice 437 m apart around the origin (where a world's
    /// ground is, and far enough apart that no cache holds them), after one point
    /// that warms the code.
    pub fn time_generator(terrain: &Terrain) -> f64 {
        let _ = terrain.height(0.5, 0.5);
        let at = |k: i32| -1529.75 + 437.0 * f64::from(k);
        let mut runs: Vec<f64> = (0..8)
            .map(|row| {
                let start = Instant::now();
                for column in 0..8 {
                    std::hint::black_box(terrain.height(at(column), at(row)));
                }
                start.elapsed().as_nanos() as f64 / 8.0
            })
            .collect();
        runs.sort_by(f64::total_cmp);
        runs[runs.len() / 2]
    }
}

impl Meters {
    /// The pool time of one unit of a path search ([`search_units`]) on `terrain`
    /// under `rule`: a search of 2,048 nodes from near the origin toward a goal 4 km
    /// away, taken as open whatever stands there (so the search spends its budget, as
    /// a search for a goal walled off does), its movement tiles judged as a request's
    /// are. `None` where each start tried is blocked.
    pub fn time_search(terrain: &Terrain, rule: &WalkRule) -> Option<f64> {
        const NODES: usize = 2048;
        let walker = Walker::new(terrain, rule);
        [(0.5f64, 0.5f64), (100.5, 100.5), (-100.5, -100.5)]
            .into_iter()
            .find_map(|(x, z)| {
                let goal = (x + 4000.0, z);
                let mut judge = GoalOpen {
                    grids: WalkGrids::new(&walker),
                    goal: (libm::floor(goal.0) as i64, libm::floor(goal.1) as i64),
                };
                let start = Instant::now();
                let found = find_path((x, z), goal, MOVEMENT_TILE, NODES, &mut judge);
                let took = start.elapsed();
                let expanded = match found {
                    Ok(f) => f.expanded,
                    Err(n) => n.expanded,
                };
                (expanded > 0)
                    .then(|| took.as_nanos() as f64 / search_units(expanded as u64) as f64)
            })
    }

    /// The pool time of one height of `terrain` read over an area, as 3D Tiles grids
    /// read them (the generator's area pass, far cheaper per height than a point):
    /// the median over five 64 x 64 grids at 1 m spacing around the origin, after
    /// one that warms the code.
    pub fn time_area(terrain: &Terrain) -> f64 {
        const SIDE: usize = 64;
        let axis = |from: f64| -> Vec<f64> { (0..SIDE).map(|i| from + i as f64).collect() };
        let mut out = vec![0.0; SIDE * SIDE];
        let mut runs: Vec<f64> = (0..6)
            .map(|k| {
                let from = -96.0 + 32.0 * f64::from(k);
                let (xs, zs) = (axis(from), axis(-from));
                let start = Instant::now();
                terrain.fill_axes(&xs, &zs, &mut out);
                std::hint::black_box(&out);
                start.elapsed().as_nanos() as f64 / (SIDE * SIDE) as f64
            })
            .skip(1)
            .collect();
        runs.sort_by(f64::total_cmp);
        runs[runs.len() / 2]
    }
}

/// Movement tiles judged as a search's are, but for `goal`, open whatever stands there.
struct GoalOpen<'w, 'a> {
    grids: WalkGrids<'w, 'a>,
    goal: (i64, i64),
}

impl TileJudge for GoalOpen<'_, '_> {
    fn blocked(&mut self, ix: i64, iz: i64) -> Option<Reason> {
        if (ix, iz) == self.goal {
            return None;
        }
        self.grids.blocked(ix, iz)
    }

    fn step_blocked(&mut self, from: (i64, i64), to: (i64, i64)) -> bool {
        self.grids.step_blocked(from, to)
    }
}

/// Admitted work not yet finished, measured against a share of `request_timeout`.
///
/// The pool serves the requests it holds in turn, slice by slice, so a request is
/// not queued behind the whole of the others' work: while it runs, each other
/// request runs for about as long as it does, or less if it has less to do (processor
/// sharing). A request estimated at `own` therefore finishes after about
/// `(own + sum of min(other, own)) / threads`, and that is what is measured against
/// the budget: small work passes beside large work, large work behind large work
/// does not.
#[derive(Debug, Clone)]
pub struct CostQueue {
    admitted: Arc<Mutex<Admitted>>,
    /// What a request's expected time to finish may reach: the budget share of the
    /// timeout.
    budget: Duration,
    timeout: Duration,
    threads: u32,
}

/// The estimates of the admitted, unfinished work, by ticket.
#[derive(Debug, Default)]
struct Admitted {
    work: BTreeMap<u64, Duration>,
    next: u64,
    total: Duration,
}

impl Admitted {
    fn add(&mut self, own: Duration) -> u64 {
        let id = self.next;
        self.next += 1;
        self.work.insert(id, own);
        self.total = self.total.saturating_add(own);
        id
    }
}

/// Admitted work: its estimate leaves the queue when this drops.
#[derive(Debug)]
pub struct Ticket {
    id: u64,
    admitted: Arc<Mutex<Admitted>>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut admitted = locked(&self.admitted);
        if let Some(own) = admitted.work.remove(&self.id) {
            admitted.total = admitted.total.saturating_sub(own);
        }
    }
}

/// What a request's work is, for its refusal when it could not finish in time even with
/// the compute pool to itself ([`TooCostly`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// The request field that sizes the work (`maxNodes`, `points`, ...).
    pub field: &'static str,
    /// How to ask for less, as the refusal tells the client.
    pub narrow: &'static str,
    /// Whether the work is spread over the pool's threads (sliced) rather than run as
    /// one job on one thread.
    pub spread: bool,
    /// Whether what it makes outlives the request and is kept (a map tile, a tile
    /// mesh: a request that times out leaves it to finish and fill the cache, so the
    /// retry is served from it): such work is admitted alone whatever its estimate.
    pub kept: bool,
}

/// Why work was refused: at once, or stopped unfinished at its request's deadline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// Beside the admitted work it would not finish in time: retry later.
    #[error(transparent)]
    Busy(#[from] Busy),
    /// Even alone it would not finish in time: ask for less.
    #[error(transparent)]
    TooCostly(#[from] TooCostly),
    /// Admitted, but not done by its request's deadline: stopped, and answered before
    /// `request_timeout` runs out.
    #[error(transparent)]
    CutOff(#[from] CutOff),
    /// Work kept when made (a map tile, a mesh) not ready by its request's deadline: it
    /// goes on, and a retry is served from what it leaves.
    #[error(transparent)]
    Pending(#[from] Pending),
}

impl ServiceError for Refused {
    fn error_code(&self) -> ErrorCode {
        match self {
            Refused::Busy(e) => e.error_code(),
            Refused::TooCostly(e) => e.error_code(),
            Refused::CutOff(e) => e.error_code(),
            Refused::Pending(e) => e.error_code(),
        }
    }

    fn field(&self) -> Option<&str> {
        match self {
            Refused::Busy(_) => None,
            Refused::TooCostly(e) => e.field(),
            Refused::CutOff(e) => e.field(),
            Refused::Pending(_) => None,
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            Refused::Busy(e) => e.retry_after(),
            Refused::TooCostly(_) => None,
            Refused::CutOff(e) => e.retry_after(),
            Refused::Pending(e) => e.retry_after(),
        }
    }
}

/// Work admitted on an estimate that proved too low, stopped unfinished when its
/// request's deadline ([`deadline`]: three quarters of `request_timeout` after the
/// request arrived) passed, so that the request is answered, not timed out. What it did
/// teaches its meter ([`Meter::observe`]), so the same request asked again is refused at
/// once. At the rate it ran, would it have finished alone within the budget? No: ask
/// for less (413, like [`TooCostly`]). Yes: it was slowed by the work beside it, retry
/// (503 with `Retry-After`, like [`Busy`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutOff {
    /// Units of work done before the deadline, of `units`.
    pub done: u64,
    pub units: u64,
    /// The pool time the done units took.
    pub busy: Duration,
    /// When the whole request would be answered with the pool to itself at that rate:
    /// the time it had spent before its work began (reading and decoding its body)
    /// plus the whole work (`None`: no unit was done, no rate is known).
    pub alone: Option<Duration>,
    pub timeout: Duration,
    pub scope: Scope,
    /// When to retry, if retrying can help.
    pub retry_after: Option<Duration>,
}

impl CutOff {
    /// What `done` of `units` units, taking `busy` of pool time after the request had
    /// spent `before`, say about the whole on `threads` threads against `budget` (the
    /// deadline's share of `timeout`), with `queued` the admitted work it shared the
    /// pool with.
    fn judge(
        (done, units, busy, before): (u64, u64, Duration, Duration),
        scope: Scope,
        (threads, budget, timeout, queued): (u32, Duration, Duration, Duration),
    ) -> Self {
        let alone = match done {
            // Its body took the budget before any work began: no rate, but too large.
            0 if before >= budget => Some(before),
            0 => None,
            _ => {
                let whole = busy.mul_f64(units as f64 / done as f64);
                Some(before + if scope.spread { whole / threads } else { whole })
            }
        };
        let retry_after = match alone {
            Some(alone) if alone > budget || (done == 0 && alone >= budget) => None,
            _ => Some(Duration::from_secs(
                (queued / threads).as_secs_f64().ceil().max(1.0) as u64,
            )),
        };
        CutOff {
            done,
            units,
            busy,
            alone,
            timeout,
            scope,
            retry_after,
        }
    }
}

impl std::fmt::Display for CutOff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (done, units, timeout) = (self.done, self.units, self.timeout);
        let stopped = format!(
            "stopped unfinished at three quarters of request_timeout ({timeout:?}), {done} of {units} units of its work done"
        );
        match (self.retry_after, self.alone) {
            (None, Some(before)) if done == 0 => write!(
                f,
                "{}: this request spent {before:.1?} before its work could begin (reading and decoding it), over three quarters of request_timeout ({timeout:?}); {}",
                self.scope.field, self.scope.narrow
            ),
            (None, Some(alone)) => write!(
                f,
                "{}: this request's work was {stopped}; at the rate it ran it needs about {alone:.1?} even on an idle server; {}",
                self.scope.field, self.scope.narrow
            ),
            (Some(retry), _) => write!(
                f,
                "overloaded: this request's work shared the compute pool and was {stopped}; retry after {retry:?}"
            ),
            (None, None) => write!(f, "{}: this request's work was {stopped}", self.scope.field),
        }
    }
}

impl std::error::Error for CutOff {}

impl ServiceError for CutOff {
    fn error_code(&self) -> ErrorCode {
        if self.retry_after.is_some() {
            ErrorCode::Overloaded
        } else {
            ErrorCode::TooLarge
        }
    }

    fn field(&self) -> Option<&str> {
        self.retry_after.is_none().then_some(self.scope.field)
    }

    fn retry_after(&self) -> Option<Duration> {
        self.retry_after
    }
}

/// Work whose result is kept (a map tile, a mesh), made in a task of its own, not ready
/// by the deadline of the request waiting for it ([`deadline`]): the request is
/// answered (503 with `Retry-After`) rather than timed out, and the work goes on to
/// fill the cache the retry is served from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} is still being made (estimated at {estimate:.1?} of compute): not ready within three quarters of request_timeout ({timeout:?}), it goes on and is served to a retry; retry after {retry_after:?}"
)]
pub struct Pending {
    pub what: String,
    pub estimate: Duration,
    pub timeout: Duration,
    pub retry_after: Duration,
}

impl ServiceError for Pending {
    fn error_code(&self) -> ErrorCode {
        ErrorCode::Overloaded
    }

    fn retry_after(&self) -> Option<Duration> {
        Some(self.retry_after)
    }
}

tokio::task_local! {
    /// When the work of the request this task answers must be done: set by the
    /// admission middleware (`crate::transport::admission`) around each request.
    static DEADLINE: Instant;
}

/// Runs `request` (a request's handling, started now) with its work's deadline: the
/// budget share of `timeout` from now.
pub async fn within_deadline<F: std::future::Future>(timeout: Duration, request: F) -> F::Output {
    DEADLINE
        .scope(Instant::now() + timeout.mul_f64(BUDGET_SHARE), request)
        .await
}

/// The deadline of the request this task answers ([`within_deadline`]), or `budget`
/// from now outside a request.
pub fn deadline(budget: Duration) -> Instant {
    DEADLINE
        .try_with(|d| *d)
        .unwrap_or_else(|_| Instant::now() + budget)
}

/// Work refused because, even with the compute pool to itself, it would not finish
/// within the budget share of `request_timeout`: retrying the same request cannot help.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}: this request's work is estimated at {own:.1?} of compute, so even on an idle server it would take about {alone:.1?}, over three quarters of request_timeout ({timeout:?}); {}",
    .scope.field,
    .scope.narrow
)]
pub struct TooCostly {
    /// The request's estimate.
    pub own: Duration,
    /// When it would finish alone (its estimate, over the threads if spread).
    pub alone: Duration,
    pub timeout: Duration,
    pub scope: Scope,
}

impl ServiceError for TooCostly {
    fn error_code(&self) -> ErrorCode {
        ErrorCode::TooLarge
    }

    fn field(&self) -> Option<&str> {
        Some(self.scope.field)
    }
}

/// A request refused because, beside the work already admitted, it would not finish
/// in time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "overloaded: {queued:.1?} of work is queued on {threads} compute threads; beside it this request's {own:.1?} would take about {finish:.1?}, over three quarters of request_timeout ({timeout:?}); retry after {retry_after:?}"
)]
pub struct Busy {
    /// The estimated work admitted and not finished.
    pub queued: Duration,
    /// This request's estimate.
    pub own: Duration,
    /// When it would finish beside the queued work.
    pub finish: Duration,
    pub threads: u32,
    pub timeout: Duration,
    pub retry_after: Duration,
}

impl ServiceError for Busy {
    fn error_code(&self) -> ErrorCode {
        ErrorCode::Overloaded
    }

    fn retry_after(&self) -> Option<Duration> {
        Some(self.retry_after)
    }
}

impl CostQueue {
    /// A queue for a pool of `threads` threads and requests answered within `timeout`.
    pub fn new(threads: usize, timeout: Duration) -> Self {
        CostQueue {
            admitted: Arc::default(),
            budget: timeout.mul_f64(BUDGET_SHARE),
            timeout,
            threads: u32::try_from(threads.max(1)).unwrap_or(u32::MAX),
        }
    }

    /// What a request's expected time to finish may reach: three quarters of
    /// `request_timeout`.
    pub fn budget(&self) -> Duration {
        self.budget
    }

    /// The estimated pool time of the admitted, unfinished work.
    pub fn queued(&self) -> Duration {
        locked(&self.admitted).total
    }

    /// Why admitted work estimated by `meter`, begun at `began`, was stopped at the
    /// deadline after `done` of `units` units taking `busy` of pool time ([`CutOff`]);
    /// the meter learns from what was done.
    pub fn cut_off(
        &self,
        meter: &Meter,
        (done, units, busy, began): (u64, u64, Duration, Instant),
        scope: Scope,
    ) -> CutOff {
        meter.observe(done, busy);
        let before = self.spent().saturating_sub(began.elapsed());
        let pool = (self.threads, self.budget, self.timeout, self.queued());
        CutOff::judge((done, units, busy, before), scope, pool)
    }

    /// Waits for `work`, kept work made in a task of its own and estimated at
    /// `estimate`, until the deadline of the request this task answers: its output, or
    /// [`Pending`] naming it as `what` with the estimate's time left as `Retry-After`.
    pub async fn within_deadline<F: std::future::Future>(
        &self,
        what: impl FnOnce() -> String,
        estimate: Duration,
        work: F,
    ) -> Result<F::Output, Pending> {
        let started = Instant::now();
        let until = tokio::time::Instant::from_std(deadline(self.budget));
        tokio::time::timeout_at(until, work).await.map_err(|_| {
            let left = estimate.saturating_sub(started.elapsed());
            Pending {
                what: what(),
                estimate,
                timeout: self.timeout,
                retry_after: Duration::from_secs(
                    left.as_secs_f64().ceil().clamp(1.0, 3600.0) as u64
                ),
            }
        })
    }

    /// What the request this task answers has spent so far (from its [`deadline`];
    /// nothing outside a request).
    fn spent(&self) -> Duration {
        DEADLINE
            .try_with(|d| d.checked_sub(self.budget))
            .ok()
            .flatten()
            .map_or(Duration::ZERO, |arrived| arrived.elapsed())
    }

    /// Queues work estimated at `own` that is not refused (work the server starts
    /// itself, ahead of requests), so that requests are admitted against it too.
    pub fn charge(&self, own: Duration) -> Ticket {
        let id = locked(&self.admitted).add(own);
        Ticket {
            id,
            admitted: Arc::clone(&self.admitted),
        }
    }

    /// Admits work estimated at `own`, or refuses it: when even alone it would not
    /// finish within the budget and the estimate is `settled` ([`TooCostly`]; see
    /// [`Meter::settled`]), or when other work is admitted and, sharing the pool with
    /// it, `own` would not finish within the budget ([`Busy`]).
    pub fn admit(&self, own: Duration, scope: Scope, settled: bool) -> Result<Ticket, Refused> {
        let alone = self.spent()
            + if scope.spread {
                own / self.threads
            } else {
                own
            };
        if alone > self.budget && settled && !scope.kept {
            return Err(TooCostly {
                own,
                alone,
                timeout: self.timeout,
                scope,
            }
            .into());
        }
        let mut admitted = locked(&self.admitted);
        if !admitted.work.is_empty() {
            let beside: Duration = admitted.work.values().map(|&other| other.min(own)).sum();
            let finish = own.saturating_add(beside) / self.threads;
            if finish > self.budget {
                let wait = admitted.total / self.threads;
                return Err(Busy {
                    queued: admitted.total,
                    own,
                    finish,
                    threads: self.threads,
                    timeout: self.timeout,
                    retry_after: Duration::from_secs(wait.as_secs_f64().ceil().max(1.0) as u64),
                }
                .into());
            }
        }
        let id = admitted.add(own);
        Ok(Ticket {
            id,
            admitted: Arc::clone(&self.admitted),
        })
    }
}

/// A bound on how many of one kind of work run at once, past which more is refused
/// at once rather than queued: for work that holds much memory while it waits and
/// runs (the ground of a past revision, a copy of its world's zones and index).
#[derive(Debug, Clone)]
pub struct Slots {
    free: Arc<tokio::sync::Semaphore>,
    limit: usize,
    /// What the work is, in refusals.
    what: &'static str,
}

/// A slot held: it frees when this drops.
#[derive(Debug)]
pub struct Slot(#[allow(dead_code)] tokio::sync::OwnedSemaphorePermit);

/// Work refused because every slot of its kind is taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "overloaded: {limit} {what} are in progress, the most at once (one per compute thread); retry after {retry_after:?}"
)]
pub struct Full {
    pub what: &'static str,
    pub limit: usize,
    pub retry_after: Duration,
}

impl ServiceError for Full {
    fn error_code(&self) -> ErrorCode {
        ErrorCode::Overloaded
    }

    fn retry_after(&self) -> Option<Duration> {
        Some(self.retry_after)
    }
}

impl Slots {
    /// At most `limit` (at least one) of `what` at once.
    pub fn new(limit: usize, what: &'static str) -> Self {
        let limit = limit.max(1);
        Slots {
            free: Arc::new(tokio::sync::Semaphore::new(limit)),
            limit,
            what,
        }
    }

    /// A slot, or the refusal when all are taken; `each` is what one piece of the work
    /// is estimated to take (the refusal's `Retry-After`, at least a second).
    pub fn take(&self, each: Duration) -> Result<Slot, Full> {
        Arc::clone(&self.free)
            .try_acquire_owned()
            .map(Slot)
            .map_err(|_| Full {
                what: self.what,
                limit: self.limit,
                retry_after: Duration::from_secs(each.as_secs_f64().ceil().max(1.0) as u64),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrain_core::{GeneratorKind, Overlap, WorldGenerator, ZoneSet};

    #[test]
    fn a_meter_starts_from_its_seed_and_follows_measurements() {
        let meter = Meter::new(1000.0);
        assert!(!meter.settled(), "a guessed seed");
        assert_eq!(meter.estimate(3), Duration::from_nanos(3000));
        // The first measurement replaces the seed.
        meter.observe(10, Duration::from_micros(50));
        assert_eq!(meter.ns_per_unit(), 5000.0);
        assert!(meter.settled());
        // A calibration no longer replaces a measurement.
        meter.seed(1.0);
        assert_eq!(meter.ns_per_unit(), 5000.0);
        // Later ones move the mean by a quarter of the difference.
        meter.observe(10, Duration::from_micros(90));
        assert_eq!(meter.ns_per_unit(), 6000.0);
        meter.observe(0, Duration::from_secs(1));
        assert_eq!(meter.ns_per_unit(), 6000.0);
    }

    const SPREAD: Scope = Scope {
        field: "points",
        narrow: "ask for fewer points",
        spread: true,
        kept: false,
    };
    const ONE_THREAD: Scope = Scope {
        field: "maxNodes",
        narrow: "lower maxNodes",
        spread: false,
        kept: false,
    };

    #[test]
    fn work_is_refused_when_beside_the_admitted_work_it_would_not_finish_in_time() {
        // Two threads, 4 s timeout: a request may take 3 s beside the others.
        let queue = CostQueue::new(2, Duration::from_secs(4));
        let s = Duration::from_secs;
        // Alone, spread work of 6 s takes 3 s: admitted.
        let big = queue.admit(s(6), SPREAD, true).unwrap();
        assert_eq!(queue.queued(), s(6));
        // Small work passes beside it: the pool takes turns.
        let small = queue
            .admit(Duration::from_millis(100), SPREAD, true)
            .unwrap();
        drop(small);
        // 2 s beside the 6 s: (2 + 2) / 2 = 2 s, within the budget; 4 s is not.
        let two = queue.admit(s(2), SPREAD, true).unwrap();
        drop(two);
        let Err(Refused::Busy(err)) = queue.admit(s(4), SPREAD, true) else {
            panic!("4 s beside 6 s is admitted");
        };
        assert_eq!((err.queued, err.own, err.finish), (s(6), s(4), s(4)));
        assert_eq!((err.threads, err.timeout), (2, s(4)));
        // 6 s over two threads: retry in 3 s.
        assert_eq!(err.retry_after, s(3));
        assert_eq!(err.error_code(), ErrorCode::Overloaded);
        drop(big);
        assert_eq!(queue.queued(), Duration::ZERO);
        // Each admitted request counts: 2 s beside two of 2 s is (2 + 4) / 2 = 3 s.
        let a = queue.admit(s(2), SPREAD, true).unwrap();
        let b = queue.admit(s(2), SPREAD, true).unwrap();
        let c = queue.admit(s(2), SPREAD, true).unwrap();
        assert!(queue.admit(s(2), SPREAD, true).is_err());
        drop(b);
        let d = queue.charge(s(60));
        assert_eq!(queue.queued(), s(64));
        drop((a, c, d));
        assert_eq!(queue.queued(), Duration::ZERO);
    }

    #[test]
    fn work_that_would_not_finish_even_alone_is_refused_for_good() {
        // Two threads, 4 s timeout: 3 s of budget.
        let queue = CostQueue::new(2, Duration::from_secs(4));
        let s = Duration::from_secs;
        // Spread work of 7 s would take 3.5 s alone; one-thread work of 4 s, 4 s.
        for (own, scope, alone) in [
            (s(7), SPREAD, Duration::from_millis(3500)),
            (s(4), ONE_THREAD, s(4)),
        ] {
            let Err(Refused::TooCostly(err)) = queue.admit(own, scope, true) else {
                panic!("{own:?} admitted with {scope:?}");
            };
            assert_eq!((err.own, err.alone, err.timeout), (own, alone, s(4)));
            let refused = Refused::from(err.clone());
            // Not Retry-After: retrying cannot help. The field is named.
            assert_eq!(refused.retry_after(), None);
            assert_eq!(refused.error_code(), ErrorCode::TooLarge);
            assert_eq!(refused.field(), Some(scope.field));
            let text = err.to_string();
            assert!(text.starts_with(&format!("{}: ", scope.field)), "{text}");
            assert!(text.ends_with(scope.narrow), "{text}");
            assert!(text.contains("request_timeout (4s)"), "{text}");
        }
        assert_eq!(queue.queued(), Duration::ZERO, "a refusal queues nothing");
        // An estimate that is a guess (no timing of its kind yet) never refuses alone.
        drop(queue.admit(s(60), ONE_THREAD, false).unwrap());
        // Within the budget alone, each is admitted.
        drop(queue.admit(s(6), SPREAD, true).unwrap());
        drop(queue.admit(s(3), ONE_THREAD, true).unwrap());
        // Work whose result is kept is admitted alone whatever its estimate, and
        // refused beside other work as any.
        let kept = Scope {
            kept: true,
            ..ONE_THREAD
        };
        let held = queue.admit(s(60), kept, true).unwrap();
        assert!(matches!(
            queue.admit(s(4), kept, true),
            Err(Refused::Busy(_))
        ));
        drop(held);
    }

    #[test]
    fn slots_refuse_past_their_limit_until_one_frees() {
        let slots = Slots::new(2, "rebuilds");
        let a = slots.take(Duration::from_millis(10)).unwrap();
        let _b = slots.take(Duration::from_millis(10)).unwrap();
        let full = slots.take(Duration::from_millis(2500)).unwrap_err();
        assert_eq!(full.retry_after, Duration::from_secs(3));
        assert_eq!(full.error_code(), ErrorCode::Overloaded);
        assert!(
            full.to_string().contains("2 rebuilds are in progress"),
            "{full}"
        );
        drop(a);
        assert!(slots.take(Duration::ZERO).is_ok());
    }

    #[test]
    fn a_refusal_waits_at_least_a_second() {
        let queue = CostQueue::new(2, Duration::from_millis(100));
        let _held = queue
            .admit(Duration::from_millis(10), SPREAD, true)
            .unwrap();
        // 72.5 ms alone, (145 + 10) / 2 = 77.5 ms beside: over the 75 ms budget.
        let Err(Refused::Busy(err)) = queue.admit(Duration::from_millis(145), SPREAD, true) else {
            panic!("admitted");
        };
        assert_eq!(err.retry_after, Duration::from_secs(1));
        assert!(err.to_string().contains("request_timeout (100ms)"), "{err}");
    }

    #[test]
    fn the_generator_timing_is_positive_and_finite() {
        let g = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
        let zones = ZoneSet::new(Overlap::default(), g.tile_size());
        let ns = Meters::time_generator(&Terrain::new(g, zones));
        assert!(ns.is_finite() && ns > 0.0, "{ns}");
    }

    /// Work stopped at its deadline: too large for the timeout when, at the rate it
    /// ran, it would not finish alone within the budget (413, the field named, no
    /// `Retry-After`); otherwise it was slowed by the work beside it (503, retry).
    #[test]
    fn work_cut_off_at_its_deadline_is_judged_by_the_rate_it_ran() {
        let ms = Duration::from_millis;
        // Two threads, a 100 ms timeout: 75 ms of budget.
        let pool = (2, ms(75), ms(100), ms(3000));
        // 100 of 1,000 units in 40 ms: 400 ms spread over two threads, over 75 ms.
        let cut = CutOff::judge((100, 1000, ms(40), ms(0)), SPREAD, pool);
        assert_eq!(cut.alone, Some(ms(200)));
        assert_eq!(cut.error_code(), ErrorCode::TooLarge);
        assert_eq!((cut.retry_after, cut.field()), (None, Some("points")));
        let text = cut.to_string();
        assert!(
            text.starts_with("points: this request's work was stopped unfinished at three quarters of request_timeout (100ms), 100 of 1000 units"),
            "{text}"
        );
        assert!(text.ends_with("ask for fewer points"), "{text}");
        // One thread: not divided.
        let cut = CutOff::judge((100, 1000, ms(40), ms(0)), ONE_THREAD, pool);
        assert_eq!(cut.alone, Some(ms(400)));
        // What the request spent before its work (its body) counts: 50 + 33 ms.
        let cut = CutOff::judge((900, 1000, ms(60), ms(50)), SPREAD, pool);
        assert_eq!(cut.alone.unwrap().as_micros(), 83_333);
        assert_eq!(cut.error_code(), ErrorCode::TooLarge);
        // 900 of 1,000 in 60 ms: 33 ms alone, within the budget: it shared the pool.
        let cut = CutOff::judge((900, 1000, ms(60), ms(0)), SPREAD, pool);
        assert_eq!(cut.error_code(), ErrorCode::Overloaded);
        // 3 s queued over two threads: retry after 2 s.
        assert_eq!(
            (cut.retry_after, cut.field()),
            (Some(Duration::from_secs(2)), None)
        );
        assert!(cut.to_string().starts_with("overloaded: "), "{cut}");
        // Nothing done: no rate, retry.
        let cut = CutOff::judge((0, 1000, Duration::ZERO, ms(0)), SPREAD, pool);
        assert_eq!((cut.alone, cut.error_code()), (None, ErrorCode::Overloaded));
        // Nothing done because the request took the budget before its work began.
        let cut = CutOff::judge((0, 1000, Duration::ZERO, ms(80)), SPREAD, pool);
        assert_eq!(
            (cut.alone, cut.error_code()),
            (Some(ms(80)), ErrorCode::TooLarge)
        );
        let text = cut.to_string();
        assert!(
            text.starts_with("points: this request spent 80.0ms before its work could begin"),
            "{text}"
        );
    }
}
