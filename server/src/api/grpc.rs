//! The gRPC surface: `terrain.v1.TerrainService`, `grpc.health.v1.Health` and server
//! reflection (v1 and v1alpha, covering `terrain.v1` and `grpc.health.v1`), so `ghz` and
//! `grpcurl` work without a proto file.
//!
//! [`MessageLimits`]: every `terrain.v1` service (this one, `TerrainEvents`,
//! `TerrainLifecycle`) decodes and encodes messages up to the same two sizes,
//! `grpc_max_decoding_message_size` and `grpc_max_encoding_message_size`. Unset, they
//! follow the configured request limits: a request may hold `max_batch_points`
//! coordinate pairs, and an answer `max_heightmap_samples` heights, `max_batch_points`
//! heights with their zone ids, or `max_zones_per_world` zones. tonic refuses a larger
//! request with `OUT_OF_RANGE`; [`remap_oversize`] turns that into
//! `RESOURCE_EXHAUSTED` (field `request`, naming the limit and its key), the code
//! every other over-limit request gets. The flat-zone RPCs are in
//! [`super::grpc_zones`].

use std::sync::Arc;

use axum::{Router, middleware, response::Response};
use terrain_core::zones::model::MAX_ID_LEN;
use terrain_proto::v1::{
    self as pb,
    terrain_service_server::{TerrainService, TerrainServiceServer},
};
use tonic::{Code, Request, Status, service::Routes};

use crate::{
    api::{ApiError, ApiState, RouterError, grpc_blocks, grpc_mesh, grpc_zones},
    config::{ConnectionConfig, Limits},
    query::{BatchNaming, HeightmapRequest, ZoneIds},
    world::World,
};

/// Room for everything in a message besides the packed doubles (world id, tags,
/// lengths, other fields).
const MESSAGE_OVERHEAD: usize = 64 * 1024;

/// The gRPC routes, as an axum router to merge with the HTTP one.
pub fn routes(state: &Arc<ApiState>) -> Result<Router, RouterError> {
    let sizes = MessageLimits::of(state);
    let terrain = TerrainServiceServer::new(TerrainApi {
        state: Arc::clone(state),
    })
    .max_decoding_message_size(sizes.decoding)
    .max_encoding_message_size(sizes.encoding);
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(terrain_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let routes = Routes::new(terrain)
        .add_service(state.readiness.grpc_service())
        .add_service(reflection().build_v1()?)
        .add_service(reflection().build_v1alpha()?)
        .prepare();
    Ok(routes
        .into_axum_router()
        .layer(middleware::map_response(remap_oversize)))
}

/// The gRPC message sizes every `terrain.v1` service applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageLimits {
    /// Largest request message decoded, in bytes.
    pub decoding: usize,
    /// Largest answer message encoded, in bytes.
    pub encoding: usize,
}

impl MessageLimits {
    /// The configured sizes, or where unset what `limits` need.
    pub fn resolve(connections: &ConnectionConfig, limits: &Limits) -> Self {
        MessageLimits {
            decoding: connections
                .grpc_max_decoding_message_size
                .unwrap_or_else(|| max_request_bytes(limits)),
            encoding: connections
                .grpc_max_encoding_message_size
                .unwrap_or_else(|| max_answer_bytes(limits)),
        }
    }

    /// The sizes of the server behind `state`.
    pub fn of(state: &ApiState) -> Self {
        Self::resolve(&state.connections, state.engine.limits())
    }
}

/// The largest request: `max_batch_points` pairs of f64.
fn max_request_bytes(limits: &Limits) -> usize {
    limits
        .max_batch_points
        .saturating_mul(16)
        .saturating_add(MESSAGE_OVERHEAD)
}

/// The most bytes one point's zone id adds to a `GetHeights` answer: tag, length and
/// the longest id.
const ZONE_ID_BYTES: usize = 3 + MAX_ID_LEN;

/// The most bytes one zone takes in a `ListFlatZones` answer: its id, nine numbers,
/// priority, revision, tags and framing.
const FLAT_ZONE_BYTES: usize = ZONE_ID_BYTES + 9 * 9 + 11 + 11 + 8;

/// The largest answer: a heightmap (one f64 per sample), a batch (one f64 and one
/// zone id per point) or a zone listing, whichever may be largest.
fn max_answer_bytes(limits: &Limits) -> usize {
    let heightmap = limits.max_heightmap_samples.saturating_mul(8);
    let batch = limits.max_batch_points.saturating_mul(8 + ZONE_ID_BYTES);
    let zones = limits.max_zones_per_world.saturating_mul(FLAT_ZONE_BYTES);
    heightmap
        .max(batch)
        .max(zones)
        .saturating_add(MESSAGE_OVERHEAD)
}

/// Rewrites tonic's `OUT_OF_RANGE` for an over-size request into `RESOURCE_EXHAUSTED`.
pub async fn remap_oversize(response: Response) -> Response {
    let Some(status) = Status::from_header_map(response.headers()) else {
        return response;
    };
    match oversize(&status) {
        Some(status) => status.into_http(),
        None => response,
    }
}

/// tonic's prefix of an over-size request's status message.
const DECODED_TOO_LARGE: &str = "Error, decoded message length too large: ";

/// For tonic's `OUT_OF_RANGE` refusal of an over-size request, the
/// `RESOURCE_EXHAUSTED` (field `request`) to answer instead, naming the limit and its
/// key; `None` for any other status.
pub fn oversize(status: &Status) -> Option<Status> {
    if status.code() != Code::OutOfRange {
        return None;
    }
    let detail = status.message().strip_prefix(DECODED_TOO_LARGE)?;
    let reason = format!(
        "message too large for this server ({detail}; the limit is \
         grpc_max_decoding_message_size)"
    );
    Some(ApiError::too_large("request", reason).into())
}

/// `terrain.v1.TerrainService`, translating messages to [`crate::query`] calls.
#[derive(Debug, Clone)]
pub struct TerrainApi {
    state: Arc<ApiState>,
}

async fn world_message(world: &World) -> pb::World {
    let layout = world.tile_grid();
    let state = world.snapshot();
    pb::World {
        id: world.id().to_string(),
        generator: world.kind().as_str().to_string(),
        seed: world.seed(),
        tile_size: layout.size,
        tile_resolution: layout.resolution,
        revision: state.revision(),
        overlap: state.zones().overlap().as_str().to_string(),
        zones: state.zones().len() as u64,
        layout: world.layout().map(|l| pb::WorldLayout {
            pattern: l.layout.pattern.as_str().to_string(),
            spokes: l.layout.spokes.as_str().to_string(),
            chunk_size: l.layout.chunk_size,
            cell_size: l.layout.cell_size,
        }),
        voxel: world.voxel().map(grpc_blocks::voxel_parameters),
    }
}

#[tonic::async_trait]
impl TerrainService for TerrainApi {
    async fn list_worlds(
        &self,
        _request: Request<pb::ListWorldsRequest>,
    ) -> Result<tonic::Response<pb::ListWorldsResponse>, Status> {
        let mut worlds = Vec::new();
        for world in self.state.engine.worlds().iter() {
            worlds.push(world_message(world).await);
        }
        Ok(tonic::Response::new(pb::ListWorldsResponse { worlds }))
    }

    async fn get_height(
        &self,
        request: Request<pb::GetHeightRequest>,
    ) -> Result<tonic::Response<pb::GetHeightResponse>, Status> {
        let request = request.into_inner();
        let engine = &self.state.engine;
        let world = engine.world(&request.world)?;
        let mode = grpc_mesh::height_mode(request.mode)?;
        let answer = engine.height_in(world, request.x, request.z, mode).await?;
        Ok(tonic::Response::new(pb::GetHeightResponse {
            x: answer.x,
            z: answer.z,
            height: answer.height,
            revision: answer.revision,
            zone: answer.zone.unwrap_or_default(),
        }))
    }

    async fn get_heights(
        &self,
        request: Request<pb::GetHeightsRequest>,
    ) -> Result<tonic::Response<pb::GetHeightsResponse>, Status> {
        let request = request.into_inner();
        let engine = &self.state.engine;
        let world = engine.world(&request.world)?;
        let mode = super::grpc_mesh::height_mode(request.mode)?;
        let answer = engine
            .heights(
                world,
                request.coordinates,
                BatchNaming::Coordinates,
                ZoneIds::Include,
                mode,
            )
            .await?;
        Ok(tonic::Response::new(pb::GetHeightsResponse {
            heights: answer.heights,
            revision: answer.revision,
            zones: answer.zones,
        }))
    }

    async fn get_heightmap(
        &self,
        request: Request<pb::GetHeightmapRequest>,
    ) -> Result<tonic::Response<pb::GetHeightmapResponse>, Status> {
        let request = request.into_inner();
        let engine = &self.state.engine;
        let world = engine.world(&request.world)?;
        let query = HeightmapRequest {
            x0: request.x0,
            z0: request.z0,
            step: request.step,
            nx: u64::from(request.nx),
            nz: u64::from(request.nz),
        };
        let answer = engine.heightmap(world, query).await?;
        let grid = answer.grid;
        Ok(tonic::Response::new(pb::GetHeightmapResponse {
            x0: grid.x0,
            z0: grid.z0,
            step: grid.step,
            nx: request.nx,
            nz: request.nz,
            heights: answer.heights,
            revision: answer.revision,
        }))
    }

    async fn register_flat_zone(
        &self,
        request: Request<pb::RegisterFlatZoneRequest>,
    ) -> Result<tonic::Response<pb::RegisterFlatZoneResponse>, Status> {
        grpc_zones::register(&self.state, request).await
    }

    async fn unregister_flat_zone(
        &self,
        request: Request<pb::UnregisterFlatZoneRequest>,
    ) -> Result<tonic::Response<pb::UnregisterFlatZoneResponse>, Status> {
        grpc_zones::unregister(&self.state, request).await
    }

    async fn get_flat_zone(
        &self,
        request: Request<pb::GetFlatZoneRequest>,
    ) -> Result<tonic::Response<pb::GetFlatZoneResponse>, Status> {
        grpc_zones::get(&self.state, request).await
    }

    async fn list_flat_zones(
        &self,
        request: Request<pb::ListFlatZonesRequest>,
    ) -> Result<tonic::Response<pb::ListFlatZonesResponse>, Status> {
        grpc_zones::list(&self.state, request).await
    }

    async fn get_flat_zone_at(
        &self,
        request: Request<pb::GetFlatZoneAtRequest>,
    ) -> Result<tonic::Response<pb::GetFlatZoneAtResponse>, Status> {
        grpc_zones::at(&self.state, request).await
    }

    async fn get_tile_mesh(
        &self,
        request: Request<pb::GetTileMeshRequest>,
    ) -> Result<tonic::Response<pb::TileMesh>, Status> {
        grpc_mesh::get(&self.state, request).await
    }

    type GetTileMeshesStream = grpc_mesh::TileMeshStream;

    async fn get_tile_meshes(
        &self,
        request: Request<pb::GetTileMeshesRequest>,
    ) -> Result<tonic::Response<Self::GetTileMeshesStream>, Status> {
        grpc_mesh::get_many(&self.state, request).await
    }

    async fn get_chunk_blocks(
        &self,
        request: Request<pb::GetChunkBlocksRequest>,
    ) -> Result<tonic::Response<pb::ChunkBlocks>, Status> {
        grpc_blocks::get_blocks(&self.state, request).await
    }

    async fn get_chunk_instances(
        &self,
        request: Request<pb::GetChunkInstancesRequest>,
    ) -> Result<tonic::Response<pb::ChunkInstances>, Status> {
        grpc_blocks::get_instances(&self.state, request).await
    }
}
