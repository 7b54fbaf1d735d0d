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

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicU64, Ordering},
};

use tokio::sync::mpsc::{self, error::TrySendError};

use super::{
    Event, Published,
    area::{Area, AreaCell},
};
use crate::metrics::Metrics;

/// One subscriber, as the hub sees it.
#[derive(Debug)]
struct Entry {
    id: u64,
    area: Arc<AreaCell>,
    tx: mpsc::Sender<Arc<Published>>,
    /// Set to the revision that overflowed the queue when the hub cuts it off.
    cut: Arc<AtomicU64>,
}

#[derive(Debug)]
struct State {
    /// The revision of the last event published (the world's revision at start-up
    /// before any).
    published: u64,
    subscribers: Vec<Entry>,
    /// Set at shutdown: no subscriber is added any more.
    closed: bool,
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
    state: Mutex<State>,
    metrics: Arc<Metrics>,
}

impl Hub {
    /// A hub for `world`, whose committed revision is `revision`.
    pub fn new(world: &str, revision: u64, metrics: Arc<Metrics>) -> Self {
        Hub {
            world: world.to_string(),
            state: Mutex::new(State {
                published: revision,
                subscribers: Vec::new(),
                closed: false,
            }),
            metrics,
        }
    }

    /// The world this hub serves.
    pub fn world(&self) -> &str {
        &self.world
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The lock guards plain data updated in single steps: usable after a panic.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
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
            state.subscribers.retain(|s| {
                if !s.area.get().matches(&event) {
                    return true;
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
        state.subscribers.clear();
    }

    /// Adds subscriber `id` with a queue of `queue` events (a queue that is already
    /// ended once the hub is closed).
    pub fn subscribe(&self, id: u64, area: Arc<AreaCell>, queue: usize) -> Joined {
        let (tx, rx) = mpsc::channel(queue.max(1));
        let cut = Arc::new(AtomicU64::new(0));
        let mut state = self.lock();
        if !state.closed {
            state.subscribers.push(Entry {
                id,
                area,
                tx,
                cut: Arc::clone(&cut),
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
        let state = self.lock();
        cell.set(area, state.published);
        state.published
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MutationKind;
    use terrain_core::zones::Bounds;

    fn event(revision: u64) -> Event {
        Event {
            world: "main".into(),
            revision,
            zone: "a".into(),
            kind: MutationKind::Registered,
            tiles: vec![(0, 0)],
            tile_rects: vec![terrain_core::TileRect {
                min_tx: 0,
                min_tz: 0,
                max_tx: 0,
                max_tz: 0,
            }],
            tile_count: 1,
            bounds: Bounds {
                min_x: 0.0,
                min_z: 0.0,
                max_x: 1.0,
                max_z: 1.0,
            },
            max_height_delta: Some(1.0),
            walkable: None,
            tileset_contents: Vec::new(),
        }
    }

    #[test]
    fn a_full_queue_is_cut_off_without_blocking_others() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let hub = Hub::new("main", 7, metrics);
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
        let hub = Hub::new("main", 3, metrics);
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
        let hub = Hub::new("main", 3, metrics);
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
        let hub = Hub::new("main", 3, metrics);
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
}
