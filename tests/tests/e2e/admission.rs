//! Request admission: with every `max_in_flight` slot busy, a request is refused at
//! once (503 with `Retry-After`, gRPC `RESOURCE_EXHAUSTED` with `RetryInfo`) while
//! health probes still answer; a request slower than `request_timeout` is answered
//! 504 / `DEADLINE_EXCEEDED` and frees its slot.

use terrain_tests as common;

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

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

/// A request that holds a slot until told to finish: a heights batch whose body is
/// sent in two halves. The server admits it (takes the slot) and then waits for the
/// rest of the body.
struct HeldSlot {
    tcp: tokio::net::TcpStream,
    rest: &'static [u8],
}

impl HeldSlot {
    async fn take(server: &TestServer) -> HeldSlot {
        let body: &'static [u8] = b"{\"points\": [[1, 2], [3, 4]]}";
        let (first, rest) = body.split_at(12);
        let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let head = format!(
            "POST /v1/worlds/main/heights HTTP/1.1\r\nhost: terrain\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        tcp.write_all(first).await.unwrap();
        // The metrics probe is outside admission: wait until the batch holds the slot.
        let deadline = Instant::now() + Duration::from_secs(10);
        while in_flight(server).await < 1.0 {
            assert!(
                Instant::now() < deadline,
                "the held request never took its slot"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        HeldSlot { tcp, rest }
    }

    /// Waits for the answer without sending the rest of the body: the whole answer.
    async fn answer(mut self) -> String {
        let mut answer = Vec::new();
        self.tcp.read_to_end(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    }

    /// Sends the rest of the body; answers the status line.
    async fn finish(mut self) -> String {
        self.tcp.write_all(self.rest).await.unwrap();
        let mut answer = Vec::new();
        self.tcp.read_to_end(&mut answer).await.unwrap();
        let text = String::from_utf8_lossy(&answer).into_owned();
        text.lines().next().unwrap_or_default().to_string()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_server_refuses_at_once_with_retry_after() {
    let server = TestServer::start_with(|c| {
        c.requests.max_in_flight = 1;
        c.requests.retry_after = Duration::from_secs(3);
    })
    .await;
    let held = HeldSlot::take(&server).await;
    // While the slot is held, a request is refused at once.
    let started = Instant::now();
    let answer = server
        .http
        .get(server.url("/v1/worlds/main/height?x=1&z=2"))
        .send()
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(answer.status(), 503);
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
    let mut grpc = server.grpc().await;
    let status = grpc.get_height(height_request()).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let retry = status.get_details_retry_info().expect("RetryInfo");
    assert_eq!(retry.retry_delay, Some(Duration::from_secs(3)));
    // The held request itself is answered once its body is complete.
    assert_eq!(held.finish().await, "HTTP/1.1 200 OK");
    // With the slot free again, requests are served.
    let answer = server
        .http
        .get(server.url("/v1/worlds/main/height?x=1&z=2"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let shed = server.metric("terrain_requests_shed_total").await;
    assert_eq!(shed, 2.0, "one HTTP and one gRPC request shed");
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

/// A request whose work would take longer than the timeout is answered before it, at
/// its deadline (three quarters of it), stopped and refused as too large (413 /
/// `RESOURCE_EXHAUSTED`, its field named), and frees its slot; a request that
/// outlasts the timeout where no work can be stopped (a body that never completes) is
/// answered 504 / `DEADLINE_EXCEEDED` at the timeout and frees its slot too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_request_is_answered_by_the_timeout_and_frees_its_slot() {
    let timeout = Duration::from_millis(200);
    let server = TestServer::start_with(|c| {
        c.requests.max_in_flight = 1;
        c.requests.request_timeout = timeout;
    })
    .await;
    // 64 zones over the heightmap below: computing it takes longer than the timeout
    // even on an idle machine.
    stack_zones(&server, 64, (50.0, 50.0), 300.0).await;
    let started = Instant::now();
    let answer = server.http.get(server.url(SLOW)).send().await.unwrap();
    let took = started.elapsed();
    assert_eq!(answer.status(), 413);
    assert!(took < timeout + Duration::from_secs(2), "took {took:?}");
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(body["error"]["code"], "RESOURCE_EXHAUSTED", "{body}");
    assert_eq!(body["error"]["field"], "nx*nz", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("request_timeout (200ms)"), "{body}");
    // gRPC: the same refusal, its own code, no RetryInfo.
    let mut grpc = server.grpc().await;
    let status = grpc
        .get_heightmap(GetHeightmapRequest {
            world: "main".into(),
            x0: 0.0,
            z0: 0.0,
            step: 0.05,
            nx: 2048,
            nz: 2048,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.get_details_retry_info().is_none(), "{status:?}");
    // The one slot is free again: a quick request is served.
    let quick = grpc
        .get_height(height_request())
        .await
        .unwrap()
        .into_inner();
    assert!(quick.height.is_finite());
    // A body that never completes holds its request past the timeout: 504.
    let held = HeldSlot::take(&server).await;
    let answer = held.answer().await;
    assert!(answer.starts_with("HTTP/1.1 504"), "{answer}");
    assert!(answer.contains("DEADLINE_EXCEEDED"), "{answer}");
    assert!(answer.contains("request_timeout"), "{answer}");
    let answer = server
        .http
        .get(server.url("/v1/worlds/main/height?x=1&z=2"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(in_flight(&server).await, 0.0, "every slot is free again");
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
                ..Default::default()
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
