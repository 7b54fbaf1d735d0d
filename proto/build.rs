//! Compiles `terrain/v1/*.proto` with protox (no system `protoc`) and generates the
//! tonic/prost code, writing the file descriptor set beside it for gRPC reflection and
//! `ghz --protoset`.

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
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)?;
    Ok(())
}
