//! Request admission: with every `max_in_flight` slot busy, a request is refused at
//! once (503 with `Retry-After`, gRPC `RESOURCE_EXHAUSTED` with `RetryInfo`) while
//! health probes still answer; a request slower than `request_timeout` is answered
//! 504 / `DEADLINE_EXCEEDED` and frees its slot.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{events::stack_zones, *};
use terrain_proto::v1::{GetHeightRequest, GetHeightmapRequest};
use tonic::Code;
use tonic_types::StatusExt;

/// A heightmap that keeps the server busy for a good while (4M samples as JSON).
const SLOW: &str = "/v1/worlds/main/heightmap?x0=0&z0=0&nx=2048&nz=2048&step=1";

fn height_request() -> GetHeightRequest {
    GetHeightRequest {
        world: "main".into(),
        x: 10.0,
        z: 20.0,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_server_refuses_at_once_with_retry_after() {
    let server = TestServer::start_with(|c| {
        c.requests.max_in_flight = 1;
        c.requests.retry_after = Duration::from_secs(3);
    })
    .await;
    let http = server.http.clone();
    let slow = tokio::spawn(http.get(server.url(SLOW)).send());
    // The metrics probe is outside admission: wait until the slow request holds the
    // one slot, so no height request below can take it first.
    while in_flight(&server).await < 1.0 {
        assert!(
            !slow.is_finished(),
            "the slow request ended before taking its slot"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Until the slow request ends, some request must be refused (its slot is taken).
    let mut refused = None;
    while !slow.is_finished() {
        let started = Instant::now();
        let answer = server
            .http
            .get(server.url("/v1/worlds/main/height?x=1&z=2"))
            .send()
            .await
            .unwrap();
        if answer.status() == 503 {
            refused = Some((answer, started.elapsed()));
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let (answer, took) = refused.expect("a request refused while the slot was busy");
    assert!(
        took < Duration::from_secs(1),
        "refused at once, took {took:?}"
    );
    assert_eq!(answer.headers()["retry-after"], "3");
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(body["error"]["code"], "RESOURCE_EXHAUSTED", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("max_in_flight"),
        "{body}"
    );
    // Probes are outside admission.
    let health = server
        .http
        .get(server.url("/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let metrics = server
        .http
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(metrics.status(), 200);
    // gRPC shares the slots.
    if !slow.is_finished() {
        let mut grpc = server.grpc().await;
        let status = grpc.get_height(height_request()).await.unwrap_err();
        if !slow.is_finished() {
            assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
            let retry = status.get_details_retry_info().expect("RetryInfo");
            assert_eq!(retry.retry_delay, Some(Duration::from_secs(3)));
        }
    }
    let slow = slow.await.unwrap().unwrap();
    assert_eq!(slow.status(), 200);
    // With the slot free again, requests are served.
    let answer = server
        .http
        .get(server.url("/v1/worlds/main/height?x=1&z=2"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let text = server
        .http
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let shed = metric_sample(&text, "terrain_requests_shed_total").expect("shed counter");
    assert!(shed >= 1.0, "{shed}");
    assert_eq!(in_flight(&server).await, 0.0, "every slot is free again");
}

/// `terrain_requests_in_flight` as `/metrics` shows it now (0 before the first request).
async fn in_flight(server: &TestServer) -> f64 {
    let text = server
        .http
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    metric_sample(&text, "terrain_requests_in_flight").unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_request_is_cut_off_at_the_timeout_and_frees_its_slot() {
    let timeout = Duration::from_millis(200);
    let server = TestServer::start_with(|c| {
        c.requests.max_in_flight = 1;
        c.requests.request_timeout = timeout;
    })
    .await;
    // 64 zones over the gRPC heightmap below: computing it takes longer than the
    // timeout even on an idle machine (binary, it has no JSON to encode).
    stack_zones(&server, 64, (50.0, 50.0), 300.0).await;
    let started = Instant::now();
    let answer = server.http.get(server.url(SLOW)).send().await.unwrap();
    let took = started.elapsed();
    assert_eq!(answer.status(), 504);
    assert!(took < timeout + Duration::from_secs(2), "took {took:?}");
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(body["error"]["code"], "DEADLINE_EXCEEDED", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("request_timeout"),
        "{body}"
    );
    // gRPC: the same limit, its own code.
    let mut grpc = server.grpc().await;
    let status = grpc
        .get_heightmap(GetHeightmapRequest {
            world: "main".into(),
            x0: 0.0,
            z0: 0.0,
            step: 0.05,
            nx: 2048,
            nz: 2048,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    // The one slot is free again: a quick request is served.
    let quick = grpc
        .get_height(height_request())
        .await
        .unwrap()
        .into_inner();
    assert!(quick.height.is_finite());
    let answer = server
        .http
        .get(server.url("/v1/worlds/main/height?x=1&z=2"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_heightmap_is_not_starved_by_a_huge_one() {
    let server = TestServer::start().await;
    let mut grpc = server.grpc().await;
    let huge = tokio::spawn(async move {
        let started = Instant::now();
        let answer = grpc
            .get_heightmap(GetHeightmapRequest {
                world: "main".into(),
                x0: 0.0,
                z0: 0.0,
                step: 1.0,
                nx: 2048,
                nz: 2048,
            })
            .await;
        (
            answer.map(|a| a.into_inner().heights.len()),
            started.elapsed(),
        )
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    let small = server
        .http
        .get(server.url("/v1/worlds/main/heightmap?x0=0&z0=0&nx=256&nz=256&step=2"))
        .send()
        .await
        .unwrap();
    let waited = started.elapsed();
    assert_eq!(small.status(), 200);
    let small_done_first = !huge.is_finished();
    let (answer, huge_took) = huge.await.unwrap();
    assert_eq!(answer.unwrap(), 2048 * 2048);
    // The pool takes slices of both in turn: the small one (16 slices and its JSON
    // encoding) is answered while the huge one (1,024 slices) is still being computed,
    // in a fraction of the huge one's time (queued behind it, it took a third).
    assert!(
        small_done_first && waited * 5 < huge_took,
        "the small heightmap took {waited:?}, the huge one {huge_took:?}"
    );
}
