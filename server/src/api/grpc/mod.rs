//! The gRPC surface: `terrain.v1.TerrainService`, `terrain.v1.TerrainEvents`,
//! `terrain.v1.TerrainLifecycle`, `grpc.health.v1.Health` and server reflection (v1 and
//! v1alpha, covering `terrain.v1` and `grpc.health.v1`), so `ghz` and `grpcurl` work
//! without a proto file. [`routes`] is the one table of services, and the service
//! impls below the one table of RPCs, each handed to the module of its capability:
//!
//! | RPCs | module |
//! | --- | --- |
//! | `ListWorlds` | [`worlds`] |
//! | `GetHeight`, `GetHeights`, `GetHeightmap` | [`heights`] |
//! | `RegisterFlatZone`, `UnregisterFlatZone`, `GetFlatZone`, `ListFlatZones`, `GetFlatZoneAt` | [`zones`] |
//! | `GetTileMesh`, `GetTileMeshes` | [`mesh`] |
//! | `GetChunkBlocks`, `GetChunkInstances` | [`blocks`] |
//! | `GetTerrainInfo`, `CheckPath`, `FindPath` | [`walk`] |
//! | `TrackViewers`, `GetLiveTiles` (`TerrainLifecycle`) | [`lifecycle`] |
//! | `GetLayout`, `GetZoneClass` (`TerrainLifecycle`) | [`layout`] |
//! | `Subscribe`, `UpdateSubscription` (`TerrainEvents`) | [`events`] |
//!
//! [`MessageLimits`]: every `terrain.v1` service (this one, `TerrainEvents`,
//! `TerrainLifecycle`) decodes and encodes messages up to the same two sizes,
//! `grpc_max_decoding_message_size` and `grpc_max_encoding_message_size`. Unset, they
//! follow the configured request limits: a request may hold `max_batch_points`
//! coordinate pairs, and an answer `max_heightmap_samples` heights, `max_batch_points`
//! heights with their zone ids (or points of terrain info), or a page of zones
//! ([`crate::query::zones::PAGE_BYTES`]). tonic refuses a larger
//! request with `OUT_OF_RANGE`; [`remap_oversize`] turns that into
//! `RESOURCE_EXHAUSTED` (field `request`, naming the limit and its key), the code
//! every other over-limit request gets.

pub mod blocks;
pub mod events;
pub mod heights;
pub mod layout;
pub mod lifecycle;
pub mod mesh;
pub mod walk;
pub mod worlds;
pub mod zones;

use std::sync::Arc;

use axum::{Router, middleware, response::Response};
use terrain_core::zones::model::MAX_ID_LEN;
use terrain_proto::v1::{
    self as pb,
    terrain_lifecycle_server::{TerrainLifecycle, TerrainLifecycleServer},
    terrain_service_server::{TerrainService, TerrainServiceServer},
};
use tonic::{Code, Request, Status, Streaming, metadata::MetadataMap, service::Routes};

use crate::{
    api::{ApiError, ApiState, RouterError, access},
    config::{ConnectionConfig, Limits},
};

/// Room for everything in a message besides the packed doubles (world id, tags,
/// lengths, other fields).
const MESSAGE_OVERHEAD: usize = 64 * 1024;

/// Every gRPC service, as an axum router to merge with the HTTP one. `TerrainEvents`
/// has a route of its own ([`events::routes`]): its `Subscribe` sends pre-encoded
/// events.
pub fn routes(state: &Arc<ApiState>) -> Result<Router, RouterError> {
    let sizes = MessageLimits::of(state);
    let terrain = TerrainServiceServer::new(TerrainApi {
        state: Arc::clone(state),
    })
    .max_decoding_message_size(sizes.decoding)
    .max_encoding_message_size(sizes.encoding);
    let lifecycle = TerrainLifecycleServer::new(LifecycleApi {
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
        .add_service(lifecycle)
        .add_service(state.readiness.grpc_service())
        .add_service(reflection().build_v1()?)
        .add_service(reflection().build_v1alpha()?)
        .prepare();
    Ok(routes
        .into_axum_router()
        .layer(middleware::map_response(remap_oversize))
        .merge(events::routes(state)))
}

/// Checks a mutation's `authorization` metadata against the admin token.
pub fn authorize(state: &ApiState, metadata: &MetadataMap) -> Result<(), ApiError> {
    access::authorize(state, metadata.get("authorization").map(|v| v.as_bytes()))
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

/// The most bytes one point takes in a `GetTerrainInfo` answer: height, slope (9 each),
/// biome (the longest name, `mountains`, with tag and length), three flags (2 each),
/// the packed normal (26), the difficulty (a message of about 34 bytes with its
/// biome) and the point's own framing, rounded up.
const TERRAIN_INFO_BYTES: usize = 112;

/// The largest answer: a heightmap (one f64 per sample), a batch (one f64 and one
/// zone id per point), terrain info at as many points, or a page of zones (its zones
/// take at most `PAGE_BYTES`, or one zone alone, which takes less), whichever may be
/// largest.
fn max_answer_bytes(limits: &Limits) -> usize {
    let heightmap = limits.max_heightmap_samples.saturating_mul(8);
    let batch = limits.max_batch_points.saturating_mul(8 + ZONE_ID_BYTES);
    let info = limits.max_batch_points.saturating_mul(TERRAIN_INFO_BYTES);
    let zones = crate::query::zones::PAGE_BYTES;
    heightmap
        .max(batch)
        .max(info)
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

/// `terrain.v1.TerrainService`.
#[derive(Debug, Clone)]
pub struct TerrainApi {
    state: Arc<ApiState>,
}

type Answer<T> = Result<tonic::Response<T>, Status>;

#[tonic::async_trait]
impl TerrainService for TerrainApi {
    async fn list_worlds(
        &self,
        request: Request<pb::ListWorldsRequest>,
    ) -> Answer<pb::ListWorldsResponse> {
        worlds::list(&self.state, request).await
    }

    async fn get_height(
        &self,
        request: Request<pb::GetHeightRequest>,
    ) -> Answer<pb::GetHeightResponse> {
        heights::height(&self.state, request).await
    }

    async fn get_heights(
        &self,
        request: Request<pb::GetHeightsRequest>,
    ) -> Answer<pb::GetHeightsResponse> {
        heights::heights(&self.state, request).await
    }

    async fn get_heightmap(
        &self,
        request: Request<pb::GetHeightmapRequest>,
    ) -> Answer<pb::GetHeightmapResponse> {
        heights::heightmap(&self.state, request).await
    }

    async fn register_flat_zone(
        &self,
        request: Request<pb::RegisterFlatZoneRequest>,
    ) -> Answer<pb::RegisterFlatZoneResponse> {
        zones::register(&self.state, request).await
    }

    async fn unregister_flat_zone(
        &self,
        request: Request<pb::UnregisterFlatZoneRequest>,
    ) -> Answer<pb::UnregisterFlatZoneResponse> {
        zones::unregister(&self.state, request).await
    }

    async fn get_flat_zone(
        &self,
        request: Request<pb::GetFlatZoneRequest>,
    ) -> Answer<pb::GetFlatZoneResponse> {
        zones::get(&self.state, request).await
    }

    async fn list_flat_zones(
        &self,
        request: Request<pb::ListFlatZonesRequest>,
    ) -> Answer<pb::ListFlatZonesResponse> {
        zones::list(&self.state, request).await
    }

    async fn get_flat_zone_at(
        &self,
        request: Request<pb::GetFlatZoneAtRequest>,
    ) -> Answer<pb::GetFlatZoneAtResponse> {
        zones::at(&self.state, request).await
    }

    async fn get_tile_mesh(
        &self,
        request: Request<pb::GetTileMeshRequest>,
    ) -> Answer<pb::TileMesh> {
        mesh::get(&self.state, request).await
    }

    type GetTileMeshesStream = mesh::TileMeshStream;

    async fn get_tile_meshes(
        &self,
        request: Request<pb::GetTileMeshesRequest>,
    ) -> Answer<Self::GetTileMeshesStream> {
        mesh::get_many(&self.state, request).await
    }

    async fn get_chunk_blocks(
        &self,
        request: Request<pb::GetChunkBlocksRequest>,
    ) -> Answer<pb::ChunkBlocks> {
        blocks::get_blocks(&self.state, request).await
    }

    async fn get_chunk_instances(
        &self,
        request: Request<pb::GetChunkInstancesRequest>,
    ) -> Answer<pb::ChunkInstances> {
        blocks::get_instances(&self.state, request).await
    }

    async fn get_terrain_info(
        &self,
        request: Request<pb::GetTerrainInfoRequest>,
    ) -> Answer<pb::GetTerrainInfoResponse> {
        walk::terrain_info(&self.state, request).await
    }

    async fn check_path(
        &self,
        request: Request<pb::CheckPathRequest>,
    ) -> Answer<pb::CheckPathResponse> {
        walk::check_path(&self.state, request).await
    }

    async fn find_path(
        &self,
        request: Request<pb::FindPathRequest>,
    ) -> Answer<pb::FindPathResponse> {
        walk::find_path(&self.state, request).await
    }

    async fn get_walk_grid(
        &self,
        request: Request<pb::GetWalkGridRequest>,
    ) -> Answer<pb::GetWalkGridResponse> {
        walk::walk_grid(&self.state, request).await
    }
}

/// `terrain.v1.TerrainLifecycle`: viewers and live tiles, and the layout RPCs the
/// proto places in this service.
#[derive(Debug, Clone)]
pub struct LifecycleApi {
    state: Arc<ApiState>,
}

#[tonic::async_trait]
impl TerrainLifecycle for LifecycleApi {
    type TrackViewersStream = lifecycle::EventStream;

    async fn track_viewers(
        &self,
        request: Request<Streaming<pb::ViewerUpdate>>,
    ) -> Answer<Self::TrackViewersStream> {
        lifecycle::track_viewers(&self.state, request).await
    }

    async fn get_live_tiles(
        &self,
        request: Request<pb::GetLiveTilesRequest>,
    ) -> Answer<pb::LiveTiles> {
        lifecycle::live_tiles(&self.state, request).await
    }

    async fn get_layout(
        &self,
        request: Request<pb::GetLayoutRequest>,
    ) -> Answer<pb::GetLayoutResponse> {
        layout::get_layout(&self.state, request).await
    }

    async fn get_zone_class(
        &self,
        request: Request<pb::GetZoneClassRequest>,
    ) -> Answer<pb::GetZoneClassResponse> {
        layout::get_zone_class(&self.state, request).await
    }
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;

    /// The largest legal zone in protobuf (a mask of `MAX_MASK_TILES` tiles, every
    /// index of the largest magnitude, the longest id) takes less than a page's byte
    /// budget, so no page of zones is larger than `PAGE_BYTES` and its envelope: what
    /// `max_answer_bytes` counts on.
    #[test]
    fn the_largest_zone_fits_a_page() {
        let zone = pb::FlatZone {
            id: "z".repeat(MAX_ID_LEN),
            center_x: -1e9,
            center_z: -1e9,
            width: Some(1e4),
            depth: Some(1e4),
            height: Some(-1e9),
            blend_radius: 1e4,
            carve_inset: Some(1e4),
            priority: i32::MIN,
            revision: u64::MAX,
            walkable: Some(false),
            tile_mask: vec![-1_000_000_000; 2 * terrain_core::zones::MAX_MASK_TILES],
            ..Default::default()
        };
        let page = pb::ListFlatZonesResponse {
            zones: vec![zone],
            revision: u64::MAX,
            epoch: "f".repeat(16),
            next_page_token: "z".repeat(256),
        };
        let len = page.encoded_len();
        assert!(len < crate::query::zones::PAGE_BYTES, "{len} bytes");
        assert!(len + MESSAGE_OVERHEAD <= max_answer_bytes(&Limits::default()));
    }

    /// The largest point of terrain info, framed as an element of the answer, fits in
    /// [`TERRAIN_INFO_BYTES`].
    #[test]
    fn the_largest_terrain_info_point_fits_its_budget() {
        let point = pb::TerrainInfo {
            height: -1234.5678,
            biome: "mountains".into(),
            slope: 0.123,
            underwater: true,
            walkable: true,
            reason: pb::WalkReason::Water.into(),
            normal: vec![-0.3, 0.9, -0.1],
            difficulty: Some(pb::Difficulty {
                level: 1000,
                scalar: 0.999,
                biome: "mountains".into(),
                tier: 3.0,
                is_safe: true,
            }),
        };
        let answer = pb::GetTerrainInfoResponse {
            points: vec![point],
            revision: 0,
        };
        assert!(
            answer.encoded_len() <= TERRAIN_INFO_BYTES,
            "{} bytes",
            answer.encoded_len()
        );
    }
}
