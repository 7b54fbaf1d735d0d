//! The flat-zone calls both surfaces share: register, unregister, get, list, and the
//! zone deciding the height at a point. Mutations go to the world's registry
//! ([`crate::world::registry`]); reads take the world's read lock only.

use std::sync::Arc;

use terrain_core::zones::ZoneDoc;

use super::{QueryEngine, check_coordinate};
use crate::{
    error::ApiError,
    world::{Outcome, World},
};

/// A registered zone with the revision that registered (or last replaced) it: the
/// shared model's.
pub use terrain_model::ZoneEntry;

/// Every zone of a world, in registration order, and the world's revision.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneList {
    pub zones: Vec<ZoneEntry>,
    pub revision: u64,
}

/// One zone (or none) and the world's revision.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneAnswer {
    pub zone: Option<ZoneEntry>,
    pub revision: u64,
}

impl QueryEngine {
    /// Registers `doc` as zone `id` of `world`. An `id` inside `doc`, if any, must
    /// equal `id`.
    pub async fn register_zone(
        &self,
        world: &Arc<World>,
        id: &str,
        doc: &ZoneDoc,
    ) -> Result<Outcome, ApiError> {
        if let Some(inner) = doc.id.as_deref().filter(|inner| *inner != id) {
            let reason = format!("{inner:?} in the zone differs from {id:?} it is registered as");
            return Err(ApiError::invalid("id", reason));
        }
        let spec = doc.spec().map_err(|e| ApiError::zone(&e))?;
        world.register(id, spec).await
    }

    /// Removes zone `id` of `world`; `NOT_FOUND` if absent.
    pub async fn unregister_zone(&self, world: &Arc<World>, id: &str) -> Result<Outcome, ApiError> {
        world.unregister(id).await
    }

    /// Zone `id` of `world`; `NOT_FOUND` (field `id`) if absent.
    pub async fn zone(&self, world: &World, id: &str) -> Result<ZoneAnswer, ApiError> {
        let state = world.read().await;
        let zones = state.zones();
        let entry = zones
            .get(id)
            .zip(zones.revision_of(id))
            .map(|(zone, revision)| ZoneEntry {
                zone: zone.clone(),
                revision,
            })
            .ok_or_else(|| ApiError::UnknownZone {
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
        let state = world.read().await;
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
        }
    }

    /// The zone that decides the height at `(x, z)`, if any.
    pub async fn zone_at(&self, world: &World, x: f64, z: f64) -> Result<ZoneAnswer, ApiError> {
        let max = self.limits().max_coordinate;
        check_coordinate(x, max).map_err(|reason| ApiError::invalid("x", reason))?;
        check_coordinate(z, max).map_err(|reason| ApiError::invalid("z", reason))?;
        let state = world.read().await;
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
