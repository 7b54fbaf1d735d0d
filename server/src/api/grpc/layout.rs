//! The layout layer over gRPC: `GetLayout` and `GetZoneClass` (which the proto
//! places in `terrain.v1.TerrainLifecycle`).

use terrain_core::layout::ZoneClass;
use terrain_proto::v1 as pb;
use tonic::{Request, Response, Status};

use crate::{
    api::ApiState,
    query::layout::{LayoutFields, LayoutRequest},
};

/// The request fields of a layout rectangle, as errors name them (`lifecycle.proto`).
const FIELDS: LayoutFields = LayoutFields {
    min_x: "min_x",
    min_z: "min_z",
    max_x: "max_x",
    max_z: "max_z",
};

/// `GetLayout`: the hubs and spokes of a rectangle.
pub async fn get_layout(
    state: &ApiState,
    request: Request<pb::GetLayoutRequest>,
) -> Result<Response<pb::GetLayoutResponse>, Status> {
    let request = request.into_inner();
    let world = state.engine.world(&request.world)?;
    let req = LayoutRequest {
        min_x: request.min_x,
        min_z: request.min_z,
        max_x: request.max_x,
        max_z: request.max_z,
    };
    let layout = state.engine.layout(world, req, &FIELDS).await?;
    Ok(Response::new(pb::GetLayoutResponse {
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
    }))
}

/// `GetZoneClass`: the class of the classification cell holding a point.
pub async fn get_zone_class(
    state: &ApiState,
    request: Request<pb::GetZoneClassRequest>,
) -> Result<Response<pb::GetZoneClassResponse>, Status> {
    let request = request.into_inner();
    let world = state.engine.world(&request.world)?;
    let c = state.engine.zone_class(world, request.x, request.z).await?;
    let (class, hub) = match c.class {
        ZoneClass::Hub(id) => (pb::ZoneClass::Hub, Some(id)),
        ZoneClass::Spoke => (pb::ZoneClass::Spoke, None),
        ZoneClass::Wilds => (pb::ZoneClass::Wilds, None),
    };
    Ok(Response::new(pb::GetZoneClassResponse {
        class: class as i32,
        hub,
        cell_x: c.cell.0,
        cell_z: c.cell.1,
    }))
}
