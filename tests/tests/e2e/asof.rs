//! As of a revision (lag compensation): heights, terrain info and path checks asked
//! with a `revision` answer for the world as it was at that revision, over HTTP, gRPC
//! and the SDK, bit for bit what a fresh terrain-core world built with that revision's
//! zones answers; a revision the window (`asof_revisions`) no longer holds, or one the
//! world has not reached, is refused naming `revision` and changes nothing; the
//! window survives a restart (rebuilt from the retained zone log).

use terrain_tests as common;

use common::{events::put_zone, *};
use reqwest::StatusCode;
use serde_json::{Value, json};
use terrain_client::{ClientError, HeightMode, PathMode};
use terrain_core::{
    FlatZone, GeneratorKind, Overlap, Terrain, WorldSpec, build_terrain,
    mesh::surface_height,
    walk::{PathCheck, Reason, Walker},
};
use terrain_proto::v1::{self as pb, terrain_service_client::TerrainServiceClient};
use terrain_server::config::WorldConfig;
use tonic::transport::Channel;
use tonic_types::StatusExt;

/// Revisions before the current one the test server keeps.
const WINDOW: usize = 3;

fn world_config() -> WorldConfig {
    WorldConfig::new("main", GeneratorKind::Hyperscape, 0)
}

fn configure(c: &mut terrain_server::Config) {
    c.worlds = vec![world_config()];
    c.lifecycle.warm_radius = None;
    c.limits.asof_revisions = WINDOW;
}

/// A building (never walkable) on dry land by the spawn, centred on `(40, z)`.
fn hall(z: f64) -> Value {
    json!({"centerX": 40.0, "centerZ": z, "width": 10.0, "depth": 10.0,
           "heightOffset": 0.5, "blendRadius": 2.0, "walkable": false})
}

/// A raised pad elsewhere: later changes that move the window on.
fn pad(x: f64) -> Value {
    json!({"centerX": x, "centerZ": -150.0, "radius": 5.0, "heightOffset": 2.0,
           "blendRadius": 1.5})
}

/// A fresh terrain-core world like `main` with `zones` (each with the revision that
/// registered it): what the server must answer as of the revision they are of.
fn fresh(zones: &[(FlatZone, u64)]) -> Terrain {
    let spec = WorldSpec {
        generator: GeneratorKind::Hyperscape,
        seed: 0,
        overlap: Overlap::Layered,
        layout: None,
        voxel: None,
    };
    build_terrain(&spec, zones.iter().cloned()).expect("terrain")
}

/// Walks across the hall's two places and beside them.
const PATHS: [&[(f64, f64)]; 3] = [
    &[(20.5, 40.5), (60.5, 40.5)],
    &[(20.5, 80.5), (60.5, 80.5), (60.5, 60.5)],
    &[(0.5, 0.5), (10.5, 12.5)],
];

fn core_check(terrain: &Terrain, points: &[(f64, f64)], exact: bool) -> PathCheck {
    let rule = world_config().walk_rule();
    let walker = Walker::new(terrain, &rule);
    if exact {
        walker.check_tiles(points, 1.0)
    } else {
        walker.check_sampled(points)
    }
}

fn json_points(points: &[(f64, f64)]) -> Value {
    Value::from(
        points
            .iter()
            .map(|&(x, z)| json!([x, z]))
            .collect::<Vec<_>>(),
    )
}

/// `body` with `"revision": r` when asked as of `r`.
fn with_revision(mut body: Value, revision: Option<u64>) -> Value {
    if let Some(r) = revision {
        body["revision"] = json!(r);
    }
    body
}

fn query(revision: Option<u64>) -> String {
    revision.map_or(String::new(), |r| format!("&revision={r}"))
}

fn reason(r: Option<Reason>) -> pb::WalkReason {
    match r {
        None => pb::WalkReason::None,
        Some(Reason::Water) => pb::WalkReason::Water,
        Some(Reason::Slope) => pb::WalkReason::Slope,
        Some(Reason::Zone) => pb::WalkReason::Zone,
        Some(Reason::Step) => pb::WalkReason::Step,
    }
}

/// Every as-of answer (HTTP and gRPC; heights exact and surface, single and batched,
/// JSON and binary; terrain info; path checks in both modes) asked as of `revision`
/// (`None`: now) equals `terrain`'s, bit for bit, and carries `want_revision`.
async fn answers_match(
    server: &TestServer,
    grpc: &mut TerrainServiceClient<Channel>,
    revision: Option<u64>,
    want_revision: u64,
    terrain: &Terrain,
    points: &[(f64, f64)],
) {
    let at = format!("as of {revision:?}");
    // Single heights.
    for &(x, z) in points.iter().step_by(3) {
        let want = terrain.sample(x, z);
        let want_zone = want.zone.map(|(zone, _)| zone.id.as_str());
        let path = format!("/v1/worlds/main/height?x={x}&z={z}{}", query(revision));
        let (status, body) = server.get(&path).await;
        assert_eq!(status, 200, "{at}: {body}");
        assert_eq!(body["revision"], want_revision, "{at}: {body}");
        assert_same(
            num(&body["height"]),
            want.height,
            &format!("{at} ({x}, {z})"),
        );
        assert_eq!(body["zone"].as_str(), want_zone, "{at}: {body}");
        let path = format!("{path}&mode=surface");
        let (status, body) = server.get(&path).await;
        assert_eq!(status, 200, "{at}: {body}");
        let surface = surface_height(terrain, x, z);
        assert_same(
            num(&body["height"]),
            surface,
            &format!("{at} surface ({x}, {z})"),
        );
        let answer = grpc
            .get_height(pb::GetHeightRequest {
                world: "main".into(),
                x,
                z,
                revision,
                ..Default::default()
            })
            .await
            .expect("GetHeight")
            .into_inner();
        assert_eq!(answer.revision, want_revision, "{at}");
        assert_same(answer.height, want.height, &format!("{at} gRPC ({x}, {z})"));
        assert_eq!(answer.zone, want_zone.unwrap_or_default(), "{at}");
    }

    // Batches: JSON with the deciding zones, binary, surface, gRPC.
    let heights: Vec<f64> = points
        .iter()
        .map(|&(x, z)| terrain.sample(x, z).height)
        .collect();
    let zones: Vec<Value> = points
        .iter()
        .map(|&(x, z)| json!(terrain.sample(x, z).zone.map(|(zone, _)| zone.id.clone())))
        .collect();
    let body = with_revision(json!({ "points": json_points(points) }), revision);
    let (status, answer) = server.post_json("/v1/worlds/main/heights", &body).await;
    assert_eq!(status, 200, "{at}: {answer}");
    assert_eq!(answer["revision"], want_revision, "{at}");
    for (i, (got, want)) in nums(&answer["heights"]).iter().zip(&heights).enumerate() {
        assert_same(*got, *want, &format!("{at} batch point {i}"));
    }
    assert_eq!(answer["zones"], Value::from(zones.clone()), "{at}");
    let path = format!("/v1/worlds/main/heights?mode=surface{}", query(revision));
    let body = json!({ "points": json_points(points) });
    let (status, answer) = server.post_json(&path, &body).await;
    assert_eq!(status, 200, "{at}: {answer}");
    assert_eq!(answer["revision"], want_revision, "{at}");
    for (&(x, z), got) in points.iter().zip(nums(&answer["heights"])) {
        let want = surface_height(terrain, x, z);
        assert_same(got, want, &format!("{at} surface batch ({x}, {z})"));
    }
    let path = format!("/v1/worlds/main/heights?{}", query(revision));
    let response = server.post_points_binary(&path, points).await;
    assert_eq!(response.status(), 200, "{at}");
    let header = response.headers()["x-terrain-revision"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(header, want_revision.to_string(), "{at}");
    let bytes = response.bytes().await.expect("body");
    for (i, (chunk, want)) in bytes.chunks_exact(8).zip(&heights).enumerate() {
        let got = f64::from_le_bytes(chunk.try_into().unwrap());
        assert_same(got, *want, &format!("{at} binary point {i}"));
    }
    let answer = grpc
        .get_heights(pb::GetHeightsRequest {
            world: "main".into(),
            coordinates: points.iter().flat_map(|&(x, z)| [x, z]).collect(),
            revision,
            ..Default::default()
        })
        .await
        .expect("GetHeights")
        .into_inner();
    assert_eq!(answer.revision, want_revision, "{at}");
    for (i, (got, want)) in answer.heights.iter().zip(&heights).enumerate() {
        assert_same(*got, *want, &format!("{at} gRPC batch point {i}"));
    }
    let grpc_zones: Vec<Value> = answer
        .zones
        .iter()
        .map(|id| json!((!id.is_empty()).then_some(id)))
        .collect();
    assert_eq!(grpc_zones, zones, "{at}");

    // Terrain info.
    let rule = world_config().walk_rule();
    let walker = Walker::new(terrain, &rule);
    let body = with_revision(json!({ "points": json_points(points) }), revision);
    let (status, answer) = server
        .post_json("/v1/worlds/main/terrain-info", &body)
        .await;
    assert_eq!(status, 200, "{at}: {answer}");
    assert_eq!(answer["revision"], want_revision, "{at}");
    let infos = grpc
        .get_terrain_info(pb::GetTerrainInfoRequest {
            world: "main".into(),
            coordinates: points.iter().flat_map(|&(x, z)| [x, z]).collect(),
            revision,
        })
        .await
        .expect("GetTerrainInfo")
        .into_inner();
    assert_eq!(infos.revision, want_revision, "{at}");
    let http = answer["points"].as_array().unwrap();
    for ((&(x, z), got), info) in points.iter().zip(http).zip(&infos.points) {
        let want = walker.info(x, z);
        let what = format!("{at} info ({x}, {z})");
        assert_same(num(&got["height"]), want.height, &what);
        assert_same(num(&got["slope"]), want.slope, &what);
        assert_eq!(got["walkable"], want.walkable(), "{what}: {got}");
        assert_eq!(
            got["reason"].as_str(),
            want.reason.map(Reason::code),
            "{what}"
        );
        assert_same(info.height, want.height, &what);
        assert_same(info.slope, want.slope, &what);
        assert_eq!(info.walkable, want.walkable(), "{what}");
        assert_eq!(info.reason(), reason(want.reason), "{what}");
    }

    // Path checks, both modes.
    for line in PATHS {
        for (mode, exact, grpc_mode) in [
            ("exact", true, pb::PathMode::Exact),
            ("hyperscape", false, pb::PathMode::Hyperscape),
        ] {
            let want = core_check(terrain, line, exact);
            let what = format!("{at} {mode} check of {line:?}");
            let body = with_revision(json!({"points": json_points(line), "mode": mode}), revision);
            let (status, got) = server.post_json("/v1/worlds/main/paths/check", &body).await;
            assert_eq!(status, 200, "{what}: {got}");
            assert_eq!(got["revision"], want_revision, "{what}");
            assert_eq!(got["blocked"], want.blocked.is_some(), "{what}: {got}");
            let at_point = want.blocked.map(|((x, z), _)| json!([x, z]));
            assert_eq!(got["at"], json!(at_point), "{what}");
            let why = want.blocked.map(|(_, r)| r.code());
            assert_eq!(got["reason"].as_str(), why, "{what}");
            assert_eq!(got["path"], json_points(&want.path), "{what}");
            let answer = grpc
                .check_path(pb::CheckPathRequest {
                    world: "main".into(),
                    points: line.iter().map(|&(x, z)| pb::Point2 { x, z }).collect(),
                    mode: grpc_mode.into(),
                    revision,
                })
                .await
                .expect("CheckPath")
                .into_inner();
            assert_eq!(answer.revision, want_revision, "{what}");
            assert_eq!(answer.blocked, want.blocked.is_some(), "{what}");
            let got_at = answer.at.map(|p| (p.x, p.z));
            assert_eq!(got_at, want.blocked.map(|(p, _)| p), "{what}");
            assert_eq!(
                answer.reason(),
                reason(want.blocked.map(|(_, r)| r)),
                "{what}"
            );
            let path: Vec<_> = answer.path.iter().map(|p| (p.x, p.z)).collect();
            assert_eq!(path, want.path, "{what}");
        }
    }
}

/// Every as-of route refuses `revision` with `status` / `FAILED_PRECONDITION` naming
/// the field, its message containing `says`.
async fn refused(
    server: &TestServer,
    grpc: &mut TerrainServiceClient<Channel>,
    revision: u64,
    says: &str,
) {
    let points = json_points(&[(40.0, 40.0)]);
    let answers = [
        server
            .get(&format!("/v1/worlds/main/height?x=40&z=40&revision={revision}"))
            .await,
        server
            .post_json(
                "/v1/worlds/main/heights",
                &json!({"points": points, "revision": revision}),
            )
            .await,
        server
            .post_json(
                "/v1/worlds/main/terrain-info",
                &json!({"points": points, "revision": revision}),
            )
            .await,
        server
            .post_json(
                "/v1/worlds/main/paths/check",
                &json!({"points": PATHS[0].iter().map(|&(x, z)| [x, z]).collect::<Vec<_>>(), "revision": revision}),
            )
            .await,
    ];
    for answer in &answers {
        assert_http_error(answer, 409, "FAILED_PRECONDITION", Some("revision"));
        let message = answer.1["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
    }
    let statuses = [
        grpc.get_height(pb::GetHeightRequest {
            world: "main".into(),
            x: 40.0,
            z: 40.0,
            revision: Some(revision),
            ..Default::default()
        })
        .await
        .map(drop),
        grpc.get_heights(pb::GetHeightsRequest {
            world: "main".into(),
            coordinates: vec![40.0, 40.0],
            revision: Some(revision),
            ..Default::default()
        })
        .await
        .map(drop),
        grpc.get_terrain_info(pb::GetTerrainInfoRequest {
            world: "main".into(),
            coordinates: vec![40.0, 40.0],
            revision: Some(revision),
        })
        .await
        .map(drop),
        grpc.check_path(pb::CheckPathRequest {
            world: "main".into(),
            points: vec![pb::Point2 { x: 0.5, z: 0.5 }],
            revision: Some(revision),
            ..Default::default()
        })
        .await
        .map(drop),
    ];
    for status in statuses {
        let status = status.expect_err("refused");
        assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{status:?}");
        assert!(status.message().contains(says), "{status:?}");
        let details = status.get_details_bad_request().expect("a BadRequest");
        assert_eq!(details.field_violations[0].field, "revision", "{status:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_as_of_each_revision_equal_a_fresh_world_of_its_zones() {
    let mut server = TestServer::start_with(configure).await;
    let mut grpc = server.grpc().await;
    let generator = main_generator();
    let before = server.revision("main").await;

    // Register the hall (a), move it (b), remove it (c).
    let a = put_zone(&server, "hall", &hall(40.0)).await["revision"]
        .as_u64()
        .unwrap();
    let b = put_zone(&server, "hall", &hall(80.0)).await["revision"]
        .as_u64()
        .unwrap();
    let (status, answer) = server.delete("/v1/worlds/main/flat-zones/hall", None).await;
    assert_eq!(status, 200, "{answer}");
    let c = answer["revision"].as_u64().unwrap();
    assert_eq!((a, b, c), (before + 1, before + 2, before + 3));
    let hall_a = resolve(&generator, "hall", &hall(40.0));
    let hall_b = resolve(&generator, "hall", &hall(80.0));
    let zones_of: Vec<(u64, Vec<(FlatZone, u64)>)> = vec![
        (before, vec![]),
        (a, vec![(hall_a.clone(), a)]),
        (b, vec![(hall_b.clone(), b)]),
        (c, vec![]),
    ];
    let mut points = probe_points(&[hall_a.clone(), hall_b.clone()]);
    points.extend([(0.5, 0.5), (35.5, 40.5), (40.0, 80.0), (100.0, -20.0)]);

    // The revisions differ where it matters, so equal answers show something: the
    // walk across the first place is blocked by the hall as of a only, the one
    // across the second as of b only, and the heights there differ.
    let terrains: Vec<(u64, Terrain)> = zones_of.iter().map(|(r, z)| (*r, fresh(z))).collect();
    let blocked = |t: &Terrain, line: usize| core_check(t, PATHS[line], true).blocked;
    assert_eq!(
        blocked(&terrains[1].1, 0).map(|(_, r)| r),
        Some(Reason::Zone)
    );
    assert_eq!(blocked(&terrains[2].1, 0), None);
    assert_eq!(
        blocked(&terrains[2].1, 1).map(|(_, r)| r),
        Some(Reason::Zone)
    );
    assert_eq!(blocked(&terrains[3].1, 1), None);
    assert_ne!(
        terrains[1].1.sample(40.0, 40.0).height.to_bits(),
        terrains[0].1.sample(40.0, 40.0).height.to_bits()
    );

    // As of each revision, then now (the current answers are not disturbed).
    for (revision, terrain) in &terrains {
        answers_match(
            &server,
            &mut grpc,
            Some(*revision),
            *revision,
            terrain,
            &points,
        )
        .await;
    }
    answers_match(&server, &mut grpc, None, c, &terrains[3].1, &points).await;

    // The SDK asks the same.
    let mut client = server.client().await;
    let (revision, terrain) = &terrains[1];
    let got = client
        .heights_as_of("main", &points, HeightMode::Exact, Some(*revision))
        .await
        .expect("heights");
    assert_eq!(got.revision, *revision);
    for (&(x, z), h) in points.iter().zip(&got.heights) {
        assert_same(*h, terrain.sample(x, z).height, "SDK heights");
    }
    let one = client
        .height_as_of("main", 40.0, 40.0, HeightMode::Exact, Some(*revision))
        .await
        .expect("height");
    assert_eq!(one.zone.as_deref(), Some("hall"));
    let info = client
        .terrain_info_as_of("main", &points, Some(*revision))
        .await
        .expect("terrain info");
    assert_eq!(info.revision, *revision);
    let rule = world_config().walk_rule();
    let walker = Walker::new(terrain, &rule);
    for (&(x, z), got) in points.iter().zip(&info.points) {
        assert_same(got.height, walker.info(x, z).height, "SDK info");
    }
    let check = client
        .check_path_as_of("main", PATHS[0], PathMode::Exact, Some(*revision))
        .await
        .expect("check");
    assert_eq!(check.revision, *revision);
    let want = core_check(terrain, PATHS[0], true);
    assert_eq!(check.blocked.map(|(p, _)| p), want.blocked.map(|(p, _)| p));
    assert_eq!(check.path, want.path);

    // Two more changes: the window (3) now reaches b, not a or before.
    let d = put_zone(&server, "pad", &pad(-60.0)).await["revision"]
        .as_u64()
        .unwrap();
    let e = put_zone(&server, "pad", &pad(-90.0)).await["revision"]
        .as_u64()
        .unwrap();
    assert_eq!((d, e), (c + 1, c + 2));
    let pad_d = resolve(&generator, "pad", &pad(-60.0));
    let pad_e = resolve(&generator, "pad", &pad(-90.0));
    let now = fresh(&[(pad_e.clone(), e)]);
    points.extend(probe_points(&[pad_d.clone(), pad_e]));
    let as_of_d = fresh(&[(pad_d, d)]);
    for (revision, terrain) in [(b, &terrains[2].1), (c, &terrains[3].1), (d, &as_of_d)] {
        answers_match(
            &server,
            &mut grpc,
            Some(revision),
            revision,
            terrain,
            &points,
        )
        .await;
    }
    for revision in [before, a] {
        refused(&server, &mut grpc, revision, "no longer held").await;
    }
    refused(&server, &mut grpc, e + 1, "newer than").await;
    refused(&server, &mut grpc, u64::MAX, "newer than").await;
    let err = client
        .terrain_info_as_of("main", &points, Some(a))
        .await
        .expect_err("outside the window");
    match err {
        ClientError::FailedPrecondition(message) => {
            assert!(message.starts_with("revision: "), "{message}")
        }
        other => panic!("{other:?}"),
    }
    // Refusals changed nothing.
    assert_eq!(server.revision("main").await, e);
    answers_match(&server, &mut grpc, None, e, &now, &points).await;

    // After a restart the window is rebuilt from the retained zone log.
    server.restart(configure).await;
    let mut grpc = server.grpc().await;
    answers_match(&server, &mut grpc, Some(b), b, &terrains[2].1, &points).await;
    answers_match(&server, &mut grpc, Some(e), e, &now, &points).await;
    refused(&server, &mut grpc, a, "no longer held").await;
    server.stop().await;
}

#[tokio::test]
async fn a_revision_that_is_not_an_unsigned_integer_is_refused_naming_it() {
    let server = TestServer::start_with(configure).await;
    put_zone(&server, "hall", &hall(40.0)).await;
    let points = json_points(&[(40.0, 40.0)]);
    let answers = [
        server
            .get("/v1/worlds/main/height?x=1&z=2&revision=-1")
            .await,
        server
            .get("/v1/worlds/main/height?x=1&z=2&revision=1.5")
            .await,
        server
            .get("/v1/worlds/main/height?x=1&z=2&revision=1&revision=1")
            .await,
        server
            .post_json(
                "/v1/worlds/main/heights",
                &json!({"points": points, "revision": "1"}),
            )
            .await,
        server
            .post_json(
                "/v1/worlds/main/heights?revision=1",
                &json!({"points": points, "revision": 1}),
            )
            .await,
        server
            .post_json(
                "/v1/worlds/main/terrain-info",
                &json!({"points": points, "revision": -2}),
            )
            .await,
        server
            .post_json(
                "/v1/worlds/main/paths/check",
                &json!({"points": points, "revision": 2.5}),
            )
            .await,
    ];
    for answer in &answers {
        assert_http_error(answer, 400, "INVALID_ARGUMENT", Some("revision"));
    }
    // A null revision is no revision: the current answer.
    let (status, answer) = server
        .post_json(
            "/v1/worlds/main/terrain-info",
            &json!({"points": points, "revision": null}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["revision"], 1);
    assert_eq!(server.revision("main").await, 1);
    server.stop().await;
}
