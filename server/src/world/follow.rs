//! Replicas over a shared store: every mutation goes to the world's NATS bucket
//! first, and every replica (the one that proposed it included) applies it from the
//! bucket's change feed, in revision order.
//!
//! - Proposing ([`World::propose`]): plan against the applied state, write with
//!   compare-and-swap on the zone's key revision, wait for JetStream's ack, then wait
//!   until this replica's follower has applied that revision, and answer what the
//!   follower computed. A write that lost a race (another replica changed the zone
//!   first) is planned again once that change is applied here, so the answer always
//!   describes what really happened (`registered`, `replaced`, or `unchanged`).
//! - Following ([`Replication::start`]): one task per world watches the bucket from
//!   the last applied revision + 1 and applies each message through the same path as
//!   the embedded registry: local commit (`data_dir/terrain.redb` is this replica's
//!   copy of what it applied, so a restart resumes from there and resuming
//!   subscribers replay from it), in-memory install, commit listeners (mesh cache,
//!   then events). So an event on replica B carries the revision and content it has on
//!   replica A. When NATS goes away the task waits and watches again from where it
//!   stopped; reads keep using the applied state.
//! - Readiness ([`Replication::current`]): connected, watching, and applied up to the
//!   bucket's last revision, for every world.

use std::{
    collections::VecDeque,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use futures::StreamExt;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::{
    Outcome, World, Worlds,
    registry::{Op, Plan},
};
use crate::{
    api::ApiState,
    config::NatsConfig,
    error::ApiError,
    store::{
        MutationKind,
        nats::{Bucket, CONNECT_DEADLINE, FeedEntry, NatsError, NatsStore, RECONNECT_GRACE, Write},
    },
};

/// How many times a proposal that lost a compare-and-swap is planned again.
const MAX_ATTEMPTS: usize = 16;
/// How long a proposal waits for this replica to apply what JetStream acknowledged
/// (the change is stored by then; after a NATS node is lost, the feed's consumer may
/// need several seconds to be recreated on the new stream leader).
const APPLY_WAIT: Duration = Duration::from_secs(30);
/// How often the follower checks the connection, and readiness is recomputed.
const TICK: Duration = Duration::from_millis(200);
/// How long a feed may deliver nothing while the bucket is known to hold more before
/// it is reopened (its consumer may have lived on a node that is gone).
const STALL: Duration = Duration::from_secs(2);
/// Outcomes kept for proposers to collect.
const RECENT_OUTCOMES: usize = 4096;

/// One world's link to its bucket.
#[derive(Debug)]
pub struct Shared {
    bucket: Bucket,
    /// The last revision applied here.
    applied: watch::Sender<u64>,
    /// The newest revision known to exist in the bucket.
    latest: AtomicU64,
    /// Whether a change feed is open.
    watching: AtomicBool,
    /// Recently applied outcomes (`None`: the revision changed nothing here), for the
    /// proposers waiting for them.
    recent: Mutex<VecDeque<(u64, Option<Outcome>)>>,
}

impl Shared {
    fn new(bucket: Bucket, applied: u64) -> Self {
        Shared {
            bucket,
            applied: watch::Sender::new(applied),
            latest: AtomicU64::new(applied),
            watching: AtomicBool::new(false),
            recent: Mutex::new(VecDeque::new()),
        }
    }

    /// The last revision applied here.
    pub fn applied(&self) -> u64 {
        *self.applied.borrow()
    }

    /// Connected, watching and caught up with what the bucket is known to hold.
    pub fn current(&self) -> bool {
        self.bucket.connected()
            && self.watching.load(Ordering::Acquire)
            && self.applied() >= self.latest.load(Ordering::Acquire)
    }

    fn note_latest(&self, revision: u64) {
        self.latest.fetch_max(revision, Ordering::AcqRel);
    }

    fn record(&self, revision: u64, outcome: Option<Outcome>) {
        {
            let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
            if recent.len() == RECENT_OUTCOMES {
                recent.pop_front();
            }
            recent.push_back((revision, outcome));
        }
        self.applied.send_replace(revision);
    }

    fn outcome(&self, revision: u64) -> Option<Option<Outcome>> {
        let recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent
            .iter()
            .rev()
            .find(|(r, _)| *r == revision)
            .map(|(_, o)| o.clone())
    }

    /// Waits until revision `revision` is applied here, for at most `bound`.
    async fn wait_applied(&self, revision: u64, bound: Duration) -> bool {
        let mut rx = self.applied.subscribe();
        matches!(
            tokio::time::timeout(bound, rx.wait_for(|&a| a >= revision)).await,
            Ok(Ok(_))
        )
    }
}

/// The followers of every world of one server.
#[derive(Debug)]
pub struct Replication {
    worlds: Arc<Worlds>,
    stop: CancellationToken,
}

impl Replication {
    /// Links each world to its bucket (from `buckets`, in the worlds' order) and starts
    /// following. Call before any mutation.
    pub async fn start(worlds: &Arc<Worlds>, buckets: Vec<Bucket>) -> Replication {
        let stop = CancellationToken::new();
        for (world, bucket) in worlds.iter().zip(buckets) {
            let applied = world.read().await.revision();
            let shared = Arc::new(Shared::new(bucket, applied));
            if world.shared.set(Arc::clone(&shared)).is_err() {
                warn!(world = world.id(), "world already follows a bucket");
                continue;
            }
            tokio::spawn(follow(Arc::clone(world), shared, stop.clone()));
        }
        Replication {
            worlds: Arc::clone(worlds),
            stop,
        }
    }

    /// Waits until every world has applied its bucket's last revision, for at most
    /// `bound`; fails naming the world that is behind, or whose bucket holds fewer
    /// revisions than this replica applied (a different bucket).
    pub async fn catch_up(&self, bound: Duration) -> Result<(), String> {
        for world in self.worlds.iter() {
            let Some(shared) = world.shared.get() else {
                continue;
            };
            let latest = shared
                .bucket
                .last_revision()
                .await
                .map_err(|e| format!("world {:?}: {e}", world.id()))?;
            let applied = shared.applied();
            if applied > latest {
                return Err(format!(
                    "world {:?}: this replica applied revision {applied} but bucket {} ends at \
                     {latest}: it is not the bucket this data_dir followed (start with an \
                     empty data_dir to follow it)",
                    world.id(),
                    shared.bucket.name()
                ));
            }
            shared.note_latest(latest);
            if !shared.wait_applied(latest, bound).await {
                return Err(format!(
                    "world {:?}: not caught up with bucket {} (revision {latest}) within {bound:?}",
                    world.id(),
                    shared.bucket.name()
                ));
            }
        }
        Ok(())
    }

    /// Whether every world is connected, watching and caught up. Asks each bucket for
    /// its last revision (a world whose bucket cannot answer is not current).
    pub async fn current(&self) -> bool {
        let mut all = true;
        for world in self.worlds.iter() {
            let Some(shared) = world.shared.get() else {
                continue;
            };
            if shared.bucket.connected() {
                match tokio::time::timeout(TICK * 5, shared.bucket.last_revision()).await {
                    Ok(Ok(latest)) => shared.note_latest(latest),
                    _ => all = false,
                }
            }
            all &= shared.current();
        }
        all
    }

    /// Stops following.
    pub fn stop(&self) {
        self.stop.cancel();
    }
}

impl Drop for Replication {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// How long start-up waits for a replica to catch up with its buckets.
const CATCH_UP: Duration = Duration::from_secs(60);

/// Connects to NATS, opens each world's bucket, starts following and waits until
/// every world has caught up. The message names what failed.
pub async fn start(config: &NatsConfig, worlds: &Arc<Worlds>) -> Result<Replication, String> {
    let store = NatsStore::connect(config)
        .await
        .map_err(|e| e.to_string())?;
    let mut buckets = Vec::new();
    // A cluster that just started may not have elected its JetStream leader yet.
    let deadline = tokio::time::Instant::now() + CONNECT_DEADLINE;
    for world in worlds.iter() {
        let bucket = loop {
            match store.bucket(world.id()).await {
                Ok(bucket) => break bucket,
                Err(e) if tokio::time::Instant::now() < deadline => {
                    warn!(world = world.id(), error = %e, "opening the bucket; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                Err(e) => return Err(e.to_string()),
            }
        };
        buckets.push(bucket);
    }
    info!(url = %config.urls.join(","), buckets = buckets.len(), "following NATS JetStream key-value buckets");
    let replication = Replication::start(worlds, buckets).await;
    replication.catch_up(CATCH_UP).await?;
    Ok(replication)
}

/// Keeps `/readyz` and gRPC health in step with [`Replication::current`] until
/// `shutdown`.
pub async fn report_readiness(
    replication: Arc<Replication>,
    state: Arc<ApiState>,
    shutdown: CancellationToken,
) {
    let mut tick = tokio::time::interval(TICK);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        let current = replication.current().await;
        state.readiness.set_replicated(current).await;
    }
}

/// Follows `world`'s bucket until `stop` fires: watch from the last applied revision,
/// apply in order, and watch again after any interruption.
async fn follow(world: Arc<World>, shared: Arc<Shared>, stop: CancellationToken) {
    loop {
        if stop.is_cancelled() {
            return;
        }
        if !shared.bucket.connected() {
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(TICK) => continue,
            }
        }
        let from = shared.applied() + 1;
        let mut feed = match shared.bucket.watch_from(from).await {
            Ok(feed) => feed,
            Err(e) => {
                warn!(world = world.id(), error = %e, "watching the bucket; retrying");
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(TICK * 2) => continue,
                }
            }
        };
        debug!(world = world.id(), from, "following the bucket");
        shared.watching.store(true, Ordering::Release);
        let mut tick = tokio::time::interval(TICK);
        let mut progress = tokio::time::Instant::now();
        loop {
            let item = tokio::select! {
                () = stop.cancelled() => return,
                _ = tick.tick() => {
                    if !shared.bucket.connected() {
                        break;
                    }
                    let behind = shared.latest.load(Ordering::Acquire) > shared.applied();
                    if behind && progress.elapsed() > STALL {
                        warn!(world = world.id(), applied = shared.applied(), "change feed stalled; watching again");
                        break;
                    }
                    continue;
                }
                item = feed.next() => item,
            };
            progress = tokio::time::Instant::now();
            match item {
                None => break,
                Some(Err(e)) => {
                    warn!(world = world.id(), error = %e, "change feed ended; watching again");
                    break;
                }
                Some(Ok(entry)) => {
                    if !apply(&world, &shared, entry).await {
                        break;
                    }
                }
            }
        }
        shared.watching.store(false, Ordering::Release);
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(TICK) => {}
        }
    }
}

/// Applies one feed entry on a blocking thread; false when following must restart.
async fn apply(world: &Arc<World>, shared: &Arc<Shared>, entry: FeedEntry) -> bool {
    let revision = entry.revision;
    if revision <= shared.applied() {
        return true; // seen before the feed was reopened
    }
    shared.note_latest(revision + entry.pending);
    let w = Arc::clone(world);
    let applied = tokio::task::spawn_blocking(move || w.apply_feed(entry)).await;
    match applied {
        Ok(Ok(outcome)) => {
            shared.record(revision, outcome);
            true
        }
        Ok(Err(e)) => {
            warn!(world = world.id(), revision, error = %e, "applying a replicated change");
            false
        }
        Err(e) => {
            warn!(world = world.id(), revision, error = %e, "applying a replicated change");
            false
        }
    }
}

impl World {
    /// With a shared store, waits (for at most a few seconds) until this replica has
    /// applied `revision`: a client resuming here may have heard of it from another
    /// replica. Returns at once otherwise.
    pub async fn wait_applied(&self, revision: u64) {
        if let Some(shared) = self.shared.get() {
            shared.wait_applied(revision, APPLY_WAIT).await;
        }
    }

    /// Proposes `op` to the shared store and answers once this replica applied it.
    pub(super) async fn propose(&self, shared: &Arc<Shared>, op: Op) -> Result<Outcome, ApiError> {
        // One proposal of this world at a time from this replica.
        let _writer = self.writer.lock().await;
        // After a lost race: the revision the key has in the bucket.
        let mut seen: Option<u64> = None;
        for _ in 0..MAX_ATTEMPTS {
            if !shared.bucket.wait_connected(RECONNECT_GRACE).await {
                return Err(ApiError::Unavailable(
                    "zone store unreachable (NATS): mutations are refused until it is back; \
                     reads continue from the last applied state",
                ));
            }
            let (plan, expected) = {
                let state = self.state.read().await;
                let plan = self.plan(&state, op.clone())?;
                let expected = match &plan.mutation {
                    None => return Ok(plan.outcome),
                    Some(m) => match m.kind {
                        MutationKind::Registered => seen.unwrap_or(0),
                        MutationKind::Replaced | MutationKind::Removed => {
                            state.zones().revision_of(&m.zone.id).unwrap_or(0)
                        }
                    },
                };
                (plan, expected)
            };
            match self.write(shared, &plan, expected).await {
                Ok(revision) => {
                    shared.note_latest(revision);
                    return self.collect(shared, revision).await;
                }
                Err(NatsError::Conflict(id)) => {
                    let latest = shared.bucket.key_revision(&id).await.map_err(unavailable)?;
                    let latest = latest.unwrap_or(0);
                    debug!(world = %self.id, zone = %id, latest, "lost a compare-and-swap; planning again");
                    if !shared.wait_applied(latest, APPLY_WAIT).await {
                        return Err(ApiError::Unavailable(
                            "zone store: this replica is behind; try again",
                        ));
                    }
                    seen = Some(latest);
                }
                Err(e) => return Err(unavailable(e)),
            }
        }
        Err(ApiError::Aborted(
            "zone store: the zone keeps changing concurrently; try again",
        ))
    }

    async fn write(&self, shared: &Shared, plan: &Plan, expected: u64) -> Result<u64, NatsError> {
        let Some(mutation) = &plan.mutation else {
            return Ok(plan.outcome.revision);
        };
        let write = match mutation.kind {
            MutationKind::Removed => Write::Delete(&mutation.zone.id),
            MutationKind::Registered | MutationKind::Replaced => Write::Put(&mutation.zone),
        };
        shared.bucket.propose(write, expected).await
    }

    /// The outcome of the acknowledged revision `revision`, once applied here.
    async fn collect(&self, shared: &Shared, revision: u64) -> Result<Outcome, ApiError> {
        if !shared.wait_applied(revision, APPLY_WAIT).await {
            return Err(ApiError::Internal(format!(
                "accepted as revision {revision}, but this replica has not applied it within \
                 {APPLY_WAIT:?}"
            )));
        }
        match shared.outcome(revision) {
            Some(Some(outcome)) => Ok(outcome),
            _ => Err(ApiError::Internal(format!(
                "accepted as revision {revision}, which a later change superseded before \
                 this replica applied it"
            ))),
        }
    }
}

fn unavailable(e: NatsError) -> ApiError {
    info!(error = %e, "zone store write failed");
    ApiError::Unavailable("zone store (NATS) did not acknowledge the change; try again")
}
