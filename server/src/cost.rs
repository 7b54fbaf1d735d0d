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
//! not finish within three quarters of `request_timeout`. A request alone is always
//! admitted: every request within the documented limits finishes when it has the
//! pool to itself.
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

use terrain_core::{Generator, Terrain};

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
}

impl Meter {
    /// A meter estimating `seed` nanoseconds per unit until it measures.
    pub fn new(seed: f64) -> Self {
        Meter {
            ns_per_unit: AtomicU64::new(seed.max(0.0).to_bits()),
            measured: false.into(),
        }
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
        }
    }

    /// Each meter by the name of its work (the `work` label of
    /// `terrain_work_estimate_seconds`).
    pub fn named(&self) -> [(&'static str, &Meter); 10] {
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

    /// The estimated pool time of the admitted, unfinished work.
    pub fn queued(&self) -> Duration {
        locked(&self.admitted).total
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

    /// Admits work estimated at `own`, or refuses it when other work is admitted and,
    /// sharing the pool with it, `own` would not finish within the budget.
    pub fn admit(&self, own: Duration) -> Result<Ticket, Busy> {
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
                });
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
        assert_eq!(meter.estimate(3), Duration::from_nanos(3000));
        // The first measurement replaces the seed.
        meter.observe(10, Duration::from_micros(50));
        assert_eq!(meter.ns_per_unit(), 5000.0);
        // Later ones move the mean by a quarter of the difference.
        meter.observe(10, Duration::from_micros(90));
        assert_eq!(meter.ns_per_unit(), 6000.0);
        meter.observe(0, Duration::from_secs(1));
        assert_eq!(meter.ns_per_unit(), 6000.0);
    }

    #[test]
    fn work_is_refused_when_beside_the_admitted_work_it_would_not_finish_in_time() {
        // Two threads, 4 s timeout: a request may take 3 s beside the others.
        let queue = CostQueue::new(2, Duration::from_secs(4));
        let s = Duration::from_secs;
        // Alone, even work over the budget is admitted.
        let big = queue.admit(s(10)).unwrap();
        assert_eq!(queue.queued(), s(10));
        // Small work passes beside it: the pool takes turns.
        let small = queue.admit(Duration::from_millis(100)).unwrap();
        drop(small);
        // 3 s beside the 10 s: (3 + 3) / 2 = 3 s, within the budget; 4 s is not.
        let three = queue.admit(s(3)).unwrap();
        drop(three);
        let err = queue.admit(s(4)).unwrap_err();
        assert_eq!((err.queued, err.own, err.finish), (s(10), s(4), s(4)));
        assert_eq!((err.threads, err.timeout), (2, s(4)));
        // 10 s over two threads: retry in 5 s.
        assert_eq!(err.retry_after, s(5));
        assert_eq!(err.error_code(), ErrorCode::Overloaded);
        drop(big);
        assert_eq!(queue.queued(), Duration::ZERO);
        // Each admitted request counts: 2 s beside two of 2 s is (2 + 4) / 2 = 3 s.
        let a = queue.admit(s(2)).unwrap();
        let b = queue.admit(s(2)).unwrap();
        let c = queue.admit(s(2)).unwrap();
        assert!(queue.admit(s(2)).is_err());
        drop(b);
        let d = queue.charge(s(60));
        assert_eq!(queue.queued(), s(64));
        drop((a, c, d));
        assert_eq!(queue.queued(), Duration::ZERO);
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
        let _held = queue.admit(Duration::from_millis(10)).unwrap();
        let err = queue.admit(Duration::from_millis(200)).unwrap_err();
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
}
