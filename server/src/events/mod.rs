//! Pushed tile events: one per committed mutation of a world, fanned out to
//! subscribers by area of interest, resumable from the persisted mutation log.
//!
//! - [`Event`], [`Message`]: what a subscriber receives. Their wire forms are the
//!   edge's: JSON frames in `api/http/events/`, protobuf in `api/grpc/events.rs`
//!   (through the shared model, [`terrain_model`]).
//! - [`area`]: the area of interest (the shared model's tile rectangle or circle) and
//!   the cell holding an open subscription's current one.
//! - [`error`]: [`EventError`], why an event call failed.
//! - [`hub`]: per world, the one owner of the subscriber list; publishing only
//!   `try_send`s into bounded per-subscriber queues and cuts off a full one, or
//!   assigns the event to the idle subscribers' outlets, which its writer tasks
//!   write to (`event_writers`, each outlet always by the same one).
//! - [`outlet`]: direct delivery: an idle WebSocket subscriber's frames written by
//!   a hub's writer task, one wake-up per event and writer instead of one per
//!   subscriber.
//! - [`publisher`]: the [`crate::world::CommitListener`] that turns each committed
//!   mutation into an event (registered after the mesh listener, so the tiles are
//!   current before anyone hears of the change).
//! - [`subscription`]: one open stream: replay from the log, then live, no gap and no
//!   duplicate; ends on cut-off or when [`Events::close`] fires (shutdown).
//! - [`replay`]: rebuilding past events from log entries.
//! - [`shared`]: [`Published`], an event with its wire forms encoded once and
//!   shared by every subscriber.
//! - [`streams`]: the cap on open streams (event subscriptions and `TrackViewers`),
//!   per connection and in total.

pub mod area;
pub mod error;
pub mod hub;
pub mod outlet;
pub mod publisher;
pub mod replay;
pub mod shared;
pub mod streams;
pub mod subscription;

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
};

use tokio_util::sync::CancellationToken;

use crate::{
    config::{ConnectionConfig, Limits},
    metrics::Metrics,
    store::{StoreError, ZoneStore},
    sync::locked,
    world::Worlds,
};

pub use area::Area;
pub use error::EventError;
pub use hub::Hub;
pub use outlet::{DirectSink, Offer, Outlet};
pub use publisher::Publisher;
pub use shared::{Published, WireFormat};
pub use streams::{ConnectionStreams, StreamKind, StreamPermit, Streams};
pub use subscription::{Resume, Subscription};

/// One committed mutation, as subscribers see it: the shared model's
/// [`terrain_model::TileEvent`] (world, revision, zone, kind, tiles, bounds and the
/// largest height change).
pub use terrain_model::TileEvent as Event;

/// An event of zone `a` in world `main` at `revision`, over the tiles `tiles` (one
/// rectangle per tile), raising them by 1 m: the unit tests' event.
#[cfg(test)]
pub(crate) fn sample_event(revision: u64, tiles: Vec<(i64, i64)>) -> Event {
    Event {
        world: "main".into(),
        revision,
        zone: "a".into(),
        kind: crate::store::MutationKind::Registered,
        tile_rects: tiles
            .iter()
            .map(|&(x, z)| terrain_core::TileRect {
                min_tx: x,
                min_tz: z,
                max_tx: x,
                max_tz: z,
            })
            .collect(),
        tile_count: tiles.len() as u64,
        tiles,
        bounds: terrain_core::zones::Bounds {
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

/// What a stream carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// An event, shared with every other subscriber it reached.
    Event(Arc<Published>),
    /// Events were lost (history pruned, the subscriber fell behind, or it resumed
    /// from another history of the world): re-read the state at `revision`, of the
    /// world's history `epoch`.
    Resync { revision: u64, epoch: Arc<str> },
}

/// The server's event hubs, the open subscriptions' areas (for gRPC
/// `UpdateSubscription`), and the token that ends every stream at shutdown.
#[derive(Debug)]
pub struct Events {
    /// Set once the store and worlds are open ([`Events::attach`]).
    attached: OnceLock<Attached>,
    /// The hub and area cell of each open subscription, by subscription id.
    areas: Mutex<HashMap<String, OpenArea>>,
    next_id: AtomicU64,
    /// Fires at shutdown: every stream ends.
    closed: CancellationToken,
    /// Set at shutdown, before the hubs close: what a stream checks per message
    /// (reading `closed` takes its lock).
    shut: AtomicBool,
    queue: usize,
    /// Writer tasks per hub (`event_writers`).
    writers: usize,
    /// The cap on open streams.
    streams: Streams,
    metrics: Arc<Metrics>,
}

/// Where an open subscription's area lives: its hub (whose lock orders area
/// changes with publishing) and its cell.
#[derive(Debug)]
struct OpenArea {
    hub: Arc<Hub>,
    cell: Arc<area::AreaCell>,
}

#[derive(Debug)]
struct Attached {
    store: Arc<ZoneStore>,
    hubs: HashMap<String, Arc<Hub>>,
}

impl Events {
    /// Events sized by `limits.subscriber_queue`, with the stream caps of
    /// `connections`.
    pub fn new(limits: &Limits, connections: &ConnectionConfig, metrics: Arc<Metrics>) -> Self {
        Events {
            attached: OnceLock::new(),
            areas: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            closed: CancellationToken::new(),
            shut: AtomicBool::new(false),
            queue: limits.subscriber_queue.max(1),
            writers: limits.event_writers,
            streams: Streams::new(
                connections.max_subscriptions_per_connection,
                connections.max_subscriptions,
                Arc::clone(&metrics),
            ),
            metrics,
        }
    }

    /// The cap on open streams, shared by event subscriptions and `TrackViewers`.
    pub fn streams(&self) -> &Streams {
        &self.streams
    }

    /// The commit listener that publishes into these hubs.
    pub fn publisher(self: &Arc<Self>) -> Arc<Publisher> {
        Arc::new(Publisher::new(Arc::clone(self)))
    }

    /// Creates a hub per world, starting at its committed revision. Call once the
    /// worlds are open and before any mutation; blocks on the store.
    pub fn attach(&self, store: &Arc<ZoneStore>, worlds: &Worlds) -> Result<(), StoreError> {
        let mut hubs = HashMap::new();
        for world in worlds.iter() {
            let revision = store.revision(world.id())?;
            let hub = Hub::new(
                world.id(),
                revision,
                self.writers,
                Arc::clone(&self.metrics),
            );
            hubs.insert(world.id().to_string(), Arc::new(hub));
        }
        let attached = Attached {
            store: Arc::clone(store),
            hubs,
        };
        if self.attached.set(attached).is_err() {
            tracing::warn!("event hubs attached twice; keeping the first");
        }
        Ok(())
    }

    /// Ends every open stream, now and in future (shutdown): the flag first, then
    /// every hub's queues (waking the streams waiting on them), then the token (a
    /// transport blocked writing stops).
    pub fn close(&self) {
        self.shut.store(true, Ordering::SeqCst);
        if let Some(attached) = self.attached.get() {
            for hub in attached.hubs.values() {
                hub.close();
            }
        }
        self.closed.cancel();
    }

    /// Whether [`Events::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.shut.load(Ordering::SeqCst)
    }

    /// Replaces the area of the open subscription `id`; answers the revision after
    /// which every event is matched against the new area ([`Hub::change_area`]).
    pub fn update_area(&self, id: &str, area: Area) -> Result<u64, EventError> {
        let (hub, cell) = {
            let areas = locked(&self.areas);
            let open = areas
                .get(id)
                .ok_or_else(|| EventError::UnknownSubscription { id: id.to_string() })?;
            (Arc::clone(&open.hub), Arc::clone(&open.cell))
        };
        Ok(hub.change_area(&cell, area))
    }

    fn hub(&self, world: &str) -> Result<(&Arc<Hub>, &Arc<ZoneStore>), EventError> {
        let attached = self.attached.get().ok_or(EventError::NotStarted)?;
        let hub = attached.hubs.get(world).ok_or_else(|| EventError::NoHub {
            world: world.to_string(),
        })?;
        Ok((hub, &attached.store))
    }

    fn hub_of(&self, world: &str) -> Option<&Arc<Hub>> {
        self.attached.get().and_then(|a| a.hubs.get(world))
    }

    fn register_area(&self, hub: &Arc<Hub>, cell: &Arc<area::AreaCell>) -> (u64, String) {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = subscription_id(n);
        let mut areas = locked(&self.areas);
        let open = OpenArea {
            hub: Arc::clone(hub),
            cell: Arc::clone(cell),
        };
        areas.insert(id.clone(), open);
        (n, id)
    }

    fn forget_area(&self, id: &str) {
        let mut areas = locked(&self.areas);
        areas.remove(id);
    }
}

/// A subscription id that is hard to guess: the counter and a per-process random
/// salt, so one client cannot easily steer another's subscription.
fn subscription_id(n: u64) -> String {
    use std::hash::{BuildHasher, RandomState};
    static SALT: OnceLock<RandomState> = OnceLock::new();
    let salt = SALT.get_or_init(RandomState::new).hash_one(n);
    format!("{n}-{salt:016x}")
}
