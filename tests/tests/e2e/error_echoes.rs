//! What a refusal echoes back: a long id or value is quoted as a short prefix with its
//! length (a gRPC status carries its message in trailers, so a long echo used to turn
//! `INVALID_ARGUMENT` into `RESOURCE_EXHAUSTED`), numbers are exact but compact (no
//! 300-digit floats, no saturated products), query numbers share the tile indexes'
//! grammar (no surrounding spaces), and the admin route's 401 names the admin token.

use terrain_tests as common;

use common::{
    TestServer, assert_http_error,
    events::{events_client, ws_connect, ws_event, ws_send},
};
use serde_json::json;
use terrain_proto::v1 as pb;

/// No message is longer than this (the quoted prefix is 64 characters).
const SHORT: usize = 300;

#[tokio::test]
async fn long_ids_over_grpc_keep_their_code_and_a_short_message() {
    let server = TestServer::start().await;
    let mut events = events_client(&server).await;
    let err = events
        .update_subscription(pb::UpdateSubscriptionRequest {
            subscription_id: "s".repeat(1_000_000),
            area: None,
        })
        .await
        .expect_err("no such subscription");
    assert_eq!(
        err.code(),
        tonic::Code::InvalidArgument,
        "{}",
        err.message()
    );
    assert!(err.message().len() < SHORT, "{} bytes", err.message().len());
    assert!(
        err.message()
            .starts_with("subscription_id: no open subscription \"sss")
            && err.message().ends_with("…(1000000 bytes)"),
        "{}",
        err.message()
    );

    let err = server
        .grpc()
        .await
        .get_height(pb::GetHeightRequest {
            world: "w".repeat(20_000),
            x: 1.0,
            z: 2.0,
            ..Default::default()
        })
        .await
        .expect_err("no such world");
    assert_eq!(err.code(), tonic::Code::NotFound, "{}", err.message());
    assert!(err.message().len() < SHORT, "{} bytes", err.message().len());
    assert!(
        err.message().contains("…(20000 bytes)"),
        "{}",
        err.message()
    );
    server.stop().await;
}

#[tokio::test]
async fn numbers_in_messages_are_exact_and_compact() {
    let server = TestServer::start().await;
    let message = |answer: &(reqwest::StatusCode, serde_json::Value)| {
        answer.1["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // The true product of the counts, not a saturated one.
    let answer = server
        .get("/v1/worlds/main/heightmap?x0=0&z0=0&step=1&nx=4294967297&nz=4294967297")
        .await;
    assert_http_error(&answer, 413, "RESOURCE_EXHAUSTED", Some("nx*nz"));
    assert!(
        message(&answer).starts_with("nx*nz: 18446744082299486209 samples exceed"),
        "{}",
        message(&answer)
    );
    // A huge step: the corner is written compactly.
    let answer = server
        .get("/v1/worlds/main/heightmap?x0=0&z0=0&step=1e308&nx=2&nz=2")
        .await;
    assert_eq!(answer.0.as_u16(), 400, "{}", answer.1);
    assert!(message(&answer).len() < SHORT, "{}", message(&answer));
    assert!(message(&answer).contains("1e308"), "{}", message(&answer));
    // A map tile far outside the world: its span in scientific notation.
    let answer = server
        .get(&format!("/v1/worlds/main/map/0/{}/0.png", i64::MAX))
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("x"));
    let text = message(&answer);
    assert!(text.len() < SHORT, "{text}");
    assert!(
        !text
            .chars()
            .collect::<Vec<_>>()
            .windows(25)
            .any(|w| w.iter().all(char::is_ascii_digit)),
        "no long digit runs: {text}"
    );
    assert!(text.contains("e21") || text.contains("e22"), "{text}");
    server.stop().await;
}

/// A number a client sends in a WebSocket area or a zone's tile mask is echoed as the
/// HTTP query echoes it: short (`1e308`, not 309 digits) and exact
/// (`9223372036854775807`, not rounded through a float).
#[tokio::test]
async fn numbers_sent_in_bodies_and_websocket_messages_are_echoed_as_sent() {
    let server = TestServer::start().await;
    let mut ws = ws_connect(&server, "main", "").await;
    for (area, field, got) in [
        (json!({"x": 1e308, "z": 0, "radius": 1}), "x", "1e308"),
        (json!({"x": 0, "z": -2.5e300, "radius": 1}), "z", "-2.5e300"),
    ] {
        ws_send(&mut ws, &area).await;
        let error = ws_event(&mut ws).await;
        assert_eq!(error["type"], "error", "{error}");
        assert_eq!(error["error"]["field"], field, "{error}");
        let text = error["error"]["message"].as_str().unwrap();
        assert!(text.len() < SHORT, "{} bytes: {text}", text.len());
        assert!(
            text.ends_with(&format!("got {got}")) && text.contains("±1000000000"),
            "{text}"
        );
    }
    // The query form says the same.
    let answer = server
        .get("/v1/worlds/main/events?x=1e308&z=0&radius=1")
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("x"));
    let text = answer.1["error"]["message"].as_str().unwrap();
    assert!(text.ends_with("got 1e308"), "{text}");

    for (index, got) in [
        ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("1e308", "1e308"),
    ] {
        let body = format!(
            r#"{{"centerX": 0, "centerZ": 0, "width": 20, "depth": 20, "heightOffset": 5,
                "blendRadius": 2, "tileMask": [[0, 0], [{index}, 0]]}}"#
        );
        let answer = server
            .put_raw("/v1/worlds/main/flat-zones/echo", &body)
            .await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("tileMask"));
        let text = answer.1["error"]["message"].as_str().unwrap();
        assert!(text.contains(&format!("(got {got})")), "{text}");
    }
    server.stop().await;
}

#[tokio::test]
async fn one_number_grammar_and_the_admin_routes_name_their_token() {
    let server = TestServer::start_with(|c| {
        c.admin_token = Some(terrain_server::AdminToken::new("echo-test-token").unwrap());
    })
    .await;
    // Spaces around a query number are refused, as in a tile index.
    for query in ["x=%20%201&z=0", "x=1%20&z=0", "x=1&z=%202"] {
        let answer = server.get(&format!("/v1/worlds/main/height?{query}")).await;
        let field = if query.starts_with("x=1&") { "z" } else { "x" };
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some(field));
    }
    assert_eq!(server.get("/v1/worlds/main/height?x=1&z=0").await.0, 200);
    let answer = server.get("/v1/worlds/main/tiles/%201/0/mesh").await;
    assert_eq!(answer.0.as_u16(), 400, "{}", answer.1);

    let answer = server.get("/v1/admin/backup").await;
    assert_http_error(&answer, 401, "UNAUTHENTICATED", Some("authorization"));
    let text = answer.1["error"]["message"].as_str().unwrap();
    assert!(
        text.contains("admin routes") && text.contains("admin token"),
        "{text}"
    );
    server.stop().await;
}
