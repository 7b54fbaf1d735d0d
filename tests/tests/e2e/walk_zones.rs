//! A flat zone's `walkable` (`true`: a floor, always walkable; `false`: a building that
//! blocks; absent: the terrain rule): in the zone answers of both surfaces and the SDK,
//! in the events live and replayed, stored across a restart, followed by the replica,
//! and deciding terrain info, path checks and path finding over the zone's core exactly
//! as terrain-core's walker does over the same zones.

use terrain_tests as common;

use common::{events::*, *};
use serde_json::{Value, json};
use terrain_core::{
    GeneratorKind, Overlap, Terrain,
    walk::{BiomeLimits, Reason, WalkRule, Walker},
};
use terrain_proto::v1 as pb;
use terrain_server::config::WorldConfig;

/// One hyperscape world without zones, layered: the `slope` rule, water below 9 m.
fn world(c: &mut terrain_server::Config) {
    c.worlds = vec![WorldConfig::new("main", GeneratorKind::Hyperscape, 0)];
    c.lifecycle.warm_radius = None;
}

fn slope_rule() -> WalkRule {
    WalkRule::Slope {
        limits: BiomeLimits::hyperscape(),
        water_level: 9.0,
    }
}

/// A building on dry land by the spawn.
fn hall(walkable: bool) -> Value {
    json!({"centerX": 40.0, "centerZ": 40.0, "width": 10.0, "depth": 10.0,
           "heightOffset": 0.5, "blendRadius": 2.0, "walkable": walkable})
}

/// A floor below the water level, out at sea: walkable although under water.
fn dock() -> Value {
    json!({"centerX": 107.0, "centerZ": -345.0, "width": 12.0, "depth": 12.0,
           "height": 5.0, "blendRadius": 2.0, "walkable": true})
}

/// A zone without `walkable`.
fn pad() -> Value {
    json!({"centerX": -300.0, "centerZ": 200.0, "radius": 5.0, "heightOffset": 0.0,
           "blendRadius": 1.0})
}

/// Points over the hall, its ring, the dock, the sea beside it and open land.
const POINTS: [(f64, f64); 6] = [
    (40.0, 40.0),
    (44.5, 36.0),
    (107.0, -345.0),
    (107.0, -330.0),
    (0.5, 0.5),
    (-300.0, 200.0),
];

fn core(zones: &[(&str, Value)]) -> Terrain {
    let generator = main_generator();
    let resolved: Vec<_> = zones
        .iter()
        .map(|(id, body)| resolve(&generator, id, body))
        .collect();
    terrain(&generator, Overlap::Layered, &resolved)
}

/// Terrain info at [`POINTS`] over HTTP, checked field by field against `walker`.
async fn info_matches(server: &TestServer, walker: &Walker<'_>) -> Value {
    let points: Vec<_> = POINTS.iter().map(|&(x, z)| json!([x, z])).collect();
    let (status, answer) = server
        .post_json("/v1/worlds/main/terrain-info", &json!({ "points": points }))
        .await;
    assert_eq!(status, 200, "{answer}");
    for (&(x, z), got) in POINTS.iter().zip(answer["points"].as_array().unwrap()) {
        let want = walker.info(x, z);
        assert_eq!(
            got["height"].as_f64().unwrap().to_bits(),
            want.height.to_bits()
        );
        assert_eq!(got["walkable"], want.walkable(), "({x}, {z}): {got}");
        assert_eq!(got["underwater"], want.underwater, "({x}, {z}): {got}");
        let reason = got["reason"].as_str();
        assert_eq!(reason, want.reason.map(Reason::code), "({x}, {z}): {got}");
    }
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zone_s_walkable_is_served_announced_stored_and_decides_movement() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut server = TestServer::start_in(data, world).await;
    let (mut ws, _events, mut stream) = subscribe_both(&server, "main").await;

    // Answers and events carry the zone's walkable, and leave it out when absent.
    let answer = put_zone(&server, "hall", &hall(false)).await;
    assert_eq!(answer["zone"]["walkable"], false, "{answer}");
    let answer = put_zone(&server, "dock", &dock()).await;
    assert_eq!(answer["zone"]["walkable"], true, "{answer}");
    let answer = put_zone(&server, "pad", &pad()).await;
    assert!(answer["zone"].get("walkable").is_none(), "{answer}");
    for want in [Some(false), Some(true), None] {
        let event = ws_event(&mut ws).await;
        assert_eq!(
            event["cause"].get("walkable").and_then(Value::as_bool),
            want
        );
        let event = grpc_tile_event(&mut stream).await;
        assert_eq!(event.cause.expect("cause").walkable, want);
    }

    // Terrain info equals the walker over the same zones; the hall blocks, the dock
    // is a floor under water.
    let zones = [("hall", hall(false)), ("dock", dock()), ("pad", pad())];
    let terrain = core(&zones);
    let rule = slope_rule();
    let walker = Walker::new(&terrain, &rule);
    let answer = info_matches(&server, &walker).await;
    assert_eq!(answer["points"][0]["reason"], "zone");
    assert_eq!(answer["points"][2]["walkable"], true);
    assert_eq!(answer["points"][2]["underwater"], true);
    let bare = core(&[]);
    assert_eq!(
        Walker::new(&bare, &rule).blocked(107.0, -345.0),
        Some(Reason::Water),
        "without the dock its point is sea: the test shows nothing"
    );
    let mut grpc = server.grpc().await;
    let infos = grpc
        .get_terrain_info(pb::GetTerrainInfoRequest {
            world: "main".into(),
            coordinates: POINTS.iter().flat_map(|&(x, z)| [x, z]).collect(),
            revision: None,
        })
        .await
        .expect("GetTerrainInfo")
        .into_inner();
    assert_eq!(infos.points[0].reason(), pb::WalkReason::Zone);
    assert!(infos.points[2].walkable && infos.points[2].underwater);

    // A straight walk through the hall is blocked by it; a path is found around it.
    let (from, to) = ([20.5, 40.5], [60.5, 40.5]);
    let (status, check) = server
        .post_json(
            "/v1/worlds/main/paths/check",
            &json!({"points": [from, to], "mode": "exact"}),
        )
        .await;
    assert_eq!(status, 200, "{check}");
    assert_eq!(check["blocked"], true, "{check}");
    assert_eq!(check["reason"], "zone", "{check}");
    assert_eq!(check["at"], json!([35.5, 40.5]), "the hall's first tile");
    let (status, found) = server
        .post_json(
            "/v1/worlds/main/paths/find",
            &json!({ "from": from, "to": to }),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["found"], true, "{found}");
    assert!(found["waypoints"].as_array().unwrap().len() > 2, "{found}");
    let (_, around) = server
        .post_json(
            "/v1/worlds/main/paths/check",
            &json!({"points": found["waypoints"], "mode": "exact"}),
        )
        .await;
    assert_eq!(around["blocked"], false, "{found} {around}");

    // The SDK reads it, and the replica's ground carries it.
    let mut client = server.client().await;
    let got = client.flat_zone("main", "hall").await.expect("zone");
    assert_eq!(got.zone.expect("hall").zone.walkable, Some(false));
    let replica = terrain_client::LocalTerrain::open(client.clone(), "main")
        .await
        .expect("replica");
    replica.wait_for_revision(3).await.expect("revision 3");
    let snapshot = replica.snapshot();
    let local = Walker::new(snapshot.terrain(), &rule);
    for &(x, z) in &POINTS {
        assert_eq!(local.info(x, z), walker.info(x, z), "replica at ({x}, {z})");
    }
    drop(replica);

    // Stored: a restart serves and replays the same.
    server.restart(world).await;
    let (_, answer) = server.get("/v1/worlds/main/flat-zones/hall").await;
    assert_eq!(answer["zone"]["walkable"], false, "{answer}");
    info_matches(&server, &walker).await;
    let mut ws = ws_connect(&server, "main", "fromRevision=0").await;
    for want in [Some(false), Some(true), None] {
        let event = ws_event(&mut ws).await;
        assert_eq!(
            event["cause"].get("walkable").and_then(Value::as_bool),
            want
        );
    }

    // Replaced by a floor: the same ground, walkable now, announced as such.
    let answer = put_zone(&server, "hall", &hall(true)).await;
    assert_eq!(answer["change"], "replaced", "{answer}");
    let event = ws_event(&mut ws).await;
    assert_eq!(event["cause"]["walkable"], true, "{event}");
    assert!(event["tileCount"].as_u64().unwrap() > 0, "{event}");
    let zones = [("hall", hall(true)), ("dock", dock()), ("pad", pad())];
    let terrain = core(&zones);
    let walker = Walker::new(&terrain, &rule);
    let answer = info_matches(&server, &walker).await;
    assert_eq!(answer["points"][0]["walkable"], true, "{answer}");
    server.stop().await;
}

#[tokio::test]
async fn a_walkable_that_is_not_a_boolean_is_refused_naming_the_field() {
    let server = TestServer::start_with(world).await;
    let mut body = hall(false);
    body["walkable"] = json!("no");
    let (status, answer) = server
        .put_json("/v1/worlds/main/flat-zones/hall", &body, None)
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["field"], "walkable", "{answer}");
    let (status, _) = server.get("/v1/worlds/main/flat-zones/hall").await;
    assert_eq!(status, 404, "nothing registered");
    server.stop().await;
}

/// An exact path check over HTTP, checked against `walker`'s (the blocked point, its
/// reason and the tiles crossed).
async fn check_matches(server: &TestServer, walker: &Walker<'_>, points: &[(f64, f64)]) -> Value {
    let body = json!({"points": points.iter().map(|&(x, z)| json!([x, z])).collect::<Vec<_>>(), "mode": "exact"});
    let (status, answer) = server.post_json("/v1/worlds/main/paths/check", &body).await;
    assert_eq!(status, 200, "{answer}");
    let want = walker.check_tiles(points, 1.0);
    assert_eq!(answer["blocked"], want.blocked.is_some(), "{answer}");
    match want.blocked {
        Some(((x, z), reason)) => {
            assert_eq!(answer["at"], json!([x, z]), "{answer}");
            assert_eq!(answer["reason"], reason.code(), "{answer}");
        }
        None => assert_eq!(answer["at"], Value::Null, "{answer}"),
    }
    assert_eq!(answer["path"].as_array().unwrap().len(), want.path.len());
    answer
}

/// Path checks and searches keep their blocks of movement tiles across requests, by
/// the versions of the tiles the blocks read: a check builds a block the second time it
/// meets it and later ones read it; a zone has the blocks over the tiles it changed
/// built again (at their new version) while blocks elsewhere stay hits, and a check
/// asked on its event already judges it; every answer equals the walker's over the
/// zones of its time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_queries_keep_their_walk_grids_until_a_zone_changes_their_tiles() {
    let server = TestServer::start_with(world).await;
    let count = |outcome: &'static str| {
        let server = &server;
        async move {
            server
                .metric(&format!(
                    r#"terrain_walk_grids_total{{world="main",outcome="{outcome}"}}"#
                ))
                .await
        }
    };
    let rule = slope_rule();
    let bare = core(&[]);
    let walker = Walker::new(&bare, &rule);
    // A clear path of about 180 m across four blocks, and a short check 300 m away.
    let found = terrain_core::walk::find::find_path(
        (-90.5, 40.5),
        (90.5, 40.5),
        1.0,
        200_000,
        terrain_core::walk::WalkGrids::new(&walker),
    )
    .expect("a path on the bare island");
    let path = found.waypoints;
    let far = [(-300.5, 150.5), (-260.5, 170.5)];
    for (pass, points) in [&path[..], &path[..], &path[..], &far[..], &far[..]]
        .iter()
        .enumerate()
    {
        let answer = check_matches(&server, &walker, points).await;
        if pass < 3 {
            assert_eq!(answer["blocked"], false, "{answer}");
        }
        if pass == 0 {
            assert_eq!(count("built").await, 0.0, "a block met once is not built");
        }
    }
    let (built, hits) = (count("built").await, count("hit").await);
    assert!(built >= 4.0, "{built} blocks built");
    assert!(hits >= 3.0, "{hits} blocks read");

    // A building on the path: its blocks are built again, the far ones are read.
    let (hx, hz) = path[path.len() / 2];
    let hall = json!({"centerX": hx, "centerZ": hz, "width": 6.0, "depth": 6.0,
                      "heightOffset": 0.5, "blendRadius": 2.0, "walkable": false});
    // Asked the moment its event arrives (the PUT's answer may not be read yet), the
    // check already judges the building.
    let zoned = core(&[("hall", hall.clone())]);
    let walker = Walker::new(&zoned, &rule);
    let mut ws = ws_connect(&server, "main", "").await;
    let (_, on_event) = tokio::join!(put_zone(&server, "hall", &hall), async {
        ws_event(&mut ws).await;
        check_matches(&server, &walker, &path).await
    });
    assert_eq!(on_event["reason"], "zone", "{on_event}");
    let answer = check_matches(&server, &walker, &path).await;
    assert_eq!(answer["reason"], "zone", "{answer}");
    let rebuilt = count("built").await - built;
    assert!(
        rebuilt >= 1.0 && rebuilt < built,
        "{rebuilt} of {built} blocks built again"
    );
    let (built, hits) = (count("built").await, count("hit").await);
    check_matches(&server, &walker, &far).await;
    assert_eq!(count("built").await, built, "the far blocks are kept");
    assert!(count("hit").await > hits);

    // A search builds the blocks it enters and keeps them; a check over its path
    // reads them.
    let (status, found) = server
        .post_json(
            "/v1/worlds/main/paths/find",
            &json!({"from": [-90.5, 40.5], "to": [90.5, 40.5]}),
        )
        .await;
    assert_eq!(status, 200, "{found}");
    let waypoints: Vec<(f64, f64)> = found["waypoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
        .collect();
    let built = count("built").await;
    let answer = check_matches(&server, &walker, &waypoints).await;
    assert_eq!(answer["blocked"], false, "{answer}");
    assert_eq!(count("built").await, built, "the search's blocks are read");
    server.stop().await;
}
