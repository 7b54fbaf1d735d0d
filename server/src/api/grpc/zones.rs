//! The flat-zone RPCs of `terrain.v1.TerrainService`: `RegisterFlatZone`,
//! `UnregisterFlatZone`, `GetFlatZone`, `ListFlatZones`, `GetFlatZoneAt`, translated
//! to [`crate::query::zones`] calls. Mutations need `authorization: Bearer <token>`
//! metadata when an admin token is configured.

use prost::Message as _;
use terrain_core::zones::ZoneDoc;
use terrain_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::authorize;
use crate::{
    api::{ApiError, ApiState},
    query::zones::ZoneEntry,
    world::Outcome,
};

/// The zone a request describes, as the HTTP body would (without `id`, which the
/// caller takes from the message; `revision` is output-only and ignored), or why its
/// flattened tile mask cannot be read (field `tileMask`).
pub fn zone_doc(zone: &pb::FlatZone) -> Result<ZoneDoc, ApiError> {
    let tile_mask = terrain_model::mask_from_proto(&zone.tile_mask)?;
    Ok(ZoneDoc {
        id: None,
        center_x: zone.center_x,
        center_z: zone.center_z,
        width: zone.width,
        depth: zone.depth,
        radius: zone.radius,
        height: zone.height,
        height_offset: zone.height_offset,
        blend_radius: zone.blend_radius,
        carve_inset: zone.carve_inset,
        priority: zone.priority,
        walkable: zone.walkable,
        tile_mask,
    })
}

fn tile_keys(outcome: &Outcome) -> Vec<pb::TileKey> {
    terrain_model::tile_keys(&outcome.tiles)
}

fn tile_rects(outcome: &Outcome) -> Vec<pb::TileRect> {
    outcome.changed.to_proto()
}

pub async fn register(
    state: &ApiState,
    request: Request<pb::RegisterFlatZoneRequest>,
) -> Result<Response<pb::RegisterFlatZoneResponse>, Status> {
    authorize(state, request.metadata())?;
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let zone = request
        .zone
        .ok_or_else(|| ApiError::invalid("zone", "missing (required)"))?;
    let outcome = world.register_doc(&zone.id, &zone_doc(&zone)?).await?;
    let entry = ZoneEntry {
        zone: outcome.zone.clone(),
        revision: outcome.zone_revision,
    };
    Ok(Response::new(pb::RegisterFlatZoneResponse {
        zone: Some(pb::FlatZone::from(&entry)),
        revision: outcome.revision,
        tiles: tile_keys(&outcome),
        change: outcome.change.as_str().to_string(),
        tile_rects: tile_rects(&outcome),
        tile_count: outcome.changed.count,
    }))
}

pub async fn unregister(
    state: &ApiState,
    request: Request<pb::UnregisterFlatZoneRequest>,
) -> Result<Response<pb::UnregisterFlatZoneResponse>, Status> {
    authorize(state, request.metadata())?;
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let outcome = world.unregister(&request.id).await?;
    Ok(Response::new(pb::UnregisterFlatZoneResponse {
        revision: outcome.revision,
        tiles: tile_keys(&outcome),
        tile_rects: tile_rects(&outcome),
        tile_count: outcome.changed.count,
    }))
}

pub async fn get(
    state: &ApiState,
    request: Request<pb::GetFlatZoneRequest>,
) -> Result<Response<pb::GetFlatZoneResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let answer = engine
        .zone(engine.world(&request.world)?, &request.id)
        .await?;
    Ok(Response::new(pb::GetFlatZoneResponse::from(&answer)))
}

/// A page of zones ([`crate::query::zones`]): each zone's size is its protobuf
/// encoding as an element of the answer.
pub async fn list(
    state: &ApiState,
    request: Request<pb::ListFlatZonesRequest>,
) -> Result<Response<pb::ListFlatZonesResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let size = i64::from(request.page_size);
    let page = engine
        .zone_page(world, size, &request.page_token, |entry| {
            let zone = pb::FlatZone::from(entry);
            let len = zone.encoded_len();
            (zone, 1 + prost::length_delimiter_len(len) + len)
        })
        .await?;
    Ok(Response::new(pb::ListFlatZonesResponse {
        zones: page.zones,
        revision: page.revision,
        epoch: page.epoch,
        next_page_token: page.next_page_token,
    }))
}

pub async fn at(
    state: &ApiState,
    request: Request<pb::GetFlatZoneAtRequest>,
) -> Result<Response<pb::GetFlatZoneAtResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let answer = engine.zone_at(world, request.x, request.z).await?;
    Ok(Response::new(pb::GetFlatZoneAtResponse::from(&answer)))
}
