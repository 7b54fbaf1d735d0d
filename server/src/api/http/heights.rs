//! Heights over HTTP.
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/worlds/{world}/height?x=&z=` | `{"x", "z", "height", "zone", "revision"}` (`zone`: the deciding flat zone's id, or null); `mode=exact\|surface\|procedural`; `revision=r` (as of revision r) |
//! | `POST /v1/worlds/{world}/heights` | `{"points": [[x, z], ...], "revision"?: r}` -> `{"heights", "zones", "revision"}`; binary f64 pairs -> binary f64 heights + `x-terrain-revision` (no zones); `?mode=`, `?revision=r` for either |
//!
//! With a revision, the answer is for the world as it was at that revision
//! ([`crate::world::asof`]) and carries it; a revision the world's history no longer
//! holds, or one newer than the world's, is `409` (field `revision`).
//! | `GET /v1/worlds/{world}/heightmap?x0=&z0=&nx=&nz=&step=` | `{"x0", "z0", "step", "nx", "nz", "heights", "revision"}`; `mode=exact\|surface\|procedural` |

use std::sync::Arc;

use axum::{
    Json,
    extract::State,
    http::{HeaderMap, HeaderValue, header::CONTENT_TYPE},
    response::{IntoResponse, Response},
};
use serde::Serialize;

use super::{
    REVISION_HEADER, batch_body,
    batch_body::Batch,
    body::{BodyFormat, JsonBody},
    extract::{Query, World},
    json_response,
};
use crate::{
    api::{ApiError, ApiState, mode},
    query::{BatchNaming, HeightmapRequest, ZoneIds},
};

/// HTTP batches are `points`, `[[x, z], ...]` or binary pairs: element `points[i]`,
/// with the axis in the reason.
pub const POINTS: BatchNaming = BatchNaming {
    list: "points",
    element: |k, reason| {
        let axis = if k.is_multiple_of(2) { "x" } else { "z" };
        (format!("points[{}]", k / 2), format!("{axis} {reason}"))
    },
};

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct HeightBody {
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
        ("x" = f64, Query, description = "Metres; finite, within `max_coordinate`"),
        ("z" = f64, Query, description = "Metres; finite, within `max_coordinate`"),
        ("mode" = Option<String>, Query, description = MODE_POINT, example = "exact"),
        ("revision" = Option<u64>, Query, description = REVISION_PARAM),
    ),
    responses(
        (status = 200, description = "The height at (x, z)", body = HeightBody),
        (status = 400, description = "A missing, repeated, non-numeric or out-of-range parameter, an unknown `mode` (the field names it)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = REVISION_REFUSED),
    ),
)]
pub async fn height(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    query: Query,
) -> Result<Json<HeightBody>, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let mode = mode::from_query(query.at_most_once("mode")?)?;
    let (x, z) = (query.number("x")?, query.number("z")?);
    let revision = query.revision("revision")?;
    let a = engine.height_in(world, x, z, mode, revision).await?;
    Ok(Json(HeightBody {
        x: a.x,
        z: a.z,
        height: a.height,
        zone: a.zone,
        revision: a.revision,
    }))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct HeightsBody {
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
        ("mode" = Option<String>, Query, description = MODE_BATCH, example = "exact"),
        ("revision" = Option<u64>, Query, description = REVISION_IN_QUERY),
    ),
    request_body(
        description = "The points",
        content(
            (crate::api::http::openapi::schemas::PointsBody = "application/json"),
            (crate::api::http::openapi::schemas::Bytes = "application/octet-stream"),
        ),
    ),
    responses(
        (status = 200, description = "The heights, in the order of the points",
            headers(("x-terrain-revision" = u64, description = "The world revision the heights are of (binary answers)")),
            content(
                (HeightsBody = "application/json"),
                (crate::api::http::openapi::schemas::Bytes = "application/octet-stream"),
            ),
        ),
        (status = 400, description = "A malformed body (field `body`) or point (`points[i]`), a binary body whose length is not a multiple of 16, a coordinate out of range, an unknown `mode`"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = REVISION_REFUSED),
        (status = 413, description = "More than `max_batch_points` points (field `points`), or a body over the byte limit (field `body`)"),
        (status = 415, description = "A `Content-Type` other than JSON or `application/octet-stream` (field `content-type`)"),
    ),
)]
pub async fn heights(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    query: Query,
    headers: HeaderMap,
    JsonBody(batch): JsonBody<Batch>,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let mode = mode::from_query(query.at_most_once("mode")?)?;
    // The answer takes the body's form (the extractor has refused any other type).
    let format = BodyFormat::of(&headers)?;
    let in_query = query.revision("revision")?;
    let revision = one_revision(in_query, batch.revision)?;
    let ids = match format {
        BodyFormat::Json => ZoneIds::Include,
        BodyFormat::Binary => ZoneIds::Omit,
    };
    let answer = engine
        .heights(world, batch.coords, POINTS, ids, mode, revision)
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

/// The `mode` of a single height, in the document.
const MODE_POINT: &str = "`exact` (default: the terrain with its flat zones), `surface` (the \
    rendered mesh surface) or `procedural` (the generator's ground without flat zones, the \
    original's `getProceduralHeightAt`; `zone` is then null)";

/// The `mode` of a batch, in the document.
const MODE_BATCH: &str = "`exact` (default: the terrain with its flat zones), `surface` (the \
    served meshes' surface, read from cached tile meshes where held) or `procedural` (the \
    generator's ground without flat zones); `zones` is empty in the last two";

/// The `mode` of a heightmap, in the document.
const MODE_HEIGHTMAP: &str = "`exact` (default: the terrain with its flat zones), `surface` \
    (the rendered mesh surface, each sample evaluated) or `procedural` (the generator's \
    ground without flat zones)";

/// What the `revision` query parameter (or body field) means, in the document.
pub const REVISION_PARAM: &str = "Answer as of this earlier revision of the world (lag \
    compensation), while its history still holds it (`asof_revisions` revisions before the \
    current one); the answer then carries it. Absent: now.";

/// The `revision` query parameter of a route whose body may carry one, in the document.
pub const REVISION_IN_QUERY: &str = "As the body's `revision` (the only way to give one with \
    a binary body); not with it";

/// The revision a request gives in its query string or its body (`None`: now); both
/// is refused (field `revision`).
pub fn one_revision(in_query: Option<u64>, in_body: Option<u64>) -> Result<Option<u64>, ApiError> {
    match (in_query, in_body) {
        (Some(_), Some(_)) => {
            let reason = "given both in the query string and in the body; give one";
            Err(ApiError::invalid("revision", reason))
        }
        (q, b) => Ok(q.or(b)),
    }
}

/// The `409` of a route taking a revision, in the document.
pub const REVISION_REFUSED: &str = "A `revision` older than the world's history holds \
    (`asof_revisions`), or newer than the world's current revision (field `revision`, \
    `FAILED_PRECONDITION`)";

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct HeightmapBody {
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
        ("x0" = f64, Query, description = "West edge, metres"),
        ("z0" = f64, Query, description = "North edge, metres"),
        ("step" = f64, Query, description = "Sample spacing, metres (> 0)"),
        ("nx" = u64, Query, description = "Samples along x (> 0)"),
        ("nz" = u64, Query, description = "Samples along z (> 0)"),
        ("mode" = Option<String>, Query, description = MODE_HEIGHTMAP, example = "exact"),
    ),
    responses(
        (status = 200, description = "`nx * nz` heights, row-major (z outer, x inner)", body = HeightmapBody),
        (status = 400, description = "A missing, repeated, malformed or out-of-range parameter, an unknown `mode` (the field names it)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 413, description = "More samples than `max_heightmap_samples` (field `nx*nz`)"),
    ),
)]
pub async fn heightmap(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    p: Query,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let mode = mode::from_query(p.at_most_once("mode")?)?;
    let request = HeightmapRequest {
        x0: p.number("x0")?,
        z0: p.number("z0")?,
        step: p.number("step")?,
        nx: p.count("nx")?,
        nz: p.count("nz")?,
    };
    let a = engine.heightmap(world, request, mode).await?;
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

/// Heights as little-endian f64, with the revision in a header.
fn binary_response(heights: &[f64], revision: u64) -> Response {
    let headers = [
        (
            CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        ),
        (REVISION_HEADER, HeaderValue::from(revision)),
    ];
    (headers, batch_body::encode_binary(heights)).into_response()
}
