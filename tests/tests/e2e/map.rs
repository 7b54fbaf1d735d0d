//! Map tiles over HTTP against the real server: PNGs that decode, water where the
//! heights say, ETag / `If-None-Match` revalidation, a zone change giving the covering
//! map tiles (and only those) a new tag, and bad tiles refused naming the field.

use terrain_tests as common;

use common::*;
use reqwest::header::{ETAG, IF_NONE_MATCH};
use serde_json::json;

/// `GET path` with an optional `If-None-Match`: status, ETag, cache header and body.
async fn get_tile(server: &TestServer, path: &str, tag: Option<&str>) -> (u16, String, Vec<u8>) {
    let mut request = server.http.get(server.url(path));
    if let Some(tag) = tag {
        request = request.header(IF_NONE_MATCH, tag);
    }
    let response = request.send().await.expect("GET");
    let status = response.status().as_u16();
    let etag = response.headers()[ETAG].to_str().unwrap().to_string();
    (status, etag, response.bytes().await.unwrap().to_vec())
}

/// Decodes a PNG: width, height and RGB pixels.
fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(bytes).read_info().expect("PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[tokio::test]
async fn tiles_decode_and_show_water_where_the_heights_say() {
    let server = TestServer::start().await;
    // Zoom 2: 4 m a pixel, map tile (-1, -1) spans [-1024, 0) on both axes.
    let (status, _, body) = get_tile(&server, "/v1/worlds/main/map/2/-1/-1.png", None).await;
    assert_eq!(status, 200);
    let (w, h, rgb) = decode(&body);
    assert_eq!((w, h), (256, 256));
    let (mut water, mut land) = (0, 0);
    for j in (0..256).step_by(31) {
        for i in (0..256).step_by(29) {
            let (x, z) = (
                (i as f64 - 256.0 + 0.5) * 4.0,
                (j as f64 - 256.0 + 0.5) * 4.0,
            );
            let (_, answer) = server
                .get(&format!("/v1/worlds/main/height?x={x}&z={z}"))
                .await;
            let height = num(&answer["height"]);
            let p = &rgb[(j * 256 + i) * 3..][..3];
            // Water is blue-dominant and unshaded; land is the biome colours.
            let blue = p[2] > p[0] && p[2] > p[1];
            if height < 9.0 {
                water += 1;
                assert!(blue, "water at ({x}, {z}) height {height}: {p:?}");
            } else {
                land += 1;
                assert!(!blue, "land at ({x}, {z}) height {height}: {p:?}");
            }
        }
    }
    assert!(water > 0 && land > 0, "{water} water, {land} land samples");
}

#[tokio::test]
async fn etags_revalidate_and_a_zone_change_retags_the_covering_tiles() {
    let server = TestServer::start().await;
    let near = "/v1/worlds/main/map/5/0/0.png"; // [0, 128) at 0.5 m a pixel
    let far = "/v1/worlds/main/map/5/4/4.png"; // [512, 640)
    let (status, tag, first) = get_tile(&server, near, None).await;
    assert_eq!(status, 200);
    let (status, same, body) = get_tile(&server, near, Some(&tag)).await;
    assert_eq!((status, same.as_str(), body.len()), (304, tag.as_str(), 0));
    let (_, far_tag, _) = get_tile(&server, far, None).await;

    let zone = json!({"centerX": 60.0, "centerZ": 60.0, "width": 30.0, "depth": 30.0,
                      "height": 30.0, "blendRadius": 5.0});
    let (status, answer) = server
        .put_json("/v1/worlds/main/flat-zones/map-pad", &zone, None)
        .await;
    assert!(status.is_success(), "{answer}");
    let (status, new_tag, second) = get_tile(&server, near, Some(&tag)).await;
    assert_eq!(status, 200, "the covering tile changed");
    assert_ne!(new_tag, tag);
    assert_ne!(first, second, "the pad shows");
    let (status, _, _) = get_tile(&server, far, Some(&far_tag)).await;
    assert_eq!(status, 304, "a tile the zone does not reach keeps its tag");

    let (status, _) = server
        .delete("/v1/worlds/main/flat-zones/map-pad", None)
        .await;
    assert!(status.is_success());
    let (status, third_tag, third) = get_tile(&server, near, Some(&new_tag)).await;
    assert_eq!(status, 200);
    assert_ne!(third_tag, new_tag);
    assert_eq!(third, first, "removing the zone restores the pixels");
}

/// Issue 22: `map/4/8/7.png` (x 2048..2304, z 1792..2048, reading mesh tiles 20..23 x
/// 18..20 for its border pixels) got a new tag with identical bytes after a zone at
/// (2000, 1900), which changes mesh tile (20, 19) but no pixel of this map tile.
#[tokio::test]
async fn a_zone_that_changes_no_pixel_keeps_the_map_tiles_tag() {
    let server = TestServer::start().await;
    let path = "/v1/worlds/main/map/4/8/7.png";
    let (status, tag, first) = get_tile(&server, path, None).await;
    assert_eq!(status, 200);
    let zone = json!({"centerX": 2000.0, "centerZ": 1900.0, "width": 30.0, "depth": 30.0,
                      "height": 30.0, "blendRadius": 5.0});
    let (status, answer) = server
        .put_json("/v1/worlds/main/flat-zones/border", &zone, None)
        .await;
    assert!(status.is_success(), "{answer}");
    assert!(
        answer["tiles"]
            .as_array()
            .unwrap()
            .contains(&json!([20, 19])),
        "the zone changes a mesh tile the map tile reads: {answer}"
    );
    let (status, same, body) = get_tile(&server, path, Some(&tag)).await;
    assert_eq!((status, same.as_str(), body.len()), (304, tag.as_str(), 0));
    let (status, again, second) = get_tile(&server, path, None).await;
    assert_eq!((status, again.as_str()), (200, tag.as_str()));
    assert_eq!(first, second);
}

#[tokio::test]
async fn bad_tiles_are_refused_naming_the_field() {
    let server = TestServer::start().await;
    for (path, status, code, field) in [
        (
            "/v1/worlds/main/map/7/0/0.png",
            400,
            "INVALID_ARGUMENT",
            Some("z"),
        ),
        (
            "/v1/worlds/main/map/x/0/0.png",
            400,
            "INVALID_ARGUMENT",
            Some("z"),
        ),
        (
            "/v1/worlds/main/map/0/1e3/0.png",
            400,
            "INVALID_ARGUMENT",
            Some("x"),
        ),
        (
            "/v1/worlds/main/map/0/0/0.gif",
            400,
            "INVALID_ARGUMENT",
            Some("y"),
        ),
        (
            "/v1/worlds/main/map/0/0/999999999.png",
            400,
            "INVALID_ARGUMENT",
            Some("y"),
        ),
        (
            "/v1/worlds/nope/map/0/0/0.png",
            404,
            "NOT_FOUND",
            Some("world"),
        ),
    ] {
        let answer = server.get(path).await;
        assert_http_error(&answer, status, code, field);
    }
    let (status, legend) = server.get("/v1/worlds/main/map/legend").await;
    assert_eq!(status.as_u16(), 200);
    assert_eq!(legend["generator"], "hyperscape");
    assert_eq!(legend["waterThreshold"], 9.0);
    assert!(legend["entries"].as_array().unwrap().len() > 5);
}

#[tokio::test]
async fn the_page_its_assets_and_the_viewers_are_served() {
    let server = TestServer::start().await;
    for (path, content_type) in [
        ("/map", "text/html"),
        ("/map/main", "text/html"),
        ("/map/assets/map.js", "text/javascript"),
        ("/map/assets/vendor/leaflet/leaflet.js", "text/javascript"),
        (
            "/map/assets/vendor/three/three.module.min.js",
            "text/javascript",
        ),
    ] {
        let response = server.http.get(server.url(path)).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200, "{path}");
        let got = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(got.starts_with(content_type), "{path}: {got}");
    }
    let (status, _) = server.get("/map/assets/nope.js").await;
    assert_eq!(status.as_u16(), 404);

    let body = json!({"x": 10.0, "z": -20.0, "viewWidth": 100.0, "viewDepth": 100.0});
    let (status, rings) = server
        .put_json("/v1/worlds/main/viewers/eye", &body, None)
        .await;
    assert!(status.is_success(), "{rings}");
    let (status, answer) = server.get("/v1/worlds/main/map/viewers").await;
    assert_eq!(status.as_u16(), 200);
    let v = &answer["viewers"][0];
    assert_eq!(
        (v["id"].as_str(), num(&v["x"]), num(&v["z"])),
        (Some("eye"), 10.0, -20.0)
    );
    // The ring rectangles cover the ring tile sets the PUT answered.
    for ring in ["sim", "spawn", "active"] {
        let r: Vec<i64> = v["rings"][ring]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_i64().unwrap())
            .collect();
        let tiles = rings[ring].as_array().unwrap();
        assert!(!tiles.is_empty(), "{ring}");
        for t in tiles {
            let (tx, tz) = (t[0].as_i64().unwrap(), t[1].as_i64().unwrap());
            assert!(
                r[0] <= tx && tx <= r[2] && r[1] <= tz && tz <= r[3],
                "{ring} {t}"
            );
        }
    }
}
