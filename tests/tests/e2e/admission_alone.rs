//! Work that could not finish within `request_timeout` even with the server to itself:
//! a request for it is refused at once, naming the field that sizes it and how to ask
//! for less (413 / `RESOURCE_EXHAUSTED`, no `Retry-After`: retrying cannot help),
//! instead of running into the timeout; and 3D Tiles, whose cold root the server needs
//! whatever a client asks, build it in the background and answer 503 with
//! `Retry-After` until it is ready, so they work at a one-second timeout on the island
//! and on a voxel world.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::*;

use common::voxel::{VOXEL, voxel_worlds};
use serde_json::json;
use terrain_proto::v1::{FindPathRequest, Point2};
use tonic::Code;
use tonic_types::StatusExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_that_could_not_finish_in_time_even_alone_is_refused_naming_max_nodes() {
    let server = TestServer::start_with(|c| {
        c.requests.request_timeout = Duration::from_secs(1);
    })
    .await;
    // A node's estimate comes from a search timed when the world opened (before,
    // four cold heights: a thirtieth of what a node of a long search costs).
    let node = server
        .metric(r#"terrain_work_estimate_seconds{world="main",work="path_node"}"#)
        .await;
    assert!(node * 1e6 > 0.75, "a node estimated at {node} s");
    // 1,000,000 nodes over 4 km: seconds of work if it expands them.
    let search = json!({"from": [-1999.5, 0.5], "to": [1999.5, 0.5], "maxNodes": 1_000_000,
                        "maxDistance": 4000});
    let started = Instant::now();
    let (status, body) = server
        .post_json("/v1/worlds/main/paths/find", &search)
        .await;
    let took = started.elapsed();
    assert_eq!(status, 413, "{body}");
    assert!(
        took < Duration::from_millis(500),
        "refused at once: {took:?}"
    );
    assert_eq!(body["error"]["code"], "RESOURCE_EXHAUSTED", "{body}");
    assert_eq!(body["error"]["field"], "maxNodes", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("maxNodes: "), "{message}");
    assert!(message.contains("request_timeout (1s)"), "{message}");
    assert!(message.contains("lower it"), "{message}");
    // The same over gRPC, naming the proto's field; no RetryInfo.
    let mut grpc = server.grpc().await;
    let status = grpc
        .find_path(FindPathRequest {
            world: "main".into(),
            from: Some(Point2 { x: -1999.5, z: 0.5 }),
            to: Some(Point2 { x: 1999.5, z: 0.5 }),
            max_nodes: 1_000_000,
            max_distance: 4000.0,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.get_details_retry_info().is_none(), "{status:?}");
    let violations = status.get_details_bad_request().expect("a BadRequest");
    assert_eq!(violations.field_violations[0].field, "max_nodes");
    // A search the server can finish is still answered.
    let (status, body) = server
        .post_json(
            "/v1/worlds/main/paths/find",
            &json!({"from": [0.5, 0.5], "to": [6.5, 2.5], "maxNodes": 2000}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    server.stop().await;
}

/// Gets `path` until it answers 200, at most 60 s: every other answer must be 503 with
/// a `Retry-After` (never 504); answers the 503s seen.
async fn until_served(server: &TestServer, path: &str) -> usize {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut unavailable = 0;
    loop {
        let response = server.http.get(server.url(path)).send().await.unwrap();
        let status = response.status().as_u16();
        if status == 200 {
            let body = response.bytes().await.unwrap();
            assert!(!body.is_empty(), "{path}: an empty answer");
            return unavailable;
        }
        let retry = response.headers().get("retry-after").cloned();
        let body = response.text().await.unwrap();
        assert_eq!(status, 503, "{path}: {body}");
        let retry: u64 = retry
            .expect("a Retry-After")
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(retry >= 1, "{path}: Retry-After {retry}");
        assert!(
            body.contains("is being built in the background"),
            "{path}: {body}"
        );
        unavailable += 1;
        assert!(Instant::now() < deadline, "{path}: still 503 after 60 s");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_d_tiles_work_at_a_one_second_timeout_on_the_island_and_a_voxel_world() {
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        c.requests.request_timeout = Duration::from_secs(1);
    })
    .await;
    for world in ["main", VOXEL] {
        let root = format!("/v1/worlds/{world}/3dtiles/content/0/0/0.glb");
        let tileset = format!("/v1/worlds/{world}/3dtiles/tileset.json");
        // Cold, the root content is seconds of work (every height under the square):
        // refused and built in the background, then served.
        let waited = until_served(&server, &root).await;
        assert!(
            waited > 0,
            "{world}: a cold root was built within a request"
        );
        until_served(&server, &tileset).await;
        // Its upper levels too.
        for (x, y) in [(0, 0), (1, 1)] {
            until_served(
                &server,
                &format!("/v1/worlds/{world}/3dtiles/content/1/{x}/{y}.glb"),
            )
            .await;
        }
    }
    server.stop().await;
}

/// At most the first 300 characters of `body`, for a failure's message.
fn short(body: &serde_json::Value) -> String {
    body.to_string().chars().take(300).collect()
}

/// Reads admitted on an estimate that proved too low (surface heights cost several
/// times the cold-height guess they start from) at a half-second timeout: the largest
/// surface heightmap is stopped at three quarters of the timeout and answered 413
/// naming its field (its rate says it could not finish even alone), and asked again is
/// refused at once (batches, terrain infos and other heightmaps are stopped the same
/// way: `compute::run_metered`); cold map tiles, whose renders are kept, answer 503 with `Retry-After` while they render and
/// 200 after. Nothing answers 504 (each did before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_that_prove_too_large_are_answered_before_a_half_second_timeout() {
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        c.requests.request_timeout = Duration::from_millis(500);
    })
    .await;
    // The largest surface heightmap of the island (each sample evaluated on its own):
    // seconds of work, admitted on a guess, stopped, then refused at once.
    let heightmap =
        "/v1/worlds/main/heightmap?x0=-1024&z0=-1024&nx=2048&nz=2048&step=1&mode=surface";
    for attempt in ["first", "again"] {
        let started = Instant::now();
        let (status, body) = server.get(heightmap).await;
        let took = started.elapsed();
        assert_eq!(status, 413, "{attempt}: {}", short(&body));
        assert_eq!(body["error"]["field"], "nx*nz", "{attempt}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.ends_with("(several smaller heightmaps)"),
            "{message}"
        );
        assert!(
            took < Duration::from_millis(500),
            "{attempt}: answered after {took:?}"
        );
        match attempt {
            // Stopped at its deadline, with what it did.
            "first" => assert!(message.contains("stopped unfinished"), "{message}"),
            // The meter learnt from it: refused at once.
            _ => {
                assert!(message.contains("is estimated at"), "{message}");
                assert!(took < Duration::from_millis(200), "refused after {took:?}");
            }
        }
    }
    // Cold map tiles of the voxel world, six at once: 200, or 503 with Retry-After
    // while the render goes on; then each is served.
    let tiles: Vec<String> = (0..6)
        .map(|i| format!("/v1/worlds/{VOXEL}/map/1/{}/{}.png", i % 3 - 1, i / 3 - 1))
        .collect();
    let answers = futures::future::join_all(tiles.iter().map(|path| {
        let (http, url) = (server.http.clone(), server.url(path));
        async move {
            let response = http.get(url).send().await.unwrap();
            let retry = response.headers().get("retry-after").cloned();
            (
                response.status().as_u16(),
                retry,
                response.text().await.unwrap(),
            )
        }
    }))
    .await;
    for (status, retry, body) in &answers {
        assert!(*status == 200 || *status == 503, "{status}: {body}");
        if *status == 503 {
            assert!(retry.is_some(), "{body}");
            assert!(
                body.contains("is still being made") || body.contains("overloaded"),
                "{body}"
            );
        }
    }
    for path in &tiles {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let response = server.http.get(server.url(path)).send().await.unwrap();
            let status = response.status().as_u16();
            if status == 200 {
                break;
            }
            assert_eq!(status, 503, "{path}: {}", response.text().await.unwrap());
            assert!(Instant::now() < deadline, "{path}: still 503 after 60 s");
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
    server.stop().await;
}
