//! Admission by cost: what a request's work is estimated to take on the compute pool,
//! and the queue of admitted work it is measured against.
//!
//! Counting requests in flight (`max_in_flight`) does not stop a server from taking
//! on more work than it can finish: thirty cold voxel map tiles fit in the slots and
//! all time out together. So every request that takes work to the pool first asks
//! [`CostQueue::admit`] with an estimate (a [`Meter`]'s time per unit times its units).
//! The queue holds the estimates of the admitted work not yet finished; a request is
//! refused at once (`RESOURCE_EXHAUSTED` / 503 with `Retry-After`, as when the slots
//! are full) when the queue is not empty and the queue plus its own work, shared by
//! the pool's threads, would pass three quarters of `request_timeout`. A request
//! alone is always admitted: every request within the documented limits finishes
//! when it has the pool to itself.
//!
//! A meter starts from a timing of the bare generator taken when its world opens
//! ([`Meters::time_generator`]) and follows what the work really took (an
//! exponentially weighted mean of the pool time per unit, the first measurement
//! replacing the seed), so estimates follow the machine, warm caches and the build
//! profile. Estimates only decide admission: they never change an answer.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use terrain_core::{Generator, Terrain};

use crate::error::{ErrorCode, ServiceError};

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
    measured: std::sync::atomic::AtomicBool,
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

/// The meters of one world, one per kind of work.
#[derive(Debug)]
pub struct Meters {
    /// Per point of a batch.
    pub batch: Meter,
    /// Per sample of a heightmap.
    pub heightmap: Meter,
    /// Per map tile rendered.
    pub map: Meter,
    /// Per mesh built (a heightfield tile, or a voxel chunk's greedy mesh).
    pub mesh: Meter,
    /// Per voxel chunk of blocks or instances built.
    pub chunk: Meter,
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
            mesh: Meter::new(height_ns * tile_vertices),
            chunk: Meter::new(height_ns * chunk_columns),
        }
    }

    /// Each meter by the name of its work (the `work` label of
    /// `terrain_work_estimate_seconds`).
    pub fn named(&self) -> [(&'static str, &Meter); 5] {
        [
            ("batch_point", &self.batch),
            ("heightmap_sample", &self.heightmap),
            ("map_tile", &self.map),
            ("mesh", &self.mesh),
            ("chunk", &self.chunk),
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
#[derive(Debug, Clone)]
pub struct CostQueue {
    /// Nanoseconds of admitted, unfinished work.
    queued: Arc<AtomicU64>,
    /// What the queue plus a request's own work may fill, in pool time (the budget
    /// times the threads).
    capacity: Duration,
    threads: u32,
}

/// Admitted work: its estimate leaves the queue when this drops.
#[derive(Debug)]
pub struct Ticket {
    ns: u64,
    queued: Arc<AtomicU64>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let ns = self.ns;
        let _ = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| {
                Some(q.saturating_sub(ns))
            });
    }
}

/// A request refused because the work already admitted and its own would not finish
/// in time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "overloaded: {queued:.1?} of work is queued on {threads} compute threads and this request adds about {own:.1?}; together they would not finish within request_timeout ({timeout:?}); retry after {retry_after:?}"
)]
pub struct Busy {
    pub queued: Duration,
    pub own: Duration,
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
        let threads = u32::try_from(threads.max(1)).unwrap_or(u32::MAX);
        CostQueue {
            queued: Arc::default(),
            capacity: timeout.mul_f64(BUDGET_SHARE) * threads,
            threads,
        }
    }

    /// The estimated pool time of the admitted, unfinished work.
    pub fn queued(&self) -> Duration {
        Duration::from_nanos(self.queued.load(Ordering::Acquire))
    }

    /// Queues work estimated at `own` that is not refused (work the server starts
    /// itself, ahead of requests), so that requests see it in the queue.
    pub fn charge(&self, own: Duration) -> Ticket {
        let ns = u64::try_from(own.as_nanos()).unwrap_or(u64::MAX);
        let _ = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| {
                Some(q.saturating_add(ns))
            });
        Ticket {
            ns,
            queued: Arc::clone(&self.queued),
        }
    }

    /// Admits work estimated at `own`, or refuses it when other work is queued and
    /// the two would not fit the budget.
    pub fn admit(&self, own: Duration) -> Result<Ticket, Busy> {
        let ns = u64::try_from(own.as_nanos()).unwrap_or(u64::MAX);
        let capacity = u64::try_from(self.capacity.as_nanos()).unwrap_or(u64::MAX);
        self.queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |queued| {
                (queued == 0 || queued.saturating_add(ns) <= capacity)
                    .then(|| queued.saturating_add(ns))
            })
            .map(|_| Ticket {
                ns,
                queued: Arc::clone(&self.queued),
            })
            .map_err(|queued| {
                let queued = Duration::from_nanos(queued);
                let wait = queued / self.threads;
                Busy {
                    queued,
                    own,
                    threads: self.threads,
                    timeout: self.capacity.div_f64(BUDGET_SHARE) / self.threads,
                    retry_after: Duration::from_secs(wait.as_secs_f64().ceil().max(1.0) as u64),
                }
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
    fn work_is_refused_only_when_queued_work_and_its_own_pass_the_budget() {
        // Two threads, 4 s timeout: 3 s each, 6 s of pool time.
        let queue = CostQueue::new(2, Duration::from_secs(4));
        // Alone, even work over the budget is admitted.
        let big = queue.admit(Duration::from_secs(10)).unwrap();
        assert_eq!(queue.queued(), Duration::from_secs(10));
        let err = queue.admit(Duration::from_millis(1)).unwrap_err();
        assert_eq!(err.queued, Duration::from_secs(10));
        assert_eq!(err.threads, 2);
        assert_eq!(err.timeout, Duration::from_secs(4));
        // 10 s over two threads: retry in 5 s.
        assert_eq!(err.retry_after, Duration::from_secs(5));
        assert_eq!(err.error_code(), ErrorCode::Overloaded);
        drop(big);
        assert_eq!(queue.queued(), Duration::ZERO);

        let a = queue.admit(Duration::from_secs(4)).unwrap();
        let b = queue.admit(Duration::from_secs(2)).unwrap();
        assert!(queue.admit(Duration::from_millis(1)).is_err());
        drop(b);
        let c = queue.admit(Duration::from_secs(2)).unwrap();
        assert_eq!(queue.queued(), Duration::from_secs(6));
        drop((a, c));
        assert_eq!(queue.queued(), Duration::ZERO);
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
