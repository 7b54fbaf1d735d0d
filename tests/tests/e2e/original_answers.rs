//! The original's other point answers on every surface: for seeds 0 and 6, a hyperscape
//! world under the original's overlap and walkability rules with the 28 reference
//! zones and the 16 building footprints (tile masks) of
//! `core/tests/data/hyperscape/adapter/zones_seed{S}.json` registered over HTTP in file
//! order answers, at every one of the 2,700 points of `trace_seed{S}.csv` (the
//! original's `TerrainSystem`), bit for bit what the original answered:
//!
//! - terrain info over HTTP (`POST .../terrain-info`) and gRPC (`GetTerrainInfo`):
//!   `getTerrainInfoAt`'s height, slope, biome, underwater and walkable,
//!   `getNormalAt`'s normal (`-0` kept on flat ground: `-0.0` in JSON, a negative zero
//!   double in protobuf) and `getDifficultyAtWorldPosition`'s level, scalar, biome,
//!   tier and isSafe;
//! - procedural heights (`getProceduralHeightAt`) over the HTTP batch, the HTTP single
//!   point, gRPC `GetHeights` and `GetHeight`, and the SDK replica;
//! - the SDK replica's terrain info equals the server's, normal and difficulty included.
//!
//! Besides: a world under another rule answers the normal and no difficulty, a world
//! with its own `towns` judges difficulty from them (listed with the rule, and the
//! replica follows them), procedural heights as of a past revision keep the revision
//! window's rules, and a procedural heightmap is the single-point answers.

use terrain_tests as common;

use common::{TestServer, random_points};
use reqwest::StatusCode;
use serde_json::{Value, json};
use terrain_client::{HeightMode, LocalTerrain, PointInfo};
use terrain_core::{
    GeneratorKind, Overlap,
    walk::{BiomeLimits, FALLBACK_TOWNS, Town, WalkRule},
};
use terrain_proto::v1::{
    GetHeightRequest, GetHeightmapRequest, GetHeightsRequest, GetTerrainInfoRequest,
    HeightMode as PbMode,
};
use terrain_server::config::{WorldConfig, walk::RuleName};

const SEEDS: [(u32, &str, &str); 2] = [
    (
        0,
        include_str!("../../../core/tests/data/hyperscape/adapter/zones_seed0.json"),
        include_str!("../../../core/tests/data/hyperscape/adapter/trace_seed0.csv"),
    ),
    (
        6,
        include_str!("../../../core/tests/data/hyperscape/adapter/zones_seed6.json"),
        include_str!("../../../core/tests/data/hyperscape/adapter/trace_seed6.csv"),
    ),
];

/// A hyperscape world of `seed` under the original's overlap and walkability rules,
/// without zones.
fn original_world(id: &str, seed: u32) -> WorldConfig {
    let mut world = WorldConfig::new(id, GeneratorKind::Hyperscape, seed);
    world.overlap = Overlap::Hyperscape;
    world.walk.rule = Some(RuleName::Hyperscape);
    world
}

/// One row of a trace: the point and its columns by name.
struct Row {
    x: f64,
    z: f64,
    fields: Vec<String>,
}

struct Trace {
    header: Vec<String>,
    rows: Vec<Row>,
}

impl Trace {
    fn parse(text: &str) -> Self {
        let mut lines = text.lines();
        let header = lines.next().unwrap().split(',').map(String::from).collect();
        let rows = lines
            .filter(|l| !l.is_empty())
            .map(|l| {
                let fields: Vec<String> = l.split(',').map(String::from).collect();
                Row {
                    x: fields[0].parse().unwrap(),
                    z: fields[1].parse().unwrap(),
                    fields,
                }
            })
            .collect();
        Trace { header, rows }
    }

    /// Column `name` of `row`.
    fn col<'r>(&self, row: &'r Row, name: &str) -> &'r str {
        let i = self.header.iter().position(|h| h == name).unwrap();
        &row.fields[i]
    }

    /// Column `name` of `row` as a number (JavaScript's text: `-0`, shortest form).
    fn num(&self, row: &Row, name: &str) -> f64 {
        self.col(row, name).parse().unwrap()
    }

    fn points(&self) -> Vec<(f64, f64)> {
        self.rows.iter().map(|r| (r.x, r.z)).collect()
    }
}

/// Registers the zones of a zones file on `world` over HTTP, in file order, with their
/// building footprints: the game's `tileMaskTiles` is the API's `tileMask`
/// (`tileMaskBounds`, derived from the tiles, is left out).
async fn register_zones(server: &TestServer, world: &str, json: &str) -> usize {
    let mut masks = 0;
    for (id, zone) in common::game_zone_bodies(json) {
        masks += usize::from(zone.get("tileMask").is_some());
        let path = format!("/v1/worlds/{world}/flat-zones/{id}");
        let (status, body) = server.put_json(&path, &zone, None).await;
        assert_eq!(status, StatusCode::OK, "{world} {id}: {body}");
    }
    masks
}

/// `a` and `b` are the same bits.
#[track_caller]
fn same(what: &str, got: f64, want: f64) {
    assert_eq!(got.to_bits(), want.to_bits(), "{what}: {got:?} vs {want:?}");
}

/// The JSON number `v`, exactly.
fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number, got {v}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_surface_answers_the_original_s_normal_difficulty_and_procedural_height() {
    let server = TestServer::start_with(|c| {
        c.worlds = vec![original_world("s0", 0), original_world("s6", 6)];
    })
    .await;
    let mut grpc = server.grpc().await;
    for (seed, zones, trace) in SEEDS {
        let world = format!("s{seed}");
        assert_eq!(register_zones(&server, &world, zones).await, 16);
        let trace = Trace::parse(trace);
        assert_eq!(trace.rows.len(), 2700);
        let points = trace.points();
        let list: Vec<[f64; 2]> = points.iter().map(|&(x, z)| [x, z]).collect();
        let coordinates: Vec<f64> = points.iter().flat_map(|&(x, z)| [x, z]).collect();

        // Terrain info over HTTP: the text keeps -0 as `-0.0`.
        let response = server
            .http
            .post(server.url(&format!("/v1/worlds/{world}/terrain-info")))
            .json(&json!({ "points": list }))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let text = response.text().await.unwrap();
        assert!(text.contains(r#""normal":[-0.0,1.0,-0.0]"#), "seed {seed}");
        let http: Value = serde_json::from_str(&text).unwrap();
        let http = http["points"].as_array().unwrap();
        // The same over gRPC.
        let answer = grpc
            .get_terrain_info(GetTerrainInfoRequest {
                world: world.clone(),
                coordinates: coordinates.clone(),
                revision: None,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(answer.revision, 44, "seed {seed}: 44 zones registered");
        let mut flat = 0;
        for (k, row) in trace.rows.iter().enumerate() {
            let at = format!("seed {seed} row {k} ({}, {})", row.x, row.z);
            let (h, g) = (&http[k], &answer.points[k]);
            let want_normal = ["normalX", "normalY", "normalZ"].map(|c| trace.num(row, c));
            flat += usize::from(want_normal[0].to_bits() == (-0.0f64).to_bits());
            assert_eq!(g.normal.len(), 3, "{at}");
            for (i, &want) in want_normal.iter().enumerate() {
                same(&format!("{at} HTTP normal[{i}]"), f(&h["normal"][i]), want);
                same(&format!("{at} gRPC normal[{i}]"), g.normal[i], want);
            }
            for (what, got) in [("HTTP", f(&h["height"])), ("gRPC", g.height)] {
                same(
                    &format!("{at} {what} height"),
                    got,
                    trace.num(row, "info_height"),
                );
                same(
                    &format!("{at} {what} getHeightAt"),
                    got,
                    trace.num(row, "getHeightAt"),
                );
            }
            same(
                &format!("{at} HTTP slope"),
                f(&h["slope"]),
                trace.num(row, "info_slope"),
            );
            same(
                &format!("{at} gRPC slope"),
                g.slope,
                trace.num(row, "info_slope"),
            );
            let biome = trace.col(row, "info_biome");
            assert_eq!(
                (h["biome"].as_str(), g.biome.as_str()),
                (Some(biome), biome),
                "{at}"
            );
            let underwater = trace.col(row, "info_underwater") == "true";
            let walkable = trace.col(row, "info_walkable") == "true";
            assert_eq!(h["underwater"], underwater, "{at}");
            assert_eq!(h["walkable"], walkable, "{at}");
            assert_eq!((g.underwater, g.walkable), (underwater, walkable), "{at}");

            let d = &h["difficulty"];
            let gd = g
                .difficulty
                .as_ref()
                .expect("a difficulty under hyperscape");
            let level: u32 = trace.col(row, "difficulty_level").parse().unwrap();
            let is_safe = trace.col(row, "difficulty_isSafe") == "true";
            let difficulty_biome = trace.col(row, "difficulty_biome");
            assert_eq!(d["level"], level, "{at}");
            assert_eq!(d["isSafe"], is_safe, "{at}");
            assert_eq!(d["biome"], difficulty_biome, "{at}");
            assert_eq!(
                (gd.level, gd.is_safe, gd.biome.as_str()),
                (level, is_safe, difficulty_biome),
                "{at}"
            );
            let scalar = trace.num(row, "difficulty_scalar");
            let tier = trace.num(row, "difficulty_tier");
            same(&format!("{at} HTTP scalar"), f(&d["scalar"]), scalar);
            same(&format!("{at} gRPC scalar"), gd.scalar, scalar);
            same(&format!("{at} HTTP tier"), f(&d["tier"]), tier);
            same(&format!("{at} gRPC tier"), gd.tier, tier);
        }
        assert!(flat > 100, "seed {seed}: {flat} points on flat ground");

        // Procedural heights: the HTTP batch and gRPC's, and single points.
        let (status, batch) = server
            .post_json(
                &format!("/v1/worlds/{world}/heights?mode=procedural"),
                &json!({ "points": list }),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{batch}");
        assert_eq!(
            batch["zones"],
            json!([]),
            "no zone decides a procedural height"
        );
        let heights = grpc
            .get_heights(GetHeightsRequest {
                world: world.clone(),
                coordinates: coordinates.clone(),
                mode: PbMode::Procedural as i32,
                revision: None,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(heights.zones.is_empty());
        // The binary batch takes the mode in its query string.
        let binary = server
            .post_points_binary(
                &format!("/v1/worlds/{world}/heights?mode=procedural"),
                &points,
            )
            .await;
        assert_eq!(binary.status(), StatusCode::OK);
        assert_eq!(binary.headers()["x-terrain-revision"], "44");
        let binary: Vec<f64> = binary
            .bytes()
            .await
            .unwrap()
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(binary.len(), points.len());
        let mut differ = 0;
        for (k, row) in trace.rows.iter().enumerate() {
            let at = format!("seed {seed} row {k}");
            let want = trace.num(row, "getProceduralHeightAt");
            same(&format!("{at} HTTP batch"), f(&batch["heights"][k]), want);
            same(&format!("{at} gRPC batch"), heights.heights[k], want);
            same(&format!("{at} binary batch"), binary[k], want);
            differ += usize::from(want != trace.num(row, "getHeightAt"));
        }
        assert!(
            differ > 1000,
            "seed {seed}: zones and the shoreline decide {differ}"
        );
        for row in trace.rows.iter().step_by(97) {
            let want = trace.num(row, "getProceduralHeightAt");
            let (status, one) = server
                .get(&format!(
                    "/v1/worlds/{world}/height?x={}&z={}&mode=procedural",
                    row.x, row.z
                ))
                .await;
            assert_eq!(status, StatusCode::OK, "{one}");
            same("HTTP point", f(&one["height"]), want);
            assert_eq!(one["zone"], Value::Null);
            let one = grpc
                .get_height(GetHeightRequest {
                    world: world.clone(),
                    x: row.x,
                    z: row.z,
                    mode: PbMode::Procedural as i32,
                    revision: None,
                })
                .await
                .unwrap()
                .into_inner();
            same("gRPC point", one.height, want);
            assert_eq!(one.zone, "");
        }

        // The replica answers the same: terrain info field for field, procedural
        // heights as the trace.
        let replica = LocalTerrain::open(server.client().await, &world)
            .await
            .unwrap();
        assert_eq!(replica.revision(), 44);
        assert_eq!(replica.towns(), FALLBACK_TOWNS);
        let local = replica.terrain_info(&points).unwrap();
        let remote = server
            .client()
            .await
            .terrain_info(&world, &points)
            .await
            .unwrap();
        assert_eq!(local.revision, remote.revision);
        for (k, (l, r)) in local.points.iter().zip(&remote.points).enumerate() {
            assert_same_info(&format!("seed {seed} row {k}"), l, r);
        }
        for (k, row) in trace.rows.iter().enumerate() {
            let got = replica
                .height_in(row.x, row.z, HeightMode::Procedural)
                .unwrap();
            same(
                &format!("seed {seed} row {k} replica procedural"),
                got,
                trace.num(row, "getProceduralHeightAt"),
            );
        }
    }
    server.stop().await;
}

/// Two terrain infos are the same, bit for bit.
#[track_caller]
fn assert_same_info(at: &str, got: &PointInfo, want: &PointInfo) {
    same(&format!("{at} height"), got.height, want.height);
    same(&format!("{at} slope"), got.slope, want.slope);
    assert_eq!(
        (&got.biome, got.underwater, got.reason),
        (&want.biome, want.underwater, want.reason),
        "{at}"
    );
    assert_eq!(
        got.normal.map(f64::to_bits),
        want.normal.map(f64::to_bits),
        "{at} normal"
    );
    let bits = |i: &PointInfo| {
        i.difficulty.as_ref().map(|d| {
            (
                d.level,
                d.scalar.to_bits(),
                d.biome.clone(),
                d.tier.to_bits(),
                d.is_safe,
            )
        })
    };
    assert_eq!(bits(got), bits(want), "{at} difficulty");
}

/// Under another rule terrain info carries the normal and no difficulty; a world with
/// its own towns lists them with its rule, and the server and the replica judge
/// difficulty from them (safe inside a town, the same bits as core's walker).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn difficulty_follows_the_rule_and_the_world_s_towns() {
    let towns = vec![
        Town {
            x: 500.0,
            z: 500.0,
            radius: 100.0,
        },
        Town {
            x: -800.5,
            z: 120.25,
            radius: 12.5,
        },
    ];
    let with_towns = towns.clone();
    let server = TestServer::start_with(move |c| {
        let mut own = original_world("towns", 0);
        own.towns = with_towns;
        // `main`: layered, so the `slope` rule.
        c.worlds = vec![WorldConfig::new("main", GeneratorKind::Hyperscape, 0), own];
    })
    .await;

    // The listing: the towns with the hyperscape rule, none under `slope`; every biome
    // with its difficulty tier.
    let (status, listed) = server.get("/v1/worlds").await;
    assert_eq!(status, StatusCode::OK);
    let rule = |id: &str| {
        listed["worlds"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["id"] == id)
            .unwrap()["walkability"]
            .clone()
    };
    assert_eq!(rule("main")["towns"], json!([]));
    assert_eq!(
        rule("towns")["towns"],
        json!([{"x": 500.0, "z": 500.0, "radius": 100.0}, {"x": -800.5, "z": 120.25, "radius": 12.5}])
    );
    let tundra = rule("towns")["biomes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == "tundra")
        .unwrap()
        .clone();
    assert_eq!(
        tundra,
        json!({"id": "tundra", "maxSlope": 0.8, "difficulty": 3.0})
    );
    let mut client = server.client().await;
    let worlds = client.list_worlds_with_towns().await.unwrap();
    let own = worlds.iter().find(|(w, _)| w.id == "towns").unwrap();
    assert_eq!(own.1, towns);
    assert!(
        worlds
            .iter()
            .find(|(w, _)| w.id == "main")
            .unwrap()
            .1
            .is_empty()
    );

    // `slope`: the normal, no difficulty (absent from the JSON, unset in protobuf).
    let points = random_points(200, 900.0, 11);
    let list: Vec<[f64; 2]> = points.iter().map(|&(x, z)| [x, z]).collect();
    let (status, body) = server
        .post_json("/v1/worlds/main/terrain-info", &json!({ "points": list }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let core = common::terrain(&common::main_generator(), Overlap::Layered, &[]);
    for (p, info) in points.iter().zip(body["points"].as_array().unwrap()) {
        let object = info.as_object().unwrap();
        assert!(!object.contains_key("difficulty"), "{info}");
        let want = core.normal(p.0, p.1);
        for i in 0..3 {
            same("slope-rule normal", f(&info["normal"][i]), want[i]);
        }
    }
    let infos = client.terrain_info("main", &points).await.unwrap();
    assert!(infos.points.iter().all(|p| p.difficulty.is_none()));

    // The world's own towns: safe within one, core's answer everywhere.
    let rule = WalkRule::Hyperscape {
        limits: BiomeLimits::hyperscape(),
    };
    let walker = terrain_core::walk::Walker::new(&core, &rule);
    let mut probes = random_points(300, 1500.0, 12);
    probes.extend([(500.0, 500.0), (560.0, 470.0), (-800.0, 120.0), (0.0, 0.0)]);
    let server_infos = client.terrain_info("towns", &probes).await.unwrap();
    let replica = LocalTerrain::open(server.client().await, "towns")
        .await
        .unwrap();
    assert_eq!(replica.towns(), towns);
    let local = replica.terrain_info(&probes).unwrap();
    let mut safe = 0;
    for (k, &(x, z)) in probes.iter().enumerate() {
        let want = walker.difficulty(x, z, &towns).unwrap();
        let got = server_infos.points[k].difficulty.as_ref().unwrap();
        assert_eq!(
            (
                got.level,
                got.scalar.to_bits(),
                got.tier.to_bits(),
                got.is_safe
            ),
            (
                want.level,
                want.scalar.to_bits(),
                want.tier.to_bits(),
                want.is_safe
            ),
            "({x}, {z})"
        );
        safe += usize::from(got.is_safe);
        assert_same_info(
            &format!("({x}, {z})"),
            &local.points[k],
            &server_infos.points[k],
        );
    }
    let n = probes.len();
    let inside = |k: usize| server_infos.points[k].difficulty.as_ref().unwrap().is_safe;
    assert!(inside(n - 4) && inside(n - 3) && inside(n - 2), "in a town");
    // The origin is a fallback town's centre, not one of this world's towns.
    assert!(!inside(n - 1), "the fallback towns are not this world's");
    assert!(safe < n / 2, "{safe} of {n} safe");
    server.stop().await;
}

/// Procedural heights as of a revision: the same heights, that revision in the
/// answer; a revision outside the window refused as for any mode. A procedural (and a
/// surface) heightmap is each sample's single-point answer; a bad mode names `mode`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn procedural_heights_keep_the_revision_rules_and_fill_heightmaps() {
    let server = TestServer::start_with(|c| {
        c.worlds = vec![original_world("s0", 0)];
        c.limits.asof_revisions = 2;
    })
    .await;
    let zones = SEEDS[0].1;
    register_zones(&server, "s0", zones).await;
    let core = common::terrain(&common::main_generator(), Overlap::Layered, &[]);
    let (x, z) = (-33.495825979160145, -239.0714504243806);
    let want = core.procedural(x, z);
    for revision in [44, 43, 42] {
        let (status, body) = server
            .get(&format!(
                "/v1/worlds/s0/height?x={x}&z={z}&mode=procedural&revision={revision}"
            ))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        same("as of", f(&body["height"]), want);
        assert_eq!(body["revision"], revision);
        let (status, body) = server
            .post_json(
                "/v1/worlds/s0/heights?mode=procedural",
                &json!({"points": [[x, z]], "revision": revision}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        same("batch as of", f(&body["heights"][0]), want);
        assert_eq!(body["revision"], revision);
    }
    for revision in [41, 45] {
        let (status, body) = server
            .get(&format!(
                "/v1/worlds/s0/height?x={x}&z={z}&mode=procedural&revision={revision}"
            ))
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{revision}: {body}");
        assert_eq!(body["error"]["field"], "revision");
        let mut grpc = server.grpc().await;
        let status = grpc
            .get_heights(GetHeightsRequest {
                world: "s0".into(),
                coordinates: vec![x, z],
                mode: PbMode::Procedural as i32,
                revision: Some(revision),
            })
            .await
            .unwrap_err();
        assert_eq!(status.code(), tonic::Code::FailedPrecondition);
        assert!(status.message().starts_with("revision: "), "{status:?}");
    }

    // Heightmaps in every mode, over both surfaces.
    let (x0, z0, step, nx, nz) = (-40.0, -250.0, 0.7, 23, 17);
    let mut grpc = server.grpc().await;
    let client = server.client().await;
    let replica = LocalTerrain::open(client, "s0").await.unwrap();
    for (name, mode, pb) in [
        ("exact", HeightMode::Exact, PbMode::Exact),
        ("surface", HeightMode::Surface, PbMode::Surface),
        ("procedural", HeightMode::Procedural, PbMode::Procedural),
    ] {
        let (status, map) = server
            .get(&format!(
                "/v1/worlds/s0/heightmap?x0={x0}&z0={z0}&step={step}&nx={nx}&nz={nz}&mode={name}"
            ))
            .await;
        assert_eq!(status, StatusCode::OK, "{map}");
        let answer = grpc
            .get_heightmap(GetHeightmapRequest {
                world: "s0".into(),
                x0,
                z0,
                step,
                nx,
                nz,
                mode: pb as i32,
            })
            .await
            .unwrap()
            .into_inner();
        for iz in 0..nz as usize {
            for ix in 0..nx as usize {
                let (px, pz) = (x0 + ix as f64 * step, z0 + iz as f64 * step);
                let want = replica.height_in(px, pz, mode).unwrap();
                let k = iz * nx as usize + ix;
                same(
                    &format!("{name} HTTP ({px}, {pz})"),
                    f(&map["heights"][k]),
                    want,
                );
                same(
                    &format!("{name} gRPC ({px}, {pz})"),
                    answer.heights[k],
                    want,
                );
            }
        }
    }
    let (status, body) = server
        .get("/v1/worlds/s0/heightmap?x0=0&z0=0&step=1&nx=2&nz=2&mode=zoneless")
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["field"], "mode");
    let status = grpc
        .get_heightmap(GetHeightmapRequest {
            world: "s0".into(),
            x0: 0.0,
            z0: 0.0,
            step: 1.0,
            nx: 2,
            nz: 2,
            mode: 9,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(status.message().starts_with("mode: "), "{status:?}");
    server.stop().await;
}

/// The OpenAPI document says the same: every height route takes the three modes, and
/// terrain info's points carry `normal` always and `difficulty` when the rule has one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_lists_the_modes_normal_and_difficulty() {
    let server = TestServer::start().await;
    let (status, doc) = server.get("/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    for (path, method) in [
        ("/v1/worlds/{world}/height", "get"),
        ("/v1/worlds/{world}/heights", "post"),
        ("/v1/worlds/{world}/heightmap", "get"),
    ] {
        let mode = doc["paths"][path][method]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "mode")
            .unwrap_or_else(|| panic!("{path}: no mode"))
            .clone();
        assert_eq!(
            mode["schema"]["enum"],
            json!(["exact", "surface", "procedural"]),
            "{path}"
        );
    }
    let info = &doc["components"]["schemas"]["InfoJson"];
    let required: Vec<&str> = info["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(required.contains(&"normal"), "{info}");
    assert!(!required.contains(&"difficulty"), "{info}");
    let difficulty = &doc["components"]["schemas"]["DifficultyJson"];
    for key in ["level", "scalar", "biome", "tier", "isSafe"] {
        assert!(difficulty["properties"].get(key).is_some(), "{difficulty}");
    }
    let walk = &doc["components"]["schemas"]["WalkRuleBody"];
    assert!(walk["properties"].get("towns").is_some(), "{walk}");
    server.stop().await;
}

/// On voxel and osrs worlds `procedural` is the generator's own procedural height
/// (voxel: the eroded ground of the column, whole blocks; osrs: the tile height), zones
/// left out, over HTTP and gRPC; and a flat zone changes the exact height there, not the
/// procedural one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn procedural_heights_of_voxel_and_osrs_worlds_leave_zones_out() {
    use common::voxel::{SEED, VOXEL, voxel_config, voxel_worlds};
    let server = TestServer::start_with(|c| {
        voxel_worlds(c);
        c.worlds
            .push(WorldConfig::new("old", GeneratorKind::Osrs, 0));
    })
    .await;
    let mut grpc = server.grpc().await;
    for (world, kind, seed) in [
        (VOXEL, GeneratorKind::Voxel, SEED),
        ("old", GeneratorKind::Osrs, 0),
    ] {
        let zone = json!({"centerX": 20.5, "centerZ": 20.5, "width": 16, "depth": 16,
                          "heightOffset": 5, "blendRadius": 2});
        let (status, body) = server
            .put_json(&format!("/v1/worlds/{world}/flat-zones/pad"), &zone, None)
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let spec = terrain_core::WorldSpec {
            generator: kind,
            seed,
            overlap: Overlap::default(),
            layout: None,
            voxel: (kind == GeneratorKind::Voxel).then(voxel_config),
        };
        let bare = terrain_core::build_terrain(&spec, []).unwrap();
        let mut points = random_points(300, 200.0, 5);
        points.push((20.5, 20.5));
        let list: Vec<[f64; 2]> = points.iter().map(|&(x, z)| [x, z]).collect();
        let (status, batch) = server
            .post_json(
                &format!("/v1/worlds/{world}/heights?mode=procedural"),
                &json!({ "points": list }),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{batch}");
        let (_, exact) = server
            .post_json(
                &format!("/v1/worlds/{world}/heights"),
                &json!({ "points": list }),
            )
            .await;
        let heights = grpc
            .get_heights(GetHeightsRequest {
                world: world.into(),
                coordinates: points.iter().flat_map(|&(x, z)| [x, z]).collect(),
                mode: PbMode::Procedural as i32,
                revision: None,
            })
            .await
            .unwrap()
            .into_inner();
        for (k, &(x, z)) in points.iter().enumerate() {
            let want = bare.procedural(x, z);
            same(
                &format!("{world} HTTP ({x}, {z})"),
                f(&batch["heights"][k]),
                want,
            );
            same(
                &format!("{world} gRPC ({x}, {z})"),
                heights.heights[k],
                want,
            );
            if kind == GeneratorKind::Voxel {
                assert_eq!(want.fract(), 0.0, "whole blocks");
            }
        }
        let centre = points.len() - 1;
        assert_ne!(
            f(&exact["heights"][centre]),
            f(&batch["heights"][centre]),
            "{world}: the zone decides the exact height at its centre"
        );
    }
    server.stop().await;
}
