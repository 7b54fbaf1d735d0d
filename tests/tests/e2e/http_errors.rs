//! HTTP refusals against the real server: every kind of bad input (query string,
//! path, body, limits) gets `{"error": {"code", "message", "field"}}` with the right
//! status, code and field, and the message starts with the field.

use terrain_tests as common;

use common::*;
use serde_json::{Value, json};
use terrain_core::Generator;

/// The error code each status must carry.
fn code_of(status: u16) -> &'static str {
    match status {
        400 => "INVALID_ARGUMENT",
        404 => "NOT_FOUND",
        413 => "RESOURCE_EXHAUSTED",
        other => panic!("no code for {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_query_errors_name_the_field() {
    let server = TestServer::start().await;
    let height = "/v1/worlds/main/height";
    let map = "/v1/worlds/main/heightmap";
    #[rustfmt::skip]
    let cases: &[(&str, &str, u16, &str)] = &[
        (height, "?x=NaN&z=0", 400, "x"),
        (height, "?x=0&z=inf", 400, "z"),
        (height, "?x=1000000000.5&z=0", 400, "x"),
        (height, "?x=0&z=-2e9", 400, "z"),
        (height, "?x=0", 400, "z"),
        (height, "?z=0", 400, "x"),
        (height, "?x=abc&z=0", 400, "x"),
        (height, "?x=&z=0", 400, "x"),
        (height, "?x=1&x=2&z=0", 400, "x"),
        ("/v1/worlds/nope/height", "?x=0&z=0", 404, "world"),
        ("/v1/worlds/nope/heightmap", "?x0=0&z0=0&nx=1&nz=1&step=1", 404, "world"),
        (map, "?x0=0&z0=0&nx=0&nz=4&step=1", 400, "nx"),
        (map, "?x0=0&z0=0&nx=4&nz=-2&step=1", 400, "nz"),
        (map, "?x0=0&z0=0&nx=1.5&nz=4&step=1", 400, "nx"),
        (map, "?x0=0&z0=0&nx=4&nz=4&step=0", 400, "step"),
        (map, "?x0=0&z0=0&nx=4&nz=4&step=-1", 400, "step"),
        (map, "?x0=0&z0=0&nx=4&nz=4&step=NaN", 400, "step"),
        (map, "?x0=0&z0=0&nx=4&nz=4", 400, "step"),
        (map, "?z0=0&nx=4&nz=4&step=1", 400, "x0"),
        (map, "?x0=0&z0=inf&nx=4&nz=4&step=1", 400, "z0"),
        // The far corner x0 + (nx - 1) * step is past the limit; the origin is not.
        (map, "?x0=999999990&z0=0&nx=3&nz=1&step=10", 400, "nx"),
        (map, "?x0=0&z0=999999990&nx=1&nz=3&step=10", 400, "nz"),
        (map, "?x0=0&z0=0&nx=4096&nz=4096&step=1", 413, "nx*nz"),
    ];
    for &(path, query, status, field) in cases {
        let answer = server.get(&format!("{path}{query}")).await;
        assert_http_error(&answer, status, code_of(status), Some(field));
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_unknown_routes_and_methods() {
    let server = TestServer::start().await;
    for path in ["/v1/nothing/here", "/v1/worlds/main", "/"] {
        assert_http_error(&server.get(path).await, 404, "NOT_FOUND", None);
    }
    let response = server
        .http
        .get(server.url("/v1/worlds/main/heights"))
        .send()
        .await
        .expect("GET");
    assert_eq!(response.status(), 405);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], "METHOD_NOT_ALLOWED", "{body}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_body_errors_name_the_field() {
    let server = TestServer::start().await;
    let path = "/v1/worlds/main/heights";
    let json_cases: &[(&str, &str)] = &[
        (r#"{"points": [[1, 2], [3, 4]"#, "points[2]"),
        (r#"{"points": [[1, 2], [3]]}"#, "points[1]"),
        (r#"{"points": [[1, 2], [3, 4], [5, 6, 7]]}"#, "points[2]"),
        (r#"{"points": [[1, 2], {"x": 3, "z": 4}]}"#, "points[1]"),
        (r#"{"points": [["1", 2]]}"#, "points[0]"),
        (r#"{"points": [[1, 2], [3, 1e999]]}"#, "points[1]"),
        (r#"{"points": [[1, 2], [0, 0], [2e9, 0]]}"#, "points[2]"),
        (r#"{"points": [[1, 2], [0, -1000000000.001]]}"#, "points[1]"),
        (r#"{"points": 5}"#, "body"),
        (r#"{"pts": []}"#, "body"),
        (r#"not json"#, "body"),
        (r#"{}"#, "points"),
    ];
    for &(body, field) in json_cases {
        let answer = server
            .post_raw(path, "application/json", body.as_bytes().to_vec())
            .await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some(field));
    }
    let binary = |values: &[f64]| {
        values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    let octet = "application/octet-stream";
    let answer = server.post_raw(path, octet, vec![0; 17]).await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("body"));
    let answer = server
        .post_raw(path, octet, binary(&[1.0, 2.0, 3.0, f64::NAN]))
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("points[1]"));
    let answer = server
        .post_raw(path, octet, binary(&[f64::INFINITY, 2.0]))
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("points[0]"));
    let answer = server
        .post_raw(path, "application/xml", b"<points/>".to_vec())
        .await;
    assert_http_error(&answer, 415, "INVALID_ARGUMENT", Some("content-type"));
    let answer = server
        .post_raw("/v1/worlds/nope/heights", octet, binary(&[1.0, 2.0]))
        .await;
    assert_http_error(&answer, 404, "NOT_FOUND", Some("world"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_limits_give_413() {
    let server = TestServer::start_with(|c| {
        c.limits.max_batch_points = 10;
        c.limits.max_heightmap_samples = 100;
    })
    .await;
    let path = "/v1/worlds/main/heights";
    let points = |n: usize| json!({ "points": vec![json!([1.5, -2.5]); n] });
    let (status, answer) = server.post_json(path, &points(10)).await;
    assert_eq!(
        (status.as_u16(), nums(&answer["heights"]).len()),
        (200, 10),
        "{answer}"
    );
    assert_http_error(
        &server.post_json(path, &points(11)).await,
        413,
        "RESOURCE_EXHAUSTED",
        Some("points"),
    );
    let octet = "application/octet-stream";
    let answer = server.post_raw(path, octet, vec![0; 16 * 11]).await;
    assert_http_error(&answer, 413, "RESOURCE_EXHAUSTED", Some("points"));
    // A body past the byte limit is refused before it is parsed.
    let answer = server
        .post_raw(path, "application/json", vec![b' '; 256 * 1024])
        .await;
    assert_http_error(&answer, 413, "RESOURCE_EXHAUSTED", Some("body"));

    let heightmap =
        |nx: u32, nz: u32| format!("/v1/worlds/main/heightmap?x0=0&z0=0&step=1&nx={nx}&nz={nz}");
    let (status, answer) = server.get(&heightmap(10, 10)).await;
    assert_eq!(
        (status.as_u16(), nums(&answer["heights"]).len()),
        (200, 100),
        "{answer}"
    );
    assert_http_error(
        &server.get(&heightmap(11, 10)).await,
        413,
        "RESOURCE_EXHAUSTED",
        Some("nx*nz"),
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_coordinate_limit_is_configurable() {
    let server = TestServer::start_with(|c| c.limits.max_coordinate = 1000.0).await;
    let core = main_generator();
    let (status, body) = server.get("/v1/worlds/main/height?x=-1000&z=1000").await;
    assert_eq!(status, 200, "{body}");
    assert_same(
        num(&body["height"]),
        core.height(-1000.0, 1000.0),
        "height at the limit",
    );
    let answer = server.get("/v1/worlds/main/height?x=0&z=1000.0001").await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("z"));
    server.stop().await;
}

/// A subnormal (or merely absurd) step is refused at once naming `step`, instead of
/// computing millions of subnormal samples (the probe's `step=5e-324` took 32 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subnormal_heightmap_step_is_refused_at_once() {
    let server = TestServer::start().await;
    for step in ["5e-324", "1e-9", "0.0009"] {
        let path = format!("/v1/worlds/main/heightmap?x0=0&z0=0&nx=2048&nz=2048&step={step}");
        let started = std::time::Instant::now();
        assert_http_error(
            &server.get(&path).await,
            400,
            "INVALID_ARGUMENT",
            Some("step"),
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{step}"
        );
    }
    let (status, _) = server
        .get("/v1/worlds/main/heightmap?x0=0&z0=0&nx=4&nz=4&step=0.001")
        .await;
    assert_eq!(status.as_u16(), 200);
    server.stop().await;
}

/// Sends `raw` on a fresh connection and reads the answer until the server closes.
async fn raw_exchange(server: &TestServer, raw: &[u8]) -> (u16, String, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(raw).await.unwrap();
    let mut seen = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        tcp.read_to_end(&mut seen),
    )
    .await
    .expect("the server answers and closes")
    .unwrap();
    let text = String::from_utf8_lossy(&seen).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole answer");
    let status = head[9..12].parse().unwrap();
    let body = serde_json::from_str(body).unwrap_or(Value::Null);
    (status, head.to_string(), body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_hyper_cannot_parse_get_the_json_error_body() {
    let server = TestServer::start().await;
    let many: String = (0..150).map(|i| format!("x-h{i}: a\r\n")).collect();
    let long = format!("x-big: {}\r\n", "a".repeat(500_000));
    let cases: Vec<(Vec<u8>, u16, &str, &str)> = vec![
        (
            b"GET /v1/worlds/m\x00ain/height?x=1&z=2 HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
            400,
            "INVALID_ARGUMENT",
            "request",
        ),
        (
            b"GET /v1/worlds/m\xffain/height?x=1&z=2 HTTP/1.1\r\nhost: t\r\n\r\n".to_vec(),
            400,
            "INVALID_ARGUMENT",
            "request",
        ),
        (
            format!("GET /healthz HTTP/1.1\r\nhost: t\r\n{many}\r\n").into_bytes(),
            431,
            "RESOURCE_EXHAUSTED",
            "headers",
        ),
        (
            format!("GET /healthz HTTP/1.1\r\nhost: t\r\n{long}\r\n").into_bytes(),
            431,
            "RESOURCE_EXHAUSTED",
            "headers",
        ),
    ];
    for (raw, status, code, field) in cases {
        let (got, head, body) = raw_exchange(&server, &raw).await;
        let what = String::from_utf8_lossy(&raw[..40.min(raw.len())]).into_owned();
        assert_eq!(got, status, "{what}: {head}");
        assert!(
            head.contains("content-type: application/json"),
            "{what}: {head}"
        );
        assert_http_error(
            &(reqwest::StatusCode::from_u16(status).unwrap(), body),
            status,
            code,
            Some(field),
        );
    }
    // A well-formed request on the same server is answered as usual.
    let (status, _, body) = raw_exchange(
        &server,
        b"GET /v1/worlds/main/height?x=1&z=2 HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["height"].is_f64(), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_json_route_has_one_content_type_rule() {
    let server = TestServer::start().await;
    let zone = json!({"centerX": 10.0, "centerZ": 10.0, "radius": 5.0, "height": 30.0, "blendRadius": 2.0});
    let viewer = json!({"x": 0.0, "z": 0.0, "viewWidth": 50.0, "viewDepth": 50.0});
    let batch = json!({"points": [[1.0, 2.0]]});
    let routes = [
        ("PUT", "/v1/worlds/main/flat-zones/pad", &zone),
        ("PUT", "/v1/worlds/main/viewers/v1", &viewer),
        ("POST", "/v1/worlds/main/heights", &batch),
    ];
    let send = |method: &str, path: &str, content_type: Option<&str>, body: &Value| {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = server
            .http
            .request(method, server.url(path))
            .body(body.to_string());
        if let Some(t) = content_type {
            request = request.header("content-type", t);
        }
        request.send()
    };
    for (method, path, body) in routes {
        // Refused, 415, before anything changes.
        for wrong in [
            "application/xml",
            "image/png",
            "multipart/form-data; boundary=x",
        ] {
            let answer = send(method, path, Some(wrong), body).await.unwrap();
            let status = answer.status();
            let body: Value = answer.json().await.unwrap();
            assert_http_error(
                &(status, body),
                415,
                "INVALID_ARGUMENT",
                Some("content-type"),
            );
        }
        if method == "PUT" {
            let answer = send(method, path, Some("application/octet-stream"), body)
                .await
                .unwrap();
            assert_eq!(
                answer.status(),
                415,
                "{path}: octet-stream is for batches only"
            );
        }
    }
    let zones: Value = server
        .http
        .get(server.url("/v1/worlds/main/flat-zones"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(zones["zones"].as_array().map(Vec::len), Some(0), "{zones}");
    let live: Value = server
        .http
        .get(server.url("/v1/worlds/main/live-tiles"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(live["viewers"], 0, "{live}");
    // Read as JSON: no type, application/json (with parameters), +json, and what curl -d sends.
    for (k, ok) in [
        None,
        Some("application/json; charset=utf-8"),
        Some("application/merge-patch+json"),
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ]
    .into_iter()
    .enumerate()
    {
        for (method, path, body) in routes {
            let path = path
                .replace("/pad", &format!("/pad{k}"))
                .replace("/viewers/v1", &format!("/viewers/viewer{k}"));
            let answer = send(method, &path, ok, body).await.unwrap();
            assert_eq!(answer.status(), 200, "{method} {path} with {ok:?}");
        }
    }
    server.stop().await;
}
