//! `GetLayout` and `GetZoneClass` of `terrain.v1.TerrainLifecycle`.

use terrain_core::layout::ZoneClass;
use terrain_proto::v1 as pb;

use crate::{
    api::{ApiError, ApiState},
    query::layout::LayoutRequest,
};

pub async fn get_layout(
    state: &ApiState,
    request: pb::GetLayoutRequest,
) -> Result<pb::GetLayoutResponse, ApiError> {
    let world = state.engine.world(&request.world)?;
    let req = LayoutRequest {
        min_x: request.min_x,
        min_z: request.min_z,
        max_x: request.max_x,
        max_z: request.max_z,
    };
    let layout = state.engine.layout(world, req).await?;
    Ok(pb::GetLayoutResponse {
        hubs: layout
            .hubs
            .into_iter()
            .map(|h| pb::Hub {
                id: h.id,
                x: h.x,
                z: h.z,
                r: h.r,
                chunk_x: h.chunk.0,
                chunk_z: h.chunk.1,
            })
            .collect(),
        spokes: layout
            .spokes
            .into_iter()
            .map(|s| pb::Spoke { a: s.a, b: s.b })
            .collect(),
    })
}

pub async fn get_zone_class(
    state: &ApiState,
    request: pb::GetZoneClassRequest,
) -> Result<pb::GetZoneClassResponse, ApiError> {
    let world = state.engine.world(&request.world)?;
    let c = state.engine.zone_class(world, request.x, request.z).await?;
    let (class, hub) = match c.class {
        ZoneClass::Hub(id) => (pb::ZoneClass::Hub, Some(id)),
        ZoneClass::Spoke => (pb::ZoneClass::Spoke, None),
        ZoneClass::Wilds => (pb::ZoneClass::Wilds, None),
    };
    Ok(pb::GetZoneClassResponse {
        class: class as i32,
        hub,
        cell_x: c.cell.0,
        cell_z: c.cell.1,
    })
}
