//! Operations surfaces against the real server: gRPC health and `/healthz` `/readyz`,
//! server reflection (v1 and v1alpha, so `grpcurl`/`ghz` need no proto file),
//! `/metrics` counting what was asked, and shutdown through the cancellation token.

use terrain_tests as common;

use common::*;
use prost::Message;
use terrain_proto::v1::{GetHeightRequest, GetHeightsRequest};
use tonic::transport::Channel;
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_is_serving_on_both_surfaces() {
    let server = TestServer::start().await;
    let mut health = HealthClient::new(server.channel().await);
    for service in ["", "terrain.v1.TerrainService"] {
        let request = HealthCheckRequest {
            service: service.into(),
        };
        let answer = health.check(request).await.expect("Check").into_inner();
        assert_eq!(
            answer.status(),
            ServingStatus::Serving,
            "service {service:?}"
        );
    }
    let unknown = health
        .check(HealthCheckRequest {
            service: "no.Such".into(),
        })
        .await;
    assert_eq!(
        unknown.expect_err("unknown service").code(),
        tonic::Code::NotFound
    );

    let (status, body) = server.get("/healthz").await;
    assert_eq!(
        (status.as_u16(), body["status"].as_str()),
        (200, Some("ok"))
    );
    let (status, body) = server.get("/readyz").await;
    assert_eq!(
        (status.as_u16(), body["status"].as_str()),
        (200, Some("ready"))
    );
    server.stop().await;
}

/// One reflection exchange per version; the two generated APIs are identical in shape.
macro_rules! reflection_checks {
    ($name:ident, $pb:path) => {
        async fn $name(channel: Channel) {
            use pb::{
                ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
                server_reflection_request::MessageRequest,
                server_reflection_response::MessageResponse,
            };
            use tokio_stream::StreamExt;
            use $pb as pb;
            let mut client = ServerReflectionClient::new(channel);
            let requests = [
                MessageRequest::ListServices(String::new()),
                MessageRequest::FileContainingSymbol("terrain.v1.TerrainService".into()),
                MessageRequest::FileContainingSymbol("terrain.v1.GetHeightsRequest".into()),
                MessageRequest::FileContainingSymbol("grpc.health.v1.Health".into()),
            ]
            .map(|m| ServerReflectionRequest {
                host: String::new(),
                message_request: Some(m),
            });
            let stream = tokio_stream::iter(requests);
            let answers = client
                .server_reflection_info(stream)
                .await
                .expect("reflection")
                .into_inner();
            let answers: Vec<_> = answers
                .map(|a| a.expect("answer").message_response)
                .collect()
                .await;
            assert_eq!(answers.len(), 4);

            let Some(MessageResponse::ListServicesResponse(list)) = &answers[0] else {
                panic!("expected a service list, got {:?}", answers[0]);
            };
            let names: Vec<&str> = list.service.iter().map(|s| s.name.as_str()).collect();
            for expected in ["terrain.v1.TerrainService", "grpc.health.v1.Health"] {
                assert!(
                    names.contains(&expected),
                    "{expected} missing from {names:?}"
                );
            }
            for (answer, file) in answers[1..].iter().zip([
                "terrain/v1/terrain.proto",
                "terrain/v1/terrain.proto",
                "health.proto",
            ]) {
                let Some(MessageResponse::FileDescriptorResponse(files)) = answer else {
                    panic!("expected a file descriptor, got {answer:?}");
                };
                let names: Vec<String> = files
                    .file_descriptor_proto
                    .iter()
                    .map(|bytes| {
                        prost_types::FileDescriptorProto::decode(bytes.as_slice())
                            .expect("descriptor")
                    })
                    .map(|fd| fd.name().to_string())
                    .collect();
                assert!(
                    names.iter().any(|n| n.ends_with(file)),
                    "{file} not in {names:?}"
                );
            }
        }
    };
}

reflection_checks!(reflect_v1, tonic_reflection::pb::v1);
reflection_checks!(reflect_v1alpha, tonic_reflection::pb::v1alpha);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_v1_and_v1alpha() {
    let server = TestServer::start().await;
    reflect_v1(server.channel().await).await;
    reflect_v1alpha(server.channel().await).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_requests_per_route_and_method() {
    let server = TestServer::start().await;
    for x in [1.0, 2.0, 3.0] {
        let (status, _) = server
            .get(&format!("/v1/worlds/main/height?x={x}&z=0"))
            .await;
        assert_eq!(status, 200);
    }
    let (status, _) = server.get("/v1/worlds/nope/height?x=0&z=0").await;
    assert_eq!(status, 404);
    let mut client = server.grpc().await;
    client
        .get_height(GetHeightRequest {
            world: "main".into(),
            x: 1.0,
            z: 2.0,
            ..Default::default()
        })
        .await
        .expect("GetHeight");
    client
        .get_height(GetHeightRequest {
            world: "main".into(),
            x: f64::NAN,
            z: 2.0,
            ..Default::default()
        })
        .await
        .expect_err("NaN");
    let batch = GetHeightsRequest {
        world: "main".into(),
        coordinates: vec![0.5; 20],
        ..Default::default()
    };
    client.get_heights(batch).await.expect("GetHeights");

    let response = server
        .http
        .get(server.url("/metrics"))
        .send()
        .await
        .expect("GET /metrics");
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .starts_with("text/plain")
    );
    let text = response.text().await.expect("text");
    let expect = [
        (
            r#"terrain_http_requests_total{route="/v1/worlds/{world}/height",method="GET",status="200"}"#,
            3.0,
        ),
        (
            r#"terrain_http_requests_total{route="/v1/worlds/{world}/height",method="GET",status="404"}"#,
            1.0,
        ),
        (
            r#"terrain_http_request_duration_seconds_count{route="/v1/worlds/{world}/height",method="GET"}"#,
            4.0,
        ),
        (
            r#"terrain_grpc_requests_total{method="/terrain.v1.TerrainService/GetHeight",code="OK"}"#,
            1.0,
        ),
        (
            r#"terrain_grpc_requests_total{method="/terrain.v1.TerrainService/GetHeight",code="INVALID_ARGUMENT"}"#,
            1.0,
        ),
        (
            r#"terrain_grpc_requests_total{method="/terrain.v1.TerrainService/GetHeights",code="OK"}"#,
            1.0,
        ),
        (
            r#"terrain_grpc_request_duration_seconds_count{method="/terrain.v1.TerrainService/GetHeight"}"#,
            2.0,
        ),
        // 3 HTTP heights + 1 gRPC height + 10 batch points; refused requests compute none.
        (r#"terrain_heights_computed_total{world="main"}"#, 14.0),
    ];
    for (series, value) in expect {
        assert_eq!(
            metric_sample(&text, series),
            Some(value),
            "{series} in\n{text}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_token_stops_the_server() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let (status, _) = server.get("/healthz").await;
    assert_eq!(status, 200);
    // `stop` cancels the token and waits (bounded) for the drain to finish.
    server.stop().await;
    let refused = tokio::time::timeout(TIMEOUT, tokio::net::TcpStream::connect(addr))
        .await
        .expect("no hang");
    assert!(refused.is_err(), "the listener is closed after shutdown");
}
