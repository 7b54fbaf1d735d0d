//! Who may change zones: without an admin token mutations are open; with one, a
//! missing or wrong `Authorization: Bearer` gets 401 / `UNAUTHENTICATED` and changes
//! nothing, the right one succeeds, and reads stay open on both surfaces.

use terrain_tests as common;

use common::*;
use serde_json::{Value, json};
use terrain_proto::v1::{
    FlatZone as PbZone, GetHeightRequest, ListFlatZonesRequest, RegisterFlatZoneRequest,
    UnregisterFlatZoneRequest,
};
use terrain_server::AdminToken;
use tonic::{Code, Request};

const TOKEN: &str = "s3cret-token_42";
const ZONE: &str = "/v1/worlds/main/flat-zones/gate";

fn body() -> Value {
    json!({"centerX": 3.0, "centerZ": 4.0, "radius": 5.0, "height": 9.0, "blendRadius": 1.0})
}

fn pb_zone() -> PbZone {
    PbZone {
        id: "gate2".into(),
        radius: Some(2.0),
        height: Some(1.0),
        ..PbZone::default()
    }
}

/// A gRPC request with `authorization` metadata, if `value` is given.
fn with_auth<T>(message: T, value: Option<&str>) -> Request<T> {
    let mut request = Request::new(message);
    if let Some(value) = value {
        let value = value.parse().expect("metadata value");
        request.metadata_mut().insert("authorization", value);
    }
    request
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_token_mutations_are_open() {
    let server = TestServer::start().await;
    let (status, answer) = server.put_json(ZONE, &body(), None).await;
    assert_eq!(status, 200, "{answer}");
    // A token sent to a server without one is simply not needed.
    let (status, _) = server.delete(ZONE, Some("anything")).await;
    assert_eq!(status, 200);
    let mut client = server.grpc().await;
    let request = RegisterFlatZoneRequest {
        world: "main".into(),
        zone: Some(pb_zone()),
    };
    client.register_flat_zone(request).await.expect("open");
    assert_eq!(server.revision("main").await, 3);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_token_mutations_need_it() {
    let server = TestServer::start_with(|c| {
        c.admin_token = Some(AdminToken::new(TOKEN).expect("token"));
    })
    .await;
    // HTTP: missing or wrong -> 401 with a Bearer challenge; nothing changes.
    for token in [
        None,
        Some("wrong"),
        Some("s3cret-token_4"),
        Some("s3cret-token_421"),
    ] {
        let answer = server.put_json(ZONE, &body(), token).await;
        assert_http_error(&answer, 401, "UNAUTHENTICATED", Some("authorization"));
        let message = answer.1["error"]["message"].as_str().unwrap_or_default();
        assert!(
            !message.contains(TOKEN),
            "the token is never echoed: {message}"
        );
    }
    let response = server
        .http
        .put(server.url(ZONE))
        .json(&body())
        .send()
        .await
        .expect("PUT");
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    let response = server
        .http
        .put(server.url(ZONE))
        .header("authorization", format!("Basic {TOKEN}"))
        .json(&body())
        .send()
        .await
        .expect("PUT");
    assert_eq!(response.status(), 401, "only the Bearer scheme");
    assert_eq!(server.revision("main").await, 0);
    assert!(server.zone_ids("main").await.is_empty());

    let (status, answer) = server.put_json(ZONE, &body(), Some(TOKEN)).await;
    assert_eq!(
        (status.as_u16(), answer["revision"].as_u64()),
        (200, Some(1)),
        "{answer}"
    );
    let answer = server.delete(ZONE, Some("wrong")).await;
    assert_http_error(&answer, 401, "UNAUTHENTICATED", Some("authorization"));
    assert_eq!(
        server.zone_ids("main").await,
        ["gate"],
        "a refused removal removes nothing"
    );

    // Reads stay open.
    let (status, _) = server.get(ZONE).await;
    assert_eq!(status, 200);
    let (status, height) = server.get("/v1/worlds/main/height?x=3&z=4").await;
    assert_eq!(
        (status.as_u16(), height["zone"].as_str()),
        (200, Some("gate"))
    );
    let (status, _) = server.get("/v1/worlds/main/flat-zone-at?x=3&z=4").await;
    assert_eq!(status, 200);

    // gRPC: the same rules through `authorization` metadata.
    let mut client = server.grpc().await;
    let register = || RegisterFlatZoneRequest {
        world: "main".into(),
        zone: Some(pb_zone()),
    };
    for value in [
        None,
        Some("Bearer nope".to_string()),
        Some(TOKEN.to_string()),
    ] {
        let status = client
            .register_flat_zone(with_auth(register(), value.as_deref()))
            .await
            .expect_err("refused");
        assert_eq!(status.code(), Code::Unauthenticated, "{value:?}");
        assert!(
            status.message().starts_with("authorization: "),
            "{}",
            status.message()
        );
    }
    let remove = UnregisterFlatZoneRequest {
        world: "main".into(),
        id: "gate".into(),
    };
    let status = client
        .unregister_flat_zone(with_auth(remove.clone(), Some("Bearer nope")))
        .await
        .expect_err("refused");
    assert_eq!(status.code(), Code::Unauthenticated);
    assert_eq!(server.revision("main").await, 1);

    let bearer = format!("Bearer {TOKEN}");
    let answer = client
        .register_flat_zone(with_auth(register(), Some(&bearer)))
        .await
        .expect("authorized")
        .into_inner();
    assert_eq!(answer.revision, 2);
    let answer = client
        .unregister_flat_zone(with_auth(remove, Some(&bearer)))
        .await
        .expect("authorized")
        .into_inner();
    assert_eq!(answer.revision, 3);
    let list = client
        .list_flat_zones(ListFlatZonesRequest {
            world: "main".into(),
            ..Default::default()
        })
        .await
        .expect("reads are open")
        .into_inner();
    assert_eq!(
        list.zones.iter().map(|z| z.id.as_str()).collect::<Vec<_>>(),
        ["gate2"]
    );
    let height = GetHeightRequest {
        world: "main".into(),
        x: 0.0,
        z: 0.0,
        ..Default::default()
    };
    client.get_height(height).await.expect("reads are open");
    server.stop().await;
}
