//! `LocalTerrain.nextEvent()`: the replica's events handed to JavaScript, each once the
//! snapshot it describes is the one `heightAt` reads (the view), so a game can re-snap the
//! entities inside an event's bounds as soon as it arrives.

use std::sync::Arc;

use napi_derive::napi;
use terrain_client::{CauseKind, ReplicaEvent};
use tokio::sync::{Mutex, broadcast};

/// A rectangle in metres.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct EventBounds {
    pub min_x: f64,
    pub min_z: f64,
    pub max_x: f64,
    pub max_z: f64,
}

/// One event of a replica: `kind` says which.
///
/// - `registered`, `replaced`, `removed`: the zone `zone` changed at `revision`; the
///   heights inside `bounds` may differ (by at most `maxHeightDelta` metres);
/// - `rebuilt`: the replica was rebuilt from a fresh zone list at `revision` (the
///   server could not replay): re-read everything;
/// - `lagged`: this reader fell more than 1,024 events behind and `missed` were
///   dropped; the replica is at `revision`: re-read everything.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct LocalEvent {
    pub kind: String,
    pub revision: i64,
    pub zone: Option<String>,
    pub bounds: Option<EventBounds>,
    pub max_height_delta: Option<f64>,
    /// The zone's `walkable` after the change (absent: the terrain rule decides).
    pub walkable: Option<bool>,
    /// How many tiles the change touched.
    pub tile_count: Option<i64>,
    /// For `lagged`: how many events were dropped.
    pub missed: Option<i64>,
}

/// The receiving end a `LocalTerrain` holds from its opening, so no event published
/// after `open` resolved is missed; each arrives once the view shows it.
pub type Receiver = Arc<Mutex<broadcast::Receiver<crate::handoff::Applied>>>;

fn revision(r: u64) -> i64 {
    i64::try_from(r).unwrap_or(i64::MAX)
}

impl LocalEvent {
    pub fn of(event: ReplicaEvent) -> Self {
        match event {
            ReplicaEvent::Tiles(e) => LocalEvent {
                kind: match e.kind {
                    CauseKind::Registered => "registered",
                    CauseKind::Replaced => "replaced",
                    CauseKind::Removed => "removed",
                }
                .to_string(),
                revision: revision(e.revision),
                zone: Some(e.zone),
                bounds: Some(EventBounds {
                    min_x: e.bounds.min_x,
                    min_z: e.bounds.min_z,
                    max_x: e.bounds.max_x,
                    max_z: e.bounds.max_z,
                }),
                max_height_delta: e.max_height_delta,
                walkable: e.walkable,
                tile_count: Some(i64::try_from(e.tile_count).unwrap_or(i64::MAX)),
                missed: None,
            },
            ReplicaEvent::Rebuilt { revision: r } => LocalEvent::marker("rebuilt", r, None),
            // `nextEvent` rejects with the reason instead (see `LocalTerrain::next_event`).
            ReplicaEvent::Stopped { .. } => LocalEvent::marker("stopped", 0, None),
        }
    }

    pub fn lagged(at: u64, missed: u64) -> Self {
        LocalEvent::marker("lagged", at, Some(missed))
    }

    fn marker(kind: &str, at: u64, missed: Option<u64>) -> Self {
        LocalEvent {
            kind: kind.to_string(),
            revision: revision(at),
            zone: None,
            bounds: None,
            max_height_delta: None,
            walkable: None,
            tile_count: None,
            missed: missed.map(|m| i64::try_from(m).unwrap_or(i64::MAX)),
        }
    }
}
