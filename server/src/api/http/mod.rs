//! The HTTP/1.1 surface: JSON (lowerCamelCase, as the protobuf JSON mapping spells the
//! gRPC fields), `application/octet-stream` batches for bulk callers, the WebSocket
//! events and the live map, all routed by the one table in [`routes`].
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /healthz`, `GET /readyz`, `GET /metrics` | liveness, readiness, Prometheus text ([`ops`], [`crate::api::metrics`]) |
//! | `GET /openapi.json` | the OpenAPI 3.1 document of these routes ([`openapi`]) |
//! | `GET /v1/worlds` | the hosted worlds ([`worlds`]) |
//! | `GET /v1/worlds/{world}/height`, `POST .../heights`, `GET .../heightmap` | heights ([`heights`]) |
//! | `/v1/worlds/{world}/flat-zones...`, `/v1/worlds/{world}/flat-zone-at` | flat zones ([`zones`]) |
//! | `/v1/worlds/{world}/tiles/{tx}/{tz}/mesh[.glb]` | tile meshes ([`mesh`]) |
//! | `/v1/worlds/{world}/tiles/{cx}/{cz}/blocks`, `.../instances` | voxel chunks ([`blocks`]) |
//! | `/v1/worlds/{world}/viewers/{id}`, `.../live-tiles` | viewers and live tiles ([`lifecycle`]) |
//! | `/v1/worlds/{world}/layout`, `.../zone-class` | the layout layer ([`layout`]) |
//! | `POST /v1/worlds/{world}/terrain-info`, `.../paths/check`, `.../paths/find`, `GET .../walk-grid` | movement authority ([`walk`]) |
//! | `/v1/worlds/{world}/map/...`, `/map...` | the live map ([`map`]) |
//! | `GET /v1/worlds/{world}/events` | tile events over a WebSocket ([`events`]) |
//! | `GET /v1/admin/backup` | a snapshot of the store ([`admin`]) |
//!
//! Browsers on the origins of `cors_origins` may read every answer ([`cors`]: the
//! CORS layer the transport lays over the router, and the events WebSocket's `Origin`
//! check).
//!
//! Every refusal is `{"error": {"code", "message", "field"}}`, including axum's own
//! rejections (bad path, bad query string), which the extractors of [`extract`] map.
//! Every `POST` and `PUT` body is read by one extractor, [`body::JsonBody`]: the
//! `Content-Type` rule, the body type's byte limit, its decoder naming the field. A query key the route's operation does not
//! list in the OpenAPI document is refused naming it ([`query_keys`]).

pub mod admin;
pub mod batch_body;
pub mod blocks;
pub mod body;
pub mod conditional;
pub mod cors;
pub mod events;
pub mod extract;
pub mod heights;
pub mod layout;
pub mod lifecycle;
pub mod map;
pub mod map_page;
pub mod mesh;
pub mod openapi;
pub mod ops;
pub mod query_keys;
pub mod tiles3d;
pub mod walk;
pub mod worlds;
pub mod zone_body;
pub mod zones;

use std::sync::Arc;

use axum::{
    Extension, Router,
    http::{HeaderName, HeaderValue, header::CONTENT_TYPE},
    middleware,
    response::{IntoResponse, Response},
    routing::{get, post, put},
};
use serde::Serialize;

use crate::{
    api::{ApiError, ApiState, metrics},
    compute::OFFLOAD_THRESHOLD,
    config::Limits,
    query::QueryEngine,
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

/// Every HTTP route. Each `POST` and `PUT` route reads its body through
/// [`body::JsonBody`], with the limit of its body type.
pub fn routes(state: Arc<ApiState>) -> Router {
    let limits = state.engine.limits();
    let map_cache = map::cache(&state);
    let document = openapi::served(limits);
    let query_keys = Arc::new(query_keys::QueryKeys::of_document(&openapi::document(
        limits,
    )));
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(metrics::render))
        .route("/openapi.json", get(openapi::openapi_json))
        .route("/v1/worlds", get(worlds::list_worlds))
        .route("/v1/worlds/{world}/height", get(heights::height))
        .route("/v1/worlds/{world}/heights", post(heights::heights))
        .route("/v1/worlds/{world}/heightmap", get(heights::heightmap))
        .route("/v1/worlds/{world}/flat-zones", get(zones::list))
        .route(
            "/v1/worlds/{world}/flat-zones/{id}",
            get(zones::get_zone)
                .put(zones::put_zone)
                .delete(zones::delete_zone),
        )
        .route("/v1/worlds/{world}/flat-zone-at", get(zones::zone_at))
        .route(
            "/v1/worlds/{world}/tiles/{tx}/{tz}/mesh",
            get(mesh::mesh_json),
        )
        .route(
            "/v1/worlds/{world}/tiles/{tx}/{tz}/mesh.glb",
            get(mesh::mesh_glb),
        )
        .route(
            "/v1/worlds/{world}/tiles/{cx}/{cz}/blocks",
            get(blocks::blocks),
        )
        .route(
            "/v1/worlds/{world}/tiles/{cx}/{cz}/instances",
            get(blocks::instances),
        )
        .route(
            "/v1/worlds/{world}/viewers/{id}",
            put(lifecycle::put_viewer).delete(lifecycle::delete_viewer),
        )
        .route("/v1/worlds/{world}/live-tiles", get(lifecycle::live_tiles))
        .route("/v1/worlds/{world}/layout", get(layout::layout))
        .route("/v1/worlds/{world}/zone-class", get(layout::zone_class))
        .route("/v1/worlds/{world}/terrain-info", post(walk::terrain_info))
        .route("/v1/worlds/{world}/paths/check", post(walk::check_path))
        .route("/v1/worlds/{world}/paths/find", post(walk::find_path))
        .route("/v1/worlds/{world}/walk-grid", get(walk::walk_grid))
        .route("/v1/worlds/{world}/map/{z}/{x}/{file}", get(map::map_tile))
        .route("/v1/worlds/{world}/map/legend", get(map::legend))
        .route(
            "/v1/worlds/{world}/3dtiles/tileset.json",
            get(tiles3d::tileset),
        )
        .route(
            "/v1/worlds/{world}/3dtiles/subtrees/{file}",
            get(tiles3d::subtree_file),
        )
        .route(
            "/v1/worlds/{world}/3dtiles/content/{level}/{x}/{file}",
            get(tiles3d::content),
        )
        .route("/v1/worlds/{world}/map/viewers", get(map::viewers))
        .route("/map", get(map_page::page))
        .route("/map/", get(map_page::page))
        .route("/map/{world}", get(map_page::page))
        .route("/map/assets/{*path}", get(map_page::asset))
        .route(
            "/v1/worlds/{world}/events",
            // CONNECT: a WebSocket over HTTP/2 (RFC 8441). A browser page's `Origin`
            // must be among `cors_origins`, when they are listed.
            get(events::events).connect(events::events).route_layer(
                middleware::from_fn_with_state(state.cors.clone(), cors::check_origin),
            ),
        )
        .route("/v1/admin/backup", get(admin::backup))
        .route_layer(middleware::from_fn_with_state(
            query_keys,
            query_keys::refuse_unknown,
        ))
        .layer(Extension(map_cache))
        .layer(Extension(document))
        .with_state(state)
}

/// The largest batch body (heights, terrain info): a maximal JSON batch.
pub fn body_limit(limits: &Limits) -> usize {
    limits
        .max_batch_points
        .saturating_mul(JSON_BYTES_PER_POINT)
        .saturating_add(OFFLOAD_BODY_BYTES)
}

/// Serialises `body` as JSON, on the pool when it holds more than a few thousand values.
pub(crate) async fn json_response<T>(
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
