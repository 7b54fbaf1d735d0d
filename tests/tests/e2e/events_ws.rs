//! Tile events over the WebSocket route `GET /v1/worlds/{world}/events`: the event
//! a PUT produces, area filtering (initial and changed mid-stream), and refusals.

use terrain_tests as common;

use std::time::Duration;

use common::{
    TestServer, assert_http_error,
    events::{EVENT_WAIT, put_zone, raised, revision, ws_connect, ws_event, ws_send, ws_silent},
    main_generator, num, resolve,
};
use futures::{SinkExt as _, StreamExt as _};
use http_body_util::{BodyExt as _, Empty};
use hyper::body::Bytes;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{Value, json};
use tokio_tungstenite::{
    WebSocketStream,
    tungstenite::{
        Message,
        protocol::{CloseFrame, Role, frame::coding::CloseCode},
    },
};

#[tokio::test]
async fn a_put_is_announced_with_its_revision_cause_tiles_bounds_and_delta() {
    let server = TestServer::start().await;
    let mut ws = ws_connect(&server, "main", "").await;
    let body = raised(70.0, 92.0);
    let answer = put_zone(&server, "pad", &body).await;
    let event = ws_event(&mut ws).await;

    assert_eq!(event["type"], "event", "{event}");
    assert_eq!(event["world"], "main");
    assert_eq!(event["revision"], answer["revision"]);
    assert_eq!(event["revision"], 1);
    assert_eq!(event["cause"], json!({"zone": "pad", "kind": "registered"}));
    assert_eq!(event["tiles"], answer["tiles"]);
    let zone = resolve(&main_generator(), "pad", &body);
    let b = zone.outer_bounds();
    let want = json!({"minX": b.min_x - 1.0, "minZ": b.min_z - 1.0,
                      "maxX": b.max_x + 1.0, "maxZ": b.max_z + 1.0});
    assert_eq!(event["bounds"], want);
    let delta = num(&event["maxHeightDelta"]);
    assert!(
        (4.5..8.0).contains(&delta),
        "a 5 m raise changes ~5 m, got {delta}"
    );

    // A replacement and a removal are announced as such.
    put_zone(&server, "pad", &raised(75.0, 92.0)).await;
    let event = ws_event(&mut ws).await;
    assert_eq!(event["cause"], json!({"zone": "pad", "kind": "replaced"}));
    assert_eq!(revision(&event), 2);
    let (status, _) = server.delete("/v1/worlds/main/flat-zones/pad", None).await;
    assert!(status.is_success(), "DELETE: {status}");
    let event = ws_event(&mut ws).await;
    assert_eq!(event["cause"], json!({"zone": "pad", "kind": "removed"}));
    assert_eq!(revision(&event), 3);
    server.stop().await;
}

/// A WebSocket over plain TCP is written by the hub's writer once its stream is
/// idle (direct delivery, `terrain_events_direct_total`), and its frames arrive whole.
#[tokio::test]
async fn an_idle_subscribers_events_are_written_directly() {
    let server = TestServer::start().await;
    let mut ws = ws_connect(&server, "main", "").await;
    let series = r#"terrain_events_direct_total{world="main"}"#;
    // The stream goes direct once it has nothing left to send: from the second event
    // on at the latest (the first may come while it opens).
    for (i, x) in [70.0, 90.0, 110.0].into_iter().enumerate() {
        let answer = put_zone(&server, &format!("pad{i}"), &raised(x, 92.0)).await;
        let event = ws_event(&mut ws).await;
        assert_eq!(event["revision"], answer["revision"], "{event}");
    }
    let direct = server.metric(series).await;
    assert!(direct >= 2.0, "{series} {direct}");
    server.stop().await;
}

#[tokio::test]
async fn subscribers_get_only_their_area_and_can_change_it() {
    let server = TestServer::start().await;
    let mut far_tiles = ws_connect(&server, "main", "tiles=50,50,52,52").await;
    let mut far_circle = ws_connect(&server, "main", "x=-3000&z=-3000&radius=500").await;
    let mut near_tiles = ws_connect(&server, "main", "tiles=1,1,1,1").await;
    let mut near_circle = ws_connect(&server, "main", "x=90&z=92&radius=15").await;
    put_zone(&server, "pad", &raised(70.0, 92.0)).await;
    assert_eq!(revision(&ws_event(&mut near_tiles).await), 1);
    assert_eq!(revision(&ws_event(&mut near_circle).await), 1);
    ws_silent(&mut far_tiles, Duration::from_millis(300)).await;
    ws_silent(&mut far_circle, Duration::from_millis(300)).await;

    // Move the far subscribers' areas onto the next change, one of them to "all".
    // Each change is acknowledged once it applies.
    for (ws, area) in [
        (&mut far_tiles, json!({"tiles": [4, 4, 5, 5]})),
        (&mut far_circle, json!({})),
        (&mut near_circle, json!({"x": 0, "z": 0, "radius": 1})),
    ] {
        ws_send(ws, &area).await;
        let ack = ws_event(ws).await;
        assert_eq!(ack["type"], "area", "{ack}");
    }
    // Revision 1 lies in "all" and was never sent to it: replayed after the change.
    assert_eq!(revision(&ws_event(&mut far_circle).await), 1);
    put_zone(&server, "far", &raised(450.0, 450.0)).await;
    assert_eq!(revision(&ws_event(&mut far_tiles).await), 2);
    assert_eq!(revision(&ws_event(&mut far_circle).await), 2);
    ws_silent(&mut near_tiles, Duration::from_millis(300)).await;
    ws_silent(&mut near_circle, Duration::from_millis(300)).await;

    // A bad area is answered with an error naming the field; the area stays.
    ws_send(&mut far_tiles, &json!({"tiles": [1, 2, 3]})).await;
    let error = ws_event(&mut far_tiles).await;
    assert_eq!(error["type"], "error", "{error}");
    assert_eq!(error["error"]["field"], "tiles");
    assert_eq!(error["error"]["code"], "INVALID_ARGUMENT");
    server.stop().await;
}

#[tokio::test]
async fn bad_openings_are_refused_before_the_upgrade() {
    let server = TestServer::start().await;
    put_zone(&server, "pad", &raised(70.0, 92.0)).await;
    let cases: [(&str, u16, &str, Option<&str>); 5] = [
        (
            "main/events?fromRevision=2",
            400,
            "INVALID_ARGUMENT",
            Some("fromRevision"),
        ),
        (
            "main/events?fromRevision=x",
            400,
            "INVALID_ARGUMENT",
            Some("fromRevision"),
        ),
        (
            "main/events?tiles=3,0,1,0",
            400,
            "INVALID_ARGUMENT",
            Some("tiles"),
        ),
        (
            "main/events?x=1&z=1",
            400,
            "INVALID_ARGUMENT",
            Some("radius"),
        ),
        ("nope/events", 404, "NOT_FOUND", Some("world")),
    ];
    for (path, status, code, field) in cases {
        let answer: (reqwest::StatusCode, Value) = server.get(&format!("/v1/worlds/{path}")).await;
        assert_http_error(&answer, status, code, field);
    }
    // A valid opening without the upgrade headers is refused too.
    let answer = server.get("/v1/worlds/main/events?fromRevision=1").await;
    assert_eq!(answer.0.as_u16(), 400, "{}", answer.1);
    server.stop().await;
}

/// Opens the events route as a WebSocket over HTTP/2 (RFC 8441's extended CONNECT,
/// cleartext with prior knowledge); answers the CONNECT's response and, on 200, the
/// stream.
async fn h2_websocket(
    server: &TestServer,
    query: &str,
) -> (
    hyper::Response<hyper::body::Incoming>,
    Option<WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>>,
) {
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (mut send, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
            .await
            .expect("HTTP/2 handshake");
    tokio::spawn(connection);
    let mut request = hyper::Request::builder()
        .method(hyper::Method::CONNECT)
        .uri(format!(
            "http://{}/v1/worlds/main/events?{query}",
            server.addr
        ))
        .header("sec-websocket-version", "13")
        .body(Empty::<Bytes>::new())
        .unwrap();
    request
        .extensions_mut()
        .insert(hyper::ext::Protocol::from_static("websocket"));
    let mut response = tokio::time::timeout(EVENT_WAIT, send.send_request(request))
        .await
        .expect("the CONNECT is answered in time")
        .expect("the CONNECT is answered");
    if response.status() != 200 {
        return (response, None);
    }
    let upgraded = hyper::upgrade::on(&mut response)
        .await
        .expect("the stream opens");
    let ws = WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Client, None).await;
    (response, Some(ws))
}

/// A WebSocket over HTTP/2 (no TCP socket of its own: no direct delivery) gets its
/// events and area acknowledgements from its queue, and a bad opening is refused with
/// the API error as over HTTP/1.1.
#[tokio::test]
async fn a_websocket_over_http2_streams_events_and_refuses_bad_openings() {
    let server = TestServer::start().await;
    let (answer, ws) = h2_websocket(&server, "x=70&z=92&radius=40").await;
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.version(), hyper::Version::HTTP_2);
    let mut ws = ws.expect("a stream on 200");
    for (i, x) in [70.0, 80.0, 90.0].into_iter().enumerate() {
        let answer = put_zone(&server, &format!("h2-pad{i}"), &raised(x, 92.0)).await;
        let event = ws_event(&mut ws).await;
        assert_eq!(event["type"], "event", "{event}");
        assert_eq!(event["revision"], answer["revision"]);
        assert_eq!(event["cause"]["zone"], format!("h2-pad{i}"));
    }
    // The client's frames reach the server too: an area change is acknowledged, and a
    // zone outside the new area is not sent.
    ws_send(&mut ws, &json!({"tiles": [40, 40, 41, 41]})).await;
    assert_eq!(ws_event(&mut ws).await["type"], "area");
    put_zone(&server, "h2-outside", &raised(150.0, 92.0)).await;
    ws_silent(&mut ws, Duration::from_millis(300)).await;
    let sent = server
        .metric(r#"terrain_events_sent_total{world="main"}"#)
        .await;
    assert_eq!(sent, 3.0);
    let direct = server
        .metric(r#"terrain_events_direct_total{world="main"}"#)
        .await;
    assert_eq!(
        direct, 0.0,
        "an HTTP/2 stream has no socket to write directly"
    );
    // The client's close is echoed over HTTP/2 too.
    ws.send(Message::Close(Some(CloseFrame {
        code: CloseCode::Normal,
        reason: "done".into(),
    })))
    .await
    .unwrap();
    let echo = tokio::time::timeout(EVENT_WAIT, ws.next()).await.unwrap();
    assert!(
        matches!(echo, Some(Ok(Message::Close(Some(ref f)))) if f.code == CloseCode::Normal),
        "{echo:?}"
    );

    let (answer, ws) = h2_websocket(&server, "x=1&z=1").await;
    assert_eq!(answer.status(), 400);
    assert!(ws.is_none());
    let body = answer.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&body).expect("a JSON error body");
    assert_eq!(body["error"]["field"], "radius", "{body}");
    server.stop().await;
}
