//! Encoded tile meshes are cached per tile version and format: two identical JSON
//! (or glb) requests encode once (`terrain_mesh_encodings_total{format}`); a change
//! elsewhere moves the world's revision but not the tile's, so the cached body is
//! served with the new `revision` stamped in; a change over the tile retags it and
//! its next request encodes the new version.

use terrain_tests as common;

use common::{
    TestServer,
    events::{put_zone, raised},
};
use serde_json::Value;

async fn body(server: &TestServer, path: &str) -> (Vec<u8>, String) {
    let response = server
        .http
        .get(server.url(path))
        .send()
        .await
        .expect("GET mesh");
    assert!(
        response.status().is_success(),
        "{path}: {}",
        response.status()
    );
    let cache = response
        .headers()
        .get("x-terrain-cache")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (response.bytes().await.expect("body").to_vec(), cache)
}

async fn encodings(server: &TestServer, format: &str) -> f64 {
    let series = format!("terrain_mesh_encodings_total{{format=\"{format}\"}}");
    server.metric(&series).await
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("mesh JSON")
}

#[tokio::test]
async fn a_warm_mesh_request_copies_the_encoded_bytes_until_the_tile_changes() {
    let server = TestServer::start().await;
    let path = "/v1/worlds/main/tiles/0/0/mesh";
    let glb = "/v1/worlds/main/tiles/0/0/mesh.glb";

    let (first, _) = body(&server, path).await;
    let (second, cache) = body(&server, path).await;
    assert_eq!(cache, "hit");
    assert_eq!(first, second, "the same bytes");
    assert_eq!(encodings(&server, "json").await, 1.0);
    let (glb_first, _) = body(&server, glb).await;
    let (glb_second, _) = body(&server, glb).await;
    assert_eq!(glb_first, glb_second);
    assert_eq!(encodings(&server, "glb").await, 1.0);

    // Far from tile (0, 0): the world's revision moves, the tile's version does not.
    put_zone(&server, "far", &raised(700.0, 700.0)).await;
    let (third, _) = body(&server, path).await;
    assert_eq!(encodings(&server, "json").await, 1.0, "not encoded again");
    let (before, after) = (json(&first), json(&third));
    assert_eq!(after["revision"], 1, "the request's revision is stamped in");
    assert_eq!(before["revision"], 0);
    let strip = |mut v: Value| {
        v.as_object_mut().expect("object").remove("revision");
        v
    };
    assert_eq!(strip(before.clone()), strip(after));

    // Over the tile: a new version, encoded once more, and then cached again.
    put_zone(&server, "near", &raised(10.0, 10.0)).await;
    let (fourth, _) = body(&server, path).await;
    let (fifth, _) = body(&server, path).await;
    assert_eq!(fourth, fifth);
    let now = json(&fourth);
    assert_eq!(
        (now["version"].as_u64(), now["revision"].as_u64()),
        (Some(2), Some(2))
    );
    assert_ne!(
        now["positions"], before["positions"],
        "the zone raised the ground"
    );
    assert_eq!(encodings(&server, "json").await, 2.0);
    let (glb_third, _) = body(&server, glb).await;
    assert_ne!(glb_third, glb_first);
    assert_eq!(encodings(&server, "glb").await, 2.0);
    server.stop().await;
}

/// Tile (0, 0) of `main`, as `GetTileMesh` answers it now.
async fn grpc_tile_0_0(
    client: &mut terrain_proto::v1::terrain_service_client::TerrainServiceClient<
        tonic::transport::Channel,
    >,
) -> terrain_proto::v1::TileMesh {
    let request = terrain_proto::v1::GetTileMeshRequest {
        world: "main".into(),
        tile_x: 0,
        tile_z: 0,
        ..Default::default()
    };
    client.get_tile_mesh(request).await.unwrap().into_inner()
}

/// `GetTileMesh` (and `GetTileMeshes`) encode a tile version's message once, as the
/// HTTP forms do: later calls read the stored encoding with their own revision
/// stamped in, the same bytes otherwise; a change over the tile encodes its new
/// version once more.
#[tokio::test]
async fn grpc_meshes_are_encoded_once_per_tile_version() {
    use terrain_proto::v1::{GetTileMeshesRequest, TileKey};
    use tokio_stream::StreamExt as _;

    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let first = grpc_tile_0_0(&mut client).await;
    let second = grpc_tile_0_0(&mut client).await;
    assert_eq!(first, second);
    assert!(!first.positions.is_empty() && !first.indices.is_empty());
    assert_eq!(encodings(&server, "protobuf").await, 1.0);
    let many = GetTileMeshesRequest {
        world: "main".into(),
        tiles: vec![TileKey { x: 0, z: 0 }, TileKey { x: 0, z: 0 }],
        ..Default::default()
    };
    let mut stream = client.get_tile_meshes(many).await.unwrap().into_inner();
    while let Some(mesh) = stream.next().await {
        assert_eq!(mesh.unwrap(), first);
    }
    assert_eq!(
        encodings(&server, "protobuf").await,
        1.0,
        "streamed from the store"
    );

    // Far from tile (0, 0): the answer carries the new revision, nothing is encoded.
    put_zone(&server, "far", &raised(700.0, 700.0)).await;
    let third = grpc_tile_0_0(&mut client).await;
    assert_eq!((first.revision, third.revision), (0, 1));
    assert_eq!(
        terrain_proto::v1::TileMesh {
            revision: 0,
            ..third
        },
        first
    );
    assert_eq!(
        encodings(&server, "protobuf").await,
        1.0,
        "not encoded again"
    );

    // Over the tile: its new version is encoded once.
    put_zone(&server, "near", &raised(10.0, 10.0)).await;
    let fourth = grpc_tile_0_0(&mut client).await;
    let fifth = grpc_tile_0_0(&mut client).await;
    assert_eq!(fourth, fifth);
    assert_eq!((fourth.version, fourth.revision), (2, 2));
    assert_ne!(
        fourth.positions, first.positions,
        "the zone raised the ground"
    );
    assert_eq!(encodings(&server, "protobuf").await, 2.0);
    server.stop().await;
}
