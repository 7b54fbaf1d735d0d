//! The area of interest of a subscription, and the cell that holds an open
//! subscription's current area.
//!
//! [`Area`] itself (a tile rectangle, a circle, or everything; its checks and which
//! events it matches) is the shared model's ([`terrain_model::Area`]); its wire forms
//! are read at the edge: the WebSocket query string and text messages in
//! `api/http/events.rs`, the protobuf `SubscriptionArea` in `api/grpc/events.rs`.

use std::sync::RwLock;

pub use terrain_model::Area;

/// A subscription's area: written by its client (WebSocket message or gRPC
/// `UpdateSubscription`), read by the hub at each publish.
#[derive(Debug, Default)]
pub struct AreaCell(RwLock<Area>);

impl AreaCell {
    /// A cell holding `area`.
    pub fn new(area: Area) -> Self {
        AreaCell(RwLock::new(area))
    }

    /// The current area.
    pub fn get(&self) -> Area {
        *self.0.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Replaces the area.
    pub fn set(&self, area: Area) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = area;
    }
}
