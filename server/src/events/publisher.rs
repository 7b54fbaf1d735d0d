//! The commit listener that announces each committed mutation.
//!
//! It runs on the registry's blocking thread after every earlier listener (the mesh
//! cache brings the affected tiles to version >= r first), so whoever hears of
//! revision r and asks for an affected tile gets it at r or later. It only
//! publishes into the world's hub: the log entry already carries the measured height
//! change (the world annotates and prunes its log before telling any listener, see
//! [`crate::world::follow`]), so a subscriber that resumes from the log never finds
//! an entry without its delta.

use std::sync::Arc;

use terrain_core::{FlatZone, tiles3d::TilesetLayout};

use super::{Event, Events};
use crate::{
    store::MutationKind,
    world::{Change, CommitListener, Outcome, World},
};

/// Publishes committed mutations as events.
#[derive(Debug)]
pub struct Publisher {
    events: Arc<Events>,
}

impl Publisher {
    /// The publisher into `events`' hubs.
    pub fn new(events: Arc<Events>) -> Self {
        Publisher { events }
    }
}

/// A zone's `walkable` as an event of `kind` on it announces it: none for a removal.
pub(crate) fn walkable_after(kind: MutationKind, zone: &FlatZone) -> Option<bool> {
    match kind {
        MutationKind::Removed => None,
        MutationKind::Registered | MutationKind::Replaced => zone.walkable,
    }
}

/// The event for a committed `outcome` of `world`, whose tileset is `tileset` (none
/// for a no-op).
pub fn event_of(world: &str, tileset: &TilesetLayout, outcome: &Outcome) -> Option<Event> {
    let kind = match outcome.change {
        Change::Registered => MutationKind::Registered,
        Change::Replaced => MutationKind::Replaced,
        Change::Removed => MutationKind::Removed,
        Change::Unchanged => return None,
    };
    Some(Event {
        world: world.to_string(),
        revision: outcome.revision,
        zone: outcome.zone.id.clone(),
        kind,
        tiles: outcome.tiles.clone(),
        tile_rects: outcome.changed.rects.clone(),
        tile_count: outcome.changed.count,
        bounds: outcome.bounds,
        max_height_delta: Some(outcome.max_height_delta),
        walkable: walkable_after(kind, &outcome.zone),
        tileset_contents: tileset.changed_contents(&outcome.changed.rects),
    })
}

impl CommitListener for Publisher {
    fn committed(&self, world: &World, outcome: &Outcome) {
        let Some(event) = event_of(world.id(), world.tileset(), outcome) else {
            return;
        };
        match self.events.hub_of(world.id()) {
            Some(hub) => hub.publish(event),
            None => tracing::warn!(world = world.id(), "no event hub: event not published"),
        }
    }

    fn skipped(&self, world: &World, revision: u64) {
        if let Some(hub) = self.events.hub_of(world.id()) {
            hub.resync_all(revision);
        }
    }
}
