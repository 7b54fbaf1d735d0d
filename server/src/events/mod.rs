//! Pushed tile events: one per committed mutation of a world, fanned out to
//! subscribers by area of interest, resumable from the persisted mutation log.
//!
//! - [`Event`], [`Message`]: what a subscriber receives, and its JSON form (the
//!   WebSocket frames; gRPC carries the protobuf equivalent).
//! - [`area`]: the area of interest (tile rectangle or circle) and which events match.
//! - [`hub`]: per world, the one owner of the subscriber list; publishing only
//!   `try_send`s into bounded per-subscriber queues and cuts off a full one.
//! - [`publisher`]: the [`crate::world::CommitListener`] that turns each committed
//!   mutation into an event (registered after the mesh listener, so the tiles are
//!   current before anyone hears of the change).
//! - [`subscription`]: one open stream: replay from the log, then live, no gap and no
//!   duplicate; ends on cut-off or when [`Events::close`] fires (shutdown).
//! - [`replay`]: rebuilding past events from log entries.

pub mod area;
pub mod hub;
pub mod publisher;
pub mod replay;
pub mod subscription;

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicU64, Ordering},
    },
};

use serde::Serialize;
use terrain_core::zones::Bounds;
use tokio_util::sync::CancellationToken;

use crate::{
    config::Limits,
    error::ApiError,
    metrics::Metrics,
    store::{MutationKind, StoreError, ZoneStore},
    world::Worlds,
};

pub use area::Area;
pub use hub::Hub;
pub use publisher::Publisher;
pub use subscription::Subscription;

/// One committed mutation, as subscribers see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub world: String,
    pub revision: u64,
    /// The zone the mutation changed.
    pub zone: String,
    pub kind: MutationKind,
    /// Tiles whose heights or normals changed, row-major (z outer, x inner).
    pub tiles: Vec<(i64, i64)>,
    /// The area whose heights may have changed.
    pub bounds: Bounds,
    /// The largest absolute height change inside `bounds`; `None` only for a replayed
    /// event whose log entry never recorded it.
    pub max_height_delta: Option<f64>,
}

/// What a stream carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Event(Arc<Event>),
    /// Events were lost (history pruned, or the subscriber fell behind): re-read the
    /// state at `revision`.
    Resync {
        revision: u64,
    },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EventJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    world: &'a str,
    revision: u64,
    cause: CauseJson<'a>,
    tiles: Vec<[i64; 2]>,
    bounds: BoundsJson,
    max_height_delta: Option<f64>,
}

#[derive(Serialize)]
struct CauseJson<'a> {
    zone: &'a str,
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BoundsJson {
    min_x: f64,
    min_z: f64,
    max_x: f64,
    max_z: f64,
}

#[derive(Serialize)]
struct ResyncJson {
    #[serde(rename = "type")]
    kind: &'static str,
    revision: u64,
}

impl Message {
    /// The JSON text of a WebSocket frame: an event
    /// `{"type": "event", "world", "revision", "cause": {"zone", "kind"}, "tiles",
    /// "bounds": {"minX", "minZ", "maxX", "maxZ"}, "maxHeightDelta"}` or
    /// `{"type": "resync", "revision"}`.
    pub fn to_json(&self) -> String {
        let json = match self {
            Message::Event(e) => serde_json::to_string(&EventJson {
                kind: "event",
                world: &e.world,
                revision: e.revision,
                cause: CauseJson {
                    zone: &e.zone,
                    kind: e.kind.as_str(),
                },
                tiles: e.tiles.iter().map(|&(x, z)| [x, z]).collect(),
                bounds: BoundsJson {
                    min_x: e.bounds.min_x,
                    min_z: e.bounds.min_z,
                    max_x: e.bounds.max_x,
                    max_z: e.bounds.max_z,
                },
                max_height_delta: e.max_height_delta,
            }),
            Message::Resync { revision } => serde_json::to_string(&ResyncJson {
                kind: "resync",
                revision: *revision,
            }),
        };
        // Strings, integers and finite floats always serialise.
        json.unwrap_or_default()
    }
}

/// The server's event hubs, the open subscriptions' areas (for gRPC
/// `UpdateSubscription`), and the token that ends every stream at shutdown.
#[derive(Debug)]
pub struct Events {
    /// Set once the store and worlds are open ([`Events::attach`]).
    attached: OnceLock<Attached>,
    /// Area cells of open subscriptions, by subscription id.
    areas: Mutex<HashMap<String, Arc<area::AreaCell>>>,
    next_id: AtomicU64,
    /// Fires at shutdown: every stream ends.
    closed: CancellationToken,
    queue: usize,
    metrics: Arc<Metrics>,
}

#[derive(Debug)]
struct Attached {
    store: Arc<ZoneStore>,
    hubs: HashMap<String, Arc<Hub>>,
}

impl Events {
    /// Events sized by `limits.subscriber_queue`.
    pub fn new(limits: &Limits, metrics: Arc<Metrics>) -> Self {
        Events {
            attached: OnceLock::new(),
            areas: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            closed: CancellationToken::new(),
            queue: limits.subscriber_queue.max(1),
            metrics,
        }
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
            let hub = Hub::new(world.id(), revision, Arc::clone(&self.metrics));
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

    /// Ends every open stream, now and in future (shutdown).
    pub fn close(&self) {
        self.closed.cancel();
    }

    /// Replaces the area of the open subscription `id`.
    pub fn update_area(&self, id: &str, area: Area) -> Result<(), ApiError> {
        let areas = self.areas.lock().unwrap_or_else(|p| p.into_inner());
        let cell = areas.get(id).ok_or_else(|| {
            ApiError::invalid("subscriptionId", format!("no open subscription {id:?}"))
        })?;
        cell.set(area);
        Ok(())
    }

    fn hub(&self, world: &str) -> Result<(&Arc<Hub>, &Arc<ZoneStore>), ApiError> {
        let attached = self
            .attached
            .get()
            .ok_or(ApiError::Unavailable("events: not started"))?;
        let hub = attached
            .hubs
            .get(world)
            .ok_or_else(|| ApiError::Internal(format!("events: no hub for world {world:?}")))?;
        Ok((hub, &attached.store))
    }

    fn hub_of(&self, world: &str) -> Option<&Arc<Hub>> {
        self.attached.get().and_then(|a| a.hubs.get(world))
    }

    fn register_area(&self, cell: &Arc<area::AreaCell>) -> (u64, String) {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = subscription_id(n);
        let mut areas = self.areas.lock().unwrap_or_else(|p| p.into_inner());
        areas.insert(id.clone(), Arc::clone(cell));
        (n, id)
    }

    fn forget_area(&self, id: &str) {
        let mut areas = self.areas.lock().unwrap_or_else(|p| p.into_inner());
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
