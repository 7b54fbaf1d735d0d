//! The tile mesh RPCs of `terrain.v1.TerrainService`: `GetTileMesh` and the
//! server-streaming `GetTileMeshes`.
//!
//! Bulk arrays travel as `bytes` holding little-endian values (f32 positions and
//! normals, u16 or u32 indices as `index_format` says): encoding them is a copy,
//! an order of magnitude cheaper than packed `repeated float`.
//!
//! A tile version's message is encoded once, at revision 0, and kept with its cached
//! mesh ([`crate::mesh::MeshCache::encoded`], `terrain_mesh_encodings_total{format =
//! "protobuf"}`), as the HTTP forms are. Each answer is that encoding read back, which
//! slices the arrays out of the stored bytes without copying them (`bytes` fields are
//! `Bytes`), with the request's revision stamped in.

use std::{pin::Pin, sync::Arc};

use bytes::Bytes;
use futures::{Stream, StreamExt, stream};
use prost::Message as _;
use terrain_core::{
    mesh::{Indices, TileMesh},
    voxel::MeshPart,
};
use terrain_proto::v1 as pb;
use tonic::{Request, Response, Status};

use crate::{
    api::{ApiError, ApiState},
    mesh::{CachedMesh, ChunkMesh, MeshFormat, ServedMesh},
    query::{
        QueryEngine,
        mesh::{TileFields, check_max_error},
    },
    world::World,
};

/// How gRPC names a tile's indices in errors: the request fields.
fn tile_fields() -> TileFields {
    TileFields::new("tile_x", "tile_z")
}

/// How gRPC names element `i` of a tile list: `tiles[i].x` and `tiles[i].z`.
fn element_fields(i: usize) -> TileFields {
    TileFields::new(format!("tiles[{i}].x"), format!("tiles[{i}].z"))
}

/// The stream `GetTileMeshes` answers with.
pub type TileMeshStream = Pin<Box<dyn Stream<Item = Result<pb::TileMesh, Status>> + Send>>;

/// `GetTileMesh`: one tile at its current version.
pub async fn get(
    state: &ApiState,
    request: Request<pb::GetTileMeshRequest>,
) -> Result<Response<pb::TileMesh>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = engine.world(&request.world)?;
    let tile = (request.tile_x, request.tile_z);
    let max_error = check_max_error(request.max_error, "max_error")?;
    let served = engine
        .tile_mesh_lod(world, tile, &tile_fields(), max_error)
        .await?;
    Ok(Response::new(answer(engine, world, &served).await?))
}

/// The message answering with `served`: this tile version's stored encoding (made now
/// on the compute pool if it is the first request), read back with the request's
/// revision.
async fn answer(
    engine: &QueryEngine,
    world: &World,
    served: &ServedMesh,
) -> Result<pb::TileMesh, Status> {
    let encoded: Bytes = engine
        .meshes()
        .encoded(world.id(), served, MeshFormat::Protobuf, |m| {
            Ok(message(m).encode_to_vec())
        })
        .await?;
    let mut answer = pb::TileMesh::decode(encoded)
        .map_err(|e| ApiError::Internal(format!("stored tile mesh does not decode: {e}")))?;
    answer.revision = served.revision;
    Ok(answer)
}

/// `GetTileMeshes`: every requested tile, in request order, one message each. The
/// whole list is validated before the first mesh is sent; meshes are built as the
/// client reads them, so a slow reader holds back only its own stream.
pub async fn get_many(
    state: &Arc<ApiState>,
    request: Request<pb::GetTileMeshesRequest>,
) -> Result<Response<TileMeshStream>, Status> {
    let request = request.into_inner();
    let engine = &state.engine;
    let world = Arc::clone(engine.world(&request.world)?);
    engine.check_tile_count(request.tiles.len())?;
    let max_error = check_max_error(request.max_error, "max_error")?;
    let tiles: Vec<(i64, i64)> = request.tiles.iter().map(|t| (t.x, t.z)).collect();
    for (i, &tile) in tiles.iter().enumerate() {
        engine.check_tile(&world, tile, &element_fields(i))?;
    }
    let state = Arc::clone(state);
    let meshes = stream::iter(tiles.into_iter().enumerate()).then(move |(i, tile)| {
        let state = Arc::clone(&state);
        let world = Arc::clone(&world);
        async move {
            let fields = element_fields(i);
            let served = state
                .engine
                .tile_mesh_lod(&world, tile, &fields, max_error)
                .await?;
            answer(&state.engine, &world, &served).await
        }
    });
    Ok(Response::new(Box::pin(meshes)))
}

/// The wire form of a served mesh (what [`answer`] stores, encoded).
fn message(served: &ServedMesh) -> pb::TileMesh {
    let mesh: &TileMesh = match &*served.mesh {
        CachedMesh::Tile(mesh) => mesh,
        CachedMesh::Chunk(chunk) => return chunk_message(chunk, served.revision),
    };
    let (indices, index_format) = match &mesh.indices {
        Indices::U16(v) => (
            v.iter().flat_map(|i| i.to_le_bytes()).collect(),
            pb::IndexFormat::U16,
        ),
        Indices::U32(v) => (
            v.iter().flat_map(|i| i.to_le_bytes()).collect(),
            pb::IndexFormat::U32,
        ),
    };
    pb::TileMesh {
        tile_x: mesh.key.0,
        tile_z: mesh.key.1,
        version: mesh.version,
        resolution: mesh.resolution,
        min_height: mesh.min_height,
        max_height: mesh.max_height,
        placement: mesh.placement.to_vec(),
        positions: f32_bytes(&mesh.positions),
        normals: f32_bytes(&mesh.normals),
        indices,
        index_format: index_format.into(),
        revision: served.revision,
        colours: f32_bytes(&mesh.colours),
        transparent: None,
        quads: 0,
        visible_faces: 0,
        biomes: Bytes::copy_from_slice(&mesh.biomes),
    }
}

/// A voxel chunk's mesh: the opaque part in the main fields (u32 indices), the
/// transparent one in `transparent`, `resolution` 0.
fn chunk_message(chunk: &ChunkMesh, revision: u64) -> pb::TileMesh {
    let (min_height, max_height) = chunk.height_range();
    let part = |p: &MeshPart| pb::MeshPart {
        positions: vec3_bytes(&p.positions),
        normals: vec3_bytes(&p.normals),
        colours: vec3_bytes(&p.colours),
        indices: p.indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
    };
    let opaque = part(&chunk.mesh.opaque);
    pb::TileMesh {
        tile_x: chunk.key.0,
        tile_z: chunk.key.1,
        version: chunk.version,
        resolution: 0,
        min_height,
        max_height,
        placement: chunk.placement.to_vec(),
        positions: opaque.positions,
        normals: opaque.normals,
        indices: opaque.indices,
        index_format: pb::IndexFormat::U32.into(),
        revision,
        colours: opaque.colours,
        transparent: Some(part(&chunk.mesh.transparent)),
        quads: chunk.mesh.quads,
        visible_faces: chunk.mesh.visible_faces,
        biomes: Bytes::new(),
    }
}

/// `[x, y, z]` triples as little-endian f32 bytes.
fn vec3_bytes(values: &[[f32; 3]]) -> Bytes {
    values
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// `values` as little-endian bytes.
fn f32_bytes(values: &[f32]) -> Bytes {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}
