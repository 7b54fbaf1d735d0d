//! The largest legal `tileset_extent` (1,000 km, 16,384 x 16,384 tiles, 14 levels):
//! its tileset and contents answer within seconds, because a content plans only the
//! grids it samples (the coarse levels' grids are sampled from the terrain, not merged
//! from every full-detail tile under them), and a height query on another world is
//! answered promptly meanwhile.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{
    TestServer,
    tiles3d::{check_tileset, subtree_tile_errors},
};
use serde_json::Value;
use terrain_core::tiles3d::{TilesetLayout, declared_error, exact_below};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};
use terrain_server::config::WorldConfig;

/// A status, the body and the time one GET took; a client timeout (the request did
/// not answer within `limit`) fails the test.
async fn timed(server: &TestServer, path: &str, limit: Duration) -> (u16, Vec<u8>, Duration) {
    let started = Instant::now();
    let answer = server
        .http
        .get(server.url(path))
        .timeout(limit)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{path}: no answer within {limit:?}: {e}"));
    let status = answer.status().as_u16();
    let body = answer.bytes().await.expect("a body").to_vec();
    (status, body, started.elapsed())
}

/// Asks `world` for its tileset and the contents `(level, x, y)` of `contents`, each
/// with a height of world `main` asked for 100 ms in; every answer must come in time.
async fn serve_in_time(server: &TestServer, world: &str, contents: &[(u32, u64, u64)]) -> Value {
    let limit = Duration::from_secs(20);
    let mut paths = vec![format!("/v1/worlds/{world}/3dtiles/tileset.json")];
    paths.extend(
        contents
            .iter()
            .map(|(level, x, y)| format!("/v1/worlds/{world}/3dtiles/content/{level}/{x}/{y}.glb")),
    );
    let mut doc = Value::Null;
    for path in &paths {
        let request = timed(server, path, limit);
        let height = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            timed(
                server,
                "/v1/worlds/main/height?x=700000&z=0",
                Duration::from_secs(10),
            )
            .await
        };
        let ((status, body, took), (h_status, _, h_took)) = tokio::join!(request, height);
        println!(
            "{path}: {status}, {} bytes in {took:?}; a height meanwhile: {h_took:?}",
            body.len()
        );
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        assert!(took < Duration::from_secs(15), "{path} took {took:?}");
        assert_eq!(h_status, 200);
        assert!(h_took < Duration::from_secs(2), "a height took {h_took:?}");
        if path.ends_with(".glb") {
            assert_eq!(&body[..4], b"glTF", "{path}");
        } else {
            doc = serde_json::from_slice(&body).expect("the tileset");
        }
    }
    check_tileset(&doc);
    doc
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_extent_answers_its_tileset_and_contents_in_seconds() {
    let server = TestServer::start_with(|c| {
        let mut big = WorldConfig::new("big", GeneratorKind::Hyperscape, 0);
        big.tileset_extent = 1_000_000.0;
        c.worlds = vec![WorldConfig::new("main", GeneratorKind::Hyperscape, 0), big];
        c.lifecycle.warm_radius = None;
    })
    .await;
    // The root, a sampled level and the heaviest exact one (128 x 128 tiles under
    // each content, as under the island's root).
    let doc = serve_in_time(&server, "big", &[(0, 0, 0), (6, 32, 31), (7, 64, 63)]).await;
    assert_eq!(doc["root"]["implicitTiling"]["availableLevels"], 15);
    let bbox: Vec<f64> =
        serde_json::from_value(doc["root"]["boundingVolume"]["box"].clone()).expect("a box");
    // 16,384 tiles of 100 m a side, centred on the origin.
    assert_eq!((bbox[3], bbox[7]), (819_200.0, 819_200.0), "{bbox:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_voxel_extent_answers_its_tileset_and_contents_in_seconds() {
    let server = TestServer::start_with(|c| {
        let mut big = WorldConfig::new("cubes", GeneratorKind::Voxel, 3);
        big.voxel = Some(common::voxel::voxel_config());
        big.tileset_extent = 1_000_000.0;
        c.worlds = vec![WorldConfig::new("main", GeneratorKind::Hyperscape, 0), big];
        c.lifecycle.warm_radius = None;
    })
    .await;
    // 32,768 chunks a side: levels 0 to 15. A sampled level, and level 10, the
    // heaviest (32 x 32 chunks under each content, grids of 16 x 16 exact).
    let doc = serve_in_time(
        &server,
        "cubes",
        &[(0, 0, 0), (8, 128, 127), (10, 512, 511)],
    )
    .await;
    assert_eq!(doc["root"]["implicitTiling"]["availableLevels"], 16);
    // Levels 0 to 9 take sampled grids, so the subtrees from level 7 declare errors
    // too: levels 7 to 9 (256 to 64 chunks, 256 to 64 m) at least the block range's
    // 64 m, the proven levels below theirs.
    let generator = WorldGenerator::voxel(3, common::voxel::voxel_config()).unwrap();
    let layout = TilesetLayout::covering(generator.tile_grid(), 1_000_000.0, 1.0)
        .with_exact_below(exact_below(&generator));
    let core = Terrain::new(generator, ZoneSet::new(Overlap::Layered, 32.0));
    let (status, _, file) = server
        .get_tagged("/v1/worlds/cubes/3dtiles/subtrees/7.5.9.subtree", None)
        .await;
    assert_eq!(status, 200);
    let errors = subtree_tile_errors(&file).expect("tile metadata");
    assert_eq!(errors.len(), 5461);
    let root = layout.from_tileset(7, 5, 9).unwrap();
    assert_eq!(errors[0], declared_error(&layout, &core, root));
    assert!(errors[0] >= 256.0 && errors[1] >= 128.0 && errors[5] >= 64.0);
    assert!(errors[5] < 64.001, "{}", errors[5]);
    assert_eq!(errors[5460], layout.geometric_error(13));
    server.stop().await;
}
