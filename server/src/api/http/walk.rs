//! Movement authority over HTTP: terrain info, path checks and path finding, by the
//! world's walkability rule ([`crate::query::walk`]).
//!
//! | route | body | answer |
//! | --- | --- | --- |
//! | `POST /v1/worlds/{world}/terrain-info` | `{"points": [[x, z], ...], "revision"?: r}` (or `?revision=r`) | `{"points": [{"height", "biome", "slope", "underwater", "walkable", "reason", "normal", "difficulty"?}, ...], "revision"}` |
//! | `POST /v1/worlds/{world}/paths/check` | `{"points": [[x, z], ...], "mode"?: "hyperscape" \| "exact", "revision"?: r}` (or `?revision=r`) | `{"blocked", "at", "reason", "path", "revision"}` |
//! | `GET /v1/worlds/{world}/walk-grid?minTileX=&minTileZ=&width=&depth=` (and `revision`) | | the grid's bytes (`application/octet-stream`): one byte of flags a 1 m tile, rows of `width` tiles, z rising; the revision in `x-terrain-revision` |
//! | `POST /v1/worlds/{world}/paths/find` | `{"from": [x, z], "to": [x, z], "maxNodes"?, "maxDistance"?}` | `{"found", "waypoints", "length", "expanded", "reason", "revision"}` |

use std::sync::Arc;

use axum::{
    Json,
    body::Bytes,
    extract::State,
    http::{HeaderValue, header::CONTENT_TYPE},
    response::{IntoResponse, Response},
};
use serde::{Deserialize, Serialize};

use super::{
    batch_body::JsonPoints,
    body::{BodyFormat, JsonBody, RequestBody, decode_object, required},
    body_limit,
    extract::{Query, World},
    heights::{REVISION_IN_QUERY, REVISION_REFUSED, one_revision},
    json_response,
};
use crate::{
    api::{ApiError, ApiState},
    query::walk::{FindFields, FindRequest, PathMode, PointInfo, WalkGridRequest},
};

/// The movement request bodies ([`CheckBody`], [`FindBody`]): small JSON objects up to
/// the batch limit.
macro_rules! movement_body {
    ($($body:ty),*) => {$(
        impl RequestBody for $body {
            fn limit(state: &ApiState) -> usize {
                body_limit(state.engine.limits())
            }

            async fn decode(_: &ApiState, _: BodyFormat, body: Bytes) -> Result<Self, ApiError> {
                decode_object(&body).map_err(|e| e.into_api("body"))
            }
        }
    )*};
}

movement_body!(CheckBody, FindBody);

/// One point of terrain info on the wire.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InfoJson {
    /// The final height (zones included), metres.
    height: f64,
    /// The biome the rule used; `null` where the world has none.
    biome: Option<&'static str>,
    /// The 8-direction slope at 1 m (rise over run).
    slope: f64,
    underwater: bool,
    walkable: bool,
    /// `null` when walkable, else `water`, `slope` or `zone` (a point is never blocked
    /// for a `step`).
    reason: Option<&'static str>,
    /// The surface normal `[x, y, z]` (the original's `getNormalAt`, a unit vector);
    /// on flat ground x and z are `-0.0`, written with their sign.
    normal: [f64; 3],
    /// The original's `getDifficultyAtWorldPosition`, under the `hyperscape` rule only
    /// (left out under every other rule).
    #[serde(skip_serializing_if = "Option::is_none")]
    difficulty: Option<DifficultyJson>,
}

/// How dangerous a position is (the original's `getDifficultyAtWorldPosition`:
/// `difficultyTier` is `tier`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DifficultyJson {
    /// 0 (safe) or 1 to 1000.
    level: u32,
    /// The curved blend in [0, 1] the level comes from.
    scalar: f64,
    /// The biome whose tier it starts from: the seed's first biome centre's type (not
    /// the starter towns' `plains` of the point's `biome`).
    biome: &'static str,
    /// That biome's difficulty tier (the biome manifest's `difficulty`).
    tier: f64,
    /// No difficulty here: within a town, or a biome of tier 0.
    is_safe: bool,
}

impl From<PointInfo> for InfoJson {
    fn from(p: PointInfo) -> Self {
        let info = p.info;
        InfoJson {
            height: info.height,
            biome: info.biome,
            slope: info.slope,
            underwater: info.underwater,
            walkable: info.walkable(),
            reason: info.reason.map(|r| r.code()),
            normal: p.details.normal,
            difficulty: p.details.difficulty.map(|d| DifficultyJson {
                level: d.level,
                scalar: d.scalar,
                biome: d.biome,
                tier: d.tier,
                is_safe: d.is_safe,
            }),
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TerrainInfoJson {
    points: Vec<InfoJson>,
    revision: u64,
}

#[utoipa::path(
    post,
    path = "/v1/worlds/{world}/terrain-info",
    tag = "movement",
    description = "Terrain info at each point by the world's walkability rule: height, biome, \
        slope, underwater, walkable and the reason it is not, the surface normal and, under \
        the `hyperscape` rule, the difficulty. 1 to `max_batch_points` points.",
    params(("revision" = Option<u64>, Query, description = REVISION_IN_QUERY)),
    request_body(content = crate::api::http::openapi::schemas::InfoBody, content_type = "application/json"),
    responses(
        (status = 200, description = "One answer per point, in order", body = TerrainInfoJson),
        (status = 400, description = "A malformed body (field `body`), no points (`points`), a point out of range (`points[i]`), a `revision` in both the query and the body"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = REVISION_REFUSED),
        (status = 413, description = "More than `max_batch_points` points (field `points`)"),
        (status = 415, description = "A `Content-Type` other than JSON (field `content-type`)"),
    ),
)]
pub async fn terrain_info(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    query: Query,
    JsonBody(JsonPoints(batch)): JsonBody<JsonPoints>,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let in_query = query.revision("revision")?;
    let world = engine.world(&world)?;
    let revision = one_revision(in_query, batch.revision)?;
    let answer = engine
        .terrain_info(world, batch.coords, super::heights::POINTS, revision)
        .await?;
    let count = answer.points.len();
    let body = TerrainInfoJson {
        points: answer.points.into_iter().map(InfoJson::from).collect(),
        revision: answer.revision,
    };
    json_response(engine, body, count * 10).await
}

/// `POST .../paths/check`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckBody {
    /// The polyline: 1 to 1,024 points `[x, z]`, at most 10 km long.
    #[schema(value_type = Vec<[f64; 2]>)]
    points: Option<Vec<[f64; 2]>>,
    /// `hyperscape` (the original's 21 samples per segment) or `exact` (every 1 m tile
    /// crossed; the default).
    #[serde(default)]
    mode: Option<String>,
    /// Check as of this earlier revision of the world (lag compensation), while its
    /// history still holds it (`asof_revisions` revisions before the current one);
    /// the answer then carries it. Absent or null: now.
    #[serde(default)]
    revision: Option<u64>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CheckJson {
    blocked: bool,
    /// The first blocked point, `null` when not blocked.
    at: Option<[f64; 2]>,
    /// Why `at` is blocked: `water`, `slope`, `zone` or `step` (a move rising more than
    /// one block under `block-step`, exact mode); `null` when not blocked.
    reason: Option<&'static str>,
    /// Hyperscape mode: the samples when not blocked, empty when blocked (the
    /// original's path). Exact mode: the centres of the tiles crossed, up to and
    /// including the blocked one.
    path: Vec<[f64; 2]>,
    revision: u64,
}

#[utoipa::path(
    post,
    path = "/v1/worlds/{world}/paths/check",
    tag = "movement",
    description = "Whether an entity may walk along a polyline: the first blocked point and why.",
    params(("revision" = Option<u64>, Query, description = REVISION_IN_QUERY)),
    request_body(content = CheckBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The check", body = CheckJson),
        (status = 400, description = "A malformed body (field `body`), no points (`points`), a point out of range (`points[i]`), an unknown `mode`, a `revision` in both the query and the body"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = REVISION_REFUSED),
        (status = 413, description = "More than 1,024 points or a path over 10 km (field `points`)"),
        (status = 415, description = "A `Content-Type` other than JSON (field `content-type`)"),
    ),
)]
pub async fn check_path(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    query: Query,
    JsonBody(request): JsonBody<CheckBody>,
) -> Result<Json<CheckJson>, ApiError> {
    let engine = &state.engine;
    let in_query = query.revision("revision")?;
    let world = engine.world(&world)?;
    let points = required("points", request.points)?;
    let revision = one_revision(in_query, request.revision)?;
    let mode = match request.mode.as_deref() {
        None => PathMode::Exact,
        Some(name) => PathMode::parse(name).ok_or_else(|| {
            ApiError::invalid(
                "mode",
                format!(
                    "unknown mode {}; expected \"hyperscape\" or \"exact\"",
                    terrain_core::quote::Quoted(name)
                ),
            )
        })?,
    };
    let points = points.iter().map(|p| (p[0], p[1])).collect();
    let answer = engine
        .check_path(world, points, mode, "points", revision)
        .await?;
    let check = answer.check;
    Ok(Json(CheckJson {
        blocked: check.blocked.is_some(),
        at: check.blocked.map(|((x, z), _)| [x, z]),
        reason: check.blocked.map(|(_, r)| r.code()),
        path: check.path.iter().map(|&(x, z)| [x, z]).collect(),
        revision: answer.revision,
    }))
}

/// `POST .../paths/find`'s body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindBody {
    #[schema(value_type = [f64; 2])]
    from: Option<[f64; 2]>,
    #[schema(value_type = [f64; 2])]
    to: Option<[f64; 2]>,
    /// Most tiles to expand (default 100,000; at most 1,000,000).
    max_nodes: Option<u64>,
    /// Longest straight distance between `from` and `to`, metres (default 1,000; at
    /// most 5,000).
    max_distance: Option<f64>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct FindJson {
    found: bool,
    /// `from`, the corners a straight exact check cannot skip, `to`; empty when not
    /// found.
    waypoints: Vec<[f64; 2]>,
    /// The waypoint polyline's length, metres (0 when not found).
    length: f64,
    /// Tiles taken off the open set.
    expanded: usize,
    /// When not found: `start_blocked`, `goal_blocked`, `no_path` or `node_budget`.
    reason: Option<&'static str>,
    revision: u64,
}

/// The HTTP names of a search's fields.
const FIND_FIELDS: FindFields = FindFields {
    from: "from",
    to: "to",
    max_nodes: "maxNodes",
    max_distance: "maxDistance",
};

#[utoipa::path(
    post,
    path = "/v1/worlds/{world}/paths/find",
    tag = "movement",
    description = "A shortest path over the 1 m movement tiles (8-connected, no corner cutting), \
        bounded by a node budget and a distance; or why there is none.",
    request_body(content = FindBody, content_type = "application/json"),
    responses(
        (status = 200, description = "The path, or why there is none", body = FindJson),
        (status = 400, description = "A malformed body (field `body`), a point out of range (`from`, `to`), `to` farther than `maxDistance`, `maxNodes` or `maxDistance` out of range"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 415, description = "A `Content-Type` other than JSON (field `content-type`)"),
        (status = 413, description = "The search could not finish within `request_timeout` even alone (its node budget at what searches cost a node; field `maxNodes`): lower `maxNodes` or search a shorter way"),
        (status = 503, description = "The server is busy (admission by cost), with `Retry-After`"),
    ),
)]
pub async fn find_path(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    JsonBody(request): JsonBody<FindBody>,
) -> Result<Json<FindJson>, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let (from, to) = (required("from", request.from)?, required("to", request.to)?);
    let req = FindRequest {
        from: (from[0], from[1]),
        to: (to[0], to[1]),
        max_nodes: request.max_nodes,
        max_distance: request.max_distance,
    };
    let answer = engine.find_path(world, req, FIND_FIELDS).await?;
    Ok(Json(match answer.found {
        Ok(found) => FindJson {
            found: true,
            waypoints: found.waypoints.iter().map(|&(x, z)| [x, z]).collect(),
            length: found.length,
            expanded: found.expanded,
            reason: None,
            revision: answer.revision,
        },
        Err(none) => FindJson {
            found: false,
            waypoints: Vec::new(),
            length: 0.0,
            expanded: none.expanded,
            reason: Some(none.reason.code()),
            revision: answer.revision,
        },
    }))
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/walk-grid",
    tag = "movement",
    description = "The walkability of a rectangle of 1 m tiles as one byte a tile, for a game's \
        collision map: rows of `width` tiles from `(minTileX, minTileZ)`, z rising; each byte is \
        flags of the tile judged at its centre `(x + 0.5, z + 0.5)` exactly as terrain-info judges \
        a point: 1 walkable, 2 water, 4 steep, 8 the centre lies in a flat zone's core, 16 blocked \
        by a zone registered with `walkable: false`, 32 a step too high (block worlds). At most \
        4,096 tiles a side and `max_batch_points` tiles.",
    params(
        ("minTileX" = i64, Query, description = "The first tile's x (whole metres)"),
        ("minTileZ" = i64, Query, description = "The first tile's z (whole metres)"),
        ("width" = u32, Query, description = "Tiles along x, 1 to 4,096", minimum = 1, maximum = 4096),
        ("depth" = u32, Query, description = "Tiles along z, 1 to 4,096", minimum = 1, maximum = 4096),
        ("revision" = Option<u64>, Query, description = REVISION_IN_QUERY),
    ),
    responses(
        (status = 200, description = "`width * depth` bytes of flags",
            headers(("x-terrain-revision" = u64, description = "The world revision the grid is of")),
            content((crate::api::http::openapi::schemas::Bytes = "application/octet-stream"))),
        (status = 400, description = "A missing or malformed parameter, a tile out of range, a side out of 1..=4096 (the field is named)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = REVISION_REFUSED),
        (status = 413, description = "More than `max_batch_points` tiles (field `width`)"),
        (status = 503, description = "The server is busy (admission by cost), with `Retry-After`"),
    ),
)]
pub async fn walk_grid(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    query: Query,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let req = WalkGridRequest {
        min_tile_x: query.number("minTileX")?,
        min_tile_z: query.number("minTileZ")?,
        width: query.number("width")?,
        depth: query.number("depth")?,
    };
    let revision = query.revision("revision")?;
    let answer = engine.walk_grid(world, req, revision).await?;
    let headers = [
        (
            CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        ),
        (super::REVISION_HEADER, HeaderValue::from(answer.revision)),
    ];
    Ok((headers, answer.flags).into_response())
}
