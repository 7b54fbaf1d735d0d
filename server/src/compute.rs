//! CPU work off the async runtime, shared fairly between requests.
//!
//! Large batches and heightmaps (and the encoding of large JSON answers, mesh builds,
//! the bake) run on a rayon pool owned by the server, so an async worker thread never
//! blocks on them and both cores share the work. A job reaches the pool through
//! [`Compute::run`] (one closure) or [`Compute::run_sliced`] (many small slices) and
//! reports back on a `oneshot` channel; if the caller goes away, the answer is dropped.
//!
//! Fairness: a request's work may be cut into many small slices ([`Compute::run_sliced`];
//! the height kernels in `query::kernels` cut batches and heightmaps into slices of
//! about a millisecond), and the pool takes slices from the open requests in turn
//! (round robin over a fair queue), not request after request. A small request behind
//! a huge one therefore waits for a few slices, not for the whole of the huge one; a
//! request whose caller went away (a client that hung up, `request_timeout`) has its
//! remaining slices skipped. Work is admitted by its estimated cost first
//! ([`crate::cost`]).

use std::{
    collections::VecDeque,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use crate::cost::{CostQueue, Meter, Refused, Scope, Ticket, deadline};
use crate::sync::locked;

use tokio::sync::oneshot;

/// Above this many heights (or values to encode), work goes to the pool.
pub const OFFLOAD_THRESHOLD: usize = 2048;

/// Why offloaded work produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum ComputeError {
    /// The pool could not be started.
    #[error("compute pool: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// The job ended without answering (it panicked).
    #[error("a compute job ended without an answer")]
    Lost,
}

/// Why metered work produced no answer ([`Compute::run_metered`]).
#[derive(Debug, thiserror::Error)]
pub enum Unfinished {
    /// Stopped at its request's deadline ([`crate::cost::CutOff`]).
    #[error(transparent)]
    Refused(#[from] Refused),
    #[error(transparent)]
    Compute(#[from] ComputeError),
}

/// What sliced work estimated by a meter is, for [`Compute::run_metered`]: the meter
/// that learns from it, its units and what sizes it.
#[derive(Debug, Clone, Copy)]
pub struct Metered<'m> {
    pub meter: &'m Meter,
    pub units: u64,
    pub scope: Scope,
}

/// One request's slices as the fair queue sees them.
trait Slices: Send + Sync {
    /// How many slices the request has.
    fn count(&self) -> usize;
    /// Runs slice `index` (each index exactly once, on any thread).
    fn run(&self, index: usize);
}

/// The requests with slices not yet started, each with the index of its next slice.
type FairQueue = Mutex<VecDeque<(Arc<dyn Slices>, usize)>>;

/// A sliced job: `work(i)` for every slice, answered in slice order.
struct SlicedJob<T, F> {
    work: F,
    /// How many slices (the length of `results`, fixed).
    count: usize,
    results: Mutex<Vec<Option<T>>>,
    remaining: AtomicUsize,
    answer: Mutex<Option<oneshot::Sender<Vec<T>>>>,
}

impl<T, F> SlicedJob<T, F> {
    /// Whether the caller stopped waiting for the answer.
    fn abandoned(&self) -> bool {
        let answer = locked(&self.answer);
        answer.as_ref().is_none_or(oneshot::Sender::is_closed)
    }
}

impl<T, F> Slices for SlicedJob<T, F>
where
    T: Send,
    F: Fn(usize) -> T + Send + Sync,
{
    fn count(&self) -> usize {
        self.count
    }

    fn run(&self, index: usize) {
        if !self.abandoned() {
            let value = (self.work)(index);
            locked(&self.results)[index] = Some(value);
        }
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            let results = std::mem::take(&mut *locked(&self.results));
            let answer = locked(&self.answer).take();
            // Every slice ran unless the caller left, and then nobody reads this.
            if let (Some(answer), Some(values)) =
                (answer, results.into_iter().collect::<Option<Vec<T>>>())
            {
                let _ = answer.send(values);
            }
        }
    }
}

/// The server's compute pool.
#[derive(Clone)]
pub struct Compute {
    pool: Arc<rayon::ThreadPool>,
    queue: Arc<FairQueue>,
    /// The estimated work admitted to the pool and not yet finished.
    costs: CostQueue,
}

impl std::fmt::Debug for Compute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let waiting = locked(&self.queue).len();
        f.debug_struct("Compute")
            .field("threads", &self.pool.current_num_threads())
            .field("sliced_requests_waiting", &waiting)
            .finish()
    }
}

impl Compute {
    /// A pool with one thread per core, at the process's scheduling priority. A
    /// panicking job is logged and its caller gets [`ComputeError::Lost`]; the process
    /// is not aborted.
    pub fn new() -> Result<Self, ComputeError> {
        Self::with_nice(0, Duration::from_secs(3600))
    }

    /// [`Compute::new`], its threads `nice` steps below the creating thread's
    /// scheduling priority (Linux keeps a nice value per thread): bulk computation
    /// then yields the cores to the threads that answer requests, acknowledge changes
    /// and send events whenever those have work, and takes them back at once. Where
    /// the priority cannot be lowered, the pool runs at the process's and says so.
    /// Work is admitted by its cost against `request_timeout` ([`Compute::admit`]).
    pub fn with_nice(nice: u8, request_timeout: Duration) -> Result<Self, ComputeError> {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("terrain-compute-{i}"))
            .start_handler(move |i| lower_priority(i, nice))
            .panic_handler(|_| tracing::error!("a compute job panicked"))
            .build()?;
        Ok(Compute {
            costs: CostQueue::new(pool.current_num_threads(), request_timeout),
            pool: Arc::new(pool),
            queue: Arc::default(),
        })
    }

    /// The number of threads in the pool.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Admits `units` of work, estimated by `meter`, or refuses it at once when the
    /// work queued before it and its own would not finish within `request_timeout`, or
    /// its own would not even alone ([`crate::cost`]; `scope` names what sizes it). The
    /// estimate stays queued until the ticket drops.
    pub fn admit(&self, meter: &Meter, units: u64, scope: Scope) -> Result<Ticket, Refused> {
        self.costs
            .admit(meter.estimate(units), scope, meter.settled())
    }

    /// Waits for kept work made in a task of its own until the deadline of the request
    /// this task answers ([`CostQueue::within_deadline`]).
    pub async fn ready_within<F: std::future::Future>(
        &self,
        what: impl FnOnce() -> String,
        estimate: Duration,
        work: F,
    ) -> Result<F::Output, Refused> {
        Ok(self.costs.within_deadline(what, estimate, work).await?)
    }

    /// Queues work estimated at `cost` that the server starts itself (never refused),
    /// so that requests are admitted against it too.
    pub fn charge(&self, cost: Duration) -> Ticket {
        self.costs.charge(cost)
    }

    /// What a request's expected time to finish may reach ([`crate::cost`]): work
    /// whose estimate alone exceeds it is refused, or (3D Tiles) built in the
    /// background.
    pub fn budget(&self) -> Duration {
        self.costs.budget()
    }

    /// The estimated pool time of the admitted, unfinished work.
    pub fn queued(&self) -> Duration {
        self.costs.queued()
    }

    /// [`Compute::run`], answering also the pool time `job` took, for a
    /// [`crate::cost::Meter`].
    pub async fn run_timed<T, F>(&self, job: F) -> Result<(T, Duration), ComputeError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.run(move || {
            let start = Instant::now();
            let value = job();
            (value, start.elapsed())
        })
        .await
    }

    /// [`Compute::run_sliced`], answering also the pool time the slices took (the sum
    /// of their run times, without the waits between them), for a [`crate::cost::Meter`].
    pub async fn run_sliced_timed<T, F>(
        &self,
        slices: usize,
        work: F,
    ) -> Result<(Vec<T>, Duration), ComputeError>
    where
        T: Send + 'static,
        F: Fn(usize) -> T + Send + Sync + 'static,
    {
        let busy = Arc::new(AtomicU64::new(0));
        let spent = Arc::clone(&busy);
        let values = self
            .run_sliced(slices, move |i| {
                let start = Instant::now();
                let value = work(i);
                let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
                spent.fetch_add(ns, Ordering::Relaxed);
                value
            })
            .await?;
        Ok((values, Duration::from_nanos(busy.load(Ordering::Relaxed))))
    }

    /// [`Compute::run_sliced`] for admitted work estimated by `metered.meter`, within the
    /// deadline of the request this task answers ([`crate::cost::deadline`]): done in
    /// time, the meter learns what the slices took; when the deadline passes first, the
    /// slices not yet started are skipped and the answer is the refusal
    /// ([`crate::cost::CutOff`]; the meter learns from the slices done), so that the
    /// request is answered before `request_timeout` runs out.
    pub async fn run_metered<T, F>(
        &self,
        metered: Metered<'_>,
        slices: usize,
        work: F,
    ) -> Result<Vec<T>, Unfinished>
    where
        T: Send + 'static,
        F: Fn(usize) -> T + Send + Sync + 'static,
    {
        let (deadline, began) = (deadline(self.budget()), Instant::now());
        let busy = Arc::new(AtomicU64::new(0));
        let spent = Arc::clone(&busy);
        let values = self
            .run_sliced(slices, move |i| {
                if Instant::now() >= deadline {
                    return None;
                }
                let start = Instant::now();
                let value = work(i);
                let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
                spent.fetch_add(ns, Ordering::Relaxed);
                Some(value)
            })
            .await?;
        let busy = Duration::from_nanos(busy.load(Ordering::Relaxed));
        let ran = values.iter().filter(|v| v.is_some()).count();
        let Metered {
            meter,
            units,
            scope,
        } = metered;
        if ran < slices {
            // Units done, in proportion to the slices that ran (slices are even but
            // for the last).
            let done = (units as u128 * ran as u128 / slices.max(1) as u128) as u64;
            let cut = self.costs.cut_off(meter, (done, units, busy, began), scope);
            tracing::info!(
                done,
                units,
                busy = ?busy,
                field = scope.field,
                "work stopped unfinished at its request's deadline"
            );
            return Err(Refused::from(cut).into());
        }
        meter.observe(units, busy);
        Ok(values.into_iter().flatten().collect())
    }

    /// Runs `job` on the pool and waits for its answer without blocking the runtime,
    /// taking its turn with the sliced requests (it is one slice). Rayon parallel
    /// iterators inside `job` use this pool.
    pub async fn run<T, F>(&self, job: F) -> Result<T, ComputeError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let job = Mutex::new(Some(job));
        let mut answer = self
            .run_sliced(1, move |_| {
                let job = locked(&job).take();
                job.map(|job| job())
            })
            .await?;
        answer.pop().flatten().ok_or(ComputeError::Lost)
    }

    /// Runs `work(0)`, ..., `work(slices - 1)` on the pool, taking turns with the
    /// other sliced requests, and answers the values in slice order. If the returned
    /// future is dropped, the slices not yet started are skipped.
    pub async fn run_sliced<T, F>(&self, slices: usize, work: F) -> Result<Vec<T>, ComputeError>
    where
        T: Send + 'static,
        F: Fn(usize) -> T + Send + Sync + 'static,
    {
        if slices == 0 {
            return Ok(Vec::new());
        }
        let (tx, rx) = oneshot::channel();
        let job: Arc<dyn Slices> = Arc::new(SlicedJob {
            work,
            count: slices,
            results: Mutex::new((0..slices).map(|_| None).collect()),
            remaining: AtomicUsize::new(slices),
            answer: Mutex::new(Some(tx)),
        });
        locked(&self.queue).push_back((job, 0));
        // One pool task per slice; each runs whichever slice is next in turn.
        for _ in 0..slices {
            let queue = Arc::clone(&self.queue);
            self.pool.spawn(move || run_next_slice(&queue));
        }
        rx.await.map_err(|_| ComputeError::Lost)
    }
}

/// Lowers the calling thread's scheduling priority by `nice` (nothing for 0).
fn lower_priority(thread: usize, nice: u8) {
    if nice == 0 {
        return;
    }
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::nice(i32::from(nice)) {
        tracing::warn!(thread, nice, error = %e, "compute thread keeps the process's priority");
    }
    #[cfg(not(target_os = "linux"))]
    tracing::warn!(thread, nice, "compute_nice is only applied on Linux");
}

/// Takes the request at the front of the queue, puts it back at the end if it has
/// slices left, and runs its next slice.
fn run_next_slice(queue: &FairQueue) {
    let next = {
        let mut queue = locked(queue);
        let next = queue.pop_front();
        if let Some((job, index)) = &next
            && index + 1 < job.count()
        {
            queue.push_back((Arc::clone(job), index + 1));
        }
        next
    };
    if let Some((job, index)) = next {
        job.run(index);
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap()
    }

    /// The nice value of the calling thread (Linux: field 19 of its `stat`).
    #[cfg(target_os = "linux")]
    fn thread_nice() -> i64 {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        // After the command name's closing parenthesis: state is field 3, nice 19.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        rest.split_whitespace().nth(16).unwrap().parse().unwrap()
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_pool_runs_below_the_caller_s_priority_by_its_nice() {
        let caller = thread_nice();
        for nice in [0u8, 5] {
            let compute = Compute::with_nice(nice, Duration::from_secs(60)).unwrap();
            let seen = compute.run_sliced(4, |_| thread_nice()).await.unwrap();
            let want = (caller + i64::from(nice)).min(19);
            assert!(
                seen.iter().all(|&n| n == want),
                "nice {nice}: {seen:?}, caller {caller}"
            );
        }
        assert_eq!(thread_nice(), caller, "the caller's priority is unchanged");
    }

    /// Spins for about `d` of CPU time, as a slice of real work would.
    fn spin(d: Duration) {
        let start = Instant::now();
        while start.elapsed() < d {
            std::hint::spin_loop();
        }
    }

    #[test]
    fn a_small_request_takes_turns_with_a_huge_one() {
        let compute = Compute::new().unwrap();
        let rt = runtime();
        let done = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&done);
        // 4,000 slices of 1 ms: seconds of work on any pool.
        let huge = {
            let compute = compute.clone();
            rt.spawn(async move {
                compute
                    .run_sliced(4000, move |_| {
                        spin(Duration::from_millis(1));
                        counted.fetch_add(1, Ordering::Relaxed);
                    })
                    .await
            })
        };
        rt.block_on(async {
            while done.load(Ordering::Relaxed) < 10 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        });
        let started = Instant::now();
        let small = rt
            .block_on(compute.run_sliced(8, |i| {
                spin(Duration::from_millis(1));
                i * 2
            }))
            .unwrap();
        let waited = started.elapsed();
        assert_eq!(small, vec![0, 2, 4, 6, 8, 10, 12, 14]);
        // Taking turns, the small request waited for about 8 of the huge one's slices,
        // not for the rest of its 4,000.
        let huge_done = done.load(Ordering::Relaxed);
        assert!(
            huge_done < 2000,
            "the huge request ran {huge_done} slices first"
        );
        assert!(waited < Duration::from_secs(2), "waited {waited:?}");
        assert!(!huge.is_finished());
        huge.abort();
    }

    #[test]
    fn an_abandoned_request_skips_its_remaining_slices() {
        let compute = Compute::new().unwrap();
        let rt = runtime();
        let ran = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&ran);
        let job = compute.run_sliced(2000, move |_| {
            spin(Duration::from_millis(1));
            counted.fetch_add(1, Ordering::Relaxed);
        });
        // The caller gives up after 20 ms (as request_timeout does).
        let answer =
            rt.block_on(async { tokio::time::timeout(Duration::from_millis(20), job).await });
        assert!(answer.is_err());
        // The queue drains at once: the rest are skipped, not computed.
        let after = rt.block_on(compute.run_sliced(1, |_| 7)).unwrap();
        assert_eq!(after, vec![7]);
        let total = ran.load(Ordering::Relaxed);
        assert!(
            total < 500,
            "{total} of 2000 slices ran after the caller left"
        );
    }

    const POINTS: Scope = Scope {
        field: "points",
        narrow: "ask for fewer points",
        spread: true,
        kept: false,
    };

    /// Work admitted on an estimate far too low (2,000 slices of a millisecond guessed at
    /// nanoseconds) is stopped at its request's deadline, three quarters of a 100 ms
    /// timeout, and answered as too large for the timeout (alone it needs about a
    /// second on two threads), not left to run into the timeout; the meter learns what
    /// a unit costs.
    #[test]
    fn metered_work_is_stopped_at_its_request_s_deadline() {
        let timeout = Duration::from_millis(100);
        let compute = Compute::with_nice(0, timeout).unwrap();
        let rt = runtime();
        let meter = Meter::new(1.0);
        let metered = Metered {
            meter: &meter,
            units: 2000,
            scope: POINTS,
        };
        let started = Instant::now();
        let work = compute.run_metered(metered, 2000, |_| spin(Duration::from_millis(1)));
        let answer = rt.block_on(crate::cost::within_deadline(timeout, work));
        let took = started.elapsed();
        let Err(Unfinished::Refused(Refused::CutOff(cut))) = answer else {
            panic!("{answer:?}");
        };
        assert!(cut.done > 0 && cut.done < 2000, "{cut:?}");
        assert_eq!((cut.units, cut.timeout), (2000, timeout));
        assert!(cut.alone.unwrap() > Duration::from_millis(75), "{cut:?}");
        assert_eq!(cut.retry_after, None, "retrying cannot help");
        assert!(took < Duration::from_secs(2), "answered after {took:?}");
        assert!(meter.settled());
        assert!(meter.ns_per_unit() >= 900_000.0, "{}", meter.ns_per_unit());
        // Work that fits is answered, in order, and measured.
        let meter = Meter::new(1.0);
        let metered = Metered {
            meter: &meter,
            units: 10,
            scope: POINTS,
        };
        let values = rt
            .block_on(crate::cost::within_deadline(
                Duration::from_secs(60),
                compute.run_metered(metered, 10, |i| i * 3),
            ))
            .unwrap();
        assert_eq!(values, (0..10).map(|i| i * 3).collect::<Vec<_>>());
        assert!(meter.settled());
    }

    /// Kept work not ready by the request's deadline answers `Pending` with a
    /// `Retry-After` of at least a second; ready work answers its output.
    #[test]
    fn kept_work_not_ready_by_the_deadline_is_pending() {
        let timeout = Duration::from_millis(100);
        let compute = Compute::with_nice(0, timeout).unwrap();
        let rt = runtime();
        let never = std::future::pending::<u32>();
        let what = || "map tile terrain 1/2/3".to_string();
        let answer = rt.block_on(crate::cost::within_deadline(
            timeout,
            compute.ready_within(what, Duration::from_secs(5), never),
        ));
        let Err(Refused::Pending(pending)) = answer else {
            panic!("{answer:?}");
        };
        assert!(
            (4..=5).contains(&pending.retry_after.as_secs()),
            "{pending:?}"
        );
        let text = pending.to_string();
        assert!(
            text.starts_with("map tile terrain 1/2/3 is still being made"),
            "{text}"
        );
        let ready = rt.block_on(compute.ready_within(what, Duration::ZERO, async { 7 }));
        assert_eq!(ready, Ok(7));
    }
}
