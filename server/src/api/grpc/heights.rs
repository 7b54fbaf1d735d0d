//! `GetHeight`, `GetHeights` and `GetHeightmap` of `terrain.v1.TerrainService`.

use terrain_proto::v1 as pb;
use tonic::{Request, Response, Status};

use crate::{
    api::{ApiState, mode},
    query::{BatchNaming, HeightmapRequest, ZoneIds},
};

/// gRPC batches are interleaved `coordinates`: element `coordinates[k]`, the flat index.
pub const COORDINATES: BatchNaming = BatchNaming {
    list: "coordinates",
    element: |k, reason| (format!("coordinates[{k}]"), reason),
};

/// `GetHeight`: the height at one point.
pub async fn height(
    state: &ApiState,
    request: Request<pb::GetHeightRequest>,
) -> Result<Response<pb::GetHeightResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let mode = mode::from_proto(request.mode)?;
    let answer = engine
        .height_in(world, request.x, request.z, mode, request.revision)
        .await?;
    Ok(Response::new(pb::GetHeightResponse {
        x: answer.x,
        z: answer.z,
        height: answer.height,
        revision: answer.revision,
        zone: answer.zone.unwrap_or_default(),
    }))
}

/// `GetHeights`: the heights of many points, with their deciding zones.
pub async fn heights(
    state: &ApiState,
    request: Request<pb::GetHeightsRequest>,
) -> Result<Response<pb::GetHeightsResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let mode = mode::from_proto(request.mode)?;
    let answer = engine
        .heights(
            world,
            request.coordinates,
            COORDINATES,
            ZoneIds::Include,
            mode,
            request.revision,
        )
        .await?;
    Ok(Response::new(pb::GetHeightsResponse {
        heights: answer.heights,
        revision: answer.revision,
        zones: answer.zones,
    }))
}

/// `GetHeightmap`: a grid of heights.
pub async fn heightmap(
    state: &ApiState,
    request: Request<pb::GetHeightmapRequest>,
) -> Result<Response<pb::GetHeightmapResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let mode = mode::from_proto(request.mode)?;
    let query = HeightmapRequest {
        x0: request.x0,
        z0: request.z0,
        step: request.step,
        nx: u64::from(request.nx),
        nz: u64::from(request.nz),
    };
    let answer = engine.heightmap(world, query, mode).await?;
    let grid = answer.grid;
    Ok(Response::new(pb::GetHeightmapResponse {
        x0: grid.x0,
        z0: grid.z0,
        step: grid.step,
        nx: request.nx,
        nz: request.nz,
        heights: answer.heights,
        revision: answer.revision,
    }))
}
