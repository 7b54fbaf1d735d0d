//! The walk grid (`GET .../walk-grid`, gRPC `GetWalkGrid`, the SDK's `walk_grid`): on
//! the island of seeds 0 and 6 with the original's zones and building masks, every
//! tile of both of the original's grid tables (`grid_seed{S}.txt`) has the original's
//! walkability, and every byte equals terrain-core's flags; a changed zone changes the
//! grid at the next revision; bad regions are refused naming the field.

use std::path::PathBuf;

use serde_json::{Value, json};
use terrain_core::walk::flags::{STEEP, WALKABLE, WATER, ZONE_CORE};
use terrain_core::walk::{BiomeLimits, WalkRule, Walker};
use terrain_core::{GeneratorKind, Overlap};
use terrain_server::config::WorldConfig;
use terrain_tests as common;

use common::TestServer;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/hyperscape/adapter")
        .join(name)
}

fn worlds(c: &mut terrain_server::Config) {
    c.worlds = [(0, "s0"), (6, "s6")]
        .into_iter()
        .map(|(seed, id)| {
            let mut w = WorldConfig::new(id, GeneratorKind::Hyperscape, seed);
            w.overlap = Overlap::Hyperscape;
            w
        })
        .collect();
    c.lifecycle.warm_radius = None;
}

/// The zones file of seed `seed` as API bodies ([`common::game_zone_bodies`]).
fn zone_bodies(seed: u32) -> Vec<(String, Value)> {
    let path = data(&format!("zones_seed{seed}.json"));
    common::game_zone_bodies(&std::fs::read_to_string(path).unwrap())
}

async fn grid(server: &TestServer, world: &str, query: &str) -> (u16, Vec<u8>, Option<u64>) {
    let response = reqwest::get(server.url(&format!("/v1/worlds/{world}/walk-grid?{query}")))
        .await
        .expect("GET");
    let status = response.status().as_u16();
    let revision = response
        .headers()
        .get("x-terrain-revision")
        .and_then(|v| v.to_str().ok()?.parse().ok());
    (status, response.bytes().await.unwrap().to_vec(), revision)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn walk_grids_are_the_original_s_on_both_surfaces() {
    let server = TestServer::start_with(worlds).await;
    let mut client = server.client().await;
    for (seed, world) in [(0u32, "s0"), (6, "s6")] {
        let mut zones = terrain_core::ZoneSet::new(Overlap::Hyperscape, 100.0);
        for (k, (id, body)) in zone_bodies(seed).into_iter().enumerate() {
            let (status, answer) = server
                .put_json(&format!("/v1/worlds/{world}/flat-zones/{id}"), &body, None)
                .await;
            assert_eq!(status, 200, "{id}: {answer}");
            let doc = terrain_core::zones::ZoneDoc::from_file_entry(&body).unwrap();
            zones.insert(doc.spec().unwrap().resolve(id, f64::NAN), k as u64 + 1);
        }
        let terrain = terrain_core::Terrain::new(
            terrain_core::WorldGenerator::new(GeneratorKind::Hyperscape, seed).unwrap(),
            zones,
        );
        let rule = WalkRule::Hyperscape {
            limits: BiomeLimits::hyperscape(),
        };
        let walker = Walker::new(&terrain, &rule);
        let table = std::fs::read_to_string(data(&format!("grid_seed{seed}.txt"))).unwrap();
        let mut lines = table.lines().filter(|l| !l.trim().is_empty());
        let mut regions = 0;
        while let Some(head) = lines.next() {
            let field = |k: &str| -> i64 {
                let at = head.find(&format!("{k}=")).unwrap() + k.len() + 1;
                head[at..]
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            let (x0, z0, w, d) = (
                field("minTileX"),
                field("minTileZ"),
                field("width"),
                field("depth"),
            );
            let query = format!("minTileX={x0}&minTileZ={z0}&width={w}&depth={d}");
            let (status, http, revision) = grid(&server, world, &query).await;
            assert_eq!(status, 200, "{}", String::from_utf8_lossy(&http));
            assert_eq!(revision, Some(44));
            let (grpc, grpc_revision) = client
                .walk_grid(world, x0, z0, w as u32, d as u32)
                .await
                .expect("GetWalkGrid");
            assert_eq!((&grpc, grpc_revision), (&http, 44));
            assert_eq!(
                http,
                walker.flags(x0, z0, w as usize, d as usize),
                "terrain-core's flags"
            );
            let mut cores = 0;
            for j in 0..d {
                let row: Vec<char> = lines.next().unwrap().chars().collect();
                for i in 0..w {
                    let f = http[(j * w + i) as usize];
                    let want = match row[i as usize] {
                        '.' => WALKABLE,
                        'w' => WATER,
                        's' => STEEP,
                        c => panic!("{c}"),
                    };
                    assert_eq!(
                        f & !ZONE_CORE,
                        want,
                        "seed {seed} tile ({}, {})",
                        x0 + i,
                        z0 + j
                    );
                    cores += usize::from(f & ZONE_CORE != 0);
                }
            }
            regions += 1;
            if head.contains("building_0") {
                assert!(cores > 100, "the building's tiles are in its core: {cores}");
            }
        }
        assert_eq!(regions, 2);
    }
    // A zone that blocks changes the grid at the next revision.
    let (_, before, rev) = grid(&server, "s0", "minTileX=36&minTileZ=36&width=8&depth=8").await;
    let (status, answer) = server
        .put_json(
            "/v1/worlds/s0/flat-zones/shed",
            &json!({"centerX": 41.0, "centerZ": 41.0, "width": 4.0, "depth": 4.0,
                    "heightOffset": 0.2, "blendRadius": 1.0, "walkable": false,
                    "tileMask": [[40, 40], [41, 40], [40, 41]]}),
            None,
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    let (_, after, rev_after) =
        grid(&server, "s0", "minTileX=36&minTileZ=36&width=8&depth=8").await;
    assert_eq!(rev_after, rev.map(|r| r + 1));
    let at = |g: &[u8], x: i64, z: i64| g[((z - 36) * 8 + (x - 36)) as usize];
    assert_eq!(at(&before, 40, 40), WALKABLE, "open ground before");
    assert_eq!(
        at(&after, 40, 40),
        16 | ZONE_CORE,
        "blocked by the zone, in its core"
    );
    assert_eq!(
        at(&after, 41, 41) & ZONE_CORE,
        0,
        "the L's fourth tile is not core"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_regions_are_refused_naming_the_field() {
    let server = TestServer::start_with(worlds).await;
    for (query, field) in [
        ("minTileX=0.5&minTileZ=0&width=4&depth=4", "minTileX"),
        ("minTileX=0&minTileZ=1e300&width=4&depth=4", "minTileZ"),
        ("minTileX=0&minTileZ=0&width=0&depth=4", "width"),
        ("minTileX=0&minTileZ=0&width=4&depth=5000", "depth"),
        ("minTileX=0&minTileZ=0&width=2.5&depth=4", "width"),
        ("minTileX=0&minTileZ=0&depth=4", "width"),
        ("minTileX=0&minTileZ=0&width=4&depth=4&zoom=2", "zoom"),
    ] {
        let (status, body, _) = grid(&server, "s0", query).await;
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["error"]["field"], field, "{query}: {body}");
    }
    // Over the batch limit: 4,096 x 4,096 tiles.
    let (status, body, _) =
        grid(&server, "s0", "minTileX=0&minTileZ=0&width=4096&depth=4096").await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (status, &body["error"]["field"]),
        (413, &json!("width")),
        "{body}"
    );
    server.stop().await;
}
