//! Admission by cost, kind by kind: each kind of work has its own estimate, which no
//! other kind moves (cheap path searches once poisoned the height batches' one); a
//! path search is admitted by what its node budget may cost, learnt from what searches
//! really cost; rebuilds of past revisions' grounds are admitted by cost and a few at
//! a time, the rest refused at once. Under each load every request is answered or
//! refused at once: none times out.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{events::put_zone, *};
use serde_json::{Value, json};
use terrain_core::GeneratorKind;
use terrain_server::config::{WorldConfig, ZoneFile};

/// The estimate of one unit of `work` on world `main`, in seconds.
async fn estimate(server: &TestServer, work: &str) -> f64 {
    let series = format!(r#"terrain_work_estimate_seconds{{world="main",work="{work}"}}"#);
    let value = server.metric(&series).await;
    assert!(value > 0.0, "{series} = {value}");
    value
}

/// Status and time of one POST of `body` to `path`.
async fn timed_post(server: &TestServer, path: &str, body: Value) -> (u16, Duration) {
    let started = Instant::now();
    let answer = server
        .http
        .post(server.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let _ = answer.bytes().await;
    (status, started.elapsed())
}

/// Status and time of one GET of `path`.
async fn timed_get(server: &TestServer, path: &str) -> (u16, Duration) {
    let started = Instant::now();
    let answer = server.http.get(server.url(path)).send().await.unwrap();
    let status = answer.status().as_u16();
    let _ = answer.bytes().await;
    (status, started.elapsed())
}

/// Every answer was a 200 or a refusal within `at_once`; at least one was a 200.
#[track_caller]
fn served_or_refused_at_once(what: &str, answers: &[(u16, Duration)], at_once: Duration) {
    assert!(
        answers.iter().all(|a| a.0 == 200 || a.0 == 503),
        "{what}: {answers:?}"
    );
    assert!(
        answers.iter().all(|a| a.0 != 503 || a.1 < at_once),
        "{what}: a refusal was not at once: {answers:?}"
    );
    assert!(answers.iter().any(|a| a.0 == 200), "{what}: {answers:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cheap_path_searches_move_no_other_kind_s_estimate() {
    let server = TestServer::start().await;
    let kinds = ["batch_point", "terrain_info_height", "path_check_height"];
    let mut before = Vec::new();
    for work in kinds {
        before.push(estimate(&server, work).await);
    }
    let node = estimate(&server, "path_node").await;
    // Short searches: a few metres each, mostly the fixed cost of reading the
    // movement tiles around their ends.
    for i in 0..40 {
        let x = 0.5 + f64::from(i % 5);
        let (status, body) = server
            .post_json(
                "/v1/worlds/main/paths/find",
                &json!({"from": [x, 0.5], "to": [x + 3.0, 2.5]}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
    for (work, was) in kinds.iter().zip(&before) {
        assert_eq!(estimate(&server, work).await, *was, "{work} moved");
    }
    assert_ne!(
        estimate(&server, "path_node").await,
        node,
        "the searches' own estimate learns from them"
    );
    // Terrain info on the pool (over 256 points) learns its own estimate, and moves
    // the batches' no more than the searches did.
    let points: Vec<[f64; 2]> = (0..2000).map(|i| [f64::from(i % 50), 3.5]).collect();
    let (status, _) = server
        .post_json("/v1/worlds/main/terrain-info", &json!({"points": points}))
        .await;
    assert_eq!(status, 200);
    assert_ne!(estimate(&server, "terrain_info_height").await, before[1]);
    assert_eq!(estimate(&server, "batch_point").await, before[0]);
}

/// Four walls (buildings, never walkable) around the 1 m tiles of x and z in 8..14,
/// shutting the goal at (10.5, 10.5) off from the rest of the island.
async fn wall_in_the_goal(server: &TestServer) {
    let walls = [
        ("north", 10.5, 6.5, 12.0, 2.0),
        ("south", 10.5, 14.5, 12.0, 2.0),
        ("west", 5.5, 10.5, 2.0, 10.0),
        ("east", 15.5, 10.5, 2.0, 10.0),
    ];
    for (id, x, z, width, depth) in walls {
        let body = json!({"centerX": x, "centerZ": z, "width": width, "depth": depth,
                          "heightOffset": 0.0, "blendRadius": 0.5, "walkable": false});
        put_zone(server, id, &body).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_are_admitted_by_their_node_budget() {
    let timeout = Duration::from_secs(3);
    let server = TestServer::start_with(|c| c.requests.request_timeout = timeout).await;
    wall_in_the_goal(&server).await;
    // A search for the walled-in goal expands its whole budget, though the goal is 14 m
    // away.
    let max_nodes = 20_000;
    let search = json!({"from": [0.5, 0.5], "to": [10.5, 10.5], "maxNodes": max_nodes});
    let mut alone = Duration::ZERO;
    for _ in 0..2 {
        let started = Instant::now();
        let (status, body) = server
            .post_json("/v1/worlds/main/paths/find", &search)
            .await;
        alone = started.elapsed();
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["reason"], "node_budget", "{body}");
        assert_eq!(body["expanded"], max_nodes, "{body}");
    }
    // Enough of them at once for three times the pool's share of the timeout: the
    // searches beyond what the pool can finish in time are refused at once. The first
    // wave also teaches the estimate what a search costs among others (on a loaded
    // machine more than alone). Estimated from the node budget, the searches admitted
    // finish in time: before, a walled-in goal 14 m away was estimated at a quarter of
    // its budget and most admitted searches timed out (60 of 75). The admission budget
    // (three quarters of the timeout) leaves a quarter for error; a shared 2-core VM
    // whose load triples mid-wave can still push the last admitted search over, so the
    // second wave allows one.
    let n =
        ((3.0 * 2.0 * timeout.as_secs_f64() / alone.as_secs_f64()).ceil() as usize).clamp(8, 200);
    for wave in ["first", "second"] {
        let answers = futures::future::join_all(
            (0..n).map(|_| timed_post(&server, "/v1/worlds/main/paths/find", search.clone())),
        )
        .await;
        let what = format!("{wave} wave of {n} searches of {alone:?} each");
        assert!(answers.iter().any(|a| a.0 == 503), "{what}: {answers:?}");
        assert!(answers.iter().any(|a| a.0 == 200), "{what}: {answers:?}");
        assert!(
            answers
                .iter()
                .all(|a| a.0 != 503 || a.1 < Duration::from_secs(1)),
            "{what}: a refusal was not at once: {answers:?}"
        );
        let timed_out = answers.iter().filter(|a| a.0 == 504).count();
        if wave == "second" {
            assert!(timed_out <= 1, "{what}: {timed_out} timed out: {answers:?}");
        }
    }
}

/// `n` small zones in a row far from the spawn, as a zone file: `n` revisions.
fn many_zones(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let zones: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("z{i}"), "centerX": 3000.0 + 20.0 * i as f64,
                   "centerZ": 3000.0, "width": 8.0, "depth": 8.0, "heightOffset": 1.0,
                   "blendRadius": 2.0})
        })
        .collect();
    let path = dir.join("many.json");
    std::fs::write(&path, serde_json::to_string(&zones).unwrap()).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_revisions_are_rebuilt_a_few_at_a_time_and_the_rest_refused_at_once() {
    let zones = 3000;
    let dir = tempfile::tempdir().unwrap();
    let file = many_zones(dir.path(), zones);
    let timeout = Duration::from_secs(2);
    let server = TestServer::start_with(|c| {
        let mut world = WorldConfig::new("main", GeneratorKind::Hyperscape, 0);
        world.zone_files = vec![ZoneFile::Path(file)];
        c.worlds = vec![world];
        c.limits.asof_revisions = zones;
        c.requests.request_timeout = timeout;
    })
    .await;
    let current = server.revision("main").await;
    assert!(current >= zones as u64, "{current}");
    // One rebuild alone: its time, and the estimate learns from it.
    let (status, one) = timed_get(
        &server,
        &format!("/v1/worlds/main/height?x=1&z=2&revision={}", current - 1),
    )
    .await;
    assert_eq!(status, 200);
    // Distinct revisions at once, three times what the pool could rebuild within the
    // timeout, and a batch beside them.
    let n = ((3.0 * 2.0 * timeout.as_secs_f64() / one.as_secs_f64()).ceil() as u64).clamp(8, 600);
    let n = n.min(current - 2);
    let server = &server;
    let storm = futures::future::join_all((0..n).map(|k| {
        let path = format!(
            "/v1/worlds/main/height?x=1&z=2&revision={}",
            current - 2 - k
        );
        async move { timed_get(server, &path).await }
    }));
    let batch = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let points: Vec<[f64; 2]> = (0..4096).map(|i| [f64::from(i % 64), 7.5]).collect();
        timed_post(server, "/v1/worlds/main/heights", json!({"points": points})).await
    };
    let (answers, batch) = tokio::join!(storm, batch);
    let what = format!("{n} rebuilds of {one:?} each");
    served_or_refused_at_once(&what, &answers, Duration::from_secs(1));
    assert!(answers.iter().any(|a| a.0 == 503), "{what}: {answers:?}");
    assert_eq!(batch.0, 200, "the batch beside them: {batch:?}");
    assert!(batch.1 < timeout, "the batch beside them: {batch:?}");
}
