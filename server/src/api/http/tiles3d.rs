//! The 3D Tiles routes of the HTTP surface ([`crate::mesh::tiles3d`]).
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/worlds/{world}/3dtiles/tileset.json` | the tileset (3D Tiles 1.1, implicit quadtree) |
//! | `GET /v1/worlds/{world}/3dtiles/subtrees/{level}.{x}.{y}.subtree` | the binary subtree (only `0.0.0`: one subtree holds every level) |
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
        header::{CACHE_CONTROL, CONTENT_TYPE, ETAG},
    },
    response::{IntoResponse, Response},
};
use terrain_core::tiles3d::{ContentKey, TilesetLayout, subtree, tileset_json};

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
    let (range, version) = state
        .engine
        .meshes()
        .tileset_range(world, snapshot, layout)
        .await
        .map_err(|e| ApiError::from_service(&e))?;
    let doc = tileset_json(&layout, range, version);
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

/// The one subtree.
#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/3dtiles/subtrees/{file}",
    tag = "3dtiles",
    description = "A binary subtree file (`{level}.{x}.{y}.subtree`): one subtree, `0.0.0`, holds \
        every level, with every tile and content available.",
    params(("file" = String, Path, description = "`0.0.0.subtree`")),
    responses(
        (status = 200, description = "The subtree (binary)",
            content((crate::api::http::openapi::schemas::Bytes = "application/octet-stream"))),
        (status = 400, description = "Not a subtree of the tileset (field `file`)"),
        (status = 404, description = "No such world (field `world`)"),
    ),
)]
pub async fn subtree_file(
    State(state): State<Arc<ApiState>>,
    SubtreePath { world, file }: SubtreePath,
) -> Result<Response, ApiError> {
    world_of(&state, &world)?;
    if file != "0.0.0.subtree" {
        return Err(ApiError::invalid(
            "file",
            format!("{file:?}: the tileset has one subtree, 0.0.0.subtree"),
        ));
    }
    let head = [
        (
            CONTENT_TYPE,
            HeaderValue::from_static("application/octet-stream"),
        ),
        (CACHE_CONTROL, HeaderValue::from_static("max-age=3600")),
    ];
    Ok((head, subtree()).into_response())
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
