//! Several worlds on one server: an osrs world next to hyperscape worlds, each answering
//! with its own generator, listed in configuration order with its tile grid.

use terrain_tests as common;

use common::*;
use serde_json::json;
use terrain_core::{Generator, GeneratorKind, WorldGenerator};
use terrain_proto::v1::{GetHeightRequest, GetHeightsRequest, ListWorldsRequest};
use terrain_server::WorldConfig;

/// `(id, kind, seed)` of the test server's worlds, in configuration order.
const WORLDS: [(&str, GeneratorKind, u32); 3] = [
    ("main", GeneratorKind::Hyperscape, 0),
    ("old", GeneratorKind::Osrs, 0),
    ("alt", GeneratorKind::Hyperscape, 1),
];

async fn start() -> TestServer {
    TestServer::start_with(|c| {
        c.worlds = WORLDS
            .iter()
            .map(|&(id, kind, seed)| WorldConfig::new(id, kind, seed))
            .collect();
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worlds_are_listed_in_order_on_both_surfaces() {
    let server = start().await;
    let (status, body) = server.get("/v1/worlds").await;
    assert_eq!(status, 200);
    let expected: Vec<_> = WORLDS
        .iter()
        .map(|&(id, kind, seed)| {
            let core = generator(kind, seed);
            // Layered hyperscape worlds judge by `slope` (the builtin manifest, sorted by
            // id, water below 9 m); osrs ones by `max-slope` 1 without water.
            let walkability = match kind {
                GeneratorKind::Hyperscape => json!({
                    "name": "slope",
                    "biomes": [
                        {"id": "desert", "maxSlope": 0.6, "difficulty": 2.0},
                        {"id": "forest", "maxSlope": 0.8, "difficulty": 1.0},
                        {"id": "lakes", "maxSlope": 0.8, "difficulty": 0.0},
                        {"id": "mountains", "maxSlope": 0.9, "difficulty": 2.0},
                        {"id": "plains", "maxSlope": 0.8, "difficulty": 0.0},
                        {"id": "swamp", "maxSlope": 0.5, "difficulty": 1.0},
                        {"id": "tundra", "maxSlope": 0.8, "difficulty": 3.0},
                        {"id": "valley", "maxSlope": 0.8, "difficulty": 0.0},
                    ],
                    "waterLevel": 9.0, "maxSlope": null, "maxStep": null, "towns": [],
                }),
                _ => json!({
                    "name": "max-slope", "biomes": [], "waterLevel": null, "maxSlope": 1.0,
                    "maxStep": null, "towns": [],
                }),
            };
            json!({
                "id": id, "generator": kind.as_str(), "seed": seed,
                "tileSize": core.tile_size(), "tileResolution": core.tile_resolution(), "revision": 0,
                "overlap": "layered", "zones": 0, "walkability": walkability,
            })
        })
        .collect();
    assert_eq!(body, json!({ "worlds": expected }));

    let listed = server
        .grpc()
        .await
        .list_worlds(ListWorldsRequest {})
        .await
        .expect("ListWorlds")
        .into_inner();
    assert_eq!(listed.worlds.len(), WORLDS.len());
    for (world, &(id, kind, seed)) in listed.worlds.iter().zip(&WORLDS) {
        let core = generator(kind, seed);
        assert_eq!(
            (world.id.as_str(), world.generator.as_str(), world.seed),
            (id, kind.as_str(), seed)
        );
        assert_eq!(
            (world.tile_size, world.tile_resolution),
            (core.tile_size(), core.tile_resolution())
        );
        assert_eq!((world.overlap.as_str(), world.zones), ("layered", 0));
        let rule = world.walkability.as_ref().expect("walkability");
        match kind {
            GeneratorKind::Hyperscape => {
                assert_eq!(
                    (rule.name.as_str(), rule.biomes.len(), rule.water_level),
                    ("slope", 8, Some(9.0))
                );
                assert_eq!(
                    (
                        rule.biomes[5].id.as_str(),
                        rule.biomes[5].max_slope,
                        rule.biomes[5].difficulty
                    ),
                    ("swamp", 0.5, Some(1.0))
                );
                // Towns are listed under the `hyperscape` rule only.
                assert!(rule.towns.is_empty());
            }
            _ => assert_eq!(
                (rule.name.as_str(), rule.max_slope, rule.water_level),
                ("max-slope", Some(1.0), None)
            ),
        }
        if kind == GeneratorKind::Hyperscape {
            assert_eq!((world.tile_size, world.tile_resolution), (100.0, 64));
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_world_answers_with_its_own_generator() {
    let server = start().await;
    let mut client = server.grpc().await;
    let cores: Vec<WorldGenerator> = WORLDS
        .iter()
        .map(|&(_, kind, seed)| generator(kind, seed))
        .collect();
    // Integer and fractional points; osrs is defined on tile corners and in between.
    let points = [
        (3200.0, 3200.0),
        (3222.5, 3218.25),
        (0.0, 0.0),
        (-17.0, 40.0),
        (1000.25, -2000.5),
    ];
    for (&(id, _, _), core) in WORLDS.iter().zip(&cores) {
        for &(x, z) in &points {
            let request = GetHeightRequest {
                world: id.into(),
                x,
                z,
                ..Default::default()
            };
            let grpc = client
                .get_height(request)
                .await
                .expect("GetHeight")
                .into_inner();
            assert_same(
                grpc.height,
                core.height(x, z),
                &format!("gRPC {id} at ({x}, {z})"),
            );
            let (status, http) = server
                .get(&format!("/v1/worlds/{id}/height?x={x}&z={z}"))
                .await;
            assert_eq!(status, 200, "{http}");
            assert_same(
                num(&http["height"]),
                core.height(x, z),
                &format!("HTTP {id} at ({x}, {z})"),
            );
        }
        let coordinates: Vec<f64> = points.iter().flat_map(|&(x, z)| [x, z]).collect();
        let batch = GetHeightsRequest {
            world: id.into(),
            coordinates,
            ..Default::default()
        };
        let heights = client
            .get_heights(batch)
            .await
            .expect("GetHeights")
            .into_inner()
            .heights;
        for (&(x, z), h) in points.iter().zip(heights) {
            assert_same(h, core.height(x, z), &format!("batch {id} at ({x}, {z})"));
        }
    }
    // The worlds must be told apart somewhere, or the checks above could not catch a
    // request served by the wrong world.
    for (a, b) in [(0, 1), (0, 2)] {
        let differs = points
            .iter()
            .any(|&(x, z)| cores[a].height(x, z) != cores[b].height(x, z));
        assert!(
            differs,
            "{} and {} agree on every test point",
            WORLDS[a].0, WORLDS[b].0
        );
    }
    server.stop().await;
}
