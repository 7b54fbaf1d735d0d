//! The heavy-request probe, as a benchmark (ignored; run it on a release build):
//! `cargo test --release -p terrain-tests --test e2e -- --ignored --nocapture admission_probe::`
//!
//! With the default `request_timeout` (30 s) on the voxel world: 30 concurrent cold map
//! tiles, two concurrent 1,000,000-point batches, the largest heightmap alone, and cold
//! hyperscape meshes asked for during that load. On a hyperscape world: a 200,000-point
//! batch and four 1,000,000-point terrain-info requests after 300 short path searches,
//! 50 concurrent searches with `maxNodes` 1,000,000 for a walled-in goal, and 300
//! concurrent heights as of distinct past revisions of a world of 20,000 zones with a
//! 4,096-point batch beside them. Each answer is either served or refused at once (503
//! with `Retry-After`); nothing times out. At `request_timeout = "1s"`: a search with
//! `maxNodes` 1,000,000 over 4 km is refused at once as too large for the timeout (413),
//! 3D Tiles roots are built in the background (503 with `Retry-After` until served),
//! and the voxel rows of the first test again.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::*;

use common::{events::put_zone, voxel::voxel_worlds};
use serde_json::json;
use terrain_core::GeneratorKind;
use terrain_server::config::{WorldConfig, ZoneFile};

/// Status and time of one GET.
async fn timed_get(http: reqwest::Client, url: String) -> (u16, Duration) {
    let started = Instant::now();
    let answer = http.get(url).send().await.unwrap();
    let status = answer.status().as_u16();
    let _ = answer.bytes().await;
    (status, started.elapsed())
}

/// Status and time of one POST of a JSON body.
async fn timed_post(http: reqwest::Client, url: String, body: String) -> (u16, Duration) {
    let started = Instant::now();
    let answer = http
        .post(url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let _ = answer.bytes().await;
    (status, started.elapsed())
}

fn summary(what: &str, answers: &[(u16, Duration)]) {
    let count = |s: u16| answers.iter().filter(|a| a.0 == s).count();
    let slowest = answers.iter().map(|a| a.1).max().unwrap_or_default();
    let slowest_refusal = answers
        .iter()
        .filter(|a| a.0 == 503)
        .map(|a| a.1)
        .max()
        .unwrap_or_default();
    println!(
        "{what}: {} answered 200, {} refused 503 (slowest refusal {slowest_refusal:?}), {} refused 413, {} timed out 504; slowest answer {slowest:?}",
        count(200),
        count(503),
        count(413),
        count(504)
    );
}

/// 30 concurrent GETs of cold zoom-1 map tiles of the voxel world.
async fn cold_voxel_maps(server: &TestServer) -> Vec<(u16, Duration)> {
    futures::future::join_all((0..30).map(|i| {
        let url = server.url(&format!(
            "/v1/worlds/blocks/map/1/{}/{}.png",
            i % 6 - 3,
            i / 6 - 3
        ));
        timed_get(server.http.clone(), url)
    }))
    .await
}

/// Two concurrent 1,000,000-point batches over 4 km of the voxel world.
async fn two_voxel_batches(server: &TestServer) -> Vec<(u16, Duration)> {
    let batch = |seed: u64| {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 4000.0 - 2000.0
        };
        let points: Vec<[f64; 2]> = (0..1_000_000).map(|_| [next(), next()]).collect();
        serde_json::json!({ "points": points }).to_string()
    };
    let url = server.url("/v1/worlds/blocks/heights");
    futures::future::join_all(
        [1, 2].map(|s| timed_post(server.http.clone(), url.clone(), batch(s))),
    )
    .await
}

/// The largest voxel heightmap the limits allow, alone.
async fn largest_voxel_heightmap(server: &TestServer) -> (u16, Duration) {
    let url = server.url("/v1/worlds/blocks/heightmap?x0=-10000&z0=-10000&nx=2048&nz=2048&step=9");
    timed_get(server.http.clone(), url).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
async fn heavy_requests_are_served_or_refused_at_once() {
    let server = TestServer::start_with(voxel_worlds).await;

    // 30 concurrent cold map tiles (zoom 1), with cold hyperscape meshes during them.
    let maps = cold_voxel_maps(&server);
    let meshes = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut answers = Vec::new();
        for t in 0..5 {
            let url = server.url(&format!("/v1/worlds/main/tiles/{t}/{}/mesh.glb", -t));
            answers.push(timed_get(server.http.clone(), url).await);
        }
        answers
    };
    let (maps, meshes) = tokio::join!(maps, meshes);
    summary("30 cold voxel map tiles", &maps);
    summary("cold hyperscape meshes meanwhile", &meshes);
    assert!(maps.iter().all(|a| a.0 != 504), "{maps:?}");
    assert!(
        maps.iter()
            .all(|a| a.0 != 503 || a.1 < Duration::from_millis(500)),
        "{maps:?}"
    );

    // Two concurrent 1,000,000-point batches over 4 km.
    let batches = two_voxel_batches(&server).await;
    summary("two concurrent 1,000,000-point voxel batches", &batches);
    assert!(batches.iter().all(|a| a.0 != 504), "{batches:?}");
    assert!(batches.iter().any(|a| a.0 == 200), "{batches:?}");

    // The largest heightmap the limits allow, alone.
    let alone = largest_voxel_heightmap(&server).await;
    summary("the largest voxel heightmap alone", &[alone]);
    assert_eq!(alone.0, 200, "{alone:?}");
}

/// GETs `url` until it answers 200 (at most 120 s): the answers before it and the
/// time to the 200.
async fn served_after_retries(http: &reqwest::Client, url: &str) -> (Vec<u16>, Duration) {
    let started = Instant::now();
    let mut before = Vec::new();
    loop {
        let (status, _) = timed_get(http.clone(), url.to_string()).await;
        if status == 200 || started.elapsed() > Duration::from_secs(120) {
            return (before, started.elapsed());
        }
        before.push(status);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
async fn heavy_requests_at_a_one_second_timeout() {
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        c.requests.request_timeout = Duration::from_secs(1);
    })
    .await;
    // A search of 1,000,000 nodes over 4 km: refused at once, naming maxNodes.
    let search = json!({"from": [-1999.5, 0.5], "to": [1999.5, 0.5], "maxNodes": 1_000_000,
                        "maxDistance": 4000});
    let url = server.url("/v1/worlds/main/paths/find");
    let find = timed_post(server.http.clone(), url, search.to_string()).await;
    summary("a paths/find of 1,000,000 nodes over 4 km", &[find]);
    assert_eq!(find.0, 413, "{find:?}");

    // 3D Tiles, cold: each retried as a viewer does until served.
    for world in ["main", "blocks"] {
        for path in ["content/0/0/0.glb", "tileset.json", "content/1/0/0.glb"] {
            let url = server.url(&format!("/v1/worlds/{world}/3dtiles/{path}"));
            let (before, took) = served_after_retries(&server.http, &url).await;
            let count = |s: u16| before.iter().filter(|&&b| b == s).count();
            println!(
                "{world} 3dtiles/{path}: served after {} x 503, {} x 504, in {took:?}",
                count(503),
                count(504)
            );
            assert!(before.iter().all(|&s| s == 503), "{before:?}");
        }
    }

    // The voxel rows of the default-timeout probe.
    summary("30 cold voxel map tiles", &cold_voxel_maps(&server).await);
    summary(
        "two concurrent 1,000,000-point voxel batches",
        &two_voxel_batches(&server).await,
    );
    summary(
        "the largest voxel heightmap alone",
        &[largest_voxel_heightmap(&server).await],
    );
}

/// The largest legal `tileset_extent` (1,000 km) on a hyperscape and a voxel world:
/// their tilesets, roots and the heaviest contents of their coarse levels, all cold and
/// at once, with heights of another world asked for meanwhile. Each answer is served
/// or refused at once; nothing times out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
async fn the_largest_tileset_extent_is_served_or_refused_at_once() {
    let server = TestServer::start_with(|c| {
        let mut big = terrain_server::config::WorldConfig::new(
            "big",
            terrain_core::GeneratorKind::Hyperscape,
            0,
        );
        big.tileset_extent = 1_000_000.0;
        let mut cubes = terrain_server::config::WorldConfig::new(
            "cubes",
            terrain_core::GeneratorKind::Voxel,
            3,
        );
        cubes.voxel = Some(common::voxel::voxel_config());
        cubes.tileset_extent = 1_000_000.0;
        c.worlds = vec![
            terrain_server::config::WorldConfig::new(
                "main",
                terrain_core::GeneratorKind::Hyperscape,
                0,
            ),
            big,
            cubes,
        ];
        c.lifecycle.warm_radius = None;
    })
    .await;
    // Near the centre: the root, sampled levels, and the heaviest contents (level 7
    // of the hyperscape square, 128 x 128 tiles; level 10 of the voxel one, 32 x 32
    // chunks).
    let mut paths = Vec::new();
    for (world, levels) in [
        ("big", [(0u32, 1u64), (1, 2), (4, 2), (6, 2), (7, 4)]),
        ("cubes", [(0, 1), (1, 2), (5, 2), (8, 2), (10, 4)]),
    ] {
        paths.push(format!("/v1/worlds/{world}/3dtiles/tileset.json"));
        for (level, n) in levels {
            // The contents around the square's centre.
            let first = (1u64 << level >> 1).saturating_sub(1);
            for i in 0..n {
                let (x, y) = (first + i % 2, first + i / 2);
                paths.push(format!(
                    "/v1/worlds/{world}/3dtiles/content/{level}/{x}/{y}.glb"
                ));
            }
        }
    }
    let contents = futures::future::join_all(
        paths
            .iter()
            .map(|p| timed_get(server.http.clone(), server.url(p))),
    );
    let heights = async {
        let mut answers = Vec::new();
        for i in 0..20 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let url = server.url(&format!("/v1/worlds/main/height?x={}&z=0", 700_000 + i));
            answers.push(timed_get(server.http.clone(), url).await);
        }
        answers
    };
    let (contents, heights) = tokio::join!(contents, heights);
    for (path, answer) in paths.iter().zip(&contents) {
        println!("{path}: {} in {:?}", answer.0, answer.1);
    }
    summary(
        "two 1,000 km tilesets and 22 cold contents at once",
        &contents,
    );
    summary(
        "heights of another world meanwhile, one every 100 ms",
        &heights,
    );
    assert!(
        contents.iter().all(|a| a.0 == 200 || a.0 == 503),
        "{contents:?}"
    );
    assert!(
        contents
            .iter()
            .all(|a| a.0 != 503 || a.1 < Duration::from_millis(500)),
        "{contents:?}"
    );
    assert!(heights.iter().all(|a| a.0 == 200), "{heights:?}");
    server.stop().await;
}

/// The resident set of this process (the server runs in it), in MB.
fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// `n` points spread over 4 km around the origin, as a JSON body.
fn points_body(n: usize, seed: u64) -> String {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 4000.0 - 2000.0
    };
    let points: Vec<[f64; 2]> = (0..n).map(|_| [next(), next()]).collect();
    json!({ "points": points }).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
async fn heavy_movement_and_past_revision_queries_are_served_or_refused_at_once() {
    let zones = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("zones.json");
    let list: Vec<serde_json::Value> = (0..zones)
        .map(|i| {
            json!({"id": format!("z{i}"), "centerX": 3000.0 + 20.0 * f64::from(i % 200),
                   "centerZ": 3000.0 + 20.0 * f64::from(i / 200), "width": 8.0, "depth": 8.0,
                   "heightOffset": 1.0, "blendRadius": 2.0})
        })
        .collect();
    std::fs::write(&file, serde_json::to_string(&list).unwrap()).unwrap();
    let started = Instant::now();
    let server = TestServer::start_with(|c| {
        let mut past = WorldConfig::new("past", GeneratorKind::Hyperscape, 0);
        past.zone_files = vec![ZoneFile::Path(file)];
        c.worlds = vec![WorldConfig::new("main", GeneratorKind::Hyperscape, 0), past];
    })
    .await;
    println!("start-up with {zones} zones: {:?}", started.elapsed());
    let estimate = |work: &'static str| {
        let server = &server;
        async move {
            let series = format!(r#"terrain_work_estimate_seconds{{world="main",work="{work}"}}"#);
            server.metric(&series).await
        }
    };

    // 300 short searches, then a 200,000-point batch and four 1,000,000-point terrain
    // info requests.
    let before = estimate("batch_point").await;
    let started = Instant::now();
    for wave in 0..30 {
        let searches = futures::future::join_all((0..10).map(|i| {
            let x = 0.5 + f64::from(wave * 10 + i) % 50.0;
            timed_post(
                server.http.clone(),
                server.url("/v1/worlds/main/paths/find"),
                json!({"from": [x, 0.5], "to": [x + 3.0, 2.5]}).to_string(),
            )
        }))
        .await;
        assert!(searches.iter().all(|a| a.0 == 200), "{searches:?}");
    }
    println!(
        "300 short searches: {:?}; batch_point estimate {:.3} us before, {:.3} us after",
        started.elapsed(),
        before * 1e6,
        estimate("batch_point").await * 1e6
    );
    let heights = server.url("/v1/worlds/main/heights");
    let batch = timed_post(server.http.clone(), heights, points_body(200_000, 7)).await;
    summary("a 200,000-point batch after 300 short searches", &[batch]);
    assert_eq!(batch.0, 200, "{batch:?}");
    let info = server.url("/v1/worlds/main/terrain-info");
    let infos = futures::future::join_all(
        [1, 2, 3, 4]
            .map(|s| timed_post(server.http.clone(), info.clone(), points_body(1_000_000, s))),
    )
    .await;
    summary(
        "four concurrent 1,000,000-point terrain-info after them",
        &infos,
    );
    assert!(infos.iter().all(|a| a.0 != 504), "{infos:?}");

    // 50 concurrent searches of 1,000,000 nodes for a goal walled in 14 m away.
    let walls = [
        ("north", 10.5, 6.5, 12.0, 2.0),
        ("south", 10.5, 14.5, 12.0, 2.0),
        ("west", 5.5, 10.5, 2.0, 10.0),
        ("east", 15.5, 10.5, 2.0, 10.0),
    ];
    for (id, x, z, width, depth) in walls {
        let body = json!({"centerX": x, "centerZ": z, "width": width, "depth": depth,
                          "heightOffset": 0.0, "blendRadius": 0.5, "walkable": false});
        put_zone(&server, id, &body).await;
    }
    let search = json!({"from": [0.5, 0.5], "to": [10.5, 10.5], "maxNodes": 1_000_000});
    let url = server.url("/v1/worlds/main/paths/find");
    let alone = timed_post(server.http.clone(), url.clone(), search.to_string()).await;
    summary("one search of 1,000,000 nodes alone", &[alone]);
    let searches = futures::future::join_all(
        (0..50).map(|_| timed_post(server.http.clone(), url.clone(), search.to_string())),
    )
    .await;
    summary("50 concurrent searches of 1,000,000 nodes", &searches);
    assert!(searches.iter().all(|a| a.0 != 504), "{searches:?}");

    // 300 heights as of distinct past revisions of a world of 20,000 zones, with a
    // 4,096-point batch beside them.
    let current = server.revision("past").await;
    let rss = rss_mb();
    let storm = futures::future::join_all((0..300).map(|k| {
        let url = server.url(&format!(
            "/v1/worlds/past/height?x=1&z=2&revision={}",
            current - 1 - k
        ));
        timed_get(server.http.clone(), url)
    }));
    let beside = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        timed_post(
            server.http.clone(),
            server.url("/v1/worlds/past/heights"),
            points_body(4096, 9),
        )
        .await
    };
    let (storm, beside) = tokio::join!(storm, beside);
    summary(
        "300 concurrent heights as of distinct past revisions (20,000 zones)",
        &storm,
    );
    summary("a 4,096-point batch beside them", &[beside]);
    println!(
        "resident set: {rss:.0} MB before the storm, {:.0} MB after",
        rss_mb()
    );
    assert!(storm.iter().all(|a| a.0 != 504), "{storm:?}");
    assert_eq!(beside.0, 200, "{beside:?}");
}
