//! Tile meshes over HTTP against the real server: JSON and glb equal
//! `terrain_core::mesh::build_tile` of a core `Terrain` with the same zones, ETag /
//! `If-None-Match` revalidation, carving, per-tile versions, regeneration of cached
//! tiles on change, the `mode=surface` height, and refused tile coordinates.

use terrain_tests as common;

use common::*;
use reqwest::header::{ETAG, IF_NONE_MATCH};
use serde_json::{Value, json};
use terrain_core::{
    FlatZone, Generator, Overlap, Terrain,
    mesh::{TileMesh, build_tile, surface_height},
};

const ZONES: &str = "/v1/worlds/main/flat-zones";

fn mesh_path(tx: i64, tz: i64) -> String {
    format!("/v1/worlds/main/tiles/{tx}/{tz}/mesh")
}

/// A core terrain of `main` with `zones` registered in order.
fn core_terrain(zones: &[FlatZone]) -> Terrain {
    terrain(&main_generator(), Overlap::Hyperscape, zones)
}

fn f32s(v: &Value) -> Vec<f32> {
    nums(v).into_iter().map(|x| x as f32).collect()
}

fn indices(mesh: &TileMesh) -> Vec<u64> {
    (0..mesh.indices.len())
        .map(|k| u64::from(mesh.indices.get(k).unwrap()))
        .collect()
}

/// Asserts a JSON mesh equals `want` exactly.
#[track_caller]
fn assert_mesh(body: &Value, want: &TileMesh) {
    assert_eq!(body["tileX"], want.key.0);
    assert_eq!(body["tileZ"], want.key.1);
    assert_eq!(body["version"], want.version);
    assert_eq!(body["resolution"], want.resolution);
    assert_eq!(num(&body["minHeight"]) as f32, want.min_height);
    assert_eq!(num(&body["maxHeight"]) as f32, want.max_height);
    assert_eq!(nums(&body["placement"]), want.placement);
    assert!(f32s(&body["positions"]) == want.positions, "positions");
    assert!(f32s(&body["normals"]) == want.normals, "normals");
    let got: Vec<u64> = body["indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap())
        .collect();
    assert!(got == indices(want), "indices");
}

/// `GET path` with an optional `If-None-Match`: status, ETag and body bytes.
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

/// A 30 x 30 m pad with a carved floor, centred on `(x, z)`.
fn pad(x: f64, z: f64) -> Value {
    json!({"centerX": x, "centerZ": z, "width": 30.0, "depth": 30.0, "height": 12.5,
           "blendRadius": 5.0, "carveInset": 1.0})
}

async fn put_zone(server: &TestServer, id: &str, body: &Value) -> u64 {
    let (status, answer) = server.put_json(&format!("{ZONES}/{id}"), body, None).await;
    assert!(status.is_success(), "{answer}");
    answer["revision"].as_u64().unwrap()
}

#[tokio::test]
async fn mesh_json_equals_core_build_tile() {
    let server = TestServer::start().await;
    let core = core_terrain(&[]);
    for (tx, tz) in [(0, 0), (3, -2), (-1, 5)] {
        let (status, body) = server.get(&mesh_path(tx, tz)).await;
        assert_eq!(status, 200, "{body}");
        assert_mesh(&body, &build_tile(&core, (tx, tz), 0));
        assert_eq!(body["revision"], 0);
    }
    server.stop().await;
}

#[tokio::test]
async fn etag_revalidates_until_a_change_touches_the_tile() {
    let server = TestServer::start().await;
    for suffix in ["", ".glb"] {
        let path = format!("{}{suffix}", mesh_path(1, 0));
        let (status, tag, body) = get_tagged(&server, &path, None).await;
        assert_eq!(status, 200);
        assert!(!body.is_empty());
        let (status, again, body) = get_tagged(&server, &path, Some(&tag)).await;
        assert_eq!((status, body.len()), (304, 0), "matching If-None-Match");
        assert_eq!(again, tag);
        let (status, _, _) = get_tagged(&server, &path, Some("\"other\"")).await;
        assert_eq!(status, 200, "a different tag gets the body");
    }
    let (_, before, _) = get_tagged(&server, &mesh_path(1, 0), None).await;
    let revision = put_zone(&server, "pad", &pad(100.0, 0.0)).await;
    let (status, after, body) = get_tagged(&server, &mesh_path(1, 0), Some(&before)).await;
    assert_eq!(status, 200, "the old tag no longer matches");
    assert_ne!(after, before);
    assert!(after.contains(&format!("v{revision}")), "{after}");
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["version"], revision);
    // An untouched tile keeps its tag.
    let (status, _, _) = get_tagged(&server, &mesh_path(9, 9), None).await;
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test]
async fn glb_parses_back_with_the_same_geometry() {
    let server = TestServer::start().await;
    let want = build_tile(&core_terrain(&[]), (2, -3), 0);
    let response = server
        .http
        .get(server.url(&format!("{}.glb", mesh_path(2, -3))))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "model/gltf-binary");
    let bytes = response.bytes().await.unwrap();
    let doc = gltf::Gltf::from_slice(&bytes).expect("a valid glb");
    let blob = doc.blob.as_deref().expect("binary chunk");
    let node = doc.nodes().next().expect("one node");
    assert_eq!(node.transform().decomposed().0, [200.0, 0.0, -300.0]);
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob));
    let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    assert!(positions.concat() == want.positions, "positions");
    let indices: Vec<u64> = reader
        .read_indices()
        .unwrap()
        .into_u32()
        .map(u64::from)
        .collect();
    assert!(indices == self::indices(&want), "indices");
    server.stop().await;
}

#[tokio::test]
async fn carved_cells_are_absent() {
    let server = TestServer::start().await;
    let body = pad(0.0, 0.0);
    put_zone(&server, "floor", &body).await;
    let zone = resolve(&main_generator(), "floor", &body);
    let want = build_tile(&core_terrain(&[zone]), (0, 0), 1);
    let (status, got) = server.get(&mesh_path(0, 0)).await;
    assert_eq!(status, 200, "{got}");
    assert_mesh(&got, &want);
    let full = 63 * 63 * 6;
    let n = got["indices"].as_array().unwrap().len();
    assert!(n < full && (full - n) % 6 == 0, "{n} indices");
    // 28 m of floor over 100/63 m cells: well over a hundred carved cells.
    assert!((full - n) / 6 > 100, "{} carved cells", (full - n) / 6);
    server.stop().await;
}

async fn version(server: &TestServer, tile: (i64, i64)) -> u64 {
    let (status, body) = server.get(&mesh_path(tile.0, tile.1)).await;
    assert_eq!(status, 200, "{body}");
    body["version"].as_u64().unwrap()
}

#[tokio::test]
async fn versions_are_the_last_revision_that_touched_each_tile() {
    let server = TestServer::start().await;
    let r1 = put_zone(&server, "a", &pad(0.0, 0.0)).await;
    assert_eq!(version(&server, (0, 0)).await, r1);
    assert_eq!(version(&server, (3, 0)).await, 0);
    let r2 = put_zone(&server, "b", &pad(300.0, 0.0)).await;
    assert_eq!(
        (
            version(&server, (0, 0)).await,
            version(&server, (3, 0)).await
        ),
        (r1, r2)
    );
    let (status, body) = server.delete(&format!("{ZONES}/a"), None).await;
    assert!(status.is_success(), "{body}");
    let r3 = body["revision"].as_u64().unwrap();
    assert_eq!(version(&server, (0, 0)).await, r3);
    assert_eq!(version(&server, (3, 0)).await, r2);
    assert_eq!(version(&server, (-4, 7)).await, 0);
    server.stop().await;
}

#[tokio::test]
async fn a_cached_tile_is_rebuilt_by_the_change_not_by_the_next_request() {
    let server = TestServer::start().await;
    let (status, _) = server.get(&mesh_path(0, 0)).await;
    assert_eq!(status, 200);
    let misses = r#"terrain_mesh_cache_misses_total{world="main"}"#;
    assert_eq!(server.metric(misses).await, 1.0);
    let body = pad(10.0, -5.0);
    let revision = put_zone(&server, "pad", &body).await;
    let zone = resolve(&main_generator(), "pad", &body);
    let (status, got) = server.get(&mesh_path(0, 0)).await;
    assert_eq!(status, 200);
    assert_mesh(&got, &build_tile(&core_terrain(&[zone]), (0, 0), revision));
    // Not built for the request: the commit's rebuild was in the cache, or under
    // way and the request waited for it.
    assert_eq!(server.metric(misses).await, 1.0);
    let regenerated = r#"terrain_tiles_regenerated_total{world="main"}"#;
    assert_eq!(server.metric(regenerated).await, 1.0);
    server.stop().await;
}

#[tokio::test]
async fn surface_mode_is_the_height_on_the_mesh() {
    let server = TestServer::start().await;
    let body = pad(40.0, 40.0);
    put_zone(&server, "pad", &body).await;
    let core = core_terrain(&[resolve(&main_generator(), "pad", &body)]);
    let points = [
        (0.3, 0.7),
        (12.5, -7.25),
        (40.0, 40.0),
        (57.1, 49.9),
        (-123.4, 77.7),
    ];
    for (x, z) in points {
        let path = format!("/v1/worlds/main/height?x={x}&z={z}");
        for (mode, want) in [
            ("&mode=surface", surface_height(&core, x, z)),
            ("&mode=exact", core.height(x, z)),
            ("", core.height(x, z)),
        ] {
            let (status, got) = server.get(&format!("{path}{mode}")).await;
            assert_eq!(status, 200, "{got}");
            assert_same(num(&got["height"]), want, &format!("({x}, {z}){mode}"));
        }
    }
    let answer = server.get("/v1/worlds/main/height?x=1&z=2&mode=mesh").await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("mode"));
    server.stop().await;
}

#[tokio::test]
async fn bad_tiles_are_refused_with_their_field() {
    let server = TestServer::start().await;
    let cases = [
        (
            "/v1/worlds/main/tiles/abc/0/mesh",
            400,
            "INVALID_ARGUMENT",
            Some("tx"),
        ),
        (
            "/v1/worlds/main/tiles/0/1.5/mesh.glb",
            400,
            "INVALID_ARGUMENT",
            Some("tz"),
        ),
        (
            "/v1/worlds/main/tiles/10000001/0/mesh",
            400,
            "INVALID_ARGUMENT",
            Some("tx"),
        ),
        (
            "/v1/worlds/main/tiles/0/-9223372036854775808/mesh",
            400,
            "INVALID_ARGUMENT",
            Some("tz"),
        ),
        (
            "/v1/worlds/nope/tiles/0/0/mesh",
            404,
            "NOT_FOUND",
            Some("world"),
        ),
    ];
    for (path, status_want, code, field) in cases {
        assert_http_error(&server.get(path).await, status_want, code, field);
    }
    // The last tile inside the default limit (1e9 m) is served.
    let (status, body) = server.get(&mesh_path(10_000_000, 0)).await;
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}
