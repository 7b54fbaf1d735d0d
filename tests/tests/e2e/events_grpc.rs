//! Tile events over gRPC `terrain.v1.TerrainEvents`: the event a PUT produces,
//! `UpdateSubscription`, refusals, and reflection listing the service.

use terrain_tests as common;

use std::time::Duration;

use common::{
    TestServer,
    events::{events_client, grpc_subscribe, grpc_tile_event, put_zone, raised},
    main_generator, resolve,
};
use terrain_proto::v1::{self as pb, subscription_area::Area};

fn circle(x: f64, z: f64, radius: f64) -> Option<pb::SubscriptionArea> {
    Some(pb::SubscriptionArea {
        area: Some(Area::Circle(pb::AreaCircle { x, z, radius })),
    })
}

fn tiles(min_tx: i64, min_tz: i64, max_tx: i64, max_tz: i64) -> Option<pb::SubscriptionArea> {
    Some(pb::SubscriptionArea {
        area: Some(Area::Tiles(pb::AreaTiles {
            min_tx,
            min_tz,
            max_tx,
            max_tz,
        })),
    })
}

fn request(area: Option<pb::SubscriptionArea>, from: Option<u64>) -> pb::SubscribeRequest {
    pb::SubscribeRequest {
        world: "main".into(),
        area,
        from_revision: from,
        from_epoch: None,
    }
}

#[tokio::test]
async fn a_put_is_announced_over_grpc() {
    let server = TestServer::start().await;
    let mut client = events_client(&server).await;
    let (mut stream, id) = grpc_subscribe(&mut client, request(None, None)).await;
    assert!(!id.is_empty());
    let body = raised(70.0, 92.0);
    let answer = put_zone(&server, "pad", &body).await;
    let event = grpc_tile_event(&mut stream).await;
    assert_eq!(event.world, "main");
    assert_eq!(Some(event.revision), answer["revision"].as_u64());
    let cause = event.cause.expect("cause");
    assert_eq!(
        (cause.zone.as_str(), cause.kind.as_str()),
        ("pad", "registered")
    );
    let tiles: Vec<[i64; 2]> = event.tiles.iter().map(|t| [t.x, t.z]).collect();
    let want: Vec<[i64; 2]> = serde_json::from_value(answer["tiles"].clone()).expect("tiles");
    assert_eq!(tiles, want);
    let b = resolve(&main_generator(), "pad", &body).outer_bounds();
    let got = event.bounds.expect("bounds");
    assert_eq!(
        (got.min_x, got.min_z, got.max_x, got.max_z),
        (b.min_x - 1.0, b.min_z - 1.0, b.max_x + 1.0, b.max_z + 1.0)
    );
    let delta = event.max_height_delta.expect("delta");
    assert!((4.5..8.0).contains(&delta), "{delta}");
    server.stop().await;
}

#[tokio::test]
async fn update_subscription_moves_the_area() {
    let server = TestServer::start().await;
    let mut client = events_client(&server).await;
    let (mut far, far_id) = grpc_subscribe(&mut client, request(tiles(50, 50, 52, 52), None)).await;
    let (mut near, _) = grpc_subscribe(&mut client, request(circle(70.0, 92.0, 5.0), None)).await;
    put_zone(&server, "pad", &raised(70.0, 92.0)).await;
    assert_eq!(grpc_tile_event(&mut near).await.revision, 1);

    client
        .update_subscription(pb::UpdateSubscriptionRequest {
            subscription_id: far_id.clone(),
            area: circle(450.0, 450.0, 1.0),
        })
        .await
        .expect("update");
    put_zone(&server, "far", &raised(450.0, 450.0)).await;
    // Revision 1 never reached `far`; the first thing it sees is revision 2.
    let event = grpc_tile_event(&mut far).await;
    assert_eq!(
        (event.revision, event.cause.expect("cause").zone.as_str()),
        (2, "far")
    );
    let silent = tokio::time::timeout(Duration::from_millis(300), near.message()).await;
    assert!(
        silent.is_err(),
        "near hears nothing of a far change: {silent:?}"
    );

    let bad = client
        .update_subscription(pb::UpdateSubscriptionRequest {
            subscription_id: far_id,
            area: circle(0.0, 0.0, -1.0),
        })
        .await
        .expect_err("negative radius");
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    assert!(bad.message().starts_with("radius"), "{}", bad.message());
    let unknown = client
        .update_subscription(pb::UpdateSubscriptionRequest {
            subscription_id: "nope".into(),
            area: None,
        })
        .await
        .expect_err("unknown id");
    assert_eq!(unknown.code(), tonic::Code::InvalidArgument);
    assert!(
        unknown.message().starts_with("subscription_id: "),
        "{}",
        unknown.message()
    );
    server.stop().await;
}

#[tokio::test]
async fn bad_subscriptions_are_refused() {
    let server = TestServer::start().await;
    let mut client = events_client(&server).await;
    let err = client
        .subscribe(request(None, Some(1)))
        .await
        .expect_err("revision 1 is in the future");
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    assert!(
        err.message().starts_with("from_revision: "),
        "{}",
        err.message()
    );
    let err = client
        .subscribe(request(tiles(2, 0, 1, 0), None))
        .await
        .expect_err("inverted rectangle");
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    let mut other = request(None, None);
    other.world = "nope".into();
    let err = client.subscribe(other).await.expect_err("unknown world");
    assert_eq!(err.code(), tonic::Code::NotFound);
    server.stop().await;
}

#[tokio::test]
async fn reflection_lists_the_events_service() {
    use tokio_stream::StreamExt;
    use tonic_reflection::pb::v1::{
        ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
        server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
    };
    let server = TestServer::start().await;
    let mut client = ServerReflectionClient::new(server.channel().await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut answers = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("reflection")
        .into_inner();
    let answer = answers.next().await.expect("an answer").expect("ok");
    let Some(MessageResponse::ListServicesResponse(list)) = answer.message_response else {
        panic!("expected a service list");
    };
    let names: Vec<&str> = list.service.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"terrain.v1.TerrainEvents"), "{names:?}");
    server.stop().await;
}
