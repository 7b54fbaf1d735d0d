//! The flat-zone reads both surfaces share: get, list, and the zone deciding the
//! height at a point, under the world's read lock. Mutations are the registry's
//! ([`crate::world::registry`]: `World::register_doc`, `World::unregister`).

use super::{QueryEngine, QueryError, check_coordinate};
use crate::world::World;

/// A registered zone with the revision that registered (or last replaced) it, every
/// zone of a world and one zone (or none), each with the world's revision: the shared
/// model's.
pub use terrain_model::{ZoneAnswer, ZoneEntry, ZoneList};

impl QueryEngine {
    /// Zone `id` of `world`; `NOT_FOUND` (field `id`) if absent.
    pub async fn zone(&self, world: &World, id: &str) -> Result<ZoneAnswer, QueryError> {
        let state = world.snapshot();
        let zones = state.zones();
        let entry = zones
            .get(id)
            .zip(zones.revision_of(id))
            .map(|(zone, revision)| ZoneEntry {
                zone: zone.clone(),
                revision,
            })
            .ok_or_else(|| QueryError::UnknownZone {
                world: world.id().to_string(),
                id: id.to_string(),
            })?;
        Ok(ZoneAnswer {
            zone: Some(entry),
            revision: state.revision(),
        })
    }

    /// Every zone of `world`, in registration order.
    pub async fn zones(&self, world: &World) -> ZoneList {
        let state = world.snapshot();
        let zones = state
            .zones()
            .iter()
            .map(|(zone, revision)| ZoneEntry {
                zone: zone.clone(),
                revision,
            })
            .collect();
        ZoneList {
            zones,
            revision: state.revision(),
            epoch: world.epoch().unwrap_or_default().to_string(),
        }
    }

    /// The zone that decides the height at `(x, z)`, if any.
    pub async fn zone_at(&self, world: &World, x: f64, z: f64) -> Result<ZoneAnswer, QueryError> {
        let max = world.max_coordinate();
        check_coordinate(x, max).map_err(|reason| QueryError::invalid("x", reason))?;
        check_coordinate(z, max).map_err(|reason| QueryError::invalid("z", reason))?;
        let state = world.snapshot();
        let zones = state.zones();
        let zone = zones.zone_at(x, z).map(|(zone, _)| ZoneEntry {
            zone: zone.clone(),
            revision: zones.revision_of(&zone.id).unwrap_or_default(),
        });
        Ok(ZoneAnswer {
            zone,
            revision: state.revision(),
        })
    }
}
