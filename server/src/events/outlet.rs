//! Direct delivery: live events written to an idle subscriber's transport by the
//! hub's writer task, with no task of the subscriber's woken.
//!
//! A subscriber whose stream has nothing left to send (no replay, no area change
//! waiting, its queue empty, its transport flushed) may hand the hub its
//! [`Outlet`]: while the outlet is *direct*, [`super::Hub::publish`] assigns each
//! event the subscriber's area matches to the outlet instead of its queue, and the
//! hub's writer task that serves the outlet (always the same one of the hub's
//! `event_writers`) writes the event's shared frame through the transport's
//! [`DirectSink`], one subscriber after another, in revision order. One event then
//! costs one wake-up per writer however many subscribers it reaches, where a queue
//! per subscriber costs one per subscriber.
//!
//! The outlet stops being direct (it is *flipped*, always under the hub's lock, so
//! that no event is assigned to it afterwards) when a write could not complete (the
//! client reads slowly: what is assigned after that is *spilled* into the outlet, in
//! order), when the area changes, or when the hub closes or cuts everyone off. Its
//! stream waits until every event assigned before the flip was handled
//! ([`Outlet::settled`]), takes back what was spilled and the last revision sent
//! ([`Outlet::take`]), and goes on from its queue as any other subscriber: slow ones
//! are still cut off with `resync` when that bounded queue fills.

use std::{
    collections::VecDeque,
    fmt,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
};

use tokio::sync::Notify;

use super::Published;
use crate::sync::locked;

/// How a transport took an event offered to it directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Written out.
    Sent,
    /// Taken, but not all of it is written yet: the stream flushes the rest.
    Unflushed,
    /// Not taken (the transport is busy or gone).
    Refused,
}

/// A transport's write side, as the hub's writer task uses it: never waits.
pub trait DirectSink: Send + Sync + fmt::Debug {
    /// Writes `event`'s frame if that can be done now, without waiting.
    fn offer(&self, event: &Arc<Published>) -> Offer;
}

/// What the writer leaves for the stream once the outlet is flipped.
#[derive(Debug, Default)]
struct Left {
    /// Assigned events not written, in revision order.
    spilled: VecDeque<Arc<Published>>,
    /// The revision of the last event written (0: none).
    sent: u64,
    /// A write could not complete: every later assigned event is spilled.
    blocked: bool,
}

impl Left {
    /// Leaves `event` unwritten for the stream; every later one follows it.
    fn spill(&mut self, event: &Arc<Published>) {
        self.spilled.push_back(Arc::clone(event));
        self.blocked = true;
    }
}

/// A subscriber's direct way out (see the module documentation), writing through
/// sink `S`. The sink is held in the outlet itself, not behind a pointer of its
/// own: the writer reads one allocation per subscriber fewer. The hub holds every
/// outlet as `Arc<Outlet>` (an `Arc<Outlet<S>>` coerces to it).
#[derive(Debug)]
pub struct Outlet<S: ?Sized + DirectSink = dyn DirectSink> {
    /// Set and cleared only under the hub's lock; read by its `publish`.
    direct: AtomicBool,
    /// The last revision assigned (under the hub's lock, while direct).
    assigned: AtomicU64,
    /// The last assigned revision the writer handled (written or spilled).
    handled: AtomicU64,
    left: Mutex<Left>,
    /// Wakes the stream once the outlet is flipped and settled.
    settled: Notify,
    /// Last, so that the outlet may be unsized to `dyn DirectSink`.
    sink: S,
}

impl<S: DirectSink> Outlet<S> {
    /// An outlet writing through `sink`; not direct until its stream asks
    /// ([`super::Subscription::go_direct`]).
    pub fn new(sink: S) -> Self {
        Outlet {
            sink,
            direct: AtomicBool::new(false),
            assigned: AtomicU64::new(0),
            handled: AtomicU64::new(0),
            left: Mutex::new(Left::default()),
            settled: Notify::new(),
        }
    }
}

impl<S: ?Sized + DirectSink> Outlet<S> {
    /// The sink the outlet writes through.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    fn left(&self) -> std::sync::MutexGuard<'_, Left> {
        // Plain data updated in single steps: usable after a panic.
        locked(&self.left)
    }

    /// Whether events are being assigned to this outlet.
    pub fn is_direct(&self) -> bool {
        self.direct.load(Ordering::SeqCst)
    }

    /// Makes the outlet direct. Call under the hub's lock, with nothing queued for
    /// the subscriber and its transport flushed.
    pub(super) fn open(&self) {
        *self.left() = Left::default();
        self.direct.store(true, Ordering::SeqCst);
    }

    /// Assigns event `revision` to the writer. Call under the hub's lock.
    pub(super) fn assign(&self, revision: u64) {
        self.assigned.store(revision, Ordering::SeqCst);
    }

    /// Ends direct delivery: no event is assigned any more. Call under the hub's
    /// lock. Wakes the stream if the writer has nothing of this outlet's left.
    pub(super) fn flip(&self) {
        if self.direct.swap(false, Ordering::SeqCst) {
            self.wake_if_settled();
        }
    }

    fn is_settled(&self) -> bool {
        !self.direct.load(Ordering::SeqCst)
            && self.handled.load(Ordering::SeqCst) >= self.assigned.load(Ordering::SeqCst)
    }

    fn wake_if_settled(&self) {
        if self.is_settled() {
            self.settled.notify_one();
        }
    }

    /// Writes (or spills) assigned event `event`: the writer task's part. Answers
    /// whether it was written, and whether the outlet must now be flipped (a write
    /// did not complete).
    pub(super) fn deliver(&self, event: &Arc<Published>) -> (bool, bool) {
        let mut left = self.left();
        if left.blocked {
            left.spill(event);
            return (false, false);
        }
        match self.sink.offer(event) {
            Offer::Sent => {
                left.sent = event.revision;
                (true, false)
            }
            Offer::Unflushed => {
                left.sent = event.revision;
                left.blocked = true;
                (true, true)
            }
            Offer::Refused => {
                left.spill(event);
                (false, true)
            }
        }
    }

    /// Leaves assigned `event` to the stream, and every later one.
    pub(super) fn spill(&self, event: &Arc<Published>) {
        self.left().spill(event);
    }

    /// Marks assigned event `revision` handled (after [`Outlet::deliver`] and any
    /// flip it asked for), waking the stream if that settles the outlet.
    pub(super) fn handled(&self, revision: u64) {
        self.handled.fetch_max(revision, Ordering::SeqCst);
        self.wake_if_settled();
    }

    /// Resolves once the outlet is flipped and the writer handled every event
    /// assigned to it. Cancel-safe.
    pub async fn settled(&self) {
        loop {
            if self.is_settled() {
                return;
            }
            self.settled.notified().await;
        }
    }

    /// After [`Outlet::settled`]: the revision of the last event written directly
    /// (0: none) and the assigned events left unwritten, in revision order.
    pub fn take(&self) -> (u64, Vec<Arc<Published>>) {
        let mut left = self.left();
        let sent = left.sent;
        let spilled = left.spilled.drain(..).collect();
        *left = Left::default();
        (sent, spilled)
    }
}
