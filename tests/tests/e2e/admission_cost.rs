//! Admission by cost: behind queued work, a request whose estimated work would not
//! finish within `request_timeout` is refused at once (503 with `Retry-After`, gRPC
//! `RESOURCE_EXHAUSTED` with `RetryInfo`) while a request that fits alone is admitted;
//! map tiles and meshes whose request timed out are still built and cached, so the
//! retry is a hit.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::*;

use common::voxel::{VOXEL, voxel_worlds};
use terrain_proto::v1::GetHeightmapRequest;
use tonic::Code;
use tonic_types::StatusExt;

/// Polls `/metrics` until `series` is above zero; fails after 30 s.
async fn until_positive(server: &TestServer, series: &str) -> f64 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let value = server.metric(series).await;
        if value > 0.0 {
            return value;
        }
        assert!(Instant::now() < deadline, "{series} stayed at 0");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_queued_work_a_request_that_cannot_finish_in_time_is_refused_at_once() {
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        c.requests.request_timeout = Duration::from_secs(1);
    })
    .await;
    let estimate = server
        .metric(r#"terrain_work_estimate_seconds{world="blocks",work="heightmap_sample"}"#)
        .await;
    assert!(
        estimate > 0.0 && estimate < 1e-3,
        "a heightmap sample is estimated at {estimate} s"
    );
    // A heightmap of samples 16 m apart (a cold column each) estimated at 1.2 s of
    // work: 0.6 s alone on the two threads, within three quarters of the timeout, so
    // it is admitted; beside itself it would take 1.2 s, so a second is refused.
    let side = (1.2 / estimate).sqrt().floor() as u32;
    assert!(side > 1 && side <= 2048, "a side of {side} samples");
    let heavy_path =
        format!("/v1/worlds/blocks/heightmap?x0=-16000&z0=-16000&nx={side}&nz={side}&step=16");
    let first = tokio::spawn(server.http.get(server.url(&heavy_path)).send());
    let queued = until_positive(&server, "terrain_compute_queued_seconds").await;
    let expected = estimate * f64::from(side) * f64::from(side);
    assert!(
        (queued - expected).abs() <= expected * 1e-6 + 1e-6,
        "queued {queued} s, estimated {expected} s"
    );

    // Behind it, the same request over HTTP and gRPC is refused at once.
    let mut grpc = server.grpc().await;
    let heavy = GetHeightmapRequest {
        world: VOXEL.into(),
        x0: -16000.0,
        z0: -16000.0,
        nx: side,
        nz: side,
        step: 16.0,
        ..Default::default()
    };
    let started = Instant::now();
    let (refused, status) = tokio::join!(
        async {
            server
                .http
                .get(server.url(&heavy_path))
                .send()
                .await
                .unwrap()
        },
        grpc.get_heightmap(heavy)
    );
    let took = started.elapsed();
    assert_eq!(refused.status(), 503, "queued {queued} s, after {took:?}");
    assert!(
        took < Duration::from_millis(500),
        "refused at once: {took:?}"
    );
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1, "{retry}");
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], "RESOURCE_EXHAUSTED", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("request_timeout (1s)"), "{message}");
    assert!(message.contains("of work is queued on"), "{message}");

    let status = status.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let info = status.get_details_retry_info().expect("RetryInfo");
    assert!(info.retry_delay.unwrap() >= Duration::from_secs(1));

    // Small requests still pass: heights are not sent to the pool.
    let height = server
        .http
        .get(server.url("/v1/worlds/main/height?x=1&z=2"))
        .send()
        .await
        .unwrap();
    assert_eq!(height.status(), 200);

    // The first one was admitted (it answers, or is stopped at its deadline and
    // refused as too large for the timeout), never refused for the queue, never timed
    // out.
    let first = first.await.unwrap().unwrap();
    assert!(
        matches!(first.status().as_u16(), 200 | 413),
        "{}",
        first.status()
    );
    // Its estimate left the queue with it.
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.metric("terrain_compute_queued_seconds").await > 0.0 {
        assert!(Instant::now() < deadline, "the queue never emptied");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// GETs `path` until it answers 200; answers the `x-terrain-cache` header of that
/// answer and how many 503s (or 504s) came before it. Fails after 60 s.
async fn until_served(server: &TestServer, path: &str) -> (String, u32) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut pending = 0;
    loop {
        let answer = server.http.get(server.url(path)).send().await.unwrap();
        match answer.status().as_u16() {
            200 => {
                let cache = answer.headers()["x-terrain-cache"].to_str().unwrap();
                return (cache.to_string(), pending);
            }
            // (At a timeout of a few milliseconds, a retry may not reach its wait.)
            503 | 504 => pending += 1,
            other => panic!("{path}: {other}"),
        }
        assert!(Instant::now() < deadline, "{path} never served");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn work_that_outlives_its_request_fills_the_cache() {
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        // Erosion at its most (32 passes; the default 4): a cold chunk costs several
        // times the deadline even on a quiet machine, where at 4 passes eight cold
        // chunk meshes in a row were all made within it (the test failed so).
        if let Some(voxel) = c.worlds[0].voxel.as_mut() {
            voxel.erosion_iterations = 32;
        }
        c.requests.request_timeout = Duration::from_millis(5);
    })
    .await;
    // A cold zoom-0 map tile and a cold chunk mesh of the voxel world take longer
    // than 5 ms to make: the request is answered 503 with `Retry-After` at its
    // deadline while the work goes on. Under load the runtime may not poll the
    // request's timer before the work is done (the answer then wins the race and is a
    // 200), or, at so short a timeout, before the request reaches its wait (a 504), so
    // each kind tries a few cold tiles until one is answered at its deadline.
    let kinds: [&[&str]; 2] = [
        &[
            "/v1/worlds/blocks/map/0/0/0.png",
            "/v1/worlds/blocks/map/0/-1/0.png",
            "/v1/worlds/blocks/map/0/0/-1.png",
        ],
        &[
            "/v1/worlds/blocks/tiles/7/-3/mesh.glb",
            "/v1/worlds/blocks/tiles/9/-5/mesh.glb",
            "/v1/worlds/blocks/tiles/11/-7/mesh.glb",
            "/v1/worlds/blocks/tiles/13/-9/mesh.glb",
            "/v1/worlds/blocks/tiles/15/-11/mesh.glb",
            "/v1/worlds/blocks/tiles/17/-13/mesh.glb",
            "/v1/worlds/blocks/tiles/19/-15/mesh.glb",
            "/v1/worlds/blocks/tiles/21/-17/mesh.glb",
        ],
    ];
    for paths in kinds {
        let mut early = None;
        let mut won = Vec::new();
        for path in paths {
            let started = Instant::now();
            let first = server.http.get(server.url(path)).send().await.unwrap();
            match first.status().as_u16() {
                503 => {
                    assert!(first.headers().contains_key("retry-after"), "{path}");
                    let body = first.text().await.unwrap();
                    assert!(body.contains("is still being made"), "{path}: {body}");
                    early = Some(*path);
                    break;
                }
                status @ (200 | 504) => {
                    won.push(format!("{path}: {status} in {:?}", started.elapsed()))
                }
                other => panic!("{path}: {other}"),
            }
        }
        let path = early.unwrap_or_else(|| panic!("no request answered at its deadline: {won:?}"));
        // The retry is served from what the first request started.
        let (cache, _) = until_served(&server, path).await;
        assert_eq!(cache, "hit", "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_cold_map_tiles_are_refused_at_once_not_all_timed_out() {
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        c.requests.request_timeout = Duration::from_millis(10);
    })
    .await;
    // Twenty distinct cold zoom-2 map tiles at once: the first is admitted alone; its
    // render (far over 7.5 ms of estimated work) fills the queue, so the others are
    // refused at once.
    let started = Instant::now();
    let answers = futures::future::join_all((0..20).map(|i| {
        let url = server.url(&format!(
            "/v1/worlds/blocks/map/2/{}/{}.png",
            i % 4 - 2,
            i / 4 - 2
        ));
        let http = server.http.clone();
        async move { http.get(url).send().await.unwrap() }
    }))
    .await;
    let took = started.elapsed();
    let mut statuses = Vec::new();
    let (mut refused, mut admitted) = (0, 0);
    for answer in answers {
        let status = answer.status().as_u16();
        statuses.push(status);
        assert!([200, 503].contains(&status), "{statuses:?}");
        if status == 503 {
            assert!(answer.headers().contains_key("retry-after"));
            // Refused for the queue, or admitted and still rendering at its deadline.
            match answer.text().await.unwrap() {
                body if body.contains("is still being made") => admitted += 1,
                body => {
                    assert!(body.contains("overloaded"), "{body}");
                    refused += 1;
                }
            }
        } else {
            admitted += 1;
        }
    }
    assert!(refused > 0, "{statuses:?}");
    assert!(admitted > 0, "one was admitted: {statuses:?}");
    assert!(took < Duration::from_secs(5), "answered at once: {took:?}");
}
