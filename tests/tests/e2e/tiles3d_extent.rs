//! The largest legal `tileset_extent` (1,000 km, 16,384 x 16,384 tiles, 14 levels):
//! its tileset and contents answer within seconds, because a content plans only the
//! grids it samples (the coarse levels' grids are sampled from the terrain, not merged
//! from every full-detail tile under them), and a height query on another world is
//! answered promptly meanwhile.

use terrain_tests as common;

use std::time::{Duration, Instant};

use common::{TestServer, tiles3d::check_tileset};
use serde_json::Value;
use terrain_core::GeneratorKind;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_extent_answers_its_tileset_and_contents_in_seconds() {
    let server = TestServer::start_with(|c| {
        let mut big = WorldConfig::new("big", GeneratorKind::Hyperscape, 0);
        big.tileset_extent = 1_000_000.0;
        c.worlds = vec![WorldConfig::new("main", GeneratorKind::Hyperscape, 0), big];
        c.lifecycle.warm_radius = None;
    })
    .await;
    let limit = Duration::from_secs(20);

    // The tileset, with one height of the other world asked for while it builds.
    let tileset = timed(&server, "/v1/worlds/big/3dtiles/tileset.json", limit);
    let height = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        timed(
            &server,
            "/v1/worlds/main/height?x=700000&z=0",
            Duration::from_secs(10),
        )
        .await
    };
    let ((status, body, took), (h_status, _, h_took)) = tokio::join!(tileset, height);
    println!("tileset.json: {status} in {took:?}; a height meanwhile: {h_status} in {h_took:?}");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert!(took < Duration::from_secs(10), "tileset.json took {took:?}");
    assert_eq!(h_status, 200);
    assert!(h_took < Duration::from_secs(2), "a height took {h_took:?}");
    let doc: Value = serde_json::from_slice(&body).unwrap();
    check_tileset(&doc);
    assert_eq!(doc["root"]["implicitTiling"]["availableLevels"], 15);
    let bbox: Vec<f64> =
        serde_json::from_value(doc["root"]["boundingVolume"]["box"].clone()).expect("a box");
    // 16,384 tiles of 100 m a side, centred on the origin.
    assert_eq!((bbox[3], bbox[7]), (819_200.0, 819_200.0), "{bbox:?}");

    // The root, a sampled level and the heaviest exact one (128 x 128 tiles under
    // it, as the island's root), each with a height of the other world meanwhile.
    for (level, x, y) in [(0, 0, 0), (6, 32, 31), (7, 64, 63)] {
        let path = format!("/v1/worlds/big/3dtiles/content/{level}/{x}/{y}.glb");
        let content = timed(&server, &path, limit);
        let height = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            timed(
                &server,
                "/v1/worlds/main/height?x=700000&z=0",
                Duration::from_secs(10),
            )
            .await
        };
        let ((status, body, took), (h_status, _, h_took)) = tokio::join!(content, height);
        println!(
            "{path}: {status}, {} bytes in {took:?}; a height: {h_took:?}",
            body.len()
        );
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        assert_eq!(&body[..4], b"glTF", "{path}");
        assert!(took < Duration::from_secs(15), "{path} took {took:?}");
        assert_eq!(h_status, 200);
        assert!(h_took < Duration::from_secs(2), "a height took {h_took:?}");
    }
    server.stop().await;
}
