//! Small answers that must be exact: a query key a route does not take is refused
//! naming it (as an unknown body field is), the movement routes honour a `revision`
//! given in the query string as `/heights` does, terrain info needs a point, a tileset
//! content has one URL and a refusal names the index at fault, and a simplified mesh
//! never has more vertices than full detail.

use terrain_tests as common;

use common::{events::put_zone, *};
use serde_json::{Value, json};
use terrain_proto::v1 as pb;

/// A raised pad by the spawn: a change that moves the revision on.
fn pad(x: f64) -> Value {
    json!({"centerX": x, "centerZ": 20.0, "width": 6.0, "depth": 6.0,
           "heightOffset": 2.0, "blendRadius": 1.5})
}

/// Sends `method path` (a POST with a small JSON body of the route's shape); answers
/// the status and body.
async fn send(server: &TestServer, method: &str, path: &str) -> (u16, Value) {
    let url = server.url(path);
    let body = if path.contains("paths/find") {
        r#"{"from": [0.5, 0.5], "to": [2.5, 0.5]}"#
    } else {
        r#"{"points": [[0.5, 0.5]]}"#
    };
    let request = match method {
        "GET" => server.http.get(url),
        _ => server
            .http
            .post(url)
            .header("content-type", "application/json")
            .body(body),
    };
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    let bytes = answer.bytes().await.unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_query_keys_are_refused_naming_them() {
    let server = TestServer::start().await;
    let w = "/v1/worlds/main";
    let refused = [
        ("GET", format!("{w}/height?x=1&z=2&zz=3"), "zz"),
        ("GET", format!("{w}/tiles/0/0/mesh?maxErr=5"), "maxErr"),
        (
            "GET",
            format!("{w}/tiles/0/0/mesh.glb?maxError=5&lod=1"),
            "lod",
        ),
        ("GET", format!("{w}/3dtiles/tileset.json?v=2"), "v"),
        (
            "GET",
            format!("{w}/map/0/0/0.png?layer=walk&style=x"),
            "style",
        ),
        ("GET", "/map/assets/map.js?v=1".to_string(), "v"),
        ("GET", "/v1/worlds?all=1".to_string(), "all"),
        ("POST", format!("{w}/terrain-info?rev=1"), "rev"),
        ("POST", format!("{w}/paths/check?mode=exact"), "mode"),
        ("POST", format!("{w}/paths/find?revision=0"), "revision"),
        ("POST", format!("{w}/heights?ids=1"), "ids"),
    ];
    for (method, path, key) in &refused {
        let (status, body) = send(&server, method, path).await;
        assert_eq!(status, 400, "{method} {path}: {body}");
        assert_eq!(body["error"]["field"], *key, "{method} {path}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("unknown query parameter"),
            "{path}: {message}"
        );
    }
    // The keys the document lists still work, the map page's cache buster included.
    let served = [
        ("GET", format!("{w}/height?x=1&z=2&mode=exact&revision=0")),
        ("GET", format!("{w}/tiles/0/0/mesh?maxError=5")),
        ("GET", format!("{w}/map/0/0/0.png?layer=walk&r=3")),
        ("POST", format!("{w}/terrain-info?revision=0")),
        ("POST", format!("{w}/paths/check?revision=0")),
        ("POST", format!("{w}/paths/find")),
    ];
    for (method, path) in &served {
        let (status, body) = send(&server, method, path).await;
        assert_eq!(status, 200, "{method} {path}: {body}");
    }
    // The document says which keys each route takes.
    let (_, doc) = server.get("/openapi.json").await;
    let params = &doc["paths"]["/v1/worlds/{world}/terrain-info"]["post"]["parameters"];
    let names: Vec<&str> = params
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["in"] == "query")
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["revision"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn movement_routes_take_the_revision_in_the_query_string() {
    let server = TestServer::start().await;
    let before = server.revision("main").await;
    put_zone(&server, "pad", &pad(0.0)).await;
    let now = server.revision("main").await;
    assert_eq!(now, before + 1);
    let w = "/v1/worlds/main";
    // Outside the window: 409 naming `revision`, as /heights answers.
    for route in ["terrain-info", "paths/check", "heights"] {
        let (status, body) = send(&server, "POST", &format!("{w}/{route}?revision=4000")).await;
        assert_eq!(status, 409, "{route}: {body}");
        assert_eq!(body["error"]["field"], "revision", "{route}: {body}");
    }
    // Inside it: answered as of that revision.
    for route in ["terrain-info", "paths/check"] {
        let path = format!("{w}/{route}?revision={before}");
        let (status, body) = send(&server, "POST", &path).await;
        assert_eq!(status, 200, "{route}: {body}");
        assert_eq!(body["revision"], before, "{route}: {body}");
        // Both in the query and the body: refused, naming `revision`.
        let (status, body) = server
            .post_json(&path, &json!({"points": [[0.5, 0.5]], "revision": now}))
            .await;
        assert_eq!(status, 400, "{route}: {body}");
        assert_eq!(body["error"]["field"], "revision", "{route}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terrain_info_needs_at_least_one_point() {
    let server = TestServer::start().await;
    let (status, body) = server
        .post_json("/v1/worlds/main/terrain-info", &json!({"points": []}))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["field"], "points", "{body}");
    let status = server
        .grpc()
        .await
        .get_terrain_info(pb::GetTerrainInfoRequest {
            world: "main".into(),
            coordinates: Vec::new(),
            revision: None,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
    // The document says so.
    let (_, doc) = server.get("/openapi.json").await;
    let body = &doc["paths"]["/v1/worlds/{world}/terrain-info"]["post"]["requestBody"];
    let schema = body["content"]["application/json"]["schema"]["$ref"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    let points = &doc["components"]["schemas"][schema]["properties"]["points"];
    assert_eq!(points["minItems"], 1, "{points}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tileset_content_has_one_url_and_refusals_name_the_index() {
    // 400 m: levels 0 to 2.
    let server = TestServer::start_with(|c| c.worlds[0].tileset_extent = 400.0).await;
    let base = "/v1/worlds/main/3dtiles/content";
    let cases = [
        ("01/0/0.glb", "level"),
        ("+1/0/0.glb", "level"),
        ("1/00/0.glb", "x"),
        ("1/+0/0.glb", "x"),
        ("1/0/01.glb", "file"),
        // Outside level 1 (indices 0 and 1): the index at fault.
        ("1/2/0.glb", "x"),
        ("1/0/2.glb", "file"),
        ("1/5/7.glb", "x"),
    ];
    for (path, field) in cases {
        let (status, body) = server.get(&format!("{base}/{path}")).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(body["error"]["field"], field, "{path}: {body}");
    }
    let (status, _, glb) = server.get_tagged(&format!("{base}/1/0/1.glb"), None).await;
    assert_eq!(status, 200);
    assert_eq!(&glb[..4], b"glTF");
}

/// The vertex count of a tile mesh's JSON.
async fn vertices(server: &TestServer, path: &str) -> usize {
    let (status, body) = server.get(path).await;
    assert_eq!(status, 200, "{path}: {body}");
    body["positions"].as_array().unwrap().len() / 3
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simplified_mesh_never_has_more_vertices_than_full_detail() {
    let server = TestServer::start().await;
    let path = "/v1/worlds/main/tiles/0/0/mesh";
    let full = vertices(&server, path).await;
    assert_eq!(full, 64 * 64);
    for e in ["1e-9", "0.000001", "0.001"] {
        let simple = vertices(&server, &format!("{path}?maxError={e}")).await;
        assert!(simple <= full, "maxError={e}: {simple} > {full}");
    }
    assert!(vertices(&server, &format!("{path}?maxError=1")).await < full / 2);
}
