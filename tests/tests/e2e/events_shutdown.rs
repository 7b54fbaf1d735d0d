//! Open event streams end at shutdown and do not hold up the drain.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{
    TestServer,
    events::{events_client, grpc_subscribe, ws_connect, ws_next},
};
use terrain_proto::v1 as pb;

#[tokio::test]
async fn open_streams_close_and_shutdown_stays_within_the_drain_bound() {
    // A long drain bound: stopping well within it shows the streams did not hold it.
    let server = TestServer::start_with(|c| c.shutdown_timeout = Duration::from_secs(20)).await;
    let mut ws = ws_connect(&server, "main", "").await;
    let mut client = events_client(&server).await;
    let request = pb::SubscribeRequest {
        world: "main".into(),
        area: None,
        from_revision: None,
        from_epoch: None,
    };
    let (mut stream, _) = grpc_subscribe(&mut client, request).await;

    let started = Instant::now();
    server.stop().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "shutdown took {:?}",
        started.elapsed()
    );
    assert_eq!(ws_next(&mut ws).await, None, "the WebSocket is closed");
    let end = tokio::time::timeout(Duration::from_secs(5), stream.message())
        .await
        .expect("the gRPC stream ends in time");
    assert!(
        matches!(end, Ok(None)),
        "a clean end of stream, got {end:?}"
    );
}
