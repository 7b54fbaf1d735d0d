//! Browsers on other origins (`cors_origins`): an allowed origin may read answers
//! (errors included) and their `x-terrain-*` headers, a preflight for a mutation is
//! answered, a foreign origin gets no CORS header, no list means no CORS at all, gRPC
//! is unaffected, and the events WebSocket refuses a foreign page's `Origin`.

use terrain_tests as common;

use common::{
    TestServer, assert_http_error,
    events::{EVENT_WAIT, Ws},
};
use reqwest::{
    Method, StatusCode,
    header::{HeaderMap, ORIGIN},
};
use serde_json::Value;
use terrain_proto::v1::GetHeightRequest;
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest as _};

const GAME: &str = "https://game.example";
const FOREIGN: &str = "https://elsewhere.example";

/// A server whose `cors_origins` are `origins`.
async fn serving(origins: &[&str]) -> TestServer {
    TestServer::start_with(|c| c.cors_origins = origins.iter().map(|o| o.to_string()).collect())
        .await
}

/// `method path` with `Origin: origin` and `headers`: the status, the headers and the
/// body.
async fn ask(
    server: &TestServer,
    method: Method,
    path: &str,
    origin: Option<&str>,
    headers: &[(&str, &str)],
) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut request = server.http.request(method, server.url(path));
    if let Some(origin) = origin {
        request = request.header(ORIGIN, origin);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let headers = response.headers().clone();
    (
        status,
        headers,
        response.bytes().await.expect("body").to_vec(),
    )
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().expect("ASCII"))
}

/// The comma-separated names of a list header, lower case.
fn names(headers: &HeaderMap, name: &str) -> Vec<String> {
    header(headers, name)
        .unwrap_or_default()
        .split(',')
        .map(|n| n.trim().to_ascii_lowercase())
        .filter(|n| !n.is_empty())
        .collect()
}

/// Every `access-control-*` header of an answer.
fn cors_headers(headers: &HeaderMap) -> Vec<&str> {
    headers
        .keys()
        .map(|k| k.as_str())
        .filter(|k| k.starts_with("access-control-"))
        .collect()
}

const HEIGHT: &str = "/v1/worlds/main/height?x=10&z=20";

#[tokio::test]
async fn an_allowed_origin_reads_heights_and_the_terrain_headers() {
    let server = serving(&[GAME, "http://localhost:5173"]).await;
    let (status, headers, body) = ask(&server, Method::GET, HEIGHT, Some(GAME), &[]).await;
    assert_eq!(status, StatusCode::OK);
    let answer: Value = serde_json::from_slice(&body).expect("JSON");
    assert!(answer["height"].is_number(), "{answer}");
    assert_eq!(header(&headers, "access-control-allow-origin"), Some(GAME));
    let exposed = names(&headers, "access-control-expose-headers");
    for name in [
        "x-terrain-revision",
        "x-terrain-cache",
        "etag",
        "retry-after",
    ] {
        assert!(exposed.iter().any(|n| n == name), "{name} in {exposed:?}");
    }
    assert!(
        names(&headers, "vary").iter().any(|n| n == "origin"),
        "an answer that depends on Origin says so: {headers:?}"
    );
    assert_eq!(
        header(&headers, "access-control-allow-credentials"),
        None,
        "no credentials"
    );
    // The other listed origin, too, by its own name.
    let other = "http://localhost:5173";
    let (_, headers, _) = ask(&server, Method::GET, HEIGHT, Some(other), &[]).await;
    assert_eq!(header(&headers, "access-control-allow-origin"), Some(other));
    server.stop().await;
}

#[tokio::test]
async fn a_preflight_for_a_put_with_a_token_is_answered() {
    let server = serving(&[GAME]).await;
    let preflight = [
        ("access-control-request-method", "PUT"),
        (
            "access-control-request-headers",
            "content-type,authorization",
        ),
    ];
    let path = "/v1/worlds/main/flat-zones/pad";
    let (status, headers, body) = ask(&server, Method::OPTIONS, path, Some(GAME), &preflight).await;
    assert!(status.is_success(), "{status}");
    assert!(body.is_empty());
    assert_eq!(header(&headers, "access-control-allow-origin"), Some(GAME));
    let methods = names(&headers, "access-control-allow-methods");
    for method in ["get", "post", "put", "delete"] {
        assert!(
            methods.iter().any(|m| m == method),
            "{method} in {methods:?}"
        );
    }
    let allowed = names(&headers, "access-control-allow-headers");
    for name in ["content-type", "authorization", "if-none-match"] {
        assert!(allowed.iter().any(|n| n == name), "{name} in {allowed:?}");
    }
    assert_eq!(header(&headers, "access-control-max-age"), Some("3600"));

    // A foreign page's preflight is answered without its origin: the browser stops.
    let (_, headers, _) = ask(&server, Method::OPTIONS, path, Some(FOREIGN), &preflight).await;
    assert_eq!(header(&headers, "access-control-allow-origin"), None);

    // An OPTIONS that is no preflight is routed as without CORS: 405.
    let (status, _, body) = ask(&server, Method::OPTIONS, path, None, &[]).await;
    let body: Value = serde_json::from_slice(&body).expect("JSON error");
    assert_http_error(&(status, body), 405, "METHOD_NOT_ALLOWED", None);
    server.stop().await;
}

#[tokio::test]
async fn a_foreign_origin_gets_no_allow_origin() {
    let server = serving(&[GAME]).await;
    let (status, headers, _) = ask(&server, Method::GET, HEIGHT, Some(FOREIGN), &[]).await;
    assert_eq!(status, StatusCode::OK, "answered: the browser withholds it");
    assert_eq!(header(&headers, "access-control-allow-origin"), None);
    // An origin differing only in its port or scheme is another origin.
    for near in ["https://game.example:8443", "http://game.example"] {
        let (_, headers, _) = ask(&server, Method::GET, HEIGHT, Some(near), &[]).await;
        assert_eq!(
            header(&headers, "access-control-allow-origin"),
            None,
            "{near}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn error_answers_carry_the_headers_too() {
    let server = serving(&[GAME]).await;
    let cases = [
        ("/v1/nowhere", 404, "NOT_FOUND", None),
        (
            "/v1/worlds/atlantis/height?x=0&z=0",
            404,
            "NOT_FOUND",
            Some("world"),
        ),
        (
            "/v1/worlds/main/height?x=east&z=0",
            400,
            "INVALID_ARGUMENT",
            Some("x"),
        ),
    ];
    for (path, status, code, field) in cases {
        let (got, headers, body) = ask(&server, Method::GET, path, Some(GAME), &[]).await;
        let body: Value = serde_json::from_slice(&body).expect("JSON error");
        assert_http_error(&(got, body), status, code, field);
        assert_eq!(
            header(&headers, "access-control-allow-origin"),
            Some(GAME),
            "{path}"
        );
    }
    // A refused mutation (no such zone), readable by the page.
    let (status, headers, _) = ask(
        &server,
        Method::DELETE,
        "/v1/worlds/main/flat-zones/pad",
        Some(GAME),
        &[],
    )
    .await;
    assert!(status.is_client_error(), "{status}");
    assert_eq!(header(&headers, "access-control-allow-origin"), Some(GAME));
    server.stop().await;
}

#[tokio::test]
async fn any_origin_with_a_star() {
    let server = serving(&["*"]).await;
    let (_, headers, _) = ask(&server, Method::GET, HEIGHT, Some(FOREIGN), &[]).await;
    assert_eq!(header(&headers, "access-control-allow-origin"), Some("*"));
    assert_eq!(header(&headers, "access-control-allow-credentials"), None);
    // Any page may open the WebSocket.
    ws_open(&server, Some(FOREIGN)).await.expect("any origin");
    server.stop().await;
}

#[tokio::test]
async fn without_origins_there_are_no_cors_headers() {
    let server = TestServer::start().await;
    let (status, headers, _) = ask(&server, Method::GET, HEIGHT, Some(GAME), &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(cors_headers(&headers), Vec::<&str>::new());
    let (_, headers, _) = ask(&server, Method::GET, "/v1/nowhere", Some(GAME), &[]).await;
    assert_eq!(cors_headers(&headers), Vec::<&str>::new());
    let preflight = [("access-control-request-method", "PUT")];
    let path = "/v1/worlds/main/flat-zones/pad";
    let (status, headers, _) = ask(&server, Method::OPTIONS, path, Some(GAME), &preflight).await;
    assert_eq!(
        status,
        StatusCode::METHOD_NOT_ALLOWED,
        "no preflight answer"
    );
    assert_eq!(cors_headers(&headers), Vec::<&str>::new());
    // Any page may open the WebSocket, as before.
    ws_open(&server, Some(FOREIGN))
        .await
        .expect("no Origin check");
    server.stop().await;
}

#[tokio::test]
async fn grpc_is_served_under_cors() {
    let server = serving(&[GAME]).await;
    let request = GetHeightRequest {
        world: "main".into(),
        x: 10.0,
        z: 20.0,
        ..Default::default()
    };
    let mut client = server.grpc().await;
    let answer = client.get_height(request.clone()).await.expect("GetHeight");
    let (status, _, body) = ask(&server, Method::GET, HEIGHT, None, &[]).await;
    assert_eq!(status, StatusCode::OK);
    let http: Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(Some(answer.into_inner().height), http["height"].as_f64());
    let unknown = client
        .get_height(GetHeightRequest {
            world: "atlantis".into(),
            ..request
        })
        .await
        .expect_err("no such world");
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    server.stop().await;
}

/// Opens the events WebSocket of `main` with `Origin: origin` (if any): the socket,
/// or the HTTP answer that refused the upgrade (status and JSON body).
async fn ws_open(server: &TestServer, origin: Option<&str>) -> Result<Ws, (StatusCode, Value)> {
    let url = format!("ws://{}/v1/worlds/main/events", server.addr);
    let mut request = url.into_client_request().expect("request");
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert(ORIGIN, origin.parse().expect("header value"));
    }
    let connected = tokio::time::timeout(EVENT_WAIT, tokio_tungstenite::connect_async(request))
        .await
        .expect("answered in time");
    match connected {
        Ok((ws, _)) => Ok(ws),
        Err(tungstenite::Error::Http(response)) => {
            let status = StatusCode::from_u16(response.status().as_u16()).expect("status");
            let body = (*response).into_body().unwrap_or_default();
            Err((status, serde_json::from_slice(&body).expect("JSON error")))
        }
        Err(e) => panic!("WebSocket: {e}"),
    }
}

#[tokio::test]
async fn the_websocket_refuses_a_foreign_pages_origin() {
    let server = serving(&[GAME]).await;
    let refused = ws_open(&server, Some(FOREIGN))
        .await
        .expect_err("a foreign origin is refused");
    assert_http_error(&refused, 403, "PERMISSION_DENIED", Some("origin"));
    let message = refused.1["error"]["message"].as_str().unwrap();
    assert!(message.contains(FOREIGN), "{message}");
    let refused = ws_open(&server, Some("null"))
        .await
        .expect_err("an opaque origin");
    assert_http_error(&refused, 403, "PERMISSION_DENIED", Some("origin"));

    let mut allowed = ws_open(&server, Some(GAME))
        .await
        .expect("an allowed origin");
    // Not a browser: no Origin, no check.
    let mut plain = ws_open(&server, None).await.expect("no Origin");
    for ws in [&mut allowed, &mut plain] {
        ws.close(None).await.expect("close");
    }
    server.stop().await;
}
