//! Compiles `terrain/v1/*.proto` with protox (no system `protoc`) and generates the
//! tonic/prost code, writing the file descriptor set beside it for gRPC reflection and
//! `ghz --protoset`. Every service and client uses `codec::TerrainCodec`, which
//! answers a request that does not decode with `INVALID_ARGUMENT`.

use std::{env, fs, path::PathBuf};

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = [
        "terrain/v1/terrain.proto",
        "terrain/v1/events.proto",
        "terrain/v1/lifecycle.proto",
    ];
    for proto in protos {
        println!("cargo:rerun-if-changed={proto}");
    }
    let fds = protox::compile(protos, ["."])?;
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out_dir.join("terrain_descriptor.bin"), fds.encode_to_vec())?;
    // Type names give each message its `prost::Name` (`terrain.v1.GetHeightRequest`),
    // which the codec names in its decode errors.
    let mut config = tonic_prost_build::Config::new();
    config.enable_type_names();
    // A mesh's arrays as `bytes::Bytes`: the server answers `GetTileMesh` from a tile
    // version's stored encoding, and decoding those bytes into a message slices them
    // instead of copying (clients decode the same way).
    config.bytes([".terrain.v1.TileMesh", ".terrain.v1.MeshPart"]);
    // The services only with the `grpc` feature (the messages alone build without tonic).
    let grpc = env::var_os("CARGO_FEATURE_GRPC").is_some();
    tonic_prost_build::configure()
        .build_client(grpc)
        .build_server(grpc)
        .codec_path("crate::codec::TerrainCodec")
        .compile_fds_with_config(fds, config)?;
    Ok(())
}
