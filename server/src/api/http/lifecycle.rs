//! Viewers and live tiles over HTTP.
//!
//! | route | answer |
//! | --- | --- |
//! | `PUT /v1/worlds/{world}/viewers/{id}` (body `{"x", "z", "viewWidth", "viewDepth"}`, optional `"velocityX"`, `"velocityZ"` in m/s) | that viewer's `{"sim", "spawn", "active"}` |
//! | `DELETE /v1/worlds/{world}/viewers/{id}` | 204 (404 if absent) |
//! | `GET /v1/worlds/{world}/live-tiles` | `{"sim", "spawn", "active", "viewers", "sequence"}`: the union of every viewer's rings |
//!
//! Tile sets are arrays of `[tx, tz]`, row-major (z outer, x inner); each ring
//! includes the ones inside it. Viewer changes need `Authorization: Bearer <admin
//! token>` when one is configured. An HTTP viewer not updated for `viewer_ttl` is
//! dropped.

use std::sync::Arc;

use axum::{Json, body::Bytes, extract::State, http::StatusCode};
use serde::{Deserialize, Serialize};

use super::{
    body::{BodyFormat, JsonBody, RequestBody, decode_object, present, required},
    extract::{Admin, Query, World, WorldItem},
};
use crate::{
    api::{ApiError, ApiState},
    lifecycle::{
        rings::{Tile, Viewer},
        tracker::{Owner, TileSets},
    },
};

/// Viewer bodies are tiny; anything larger is refused before it is read.
pub const VIEWER_BODY_LIMIT: usize = 4 * 1024;

/// Tile sets as JSON.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SetsJson {
    sim: Vec<[i64; 2]>,
    spawn: Vec<[i64; 2]>,
    active: Vec<[i64; 2]>,
}

impl From<TileSets> for SetsJson {
    fn from(sets: TileSets) -> Self {
        let pairs = |v: Vec<Tile>| v.into_iter().map(|(x, z)| [x, z]).collect();
        SetsJson {
            sim: pairs(sets.sim),
            spawn: pairs(sets.spawn),
            active: pairs(sets.active),
        }
    }
}

/// A viewer body as decoded: each number, if given; unknown and repeated keys are
/// refused, naming them.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = ViewerRequest, rename_all = "camelCase")]
pub struct ViewerBody {
    /// The viewer's position, metres.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = f64)]
    x: Option<f64>,
    /// The viewer's position, metres.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = f64)]
    z: Option<f64>,
    /// The width (along x) of the area the viewer sees, metres (> 0).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = f64)]
    view_width: Option<f64>,
    /// The depth (along z) of the area the viewer sees, metres (> 0).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = f64)]
    view_depth: Option<f64>,
    /// The viewer's velocity, metres per second (0 when absent).
    #[serde(default, deserialize_with = "present")]
    velocity_x: Option<f64>,
    /// The viewer's velocity, metres per second (0 when absent).
    #[serde(default, deserialize_with = "present")]
    velocity_z: Option<f64>,
}

impl RequestBody for ViewerBody {
    fn limit(_: &ApiState) -> usize {
        VIEWER_BODY_LIMIT
    }

    async fn decode(_: &ApiState, _: BodyFormat, body: Bytes) -> Result<Self, ApiError> {
        decode_object(&body).map_err(|e| e.into_api("body"))
    }
}

/// The viewer `id` a `PUT .../viewers/{id}` body places, decoded as the route decodes
/// it ([`ViewerBody`]; the fuzz targets call it).
pub fn decode_viewer(id: String, body: &[u8]) -> Result<Viewer, ApiError> {
    decode_object::<ViewerBody>(body)
        .map_err(|e| e.into_api("body"))?
        .into_viewer(id)
}

impl ViewerBody {
    /// The viewer `id` this body places: `{"x", "z", "viewWidth", "viewDepth"}` are
    /// required, `"velocityX"`, `"velocityZ"` (metres per second) are 0 when absent.
    /// The numbers are checked later, by the lifecycle.
    pub fn into_viewer(self, id: String) -> Result<Viewer, ApiError> {
        Ok(Viewer {
            id,
            x: required("x", self.x)?,
            z: required("z", self.z)?,
            view_width: required("viewWidth", self.view_width)?,
            view_depth: required("viewDepth", self.view_depth)?,
            velocity_x: self.velocity_x.unwrap_or(0.0),
            velocity_z: self.velocity_z.unwrap_or(0.0),
        })
    }
}

#[utoipa::path(
    put,
    path = "/v1/worlds/{world}/viewers/{id}",
    tag = "lifecycle",
    params(
        ("id" = String, Path, description = "Viewer id"),
    ),
    request_body(content = ViewerBody, content_type = "application/json"),
    security((), ("admin" = [])),
    responses(
        (status = 200, description = "The viewer's rings (tiles `[tx, tz]`, row-major)", body = SetsJson,
            links(
                ("DeleteViewer" = (operation_id = "delete_viewer", description = "Removes the viewer",
                    parameters(("world" = "$request.path.world"), ("id" = "$request.path.id")))),
            ),
        ),
        (status = 400, description = "A malformed body or value (the field names it: `x`, `viewWidth`, `body`, ...), a bad id"),
        (status = 401, description = "A missing or wrong admin token (field `authorization`; `WWW-Authenticate: Bearer`)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = "The viewer is owned by a gRPC `TrackViewers` stream (`FAILED_PRECONDITION`)"),
        (status = 413, description = "A view over the configured limit, or a body over 4 KiB (field `body`)"),
        (status = 415, description = "A `Content-Type` that is not JSON (field `content-type`)"),
        (status = 429, description = "The world has `max_viewers` viewers, or the live-tile budget is spent (`RESOURCE_EXHAUSTED`)"),
    ),
)]
pub async fn put_viewer(
    State(state): State<Arc<ApiState>>,
    _: Admin,
    WorldItem { world, id }: WorldItem,
    JsonBody(body): JsonBody<ViewerBody>,
) -> Result<Json<SetsJson>, ApiError> {
    let lifecycle = state.lifecycle(&world)?;
    let viewer = body.into_viewer(id)?;
    let sets = lifecycle.upsert(viewer, Owner::Http)?;
    Ok(Json(sets.into()))
}

#[utoipa::path(
    delete,
    path = "/v1/worlds/{world}/viewers/{id}",
    tag = "lifecycle",
    params(
        ("id" = String, Path, description = "Viewer id"),
    ),
    security((), ("admin" = [])),
    responses(
        (status = 204, description = "Removed"),
        (status = 400, description = "A malformed path (field `path`)"),
        (status = 401, description = "A missing or wrong admin token (field `authorization`; `WWW-Authenticate: Bearer`)"),
        (status = 404, description = "No such world (field `world`) or viewer (field `id`)"),
        (status = 409, description = "The viewer is owned by a gRPC `TrackViewers` stream (`FAILED_PRECONDITION`)"),
    ),
)]
pub async fn delete_viewer(
    State(state): State<Arc<ApiState>>,
    _: Admin,
    WorldItem { world, id }: WorldItem,
) -> Result<StatusCode, ApiError> {
    state.lifecycle(&world)?.remove(&id, Owner::Http)?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct LiveJson {
    #[serde(flatten)]
    sets: SetsJson,
    viewers: usize,
    sequence: u64,
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/live-tiles",
    tag = "lifecycle",
    responses(
        (status = 200, description = "The union of every viewer's rings", body = LiveJson),
        (status = 400, description = "A query string that cannot be decoded (field `query`)"),
        (status = 404, description = "No such world (field `world`)"),
    ),
)]
pub async fn live_tiles(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    query: Query,
) -> Result<Json<LiveJson>, ApiError> {
    query.pairs()?;
    let live = state.lifecycle(&world)?.live();
    Ok(Json(LiveJson {
        sets: live.tiles.into(),
        viewers: live.viewers,
        sequence: live.sequence,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewer_bodies_name_the_field() {
        let ok = decode_viewer(
            "v".into(),
            br#"{"x":1,"z":2.5,"viewWidth":3,"viewDepth":4}"#,
        )
        .expect("valid");
        assert_eq!(
            (ok.x, ok.z, ok.view_width, ok.view_depth),
            (1.0, 2.5, 3.0, 4.0)
        );
        assert_eq!((ok.velocity_x, ok.velocity_z), (0.0, 0.0));
        for (body, field) in [
            (&br#"{"z":2,"viewWidth":3,"viewDepth":4}"#[..], "x"),
            (br#"{"x":1,"z":"a","viewWidth":3,"viewDepth":4}"#, "z"),
            (br#"{"x":1,"z":2,"viewDepth":4}"#, "viewWidth"),
            (
                br#"{"x":1,"z":2,"viewWidth":3,"viewDepth":null}"#,
                "viewDepth",
            ),
            (br#"{"x":1,"z":2,"viewWidth":3,"viewDepth":4,"y":0}"#, "y"),
            (
                br#"{"x":1,"z":2,"viewWidth":3,"viewDepth":4,"x":-7e2}"#,
                "x",
            ),
            (br#"[1,2]"#, "body"),
            (br#"{"x":1"#, "body"),
            (br#"{"x":1,"z":2,"viewWidth":3,"viewDepth":4} x"#, "body"),
            (br#"{"x":1e400,"z":2,"viewWidth":3,"viewDepth":4}"#, "x"),
            (
                br#"{"x":1,"z":2,"viewWidth":3,"viewDepth":4,"velocityZ":null}"#,
                "velocityZ",
            ),
        ] {
            let err = decode_viewer("v".into(), body).unwrap_err();
            assert_eq!(err.field(), Some(field), "{err}");
        }
        let moving = decode_viewer(
            "v".into(),
            br#"{"x":1,"z":2,"viewWidth":3,"viewDepth":4,"velocityX":-7e2} "#,
        )
        .expect("valid");
        assert_eq!(moving.velocity_x, -700.0);
    }
}
