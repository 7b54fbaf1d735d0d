//! A typed async client for the terrain server's gRPC API, and a local exact replica
//! of a world. (`terrain-load`, the ghz-compatible load generator, is a crate of its
//! own under `client-sdk/load`, so a game server using this one does not build it.)
//!
//! - [`TerrainClient`] (`client.rs`, `zones.rs`, `mesh.rs`, `events.rs`,
//!   `lifecycle.rs`): connect with [`ClientBuilder`] (URL, optional bearer token,
//!   timeouts, keepalive, retry policy, a CA file for `https://`), then call every RPC of `TerrainService`,
//!   `TerrainEvents` and `TerrainLifecycle` with Rust types; zones are
//!   `terrain-core`'s [`FlatZone`] and [`ZoneSpec`].
//! - [`ClientError`]: typed failures (invalid argument with the offending field, not
//!   found, unauthenticated, unavailable, ...).
//! - [`RetryPolicy`]: exponential backoff for idempotent calls; the two mutations
//!   (`register_flat_zone`, `unregister_flat_zone`) are never retried.
//! - [`Subscription`]: an event stream that reconnects and resumes from the last
//!   revision it delivered, so every event arrives exactly once and in order, and
//!   that surfaces or performs a `resync`.
//! - Voxel worlds (`blocks.rs`): [`TerrainClient::chunk_blocks`] and
//!   [`TerrainClient::chunk_instances`]; [`LocalTerrain::chunk`] builds the same blocks
//!   locally.
//! - [`LocalTerrain`]: the world's terrain in-process, following the event stream,
//!   answering `height_at` with the server's exact bits at [`LocalTerrain::revision`].
//!
//! Everything that talks to a server needs the `net` feature (on by default: tonic,
//! tokio). Without it the crate is the replica's logic alone, with no I/O, which
//! builds for `wasm32-unknown-unknown` (client-sdk/wasm): [`Snapshot`],
//! [`SurfaceReader`], [`build_terrain`], [`check_point`], [`LocalWalk`],
//! [`LocalMover`], a world and zones read from their JSON listings ([`offline`]), and
//! the view of a replica with this process's zone changes on top ([`view`]).
//!
//! ```no_run
//! # async fn demo() -> Result<(), terrain_client::ClientError> {
//! let mut client = terrain_client::TerrainClient::connect("http://127.0.0.1:8080").await?;
//! let h = client.height("main", 10.0, -20.0).await?;
//! println!("height {} m at revision {}", h.height, h.revision);
//! let replica = terrain_client::LocalTerrain::open(client, "main").await?;
//! assert_eq!(replica.height_at(10.0, -20.0)?.to_bits(), h.height.to_bits());
//! # Ok(()) }
//! ```

#[cfg(feature = "net")]
mod blocks;
#[cfg(feature = "net")]
mod client;
mod error;
#[cfg(feature = "net")]
mod events;
#[cfg(feature = "net")]
mod lifecycle;
mod local_walk;
#[cfg(feature = "net")]
mod mesh;
pub mod offline;
#[cfg(feature = "net")]
mod replica;
#[cfg(feature = "net")]
mod retry;
mod snapshot;
#[cfg(feature = "net")]
mod subscription;
mod surface_cache;
#[cfg(feature = "net")]
pub mod tls;
mod types;
pub mod view;
mod walk;
#[cfg(feature = "net")]
mod zones;

#[cfg(feature = "net")]
pub use blocks::{ChunkBlocks, ChunkColumn, ChunkInstances, KindInstances};
#[cfg(feature = "net")]
pub use client::{BearerAuth, CONNECTION_WINDOW, ClientBuilder, STREAM_WINDOW, TerrainClient};
pub use error::ClientError;
#[cfg(feature = "net")]
pub use events::{Area, CauseKind, EventStream, StreamMessage, TileEvent};
#[cfg(feature = "net")]
pub use lifecycle::{
    CellClass, Hub, Layout, LifecycleMessage, LiveTiles, Ring, Spoke, Step, Tile, TileChange,
    TileSets, TileTransition, Viewer, ViewerTracker, ZoneClass,
};
pub use local_walk::{LocalMover, LocalWalk};
#[cfg(feature = "net")]
pub use mesh::{MeshPart, TileMesh};
#[cfg(feature = "net")]
pub use replica::{LocalTerrain, REPLICA_EVENTS, ReplicaEvent};
#[cfg(feature = "net")]
pub use retry::RetryPolicy;
pub use snapshot::{Snapshot, SurfaceReader, build_terrain, check_point};
#[cfg(feature = "net")]
pub use subscription::{ResyncMode, Subscription, SubscriptionBuilder, SubscriptionEvent};
pub use surface_cache::{HeldSurfaces, SURFACE_TILE_READS, SurfaceCache};
pub use terrain_core::{
    FlatZone,
    tiles3d::ContentRect,
    walk::Town,
    zones::{Shape, ZoneHeight, ZoneSpec},
};
pub use terrain_model::{ChangedTiles, TILE_LIST_MAX, TileRect};
pub use types::{
    Height, HeightMode, Heightmap, Heights, Registered, Unregistered, WorldInfo, WorldLayout,
    ZoneAnswer, ZoneChange, ZoneEntry, ZoneList,
};
pub use walk::{
    PathChecked, PathFound, PathMode, PointDifficulty, PointInfo, TerrainInfos, Unreachable,
};
#[cfg(feature = "net")]
pub use zones::{LIST_RESTARTS, ZonePage};

/// The README's Rust example compiles against this crate (`cargo test --doc`): the front
/// page cannot drift from the API.
#[doc = include_str!("../../README.md")]
#[cfg(all(doctest, feature = "net"))]
pub struct ReadmeExample;
