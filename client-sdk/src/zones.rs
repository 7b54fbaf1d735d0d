//! Flat-zone calls of [`TerrainClient`]. Reads are retried like every idempotent
//! call; the two mutations (`RegisterFlatZone`, `UnregisterFlatZone`) are sent once
//! and never retried: a registration whose answer was lost may have been committed,
//! and only the caller can decide whether to send it again.

use terrain_core::zones::ZoneSpec;
use terrain_proto::v1;

use crate::{
    ClientError, TerrainClient,
    types::{
        Registered, Unregistered, ZoneAnswer, ZoneList, changed_from_proto, tiles_from_proto,
        zone_change, zone_from_proto, zone_to_proto,
    },
};

impl TerrainClient {
    /// Registers zone `id` in `world` (or replaces the zone with that id). Needs the
    /// admin token when the server has one. Not retried.
    pub async fn register_flat_zone(
        &mut self,
        world: &str,
        id: &str,
        spec: &ZoneSpec,
    ) -> Result<Registered, ClientError> {
        let request = v1::RegisterFlatZoneRequest {
            world: world.to_string(),
            zone: Some(zone_to_proto(id, spec)),
        };
        let r = self.inner.register_flat_zone(request).await?.into_inner();
        let zone = r
            .zone
            .ok_or_else(|| ClientError::Protocol("registration without zone".into()))?;
        Ok(Registered {
            zone: zone_from_proto(zone)?,
            revision: r.revision,
            tiles: tiles_from_proto(r.tiles),
            change: zone_change(&r.change)?,
            changed: changed_from_proto(&r.tile_rects, r.tile_count),
        })
    }

    /// Removes zone `id` from `world` (`NotFound` if absent). Not retried.
    pub async fn unregister_flat_zone(
        &mut self,
        world: &str,
        id: &str,
    ) -> Result<Unregistered, ClientError> {
        let request = v1::UnregisterFlatZoneRequest {
            world: world.to_string(),
            id: id.to_string(),
        };
        let r = self.inner.unregister_flat_zone(request).await?.into_inner();
        Ok(Unregistered {
            revision: r.revision,
            tiles: tiles_from_proto(r.tiles),
            changed: changed_from_proto(&r.tile_rects, r.tile_count),
        })
    }

    /// Zone `id` of `world` with the world's current revision (`NotFound` if absent).
    pub async fn flat_zone(&mut self, world: &str, id: &str) -> Result<ZoneAnswer, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("GetFlatZone", || {
                let mut c = inner.clone();
                let req = v1::GetFlatZoneRequest {
                    world: world.to_string(),
                    id: id.to_string(),
                };
                async move {
                    let r = c.get_flat_zone(req).await?.into_inner();
                    Ok(ZoneAnswer {
                        zone: r.zone.map(zone_from_proto).transpose()?,
                        revision: r.revision,
                    })
                }
            })
            .await
    }

    /// Every zone of `world` in registration order, as of the answer's revision
    /// (one consistent snapshot).
    pub async fn list_flat_zones(&mut self, world: &str) -> Result<ZoneList, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("ListFlatZones", || {
                let mut c = inner.clone();
                let req = v1::ListFlatZonesRequest {
                    world: world.to_string(),
                };
                async move {
                    let r = c.list_flat_zones(req).await?.into_inner();
                    Ok(ZoneList {
                        zones: r
                            .zones
                            .into_iter()
                            .map(zone_from_proto)
                            .collect::<Result<_, _>>()?,
                        revision: r.revision,
                        epoch: r.epoch,
                    })
                }
            })
            .await
    }

    /// The zone deciding the height at `(x, z)` in `world`, if any.
    pub async fn flat_zone_at(
        &mut self,
        world: &str,
        x: f64,
        z: f64,
    ) -> Result<ZoneAnswer, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("GetFlatZoneAt", || {
                let mut c = inner.clone();
                let req = v1::GetFlatZoneAtRequest {
                    world: world.to_string(),
                    x,
                    z,
                };
                async move {
                    let r = c.get_flat_zone_at(req).await?.into_inner();
                    Ok(ZoneAnswer {
                        zone: r.zone.map(zone_from_proto).transpose()?,
                        revision: r.revision,
                    })
                }
            })
            .await
    }
}
