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
    Router,
    extract::{Query, State, rejection::QueryRejection},
    http::{
        HeaderMap, HeaderValue, StatusCode,
        header::{ACCEPT, CONTENT_TYPE, ETAG, VARY},
    },
    response::{IntoResponse, Response},
    routing::get,
};
use serde::Serialize;
use terrain_core::voxel::{BlockKind, Column};

use crate::{
    api::{ApiError, ApiState, http::REVISION_HEADER, http_mesh::matches},
    query::mesh::{TileFields, TileVersion},
    world::World,
};

type ChunkPath = super::http_mesh::TilePath;
type QueryPairs = Result<Query<Vec<(String, String)>>, QueryRejection>;

/// The chunk routes, to merge into the HTTP router.
pub fn routes() -> Router<Arc<ApiState>> {
    Router::new()
        .route("/v1/worlds/{world}/tiles/{cx}/{cz}/blocks", get(blocks))
        .route(
            "/v1/worlds/{world}/tiles/{cx}/{cz}/instances",
            get(instances),
        )
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
    pub fn of(query: &QueryPairs, headers: &HeaderMap) -> Result<Self, ApiError> {
        if let Ok(Query(pairs)) = query {
            let mut given = pairs.iter().filter(|(k, _)| k == "format");
            match (given.next(), given.next()) {
                (Some(_), Some(_)) => {
                    return Err(ApiError::invalid("format", "given more than once"));
                }
                (Some((_, v)), None) => {
                    return match v.as_str() {
                        "json" => Ok(BlocksFormat::Json),
                        "binary" => Ok(BlocksFormat::Binary),
                        other => Err(ApiError::invalid(
                            "format",
                            format!("expected \"json\" or \"binary\", got {other:?}"),
                        )),
                    };
                }
                (None, _) => {}
            }
        } else if let Err(rejection) = query {
            return Err(ApiError::invalid("query", rejection.body_text()));
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

/// The world and chunk of a chunk path, the indices named `cx` and `cz`.
fn chunk_path(path: ChunkPath) -> Result<(String, (i64, i64)), ApiError> {
    super::http_mesh::indexed_path(path, ["cx", "cz"], "chunk")
}

/// The strong validator of one form of a chunk at `version`.
fn etag(world: &str, chunk: (i64, i64), version: u64, form: &str) -> HeaderValue {
    let tag = format!("\"{world}:{}:{}:v{version}:{form}\"", chunk.0, chunk.1);
    HeaderValue::from_str(&tag).unwrap_or_else(|_| HeaderValue::from_static("\"invalid\""))
}

/// `304 Not Modified` when the client holds the current `form` of the chunk.
fn not_modified(
    world: &World,
    chunk: (i64, i64),
    current: TileVersion,
    form: &str,
    headers: &HeaderMap,
) -> Option<Response> {
    let tag = etag(world.id(), chunk, current.version, form);
    matches(headers, &tag).then(|| {
        let head = [
            (ETAG, tag),
            (REVISION_HEADER, current.revision.into()),
            (VARY, HeaderValue::from_static("accept")),
        ];
        (StatusCode::NOT_MODIFIED, head).into_response()
    })
}

/// One column in JSON.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct ColumnBody {
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
struct BlocksBody {
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
        ("world" = String, Path, description = "World id, as `[[worlds]] id` in the configuration", example = "diorama"),
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
                (crate::api::openapi::schemas::Bytes = "application/octet-stream"),
            ),
        ),
        (status = 304, description = "The client holds the current version of this form",
            headers(("ETag" = String), ("x-terrain-revision" = u64))),
        (status = 400, description = "A chunk index that is not an integer or beyond 2^20 (field `cx` / `cz`), a bad `format`", body = crate::api::error::ErrorBody),
        (status = 404, description = "No such world (field `world`)", body = crate::api::error::ErrorBody),
        (status = 409, description = "The world is not a voxel world (`FAILED_PRECONDITION`, field `world`)", body = crate::api::error::ErrorBody),
    ),
)]
async fn blocks(
    State(state): State<Arc<ApiState>>,
    path: ChunkPath,
    query: QueryPairs,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let (world, chunk) = chunk_path(path)?;
    let world = engine.world(&world)?;
    let format = BlocksFormat::of(&query, &headers)?;
    let form = match format {
        BlocksFormat::Json => "blocks",
        BlocksFormat::Binary => "blocks.bin",
    };
    let fields = TileFields::chunk_http();
    let current = engine.chunk_version(world, chunk, &fields).await?;
    if let Some(response) = not_modified(world, chunk, current, form, &headers) {
        return Ok(response);
    }
    let answer = engine.chunk_blocks(world, chunk, &fields).await?;
    let tag = etag(world.id(), chunk, answer.version, form);
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
struct KindBody {
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
struct InstancesBody {
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
        ("world" = String, Path, description = "World id, as `[[worlds]] id` in the configuration", example = "diorama"),
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
        (status = 400, description = "A chunk index that is not an integer or beyond 2^20 (field `cx` / `cz`)", body = crate::api::error::ErrorBody),
        (status = 404, description = "No such world (field `world`)", body = crate::api::error::ErrorBody),
        (status = 409, description = "The world is not a voxel world (`FAILED_PRECONDITION`, field `world`)", body = crate::api::error::ErrorBody),
    ),
)]
async fn instances(
    State(state): State<Arc<ApiState>>,
    path: ChunkPath,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let engine = &state.engine;
    let (world, chunk) = chunk_path(path)?;
    let world = engine.world(&world)?;
    let fields = TileFields::chunk_http();
    let current = engine.chunk_version(world, chunk, &fields).await?;
    if let Some(response) = not_modified(world, chunk, current, "instances", &headers) {
        return Ok(response);
    }
    let answer = engine.chunk_instances(world, chunk, &fields).await?;
    let tag = etag(world.id(), chunk, answer.version, "instances");
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

/// One block kind of a voxel world, as `ListWorlds` reports it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BlockKindBody {
    id: u8,
    name: &'static str,
    /// sRGB 0..255.
    colour: [u8; 3],
    solid: bool,
    occludes: bool,
    jitter: f32,
}

/// The block kinds in id order.
pub(crate) fn block_kinds() -> Vec<BlockKindBody> {
    BlockKind::ALL
        .iter()
        .map(|&kind| {
            let info = kind.info();
            BlockKindBody {
                id: kind.id(),
                name: kind.name(),
                colour: info.colour,
                solid: info.solid,
                occludes: info.occludes,
                jitter: info.jitter,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use axum::extract::Path;

    use super::*;

    fn query(pairs: &[(&str, &str)]) -> QueryPairs {
        Ok(Query(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        ))
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
        let path = |cx: &str, cz: &str| Ok(Path(("w".to_string(), cx.to_string(), cz.to_string())));
        assert_eq!(
            chunk_path(path("3", "-4")).unwrap(),
            ("w".to_string(), (3, -4))
        );
        assert_eq!(chunk_path(path("x", "0")).unwrap_err().field(), Some("cx"));
        assert_eq!(
            chunk_path(path("0", "1.5")).unwrap_err().field(),
            Some("cz")
        );
    }

    #[test]
    fn the_two_block_forms_have_distinct_tags() {
        let json = etag("v", (1, -1), 3, "blocks");
        let bin = etag("v", (1, -1), 3, "blocks.bin");
        assert_eq!(json.to_str().unwrap(), "\"v:1:-1:v3:blocks\"");
        assert_ne!(json, bin);
    }
}
