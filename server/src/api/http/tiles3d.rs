//! The 3D Tiles routes of the HTTP surface ([`crate::mesh::tiles3d`]).
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/worlds/{world}/3dtiles/tileset.json` | the tileset (3D Tiles 1.1, implicit quadtree) |
//! | `GET /v1/worlds/{world}/3dtiles/subtrees/{level}.{x}.{y}.subtree` | a binary subtree (`0.0.0` holds every level of a square of up to 128 x 128 tiles; a larger one's subtrees hold 7 levels and each tile's geometric error) |
//! | `GET /v1/worlds/{world}/3dtiles/content/{level}/{x}/{y}.glb` | a content's mesh (glb) |
//!
//! Contents send `ETag: "<world>:3dtiles:<level>:<x>:<y>:v<version>"` (the newest
//! version of the mesh tiles under the content) and answer `304` to an
//! `If-None-Match` that lists it without building anything; the tileset sends the
//! newest version of the square. On a voxel world the finest contents are the
//! chunks' greedy meshes and the coarser ones meshes of the top-block heightfield.

use std::sync::Arc;

use axum::{
    extract::State,
    http::{
        HeaderMap, HeaderValue,
        header::{CONTENT_TYPE, ETAG},
    },
    response::{IntoResponse, Response},
};
use terrain_core::tiles3d::{
    ContentKey, TilesetLayout, declared_error, subtree, subtree_root, tileset_json,
};

use super::{
    REVISION_HEADER,
    conditional::{etag, not_modified},
    extract::{self, ContentPath, SubtreePath},
};
use crate::{
    api::{ApiError, ApiState},
    mesh::tiles3d::content_version,
    world::World,
};

fn world_of<'a>(
    state: &'a ApiState,
    id: &str,
) -> Result<(&'a Arc<World>, TilesetLayout), ApiError> {
    let world = state.engine.world(id)?;
    Ok((world, *world.tileset()))
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::Internal(e.to_string())
}

/// The tileset document.
#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/3dtiles/tileset.json",
    tag = "3dtiles",
    description = "The world's OGC 3D Tiles 1.1 tileset: implicit quadtree tiling over the square \
        of `tileset_extent`, content at every tile, geometric errors halving per level down to the \
        full-detail tile meshes (a voxel world's greedy chunk meshes), the root box from the real \
        height range (a voxel world's whole block range).",
    responses(
        (status = 200, description = "The tileset (JSON)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 503, description = "The root grid is too much work for `request_timeout` and is being built in the background: retry after `Retry-After`"),
    ),
)]
pub async fn tileset(
    State(state): State<Arc<ApiState>>,
    extract::World(world): extract::World,
) -> Result<Response, ApiError> {
    let (world, layout) = world_of(&state, &world)?;
    let snapshot = world.snapshot();
    let revision = snapshot.revision();
    let root_error = declared_error(&layout, snapshot.terrain(), ContentKey::ROOT);
    let (range, version) = state
        .engine
        .meshes()
        .tileset_range(world, snapshot, layout)
        .await
        .map_err(|e| ApiError::from_service(&e))?;
    let doc = tileset_json(&layout, range, root_error, version);
    let body = serde_json::to_vec(&doc).map_err(internal)?;
    let head = [
        (CONTENT_TYPE, HeaderValue::from_static("application/json")),
        (REVISION_HEADER, HeaderValue::from(revision)),
        (
            ETAG,
            etag(&[&world.id(), &"3dtiles", &format!("v{version}")]),
        ),
    ];
    Ok((head, body).into_response())
}

/// A subtree.
#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/3dtiles/subtrees/{file}",
    tag = "3dtiles",
    description = "A binary subtree file (`{level}.{x}.{y}.subtree`), every tile and content of its \
        levels available. On a square of up to 128 x 128 tiles one subtree, `0.0.0`, holds every level. \
        On a larger one subtrees start every 7 levels and carry each tile's geometric error \
        (`TILE_GEOMETRIC_ERROR` metadata): its level's, or more over sampled grids where that is \
        not proven. Its ETag follows the versions of the tiles under it, as a content's does.",
    params(
        ("file" = String, Path, description = "`{level}.{x}.{y}.subtree`, level a multiple of the tileset's `subtreeLevels`"),
        ("If-None-Match" = Option<String>, Header, description = "ETags the client holds: `304` if the current one is listed"),
    ),
    responses(
        (status = 200, description = "The subtree (binary)",
            headers(("ETag" = String, description = "`\"<world>:3dtiles:subtree:<level>:<x>:<y>:v<version>\"`")),
            content((crate::api::http::openapi::schemas::Bytes = "application/octet-stream"))),
        (status = 304, description = "The client holds the current version"),
        (status = 400, description = "Not a subtree of the tileset (field `file`)"),
        (status = 404, description = "No such world (field `world`)"),
    ),
)]
pub async fn subtree_file(
    State(state): State<Arc<ApiState>>,
    SubtreePath { world, level, x, y }: SubtreePath,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (world, layout) = world_of(&state, &world)?;
    let key = subtree_root(&layout, level, x, y).map_err(|e| ApiError::invalid("file", e.0))?;
    let snapshot = world.snapshot();
    let revision = snapshot.revision();
    let version = content_version(&snapshot, &layout, key);
    let tag = etag(&[
        &world.id(),
        &"3dtiles",
        &"subtree",
        &level,
        &x,
        &y,
        &format!("v{version}"),
    ]);
    if let Some(response) = not_modified(&headers, &tag, revision, None) {
        return Ok(response);
    }
    // Up to 5,461 tiles' errors, each a scan of the zones: off the async threads.
    let bytes = tokio::task::spawn_blocking(move || {
        let terrain = snapshot.terrain();
        subtree(&layout, (level, x, y), |k| {
            declared_error(&layout, terrain, k)
        })
    })
    .await
    .map_err(internal)?;
    let head = [
        (
            CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        ),
        (ETAG, tag),
        (REVISION_HEADER, HeaderValue::from(revision)),
    ];
    Ok((head, bytes).into_response())
}

/// One content.
#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/3dtiles/content/{level}/{x}/{file}",
    tag = "3dtiles",
    description = "Content `(level, x, y)` of the tileset as glb (`{y}.glb`): the full-detail tile \
        mesh (a voxel world's greedy chunk mesh) at the finest level, above it one mesh over the \
        content's square within its level's geometric error of the full-detail surface (a voxel \
        world's top-block heightfield), with skirts twice that error deep.",
    params(
        ("level" = u32, Path, description = "Quadtree level (0: the root); decimal digits without a sign or leading zeros, as every index here"),
        ("x" = u64, Path, description = "Index along tileset x (world +x)"),
        ("file" = String, Path, description = "`{y}.glb`, y along tileset y (world -z)"),
        ("If-None-Match" = Option<String>, Header, description = "ETags the client holds: `304` if the current one is listed"),
    ),
    responses(
        (status = 200, description = "The content",
            headers(("ETag" = String, description = "`\"<world>:3dtiles:<level>:<x>:<y>:v<version>\"`: the newest version of the tiles under it")),
            content((crate::api::http::openapi::schemas::Bytes = "model/gltf-binary"))),
        (status = 304, description = "The client holds the current version"),
        (status = 400, description = "Not a content of the tileset (field `level`, `x` or `file`)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 503, description = "The content is too much work for `request_timeout` and is being built in the background: retry after `Retry-After`"),
    ),
)]
pub async fn content(
    State(state): State<Arc<ApiState>>,
    ContentPath { world, level, x, y }: ContentPath,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (world, layout) = world_of(&state, &world)?;
    if level > layout.levels {
        return Err(ApiError::invalid(
            "level",
            format!("must be at most {} (the full-detail level)", layout.levels),
        ));
    }
    let key: ContentKey = layout.from_tileset(level, x, y).ok_or_else(|| {
        let n = 1u64 << level;
        // The index at fault: x, else y (the `{y}.glb` segment, field `file`).
        let field = if x >= n { "x" } else { "file" };
        ApiError::invalid(
            field,
            format!("({x}, {y}) is outside level {level}: both must be below {n}"),
        )
    })?;
    let snapshot = world.snapshot();
    let revision = snapshot.revision();
    let current = content_version(&snapshot, &layout, key);
    let tag_of = |v: u64| etag(&[&world.id(), &"3dtiles", &level, &x, &y, &format!("v{v}")]);
    if let Some(response) = not_modified(&headers, &tag_of(current), revision, None) {
        return Ok(response);
    }
    let (version, bytes) = state
        .engine
        .meshes()
        .content(world, snapshot, layout, key)
        .await
        .map_err(|e| ApiError::from_service(&e))?;
    let head = [
        (CONTENT_TYPE, HeaderValue::from_static("model/gltf-binary")),
        (ETAG, tag_of(version)),
        (REVISION_HEADER, HeaderValue::from(revision)),
    ];
    Ok((head, bytes).into_response())
}
