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

/// How many times [`TerrainClient::list_flat_zones`] starts a listing again when the
/// server can no longer continue it.
pub const LIST_RESTARTS: u32 = 3;

/// One page of a zone list ([`TerrainClient::list_flat_zones_page`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ZonePage {
    /// The page's zones, the listing's revision and epoch.
    pub list: ZoneList,
    /// The next page's token; empty on the last page.
    pub next_page_token: String,
}

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
    /// (one consistent snapshot): every page of `ListFlatZones`, read in turn (each
    /// page retried like any read). A listing the server can no longer continue (its
    /// revision left the server's history, or the world's epoch changed: a
    /// `FailedPrecondition` on a later page) is started again from the first page, at
    /// most [`LIST_RESTARTS`] times.
    pub async fn list_flat_zones(&mut self, world: &str) -> Result<ZoneList, ClientError> {
        let mut restarts = 0;
        'listing: loop {
            let first = self.list_flat_zones_page(world, 0, "").await?;
            let mut list = first.list;
            let mut token = first.next_page_token;
            while !token.is_empty() {
                let page = match self.list_flat_zones_page(world, 0, &token).await {
                    Err(ClientError::FailedPrecondition(_)) if restarts < LIST_RESTARTS => {
                        restarts += 1;
                        continue 'listing;
                    }
                    page => page?,
                };
                if page.list.revision != list.revision {
                    return Err(ClientError::Protocol(format!(
                        "a page of the zone list of revision {} answered revision {}",
                        list.revision, page.list.revision
                    )));
                }
                list.zones.extend(page.list.zones);
                token = page.next_page_token;
            }
            return Ok(list);
        }
    }

    /// One page of `world`'s zones (`ListFlatZones`): at most `page_size` zones (0:
    /// the server's default), from the first (`page_token` empty) or from where the
    /// previous page's `next_page_token` says. Retried like every read.
    pub async fn list_flat_zones_page(
        &mut self,
        world: &str,
        page_size: i32,
        page_token: &str,
    ) -> Result<ZonePage, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("ListFlatZones", || {
                let mut c = inner.clone();
                let req = v1::ListFlatZonesRequest {
                    world: world.to_string(),
                    page_size,
                    page_token: page_token.to_string(),
                };
                async move {
                    let r = c.list_flat_zones(req).await?.into_inner();
                    Ok(ZonePage {
                        list: ZoneList {
                            zones: r
                                .zones
                                .into_iter()
                                .map(zone_from_proto)
                                .collect::<Result<_, _>>()?,
                            revision: r.revision,
                            epoch: r.epoch,
                        },
                        next_page_token: r.next_page_token,
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
