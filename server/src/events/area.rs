//! The area of interest of a subscription, and the cell that holds an open
//! subscription's current area.
//!
//! [`Area`] itself (a tile rectangle, a circle, or everything; its checks and which
//! events it matches) is the shared model's ([`terrain_model::Area`]); its wire forms
//! are read at the edge: the WebSocket query string and text messages in
//! `api/http/events.rs`, the protobuf `SubscriptionArea` in `api/grpc/events.rs`.

use std::sync::{
    RwLock,
    atomic::{AtomicU64, Ordering},
};

use tokio::sync::Notify;

pub use terrain_model::Area;

use crate::sync::{read_locked, write_locked};

/// A subscription's area: written by its client (WebSocket message or gRPC
/// `UpdateSubscription`), read by the hub at each publish and by the stream, which
/// replays what a change uncovers ([`super::Subscription`]).
#[derive(Debug, Default)]
pub struct AreaCell {
    current: RwLock<Current>,
    /// `current.changes`, read without the lock by the stream at every message.
    changes: AtomicU64,
    /// Wakes the stream after a change (a permit is kept if it is not waiting).
    changed: Notify,
}

/// A cell's area and how it got there.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Current {
    pub area: Area,
    /// How many times the area was changed since the subscription opened.
    pub changes: u64,
    /// The revision the last change applies after: every later event is matched
    /// against `area`, every earlier one was matched against an older area.
    pub after: u64,
}

impl AreaCell {
    /// A cell holding `area`.
    pub fn new(area: Area) -> Self {
        AreaCell {
            current: RwLock::new(Current {
                area,
                changes: 0,
                after: 0,
            }),
            changes: AtomicU64::new(0),
            changed: Notify::new(),
        }
    }

    /// The current area.
    pub fn get(&self) -> Area {
        self.current().area
    }

    /// The current area, with its count of changes and the revision the last applies
    /// after.
    pub fn current(&self) -> Current {
        *read_locked(&self.current)
    }

    /// Replaces the area, applying to every event after revision `after`, and wakes
    /// the stream. Only the hub calls it ([`super::Hub::change_area`], under its lock,
    /// where it also updates the copy its `publish` matches against).
    pub(super) fn set(&self, area: Area, after: u64) {
        {
            let mut current = write_locked(&self.current);
            current.area = area;
            current.changes += 1;
            current.after = after;
            self.changes.store(current.changes, Ordering::Release);
        }
        self.changed.notify_one();
    }

    /// How many times the area was changed (no lock).
    pub fn changes(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    /// Resolves after the next change (at once if one came since the last call).
    pub async fn changed(&self) {
        self.changed.notified().await;
    }
}
