//! One coordinate range for every route of a voxel world: heights, zones, viewers and
//! map tiles take `|x|, |z| <= 2^24` (`terrain_core::voxel::MAX_COORDINATE`) and refuse
//! beyond it naming the field, and every chunk a viewer inside the range is announced
//! is served by `GetTileMesh`.

use terrain_tests as common;

use common::{TestServer, assert_http_error};
use serde_json::{Value, json};
use terrain_core::voxel::MAX_COORDINATE;

use common::voxel::*;

fn viewer(x: f64, z: f64, w: f64, d: f64) -> Value {
    json!({"x": x, "z": z, "viewWidth": w, "viewDepth": d, "velocityX": 10000.0, "velocityZ": 10000.0})
}

#[tokio::test]
async fn a_viewer_at_the_limit_is_served_every_chunk_it_is_announced_and_beyond_it_is_refused() {
    let server = TestServer::start_with(voxel_worlds).await;
    let viewers = format!("/v1/worlds/{VOXEL}/viewers");
    let edge = MAX_COORDINATE - 1.0;
    let (status, rings) = server
        .put_json(
            &format!("{viewers}/edge"),
            &viewer(edge, edge, 64.0, 64.0),
            None,
        )
        .await;
    assert_eq!(status, 200, "{rings}");
    let mut announced: Vec<(i64, i64)> = Vec::new();
    for ring in ["sim", "spawn", "active"] {
        for t in rings[ring].as_array().expect("tiles") {
            announced.push((t[0].as_i64().unwrap(), t[1].as_i64().unwrap()));
        }
    }
    // The farthest announced chunks lie beyond the coordinate range itself.
    let far = announced.iter().map(|t| t.0.max(t.1)).max().unwrap();
    assert!(far as f64 * 32.0 >= MAX_COORDINATE, "farthest chunk {far}");
    announced.sort_unstable();
    announced.dedup();
    let corner = *announced.iter().max_by_key(|t| t.0 + t.1).unwrap();
    for (cx, cz) in [corner, announced[0]] {
        for route in ["mesh", "blocks?format=binary"] {
            let url = server.url(&format!("/v1/worlds/{VOXEL}/tiles/{cx}/{cz}/{route}"));
            let response = server.http.get(url).send().await.unwrap();
            assert_eq!(
                response.status(),
                200,
                "announced chunk ({cx}, {cz}) {route}"
            );
        }
    }
    // Heights, zones and map tiles at the edge answer.
    let (status, h) = server
        .get(&format!("/v1/worlds/{VOXEL}/height?x={edge}&z={edge}"))
        .await;
    assert_eq!(status, 200, "{h}");
    let zone = json!({"centerX": edge - 20.0, "centerZ": edge - 20.0, "width": 8.0, "depth": 8.0,
                      "height": 30.0, "blendRadius": 2.0});
    let (status, answer) = server
        .put_json(&format!("/v1/worlds/{VOXEL}/flat-zones/edge"), &zone, None)
        .await;
    assert!(status.is_success(), "{answer}");
    // Map tile at zoom 4 (256 m) ending at 2^24 exactly: rendered, not one colour.
    let last = (MAX_COORDINATE / 256.0) as i64 - 1;
    let url = server.url(&format!("/v1/worlds/{VOXEL}/map/4/{last}/{last}.png"));
    let response = server.http.get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let png = response.bytes().await.unwrap();
    let mut reader = png::Decoder::new(&png[..]).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut pixels).unwrap();
    assert!(
        pixels.chunks(3).any(|p| p != &pixels[..3]),
        "one colour at the edge"
    );

    // Beyond the range: refused, naming the field, for every route.
    let beyond = MAX_COORDINATE + 1.0;
    for (x, z, field) in [
        (beyond, 0.0, "x"),
        (0.0, 999_999_000.0, "z"),
        (999_999_000.0, 999_999_000.0, "x"),
    ] {
        let answer = server
            .put_json(&format!("{viewers}/far"), &viewer(x, z, 64.0, 64.0), None)
            .await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some(field));
        let answer = server
            .get(&format!("/v1/worlds/{VOXEL}/height?x={x}&z={z}"))
            .await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some(field));
        let body = json!({"points": [[0.0, 0.0], [x, z]]});
        let answer = server
            .post_json(&format!("/v1/worlds/{VOXEL}/heights"), &body)
            .await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("points[1]"));
        let zone = json!({"centerX": x, "centerZ": z, "width": 8.0, "depth": 8.0, "height": 30.0});
        let answer = server
            .put_json(&format!("/v1/worlds/{VOXEL}/flat-zones/far"), &zone, None)
            .await;
        assert_eq!(answer.0, 400, "{}", answer.1);
    }
    let answer = server
        .get(&format!("/v1/worlds/{VOXEL}/map/4/{}/0.png", last + 1))
        .await;
    assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("x"));
    let (_, live) = server.get(&format!("/v1/worlds/{VOXEL}/live-tiles")).await;
    assert_eq!(live["viewers"], 1, "only the viewer at the edge: {live}");
    // A hyperscape world keeps the server's range.
    let (status, h) = server.get("/v1/worlds/main/height?x=999999000&z=0").await;
    assert_eq!(status, 200, "{h}");
}
