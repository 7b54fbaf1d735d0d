//! One world's event hub: the single owner of its subscriber list.
//!
//! [`Hub::publish`] runs on the registry's thread. It never waits: under a short
//! lock (never held across an await or any I/O) it `try_send`s the event into each
//! matching subscriber's bounded queue. A subscriber whose queue is full is removed
//! on the spot: its sender is dropped (so its stream drains what is queued and then
//! ends) and its cut-off revision is recorded, which the stream announces as a final
//! `resync`. Nobody else waits for it, and the registry never does.
//!
//! [`Hub::subscribe`] answers the revision of the last event published, read under
//! the same lock: every later event reaches the new queue, every earlier one is in
//! the log (the publisher annotates the log before it publishes), so a resuming
//! subscriber replays exactly up to that revision and then reads its queue.
//!
//! A subscriber that is idle may have handed the hub its [`Outlet`]
//! ([`Hub::go_direct`]): `publish` then assigns it the event instead of queueing it,
//! and the hub's writer tasks (`event_writers` per hub, spawned by the first outlet;
//! each subscriber's outlet always written by the same one, chosen by its id) write
//! the event to every assigned outlet in turn, waking nobody else
//! ([`super::outlet`]). The writers split an event's sends between them, so the
//! last subscriber hears of it sooner on a machine with several CPUs.
//! Every flip of an outlet back to its queue happens under the same lock, so an
//! event is either assigned or queued, never both, and what is assigned before the
//! flip is handled before the stream reads its queue.

use std::sync::{
    Arc, Mutex, MutexGuard,
    atomic::{AtomicU64, AtomicUsize, Ordering},
};

use tokio::sync::mpsc::{self, error::TrySendError};

use super::{
    Event, Published,
    area::{Area, AreaCell},
    outlet::Outlet,
};
use crate::metrics::Metrics;
use crate::sync::locked;

/// One subscriber, as the hub sees it.
#[derive(Debug)]
struct Entry {
    id: u64,
    /// The subscription's area cell, which its stream reads.
    cell: Arc<AreaCell>,
    /// The cell's area, kept beside the rest of the entry for `publish`'s scan (the
    /// cell changes only under the hub's lock, in `change_area`, which updates both).
    area: Area,
    tx: mpsc::Sender<Arc<Published>>,
    /// Set to the revision that overflowed the queue when the hub cuts it off.
    cut: Arc<AtomicU64>,
    /// Its direct way out, if its transport has one. Its queue's capacity also
    /// bounds the events the outlet may wait for behind its writer.
    outlet: Option<Arc<Outlet>>,
}

/// One event for one writer task, and the outlets of that writer it was assigned to.
#[derive(Debug)]
struct Batch {
    event: Arc<Published>,
    outlets: Vec<Arc<Outlet>>,
}

#[derive(Debug)]
struct State {
    /// The revision of the last event published (the world's revision at start-up
    /// before any).
    published: u64,
    subscribers: Vec<Entry>,
    /// Set at shutdown: no subscriber is added any more.
    closed: bool,
    /// The writer tasks' inboxes, once a subscriber went direct (dropped at
    /// shutdown, which ends the tasks).
    writers: Vec<mpsc::UnboundedSender<Batch>>,
    /// Per writer, the batches sent to it and not yet written: an outlet is flipped
    /// (its subscriber queued, and cut off as any other when that fills) rather than
    /// left behind a backlog longer than its queue.
    backlogs: Vec<Arc<AtomicUsize>>,
}

/// A new subscriber's end of the hub.
#[derive(Debug)]
pub struct Joined {
    pub rx: mpsc::Receiver<Arc<Published>>,
    /// Every event after this revision arrives on `rx`; none before.
    pub live_from: u64,
    /// Non-zero once cut off: the revision to resync at.
    pub cut: Arc<AtomicU64>,
}

/// A world's hub.
#[derive(Debug)]
pub struct Hub {
    world: String,
    /// How many writer tasks share the direct outlets.
    shards: usize,
    /// Shared with the writer tasks, which flip outlets under it.
    state: Arc<Mutex<State>>,
    metrics: Arc<Metrics>,
}

impl Hub {
    /// A hub for `world`, whose committed revision is `revision`, with `writers`
    /// writer tasks (at least one) for its direct outlets.
    pub fn new(world: &str, revision: u64, writers: usize, metrics: Arc<Metrics>) -> Self {
        let shards = writers.max(1);
        Hub {
            world: world.to_string(),
            shards,
            state: Arc::new(Mutex::new(State {
                published: revision,
                subscribers: Vec::new(),
                closed: false,
                writers: Vec::new(),
                backlogs: (0..shards).map(|_| Arc::default()).collect(),
            })),
            metrics,
        }
    }

    /// The world this hub serves.
    pub fn world(&self) -> &str {
        &self.world
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        locked(&self.state)
    }

    /// Offers `event` to every subscriber whose area it touches; cuts off those
    /// whose queue is full. Never blocks. Every subscriber gets the same
    /// [`Published`], so each wire form is encoded once.
    pub fn publish(&self, event: Event) {
        let event = Arc::new(Published::new(event, Arc::clone(&self.metrics)));
        let mut dropped = 0u64;
        {
            let mut state = self.lock();
            state.published = state.published.max(event.revision);
            let shards = self.shards;
            let mut outlets: Vec<Vec<Arc<Outlet>>> = vec![Vec::new(); shards];
            let backlogs: Vec<usize> = state
                .backlogs
                .iter()
                .map(|b| b.load(Ordering::Acquire))
                .collect();
            state.subscribers.retain(|s| {
                if !s.area.matches(&event) {
                    return true;
                }
                if let Some(outlet) = s.outlet.as_ref().filter(|o| o.is_direct()) {
                    let shard = writer_of(s.id, shards);
                    if backlogs[shard] < s.tx.max_capacity() {
                        outlet.assign(event.revision);
                        outlets[shard].push(Arc::clone(outlet));
                        return true;
                    }
                    outlet.flip();
                }
                match s.tx.try_send(Arc::clone(&event)) {
                    Ok(()) => true,
                    Err(TrySendError::Full(_)) => {
                        s.cut.store(event.revision, Ordering::Release);
                        dropped += 1;
                        false
                    }
                    Err(TrySendError::Closed(_)) => false,
                }
            });
            for (shard, outlets) in outlets.into_iter().enumerate() {
                if outlets.is_empty() {
                    continue;
                }
                let batch = Batch {
                    event: Arc::clone(&event),
                    outlets,
                };
                // Only ever assigned while the writers run: they end at shutdown, when
                // every outlet is flipped (see `close`).
                state.backlogs[shard].fetch_add(1, Ordering::AcqRel);
                if let Some(writer) = state.writers.get(shard)
                    && let Err(mpsc::error::SendError(batch)) = writer.send(batch)
                {
                    state.backlogs[shard].fetch_sub(1, Ordering::AcqRel);
                    // The writer is gone (the runtime is shutting down): the
                    // streams send the event themselves.
                    for outlet in &batch.outlets {
                        outlet.spill(&batch.event);
                        outlet.flip();
                        outlet.handled(batch.event.revision);
                    }
                }
            }
        }
        self.metrics.event_published(&self.world);
        if dropped > 0 {
            tracing::info!(world = %self.world, revision = event.revision, dropped, "slow event subscribers cut off");
            self.metrics.subscribers_dropped(&self.world, dropped);
        }
    }

    /// Cuts off every subscriber with a `resync` at `revision`: events before it were
    /// lost (a replica of a shared store skipped superseded messages). Later
    /// subscribers start from `revision`.
    pub fn resync_all(&self, revision: u64) {
        let dropped = {
            let mut state = self.lock();
            state.published = state.published.max(revision);
            for s in &state.subscribers {
                s.cut.store(revision, Ordering::Release);
                if let Some(outlet) = &s.outlet {
                    outlet.flip();
                }
            }
            let n = state.subscribers.len() as u64;
            state.subscribers.clear();
            n
        };
        if dropped > 0 {
            tracing::info!(world = %self.world, revision, dropped, "events skipped: subscribers resynchronised");
            self.metrics.subscribers_dropped(&self.world, dropped);
        }
    }

    /// Ends every subscriber's queue (its stream reads what is queued, then the end),
    /// now and for every later subscriber: shutdown. Nobody is cut off (no `resync`).
    pub fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        for outlet in state.subscribers.iter().filter_map(|s| s.outlet.as_ref()) {
            outlet.flip();
        }
        state.subscribers.clear();
        state.writers.clear();
    }

    /// Adds subscriber `id` with a queue of `queue` events (a queue that is already
    /// ended once the hub is closed).
    pub fn subscribe(&self, id: u64, area: Arc<AreaCell>, queue: usize) -> Joined {
        self.subscribe_with(id, area, queue, None)
    }

    /// [`Hub::subscribe`], for a subscriber whose transport has a direct way out.
    pub fn subscribe_with(
        &self,
        id: u64,
        area: Arc<AreaCell>,
        queue: usize,
        outlet: Option<Arc<Outlet>>,
    ) -> Joined {
        let (tx, rx) = mpsc::channel(queue.max(1));
        let cut = Arc::new(AtomicU64::new(0));
        let mut state = self.lock();
        if !state.closed {
            state.subscribers.push(Entry {
                id,
                area: area.get(),
                cell: area,
                tx,
                cut: Arc::clone(&cut),
                outlet,
            });
        }
        Joined {
            rx,
            live_from: state.published,
            cut,
        }
    }

    /// Replaces a subscriber's area under the publish lock; answers the revision of
    /// the last event published. Every later event is matched against the new area,
    /// every earlier one was matched against the old (and is in the subscriber's
    /// queue by the time the cell shows the change).
    pub fn change_area(&self, cell: &AreaCell, area: Area) -> u64 {
        let mut state = self.lock();
        // Events up to the change may be assigned to the outlet, never later ones:
        // the stream takes over from its queue and replays what the change uncovers.
        let of_cell = state
            .subscribers
            .iter_mut()
            .find(|s| std::ptr::eq(Arc::as_ptr(&s.cell), cell));
        if let Some(entry) = of_cell {
            entry.area = area;
            if let Some(outlet) = &entry.outlet {
                outlet.flip();
            }
        }
        cell.set(area, state.published);
        state.published
    }

    /// Ends direct delivery to `outlet`: no event is assigned to it after this.
    pub fn leave_direct(&self, outlet: &Outlet) {
        let _state = self.lock();
        outlet.flip();
    }

    /// Makes subscriber `id`'s outlet direct if `idle` (called under the lock that
    /// orders publishing, so nothing is queued meanwhile) says its queue is empty;
    /// answers whether it did. Spawns the writer tasks on the current runtime if
    /// there is none yet; without a runtime nothing goes direct.
    pub fn go_direct(&self, id: u64, idle: impl FnOnce() -> bool) -> bool {
        let mut state = self.lock();
        if state.closed {
            return false;
        }
        let Some(outlet) = state
            .subscribers
            .iter()
            .find(|s| s.id == id)
            .and_then(|s| s.outlet.clone())
        else {
            return false;
        };
        if outlet.is_direct() {
            return true;
        }
        if !idle() {
            return false;
        }
        if state.writers.is_empty() {
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                return false;
            };
            for shard in 0..self.shards {
                let (tx, rx) = mpsc::unbounded_channel();
                let sent = [
                    self.metrics.events_sent(&self.world),
                    self.metrics.events_direct(&self.world),
                ];
                let backlog = Arc::clone(&state.backlogs[shard]);
                // Outside the runtime's cooperative budget: the writer makes one write
                // per outlet in a single poll, and within the budget every write after
                // the 128th would be refused as if the socket were full.
                let writer = write(Arc::clone(&self.state), rx, backlog, sent);
                runtime.spawn(tokio::task::unconstrained(writer));
                state.writers.push(tx);
            }
        }
        outlet.open();
        true
    }

    /// Removes subscriber `id` (if it is still there).
    pub fn unsubscribe(&self, id: u64) {
        self.lock().subscribers.retain(|s| s.id != id);
    }

    /// The number of subscribers currently attached.
    pub fn len(&self) -> usize {
        self.lock().subscribers.len()
    }

    /// Whether nobody is subscribed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The writer (of `shards`) that serves subscriber `id`'s outlet: always the same
/// one, so its events go out in order.
fn writer_of(id: u64, shards: usize) -> usize {
    (id % shards as u64) as usize
}

/// One writer task: writes each batch's event to its outlets, in order, and flips
/// (under the hub's lock) every outlet whose write did not complete; counts its
/// writes in `sent` (`terrain_events_sent_total` and `terrain_events_direct_total`).
/// Ends when the hub closes.
async fn write(
    state: Arc<Mutex<State>>,
    mut inbox: mpsc::UnboundedReceiver<Batch>,
    backlog: Arc<AtomicUsize>,
    sent: [metrics::Counter; 2],
) {
    while let Some(batch) = inbox.recv().await {
        let revision = batch.event.revision;
        let mut count = 0;
        for outlet in &batch.outlets {
            let (written, flip) = outlet.deliver(&batch.event);
            count += u64::from(written);
            if flip {
                let _state = locked(&state);
                outlet.flip();
            }
            outlet.handled(revision);
        }
        for counter in &sent {
            counter.increment(count);
        }
        backlog.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(revision: u64) -> Event {
        crate::events::sample_event(revision, vec![(0, 0)])
    }

    #[test]
    fn a_full_queue_is_cut_off_without_blocking_others() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let hub = Hub::new("main", 7, 1, metrics);
        let all = Arc::new(AreaCell::new(Area::All));
        let far = Arc::new(AreaCell::new(Area::tiles([50, 50, 60, 60], "t").unwrap()));
        let mut slow = hub.subscribe(1, Arc::clone(&all), 2);
        let mut fast = hub.subscribe(2, all, 100);
        let mut away = hub.subscribe(3, far, 1);
        assert_eq!(slow.live_from, 7);
        for r in 8..=12 {
            hub.publish(event(r));
        }
        assert_eq!(hub.len(), 2, "the slow one is gone, the far one stays");
        assert_eq!(slow.cut.load(Ordering::Acquire), 10);
        let got: Vec<_> = std::iter::from_fn(|| slow.rx.try_recv().ok())
            .map(|e| e.revision)
            .collect();
        assert_eq!(got, [8, 9]);
        assert!(slow.rx.is_closed());
        assert_eq!(std::iter::from_fn(|| fast.rx.try_recv().ok()).count(), 5);
        assert!(away.rx.try_recv().is_err());
        assert_eq!(hub.subscribe(4, Arc::default(), 1).live_from, 12);
    }

    #[test]
    fn an_area_change_applies_to_every_event_after_the_revision_it_answers() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let hub = Hub::new("main", 3, 1, metrics);
        let cell = Arc::new(AreaCell::new(Area::tiles([50, 50, 60, 60], "t").unwrap()));
        let mut sub = hub.subscribe(1, Arc::clone(&cell), 8);
        hub.publish(event(4));
        assert_eq!(hub.change_area(&cell, Area::All), 4);
        assert_eq!(cell.get(), Area::All);
        hub.publish(event(5));
        let got: Vec<_> = std::iter::from_fn(|| sub.rx.try_recv().ok())
            .map(|e| e.revision)
            .collect();
        assert_eq!(
            got,
            [5],
            "4 was matched against the old area, 5 against the new"
        );
    }

    #[test]
    fn closing_ends_every_queue_without_a_cut_and_refuses_later_ones() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let hub = Hub::new("main", 3, 1, metrics);
        let mut a = hub.subscribe(1, Arc::default(), 8);
        hub.publish(event(4));
        hub.close();
        assert!(hub.is_empty());
        assert_eq!(a.rx.try_recv().map(|e| e.revision).ok(), Some(4));
        assert!(a.rx.try_recv().is_err() && a.rx.is_closed());
        assert_eq!(
            a.cut.load(Ordering::Acquire),
            0,
            "shutdown is not a cut-off"
        );
        let late = hub.subscribe(2, Arc::default(), 8);
        assert!(late.rx.is_closed() && hub.is_empty());
        assert_eq!(late.live_from, 4);
        hub.publish(event(5));
        assert!(late.rx.is_empty());
    }

    #[test]
    fn skipped_revisions_resync_everyone() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let hub = Hub::new("main", 3, 1, metrics);
        let mut a = hub.subscribe(1, Arc::default(), 8);
        let b = hub.subscribe(2, Arc::default(), 8);
        hub.publish(event(4));
        hub.resync_all(9);
        assert!(hub.is_empty());
        assert_eq!(a.rx.try_recv().map(|e| e.revision).ok(), Some(4));
        assert!(a.rx.try_recv().is_err() && a.rx.is_closed());
        assert_eq!(
            (a.cut.load(Ordering::Acquire), b.cut.load(Ordering::Acquire)),
            (9, 9)
        );
        assert_eq!(hub.subscribe(3, Arc::default(), 1).live_from, 9);
    }

    /// A transport that records what the writer wrote, and stops taking frames
    /// whole once told to (a client that stopped reading).
    #[derive(Debug, Default)]
    struct Recorder {
        written: Mutex<Vec<u64>>,
        full: std::sync::atomic::AtomicBool,
    }

    impl crate::events::DirectSink for Recorder {
        fn offer(&self, event: &Arc<Published>) -> crate::events::Offer {
            self.written.lock().unwrap().push(event.revision);
            if self.full.load(Ordering::SeqCst) {
                crate::events::Offer::Unflushed
            } else {
                crate::events::Offer::Sent
            }
        }
    }

    #[tokio::test]
    async fn direct_delivery_writes_in_order_and_hands_back_what_it_could_not() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let hub = Hub::new("main", 3, 1, metrics);
        let outlet = Arc::new(Outlet::new(Recorder::default()));
        let sink = outlet.sink();
        let mut joined = hub.subscribe_with(1, Arc::default(), 8, Some(outlet.clone() as _));
        let mut queued = hub.subscribe(2, Arc::default(), 8);
        assert!(!hub.go_direct(1, || false), "not idle: stays queued");
        assert!(!hub.go_direct(2, || true), "no outlet");
        assert!(hub.go_direct(1, || true));
        hub.publish(event(4));
        hub.publish(event(5));
        let written = || sink.written.lock().unwrap().clone();
        let wait = |n: usize| async move {
            tokio::time::timeout(std::time::Duration::from_secs(5), async {
                while written().len() < n {
                    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                }
            })
            .await
            .expect("the writer writes")
        };
        wait(2).await;
        assert_eq!(written(), [4, 5]);
        assert!(joined.rx.try_recv().is_err(), "nothing queued while direct");
        assert_eq!(
            std::iter::from_fn(|| queued.rx.try_recv().ok()).count(),
            2,
            "the other subscriber is queued as before"
        );
        // 6 is taken but not flushed: the outlet flips; 7 and 8 reach the stream,
        // spilled or queued, each once and in order, after 6.
        sink.full.store(true, Ordering::SeqCst);
        for r in 6..=8 {
            hub.publish(event(r));
        }
        tokio::time::timeout(std::time::Duration::from_secs(5), outlet.settled())
            .await
            .expect("the outlet settles");
        let (sent, spilled) = outlet.take();
        assert_eq!(sent, 6);
        let mut rest: Vec<u64> = spilled.iter().map(|e| e.revision).collect();
        rest.extend(std::iter::from_fn(|| joined.rx.try_recv().ok()).map(|e| e.revision));
        assert_eq!(rest, [7, 8]);
        assert_eq!(written(), [4, 5, 6], "nothing written after the flip");
        assert!(!outlet.is_direct());
        // Direct again once idle; an area change flips it back to the queue.
        sink.full.store(false, Ordering::SeqCst);
        assert!(hub.go_direct(1, || true));
        hub.publish(event(9));
        wait(4).await;
        let cell = hub.lock().subscribers[0].cell.clone();
        assert_eq!(hub.change_area(&cell, Area::All), 9);
        assert!(!outlet.is_direct());
        hub.publish(event(10));
        assert_eq!(joined.rx.try_recv().map(|e| e.revision).ok(), Some(10));
        assert_eq!(written(), [4, 5, 6, 9]);
    }

    /// A sink that records the revisions written to it, and the writer task (by its
    /// tokio task id) that wrote each.
    #[derive(Debug, Default)]
    struct ByWriter(Mutex<Vec<(u64, Option<tokio::task::Id>)>>);

    impl crate::events::DirectSink for ByWriter {
        fn offer(&self, event: &Arc<Published>) -> crate::events::Offer {
            let writer = tokio::task::try_id();
            self.0.lock().unwrap().push((event.revision, writer));
            crate::events::Offer::Sent
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 3)]
    async fn several_writers_share_the_outlets_each_always_by_one_in_order() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let hub = Hub::new("main", 0, 3, metrics);
        let outlets: Vec<_> = (1..=12u64)
            .map(|id| {
                let outlet = Arc::new(Outlet::new(ByWriter::default()));
                let joined = hub.subscribe_with(id, Arc::default(), 512, Some(outlet.clone() as _));
                assert!(hub.go_direct(id, || true));
                (outlet, joined)
            })
            .collect();
        for r in 1..=400 {
            hub.publish(event(r));
        }
        let all: Vec<u64> = (1..=400).collect();
        let mut writers = std::collections::BTreeSet::new();
        for (outlet, joined) in &outlets {
            let sink = outlet.sink();
            tokio::time::timeout(std::time::Duration::from_secs(10), async {
                while sink.0.lock().unwrap().len() < all.len() {
                    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                }
            })
            .await
            .expect("every event is written to every outlet");
            let written = sink.0.lock().unwrap().clone();
            let revisions: Vec<u64> = written.iter().map(|(r, _)| *r).collect();
            assert_eq!(
                revisions, all,
                "each outlet gets every event once, in order"
            );
            let by: std::collections::BTreeSet<_> = written.iter().map(|(_, w)| *w).collect();
            assert_eq!(by.len(), 1, "one writer per outlet: {by:?}");
            writers.extend(by);
            assert!(joined.rx.is_empty(), "nothing queued while direct");
        }
        assert_eq!(
            writers.len(),
            3,
            "the outlets are spread over the three writers"
        );
    }
}
