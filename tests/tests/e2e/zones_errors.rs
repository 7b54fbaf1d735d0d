//! Refused flat-zone requests over HTTP: every bad input names its field in
//! `{"error": {"code", "message", "field"}}`, takes no revision and stores nothing;
//! the per-world zone limit answers 429 `RESOURCE_EXHAUSTED` (gRPC too).

use terrain_tests as common;

use common::*;
use serde_json::{Value, json};
use terrain_proto::v1::{FlatZone as PbZone, RegisterFlatZoneRequest};
use tonic::Code;

const ZONES: &str = "/v1/worlds/main/flat-zones";

fn good() -> Value {
    json!({"centerX": 10.0, "centerZ": -4.0, "width": 8.0, "depth": 6.0, "height": 12.0,
           "blendRadius": 2.0})
}

/// `good()` with `key` set to `value` (or removed when `value` is null).
fn with(key: &str, value: Value) -> Value {
    let mut zone = good();
    if value.is_null() {
        zone.as_object_mut().expect("object").remove(key);
    } else {
        zone[key] = value;
    }
    zone
}

/// Asserts nothing changed: no revision, no zone `id`.
async fn assert_untouched(server: &TestServer, id: &str, what: &str) {
    assert_eq!(server.revision("main").await, 0, "{what}: revision taken");
    let (status, _) = server.get(&format!("{ZONES}/{id}")).await;
    assert_eq!(status, 404, "{what}: zone {id} stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_zone_bodies_name_the_field() {
    let server = TestServer::start_with(|c| {
        c.limits.max_zone_size = 100.0;
        c.limits.max_coordinate = 50_000.0;
    })
    .await;
    let cases: Vec<(Value, &str)> = vec![
        (with("width", json!(0.0)), "width"),
        (with("depth", json!(-1.0)), "depth"),
        (with("width", json!(100.5)), "width"),
        (with("blendRadius", json!(-0.1)), "blendRadius"),
        (with("blendRadius", json!(101.0)), "blendRadius"),
        (with("carveInset", json!(-2.0)), "carveInset"),
        (with("centerX", json!(50_000.5)), "centerX"),
        (with("centerZ", json!(-60_000.0)), "centerZ"),
        (with("height", json!(1e7)), "height"),
        (with("centerX", json!("10")), "centerX"),
        (with("priority", json!(1.5)), "priority"),
        (with("priority", json!(3_000_000_000_i64)), "priority"),
        (with("colour", json!("red")), "colour"),
        (with("centerZ", Value::Null), "centerZ"),
        (with("blendRadius", Value::Null), "blendRadius"),
        (with("depth", Value::Null), "depth"),
        (with("radius", json!(4.0)), "radius"),
        (with("heightOffset", json!(1.0)), "heightOffset"),
        (with("height", Value::Null), "height"),
        (with("id", json!("other")), "id"),
        (
            json!({"centerX": 1.0, "centerZ": 1.0, "radius": 0.0, "height": 1.0, "blendRadius": 0.0}),
            "radius",
        ),
    ];
    for (body, field) in cases {
        let answer = server.put_json(&format!("{ZONES}/z1"), &body, None).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some(field));
        assert_untouched(&server, "z1", &body.to_string()).await;
    }
    // Numbers JSON cannot hold as f64 (non-finite after parsing) name their field.
    let raw = r#"{"centerX": 1e999, "centerZ": 0, "width": 2, "depth": 2, "height": 1, "blendRadius": 1}"#;
    let answer = server.put_raw(&format!("{ZONES}/z1"), raw).await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("centerX"));
    // Malformed bodies blame the body.
    for raw in ["", "{", "[1, 2]", "{\"centerX\": 1,}", "null", "not json"] {
        let answer = server.put_raw(&format!("{ZONES}/z1"), raw).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("body"));
    }
    // A bad id in the path.
    for id in ["has%20space", "a%2Fb", &"x".repeat(129)] {
        let answer = server
            .put_json(&format!("{ZONES}/{id}"), &good(), None)
            .await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("id"));
    }
    assert_untouched(&server, "z1", "after raw bodies").await;
    // An id in the body equal to the path's is fine.
    let (status, body) = server
        .put_json(&format!("{ZONES}/z1"), &with("id", json!("z1")), None)
        .await;
    assert_eq!(
        (status.as_u16(), body["revision"].as_u64()),
        (200, Some(1)),
        "{body}"
    );
    // Unknown world; absent zone.
    let answer = server
        .put_json("/v1/worlds/nope/flat-zones/z1", &good(), None)
        .await;
    assert_http_error(&answer, 404, "NOT_FOUND", Some("world"));
    let answer = server.delete(&format!("{ZONES}/z2"), None).await;
    assert_http_error(&answer, 404, "NOT_FOUND", Some("id"));
    let answer = server.get("/v1/worlds/main/flat-zone-at?x=1").await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("z"));
    let answer = server.get("/v1/worlds/main/flat-zone-at?x=1&z=60000").await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("z"));
    assert_eq!(server.revision("main").await, 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_zone_count_limit_is_resource_exhausted() {
    let server = TestServer::start_with(|c| c.limits.max_zones_per_world = 3).await;
    for i in 0..3 {
        let body = with("centerX", json!(i as f64 * 30.0));
        let (status, answer) = server.put_json(&format!("{ZONES}/z{i}"), &body, None).await;
        assert_eq!(status, 200, "{answer}");
    }
    let answer = server.put_json(&format!("{ZONES}/z3"), &good(), None).await;
    assert_http_error(&answer, 429, "RESOURCE_EXHAUSTED", Some("zones"));
    let mut client = server.grpc().await;
    let zone = PbZone {
        id: "z4".into(),
        center_x: 1.0,
        width: Some(2.0),
        depth: Some(2.0),
        height: Some(3.0),
        ..PbZone::default()
    };
    let request = RegisterFlatZoneRequest {
        world: "main".into(),
        zone: Some(zone),
    };
    let status = client
        .register_flat_zone(request)
        .await
        .expect_err("over the limit");
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert!(
        status.message().starts_with("zones: "),
        "{}",
        status.message()
    );
    assert_eq!(server.revision("main").await, 3);
    assert_eq!(server.zone_ids("main").await, ["z0", "z1", "z2"]);
    // At the limit, replacing a zone is still allowed; after a removal there is room.
    let (status, answer) = server
        .put_json(&format!("{ZONES}/z1"), &with("height", json!(5.0)), None)
        .await;
    assert_eq!(
        (status.as_u16(), answer["change"].as_str()),
        (200, Some("replaced")),
        "{answer}"
    );
    let (status, _) = server.delete(&format!("{ZONES}/z0"), None).await;
    assert_eq!(status, 200);
    let (status, answer) = server.put_json(&format!("{ZONES}/z3"), &good(), None).await;
    assert_eq!(
        (status.as_u16(), answer["revision"].as_u64()),
        (200, Some(6)),
        "{answer}"
    );
    server.stop().await;
}
