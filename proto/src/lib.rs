//! The terrain server's wire API: the `terrain.v1` protobuf messages and the tonic
//! clients and servers for `TerrainService` (heights, heightmaps, flat zones, tile
//! meshes), `TerrainEvents` (tile event subscriptions) and `TerrainLifecycle` (viewers,
//! live tiles, layout queries), generated at build time from `terrain/v1/*.proto` (no
//! system `protoc` needed). The clients, servers and their codec need the `grpc`
//! feature (on by default); without it the crate is the messages alone, with no
//! networking, for the WebAssembly build of the replica.

#[cfg(feature = "grpc")]
pub mod codec;

/// `terrain.v1`: messages, `terrain_service_{client,server}`,
/// `terrain_events_{client,server}` and `terrain_lifecycle_{client,server}` (the
/// services with the `grpc` feature only).
pub mod v1 {
    include!(concat!(env!("OUT_DIR"), "/terrain.v1.rs"));
}

/// The encoded `FileDescriptorSet` of every `terrain.v1` file: feeds gRPC server
/// reflection, and is what `terrain-server protoset` writes for `ghz --protoset`.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/terrain_descriptor.bin"));
