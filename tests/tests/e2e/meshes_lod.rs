//! Simplified tile meshes (`maxError`) against the real server on both surfaces: the
//! JSON, glb and gRPC meshes equal `terrain_core::mesh::simplify_tile` of the core
//! full-detail tile with the same zones, bit for bit; each error has its own ETag
//! (`...:v<version>:e<maxError>`), revalidates with `304` and is retagged by a zone
//! over the tile; a voxel chunk is its exact mesh at any error; a bad `maxError` is
//! refused naming the field on each surface.

use terrain_tests as common;

use common::voxel::voxel_worlds;
use common::*;
use reqwest::header::{ETAG, IF_NONE_MATCH};
use serde_json::{Value, json};
use terrain_core::{
    Overlap,
    mesh::{TileMesh, build_tile, simplify_tile},
};
use terrain_proto::v1 as pb;

fn f32s(v: &Value) -> Vec<f32> {
    nums(v).into_iter().map(|x| x as f32).collect()
}

fn indices(mesh: &TileMesh) -> Vec<u64> {
    (0..mesh.indices.len())
        .map(|k| u64::from(mesh.indices.get(k).unwrap()))
        .collect()
}

#[track_caller]
fn assert_mesh(body: &Value, want: &TileMesh) {
    assert_eq!(body["version"], want.version);
    assert!(f32s(&body["positions"]) == want.positions, "positions");
    assert!(f32s(&body["normals"]) == want.normals, "normals");
    assert!(f32s(&body["colours"]) == want.colours, "colours");
    let got: Vec<u64> = body["indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap())
        .collect();
    assert!(got == indices(want), "indices");
}

async fn get_tagged(server: &TestServer, path: &str, tag: Option<&str>) -> (u16, String, Vec<u8>) {
    let mut request = server.http.get(server.url(path));
    if let Some(tag) = tag {
        request = request.header(IF_NONE_MATCH, tag);
    }
    let response = request.send().await.expect("GET");
    let status = response.status().as_u16();
    let etag = response.headers()[ETAG].to_str().unwrap().to_string();
    (status, etag, response.bytes().await.unwrap().to_vec())
}

fn pad() -> Value {
    json!({"centerX": 120.0, "centerZ": -10.0, "width": 30.0, "depth": 30.0, "height": 12.5,
           "blendRadius": 5.0, "carveInset": 1.0})
}

#[tokio::test]
async fn simplified_meshes_equal_core_on_both_surfaces_and_follow_zones() {
    let server = TestServer::start().await;
    let generator = main_generator();
    let core = terrain(&generator, Overlap::Hyperscape, &[]);
    for (tx, tz, e) in [(1, 0, 0.5), (-3, 2, 0.1), (0, 0, 2.0)] {
        let want = simplify_tile(&build_tile(&core, (tx, tz), 0), e);
        let (status, body) = server
            .get(&format!(
                "/v1/worlds/main/tiles/{tx}/{tz}/mesh?maxError={e}"
            ))
            .await;
        assert_eq!(status, 200, "{body}");
        assert_mesh(&body, &want);
        let full = build_tile(&core, (tx, tz), 0);
        assert!(want.indices.len() < full.indices.len(), "simplified");
    }
    // maxError=0 is the full-detail mesh.
    let (_, body) = server
        .get("/v1/worlds/main/tiles/1/0/mesh?maxError=0")
        .await;
    assert_mesh(&body, &build_tile(&core, (1, 0), 0));

    // gRPC: the same mesh.
    let mut grpc = server.grpc().await;
    let got = grpc
        .get_tile_mesh(pb::GetTileMeshRequest {
            world: "main".into(),
            tile_x: 1,
            tile_z: 0,
            max_error: 0.5,
        })
        .await
        .expect("GetTileMesh")
        .into_inner();
    let want = simplify_tile(&build_tile(&core, (1, 0), 0), 0.5);
    let positions: Vec<f32> = got
        .positions
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert!(positions == want.positions, "gRPC positions");

    // ETags per error; 304; a zone over the tile retags every error of it.
    let glb = "/v1/worlds/main/tiles/1/0/mesh.glb?maxError=0.5";
    let (status, tag, body) = get_tagged(&server, glb, None).await;
    assert_eq!(status, 200);
    assert!(tag.ends_with(":v0:e0.5\""), "{tag}");
    gltf::Gltf::from_slice(&body).expect("a valid glb");
    let (status, _, body) = get_tagged(&server, glb, Some(&tag)).await;
    assert_eq!((status, body.len()), (304, 0));
    let (_, other, _) = get_tagged(
        &server,
        "/v1/worlds/main/tiles/1/0/mesh.glb?maxError=1",
        None,
    )
    .await;
    assert_ne!(other, tag, "each error its own tag");

    let (status, answer) = server
        .put_json("/v1/worlds/main/flat-zones/pad", &pad(), None)
        .await;
    assert!(status.is_success(), "{answer}");
    let revision = answer["revision"].as_u64().unwrap();
    let (status, after, _) = get_tagged(&server, glb, Some(&tag)).await;
    assert_eq!(status, 200, "retagged by the zone");
    assert!(after.ends_with(&format!(":v{revision}:e0.5\"")), "{after}");
    let zone = resolve(&generator, "pad", &pad());
    let core = terrain(&generator, Overlap::Hyperscape, &[zone]);
    let (_, body) = server
        .get("/v1/worlds/main/tiles/1/0/mesh?maxError=0.5")
        .await;
    let want = simplify_tile(&build_tile(&core, (1, 0), revision), 0.5);
    assert_mesh(&body, &want);
    server.stop().await;
}

#[tokio::test]
async fn a_bad_max_error_is_refused_naming_the_field() {
    let server = TestServer::start().await;
    for bad in ["-1", "NaN", "inf", "1e9", "abc", "1001"] {
        let answer = server
            .get(&format!(
                "/v1/worlds/main/tiles/0/0/mesh.glb?maxError={bad}"
            ))
            .await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("maxError"));
    }
    let answer = server
        .get("/v1/worlds/main/tiles/0/0/mesh?maxError=1&maxError=2")
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("maxError"));
    let mut grpc = server.grpc().await;
    for bad in [f64::NAN, -0.5, 5000.0] {
        let status = grpc
            .get_tile_mesh(pb::GetTileMeshRequest {
                world: "main".into(),
                tile_x: 0,
                tile_z: 0,
                max_error: bad,
            })
            .await
            .expect_err("refused");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(
            status.message().starts_with("max_error"),
            "{}",
            status.message()
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_voxel_chunk_is_its_exact_mesh_at_any_error() {
    let server = TestServer::start_with(voxel_worlds).await;
    let (_, exact) = server.get("/v1/worlds/blocks/tiles/0/0/mesh").await;
    let (status, coarse) = server
        .get("/v1/worlds/blocks/tiles/0/0/mesh?maxError=2")
        .await;
    assert_eq!(status, 200, "{coarse}");
    assert_eq!(exact, coarse);
    server.stop().await;
}
