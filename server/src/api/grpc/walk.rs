//! `GetTerrainInfo`, `CheckPath` and `FindPath` of `terrain.v1.TerrainService`: the
//! movement queries of [`crate::query::walk`].

use terrain_core::walk::Reason;
use terrain_proto::v1 as pb;
use tonic::{Request, Response, Status};

use crate::{
    api::{ApiError, ApiState},
    query::walk::{FindFields, FindRequest, PathMode, PointInfo},
};

fn reason(r: Option<Reason>) -> pb::WalkReason {
    match r {
        None => pb::WalkReason::None,
        Some(Reason::Water) => pb::WalkReason::Water,
        Some(Reason::Slope) => pb::WalkReason::Slope,
        Some(Reason::Zone) => pb::WalkReason::Zone,
        Some(Reason::Step) => pb::WalkReason::Step,
    }
}

fn info(p: PointInfo) -> pb::TerrainInfo {
    let (i, details) = (p.info, p.details);
    pb::TerrainInfo {
        height: i.height,
        biome: i.biome.unwrap_or_default().to_string(),
        slope: i.slope,
        underwater: i.underwater,
        walkable: i.walkable(),
        reason: reason(i.reason).into(),
        normal: details.normal.to_vec(),
        difficulty: details.difficulty.map(|d| pb::Difficulty {
            level: d.level,
            scalar: d.scalar,
            biome: d.biome.to_string(),
            tier: d.tier,
            is_safe: d.is_safe,
        }),
    }
}

fn point((x, z): (f64, f64)) -> pb::Point2 {
    pb::Point2 { x, z }
}

/// `GetTerrainInfo`: terrain info at each point.
pub async fn terrain_info(
    state: &ApiState,
    request: Request<pb::GetTerrainInfoRequest>,
) -> Result<Response<pb::GetTerrainInfoResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let answer = engine
        .terrain_info(
            world,
            request.coordinates,
            super::heights::COORDINATES,
            request.revision,
        )
        .await?;
    Ok(Response::new(pb::GetTerrainInfoResponse {
        points: answer.points.into_iter().map(info).collect(),
        revision: answer.revision,
    }))
}

/// `GetWalkGrid`: a rectangle of tiles' walkability, one byte a tile.
pub async fn walk_grid(
    state: &ApiState,
    request: Request<pb::GetWalkGridRequest>,
) -> Result<Response<pb::GetWalkGridResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let req = crate::query::walk::WalkGridRequest {
        min_tile_x: request.min_tile_x as f64,
        min_tile_z: request.min_tile_z as f64,
        width: f64::from(request.width),
        depth: f64::from(request.depth),
    };
    let answer = engine.walk_grid(world, req, request.revision).await?;
    Ok(Response::new(pb::GetWalkGridResponse {
        flags: answer.flags,
        width: request.width,
        depth: request.depth,
        revision: answer.revision,
    }))
}

/// `CheckPath`: the first blocked point of a polyline.
pub async fn check_path(
    state: &ApiState,
    request: Request<pb::CheckPathRequest>,
) -> Result<Response<pb::CheckPathResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let mode = match pb::PathMode::try_from(request.mode) {
        Ok(pb::PathMode::Unspecified | pb::PathMode::Exact) => PathMode::Exact,
        Ok(pb::PathMode::Hyperscape) => PathMode::Hyperscape,
        Err(_) => {
            let reason = format!("unknown path mode {}", request.mode);
            return Err(ApiError::invalid("mode", reason).into());
        }
    };
    let points = request.points.iter().map(|p| (p.x, p.z)).collect();
    let answer = engine
        .check_path(world, points, mode, "points", request.revision)
        .await?;
    let check = answer.check;
    Ok(Response::new(pb::CheckPathResponse {
        blocked: check.blocked.is_some(),
        at: check.blocked.map(|(at, _)| point(at)),
        reason: reason(check.blocked.map(|(_, r)| r)).into(),
        path: check.path.into_iter().map(point).collect(),
        revision: answer.revision,
    }))
}

/// The gRPC names of a search's fields.
const FIND_FIELDS: FindFields = FindFields {
    from: "from",
    to: "to",
    max_nodes: "max_nodes",
    max_distance: "max_distance",
};

/// `FindPath`: a shortest path over the movement tiles.
pub async fn find_path(
    state: &ApiState,
    request: Request<pb::FindPathRequest>,
) -> Result<Response<pb::FindPathResponse>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let end = |p: Option<pb::Point2>, field: &'static str| {
        p.map(|p| (p.x, p.z))
            .ok_or_else(|| ApiError::invalid(field, "missing (required)"))
    };
    let req = FindRequest {
        from: end(request.from, "from")?,
        to: end(request.to, "to")?,
        max_nodes: (request.max_nodes != 0).then_some(request.max_nodes),
        max_distance: (request.max_distance != 0.0).then_some(request.max_distance),
    };
    let answer = engine.find_path(world, req, FIND_FIELDS).await?;
    Ok(Response::new(match answer.found {
        Ok(found) => pb::FindPathResponse {
            found: true,
            waypoints: found.waypoints.into_iter().map(point).collect(),
            length: found.length,
            expanded: found.expanded as u64,
            reason: String::new(),
            revision: answer.revision,
        },
        Err(none) => pb::FindPathResponse {
            found: false,
            waypoints: Vec::new(),
            length: 0.0,
            expanded: none.expanded as u64,
            reason: none.reason.code().to_string(),
            revision: answer.revision,
        },
    }))
}
