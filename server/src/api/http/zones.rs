//! The HTTP flat-zone routes.
//!
//! | route | answer |
//! | --- | --- |
//! | `PUT /v1/worlds/{world}/flat-zones/{id}` (body: a zone) | `{"zone", "revision", "tiles": [[x, z], ...], "change"}` |
//! | `DELETE /v1/worlds/{world}/flat-zones/{id}` | `{"revision", "tiles"}` (404 if absent) |
//! | `GET /v1/worlds/{world}/flat-zones?pageSize=&pageToken=` | `{"zones": [...], "revision", "epoch", "nextPageToken"}` (registration order, a page at a time: [`crate::query::zones`]) |
//! | `GET /v1/worlds/{world}/flat-zones/{id}` | `{"zone", "revision"}` (404 if absent) |
//! | `GET /v1/worlds/{world}/flat-zone-at?x=&z=` | `{"zone": {...} \| null, "revision"}` |
//!
//! A zone in an answer is its JSON form with `id`, the resolved `height` and
//! `revision` (the revision that registered it). `change` is `registered`,
//! `replaced` or `unchanged` (an identical zone: no revision taken, no tiles).
//! Mutations need `Authorization: Bearer <admin token>` when one is configured.

use std::sync::Arc;

use axum::{Json, extract::State};
use serde::Serialize;
use serde_json::value::RawValue;
use terrain_core::{quote::Quoted, zones::ZoneDoc};

use super::{
    body::JsonBody,
    extract::{Admin, Query, World, WorldItem},
};
use crate::{
    api::{ApiError, ApiState},
    query::zones::ZoneEntry,
    world::Outcome,
};

/// A zone in an answer: its JSON form plus the revision that registered it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ZoneJson {
    #[serde(flatten)]
    doc: ZoneDoc,
    /// The revision that registered the zone.
    revision: u64,
}

impl ZoneJson {
    pub fn new(entry: &ZoneEntry) -> Self {
        ZoneJson {
            doc: ZoneDoc::from_zone(&entry.zone),
            revision: entry.revision,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutBody {
    zone: ZoneJson,
    revision: u64,
    /// The tiles whose heights changed, `[tx, tz]` each: listed only when there are
    /// at most 256 of them (empty otherwise); `tileRects` always says which.
    tiles: Vec<[i64; 2]>,
    /// The changed tiles as inclusive rectangles `[minTx, minTz, maxTx, maxTz]` (the
    /// old and the new zone's; they may overlap).
    tile_rects: Vec<[i64; 4]>,
    /// How many tiles the union of `tileRects` holds.
    tile_count: u64,
    /// `registered`, `replaced` or `unchanged` (an identical zone: no revision taken).
    #[schema(example = "registered")]
    change: &'static str,
}

fn tiles(outcome: &Outcome) -> Vec<[i64; 2]> {
    outcome.tiles.iter().map(|&(x, z)| [x, z]).collect()
}

#[utoipa::path(
    put,
    path = "/v1/worlds/{world}/flat-zones/{id}",
    tag = "zones",
    description = "Registers (or replaces) a flat zone. The body is a zone: `centerX`, `centerZ`, \
        `width` and `depth` or `radius`, `height` or `heightOffset`, `blendRadius`, and optionally \
        `carveInset`, `priority`, `walkable` and `tileMask` (a building footprint of whole-metre \
        tiles inside the rectangle); `id` (equal to the path's) and `revision` are accepted, so a \
        zone read from the API can be sent back as it is. An absent `carveInset` stays absent in \
        every answer (the zone carves no mesh cell unless it has a `tileMask`); a present one, 0 \
        included, is echoed.",
    params(
        ("id" = String, Path, description = "Zone id: 1 to 128 of `[A-Za-z0-9_.:-]`, not `.` or `..`"),
    ),
    request_body(content = ref("#/components/schemas/ZoneRequest"), content_type = "application/json"),
    security((), ("admin" = [])),
    responses(
        (status = 200, description = "Registered, replaced or unchanged", body = PutBody,
            links(
                ("GetZone" = (operation_id = "get_zone", description = "The zone just registered",
                    parameters(("world" = "$request.path.world"), ("id" = "$request.path.id")))),
                ("DeleteZone" = (operation_id = "delete_zone", description = "Removes the zone",
                    parameters(("world" = "$request.path.world"), ("id" = "$request.path.id")))),
            ),
        ),
        (status = 400, description = "A malformed zone (the field names it: `centerX`, `radius`, `body`, ...), an id that does not match"),
        (status = 401, description = "A missing or wrong admin token (field `authorization`; `WWW-Authenticate: Bearer`)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = "A concurrent change won (`ABORTED`); retry"),
        (status = 413, description = "A body over the zone body limit, 1,769,472 bytes: the largest tile mask and the rest of a zone (field `body`)"),
        (status = 415, description = "A `Content-Type` that is not JSON (field `content-type`)"),
        (status = 429, description = "The world holds `max_zones` zones already (`RESOURCE_EXHAUSTED`)"),
    ),
)]
pub async fn put_zone(
    State(state): State<Arc<ApiState>>,
    _: Admin,
    WorldItem { world, id }: WorldItem,
    JsonBody(doc): JsonBody<ZoneDoc>,
) -> Result<Json<PutBody>, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let outcome = world.register_doc(&id, &doc).await?;
    let entry = ZoneEntry {
        zone: outcome.zone.clone(),
        revision: outcome.zone_revision,
    };
    Ok(Json(PutBody {
        zone: ZoneJson::new(&entry),
        revision: outcome.revision,
        tiles: tiles(&outcome),
        tile_rects: outcome.changed.to_json(),
        tile_count: outcome.changed.count,
        change: outcome.change.as_str(),
    }))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeleteBody {
    revision: u64,
    /// As in the registration's answer: listed only up to 256 tiles.
    tiles: Vec<[i64; 2]>,
    tile_rects: Vec<[i64; 4]>,
    tile_count: u64,
}

#[utoipa::path(
    delete,
    path = "/v1/worlds/{world}/flat-zones/{id}",
    tag = "zones",
    params(
        ("id" = String, Path, description = "Zone id: 1 to 64 of `[A-Za-z0-9_.-]`"),
    ),
    security((), ("admin" = [])),
    responses(
        (status = 200, description = "Removed: the new revision and the tiles whose heights changed", body = DeleteBody),
        (status = 400, description = "A malformed path (field `path`)"),
        (status = 401, description = "A missing or wrong admin token (field `authorization`; `WWW-Authenticate: Bearer`)"),
        (status = 404, description = "No such world (field `world`) or zone (field `id`)"),
        (status = 409, description = "A concurrent change won (`ABORTED`); retry"),
    ),
)]
pub async fn delete_zone(
    State(state): State<Arc<ApiState>>,
    _: Admin,
    WorldItem { world, id }: WorldItem,
) -> Result<Json<DeleteBody>, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let outcome = world.unregister(&id).await?;
    Ok(Json(DeleteBody {
        revision: outcome.revision,
        tiles: tiles(&outcome),
        tile_rects: outcome.changed.to_json(),
        tile_count: outcome.changed.count,
    }))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ZoneBody {
    zone: Option<ZoneJson>,
    revision: u64,
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/flat-zones/{id}",
    tag = "zones",
    params(
        ("id" = String, Path, description = "Zone id: 1 to 64 of `[A-Za-z0-9_.-]`"),
    ),
    responses(
        (status = 200, description = "The zone", body = ZoneBody),
        (status = 400, description = "A malformed path (field `path`)"),
        (status = 404, description = "No such world (field `world`) or zone (field `id`)"),
    ),
)]
pub async fn get_zone(
    State(state): State<Arc<ApiState>>,
    WorldItem { world, id }: WorldItem,
) -> Result<Json<ZoneBody>, ApiError> {
    let engine = &state.engine;
    let answer = engine.zone(engine.world(&world)?, &id).await?;
    Ok(Json(ZoneBody {
        zone: answer.zone.as_ref().map(ZoneJson::new),
        revision: answer.revision,
    }))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListBody {
    /// This page's zones, in registration order.
    #[schema(value_type = Vec<ZoneJson>)]
    zones: Vec<Box<RawValue>>,
    /// The listing's revision: every page of one listing carries its first page's.
    revision: u64,
    /// The epoch of the world's history `revision` belongs to: a subscription
    /// resuming from `revision` names it (`fromEpoch`).
    epoch: String,
    /// The next page's `pageToken`; empty on the last page. Opaque.
    next_page_token: String,
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/flat-zones",
    tag = "zones",
    description = "The world's zones in registration order, a page at a time: follow \
        `nextPageToken` (as `pageToken`) until it is empty. A page holds at most `pageSize` \
        zones (500 when absent or 0) and stops before its zones would take more than 1 MiB \
        of JSON, always holding at least one; every page of a listing is of its first \
        page's `revision`.",
    params(
        ("pageSize" = Option<i64>, Query, description = "Most zones a page holds: 0 to 1000 (0: the default, 500)"),
        ("pageToken" = Option<String>, Query, description = "The previous page's `nextPageToken`; absent or empty for the first page"),
    ),
    responses(
        (status = 200, description = "A page of the world's zones, in registration order", body = ListBody),
        (status = 400, description = "A `pageSize` out of range, a malformed `pageToken` or one of another world (the field names it)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = "A `pageToken` whose revision this server no longer holds (older than `asof_revisions` revisions, or of another epoch: `FAILED_PRECONDITION`, list again from the first page) or has not reached yet (`ABORTED`, retry); field `pageToken`"),
    ),
)]
pub async fn list(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    p: Query,
) -> Result<Json<ListBody>, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let size = match p.at_most_once("pageSize")? {
        None => 0,
        Some(raw) => raw.parse::<i64>().map_err(|_| {
            ApiError::invalid(
                "pageSize",
                format!("expected an integer, got {}", Quoted(raw)),
            )
        })?,
    };
    let token = p.at_most_once("pageToken")?.unwrap_or_default();
    let mut failed = None;
    let page = engine
        .zone_page(world, size, token, |entry| {
            let json = serde_json::value::to_raw_value(&ZoneJson::new(entry));
            let json = json.unwrap_or_else(|e| {
                failed.get_or_insert_with(|| e.to_string());
                RawValue::NULL.to_owned()
            });
            // The zone and the comma before the next.
            let len = json.get().len() + 1;
            (json, len)
        })
        .await?;
    if let Some(reason) = failed {
        return Err(ApiError::Internal(format!(
            "a zone did not serialise: {reason}"
        )));
    }
    Ok(Json(ListBody {
        zones: page.zones,
        revision: page.revision,
        epoch: page.epoch,
        next_page_token: page.next_page_token,
    }))
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/flat-zone-at",
    tag = "zones",
    params(
        ("x" = f64, Query, description = "Metres; finite, within `max_coordinate`"),
        ("z" = f64, Query, description = "Metres; finite, within `max_coordinate`"),
    ),
    responses(
        (status = 200, description = "The zone deciding the height at (x, z), or `null`", body = ZoneBody),
        (status = 400, description = "A missing, repeated, non-numeric or out-of-range parameter (the field names it)"),
        (status = 404, description = "No such world (field `world`)"),
    ),
)]
pub async fn zone_at(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    p: Query,
) -> Result<Json<ZoneBody>, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let (x, z) = (p.number("x")?, p.number("z")?);
    let answer = engine.zone_at(world, x, z).await?;
    Ok(Json(ZoneBody {
        zone: answer.zone.as_ref().map(ZoneJson::new),
        revision: answer.revision,
    }))
}
