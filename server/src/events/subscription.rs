//! One open event stream: replayed history, then live events, with no gap and no
//! duplicate.
//!
//! Opening joins the world's hub first (live events start buffering in the bounded
//! queue), then replays the log up to the revision the hub had published when it
//! joined, then reads the queue. Every event after that revision is in the queue and
//! every one up to it is in the log, so nothing is missed or sent twice (the
//! `last_sent` guard makes the second certain). When the history needed is gone the
//! stream opens with `resync` at that revision and continues live.
//!
//! An area change is answered with the revision it applies after, `R`
//! ([`super::Hub::change_area`]): later events are matched against the new area by
//! the hub. Those up to `R` that touch the new area but not the old were never
//! queued, so before its next message the stream replays them from the log, from the
//! last event it sent to `R`, merged in revision order with what the queue holds
//! ([`Subscription::next`]); a client that read the new area's ground before the
//! change holds every change to it since. Both surfaces (WebSocket messages, gRPC
//! `UpdateSubscription`) change the area through the same cell, so both replay.
//!
//! The stream ends when its queue overflowed (after a final `resync`), or when the
//! server shuts down ([`super::Events::close`] ends every hub's queues). Dropping it
//! leaves the hub. Per message it takes no lock and no registration of a shutdown
//! waiter: a shared flag and the queue itself say when it is over, and a counter in
//! the area cell whether the area changed.

use std::{
    collections::{BTreeMap, VecDeque},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
};

use terrain_core::tiles3d::TilesetLayout;
use tokio::sync::mpsc::{self, error::TryRecvError};
use tokio_util::sync::CancellationToken;

use super::{
    Area, EventError, Events, Hub, Message, Outlet, Published,
    area::AreaCell,
    replay::{Replay, replay},
};
use crate::{store::ZoneStore, world::World};

/// An open subscription.
#[derive(Debug)]
pub struct Subscription {
    /// The hub's key for this subscriber.
    key: u64,
    /// The id clients use to change the area (gRPC `UpdateSubscription`).
    id: String,
    events: Arc<Events>,
    hub: Arc<Hub>,
    area: Arc<AreaCell>,
    /// Replayed history (or an opening `resync`), sent before the queue.
    pending: VecDeque<Message>,
    rx: mpsc::Receiver<Arc<Published>>,
    cut: Arc<AtomicU64>,
    /// The revision the hub had published when this joined.
    live_from: u64,
    /// The revision of the last event sent; later duplicates are skipped.
    last_sent: u64,
    /// The revision up to which the client holds every event of its area: the last
    /// event sent, or where the stream opened (the resume point, a `resync`'s
    /// revision, or the revision it opened live at). An area change replays from it.
    seen: u64,
    /// `terrain_events_sent_total` of the world.
    sent: metrics::Counter,
    /// The area changes already caught up with (replayed what they uncovered).
    caught_up: u64,
    /// The log an area change replays from, and the world's tileset layout its
    /// events name contents on.
    store: Arc<ZoneStore>,
    layout: TilesetLayout,
    done: bool,
    /// The world's `max_coordinate`: a new area's centre must lie within it.
    max_coordinate: f64,
    /// The epoch of the world's history this stream's revisions belong to.
    epoch: Arc<str>,
    /// The transport's direct way out, if it has one ([`super::outlet`]).
    outlet: Option<Arc<Outlet>>,
}

/// Where a subscriber resumes: after `revision`, of the history `epoch` (when it
/// knows it; one from another history is answered with `resync`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resume {
    pub revision: u64,
    pub epoch: Option<String>,
}

impl Resume {
    /// A resume point after `revision` with `epoch` as the client sent it (checked:
    /// 16 hex digits).
    pub fn new(revision: u64, epoch: Option<String>) -> Result<Resume, EventError> {
        if let Some(e) = &epoch
            && !(e.len() == 16 && e.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Err(EventError::BadEpoch { got: e.clone() });
        }
        Ok(Resume {
            revision,
            epoch: epoch.map(|e| e.to_ascii_lowercase()),
        })
    }
}

impl Subscription {
    /// Opens a stream of `world`'s events touching `area`, replaying those after
    /// `from` first. A resume point of another epoch than the world's (a restored
    /// server, an empty restart, a recreated bucket) opens with `resync` at the
    /// current revision: those revisions name other changes here. Else `from` past
    /// the current revision is `INVALID_ARGUMENT` (`fromRevision`).
    pub async fn open(
        events: &Arc<Events>,
        world: &Arc<World>,
        area: Area,
        from: Option<Resume>,
    ) -> Result<Subscription, EventError> {
        Self::open_with(events, world, area, from, None).await
    }

    /// [`Subscription::open`], for a transport with a direct way out: while the
    /// stream is idle ([`Subscription::go_direct`]) the hub's writer writes live
    /// events through `outlet`.
    pub async fn open_with(
        events: &Arc<Events>,
        world: &Arc<World>,
        area: Area,
        from: Option<Resume>,
        outlet: Option<Arc<Outlet>>,
    ) -> Result<Subscription, EventError> {
        let epoch: Arc<str> = Arc::from(world.epoch().unwrap_or_default());
        let other_history = from
            .as_ref()
            .and_then(|f| f.epoch.as_deref())
            .is_some_and(|e| *e != *epoch);
        let from = from.map(|f| f.revision);
        if let Some(from) = from
            && !other_history
        {
            // A replica of a shared store may lag the one the client last heard from.
            world.wait_applied(from).await;
        }
        let (hub, store) = events.hub(world.id())?;
        let (hub, store) = (Arc::clone(hub), Arc::clone(store));
        let cell = Arc::new(AreaCell::new(area));
        let (key, id) = events.register_area(&hub, &cell);
        let joined = hub.subscribe_with(key, Arc::clone(&cell), events.queue, outlet.clone());
        events.metrics.subscribers(hub.world(), 1.0);
        let mut sub = Subscription {
            key,
            id,
            events: Arc::clone(events),
            hub: Arc::clone(&hub),
            area: cell,
            pending: VecDeque::new(),
            rx: joined.rx,
            cut: joined.cut,
            live_from: joined.live_from,
            last_sent: joined.live_from,
            seen: from.unwrap_or(joined.live_from),
            sent: events.metrics.events_sent(hub.world()),
            caught_up: 0,
            store: Arc::clone(&store),
            layout: *world.tileset(),
            done: false,
            max_coordinate: world.rules().limits.max_coordinate,
            epoch: Arc::clone(&epoch),
            outlet,
        };
        let Some(from) = from else {
            return Ok(sub);
        };
        let to = sub.live_from;
        if other_history {
            sub.seen = to;
            sub.pending = VecDeque::from([Message::Resync {
                revision: to,
                epoch,
            }]);
            return Ok(sub);
        }
        if from > to {
            return Err(EventError::FromAhead { from, current: to });
        }
        let (layout, name) = (*world.tileset(), world.id().to_string());
        let metrics = Arc::clone(&events.metrics);
        let replayed =
            tokio::task::spawn_blocking(move || replay(&store, &layout, &name, from, to, &area))
                .await
                .map_err(|e| EventError::ReplayTask(e.to_string()))??;
        sub.pending = match replayed {
            Replay::Gone => {
                sub.seen = to;
                VecDeque::from([Message::Resync {
                    revision: to,
                    epoch: Arc::clone(&sub.epoch),
                }])
            }
            Replay::Events(events) => events
                .into_iter()
                .map(|e| Message::Event(Arc::new(Published::new(e, Arc::clone(&metrics)))))
                .collect(),
        };
        Ok(sub)
    }

    /// The id that names this subscription in `UpdateSubscription`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The world's revision when the stream opened.
    pub fn revision(&self) -> u64 {
        self.live_from
    }

    /// The epoch of the history the stream's revisions belong to.
    pub fn epoch(&self) -> &Arc<str> {
        &self.epoch
    }

    /// The largest |x| and |z| an area's centre may have (the world's
    /// `max_coordinate`).
    pub fn max_coordinate(&self) -> f64 {
        self.max_coordinate
    }

    /// Fires at server shutdown: a transport blocked writing to its client stops.
    pub fn closed(&self) -> CancellationToken {
        self.events.closed.clone()
    }

    /// Whether the server is shutting down (no lock: a flag).
    pub fn is_closed(&self) -> bool {
        self.events.is_closed()
    }

    /// Replaces the area of interest; answers the revision after which every event
    /// is matched against it ([`Hub::change_area`]). Events up to that revision may
    /// still be queued as the old area chose them; those touching the new area
    /// follow, replayed, before any later one.
    pub fn set_area(&self, area: Area) -> u64 {
        self.hub.change_area(&self.area, area)
    }

    /// The next message, or `None` once the stream is over (cut off after its
    /// `resync`, or shutdown). After an area change it first replays the events the
    /// change uncovered (`Subscription::catch_up`). Cancel-safe: a call dropped
    /// while it waits loses nothing.
    pub async fn next(&mut self) -> Option<Message> {
        loop {
            if self.over() {
                return None;
            }
            self.catch_up().await;
            if let Some(message) = self.pending.pop_front() {
                return Some(self.sending(message));
            }
            // The queue first: a ready event costs no waiter on the cell.
            let received = tokio::select! {
                biased;
                received = self.rx.recv() => received,
                () = self.area.changed() => continue,
            };
            match self.receive(received) {
                Read::Duplicate => {}
                Read::End(last) => return last,
                // An area change came first: the event waits behind its replay.
                Read::Message(message) if self.area_changed() => {
                    self.pending.push_front(message);
                }
                Read::Message(message) => return Some(self.sending(message)),
            }
        }
    }

    /// The next message if one is ready now, without waiting: what a transport
    /// writes in the same batch as the one [`Subscription::next`] gave it. `None`
    /// when nothing is queued, an area change waits to be caught up with, or the
    /// stream is over ([`Subscription::next`] then says which).
    pub fn try_next(&mut self) -> Option<Message> {
        if self.over() || self.area_changed() {
            return None;
        }
        let message = match self.pending.pop_front() {
            Some(message) => message,
            None => loop {
                let received = match self.rx.try_recv() {
                    Ok(event) => Some(event),
                    Err(TryRecvError::Empty) => return None,
                    Err(TryRecvError::Disconnected) => None,
                };
                match self.receive(received) {
                    Read::Duplicate => {}
                    Read::End(last) => return last,
                    Read::Message(message) if self.area_changed() => {
                        self.pending.push_front(message);
                        return None;
                    }
                    Read::Message(message) => break message,
                }
            },
        };
        Some(self.sending(message))
    }

    /// Hands live events to the outlet if nothing is left to send (no replay, no
    /// area change to catch up with, nothing queued, not over); answers whether it
    /// did. The transport must have written and flushed everything before, and
    /// until [`Outlet::settled`] must not write (nor call [`Subscription::next`]),
    /// then call [`Subscription::take_back`].
    pub fn go_direct(&mut self) -> bool {
        if self.outlet.is_none() || self.over() || self.area_changed() || !self.pending.is_empty() {
            return false;
        }
        let rx = &self.rx;
        self.hub.go_direct(self.key, || rx.is_empty())
    }

    /// Ends direct delivery (the outlet then settles: [`Outlet::settled`]).
    pub fn leave_direct(&self) {
        if let Some(outlet) = &self.outlet {
            self.hub.leave_direct(outlet);
        }
    }

    /// The outlet, if the transport has one.
    pub fn outlet(&self) -> Option<&Arc<Outlet>> {
        self.outlet.as_ref()
    }

    /// Takes the stream back from its outlet once it is settled: the events written
    /// directly count as sent, those left unwritten are sent next, before the queue.
    pub fn take_back(&mut self) {
        let Some(outlet) = &self.outlet else { return };
        let (sent, spilled) = outlet.take();
        self.last_sent = self.last_sent.max(sent);
        self.seen = self.seen.max(sent);
        let last = self.last_sent;
        self.pending.extend(
            spilled
                .into_iter()
                .filter(|e| e.revision > last)
                .map(Message::Event),
        );
    }

    /// Whether the area changed since the stream last caught up.
    fn area_changed(&self) -> bool {
        self.area.changes() != self.caught_up
    }

    /// After an area change applying after revision `R`: the events in
    /// `(seen, R]` touching the new area, replayed from the log and merged in
    /// revision order with what is pending and queued (every event up to `R` the
    /// old area matched is queued by then). When that history is gone, or the log
    /// cannot be read, a `resync` at `R` instead. Nothing changes until the replay is
    /// read, so a call dropped meanwhile is repeated whole.
    async fn catch_up(&mut self) {
        let current = self.area.current();
        if current.changes == self.caught_up {
            return;
        }
        let (from, to) = (self.seen, current.after);
        let replayed = if from < to {
            let (store, layout) = (Arc::clone(&self.store), self.layout);
            let world = self.hub.world().to_string();
            let area = current.area;
            tokio::task::spawn_blocking(move || replay(&store, &layout, &world, from, to, &area))
                .await
                .map_err(|e| e.to_string())
                .and_then(|r| r.map_err(|e| e.to_string()))
        } else {
            Ok(Replay::Events(Vec::new()))
        };
        self.caught_up = current.changes;
        let mut queued: Vec<Message> = self.pending.drain(..).collect();
        // A closed queue stays closed: the stream reads its end after these.
        while let Ok(event) = self.rx.try_recv() {
            queued.push(Message::Event(event));
        }
        let replayed = match replayed {
            Ok(Replay::Events(events)) => events,
            Ok(Replay::Gone) => return self.resync_at(to, queued),
            Err(error) => {
                tracing::warn!(world = %self.hub.world(), %error, from, to, "replaying after an area change");
                return self.resync_at(to, queued);
            }
        };
        let metrics = &self.events.metrics;
        let replayed = replayed
            .into_iter()
            .map(|e| Message::Event(Arc::new(Published::new(e, Arc::clone(metrics)))));
        // Resyncs first (an opening one precedes every event), then events by
        // revision, each once.
        let mut resyncs = Vec::new();
        let mut by_revision = BTreeMap::new();
        for message in queued.into_iter().chain(replayed) {
            match &message {
                Message::Resync { .. } => resyncs.push(message),
                Message::Event(e) if e.revision > self.seen => {
                    by_revision.entry(e.revision).or_insert(message);
                }
                Message::Event(_) => {}
            }
        }
        self.pending = resyncs
            .into_iter()
            .chain(by_revision.into_values())
            .collect();
    }

    /// Ends a catch-up whose history is gone: a `resync` at `revision` first, then
    /// whatever pending and queued message lies after it.
    fn resync_at(&mut self, revision: u64, queued: Vec<Message>) {
        self.last_sent = self.last_sent.max(revision);
        self.seen = self.seen.max(revision);
        let later = queued.into_iter().filter(|m| match m {
            Message::Event(e) => e.revision > revision,
            Message::Resync { revision: r, .. } => *r > revision,
        });
        let resync = Message::Resync {
            revision,
            epoch: Arc::clone(&self.epoch),
        };
        self.pending = std::iter::once(resync).chain(later).collect();
    }

    fn over(&self) -> bool {
        self.done || self.events.is_closed()
    }

    /// What an item read from the queue (`None`: its end) means.
    fn receive(&mut self, received: Option<Arc<Published>>) -> Read {
        match received {
            Some(event) if event.revision <= self.last_sent => Read::Duplicate,
            Some(event) => Read::Message(Message::Event(event)),
            None => {
                self.done = true;
                let cut = self.cut.load(Ordering::Acquire);
                // Shutdown ends the queue too, and is no cut-off.
                let cut_off = cut > 0 && !self.events.is_closed();
                Read::End(cut_off.then_some(Message::Resync {
                    revision: cut,
                    epoch: Arc::clone(&self.epoch),
                }))
            }
        }
    }

    /// Counts an event on its way out.
    fn sending(&mut self, message: Message) -> Message {
        if let Message::Event(e) = &message {
            self.last_sent = self.last_sent.max(e.revision);
            self.seen = self.seen.max(e.revision);
            self.sent.increment(1);
        }
        message
    }
}

/// An item read from the queue, as the stream sees it.
enum Read {
    /// An event already sent (replayed, and queued live as well).
    Duplicate,
    /// The end of the queue: the stream's last message (a cut-off's `resync`), if any.
    End(Option<Message>),
    Message(Message),
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.hub.unsubscribe(self.key);
        self.events.forget_area(&self.id);
        self.events.metrics.subscribers(self.hub.world(), -1.0);
    }
}
