//! Movement authority over both surfaces: terrain info and path checks against the
//! original game's own tables (a hyperscape world under the `hyperscape` overlap and
//! walkability rules with the 28 reference zones), answers equal bit for bit to
//! terrain-core's walker on other worlds, path finding, and refusals naming the field.

use terrain_tests as common;

use std::path::PathBuf;

use common::*;
use serde_json::{Value, json};
use terrain_core::{
    GeneratorKind, Overlap,
    walk::{PathCheck, Walker},
};
use terrain_proto::v1::{self as pb};
use terrain_server::config::{WorldConfig, ZoneFile};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/hyperscape")
        .join(name)
}

/// `ref`: hyperscape seed 0 under the original's rules with the reference zones;
/// `main`: hyperscape seed 0 without zones (layered, so the `slope` rule); `blocks`:
/// voxel (the `max-slope` rule).
fn worlds(c: &mut terrain_server::Config) {
    let mut reference = WorldConfig::new("ref", GeneratorKind::Hyperscape, 0);
    reference.overlap = Overlap::Hyperscape;
    reference.zone_files = vec![ZoneFile::Path(data("flat_zones.json"))];
    let mut voxel = WorldConfig::new("blocks", GeneratorKind::Voxel, 3);
    voxel.voxel = Some(Default::default());
    c.worlds = vec![
        reference,
        WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
        voxel,
    ];
    c.lifecycle.warm_radius = None;
}

fn csv(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(data(&format!("walkability/{name}"))).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn f(s: &str) -> f64 {
    s.parse().unwrap()
}

/// The original's reason string for a wire code.
fn original_reason(code: &Value) -> &'static str {
    match code.as_str() {
        None => "",
        Some("water") => "Water bodies are impassable",
        Some("slope") => "Steep mountain slopes block movement",
        Some(other) => panic!("unexpected reason {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terrain_info_and_path_checks_match_the_original_s_tables() {
    let server = TestServer::start_with(worlds).await;
    let rows = csv("walk_seed0.csv");
    assert_eq!(rows.len(), 2000);
    let points: Vec<[f64; 2]> = rows.iter().map(|r| [f(&r[0]), f(&r[1])]).collect();
    let (status, body) = server
        .post_json("/v1/worlds/ref/terrain-info", &json!({ "points": points }))
        .await;
    assert_eq!(status, 200, "{body}");
    let answers = body["points"].as_array().unwrap();
    assert_eq!(answers.len(), 2000);
    for (row, got) in rows.iter().zip(answers) {
        let at = format!("({}, {})", row[0], row[1]);
        // Heights and slopes bit for bit (core/tests/walk_reference.rs).
        let close = |got: &Value, want: &str| got.as_f64().unwrap().to_bits() == f(want).to_bits();
        assert!(close(&got["height"], &row[2]), "height {at}: {got}");
        assert_eq!(got["biome"], row[3].as_str(), "biome {at}");
        assert!(close(&got["slope"], &row[4]), "slope {at}: {got}");
        assert_eq!(got["underwater"].to_string(), row[5], "underwater {at}");
        assert_eq!(got["walkable"].to_string(), row[6], "walkable {at}");
        assert_eq!(original_reason(&got["reason"]), row[7], "reason {at}");
    }

    // The same over gRPC, bit for bit.
    let mut grpc = server.grpc().await;
    let coordinates: Vec<f64> = points.iter().flatten().copied().collect();
    let info = grpc
        .get_terrain_info(pb::GetTerrainInfoRequest {
            world: "ref".into(),
            coordinates,
            revision: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(info.revision, body["revision"].as_u64().unwrap());
    for (got, http) in info.points.iter().zip(answers) {
        assert_eq!(
            got.height.to_bits(),
            http["height"].as_f64().unwrap().to_bits()
        );
        assert_eq!(
            got.slope.to_bits(),
            http["slope"].as_f64().unwrap().to_bits()
        );
        assert_eq!(got.walkable, http["walkable"].as_bool().unwrap());
        assert_eq!(got.biome, http["biome"].as_str().unwrap());
        let reason = match http["reason"].as_str() {
            None => pb::WalkReason::None,
            Some("water") => pb::WalkReason::Water,
            Some(_) => pb::WalkReason::Slope,
        };
        assert_eq!(got.reason(), reason);
    }

    // findWalkablePath over the 300 segments: blocked and the path's length.
    let paths = csv("paths_seed0.csv");
    assert_eq!(paths.len(), 300);
    let mut blocked = 0;
    for row in &paths {
        let (a, b) = ([f(&row[0]), f(&row[1])], [f(&row[2]), f(&row[3])]);
        let (status, got) = server
            .post_json(
                "/v1/worlds/ref/paths/check",
                &json!({ "points": [a, b], "mode": "hyperscape" }),
            )
            .await;
        assert_eq!(status, 200, "{got}");
        assert_eq!(got["blocked"].to_string(), row[4], "{row:?}");
        assert_eq!(
            got["path"].as_array().unwrap().len().to_string(),
            row[5],
            "{row:?}"
        );
        blocked += usize::from(got["blocked"] == true);
    }
    assert_eq!(blocked, 111);
}

/// What terrain-core's walker answers for a path check, to compare with.
fn core_check(
    terrain: &terrain_core::Terrain,
    rule: &terrain_core::walk::WalkRule,
    points: &[(f64, f64)],
    exact: bool,
) -> PathCheck {
    let walker = Walker::new(terrain, rule);
    if exact {
        walker.check_tiles(points, 1.0)
    } else {
        walker.check_sampled(points)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_equal_the_core_walker_on_every_generator() {
    let server = TestServer::start_with(worlds).await;
    let config = {
        let mut c = terrain_server::Config::default();
        worlds(&mut c);
        c
    };
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move |span: f64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * span
    };
    for world in ["main", "blocks"] {
        let spec = config.worlds.iter().find(|w| w.id == world).unwrap();
        let rule = spec.walk_rule();
        let terrain = match world {
            "blocks" => common::voxel::voxel_terrain(&[]),
            _ => main_terrain(),
        };
        let walker = Walker::new(&terrain, &rule);
        // 500 scattered points, then the 576 movement tiles of a 24 m block, which take
        // the area path (over the pool's slices of 256).
        let mut points: Vec<[f64; 2]> = (0..500).map(|_| [next(3000.0), next(3000.0)]).collect();
        points.extend((0..24 * 24).map(|k| [f64::from(k % 24) - 40.5, f64::from(k / 24) + 7.5]));
        let (status, body) = server
            .post_json(
                &format!("/v1/worlds/{world}/terrain-info"),
                &json!({ "points": points }),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let mut unwalkable = 0;
        for (p, got) in points.iter().zip(body["points"].as_array().unwrap()) {
            let want = walker.info(p[0], p[1]);
            assert_eq!(
                got["height"].as_f64().unwrap().to_bits(),
                want.height.to_bits(),
                "{world} {p:?}"
            );
            assert_eq!(
                got["slope"].as_f64().unwrap().to_bits(),
                want.slope.to_bits(),
                "{world} {p:?}"
            );
            assert_eq!(got["walkable"], want.walkable(), "{world} {p:?}");
            assert_eq!(
                got["reason"].as_str(),
                want.reason.map(|r| r.code()),
                "{world} {p:?}"
            );
            assert_eq!(got["biome"].as_str(), want.biome, "{world} {p:?}");
            unwalkable += usize::from(!want.walkable());
        }
        assert!(
            unwalkable > 0 && unwalkable < points.len(),
            "{world}: {unwalkable} of {} unwalkable",
            points.len()
        );
        // Path checks in both modes on random segments.
        for _ in 0..40 {
            let (x, z) = (next(2000.0), next(2000.0));
            let seg = [(x, z), (x + next(200.0), z + next(200.0))];
            for exact in [false, true] {
                let mode = if exact { "exact" } else { "hyperscape" };
                let (status, got) = server
                    .post_json(
                        &format!("/v1/worlds/{world}/paths/check"),
                        &json!({ "points": [[seg[0].0, seg[0].1], [seg[1].0, seg[1].1]], "mode": mode }),
                    )
                    .await;
                assert_eq!(status, 200, "{got}");
                let want = core_check(&terrain, &rule, &seg, exact);
                assert_eq!(
                    got["blocked"],
                    want.blocked.is_some(),
                    "{world} {mode} {seg:?}"
                );
                let path: Vec<(f64, f64)> = got["path"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
                    .collect();
                assert_eq!(path, want.path, "{world} {mode} {seg:?}");
                if let Some(((bx, bz), reason)) = want.blocked {
                    assert_eq!(got["at"], json!([bx, bz]));
                    assert_eq!(got["reason"], reason.code());
                }
            }
        }
    }
}

/// World `main`'s core terrain: the bare island.
fn main_terrain() -> terrain_core::Terrain {
    let generator = terrain_core::WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
    terrain_tests::terrain(&generator, Overlap::Layered, &[])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paths_are_found_around_blocked_ground_and_pass_the_exact_check() {
    let server = TestServer::start_with(worlds).await;
    // Across the island from the spawn: a path that exists.
    let (status, found) = server
        .post_json(
            "/v1/worlds/main/paths/find",
            &json!({ "from": [0.5, 0.5], "to": [150.5, 90.5] }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["found"], true, "{found}");
    let waypoints = found["waypoints"].clone();
    assert_eq!(waypoints[0], json!([0.5, 0.5]));
    assert_eq!(
        waypoints[waypoints.as_array().unwrap().len() - 1],
        json!([150.5, 90.5])
    );
    let (status, check) = server
        .post_json(
            "/v1/worlds/main/paths/check",
            &json!({ "points": waypoints, "mode": "exact" }),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(check["blocked"], false, "{found} {check}");
    assert!(found["length"].as_f64().unwrap() >= 150f64.hypot(90.0));
    assert!(found["expanded"].as_u64().unwrap() > 0);
    // gRPC finds the same path.
    let mut grpc = server.grpc().await;
    let same = grpc
        .find_path(pb::FindPathRequest {
            world: "main".into(),
            from: Some(pb::Point2 { x: 0.5, z: 0.5 }),
            to: Some(pb::Point2 { x: 150.5, z: 90.5 }),
            max_nodes: 0,
            max_distance: 0.0,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(same.found);
    assert_eq!(same.waypoints.len(), waypoints.as_array().unwrap().len());
    assert_eq!(
        same.length.to_bits(),
        found["length"].as_f64().unwrap().to_bits()
    );
    // Into the sea: the goal is blocked, with why.
    let (status, lost) = server
        .post_json(
            "/v1/worlds/ref/paths/find",
            &json!({ "from": [51.88, -212.8], "to": [107.43, -345.73] }),
        )
        .await;
    assert_eq!(status, 200, "{lost}");
    assert_eq!(lost["found"], false);
    assert_eq!(lost["reason"], "goal_blocked", "{lost}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_movement_queries_are_refused_naming_the_field() {
    let server = TestServer::start_with(worlds).await;
    let cases = [
        (
            "terrain-info",
            json!({ "points": [[0, 1e12]] }),
            400,
            "points[0]",
        ),
        (
            "paths/check",
            json!({ "points": [] , "mode": "exact"}),
            400,
            "points",
        ),
        (
            "paths/check",
            json!({ "points": [[0, 0], [1, 1]], "mode": "fast" }),
            400,
            "mode",
        ),
        (
            "paths/check",
            json!({ "points": [[0, 0], [9000, 0], [0, 0]] }),
            413,
            "points",
        ),
        (
            "paths/find",
            json!({ "from": [0, 0], "to": [4000, 0] }),
            400,
            "to",
        ),
        (
            "paths/find",
            json!({ "from": [0, 0], "to": [1, 0], "maxNodes": 0 }),
            400,
            "maxNodes",
        ),
        (
            "paths/find",
            json!({ "from": [0, 0], "to": [1, 0], "maxDistance": 1e9 }),
            400,
            "maxDistance",
        ),
        ("paths/find", json!({ "from": [0, 0] }), 400, "to"),
    ];
    for (route, body, want, field) in cases {
        let (status, got) = server
            .post_json(&format!("/v1/worlds/main/{route}"), &body)
            .await;
        assert_eq!(status, want, "{route} {body}: {got}");
        assert_eq!(got["error"]["field"], field, "{route} {body}: {got}");
    }
    // gRPC names its own fields.
    let mut grpc = server.grpc().await;
    let status = grpc
        .find_path(pb::FindPathRequest {
            world: "main".into(),
            from: Some(pb::Point2 { x: 0.0, z: 0.0 }),
            to: Some(pb::Point2 { x: 1.0, z: 0.0 }),
            max_nodes: 2_000_000,
            max_distance: 0.0,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(status.message().starts_with("max_nodes:"), "{status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_asks_the_same_questions() {
    let server = TestServer::start_with(worlds).await;
    let mut client = server.client().await;
    let rows = csv("walk_seed0.csv");
    let points: Vec<(f64, f64)> = rows
        .iter()
        .take(300)
        .map(|r| (f(&r[0]), f(&r[1])))
        .collect();
    let infos = client.terrain_info("ref", &points).await.unwrap();
    for (row, got) in rows.iter().zip(&infos.points) {
        assert_eq!(got.walkable().to_string(), row[6], "{row:?}");
        assert_eq!(got.biome.as_deref(), Some(row[3].as_str()));
        let reason = got.reason.map_or("", |r| r.original_message());
        assert_eq!(reason, row[7], "{row:?}");
    }
    let paths = csv("paths_seed0.csv");
    for row in paths.iter().take(50) {
        let seg = [(f(&row[0]), f(&row[1])), (f(&row[2]), f(&row[3]))];
        let got = client
            .check_path("ref", &seg, terrain_client::PathMode::Hyperscape)
            .await
            .unwrap();
        assert_eq!(got.blocked.is_some().to_string(), row[4], "{row:?}");
        assert_eq!(got.path.len().to_string(), row[5], "{row:?}");
    }
    let found = client
        .find_path("main", (0.5, 0.5), (150.5, 90.5), None, None)
        .await
        .unwrap();
    let waypoints = found.found.unwrap();
    assert_eq!(waypoints.first(), Some(&(0.5, 0.5)));
    let check = client
        .check_path("main", &waypoints, terrain_client::PathMode::Exact)
        .await
        .unwrap();
    assert!(check.blocked.is_none());
    let lost = client
        .find_path("ref", (51.88, -212.8), (107.43, -345.73), None, None)
        .await
        .unwrap();
    assert_eq!(lost.found, Err(terrain_client::Unreachable::GoalBlocked));
}
