//! `GET /openapi.json`: the document covers exactly the routes the router has (read
//! from the route tables in the server's source, so a new route without a documented
//! operation fails here), parses as OpenAPI 3.1, resolves every `$ref`, answers every
//! operation's errors with the error body, carries the server's own limits, and says
//! which operations need the admin token.

use std::collections::BTreeSet;

use terrain_tests as common;

use common::*;
use serde_json::Value;

/// The server crate's HTTP modules, whose `.route(...)` calls are the route table.
fn api_sources() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/src/api/http");
    // The HTTP surface's one route table (the gRPC modules, under `api/grpc`, route
    // gRPC paths, which are not part of the HTTP API).
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("server/src/api/http")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("source");
            (p.display().to_string(), text)
        })
        .collect()
}

/// The text of a call's arguments: from just after `open` (an index past the opening
/// parenthesis) to its matching closing parenthesis.
fn arguments(text: &str, open: usize) -> &str {
    let mut depth = 1;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &text[open..open + i];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced .route( call");
}

/// Every `(METHOD, path)` the router serves, from the `.route("path", get(..).put(..))`
/// calls of the HTTP modules, with axum's `{*rest}` written as OpenAPI's `{rest}`.
fn routes() -> BTreeSet<(String, String)> {
    let mut routes = BTreeSet::new();
    for (file, text) in api_sources() {
        for (at, _) in text.match_indices(".route(") {
            let args = arguments(&text, at + ".route(".len());
            let path = args
                .split('"')
                .nth(1)
                .unwrap_or_else(|| panic!("{file}: a .route( without a path literal"));
            let methods = &args[args.find(',').expect("a method router")..];
            let mut found = 0;
            for (name, method) in [
                ("get(", "GET"),
                ("post(", "POST"),
                ("put(", "PUT"),
                ("delete(", "DELETE"),
                ("patch(", "PATCH"),
            ] {
                let called = methods.match_indices(name).any(|(i, _)| {
                    let before = methods[..i].chars().next_back();
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                if called {
                    routes.insert((method.to_string(), path.replace("{*", "{")));
                    found += 1;
                }
            }
            assert!(found > 0, "{file}: no method for route {path}");
        }
    }
    routes
}

/// Every `(METHOD, path)` the document describes.
fn documented(doc: &Value) -> BTreeSet<(String, String)> {
    let mut ops = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in ["get", "put", "post", "delete", "patch", "head", "options"] {
            if item.get(method).is_some() {
                ops.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    ops
}

async fn document(server: &TestServer) -> (Value, String) {
    let response = reqwest::get(server.url("/openapi.json"))
        .await
        .expect("GET /openapi.json");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let text = response.text().await.expect("body");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    (doc, text)
}

/// Every `$ref` string under `value`.
fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => out.push(r),
                    _ => refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_is_documented_and_nothing_else() {
    let server = TestServer::start().await;
    let (doc, _) = document(&server).await;
    let routes = routes();
    assert!(
        routes.len() > 25,
        "the route table was not read: {routes:?}"
    );
    let ops = documented(&doc);
    let undocumented: Vec<_> = routes.difference(&ops).collect();
    assert!(
        undocumented.is_empty(),
        "routes without an operation: {undocumented:?}"
    );
    let unserved: Vec<_> = ops.difference(&routes).collect();
    assert!(
        unserved.is_empty(),
        "operations without a route: {unserved:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_is_openapi_3_1_and_resolves() {
    let server = TestServer::start().await;
    let (doc, text) = document(&server).await;
    let spec = oas3::from_json(&text).expect("an OpenAPI 3.1 document");
    let version = spec.validate_version().expect("a supported version");
    assert_eq!((version.major, version.minor), (3, 1));
    assert!(spec.operations().count() > 25);
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(!all.is_empty());
    for r in all {
        let pointer = r
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("external $ref {r}"));
        assert!(
            doc.pointer(pointer).is_some(),
            "$ref {r} resolves to nothing"
        );
    }
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let id = op["operationId"].as_str().expect("an operationId");
            assert!(ids.insert(id.to_string()), "operationId {id} twice");
            if let Some(body) = op.get("requestBody") {
                assert_eq!(body["required"], true, "{method} {path}: optional body");
            }
            let responses = op["responses"].as_object().expect("responses");
            assert!(responses.contains_key("500"), "{method} {path}: no 500");
            for (status, response) in responses {
                let error = status.starts_with('4') || status.starts_with('5');
                if !error {
                    continue;
                }
                let body = response
                    .pointer("/content/application~1json/schema/$ref")
                    .or_else(|| response.get("$ref"));
                assert!(body.is_some(), "{method} {path} {status}: no error body");
            }
        }
    }
    // Links name operations that exist (register a zone, then read or delete it).
    let zone_put = &doc["paths"]["/v1/worlds/{world}/flat-zones/{id}"]["put"];
    let links = zone_put["responses"]["200"]["links"]
        .as_object()
        .expect("links");
    assert!(links.len() >= 2);
    for link in links.values() {
        let id = link["operationId"].as_str().expect("operationId");
        assert!(ids.contains(id), "link to unknown operation {id}");
    }
    assert_eq!(
        doc.pointer("/components/securitySchemes/admin/scheme"),
        Some(&Value::from("bearer"))
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutations_need_the_token_and_reads_do_not() {
    let server = TestServer::start().await;
    let (doc, _) = document(&server).await;
    for (method, path) in documented(&doc) {
        let op = &doc["paths"][&path][method.to_lowercase()];
        let admin = op["security"]
            .as_array()
            .is_some_and(|s| s.iter().any(|r| r.get("admin").is_some()));
        // Zone and viewer changes, and the backup; a batch of heights is a read.
        let mutation = matches!(method.as_str(), "PUT" | "DELETE") || path == "/v1/admin/backup";
        assert_eq!(
            admin, mutation,
            "{method} {path}: security {}",
            op["security"]
        );
        let answers_401 = op["responses"].get("401").is_some();
        assert_eq!(answers_401, mutation, "{method} {path}: 401");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_carries_the_servers_limits() {
    let server = TestServer::start_with(|c| {
        c.limits.max_coordinate = 5000.0;
        c.limits.max_zone_size = 50.0;
        c.limits.max_batch_points = 7;
    })
    .await;
    let (doc, _) = document(&server).await;
    let height = &doc["paths"]["/v1/worlds/{world}/height"]["get"]["parameters"];
    let x = height
        .as_array()
        .expect("parameters")
        .iter()
        .find(|p| p["name"] == "x")
        .expect("x");
    assert_eq!(x["schema"]["maximum"], 5000.0);
    assert_eq!(x["schema"]["minimum"], -5000.0);
    let zone = &doc["components"]["schemas"]["ZoneRequest"];
    assert_eq!(zone["properties"]["centerX"]["maximum"], 5000.0);
    assert_eq!(zone["properties"]["blendRadius"]["maximum"], 50.0);
    let points = &doc["components"]["schemas"]["PointsBody"]["properties"]["points"];
    assert_eq!(points["maxItems"], 7);
    server.stop().await;
}

/// The as-of `revision` of heights, terrain info and path checks is described as an
/// optional unsigned 64-bit integer (query parameter or body field), and those
/// operations list the `409` that refuses a revision out of reach.
#[tokio::test]
async fn the_as_of_revision_is_an_optional_unsigned_integer() {
    let server = TestServer::start().await;
    let (doc, _) = document(&server).await;
    let unsigned = |schema: &Value, what: &str| {
        assert_eq!(schema["minimum"], 0, "{what}: {schema}");
        assert_eq!(
            schema["maximum"].as_u64(),
            Some(u64::MAX),
            "{what}: {schema}"
        );
        let types = schema["type"].to_string();
        assert!(types.contains("integer"), "{what}: {schema}");
    };
    for (path, method) in [
        ("/v1/worlds/{world}/height", "get"),
        ("/v1/worlds/{world}/heights", "post"),
    ] {
        let op = &doc["paths"][path][method];
        let param = op["parameters"]
            .as_array()
            .expect("parameters")
            .iter()
            .find(|p| p["name"] == "revision")
            .unwrap_or_else(|| panic!("{path}: revision"));
        assert_eq!(param["in"], "query", "{path}");
        assert_ne!(param["required"], true, "{path}: optional");
        unsigned(&param["schema"], path);
    }
    let schemas = &doc["components"]["schemas"];
    for body in ["PointsBody", "CheckBody"] {
        let schema = &schemas[body];
        unsigned(&schema["properties"]["revision"], body);
        let types = schema["properties"]["revision"]["type"].to_string();
        assert!(types.contains("null"), "{body}: {types}");
        let required = schema["required"].as_array().cloned().unwrap_or_default();
        assert!(!required.contains(&Value::from("revision")), "{body}");
    }
    for (path, method) in [
        ("/v1/worlds/{world}/height", "get"),
        ("/v1/worlds/{world}/heights", "post"),
        ("/v1/worlds/{world}/terrain-info", "post"),
        ("/v1/worlds/{world}/paths/check", "post"),
    ] {
        let op = &doc["paths"][path][method];
        assert!(op["responses"].get("409").is_some(), "{path}: 409");
    }
    server.stop().await;
}
