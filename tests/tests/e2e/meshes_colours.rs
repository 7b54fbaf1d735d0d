//! Hyperscape tile meshes carry the original worker's vertex colours and biome ids on
//! every surface, equal to `terrain-core`'s bit for bit: JSON `colours`/`biomes`, gRPC
//! `TileMesh.colours`/`biomes`, and glb `COLOR_0`/`_BIOME` (which passes the Khronos
//! validator).

use terrain_tests as common;

use common::TestServer;
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet, mesh::build_tile};
use terrain_proto::v1::GetTileMeshRequest;

use common::voxel::validate_glb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hyperscape_meshes_carry_the_worker_colours_on_every_surface() {
    let server = TestServer::start().await;
    let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
    let core = build_tile(
        &Terrain::new(generator, ZoneSet::new(Overlap::Layered, 100.0)),
        (1, -1),
        0,
    );
    assert_eq!(core.colours.len(), 64 * 64 * 3);

    let (status, json) = server.get("/v1/worlds/main/tiles/1/-1/mesh").await;
    assert_eq!(status, 200);
    let colours: Vec<f32> = json["colours"]
        .as_array()
        .expect("colours")
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    assert!(
        colours
            .iter()
            .zip(&core.colours)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
    assert_eq!(colours.len(), core.colours.len());
    let biomes: Vec<u8> = json["biomes"]
        .as_array()
        .expect("biomes")
        .iter()
        .map(|v| v.as_u64().unwrap() as u8)
        .collect();
    assert_eq!(biomes, core.biomes);

    let mesh = server
        .grpc()
        .await
        .get_tile_mesh(GetTileMeshRequest {
            world: "main".into(),
            tile_x: 1,
            tile_z: -1,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let grpc: Vec<f32> = mesh
        .colours
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert!(
        grpc.iter()
            .zip(&core.colours)
            .all(|(a, b)| a.to_bits() == b.to_bits())
    );
    assert_eq!(grpc.len(), core.colours.len());
    assert_eq!(mesh.biomes, core.biomes);

    let glb = server
        .http
        .get(server.url("/v1/worlds/main/tiles/1/-1/mesh.glb"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let doc = gltf::Gltf::from_slice(&glb).expect("a glb");
    let blob = doc.blob.as_deref().unwrap();
    let primitive = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = primitive.reader(|_| Some(blob));
    let read: Vec<[f32; 3]> = reader
        .read_colors(0)
        .expect("COLOR_0")
        .into_rgb_f32()
        .collect();
    assert_eq!(read.concat(), core.colours);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tile_1_-1.glb");
    std::fs::write(&path, &glb).unwrap();
    validate_glb(&[path]);
    server.stop().await;
}
