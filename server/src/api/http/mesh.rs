//! The tile mesh routes of the HTTP surface.
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/worlds/{world}/tiles/{tx}/{tz}/mesh` | `{"tileX", "tileZ", "version", "revision", "resolution", "minHeight", "maxHeight", "placement", "positions", "normals", "indices", "colours"?, "biomes"?}` (hyperscape: the worker's vertex colours and biome ids) |
//! | `GET /v1/worlds/{world}/tiles/{tx}/{tz}/mesh.glb` | `model/gltf-binary`: one node at the tile's placement, one indexed triangle mesh |
//!
//! Both send `ETag: "<world>:<tx>:<tz>:v<version>"` (the tile's version: the revision
//! of the last change that touched it) and answer `304 Not Modified`, without
//! building anything, to a request whose `If-None-Match` lists it
//! ([`super::conditional`]). `positions` and
//! `normals` are float32 `x, y, z` per vertex (positions relative to `placement`);
//! `indices` three per triangle, carved cells absent.
//!
//! A tile version's body is encoded once and kept with its cached mesh
//! ([`crate::mesh::MeshCache::encoded`]); a warm request copies the bytes (the JSON
//! with the request's `revision` stamped in) and encodes nothing.
//!
//! On a voxel world a tile is a chunk and its mesh the chunk's greedy mesh: the JSON
//! has `resolution` 0, the opaque part in `positions`, `normals`, `colours` (linear
//! RGB per vertex) and `indices`, the transparent kinds in `transparent` (the same
//! four arrays), and `quads` and `visibleFaces`; the glb holds one primitive per part
//! with `COLOR_0` ([`crate::mesh::ChunkMesh::to_glb`]).

use std::sync::Arc;

use axum::{
    extract::State,
    http::{
        HeaderMap, HeaderValue,
        header::{CONTENT_TYPE, ETAG},
    },
    response::{IntoResponse, Response},
};
use bytes::Bytes;
use serde::{Serialize, Serializer};
use terrain_core::{mesh::Indices, voxel::MeshPart};

use super::{
    CACHE_HEADER, REVISION_HEADER,
    conditional::{not_modified, tile_etag},
    extract::{Query, TilePath},
};
use crate::{
    api::{ApiError, ApiState},
    mesh::{CachedMesh, ChunkMesh, MeshFormat, ServedMesh, encode_glb},
    query::mesh::{TileFields, check_max_error},
};

/// The `maxError` query parameter: the largest vertical error, in metres, the mesh may
/// have at any full-detail vertex (absent or 0: full detail).
fn max_error(query: &Query) -> Result<f64, ApiError> {
    let Some(raw) = query.at_most_once("maxError")? else {
        return Ok(0.0);
    };
    let value: f64 = raw
        .parse()
        .map_err(|_| ApiError::invalid("maxError", format!("expected a number, got {raw:?}")))?;
    Ok(check_max_error(value, "maxError")?)
}

/// The ETag form of a simplified mesh: `e<maxError>` (none at full detail).
fn error_form(max_error: f64) -> Option<String> {
    (max_error > 0.0).then(|| format!("e{max_error}"))
}

/// How HTTP names a tile's indices in errors: the path segments `tx` and `tz`.
fn tile_fields() -> TileFields {
    TileFields::new("tx", "tz")
}

/// What a mesh route answers: 304 if the client holds the current version, else the
/// mesh in `format` as `content_type`: the cached encoding of this tile version, or
/// one made now by `encode` (on the compute pool) and cached.
async fn serve(
    state: &ApiState,
    TilePath { world, tile }: TilePath,
    query: &Query,
    headers: &HeaderMap,
    content_type: &'static str,
    format: MeshFormat,
    encode: fn(&ServedMesh) -> Result<Vec<u8>, String>,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let fields = tile_fields();
    let current = engine.tile_version(world, tile, &fields).await?;
    let max_error = max_error(query)?;
    let form = error_form(max_error);
    let tag = tile_etag(world.id(), tile, current.version, form.as_deref());
    if let Some(response) = not_modified(headers, &tag, current.revision, None) {
        return Ok(response);
    }
    let served = engine
        .tile_mesh_lod(world, tile, &fields, max_error)
        .await?;
    let tag = tile_etag(world.id(), tile, served.mesh.version(), form.as_deref());
    let revision = HeaderValue::from(served.revision);
    let cache = HeaderValue::from_static(if served.cached { "hit" } else { "miss" });
    // The stored JSON is encoded at revision 0; each answer stamps its own in.
    let encoded = engine
        .meshes()
        .encoded(world.id(), &served, format, encode)
        .await?;
    let body = match format {
        MeshFormat::Json => Bytes::from(stamp_revision(&encoded, served.revision)?),
        _ => encoded,
    };
    let head = [
        (CONTENT_TYPE, HeaderValue::from_static(content_type)),
        (ETAG, tag),
        (REVISION_HEADER, revision),
        (CACHE_HEADER, cache),
    ];
    Ok((head, body).into_response())
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/tiles/{tx}/{tz}/mesh",
    tag = "meshes",
    description = "A tile's mesh as JSON: float32 `x, y, z` per vertex in `positions` (relative to \
        `placement`) and `normals`, three `indices` per triangle. On a voxel world the tile is a \
        chunk: `ChunkMeshBody` (the opaque part at the top level, the transparent one in \
        `transparent`, linear RGB `colours` per vertex).",
    params(
        ("tx" = i64, Path, description = "Tile index along x"),
        ("tz" = i64, Path, description = "Tile index along z"),
        ("maxError" = Option<f64>, Query, minimum = 0, maximum = 1000, description = "The largest vertical error in metres the mesh may have at any full-detail vertex: the mesh simplified to it (kept vertices are full-detail vertices, with skirts twice the error deep along the edges). Absent or 0: full detail. Voxel chunks are exact greedy meshes at any error."),
        ("If-None-Match" = Option<String>, Header, description = "ETags the client holds: `304` if the current one is listed"),
    ),
    responses(
        (status = 200, description = "The mesh (`MeshBody`, or `ChunkMeshBody` on a voxel world)",
            headers(
                ("ETag" = String, description = "`\"<world>:<tx>:<tz>:v<version>\"` (`...:v<version>:e<maxError>` when simplified): the tile's version"),
                ("x-terrain-revision" = u64, description = "The world revision served"),
                ("x-terrain-cache" = String, description = "`hit` or `miss`"),
            ),
            body = MeshBody,
        ),
        (status = 304, description = "The client holds the current version",
            headers(("ETag" = String), ("x-terrain-revision" = u64))),
        (status = 400, description = "A tile index that is not an integer (field `tx` / `tz`) or out of range, or a `maxError` that is not a number from 0 to 1000"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 413, description = "A tile beyond the configured limits (field `tiles`)"),
    ),
)]
pub async fn mesh_json(
    State(state): State<Arc<ApiState>>,
    path: TilePath,
    query: Query,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let format = MeshFormat::Json;
    serve(
        &state,
        path,
        &query,
        &headers,
        "application/json",
        format,
        encode_json,
    )
    .await
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/tiles/{tx}/{tz}/mesh.glb",
    tag = "meshes",
    description = "A tile's mesh as glTF 2.0 binary (`model/gltf-binary`): one node at the tile's \
        placement with one indexed triangle mesh (POSITION, NORMAL; a voxel chunk: two primitives, \
        opaque and transparent, with COLOR_0).",
    params(
        ("tx" = i64, Path, description = "Tile index along x"),
        ("tz" = i64, Path, description = "Tile index along z"),
        ("maxError" = Option<f64>, Query, minimum = 0, maximum = 1000, description = "The largest vertical error in metres the mesh may have at any full-detail vertex: the mesh simplified to it (kept vertices are full-detail vertices, with skirts twice the error deep along the edges). Absent or 0: full detail. Voxel chunks are exact greedy meshes at any error."),
        ("If-None-Match" = Option<String>, Header, description = "ETags the client holds: `304` if the current one is listed"),
    ),
    responses(
        (status = 200, description = "The glb file",
            headers(
                ("ETag" = String, description = "`\"<world>:<tx>:<tz>:v<version>\"` (`...:v<version>:e<maxError>` when simplified): the tile's version"),
                ("x-terrain-revision" = u64, description = "The world revision served"),
                ("x-terrain-cache" = String, description = "`hit` or `miss`"),
            ),
            content((crate::api::http::openapi::schemas::Bytes = "model/gltf-binary")),
        ),
        (status = 304, description = "The client holds the current version",
            headers(("ETag" = String), ("x-terrain-revision" = u64))),
        (status = 400, description = "A tile index that is not an integer (field `tx` / `tz`) or out of range, or a `maxError` that is not a number from 0 to 1000"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 413, description = "A tile beyond the configured limits (field `tiles`)"),
    ),
)]
pub async fn mesh_glb(
    State(state): State<Arc<ApiState>>,
    path: TilePath,
    query: Query,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let format = MeshFormat::Glb;
    serve(
        &state,
        path,
        &query,
        &headers,
        "model/gltf-binary",
        format,
        encode_glb,
    )
    .await
}

/// The JSON body of a mesh.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct MeshBody<'a> {
    tile_x: i64,
    tile_z: i64,
    version: u64,
    revision: u64,
    resolution: u32,
    min_height: f32,
    max_height: f32,
    placement: [f64; 3],
    positions: &'a [f32],
    normals: &'a [f32],
    #[serde(serialize_with = "indices")]
    #[schema(value_type = Vec<u32>)]
    indices: &'a Indices,
    /// Hyperscape: the original worker's linear RGB per vertex.
    #[serde(skip_serializing_if = "<[f32]>::is_empty")]
    colours: &'a [f32],
    /// Hyperscape: each vertex's dominant biome id.
    #[serde(skip_serializing_if = "<[u8]>::is_empty")]
    biomes: &'a [u8],
}

fn indices<S: Serializer>(indices: &&Indices, s: S) -> Result<S::Ok, S::Error> {
    match indices {
        Indices::U16(v) => s.collect_seq(v.iter()),
        Indices::U32(v) => s.collect_seq(v.iter()),
    }
}

/// A JSON body encoded at revision 0 with the request's `revision` in its place:
/// the same bytes as encoding at `revision` (the field follows `tileX`, `tileZ` and
/// `version`, whose values are numbers).
fn stamp_revision(body: &[u8], revision: u64) -> Result<Vec<u8>, ApiError> {
    const MARK: &[u8] = b"\"revision\":0";
    let at = body
        .windows(MARK.len())
        .position(|w| w == MARK)
        .ok_or_else(|| ApiError::Internal("encoded mesh JSON has no revision".into()))?;
    let digits = revision.to_string();
    let zero = at + MARK.len() - 1;
    let mut out = Vec::with_capacity(body.len() + digits.len());
    out.extend_from_slice(&body[..zero]);
    out.extend_from_slice(digits.as_bytes());
    out.extend_from_slice(&body[zero + 1..]);
    Ok(out)
}

fn encode_json(served: &ServedMesh) -> Result<Vec<u8>, String> {
    let mesh = match &*served.mesh {
        CachedMesh::Tile(mesh) => mesh,
        CachedMesh::Chunk(chunk) => return encode_chunk_json(chunk, served.revision),
    };
    let body = MeshBody {
        tile_x: mesh.key.0,
        tile_z: mesh.key.1,
        version: mesh.version,
        revision: served.revision,
        resolution: mesh.resolution,
        min_height: mesh.min_height,
        max_height: mesh.max_height,
        placement: mesh.placement,
        positions: &mesh.positions,
        normals: &mesh.normals,
        indices: &mesh.indices,
        colours: &mesh.colours,
        biomes: &mesh.biomes,
    };
    serde_json::to_vec(&body).map_err(|e| format!("encoding mesh JSON: {e}"))
}

/// `[x, y, z]` triples written as one flat array.
fn flat<S: Serializer>(values: &&[[f32; 3]], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(values.iter().flatten())
}

/// One part of a voxel chunk mesh in JSON.
#[derive(Serialize, utoipa::ToSchema)]
struct PartBody<'a> {
    #[serde(serialize_with = "flat")]
    #[schema(value_type = Vec<f32>)]
    positions: &'a [[f32; 3]],
    #[serde(serialize_with = "flat")]
    #[schema(value_type = Vec<f32>)]
    normals: &'a [[f32; 3]],
    #[serde(serialize_with = "flat")]
    #[schema(value_type = Vec<f32>)]
    colours: &'a [[f32; 3]],
    indices: &'a [u32],
}

impl<'a> PartBody<'a> {
    fn of(part: &'a MeshPart) -> Self {
        PartBody {
            positions: &part.positions,
            normals: &part.normals,
            colours: &part.colours,
            indices: &part.indices,
        }
    }
}

/// The JSON body of a voxel chunk's mesh.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ChunkMeshBody<'a> {
    tile_x: i64,
    tile_z: i64,
    version: u64,
    revision: u64,
    resolution: u32,
    min_height: f32,
    max_height: f32,
    placement: [f64; 3],
    #[serde(flatten)]
    opaque: PartBody<'a>,
    transparent: PartBody<'a>,
    quads: u64,
    visible_faces: u64,
}

fn encode_chunk_json(chunk: &ChunkMesh, revision: u64) -> Result<Vec<u8>, String> {
    let (min_height, max_height) = chunk.height_range();
    let body = ChunkMeshBody {
        tile_x: chunk.key.0,
        tile_z: chunk.key.1,
        version: chunk.version,
        revision,
        resolution: 0,
        min_height,
        max_height,
        placement: chunk.placement,
        opaque: PartBody::of(&chunk.mesh.opaque),
        transparent: PartBody::of(&chunk.mesh.transparent),
        quads: chunk.mesh.quads,
        visible_faces: chunk.mesh.visible_faces,
    };
    serde_json::to_vec(&body).map_err(|e| format!("encoding mesh JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamped_revision_gives_the_bytes_of_encoding_at_it() {
        let at = |r: u64| {
            format!(r#"{{"tileX":-1,"tileZ":0,"version":0,"revision":{r},"resolution":2}}"#)
        };
        for r in [0, 7, 10, u64::MAX] {
            let stamped = stamp_revision(at(0).as_bytes(), r).unwrap();
            assert_eq!(String::from_utf8(stamped).unwrap(), at(r));
        }
        assert!(stamp_revision(b"{}", 1).is_err());
    }
}
