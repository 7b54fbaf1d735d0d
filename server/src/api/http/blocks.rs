//! The voxel chunk routes of the HTTP surface: a chunk's blocks and its visible
//! instances. Voxel worlds only; any other world is `409 FAILED_PRECONDITION`
//! (field `world`), chunk indices beyond 2^20 (`terrain_core::voxel::MAX_CHUNK`) are `400` (fields `cx`,
//! `cz`).
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/worlds/{world}/tiles/{cx}/{cz}/blocks` | `{"chunkX", "chunkZ", "version", "revision", "height", "totalBlocks", "encodedBytes", "columns": [{"height", "biome", "surface", "decoration", "waterDepth", "river"}]}`, columns index `z * 32 + x` |
//! | the same with `?format=binary` or `Accept: application/octet-stream` | the chunk's compact binary form (`Chunk::encode`), `application/octet-stream` |
//! | `GET /v1/worlds/{world}/tiles/{cx}/{cz}/instances` | `{"chunkX", "chunkZ", "version", "revision", "visible", "total", "kinds": [{"kind", "name", "count", "baseColour", "positions", "colours"}]}` |
//!
//! `format` is `json` (the default) or `binary`; it wins over `Accept`. Like the mesh
//! routes, every answer sends `ETag: "<world>:<cx>:<cz>:v<version>:<form>"` (`form`:
//! `blocks`, `blocks.bin` or `instances`, so the two block forms never share a tag)
//! and `x-terrain-revision`, and a request whose `If-None-Match` lists the current tag
//! gets `304 Not Modified` without anything being built.

use std::sync::Arc;

use axum::{
    extract::State,
    http::{
        HeaderMap, HeaderValue,
        header::{ACCEPT, CONTENT_TYPE, ETAG, VARY},
    },
    response::{IntoResponse, Response},
};
use serde::Serialize;
use terrain_core::voxel::{BlockKind, Column};

use super::{
    REVISION_HEADER,
    conditional::{self, tile_etag},
    extract::{ChunkPath, Query},
};
use crate::{
    api::{ApiError, ApiState},
    query::mesh::{TileFields, TileVersion},
    world::World,
};

/// How HTTP names a chunk's indices in errors: the path segments `cx` and `cz`.
fn chunk_fields() -> TileFields {
    TileFields::new("cx", "cz")
}

/// How the blocks route answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlocksFormat {
    /// The columns as JSON.
    Json,
    /// The chunk's compact binary form.
    Binary,
}

impl BlocksFormat {
    /// `format=json|binary` if given (once), else `Accept` naming
    /// `application/octet-stream` for binary, else JSON.
    pub fn of(query: &Query, headers: &HeaderMap) -> Result<Self, ApiError> {
        match query.at_most_once("format")? {
            Some("json") => return Ok(BlocksFormat::Json),
            Some("binary") => return Ok(BlocksFormat::Binary),
            Some(other) => {
                return Err(ApiError::invalid(
                    "format",
                    format!("expected \"json\" or \"binary\", got {other:?}"),
                ));
            }
            None => {}
        }
        let binary = headers
            .get_all(ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| t.split(';').next().map(str::trim) == Some("application/octet-stream"));
        Ok(if binary {
            BlocksFormat::Binary
        } else {
            BlocksFormat::Json
        })
    }
}

/// `304 Not Modified` when the client holds the current `form` of the chunk.
fn not_modified(
    world: &World,
    chunk: (i64, i64),
    current: TileVersion,
    form: &str,
    headers: &HeaderMap,
) -> Option<Response> {
    let tag = tile_etag(world.id(), chunk, current.version, Some(form));
    let vary = (VARY, HeaderValue::from_static("accept"));
    conditional::not_modified(headers, &tag, current.revision, Some(vary))
}

/// One column in JSON.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ColumnBody {
    height: i32,
    biome: &'static str,
    surface: &'static str,
    decoration: Option<&'static str>,
    water_depth: u32,
    river: bool,
}

impl From<&Column> for ColumnBody {
    fn from(c: &Column) -> Self {
        ColumnBody {
            height: c.height,
            biome: c.biome.name(),
            surface: c.surface.name(),
            decoration: c.decoration.map(|d| d.name()),
            water_depth: c.water_depth,
            river: c.river,
        }
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlocksBody {
    chunk_x: i64,
    chunk_z: i64,
    version: u64,
    revision: u64,
    height: u32,
    total_blocks: u64,
    /// The size of the binary form, for comparison with one byte per block.
    encoded_bytes: usize,
    columns: Vec<ColumnBody>,
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/tiles/{cx}/{cz}/blocks",
    tag = "voxel",
    description = "A voxel chunk's blocks: as JSON, its 32 x 32 columns (index `z * 32 + x`); in the \
        binary form (`format=binary`, or `Accept: application/octet-stream`), the chunk's compact \
        encoding (`Chunk::encode`, little-endian): magic `VXC1`, version 1, `cx` and `cz` (i64), \
        `height` (u8), a palette of the block ids present (u8 length, ids ascending), then the \
        1024 columns (index `z * 32 + x`), each a 5-byte record (height, biome/river/decoration, \
        surface, water depth, run count) and runs bottom up (palette index, length), and an \
        FNV-1a 32-bit checksum of everything before it.",
    params(
        ("cx" = i64, Path, description = "Chunk index along x (32 blocks a chunk)"),
        ("cz" = i64, Path, description = "Chunk index along z"),
        ("format" = Option<String>, Query, description = "`json` (default) or `binary`; wins over `Accept`"),
        ("If-None-Match" = Option<String>, Header, description = "ETags the client holds"),
    ),
    responses(
        (status = 200, description = "The chunk's blocks",
            headers(
                ("ETag" = String, description = "`\"<world>:<cx>:<cz>:v<version>:<form>\"`"),
                ("x-terrain-revision" = u64, description = "The world revision served"),
            ),
            content(
                (BlocksBody = "application/json"),
                (crate::api::http::openapi::schemas::Bytes = "application/octet-stream"),
            ),
        ),
        (status = 304, description = "The client holds the current version of this form",
            headers(("ETag" = String), ("x-terrain-revision" = u64))),
        (status = 400, description = "A chunk index that is not an integer or beyond 2^20 (field `cx` / `cz`), a bad `format`"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = "The world is not a voxel world (`FAILED_PRECONDITION`, field `world`)"),
    ),
)]
pub async fn blocks(
    State(state): State<Arc<ApiState>>,
    ChunkPath { world, chunk }: ChunkPath,
    query: Query,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let format = BlocksFormat::of(&query, &headers)?;
    let form = match format {
        BlocksFormat::Json => "blocks",
        BlocksFormat::Binary => "blocks.bin",
    };
    let fields = chunk_fields();
    let current = engine.chunk_version(world, chunk, &fields).await?;
    if let Some(response) = not_modified(world, chunk, current, form, &headers) {
        return Ok(response);
    }
    let answer = engine.chunk_blocks(world, chunk, &fields).await?;
    let tag = tile_etag(world.id(), chunk, answer.version, Some(form));
    let revision = HeaderValue::from(answer.revision);
    let (content_type, body) = engine
        .compute()
        .run(move || {
            let encoded = answer.chunk.encode();
            match format {
                BlocksFormat::Binary => Ok(("application/octet-stream", encoded)),
                BlocksFormat::Json => {
                    let body = BlocksBody {
                        chunk_x: answer.chunk.cx(),
                        chunk_z: answer.chunk.cz(),
                        version: answer.version,
                        revision: answer.revision,
                        height: answer.chunk.height(),
                        total_blocks: answer.chunk.total_blocks(),
                        encoded_bytes: encoded.len(),
                        columns: answer
                            .chunk
                            .columns()
                            .iter()
                            .map(ColumnBody::from)
                            .collect(),
                    };
                    serde_json::to_vec(&body)
                        .map(|b| ("application/json", b))
                        .map_err(|e| ApiError::Internal(format!("encoding blocks JSON: {e}")))
                }
            }
        })
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))??;
    let head = [
        (CONTENT_TYPE, HeaderValue::from_static(content_type)),
        (ETAG, tag),
        (REVISION_HEADER, revision),
        (VARY, HeaderValue::from_static("accept")),
    ];
    Ok((head, body).into_response())
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KindBody {
    kind: u8,
    name: &'static str,
    count: usize,
    /// sRGB 0..255.
    base_colour: [u8; 3],
    /// World block coordinates, `x, y, z` per instance.
    positions: Vec<i32>,
    /// Linear RGB 0..1, `r, g, b` per instance.
    colours: Vec<f32>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstancesBody {
    chunk_x: i64,
    chunk_z: i64,
    version: u64,
    revision: u64,
    visible: u64,
    total: u64,
    kinds: Vec<KindBody>,
}

fn kind_body(kind: BlockKind, positions: &[[i32; 3]], colours: &[[f32; 3]]) -> KindBody {
    KindBody {
        kind: kind.id(),
        name: kind.name(),
        count: positions.len(),
        base_colour: kind.info().colour,
        positions: positions.iter().flatten().copied().collect(),
        colours: colours.iter().flatten().copied().collect(),
    }
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/tiles/{cx}/{cz}/instances",
    tag = "voxel",
    params(
        ("cx" = i64, Path, description = "Chunk index along x (32 blocks a chunk)"),
        ("cz" = i64, Path, description = "Chunk index along z"),
        ("If-None-Match" = Option<String>, Header, description = "ETags the client holds"),
    ),
    responses(
        (status = 200, description = "The chunk's visible blocks, per kind, for instanced drawing",
            headers(
                ("ETag" = String, description = "`\"<world>:<cx>:<cz>:v<version>:<form>\"`"),
                ("x-terrain-revision" = u64, description = "The world revision served"),
            ),
            body = InstancesBody,
        ),
        (status = 304, description = "The client holds the current version of this form",
            headers(("ETag" = String), ("x-terrain-revision" = u64))),
        (status = 400, description = "A chunk index that is not an integer or beyond 2^20 (field `cx` / `cz`)"),
        (status = 404, description = "No such world (field `world`)"),
        (status = 409, description = "The world is not a voxel world (`FAILED_PRECONDITION`, field `world`)"),
    ),
)]
pub async fn instances(
    State(state): State<Arc<ApiState>>,
    ChunkPath { world, chunk }: ChunkPath,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let world = engine.world(&world)?;
    let fields = chunk_fields();
    let current = engine.chunk_version(world, chunk, &fields).await?;
    if let Some(response) = not_modified(world, chunk, current, "instances", &headers) {
        return Ok(response);
    }
    let answer = engine.chunk_instances(world, chunk, &fields).await?;
    let tag = tile_etag(world.id(), chunk, answer.version, Some("instances"));
    let revision = HeaderValue::from(answer.revision);
    let body = engine
        .compute()
        .run(move || {
            let a = &answer;
            let body = InstancesBody {
                chunk_x: a.key.0,
                chunk_z: a.key.1,
                version: a.version,
                revision: a.revision,
                visible: a.instances.visible,
                total: a.instances.total,
                kinds: a
                    .instances
                    .kinds
                    .iter()
                    .filter(|k| !k.positions.is_empty())
                    .map(|k| kind_body(k.kind, &k.positions, &k.colours))
                    .collect(),
            };
            serde_json::to_vec(&body)
                .map_err(|e| ApiError::Internal(format!("encoding instances JSON: {e}")))
        })
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))??;
    let head = [
        (CONTENT_TYPE, HeaderValue::from_static("application/json")),
        (ETAG, tag),
        (REVISION_HEADER, revision),
    ];
    Ok((head, body).into_response())
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn query(pairs: &[(&str, &str)]) -> Query {
        Query::from_pairs(pairs)
    }

    #[test]
    fn format_comes_from_the_query_then_accept() {
        let none = HeaderMap::new();
        let mut octets = HeaderMap::new();
        octets.insert(
            ACCEPT,
            HeaderValue::from_static("text/html, application/octet-stream;q=0.9"),
        );
        assert_eq!(BlocksFormat::of(&query(&[]), &none), Ok(BlocksFormat::Json));
        assert_eq!(
            BlocksFormat::of(&query(&[]), &octets),
            Ok(BlocksFormat::Binary)
        );
        assert_eq!(
            BlocksFormat::of(&query(&[("format", "binary")]), &none),
            Ok(BlocksFormat::Binary)
        );
        assert_eq!(
            BlocksFormat::of(&query(&[("format", "json")]), &octets),
            Ok(BlocksFormat::Json)
        );
        let err = BlocksFormat::of(&query(&[("format", "xml")]), &none).unwrap_err();
        assert_eq!(err.field(), Some("format"));
        let err =
            BlocksFormat::of(&query(&[("format", "json"), ("format", "json")]), &none).unwrap_err();
        assert_eq!(err.field(), Some("format"));
    }

    #[test]
    fn chunk_paths_name_cx_and_cz() {
        let path = |cx: &str, cz: &str| {
            crate::api::http::extract::path_indices([cx, cz], ["cx", "cz"], "chunk")
        };
        assert_eq!(path("3", "-4").unwrap(), (3, -4));
        assert_eq!(path("x", "0").unwrap_err().field(), Some("cx"));
        assert_eq!(path("0", "1.5").unwrap_err().field(), Some("cz"));
    }
}
