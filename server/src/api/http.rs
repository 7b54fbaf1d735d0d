//! The HTTP/1.1 JSON surface (lowerCamelCase, as the protobuf JSON mapping spells the
//! gRPC fields), plus `application/octet-stream` batches for bulk callers.
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/worlds` | `{"worlds": [{"id", "generator", "seed", "tileSize", "tileResolution", "revision", "overlap", "zones"}]}` |
//! | `GET /v1/worlds/{world}/height?x=&z=` | `{"x", "z", "height", "zone", "revision"}` (`zone`: the deciding flat zone's id, or null) |
//! | `POST /v1/worlds/{world}/heights` | `{"points": [[x, z], ...]}` -> `{"heights", "zones", "revision"}`; binary f64 pairs -> binary f64 heights + `x-terrain-revision` (no zones) |
//! | `GET /v1/worlds/{world}/heightmap?x0=&z0=&nx=&nz=&step=` | `{"x0", "z0", "step", "nx", "nz", "heights", "revision"}` |
//! | `GET /healthz`, `GET /readyz`, `GET /metrics` | liveness, readiness, Prometheus text |
//! | `/v1/worlds/{world}/flat-zones...`, `/v1/worlds/{world}/flat-zone-at` | see [`super::http_zones`] |
//! | `/v1/worlds/{world}/tiles/{tx}/{tz}/mesh[.glb]` | see [`super::http_mesh`]; `height` takes `mode=exact\|surface` |
//! | `/v1/worlds/{world}/tiles/{cx}/{cz}/blocks`, `.../instances` | voxel worlds: see [`super::http_blocks`] |
//!
//! Every refusal is `{"error": {"code", "message", "field"}}`, including axum's own
//! rejections (bad path, bad query string, body too large), which are mapped here.

use std::sync::Arc;

use axum::{
    Json, Router,
    body::Bytes,
    extract::{
        DefaultBodyLimit, Path, Query, State,
        rejection::{BytesRejection, PathRejection, QueryRejection},
    },
    http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header::CONTENT_TYPE},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use serde::Serialize;
use terrain_core::voxel::VoxelConfig;

use crate::{
    api::ApiError,
    api::{
        ApiState,
        body::{self, BodyFormat},
        metrics,
        params::{self, Params},
    },
    compute::OFFLOAD_THRESHOLD,
    config::Limits,
    query::{BatchNaming, HeightmapRequest, QueryEngine, ZoneIds},
};

/// The response header carrying the world revision of a binary answer.
pub const REVISION_HEADER: HeaderName = HeaderName::from_static("x-terrain-revision");
/// Mesh answers: `hit` when the mesh came from the cache, `miss` when it was built
/// for the request.
pub const CACHE_HEADER: HeaderName = HeaderName::from_static("x-terrain-cache");

/// Bytes allowed per JSON point, generous enough for pretty-printed 17-digit numbers.
const JSON_BYTES_PER_POINT: usize = 128;

/// Bodies larger than this are decoded on the compute pool.
const OFFLOAD_BODY_BYTES: usize = 64 * 1024;

type QueryPairs = Result<Query<Vec<(String, String)>>, QueryRejection>;
type WorldPath = Result<Path<String>, PathRejection>;

/// The HTTP routes, with the body limit sized so a maximal JSON batch fits.
pub fn routes(state: Arc<ApiState>) -> Router {
    let body_limit = body_limit(state.engine.limits());
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics::render))
        .route("/v1/worlds", get(list_worlds))
        .route("/v1/worlds/{world}/height", get(height))
        .route("/v1/worlds/{world}/heights", post(heights))
        .route("/v1/worlds/{world}/heightmap", get(heightmap))
        .merge(super::http_zones::routes())
        .merge(super::http_mesh::routes())
        .merge(super::http_blocks::routes())
        .merge(super::http_lifecycle::routes())
        .merge(super::http_admin::routes())
        .merge(super::http_map::routes(&state))
        .merge(super::openapi::routes(state.engine.limits()))
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(state)
}

/// The largest accepted request body: a maximal JSON batch.
pub fn body_limit(limits: &Limits) -> usize {
    limits
        .max_batch_points
        .saturating_mul(JSON_BYTES_PER_POINT)
        .saturating_add(OFFLOAD_BODY_BYTES)
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct Status {
    #[schema(example = "ok")]
    status: &'static str,
}

#[utoipa::path(
    get,
    path = "/healthz",
    tag = "ops",
    responses((status = 200, description = "The process is up: `{\"status\": \"ok\"}`", body = Status)),
)]
async fn healthz() -> Json<Status> {
    Json(Status { status: "ok" })
}

#[utoipa::path(
    get,
    path = "/readyz",
    tag = "ops",
    responses(
        (status = 200, description = "Ready to serve: `{\"status\": \"ready\"}`", body = Status),
        (status = 503, description = "Starting or shutting down (`UNAVAILABLE`)", body = crate::api::error::ErrorBody),
    ),
)]
async fn readyz(State(state): State<Arc<ApiState>>) -> Result<Json<Status>, ApiError> {
    if state.readiness.is_ready() {
        Ok(Json(Status { status: "ready" }))
    } else {
        Err(ApiError::Unavailable(
            "not ready: starting or shutting down",
        ))
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct WorldBody {
    id: String,
    #[schema(example = "osrs")]
    generator: &'static str,
    seed: u32,
    tile_size: f64,
    tile_resolution: u32,
    revision: u64,
    #[schema(example = "priority")]
    overlap: &'static str,
    zones: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    layout: Option<WorldLayoutBody>,
    /// A voxel world's parameters, keyed as its `[worlds.voxel]` table.
    #[serde(skip_serializing_if = "Option::is_none")]
    voxel: Option<VoxelConfig>,
    /// A voxel world's block kinds, in id order.
    #[serde(skip_serializing_if = "Option::is_none")]
    block_kinds: Option<Vec<super::http_blocks::BlockKindBody>>,
}

/// A world's layout layer, as `ListWorlds` reports it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct WorldLayoutBody {
    pattern: &'static str,
    spokes: &'static str,
    chunk_size: f64,
    cell_size: f64,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct WorldsBody {
    worlds: Vec<WorldBody>,
}

#[utoipa::path(
    get,
    path = "/v1/worlds",
    tag = "worlds",
    responses((status = 200, description = "Every hosted world, in configuration order", body = WorldsBody)),
)]
async fn list_worlds(State(state): State<Arc<ApiState>>) -> Json<WorldsBody> {
    let mut worlds = Vec::new();
    for w in state.engine.worlds().iter() {
        let (revision, overlap, zones) = {
            let s = w.snapshot();
            (s.revision(), s.zones().overlap().as_str(), s.zones().len())
        };
        let layout = w.tile_grid();
        worlds.push(WorldBody {
            id: w.id().to_string(),
            generator: w.kind().as_str(),
            seed: w.seed(),
            tile_size: layout.size,
            tile_resolution: layout.resolution,
            revision,
            overlap,
            zones,
            layout: w.layout().map(|l| WorldLayoutBody {
                pattern: l.layout.pattern.as_str(),
                spokes: l.layout.spokes.as_str(),
                chunk_size: l.layout.chunk_size,
                cell_size: l.layout.cell_size,
            }),
            voxel: w.voxel().copied(),
            block_kinds: w.voxel().map(|_| super::http_blocks::block_kinds()),
        });
    }
    Json(WorldsBody { worlds })
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct HeightBody {
    x: f64,
    z: f64,
    height: f64,
    /// The deciding flat zone's id, or null where the terrain decided.
    zone: Option<String>,
    revision: u64,
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/height",
    tag = "worlds",
    params(
        ("world" = String, Path, description = "World id, as `[[worlds]] id` in the configuration", example = "main"),
        ("x" = f64, Query, description = "Metres; finite, within `max_coordinate`"),
        ("z" = f64, Query, description = "Metres; finite, within `max_coordinate`"),
        ("mode" = Option<String>, Query, description = "`exact` (default: the terrain with its flat zones) or `surface` (the rendered mesh surface)", example = "exact"),
    ),
    responses(
        (status = 200, description = "The height at (x, z)", body = HeightBody),
        (status = 400, description = "A missing, repeated, non-numeric or out-of-range parameter (the field names it)", body = crate::api::error::ErrorBody),
        (status = 404, description = "No such world (field `world`)", body = crate::api::error::ErrorBody),
    ),
)]
async fn height(
    State(state): State<Arc<ApiState>>,
    path: WorldPath,
    query: QueryPairs,
) -> Result<Json<HeightBody>, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&params::world(path)?)?;
    let mode = super::http_mesh::height_mode(&query)?;
    let params = Params::new(query)?;
    let (x, z) = (params.number("x")?, params.number("z")?);
    let a = engine.height_in(world, x, z, mode).await?;
    Ok(Json(HeightBody {
        x: a.x,
        z: a.z,
        height: a.height,
        zone: a.zone,
        revision: a.revision,
    }))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct HeightsBody {
    heights: Vec<f64>,
    /// `null` where the terrain decided.
    #[serde(serialize_with = "ids_or_null")]
    #[schema(value_type = Vec<Option<String>>)]
    zones: Vec<String>,
    revision: u64,
}

/// Zone ids, with the empty "no zone" id written as `null`.
fn ids_or_null<S: serde::Serializer>(ids: &[String], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(ids.iter().map(|id| (!id.is_empty()).then_some(id.as_str())))
}

#[utoipa::path(
    post,
    path = "/v1/worlds/{world}/heights",
    tag = "worlds",
    description = "Heights of many points in one call. JSON in, JSON out (with the deciding zone of \
        each point); or binary: the body is the points as little-endian IEEE-754 f64 pairs \
        `x0 z0 x1 z1 ...` (16 bytes a point), the answer the heights as little-endian f64 \
        (8 bytes a point, in order) with the revision in `x-terrain-revision`. JSON is read for \
        no `Content-Type`, `application/json`, `application/*+json`, `text/plain` and \
        `application/x-www-form-urlencoded`.",
    params(
        ("world" = String, Path, description = "World id, as `[[worlds]] id` in the configuration", example = "main"),
        ("mode" = Option<String>, Query, description = "`exact` (default: the terrain with its flat zones) or `surface` (the served meshes' surface, read from cached tile meshes where held; `zones` is then empty)", example = "exact"),
    ),
    request_body(
        description = "The points",
        content(
            (crate::api::openapi::schemas::PointsBody = "application/json"),
            (crate::api::openapi::schemas::Bytes = "application/octet-stream"),
        ),
    ),
    responses(
        (status = 200, description = "The heights, in the order of the points",
            headers(("x-terrain-revision" = u64, description = "The world revision the heights are of (binary answers)")),
            content(
                (HeightsBody = "application/json"),
                (crate::api::openapi::schemas::Bytes = "application/octet-stream"),
            ),
        ),
        (status = 400, description = "A malformed body (field `body`) or point (`points[i]`), a binary body whose length is not a multiple of 16, a coordinate out of range, an unknown `mode`", body = crate::api::error::ErrorBody),
        (status = 404, description = "No such world (field `world`)", body = crate::api::error::ErrorBody),
        (status = 413, description = "More than `max_batch_points` points (field `points`), or a body over the byte limit (field `body`)", body = crate::api::error::ErrorBody),
        (status = 415, description = "A `Content-Type` other than JSON or `application/octet-stream` (field `content-type`)", body = crate::api::error::ErrorBody),
    ),
)]
async fn heights(
    State(state): State<Arc<ApiState>>,
    path: WorldPath,
    query: QueryPairs,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&params::world(path)?)?;
    let mode = super::http_mesh::height_mode(&query)?;
    let format = BodyFormat::of(&headers)?;
    let body = body.map_err(|r| body_rejection(r, body_limit(engine.limits())))?;
    let coords = decode_batch(engine, format, body).await?;
    let ids = match format {
        BodyFormat::Json => ZoneIds::Include,
        BodyFormat::Binary => ZoneIds::Omit,
    };
    let answer = engine
        .heights(world, coords, BatchNaming::Points, ids, mode)
        .await?;
    match format {
        BodyFormat::Json => {
            let count = answer.heights.len();
            let body = HeightsBody {
                heights: answer.heights,
                zones: answer.zones,
                revision: answer.revision,
            };
            json_response(engine, body, count).await
        }
        BodyFormat::Binary => Ok(binary_response(&answer.heights, answer.revision)),
    }
}

/// Decodes a batch body, on the pool when it is large.
async fn decode_batch(
    engine: &QueryEngine,
    format: BodyFormat,
    body: Bytes,
) -> Result<Vec<f64>, ApiError> {
    let max_points = engine.limits().max_batch_points;
    if format == BodyFormat::Binary && body.len().is_multiple_of(16) {
        // Refused before decoding; JSON is counted as it is decoded.
        engine.check_batch_size(body.len() / 16, "points")?;
    }
    let small = body.len() <= OFFLOAD_BODY_BYTES;
    let decode = move || match format {
        BodyFormat::Binary => body::decode_binary(&body),
        BodyFormat::Json => body::decode_json(&body, max_points),
    };
    if small {
        return decode();
    }
    engine
        .compute()
        .run(decode)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?
}

/// A body axum could not read: over `limit` (413) or otherwise unreadable (400).
pub(crate) fn body_rejection(rejection: BytesRejection, limit: usize) -> ApiError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::BodyTooLarge { limit }
    } else {
        ApiError::invalid("body", rejection.body_text())
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct HeightmapBody {
    x0: f64,
    z0: f64,
    step: f64,
    nx: usize,
    nz: usize,
    heights: Vec<f64>,
    revision: u64,
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/heightmap",
    tag = "worlds",
    params(
        ("world" = String, Path, description = "World id, as `[[worlds]] id` in the configuration", example = "main"),
        ("x0" = f64, Query, description = "West edge, metres"),
        ("z0" = f64, Query, description = "North edge, metres"),
        ("step" = f64, Query, description = "Sample spacing, metres (> 0)"),
        ("nx" = u64, Query, description = "Samples along x (> 0)"),
        ("nz" = u64, Query, description = "Samples along z (> 0)"),
    ),
    responses(
        (status = 200, description = "`nx * nz` heights, row-major (z outer, x inner)", body = HeightmapBody),
        (status = 400, description = "A missing, repeated, malformed or out-of-range parameter (the field names it)", body = crate::api::error::ErrorBody),
        (status = 404, description = "No such world (field `world`)", body = crate::api::error::ErrorBody),
        (status = 413, description = "More samples than `max_heightmap_samples` (field `nx*nz`)", body = crate::api::error::ErrorBody),
    ),
)]
async fn heightmap(
    State(state): State<Arc<ApiState>>,
    path: WorldPath,
    query: QueryPairs,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&params::world(path)?)?;
    let p = Params::new(query)?;
    let request = HeightmapRequest {
        x0: p.number("x0")?,
        z0: p.number("z0")?,
        step: p.number("step")?,
        nx: p.count("nx")?,
        nz: p.count("nz")?,
    };
    let a = engine.heightmap(world, request).await?;
    let count = a.heights.len();
    let (grid, heights, revision) = (a.grid, a.heights, a.revision);
    let body = HeightmapBody {
        x0: grid.x0,
        z0: grid.z0,
        step: grid.step,
        nx: grid.nx,
        nz: grid.nz,
        heights,
        revision,
    };
    json_response(engine, body, count).await
}

/// Serialises `body` as JSON, on the pool when it holds more than a few thousand values.
async fn json_response<T>(
    engine: &QueryEngine,
    body: T,
    values: usize,
) -> Result<Response, ApiError>
where
    T: Serialize + Send + 'static,
{
    let bytes = if values <= OFFLOAD_THRESHOLD {
        serde_json::to_vec(&body)
    } else {
        engine
            .compute()
            .run(move || serde_json::to_vec(&body))
            .await
            .map_err(|e| ApiError::Internal(e.to_string()))?
    };
    let bytes = bytes.map_err(|e| ApiError::Internal(format!("encoding JSON: {e}")))?;
    Ok((
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        bytes,
    )
        .into_response())
}

/// Heights as little-endian f64, with the revision in a header.
fn binary_response(heights: &[f64], revision: u64) -> Response {
    let headers = [
        (
            CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        ),
        (REVISION_HEADER, HeaderValue::from(revision)),
    ];
    (headers, body::encode_binary(heights)).into_response()
}
