//! What a probe broke in the lifecycle (issue 12), end to end: far viewers (the
//! probe's, with the largest `max_coordinate` start-up accepts) are refused at once,
//! naming the field (no hang, no panic, `/healthz` still answers); a viewer leaving
//! its tiles does not stall the next request for the cull grace; and a `TrackViewers` stream's viewers are gone
//! once the stream ends, including updates it had already sent.

use terrain_tests as common;

use std::time::{Duration, Instant};

use super::lifecycle::{VIEWERS, upsert, viewer};
use common::{TestServer, assert_http_error};
use terrain_proto::v1::{
    self as pb, terrain_lifecycle_client::TerrainLifecycleClient, viewer_update::Update,
};
use terrain_server::config::values::MAX_MAX_COORDINATE;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

/// A refusal must come this fast (the probe's server never answered).
const PROMPT: Duration = Duration::from_secs(5);

/// `GET /healthz` on a new connection, with its own short timeout.
async fn healthz(server: &TestServer) -> u16 {
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(PROMPT)
        .build()
        .expect("client");
    let response = client.get(server.url("/healthz")).send().await;
    response.expect("/healthz answers").status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn far_viewers_are_refused_at_once_naming_the_field() {
    // Start-up refuses the probe's 1e300 now; the largest accepted limit is served.
    // (The lifecycle refuses these viewers whatever the limit: its unit tests use
    // 1e300.)
    let mut config = terrain_server::Config::default();
    config.limits.max_coordinate = 1e300;
    let err = config
        .validate()
        .expect_err("max_coordinate = 1e300 is refused");
    assert!(err.to_string().contains("max_coordinate"), "{err}");
    let max = MAX_MAX_COORDINATE;
    let server = TestServer::start_with(|c| c.limits.max_coordinate = max).await;
    let cases = [
        (viewer(0.0, -1e300, 100.0, 100.0), 400, "z"),
        (viewer(0.0, -1e21, 100.0, 100.0), 400, "z"),
        (viewer(-1e21, 0.0, 100.0, 100.0), 400, "x"),
        (viewer(1e299, 0.0, 1e299, 1e299), 400, "x"),
        (viewer(0.0, 0.0, 1e299, 1e299), 400, "viewWidth"),
        // Within every limit of the configuration, but far over the tile limit.
        (viewer(max, -max, 2.0 * max, 2.0 * max), 413, "viewWidth"),
        (viewer(0.0, 0.0, 100.0, max), 413, "viewDepth"),
    ];
    for (body, status, field) in cases {
        let start = Instant::now();
        let answer = tokio::time::timeout(
            PROMPT,
            server.put_json(&format!("{VIEWERS}/far"), &body, None),
        )
        .await
        .unwrap_or_else(|_| panic!("{body} answered within {PROMPT:?}"));
        let code = if status == 413 {
            "RESOURCE_EXHAUSTED"
        } else {
            "INVALID_ARGUMENT"
        };
        assert_http_error(&answer, status, code, Some(field));
        assert!(start.elapsed() < PROMPT, "{body}: {:?}", start.elapsed());
        assert_eq!(healthz(&server).await, 200, "after {body}");
    }
    // Nothing was registered, and a viewer near the origin still works.
    let (status, live) = server.get("/v1/worlds/main/live-tiles").await;
    assert_eq!(status, 200, "{live}");
    assert_eq!(live["viewers"], 0);
    let (status, _) = server
        .put_json(
            &format!("{VIEWERS}/near"),
            &viewer(0.0, 0.0, 100.0, 100.0),
            None,
        )
        .await;
    assert_eq!(status, 200);
    server.stop().await;
}

/// Waits until `n` tiles have been generated (so leaving them schedules culls).
async fn generated(server: &TestServer, n: f64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let series = r#"terrain_lifecycle_generated_total{world="main"}"#;
    while server.metric(series).await < n {
        assert!(Instant::now() < deadline, "{n} tiles generated in time");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A height on a new connection; answers how long it took.
async fn fresh_height(server: &TestServer) -> Duration {
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client");
    let start = Instant::now();
    let response = client
        .get(server.url("/v1/worlds/main/height?x=1&z=2"))
        .send()
        .await
        .expect("height");
    assert_eq!(response.status(), 200);
    start.elapsed()
}

/// Issue 12: after a viewer left its tiles (deleted, moved away, removed from a
/// stream or with its stream), the next request on a new connection waited for the
/// whole cull grace. With the default 10 s grace, each answers in well under 1 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_tiles_does_not_stall_the_next_request() {
    let server = TestServer::start().await;
    let fast = Duration::from_secs(1);
    let path = format!("{VIEWERS}/a");

    // Deleted.
    let (status, _) = server
        .put_json(&path, &viewer(0.0, 0.0, 100.0, 100.0), None)
        .await;
    assert_eq!(status, 200);
    generated(&server, 25.0).await;
    let response = server.http.delete(server.url(&path)).send().await;
    assert_eq!(response.expect("DELETE").status(), 204);
    let took = fresh_height(&server).await;
    assert!(took < fast, "after a delete: {took:?}");

    // Moved out of every ring.
    let (status, _) = server
        .put_json(&path, &viewer(5000.0, 0.0, 100.0, 100.0), None)
        .await;
    assert_eq!(status, 200);
    generated(&server, 50.0).await;
    let (status, _) = server
        .put_json(&path, &viewer(-5000.0, 0.0, 100.0, 100.0), None)
        .await;
    assert_eq!(status, 200);
    let took = fresh_height(&server).await;
    assert!(took < fast, "after a move: {took:?}");
    generated(&server, 75.0).await;

    // Removed on a stream, then the stream cancelled.
    let mut client = TerrainLifecycleClient::new(server.channel().await);
    let (tx, rx) = mpsc::channel(8);
    tx.send(upsert("s", 10_000.0, 0.0)).await.unwrap();
    let mut stream = client
        .track_viewers(ReceiverStream::new(rx))
        .await
        .expect("stream opens")
        .into_inner();
    generated(&server, 100.0).await;
    tx.send(pb::ViewerUpdate {
        world: String::new(),
        update: Some(Update::Remove("s".into())),
    })
    .await
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.get("/v1/worlds/main/live-tiles").await.1["viewers"] != 1 {
        assert!(Instant::now() < deadline, "stream remove applied");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let took = fresh_height(&server).await;
    assert!(took < fast, "after a stream remove: {took:?}");
    tx.send(upsert("s", -10_000.0, 0.0)).await.unwrap();
    generated(&server, 125.0).await;
    drop(stream.message().await);
    drop(stream);
    drop(tx);
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.get("/v1/worlds/main/live-tiles").await.1["viewers"] != 1 {
        assert!(Instant::now() < deadline, "stream viewers removed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let took = fresh_height(&server).await;
    assert!(took < fast, "after a cancelled stream: {took:?}");
    server.stop().await;
}
/// Issue 11: an update a stream had already sent when it ended re-added a
/// stream-owned viewer that nothing ever removed. Streams that send a burst of
/// updates and end at once leave no viewer behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_leaves_no_viewer_behind() {
    let server = TestServer::start().await;
    let mut client = TerrainLifecycleClient::new(server.channel().await);
    for round in 0..20 {
        let (tx, rx) = mpsc::channel(256);
        tx.send(upsert(&format!("r{round}-0"), 0.0, 0.0))
            .await
            .unwrap();
        let mut stream = client
            .track_viewers(ReceiverStream::new(rx))
            .await
            .expect("stream opens")
            .into_inner();
        // The snapshot: the server reads this stream's updates from now on.
        stream.message().await.expect("snapshot").expect("open");
        for i in 1..200 {
            let x = f64::from(i) * 1000.0;
            tx.send(upsert(&format!("r{round}-{i}"), x, 0.0))
                .await
                .unwrap();
        }
        // Cancelled with updates in flight.
        drop(stream);
        drop(tx);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, live) = server.get("/v1/worlds/main/live-tiles").await;
        if live["viewers"] == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "stream viewers removed: {}",
            live["viewers"]
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // And they stay gone: once every stream has ended on the server (its updates
    // are no longer read), none re-added one late.
    let deadline = Instant::now() + Duration::from_secs(10);
    while server
        .metric(r#"terrain_open_streams{kind="track_viewers"}"#)
        .await
        > 0.0
    {
        assert!(Instant::now() < deadline, "the streams never ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (_, live) = server.get("/v1/worlds/main/live-tiles").await;
    assert_eq!(live["viewers"], 0, "{live}");
    server.stop().await;
}

/// Issue 11's status codes: a viewer another reporter owns is `FAILED_PRECONDITION`
/// (HTTP 409, a stream's `rejected` code), not an invalid argument.
#[tokio::test]
async fn a_viewer_owned_by_another_reporter_is_a_failed_precondition() {
    let server = TestServer::start().await;
    let (status, _) = server
        .put_json(
            &format!("{VIEWERS}/http"),
            &viewer(0.0, 0.0, 10.0, 10.0),
            None,
        )
        .await;
    assert_eq!(status, 200);
    let mut client = TerrainLifecycleClient::new(server.channel().await);
    let (tx, rx) = mpsc::channel(8);
    tx.send(upsert("streamed", 0.0, 0.0)).await.unwrap();
    let mut stream = client
        .track_viewers(ReceiverStream::new(rx))
        .await
        .expect("stream opens")
        .into_inner();
    tx.send(upsert("http", 50.0, 0.0)).await.unwrap();
    let rejected = loop {
        let event = tokio::time::timeout(PROMPT, stream.message())
            .await
            .expect("in time")
            .expect("stream ok")
            .expect("stream open");
        if let Some(pb::lifecycle_event::Kind::Rejected(r)) = event.kind {
            break r;
        }
    };
    assert_eq!(
        (
            rejected.viewer_id.as_str(),
            rejected.field.as_str(),
            rejected.code
        ),
        ("http", "id", tonic::Code::FailedPrecondition as i32),
        "{rejected:?}"
    );
    let answer = server
        .put_json(
            &format!("{VIEWERS}/streamed"),
            &viewer(0.0, 0.0, 10.0, 10.0),
            None,
        )
        .await;
    assert_http_error(&answer, 409, "FAILED_PRECONDITION", Some("id"));
    drop(tx);
    server.stop().await;
}
