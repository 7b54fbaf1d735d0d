//! Following the zone logs: one task per world reads the world's log
//! ([`crate::store::log::ZoneLog`]) from the last applied revision + 1 and applies
//! each entry in revision order (`World::apply_entry`); writers wait here for the
//! revision the log gave their proposal ([`Link::collect`]). The same for the
//! embedded store and for a shared one (NATS): with a shared store every replica,
//! the proposer included, applies every change from the log, so an event on replica
//! B carries the revision and content it has on replica A. When the log goes away
//! the task waits and follows again from where it stopped; reads keep using the
//! applied state.
//!
//! Readiness ([`Replication::current`]): connected, following, and applied up to the
//! log's last revision, for every world. The edge polls it (`/readyz`, gRPC health);
//! this module knows nothing of them.
//!
//! # Poison entries
//! An entry that does not decode ([`LogError::Poison`]: something other than a terrain
//! server wrote it) is logged (`warn`, with world, revision and reason), counted
//! (`terrain_replication_poison_total{world}`) and **skipped**: the world's revision
//! moves past it and following goes on. Skipping rather than stopping the world's
//! writes because every replica running this code skips the same entry, so replicas
//! stay equal to each other, and because one foreign write must not take a world's
//! writes down until someone repairs the shared bucket by hand. A later change of the
//! same zone is planned against what was applied (the compare-and-swap retry picks
//! up the poison entry's key revision). Before, such an entry ended the feed and the
//! follower watched again from the same revision forever.

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
use tracing::{debug, warn};

use super::{Outcome, RegistryError, World, Worlds};
use crate::sync::locked;
use crate::{
    metrics::Metrics,
    shutdown::Tasks,
    store::log::{Entry, LogError, ZoneLog},
};

/// How long a proposal waits for this server to apply what the log acknowledged
/// (the change is stored by then; after a NATS node is lost, the feed's consumer may
/// need several seconds to be recreated on the new stream leader).
const APPLY_WAIT: Duration = Duration::from_secs(30);
/// How often the follower checks the connection, and readiness is recomputed.
pub const TICK: Duration = Duration::from_millis(200);
/// How long a feed may deliver nothing while the log is known to hold more before
/// it is reopened (its consumer may have lived on a node that is gone).
const STALL: Duration = Duration::from_secs(2);
/// Outcomes kept for proposers to collect.
const RECENT_OUTCOMES: usize = 4096;

/// The last applied outcomes, oldest first, at most `capacity` (`None`: the revision
/// changed nothing here).
#[derive(Debug)]
struct Recent {
    capacity: usize,
    outcomes: VecDeque<(u64, Option<Outcome>)>,
}

impl Recent {
    fn new(capacity: usize) -> Self {
        Recent {
            capacity: capacity.max(1),
            outcomes: VecDeque::new(),
        }
    }

    /// Records `revision`'s outcome, evicting the oldest when full.
    fn record(&mut self, revision: u64, outcome: Option<Outcome>) {
        if self.outcomes.len() == self.capacity {
            self.outcomes.pop_front();
        }
        self.outcomes.push_back((revision, outcome));
    }

    /// `revision`'s outcome, if still kept.
    fn get(&self, revision: u64) -> Option<Option<Outcome>> {
        self.outcomes
            .iter()
            .rev()
            .find(|(r, _)| *r == revision)
            .map(|(_, o)| o.clone())
    }
}

/// One world's link to its log.
#[derive(Debug)]
pub struct Link {
    log: Arc<dyn ZoneLog>,
    /// The last revision applied here.
    applied: watch::Sender<u64>,
    /// The newest revision known to exist in the log.
    latest: AtomicU64,
    /// Whether a feed is open.
    watching: AtomicBool,
    /// Recently applied outcomes, for the proposers waiting for them.
    recent: Mutex<Recent>,
    /// Fires when following stops: waiting proposers give up at once.
    stop: CancellationToken,
}

impl Link {
    fn new(log: Arc<dyn ZoneLog>, applied: u64, stop: CancellationToken) -> Self {
        Link {
            log,
            applied: watch::Sender::new(applied),
            latest: AtomicU64::new(applied),
            watching: AtomicBool::new(false),
            recent: Mutex::new(Recent::new(RECENT_OUTCOMES)),
            stop,
        }
    }

    /// The world's log.
    pub fn log(&self) -> &dyn ZoneLog {
        &*self.log
    }

    /// The last revision applied here.
    pub fn applied(&self) -> u64 {
        *self.applied.borrow()
    }

    /// Connected, watching and caught up with what the log is known to hold.
    pub fn current(&self) -> bool {
        self.log.connected()
            && self.watching.load(Ordering::Acquire)
            && self.applied() >= self.latest.load(Ordering::Acquire)
    }

    fn note_latest(&self, revision: u64) {
        self.latest.fetch_max(revision, Ordering::AcqRel);
    }

    fn record(&self, revision: u64, outcome: Option<Outcome>) {
        locked(&self.recent).record(revision, outcome);
        self.applied.send_replace(revision);
    }

    fn outcome(&self, revision: u64) -> Option<Option<Outcome>> {
        locked(&self.recent).get(revision)
    }

    /// Waits until revision `revision` is applied here, for at most `bound`; false
    /// on time-out or once following stopped.
    async fn wait_bounded(&self, revision: u64, bound: Duration) -> bool {
        let mut rx = self.applied.subscribe();
        tokio::select! {
            waited = tokio::time::timeout(bound, rx.wait_for(|&a| a >= revision)) => {
                matches!(waited, Ok(Ok(_)))
            }
            () = self.stop.cancelled() => self.applied() >= revision,
        }
    }

    /// Waits (for at most `APPLY_WAIT`) until revision `revision` is applied here.
    pub async fn wait_applied(&self, revision: u64) -> bool {
        self.wait_bounded(revision, APPLY_WAIT).await
    }

    /// The outcome of the acknowledged revision `revision`, once applied here.
    pub async fn collect(&self, revision: u64) -> Result<Outcome, RegistryError> {
        self.note_latest(revision);
        if !self.wait_applied(revision).await {
            if self.stop.is_cancelled() {
                return Err(RegistryError::ShuttingDown(
                    "the change is stored but was not applied here",
                ));
            }
            return Err(RegistryError::Internal(format!(
                "accepted as revision {revision}, but this server has not applied it within \
                 {APPLY_WAIT:?}"
            )));
        }
        match self.outcome(revision) {
            Some(Some(outcome)) => Ok(outcome),
            _ => Err(RegistryError::Internal(format!(
                "accepted as revision {revision}, which a later change superseded before \
                 this server applied it"
            ))),
        }
    }
}

/// The followers of every world of one server.
#[derive(Debug)]
pub struct Replication {
    worlds: Arc<Worlds>,
    stop: CancellationToken,
    /// The followers: owned, so shutdown waits for each to finish what it applies.
    followers: Tasks,
}

impl Replication {
    /// Links each world to its log (from `logs`, in the worlds' order) and starts
    /// following. Call before any mutation: until then they are refused.
    pub async fn start(
        worlds: &Arc<Worlds>,
        logs: Vec<Arc<dyn ZoneLog>>,
        metrics: Arc<Metrics>,
    ) -> Replication {
        let followers = Tasks::new();
        let stop = followers.token().clone();
        for (world, log) in worlds.iter().zip(logs) {
            let applied = world.snapshot().revision();
            let link = Arc::new(Link::new(log, applied, stop.clone()));
            if world.link.set(Arc::clone(&link)).is_err() {
                warn!(world = world.id(), "world already follows a log");
                continue;
            }
            let follower = Follower {
                world: Arc::clone(world),
                link,
                metrics: Arc::clone(&metrics),
            };
            followers.spawn(follower.run(stop.clone()));
        }
        Replication {
            worlds: Arc::clone(worlds),
            stop,
            followers,
        }
    }

    /// Waits until every world has applied its log's last revision, for at most
    /// `bound`; fails naming the world that is behind, or whose log holds fewer
    /// revisions than this server applied (a different bucket).
    pub async fn catch_up(&self, bound: Duration) -> Result<(), String> {
        for world in self.worlds.iter() {
            let Some(link) = world.link.get() else {
                continue;
            };
            let latest = link
                .log
                .last_revision()
                .await
                .map_err(|e| format!("world {:?}: {e}", world.id()))?;
            let applied = link.applied();
            if applied > latest {
                return Err(format!(
                    "world {:?}: this replica applied revision {applied} but bucket {} ends at \
                     {latest}: it is not the bucket this data_dir followed (start with an \
                     empty data_dir to follow it)",
                    world.id(),
                    link.log.name()
                ));
            }
            link.note_latest(latest);
            if !link.wait_bounded(latest, bound).await {
                return Err(format!(
                    "world {:?}: not caught up with bucket {} (revision {latest}) within {bound:?}",
                    world.id(),
                    link.log.name()
                ));
            }
        }
        Ok(())
    }

    /// Whether every world is connected, following and caught up. Asks each log for
    /// its last revision (a world whose log cannot answer is not current).
    pub async fn current(&self) -> bool {
        let mut all = true;
        for world in self.worlds.iter() {
            let Some(link) = world.link.get() else {
                continue;
            };
            if link.log.connected() {
                match tokio::time::timeout(TICK * 5, link.log.last_revision()).await {
                    Ok(Ok(latest)) => link.note_latest(latest),
                    _ => all = false,
                }
            }
            all &= link.current();
        }
        all
    }

    /// Stops following; proposers still waiting give up.
    pub fn stop(&self) {
        self.stop.cancel();
    }

    /// Stops following and waits, for at most `bound`, until every follower has
    /// finished the entry it was applying (the store can then close under nobody).
    pub async fn shutdown(&self, bound: Duration) {
        self.stop.cancel();
        let aborted = self.followers.shutdown(bound).await;
        if aborted > 0 {
            warn!(aborted, "followers still applying at shutdown were aborted");
        }
    }
}

impl Drop for Replication {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// How long start-up waits for a server to catch up with its logs.
const CATCH_UP: Duration = Duration::from_secs(60);

/// Starts following `logs` (one per world, in the worlds' order) and waits until
/// every world has caught up. The message names what failed.
pub async fn start(
    worlds: &Arc<Worlds>,
    logs: Vec<Arc<dyn ZoneLog>>,
    metrics: Arc<Metrics>,
) -> Result<Replication, String> {
    let replication = Replication::start(worlds, logs, metrics).await;
    replication.catch_up(CATCH_UP).await?;
    Ok(replication)
}

/// One world's follower task.
struct Follower {
    world: Arc<World>,
    link: Arc<Link>,
    metrics: Arc<Metrics>,
}

/// Why one feed stopped.
enum Ended {
    /// `stop` fired.
    Stopped,
    /// The feed ended or must be reopened.
    Again,
}

impl Follower {
    /// Follows the log until `stop` fires: from the last applied revision, applying
    /// in order, and again after any interruption.
    async fn run(self, stop: CancellationToken) {
        loop {
            if stop.is_cancelled() {
                return;
            }
            if self.link.log.connected()
                && let Ended::Stopped = self.follow_once(&stop).await
            {
                return;
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(TICK) => {}
            }
        }
    }

    /// Opens one feed and applies from it until it ends.
    async fn follow_once(&self, stop: &CancellationToken) -> Ended {
        let (world, link) = (&self.world, &self.link);
        let from = link.applied() + 1;
        let mut feed = match link.log.follow(from).await {
            Ok(feed) => feed,
            Err(e) => {
                warn!(world = world.id(), error = %e, "following the zone log; retrying");
                return Ended::Again;
            }
        };
        debug!(world = world.id(), from, "following the zone log");
        link.watching.store(true, Ordering::Release);
        let ended = self.drain(&mut feed, stop).await;
        link.watching.store(false, Ordering::Release);
        ended
    }

    async fn drain(&self, feed: &mut crate::store::log::Feed, stop: &CancellationToken) -> Ended {
        let (world, link) = (&self.world, &self.link);
        let mut tick = tokio::time::interval(TICK);
        let mut progress = tokio::time::Instant::now();
        loop {
            let item = tokio::select! {
                () = stop.cancelled() => return Ended::Stopped,
                _ = tick.tick() => {
                    if !link.log.connected() {
                        return Ended::Again;
                    }
                    let behind = link.latest.load(Ordering::Acquire) > link.applied();
                    if behind && progress.elapsed() > STALL {
                        warn!(world = world.id(), applied = link.applied(), "zone log feed stalled; following again");
                        return Ended::Again;
                    }
                    continue;
                }
                item = feed.next() => item,
            };
            progress = tokio::time::Instant::now();
            let applied = match item {
                None => return Ended::Again,
                Some(Ok(entry)) => self.apply(entry).await,
                Some(Err(LogError::Poison {
                    revision, reason, ..
                })) => self.skip_poison(revision, &reason).await,
                Some(Err(e)) => {
                    warn!(world = world.id(), error = %e, "zone log feed ended; following again");
                    return Ended::Again;
                }
            };
            if !applied {
                return Ended::Again;
            }
        }
    }

    /// Applies one entry on a blocking thread; false when following must restart.
    async fn apply(&self, entry: Entry) -> bool {
        let (world, link) = (&self.world, &self.link);
        let revision = entry.revision;
        if revision <= link.applied() {
            return true; // seen before the feed was reopened
        }
        link.note_latest(revision + entry.pending);
        let w = Arc::clone(world);
        let copy = !link.log.is_local();
        let applied = tokio::task::spawn_blocking(move || w.apply_entry(entry, copy)).await;
        let error = match applied {
            Ok(Ok(outcome)) => {
                link.record(revision, outcome);
                return true;
            }
            Ok(Err(e)) => e.to_string(),
            Err(e) => e.to_string(),
        };
        warn!(world = world.id(), revision, error = %error, "applying a zone log entry");
        false
    }

    /// Skips the poison entry at `revision`: logged, counted, and applied as a change
    /// of nothing (see the module docs).
    async fn skip_poison(&self, revision: u64, reason: &str) -> bool {
        let (world, link) = (&self.world, &self.link);
        if revision <= link.applied() {
            return true;
        }
        warn!(
            world = world.id(),
            revision, reason, "zone log entry does not decode: skipped"
        );
        self.metrics.replication_poison(world.id());
        link.note_latest(revision);
        let w = Arc::clone(world);
        if tokio::task::spawn_blocking(move || w.advance(revision))
            .await
            .is_err()
        {
            return false;
        }
        link.record(revision, None);
        true
    }
}

impl World {
    /// With a shared store, waits (for at most `APPLY_WAIT`) until this replica has
    /// applied `revision`: a client resuming here may have heard of it from another
    /// replica. Returns at once with the embedded store, where every revision anyone
    /// heard of is applied already.
    pub async fn wait_applied(&self, revision: u64) {
        if let Some(link) = self.link.get().filter(|l| !l.log.is_local()) {
            link.wait_applied(revision).await;
        }
    }
}

#[cfg(test)]
#[path = "follow_tests.rs"]
mod tests;
