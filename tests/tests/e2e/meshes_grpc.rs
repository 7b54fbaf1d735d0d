//! Tile meshes over gRPC against the real server: `GetTileMesh` and the streaming
//! `GetTileMeshes` carry the same bytes as the HTTP JSON (and as `build_tile`), their
//! limits and field-named errors, `GetHeight` with `mode`, one build for many
//! concurrent requests of one tile, and versions that survive a restart.

use terrain_tests as common;

use std::time::Instant;

use common::*;
use serde_json::{Value, json};
use terrain_core::{
    Generator, Overlap,
    mesh::{Indices, build_tile, surface_height},
};
use terrain_proto::v1::{
    GetHeightRequest, GetTileMeshRequest, GetTileMeshesRequest, HeightMode, IndexFormat, TileKey,
    TileMesh,
};
use tokio_stream::StreamExt;
use tonic::Code;

fn request(tx: i64, tz: i64) -> GetTileMeshRequest {
    GetTileMeshRequest {
        world: "main".into(),
        tile_x: tx,
        tile_z: tz,
        ..Default::default()
    }
}

fn le_f32(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// The bytes a mesh message should hold for a JSON mesh of the same tile.
fn assert_same_as_json(msg: &TileMesh, json: &Value) {
    assert_eq!(msg.version, json["version"].as_u64().unwrap());
    assert_eq!(msg.resolution, json["resolution"].as_u64().unwrap() as u32);
    let f32s = |v: &Value| nums(v).into_iter().map(|x| x as f32);
    assert!(
        msg.positions == le_f32(f32s(&json["positions"])),
        "positions"
    );
    assert!(msg.normals == le_f32(f32s(&json["normals"])), "normals");
    let indices: Vec<u8> = json["indices"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| (i.as_u64().unwrap() as u16).to_le_bytes())
        .collect();
    assert_eq!(msg.index_format, IndexFormat::U16 as i32);
    assert!(msg.indices == indices, "indices");
}

#[tokio::test]
async fn get_tile_mesh_carries_the_http_bytes() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let core = terrain(&main_generator(), Overlap::Hyperscape, &[]);
    for (tx, tz) in [(2, -1), (0, 0)] {
        let msg = client
            .get_tile_mesh(request(tx, tz))
            .await
            .unwrap()
            .into_inner();
        let (status, json) = server
            .get(&format!("/v1/worlds/main/tiles/{tx}/{tz}/mesh"))
            .await;
        assert_eq!(status, 200);
        assert_same_as_json(&msg, &json);
        let want = build_tile(&core, (tx, tz), 0);
        assert_eq!((msg.tile_x, msg.tile_z), (tx, tz));
        assert_eq!(msg.positions, le_f32(want.positions.iter().copied()));
        assert_eq!(
            (msg.min_height, msg.max_height),
            (want.min_height, want.max_height)
        );
        assert_eq!(msg.placement, want.placement);
        let Indices::U16(idx) = &want.indices else {
            panic!("64x64 tiles have u16 indices")
        };
        assert_eq!(msg.indices.len(), idx.len() * 2);
    }
    server.stop().await;
}

#[tokio::test]
async fn get_tile_meshes_streams_each_tile_in_order() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let tiles = [(1, 1), (-2, 0), (1, 1), (0, 3)];
    let keys = tiles.iter().map(|&(x, z)| TileKey { x, z }).collect();
    let list = GetTileMeshesRequest {
        world: "main".into(),
        tiles: keys,
        ..Default::default()
    };
    let mut stream = client.get_tile_meshes(list).await.unwrap().into_inner();
    let mut got = Vec::new();
    while let Some(msg) = stream.next().await {
        got.push(msg.unwrap());
    }
    assert_eq!(got.len(), tiles.len());
    for (msg, &(tx, tz)) in got.iter().zip(&tiles) {
        let one = client
            .get_tile_mesh(request(tx, tz))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(*msg, one, "tile ({tx}, {tz})");
    }
    server.stop().await;
}

#[tokio::test]
async fn tile_errors_name_their_field() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let err = client
        .get_tile_mesh(request(20_000_000, 0))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().starts_with("tile_x: "), "{}", err.message());
    let err = client
        .get_tile_mesh(request(0, i64::MIN))
        .await
        .unwrap_err();
    assert!(err.message().starts_with("tile_z: "), "{}", err.message());
    let many = GetTileMeshesRequest {
        world: "main".into(),
        tiles: vec![TileKey { x: 0, z: 0 }; 1025],
        ..Default::default()
    };
    let err = client.get_tile_meshes(many).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
    assert!(err.message().starts_with("tiles: "), "{}", err.message());
    let bad = GetTileMeshesRequest {
        world: "main".into(),
        tiles: vec![TileKey { x: 0, z: 0 }, TileKey { x: -1, z: i64::MAX }],
        ..Default::default()
    };
    let err = client.get_tile_meshes(bad).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message().starts_with("tiles[1].z: "),
        "{}",
        err.message()
    );
    let height = GetHeightRequest {
        world: "main".into(),
        x: 1.0,
        z: 2.0,
        mode: 9,
        revision: None,
    };
    let err = client.get_height(height).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().starts_with("mode: "), "{}", err.message());
    server.stop().await;
}

#[tokio::test]
async fn get_height_surface_mode_is_the_mesh_height() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let core = terrain(&main_generator(), Overlap::Hyperscape, &[]);
    let mut differs = false;
    for (x, z) in [(0.3, 0.7), (-77.7, 12.1), (250.25, -31.5)] {
        for (mode, want) in [
            (HeightMode::Surface, surface_height(&core, x, z)),
            (HeightMode::Exact, core.height(x, z)),
            (HeightMode::Unspecified, core.height(x, z)),
        ] {
            let req = GetHeightRequest {
                world: "main".into(),
                x,
                z,
                mode: mode as i32,
                revision: None,
            };
            let got = client.get_height(req).await.unwrap().into_inner().height;
            assert_same(got, want, &format!("({x}, {z}) {mode:?}"));
        }
        differs |= surface_height(&core, x, z) != core.height(x, z);
    }
    assert!(differs, "the surface is not the exact field at every point");
    server.stop().await;
}

#[tokio::test]
async fn concurrent_requests_for_one_tile_build_it_once() {
    let server = TestServer::start().await;
    let client = server.grpc().await;
    let mut tasks = Vec::new();
    for i in 0..32 {
        let mut client = client.clone();
        let http = server.http.clone();
        let url = server.url("/v1/worlds/main/tiles/7/-7/mesh");
        tasks.push(tokio::spawn(async move {
            if i % 2 == 0 {
                let msg = client.get_tile_mesh(request(7, -7)).await.unwrap();
                msg.into_inner().version
            } else {
                let body: Value = http.get(url).send().await.unwrap().json().await.unwrap();
                body["version"].as_u64().unwrap()
            }
        }));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap(), 0);
    }
    let text = server.metrics().await;
    let misses =
        metric_sample(&text, r#"terrain_mesh_cache_misses_total{world="main"}"#).unwrap_or(0.0);
    let hits =
        metric_sample(&text, r#"terrain_mesh_cache_hits_total{world="main"}"#).unwrap_or(0.0);
    assert_eq!((misses, hits), (1.0, 31.0), "one build, 31 shared");
    assert!(text.contains("terrain_mesh_build_seconds"), "{text}");
    assert!(metric_sample(&text, "terrain_mesh_cache_bytes").unwrap_or(0.0) > 100_000.0);
    report_latency(&server).await;
    server.stop().await;
}

/// Prints cold (built) and warm (cached) single-tile latency over gRPC and HTTP, for
/// docs/src/benchmarks.md; asserts nothing about time.
async fn report_latency(server: &TestServer) {
    let mut client = server.grpc().await;
    let mut cold = Vec::new();
    for t in 0..20 {
        let start = Instant::now();
        client.get_tile_mesh(request(t, 40)).await.unwrap();
        cold.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let start = Instant::now();
    for t in 0..200 {
        client.get_tile_mesh(request(t % 20, 40)).await.unwrap();
    }
    let warm_grpc = start.elapsed().as_secs_f64() * 1e3 / 200.0;
    let start = Instant::now();
    for t in 0..200 {
        let url = server.url(&format!("/v1/worlds/main/tiles/{}/40/mesh", t % 20));
        server
            .http
            .get(url)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
    }
    let warm_json = start.elapsed().as_secs_f64() * 1e3 / 200.0;
    cold.sort_by(f64::total_cmp);
    eprintln!(
        "tile mesh latency: cold gRPC median {:.2} ms; warm gRPC {warm_grpc:.3} ms, warm HTTP JSON {warm_json:.3} ms",
        cold[cold.len() / 2]
    );
}

#[tokio::test]
async fn versions_survive_a_restart() {
    let server = TestServer::start().await;
    let path = "/v1/worlds/main/flat-zones";
    let pad = json!({"centerX": 0.0, "centerZ": 0.0, "width": 10.0, "depth": 10.0,
                     "height": 3.0, "blendRadius": 2.0});
    let (status, _) = server.put_json(&format!("{path}/a"), &pad, None).await;
    assert!(status.is_success());
    let moved = json!({"centerX": 300.0, "centerZ": 0.0, "width": 10.0, "depth": 10.0,
                       "height": 3.0, "blendRadius": 2.0});
    let (status, _) = server.put_json(&format!("{path}/a"), &moved, None).await;
    assert!(status.is_success());
    let (status, _) = server.put_json(&format!("{path}/b"), &pad, None).await;
    assert!(status.is_success());
    let (status, _) = server.delete(&format!("{path}/b"), None).await;
    assert!(status.is_success());
    let data = server.stop_keeping_data().await;
    let server = TestServer::start_in(data, |c| {
        c.worlds = c.worlds.drain(..).map(|w| w.without_zones()).collect();
    })
    .await;
    let mut client = server.grpc().await;
    for (tile, want) in [((0, 0), 4), ((3, 0), 2), ((1, 1), 0)] {
        let msg = client.get_tile_mesh(request(tile.0, tile.1)).await.unwrap();
        assert_eq!(msg.into_inner().version, want, "tile {tile:?}");
    }
    server.stop().await;
}
