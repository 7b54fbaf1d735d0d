//! A voxel world over HTTP against the real server: the world list shows its seed and
//! parameters; a chunk's blocks as JSON columns and as the compact binary form, its
//! visible instances and its greedy mesh (JSON and glb, every glb passing the Khronos
//! validator) equal `terrain-core`'s for the same zones; ETag revalidation per chunk
//! version; the same bytes after the chunk's cached mesh was evicted and rebuilt; and
//! the refusals (a block route on a hyperscape world, chunks out of
//! range, bad indices), which change nothing.

use terrain_tests as common;

use common::*;
use reqwest::header::{ACCEPT, ETAG, IF_NONE_MATCH};
use serde_json::{Value, json};
use terrain_core::{
    Generator,
    voxel::{CHUNK, Chunk},
};

use common::voxel::*;

fn chunk_path(route: &str, cx: i64, cz: i64) -> String {
    format!("/v1/worlds/{VOXEL}/tiles/{cx}/{cz}/{route}")
}

/// `GET path` with headers: status, ETag (or empty), content type and body bytes.
async fn fetch(
    server: &TestServer,
    path: &str,
    headers: &[(reqwest::header::HeaderName, &str)],
) -> (u16, String, String, Vec<u8>) {
    let mut request = server.http.get(server.url(path));
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    let response = request.send().await.expect("GET");
    let status = response.status().as_u16();
    let header = |name| {
        response
            .headers()
            .get(name)
            .map(|v: &reqwest::header::HeaderValue| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let (etag, kind) = (header(ETAG), header(reqwest::header::CONTENT_TYPE));
    (status, etag, kind, response.bytes().await.unwrap().to_vec())
}

/// Asserts the JSON columns of a blocks answer equal `chunk`'s.
#[track_caller]
fn assert_columns(body: &Value, chunk: &Chunk) {
    let columns = body["columns"].as_array().expect("columns");
    assert_eq!(columns.len(), chunk.columns().len());
    for (i, (got, want)) in columns.iter().zip(chunk.columns()).enumerate() {
        assert_eq!(got["height"], want.height, "column {i}");
        assert_eq!(got["biome"], want.biome.name(), "column {i}");
        assert_eq!(got["surface"], want.surface.name(), "column {i}");
        assert_eq!(
            got["decoration"].as_str(),
            want.decoration.map(|d| d.name()),
            "column {i}"
        );
        assert_eq!(got["waterDepth"], want.water_depth, "column {i}");
        assert_eq!(got["river"], want.river, "column {i}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worlds_list_the_seed_and_voxel_parameters() {
    let server = TestServer::start_with(voxel_worlds).await;
    let (status, body) = server.get("/v1/worlds").await;
    assert_eq!(status, 200);
    let world = &body["worlds"][0];
    assert_eq!(world["id"], VOXEL);
    assert_eq!(world["generator"], "voxel");
    assert_eq!(world["seed"], SEED);
    assert_eq!(world["tileSize"], 32.0);
    assert_eq!(world["tileResolution"], 33);
    assert_eq!(
        world["walkability"],
        json!({"name": "block-step", "biomes": [], "waterLevel": f64::from(voxel_config().sea_level),
            "maxSlope": null, "maxStep": 1.0, "towns": []})
    );
    // The `[worlds.voxel]` keys in lowerCamelCase, as every JSON field.
    let camel = |key: &str| {
        let mut parts = key.split('_');
        let first = parts.next().unwrap_or_default().to_string();
        parts.fold(first, |out, p| out + &p[..1].to_uppercase() + &p[1..])
    };
    let config = serde_json::to_value(voxel_config()).unwrap();
    let want: serde_json::Map<String, serde_json::Value> = config
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (camel(k), v.clone()))
        .collect();
    assert_eq!(world["voxel"], serde_json::Value::Object(want));
    assert_eq!(world["voxel"]["maxHeight"], voxel_config().max_height);
    assert_eq!(world["voxel"]["seaLevel"], voxel_config().sea_level);
    let kinds = world["blockKinds"].as_array().expect("blockKinds");
    assert_eq!(kinds.len(), terrain_core::voxel::BlockKind::ALL.len());
    assert_eq!(kinds[0]["name"], "air");
    // Other worlds carry neither.
    let main = &body["worlds"][1];
    assert!(
        main.get("voxel").is_none() && main.get("blockKinds").is_none(),
        "{main}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocks_are_the_core_chunk_as_json_and_binary() {
    let server = TestServer::start_with(voxel_worlds).await;
    let terrain = voxel_terrain(&[]);
    for (cx, cz) in [(0, 0), (-1, 2), (3, -4)] {
        let want = terrain.voxel_chunk(cx, cz).expect("a voxel chunk");
        let path = chunk_path("blocks", cx, cz);
        let (status, _, kind, bytes) = fetch(&server, &path, &[]).await;
        assert_eq!((status, kind.as_str()), (200, "application/json"));
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            (body["chunkX"].as_i64(), body["chunkZ"].as_i64()),
            (Some(cx), Some(cz))
        );
        assert_eq!(body["version"], 0);
        assert_eq!(body["height"], want.height());
        assert_eq!(body["totalBlocks"], want.total_blocks());
        assert_columns(&body, &want);
        let encoded = want.encode();
        assert_eq!(body["encodedBytes"], encoded.len());
        // The binary form, by Accept or by format=binary.
        let accept = [(ACCEPT, "application/octet-stream")];
        let (status, _, kind, by_accept) = fetch(&server, &path, &accept).await;
        assert_eq!((status, kind.as_str()), (200, "application/octet-stream"));
        assert!(by_accept == encoded, "binary blocks of ({cx}, {cz})");
        let (_, _, _, by_query) = fetch(&server, &format!("{path}?format=binary"), &[]).await;
        assert!(by_query == encoded);
        let decoded = Chunk::decode(&by_accept).expect("decodes");
        assert!(decoded == want, "decoded chunk ({cx}, {cz})");
        // Heights are the blocks: the top solid block of each column.
        let points: Vec<[f64; 2]> = (0..CHUNK * CHUNK)
            .map(|i| {
                let (x, z) = (cx * CHUNK + i % CHUNK, cz * CHUNK + i / CHUNK);
                [x as f64 + 0.5, z as f64 + 0.5]
            })
            .collect();
        let (_, answer) = server
            .post_json(
                &format!("/v1/worlds/{VOXEL}/heights"),
                &json!({ "points": points }),
            )
            .await;
        for (i, (h, col)) in nums(&answer["heights"])
            .iter()
            .zip(want.columns())
            .enumerate()
        {
            assert_same(*h, f64::from(col.height), &format!("height of column {i}"));
            let [x, z] = points[i];
            assert_same(*h, terrain.height(x, z), "core height");
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunk_tags_follow_versions_per_form() {
    let server = TestServer::start_with(voxel_worlds).await;
    let json_path = chunk_path("blocks", 0, 0);
    let bin_path = format!("{json_path}?format=binary");
    let inst_path = chunk_path("instances", 0, 0);
    let mut tags = Vec::new();
    for path in [&json_path, &bin_path, &inst_path] {
        let (status, tag, _, _) = fetch(&server, path, &[]).await;
        assert_eq!(status, 200);
        let (status, again, _, body) = fetch(&server, path, &[(IF_NONE_MATCH, &tag)]).await;
        assert_eq!((status, body.len()), (304, 0), "{path} revalidates");
        assert_eq!(again, tag);
        tags.push(tag);
    }
    assert_ne!(tags[0], tags[1], "the two block forms have their own tags");
    // A flat zone over the chunk: a new version, levelled columns.
    let zone = json!({"centerX": 16.0, "centerZ": 16.0, "width": 12.0, "depth": 12.0,
                      "height": 20.0, "blendRadius": 3.0});
    let (status, answer) = server
        .put_json(&format!("/v1/worlds/{VOXEL}/flat-zones/pad"), &zone, None)
        .await;
    assert!(status.is_success(), "{answer}");
    let revision = answer["revision"].as_u64().unwrap();
    let (status, tag, _, bytes) = fetch(&server, &json_path, &[(IF_NONE_MATCH, &tags[0])]).await;
    assert_eq!(status, 200, "the old tag is stale");
    assert!(tag.contains(&format!("v{revision}")), "{tag}");
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(body["version"], revision);
    let zones = vec![resolve(
        &terrain_core::WorldGenerator::new(terrain_core::GeneratorKind::Voxel, SEED).unwrap(),
        "pad",
        &zone,
    )];
    let want = voxel_terrain(&zones).voxel_chunk(0, 0).unwrap();
    assert_columns(&body, &want);
    assert_eq!(
        body["columns"][16 * 32 + 16]["height"],
        20,
        "the pad's core is level"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_are_the_core_culled_blocks() {
    let server = TestServer::start_with(voxel_worlds).await;
    let terrain = voxel_terrain(&[]);
    for (cx, cz) in [(0, 0), (2, 1)] {
        let want = terrain.voxel_instances(cx, cz).unwrap();
        let (status, body) = server.get(&chunk_path("instances", cx, cz)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["visible"], want.visible);
        assert_eq!(body["total"], want.total);
        assert!(want.visible < want.total, "culling hides blocks");
        let listed: Vec<_> = want
            .kinds
            .iter()
            .filter(|k| !k.positions.is_empty())
            .collect();
        let kinds = body["kinds"].as_array().unwrap();
        assert_eq!(kinds.len(), listed.len());
        let mut count = 0;
        for (got, want) in kinds.iter().zip(listed) {
            assert_eq!(got["kind"], want.kind.id());
            assert_eq!(got["name"], want.kind.name());
            assert_eq!(got["count"], want.positions.len());
            let colour = want.kind.info().colour;
            assert_eq!(got["baseColour"], json!(colour));
            let positions: Vec<i64> = got["positions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            let flat: Vec<i64> = want
                .positions
                .iter()
                .flatten()
                .map(|&v| i64::from(v))
                .collect();
            assert_eq!(positions, flat);
            let colours: Vec<f32> = nums(&got["colours"]).iter().map(|&v| v as f32).collect();
            let flat: Vec<f32> = want.colours.iter().flatten().copied().collect();
            assert!(colours == flat, "colours of {}", want.kind.name());
            count += want.positions.len() as u64;
        }
        assert_eq!(count, want.visible);
    }
    server.stop().await;
}

/// `GET path`: whether the mesh cache served it, and the body.
async fn fetch_cached(server: &TestServer, path: &str) -> (String, Vec<u8>) {
    let response = server.http.get(server.url(path)).send().await.expect("GET");
    assert_eq!(response.status(), 200, "{path}");
    let cache = response.headers()["x-terrain-cache"]
        .to_str()
        .expect("cache header")
        .to_string();
    (cache, response.bytes().await.expect("body").to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chunk_is_the_same_after_its_cached_mesh_is_evicted() {
    // Room for a few chunk meshes only.
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        c.limits.mesh_cache_bytes = 256 * 1024;
    })
    .await;
    let glb = chunk_path("mesh.glb", 2, -1);
    let blocks = chunk_path("blocks", 2, -1);
    let binary = [(ACCEPT, "application/octet-stream")];
    let (first, mesh) = fetch_cached(&server, &glb).await;
    assert_eq!(first, "miss");
    let (status, _, _, volume) = fetch(&server, &blocks, &binary).await;
    assert_eq!(status, 200);
    // The chunks around it, each asked for more often, push it out of the cache.
    for cx in -4..=4 {
        for cz in -4..=4 {
            if (cx, cz) != (2, -1) {
                for _ in 0..3 {
                    fetch_cached(&server, &chunk_path("mesh.glb", cx, cz)).await;
                }
            }
        }
    }
    let (again, rebuilt) = fetch_cached(&server, &glb).await;
    assert_eq!(again, "miss", "chunk (2, -1) was not evicted");
    assert!(rebuilt == mesh, "the rebuilt glb differs");
    let (_, _, _, regenerated) = fetch(&server, &blocks, &binary).await;
    assert!(
        regenerated == volume,
        "the blocks differ after the eviction"
    );
    // And both equal terrain-core's, built alone.
    let terrain = voxel_terrain(&[]);
    let chunk = terrain.voxel_chunk(2, -1).expect("a voxel chunk");
    assert!(
        volume == chunk.encode(),
        "the blocks are not terrain-core's"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn voxel_meshes_are_greedy_coloured_and_valid_gltf() {
    let server = TestServer::start_with(voxel_worlds).await;
    let terrain = voxel_terrain(&[]);
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut transparent = 0;
    for (cx, cz) in [(0, 0), (-1, 2), (3, -4), (5, 5), (-6, 1)] {
        let want = terrain.voxel_mesh(cx, cz).unwrap();
        assert!(want.quads <= want.visible_faces);
        let path = format!("/v1/worlds/{VOXEL}/tiles/{cx}/{cz}/mesh");
        let (status, body) = server.get(&path).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["resolution"], 0);
        assert_eq!(body["quads"], want.quads);
        assert_eq!(body["visibleFaces"], want.visible_faces);
        let origin = [(cx * CHUNK) as f64, 0.0, (cz * CHUNK) as f64];
        assert_eq!(nums(&body["placement"]), origin);
        let world: Vec<f32> = nums(&body["positions"])
            .chunks_exact(3)
            .flat_map(|p| {
                [
                    (p[0] + origin[0]) as f32,
                    p[1] as f32,
                    (p[2] + origin[2]) as f32,
                ]
            })
            .collect();
        let flat: Vec<f32> = want.opaque.positions.iter().flatten().copied().collect();
        assert!(world == flat, "opaque positions of ({cx}, {cz})");
        let colours: Vec<f32> = nums(&body["colours"]).iter().map(|&v| v as f32).collect();
        let flat: Vec<f32> = want.opaque.colours.iter().flatten().copied().collect();
        assert!(colours == flat, "opaque colours");
        let indices = nums(&body["transparent"]["indices"]);
        assert_eq!(indices.len(), want.transparent.indices.len());
        transparent += indices.len();
        let response = server
            .http
            .get(server.url(&format!("{path}.glb")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.headers()["x-terrain-cache"],
            "hit",
            "built once, for the JSON"
        );
        let bytes = response.bytes().await.unwrap();
        let doc = gltf::Gltf::from_slice(&bytes).expect("a glb");
        let node = doc.nodes().next().unwrap();
        assert_eq!(
            node.transform().decomposed().0,
            [origin[0] as f32, 0.0, origin[2] as f32]
        );
        let prims: Vec<_> = doc.meshes().next().unwrap().primitives().collect();
        let parts = [&want.opaque, &want.transparent];
        let parts: Vec<_> = parts.iter().filter(|p| !p.indices.is_empty()).collect();
        assert_eq!(prims.len(), parts.len());
        for prim in &prims {
            assert!(prim.get(&gltf::Semantic::Colors(0)).is_some(), "COLOR_0");
        }
        let file = dir.path().join(format!("chunk_{cx}_{cz}.glb"));
        std::fs::write(&file, &bytes).unwrap();
        files.push(file);
    }
    assert!(transparent > 0, "some chunk has a transparent part");
    validate_glb(&files);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_chunk_requests_are_refused_naming_the_field() {
    let server = TestServer::start_with(voxel_worlds).await;
    let before = server.revision(VOXEL).await;
    for route in ["blocks", "instances"] {
        let answer = server
            .get(&format!("/v1/worlds/main/tiles/0/0/{route}"))
            .await;
        assert_http_error(&answer, 409, "FAILED_PRECONDITION", Some("world"));
        let message = answer.1["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("hyperscape") && message.contains("voxel"),
            "{message}"
        );
        let answer = server
            .get(&format!("/v1/worlds/nowhere/tiles/0/0/{route}"))
            .await;
        assert_http_error(&answer, 404, "NOT_FOUND", Some("world"));
        // The voxel chunks served end at 2^20 (before 1e9 / 32 = 31,250,000).
        let answer = server.get(&chunk_path(route, 1_048_577, 0)).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("cx"));
        let answer = server.get(&chunk_path(route, 0, -31_250_001)).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("cz"));
        let (status, _) = server.get(&chunk_path(route, -1_048_576, 0)).await;
        assert_eq!(status, 200, "the edge chunk is served");
        let answer = server
            .get(&format!("/v1/worlds/{VOXEL}/tiles/x/0/{route}"))
            .await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("cx"));
        let answer = server
            .get(&format!("/v1/worlds/{VOXEL}/tiles/0/1.5/{route}"))
            .await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("cz"));
    }
    let answer = server
        .get(&format!("{}?format=xml", chunk_path("blocks", 0, 0)))
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("format"));
    let answer = server
        .get(&format!("/v1/worlds/{VOXEL}/tiles/1048577/0/mesh"))
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("tx"));
    assert_eq!(server.revision(VOXEL).await, before, "nothing changed");
    server.stop().await;
    // max_coordinate bounds the points (1e4 here), not the chunks: a viewer at x = 1e4
    // is announced chunks past 1e4 / 32 = 312.5, and those are served (issue 22; they
    // were refused before).
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        c.limits.max_coordinate = 1e4;
    })
    .await;
    let (status, _) = server.get(&chunk_path("blocks", 313, 0)).await;
    assert_eq!(status, 200);
    let (status, _) = server.get(&chunk_path("blocks", 312, -312)).await;
    assert_eq!(status, 200);
    let answer = server
        .get(&format!("/v1/worlds/{VOXEL}/height?x=10001&z=0"))
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("x"));
    server.stop().await;
}

/// The start-up error of the voxel worlds' configuration as changed by `edit`, with
/// whether the data directory was created.
async fn start_error(edit: impl FnOnce(&mut terrain_server::Config)) -> (String, bool) {
    let data = tempfile::tempdir().unwrap();
    let mut config = terrain_server::Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        data_dir: data.path().join("data"),
        ..terrain_server::Config::default()
    };
    voxel_worlds(&mut config);
    edit(&mut config);
    match terrain_server::Server::bind(config).await {
        Ok(_) => panic!("start-up should fail"),
        Err(err) => (err.to_string(), data.path().join("data").exists()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_voxel_configs_refuse_to_start_naming_the_key() {
    let (err, created) = start_error(|c| {
        c.worlds[0].voxel.as_mut().unwrap().sea_level = 64;
    })
    .await;
    assert!(err.starts_with("worlds[0].voxel.sea_level: "), "{err}");
    assert!(!created, "nothing is written");
    let (err, _) = start_error(|c| {
        c.worlds[0].voxel.as_mut().unwrap().scale = f64::NAN;
    })
    .await;
    assert!(err.starts_with("worlds[0].voxel.scale: "), "{err}");
    let (err, created) = start_error(|c| {
        c.worlds[1].voxel = Some(voxel_config());
    })
    .await;
    assert!(err.starts_with("worlds[1].voxel: "), "{err}");
    assert!(err.contains("hyperscape"), "{err}");
    assert!(!created);
    let (err, _) = start_error(|c| c.worlds[0].voxel = None).await;
    assert!(err.starts_with("worlds[0].voxel: "), "{err}");
}
