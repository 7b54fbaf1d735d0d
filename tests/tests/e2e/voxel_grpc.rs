//! A voxel world over gRPC and the SDK against the real server: `GetChunkBlocks` and
//! `GetChunkInstances` equal `terrain-core` and the HTTP answers, reflection lists
//! them, `GetTileMesh` carries the coloured greedy mesh, the refusals name their
//! fields; zone events name the chunks a change touched, viewer rings and the bake
//! run over chunks; and `LocalTerrain` replicates the world's heights and blocks bit
//! for bit, following a zone change.

use terrain_tests as common;

use std::{collections::BTreeSet, time::Duration};

use common::{
    TestServer,
    events::{revision, ws_connect, ws_event},
};
use serde_json::{Value, json};
use terrain_client::LocalTerrain;
use terrain_core::{
    GeneratorKind, WorldGenerator,
    voxel::{CHUNK, Chunk},
};
use terrain_proto::v1 as pb;
use tonic::Code;

use common::voxel::*;

fn blocks_request(world: &str, cx: i64, cz: i64) -> pb::GetChunkBlocksRequest {
    pb::GetChunkBlocksRequest {
        world: world.into(),
        chunk_x: cx,
        chunk_z: cz,
    }
}

fn instances_request(world: &str, cx: i64, cz: i64) -> pb::GetChunkInstancesRequest {
    pb::GetChunkInstancesRequest {
        world: world.into(),
        chunk_x: cx,
        chunk_z: cz,
    }
}

/// The `field` of a refusal's `BadRequest` detail, or its message's prefix.
fn field_of(status: &tonic::Status) -> String {
    status
        .message()
        .split(':')
        .next()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunk_rpcs_equal_core_and_http() {
    let server = TestServer::start_with(voxel_worlds).await;
    let mut grpc = server.grpc().await;
    let terrain = voxel_terrain(&[]);
    for (cx, cz) in [(0, 0), (-2, 3)] {
        let want = terrain.voxel_chunk(cx, cz).unwrap();
        let got = grpc
            .get_chunk_blocks(blocks_request(VOXEL, cx, cz))
            .await
            .expect("GetChunkBlocks")
            .into_inner();
        assert_eq!((got.chunk_x, got.chunk_z, got.version), (cx, cz, 0));
        assert_eq!(got.height, want.height());
        assert_eq!(got.total_blocks, want.total_blocks());
        assert!(got.blocks == want.encode(), "blocks of ({cx}, {cz})");
        assert_eq!(got.columns.len(), want.columns().len());
        for (g, w) in got.columns.iter().zip(want.columns()) {
            assert_eq!(g.height, w.height);
            assert_eq!(g.biome, w.biome.name());
            assert_eq!(g.surface, w.surface.name());
            assert_eq!(g.decoration, w.decoration.map(|d| d.name()).unwrap_or(""));
            assert_eq!((g.water_depth, g.river), (w.water_depth, w.river));
        }
        let (_, http) = server
            .get(&format!("/v1/worlds/{VOXEL}/tiles/{cx}/{cz}/instances"))
            .await;
        let got = grpc
            .get_chunk_instances(instances_request(VOXEL, cx, cz))
            .await
            .expect("GetChunkInstances")
            .into_inner();
        let want = terrain.voxel_instances(cx, cz).unwrap();
        assert_eq!((got.visible, got.total), (want.visible, want.total));
        assert_eq!(http["visible"], got.visible);
        let listed: Vec<_> = want
            .kinds
            .iter()
            .filter(|k| !k.positions.is_empty())
            .collect();
        assert_eq!(got.kinds.len(), listed.len());
        for (g, w) in got.kinds.iter().zip(listed) {
            assert_eq!(g.kind, u32::from(w.kind.id()));
            assert_eq!(g.count, w.positions.len() as u64);
            let positions: Vec<u8> = w
                .positions
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            assert!(g.positions == positions, "positions of {}", g.name);
            let colours: Vec<u8> = w
                .colours
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect();
            assert!(g.colours == colours, "colours of {}", g.name);
        }
    }
    // The chunk mesh over gRPC: coloured opaque part, transparent part, counts.
    let mesh = grpc
        .get_tile_mesh(pb::GetTileMeshRequest {
            world: VOXEL.into(),
            tile_x: 0,
            tile_z: 0,
            ..Default::default()
        })
        .await
        .expect("GetTileMesh")
        .into_inner();
    let want = terrain.voxel_mesh(0, 0).unwrap();
    assert_eq!(mesh.resolution, 0);
    assert_eq!(
        (mesh.quads, mesh.visible_faces),
        (want.quads, want.visible_faces)
    );
    assert_eq!(mesh.colours.len(), want.opaque.colours.len() * 12);
    assert_eq!(mesh.positions.len(), mesh.colours.len());
    let transparent = mesh.transparent.expect("a transparent part");
    assert_eq!(
        transparent.indices.len(),
        want.transparent.indices.len() * 4
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunk_rpc_refusals_name_the_field() {
    let server = TestServer::start_with(voxel_worlds).await;
    let mut grpc = server.grpc().await;
    let before = server.revision(VOXEL).await;
    let err = grpc
        .get_chunk_blocks(blocks_request("main", 0, 0))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");
    assert_eq!(field_of(&err), "world");
    let err = grpc
        .get_chunk_instances(instances_request("main", 0, 0))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");
    let err = grpc
        .get_chunk_blocks(blocks_request(VOXEL, 1_048_577, 0))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), field_of(&err)),
        (Code::InvalidArgument, "chunk_x".into())
    );
    let err = grpc
        .get_chunk_instances(instances_request(VOXEL, 0, i64::MIN))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), field_of(&err)),
        (Code::InvalidArgument, "chunk_z".into())
    );
    let err = grpc
        .get_chunk_blocks(blocks_request("nowhere", 0, 0))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    assert_eq!(server.revision(VOXEL).await, before, "nothing changed");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_and_list_worlds_describe_voxel_worlds() {
    use tokio_stream::StreamExt;
    use tonic_reflection::pb::v1::{
        ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
        server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
    };
    let server = TestServer::start_with(voxel_worlds).await;
    let mut client = ServerReflectionClient::new(server.channel().await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::FileContainingSymbol(
            "terrain.v1.TerrainService".into(),
        )),
    };
    let mut answers = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("reflection")
        .into_inner();
    let answer = answers.next().await.expect("an answer").expect("ok");
    let Some(MessageResponse::FileDescriptorResponse(files)) = answer.message_response else {
        panic!("expected file descriptors");
    };
    let methods: Vec<String> = files
        .file_descriptor_proto
        .iter()
        .map(|bytes| {
            <prost_types::FileDescriptorProto as prost::Message>::decode(&bytes[..]).unwrap()
        })
        .flat_map(|f| f.service)
        .filter(|s| s.name() == "TerrainService")
        .flat_map(|s| s.method)
        .map(|m| m.name().to_string())
        .collect();
    for name in ["GetChunkBlocks", "GetChunkInstances"] {
        assert!(methods.iter().any(|m| m == name), "{name} in {methods:?}");
    }
    let mut grpc = server.grpc().await;
    let worlds = grpc
        .list_worlds(pb::ListWorldsRequest {})
        .await
        .unwrap()
        .into_inner();
    let world = &worlds.worlds[0];
    assert_eq!((world.generator.as_str(), world.seed), ("voxel", SEED));
    let voxel = world.voxel.as_ref().expect("voxel parameters");
    let config = voxel_config();
    assert_eq!(voxel.max_height, config.max_height);
    assert_eq!(voxel.sea_level, config.sea_level);
    assert_eq!(voxel.erosion_iterations, config.erosion_iterations);
    assert_eq!(voxel.talus_threshold, config.talus_threshold);
    let listed: terrain_core::voxel::VoxelConfig =
        serde_json::from_str(&voxel.config_json).expect("config_json");
    assert_eq!(listed, config);
    assert_eq!(voxel.kinds.len(), terrain_core::voxel::BlockKind::ALL.len());
    assert!(worlds.worlds[1].voxel.is_none());
    server.stop().await;
}

/// Chunks whose blocks differ between two terrains, within `r` chunks of the origin.
fn changed_chunks(
    a: &terrain_core::Terrain,
    b: &terrain_core::Terrain,
    r: i64,
) -> BTreeSet<(i64, i64)> {
    let mut changed = BTreeSet::new();
    for cz in -r..=r {
        for cx in -r..=r {
            let (x, y): (Chunk, Chunk) = (
                a.voxel_chunk(cx, cz).unwrap(),
                b.voxel_chunk(cx, cz).unwrap(),
            );
            if x != y {
                changed.insert((cx, cz));
            }
        }
    }
    changed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zone_events_name_the_chunks_they_touch() {
    let server = TestServer::start_with(voxel_worlds).await;
    let mut ws = ws_connect(&server, VOXEL, "").await;
    // A pad across the corner of four chunks.
    let body = json!({"centerX": 30.0, "centerZ": -2.0, "width": 10.0, "depth": 8.0,
                      "height": 18.0, "blendRadius": 4.0});
    let (status, answer) = server
        .put_json(&format!("/v1/worlds/{VOXEL}/flat-zones/pad"), &body, None)
        .await;
    assert!(status.is_success(), "{answer}");
    let event = ws_event(&mut ws).await;
    assert_eq!(revision(&event), answer["revision"].as_u64().unwrap());
    let named: BTreeSet<(i64, i64)> = event["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t[0].as_i64().unwrap(), t[1].as_i64().unwrap()))
        .collect();
    let generator = WorldGenerator::new(GeneratorKind::Voxel, SEED).unwrap();
    let zone = common::resolve(&generator, "pad", &body);
    let changed = changed_chunks(&voxel_terrain(&[]), &voxel_terrain(&[zone]), 3);
    assert!(!changed.is_empty());
    assert!(
        changed.is_subset(&named),
        "changed {changed:?} named {named:?}"
    );
    for want in [(0, -1), (0, 0), (1, -1), (1, 0)] {
        assert!(named.contains(&want), "{want:?} in {named:?}");
    }
    // Each named chunk's version is the change's revision.
    for &(cx, cz) in &named {
        let (_, blocks) = server
            .get(&format!("/v1/worlds/{VOXEL}/tiles/{cx}/{cz}/blocks"))
            .await;
        assert_eq!(blocks["version"], event["revision"], "chunk ({cx}, {cz})");
    }
    server.stop().await;
}

fn tiles(v: &Value) -> Vec<(i64, i64)> {
    v.as_array()
        .expect("tile array")
        .iter()
        .map(|t| (t[0].as_i64().unwrap(), t[1].as_i64().unwrap()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewers_and_the_bake_run_over_chunks() {
    // Two chunks of warm radius around the spawn: baked before ready.
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        c.worlds[0].spawn = vec![[40.0, 40.0]];
        c.lifecycle.warm_radius = Some(1);
    })
    .await;
    for (cx, cz) in [(0, 0), (1, 1), (2, 2)] {
        let response = server
            .http
            .get(server.url(&format!("/v1/worlds/{VOXEL}/tiles/{cx}/{cz}/mesh")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["x-terrain-cache"],
            "hit",
            "chunk ({cx}, {cz}) baked"
        );
    }
    // A point viewer at (100, 10): chunk (3, 0); its sim ring is half a chunk beyond.
    let (status, rings) = server
        .put_json(
            &format!("/v1/worlds/{VOXEL}/viewers/v"),
            &json!({"x": 100.0, "z": 10.0, "viewWidth": 0.0, "viewDepth": 0.0}),
            None,
        )
        .await;
    assert_eq!(status, 200, "{rings}");
    let sim = tiles(&rings["sim"]);
    assert_eq!(sim, vec![(2, -1), (3, -1), (2, 0), (3, 0)], "{rings}");
    let active = tiles(&rings["active"]);
    assert!(
        active.contains(&(5, 2)) && active.contains(&(1, -2)),
        "{rings}"
    );
    // The active chunks get generated: their meshes become cache hits.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let response = server
            .http
            .get(server.url(&format!("/v1/worlds/{VOXEL}/tiles/5/2/mesh")))
            .send()
            .await
            .unwrap();
        if response.headers()["x-terrain-cache"] == "hit" {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "chunk (5, 2) generated"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_terrain_replicates_heights_and_blocks() {
    let server = TestServer::start_with(voxel_worlds).await;
    let mut client = server.client().await;
    let replica = LocalTerrain::open(server.client().await, VOXEL)
        .await
        .expect("replica");
    let check =
        |replica: &LocalTerrain, chunk: (i64, i64), served: &terrain_client::ChunkBlocks| {
            let local = replica.chunk(chunk.0, chunk.1).expect("a voxel replica");
            assert!(local == served.chunk, "chunk {chunk:?}");
            assert!(local.encode() == served.chunk.encode());
        };
    for chunk in [(0, 0), (1, -1), (-3, 2)] {
        let served = client
            .chunk_blocks(VOXEL, chunk.0, chunk.1)
            .await
            .expect("blocks");
        assert_eq!(served.columns.len(), (CHUNK * CHUNK) as usize);
        check(&replica, chunk, &served);
        let points: Vec<(f64, f64)> = (0..64)
            .map(|i| {
                let x = (chunk.0 * CHUNK) as f64 + f64::from(i % 8) * 4.3 + 0.25;
                let z = (chunk.1 * CHUNK) as f64 + f64::from(i / 8) * 3.9 + 0.75;
                (x, z)
            })
            .collect();
        let heights = client.heights(VOXEL, &points).await.expect("heights");
        for (&(x, z), h) in points.iter().zip(&heights.heights) {
            common::assert_same(
                replica.height_at(x, z).expect("in range"),
                *h,
                "replica height",
            );
        }
    }
    let instances = client
        .chunk_instances(VOXEL, 0, 0)
        .await
        .expect("instances");
    let want = voxel_terrain(&[]).voxel_instances(0, 0).unwrap();
    assert_eq!(
        (instances.visible, instances.total),
        (want.visible, want.total)
    );
    // A zone: the replica follows and its blocks change with the server's.
    let body = json!({"centerX": 5.0, "centerZ": 5.0, "radius": 6.0, "height": 25.0,
                      "blendRadius": 2.0});
    let (status, answer) = server
        .put_json(&format!("/v1/worlds/{VOXEL}/flat-zones/disc"), &body, None)
        .await;
    assert!(status.is_success(), "{answer}");
    let revision = answer["revision"].as_u64().unwrap();
    replica.wait_for_revision(revision).await.expect("follows");
    let served = client.chunk_blocks(VOXEL, 0, 0).await.expect("blocks");
    assert_eq!(served.version, revision);
    check(&replica, (0, 0), &served);
    assert_eq!(served.columns[5 * 32 + 5].height, 25);
    let h = client.height(VOXEL, 5.5, 5.5).await.unwrap();
    common::assert_same(
        replica.height_at(5.5, 5.5).expect("in range"),
        h.height,
        "levelled height",
    );
    server.stop().await;
}
