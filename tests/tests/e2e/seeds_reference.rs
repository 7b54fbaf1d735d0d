//! The original's tables of seeds 2, 3, 4, 5 and 7 (`core/tests/data/hyperscape/seeds/`)
//! through the server and the Rust replica: heights (`POST /heights`, gRPC
//! `GetHeights`, `LocalTerrain`) equal every row's final height bit for bit on a world
//! without zones; with the seed's 28 reference zones registered under the original's
//! rules, terrain info equals every row of its walk table bit for bit.

use std::path::PathBuf;

use serde_json::{Value, json};
use terrain_client::LocalTerrain;
use terrain_core::{GeneratorKind, Overlap};
use terrain_proto::v1 as pb;
use terrain_server::config::{WorldConfig, ZoneFile};
use terrain_tests as common;

use common::TestServer;

const SEEDS: [u32; 5] = [2, 3, 4, 5, 7];

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/hyperscape/seeds")
        .join(name)
}

fn rows(name: &str) -> Vec<Vec<String>> {
    std::fs::read_to_string(data(name))
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap()
}

/// Per seed: `h{S}`, no zones (layered); `w{S}`, the reference zones under the
/// original's rules.
fn worlds(c: &mut terrain_server::Config) {
    c.worlds = SEEDS
        .iter()
        .flat_map(|&s| {
            let plain = WorldConfig::new(format!("h{s}"), GeneratorKind::Hyperscape, s);
            let mut original = WorldConfig::new(format!("w{s}"), GeneratorKind::Hyperscape, s);
            original.overlap = Overlap::Hyperscape;
            original.zone_files = vec![ZoneFile::Path(data(&format!("flat_zones_seed{s}.json")))];
            [plain, original]
        })
        .collect();
    c.lifecycle.warm_radius = None;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_seed_s_tables_through_the_server_and_the_replica() {
    let server = TestServer::start_with(worlds).await;
    let mut grpc = server.grpc().await;
    for seed in SEEDS {
        let heights = rows(&format!("heights_seed{seed}.csv"));
        assert_eq!(heights.len(), 2000);
        let points: Vec<[f64; 2]> = heights.iter().map(|r| [num(&r[0]), num(&r[1])]).collect();
        let world = format!("h{seed}");
        let (status, http) = server
            .post_json(
                &format!("/v1/worlds/{world}/heights"),
                &json!({ "points": points }),
            )
            .await;
        assert_eq!(status, 200, "{http}");
        let via_grpc = grpc
            .get_heights(pb::GetHeightsRequest {
                world: world.clone(),
                coordinates: points.iter().flatten().copied().collect(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .heights;
        let replica = LocalTerrain::open(server.client().await, &world)
            .await
            .expect("replica");
        let snapshot = replica.snapshot();
        for (k, row) in heights.iter().enumerate() {
            let want = num(&row[4]).to_bits();
            let at = format!("seed {seed} ({}, {})", row[0], row[1]);
            assert_eq!(
                http["heights"][k].as_f64().unwrap().to_bits(),
                want,
                "HTTP {at}"
            );
            assert_eq!(via_grpc[k].to_bits(), want, "gRPC {at}");
            let local = snapshot.height_at(points[k][0], points[k][1]).unwrap();
            assert_eq!(local.to_bits(), want, "replica {at}");
        }
        // Terrain info with the seed's reference zones, under the original's rules.
        let walk = rows(&format!("walk_seed{seed}.csv"));
        let points: Vec<[f64; 2]> = walk.iter().map(|r| [num(&r[0]), num(&r[1])]).collect();
        let (status, info) = server
            .post_json(
                &format!("/v1/worlds/w{seed}/terrain-info"),
                &json!({ "points": points }),
            )
            .await;
        assert_eq!(status, 200, "{info}");
        for (row, got) in walk.iter().zip(info["points"].as_array().unwrap()) {
            let at = format!("seed {seed} ({}, {})", row[0], row[1]);
            let bits = |v: &Value| v.as_f64().unwrap().to_bits();
            assert_eq!(bits(&got["height"]), num(&row[2]).to_bits(), "height {at}");
            assert_eq!(got["biome"], row[3].as_str(), "biome {at}");
            assert_eq!(bits(&got["slope"]), num(&row[4]).to_bits(), "slope {at}");
            assert_eq!(got["underwater"].to_string(), row[5], "underwater {at}");
            assert_eq!(got["walkable"].to_string(), row[6], "walkable {at}");
        }
    }
    server.stop().await;
}
