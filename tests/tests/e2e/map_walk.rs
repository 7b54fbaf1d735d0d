//! The map's walkability layer (`map/{z}/{x}/{y}.png?layer=walk`) against the real
//! server: every sampled pixel is transparent exactly where `POST .../terrain-info`
//! at the pixel's centre answers `walkable`, and otherwise the legend's colour of the
//! reason it answers; a zone registered with `walkable: false` gives the covering walk
//! tiles a new tag and shades its core as `zone`; on a voxel world (`block-step`) the
//! `step` shading is exactly the ground standing more than one block above a
//! neighbouring movement tile, by the heights `POST .../heights` answers.

use std::collections::HashMap;

use terrain_tests as common;

use common::*;
use reqwest::header::{CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use serde_json::{Value, json};
use terrain_core::GeneratorKind;
use terrain_server::config::WorldConfig;

/// `main`: hyperscape seed 0, layered (the `slope` rule); `blocks`: voxel seed 3
/// (`block-step`).
fn worlds(c: &mut terrain_server::Config) {
    let mut voxel = WorldConfig::new("blocks", GeneratorKind::Voxel, 3);
    voxel.voxel = Some(Default::default());
    c.worlds = vec![
        WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
        voxel,
    ];
    c.lifecycle.warm_radius = None;
}

/// `GET path` with an optional `If-None-Match`: status, ETag, content type and body.
async fn get_tile(
    server: &TestServer,
    path: &str,
    tag: Option<&str>,
) -> (u16, String, String, Vec<u8>) {
    let mut request = server.http.get(server.url(path));
    if let Some(tag) = tag {
        request = request.header(IF_NONE_MATCH, tag);
    }
    let response = request.send().await.expect("GET");
    let status = response.status().as_u16();
    let header = |name| {
        response
            .headers()
            .get(name)
            .map(|v: &reqwest::header::HeaderValue| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let (etag, content_type) = (header(ETAG), header(CONTENT_TYPE));
    (
        status,
        etag,
        content_type,
        response.bytes().await.unwrap().to_vec(),
    )
}

/// Decodes an RGBA PNG of 256 x 256 pixels.
fn decode_rgba(bytes: &[u8]) -> Vec<u8> {
    let mut reader = png::Decoder::new(bytes).read_info().expect("PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!((info.width, info.height), (256, 256));
    buf.truncate(info.buffer_size());
    buf
}

/// The walk layer's shadings by reason, from the world's legend.
async fn shadings(server: &TestServer, world: &str) -> (String, HashMap<[u8; 4], String>) {
    let (status, legend) = server.get(&format!("/v1/worlds/{world}/map/legend")).await;
    assert_eq!(status.as_u16(), 200, "{legend}");
    let walk = &legend["walk"];
    let mut out = HashMap::new();
    for e in walk["entries"].as_array().unwrap() {
        let rgba: Vec<u8> = e["rgba"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u8)
            .collect();
        let rgba: [u8; 4] = rgba.try_into().unwrap();
        assert!(rgba[3] > 0, "a shading is visible: {e}");
        assert!(!e["label"].as_str().unwrap().is_empty());
        out.insert(rgba, e["reason"].as_str().unwrap().to_string());
    }
    (walk["rule"].as_str().unwrap().to_string(), out)
}

/// The world point at the centre of pixel `(i, j)` of map tile `(zoom, x, y)`.
fn centre(zoom: u32, x: i64, y: i64, i: usize, j: usize) -> (f64, f64) {
    let m = 16.0 / f64::from(1u32 << zoom);
    (
        ((x * 256) as f64 + i as f64 + 0.5) * m,
        ((y * 256) as f64 + j as f64 + 0.5) * m,
    )
}

/// One sampled pixel: its position, centre and RGBA.
struct Pixel {
    i: usize,
    j: usize,
    x: f64,
    z: f64,
    rgba: [u8; 4],
}

/// The pixels of `rgba` (map tile `(zoom, x, y)`) every `step` pixels from `from`.
fn sample(rgba: &[u8], (zoom, x, y): (u32, i64, i64), from: usize, step: usize) -> Vec<Pixel> {
    let mut out = Vec::new();
    for j in (from..256).step_by(step) {
        for i in (from..256).step_by(step) {
            let (px, pz) = centre(zoom, x, y, i, j);
            let k = (j * 256 + i) * 4;
            out.push(Pixel {
                i,
                j,
                x: px,
                z: pz,
                rgba: rgba[k..k + 4].try_into().unwrap(),
            });
        }
    }
    out
}

/// Terrain info at the pixels' centres, in order.
async fn infos(server: &TestServer, world: &str, pixels: &[Pixel]) -> Vec<Value> {
    let points: Vec<[f64; 2]> = pixels.iter().map(|p| [p.x, p.z]).collect();
    let (status, answer) = server
        .post_json(
            &format!("/v1/worlds/{world}/terrain-info"),
            &json!({ "points": points }),
        )
        .await;
    assert_eq!(status.as_u16(), 200, "{answer}");
    answer["points"].as_array().unwrap().clone()
}

/// What a pixel shows: `None` transparent, else the reason of its shading.
fn shown(p: &Pixel, shadings: &HashMap<[u8; 4], String>) -> Option<String> {
    if p.rgba == [0; 4] {
        return None;
    }
    Some(shadings.get(&p.rgba).cloned().unwrap_or_else(|| {
        panic!(
            "pixel ({}, {}) at ({}, {}): {:?} is no shading of the legend",
            p.i, p.j, p.x, p.z, p.rgba
        )
    }))
}

/// Checks every pixel against the terrain info at its centre; answers the count of
/// each reason shown (`walkable` for transparent pixels).
fn agree(
    tile: &str,
    pixels: &[Pixel],
    infos: &[Value],
    shadings: &HashMap<[u8; 4], String>,
) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for (p, info) in pixels.iter().zip(infos) {
        let want = info["reason"].as_str().map(str::to_string);
        assert_eq!(
            info["walkable"].as_bool(),
            Some(want.is_none()),
            "{tile}: {info}"
        );
        let got = shown(p, shadings);
        assert_eq!(
            got, want,
            "{tile} pixel ({}, {}) at ({}, {}): terrain info {info}",
            p.i, p.j, p.x, p.z
        );
        *counts
            .entry(got.unwrap_or_else(|| "walkable".to_string()))
            .or_insert(0) += 1;
    }
    counts
}

#[tokio::test]
async fn walk_layer_pixels_are_the_terrain_info_at_their_centres() {
    let server = TestServer::start_with(worlds).await;
    let (rule, shadings) = shadings(&server, "main").await;
    assert_eq!(rule, "slope");
    let reasons: Vec<&str> = {
        let mut r: Vec<&str> = shadings.values().map(String::as_str).collect();
        r.sort();
        r
    };
    assert_eq!(reasons, ["slope", "water", "zone"]);
    let mut total: HashMap<String, usize> = HashMap::new();
    // The coast and sea (4 m a pixel), the land by the spawn at 1 m a pixel (the
    // movement tiles' centres), and steep ground in [192, 256) x [192, 256) at 0.25 m
    // a pixel.
    for tile in [(2, -1, -1), (4, 0, 0), (6, 3, 3)] {
        let path = format!(
            "/v1/worlds/main/map/{}/{}/{}.png?layer=walk",
            tile.0, tile.1, tile.2
        );
        let (status, tag, content_type, body) = get_tile(&server, &path, None).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(content_type, "image/png");
        let prefix = format!("\"main:walk1:{}:{}:{}:", tile.0, tile.1, tile.2);
        assert!(tag.starts_with(&prefix), "{tag}");
        let rgba = decode_rgba(&body);
        let pixels = sample(&rgba, tile, 3, 7);
        let infos = infos(&server, "main", &pixels).await;
        for (reason, n) in agree(&path, &pixels, &infos, &shadings) {
            *total.entry(reason).or_insert(0) += n;
        }
        // The terrain layer of the same tile is another PNG with its own tag.
        let (_, terrain_tag, _, terrain) = get_tile(
            &server,
            &path.replace("?layer=walk", "?layer=terrain"),
            None,
        )
        .await;
        assert!(terrain_tag.contains(":map1:"), "{terrain_tag}");
        assert_ne!(terrain, body);
    }
    for reason in ["walkable", "water", "slope"] {
        assert!(total.get(reason).is_some_and(|&n| n > 20), "{total:?}");
    }
}

#[tokio::test]
async fn a_zone_that_blocks_shades_its_core_and_retags_the_walk_tile() {
    let server = TestServer::start_with(worlds).await;
    let (_, shadings) = shadings(&server, "main").await;
    // Zoom 5: 0.5 m a pixel, map tile (0, 0) spans [0, 128) on both axes.
    let path = "/v1/worlds/main/map/5/0/0.png?layer=walk";
    let far = "/v1/worlds/main/map/5/4/4.png?layer=walk";
    let (status, tag, _, first) = get_tile(&server, path, None).await;
    assert_eq!(status, 200);
    let (status, same, _, body) = get_tile(&server, path, Some(&tag)).await;
    assert_eq!((status, same.as_str(), body.len()), (304, tag.as_str(), 0));
    let (_, far_tag, _, _) = get_tile(&server, far, None).await;
    let before = sample(&decode_rgba(&first), (5, 0, 0), 1, 2);
    let counts = agree(
        path,
        &before,
        &infos(&server, "main", &before).await,
        &shadings,
    );
    assert_eq!(counts.get("zone"), None, "no zone yet: {counts:?}");

    // A building on dry land by the spawn: its core (x and z in [35, 45]) blocks.
    let hall = json!({"centerX": 40.0, "centerZ": 40.0, "width": 10.0, "depth": 10.0,
                      "heightOffset": 0.5, "blendRadius": 2.0, "walkable": false});
    let (status, answer) = server
        .put_json("/v1/worlds/main/flat-zones/walk-hall", &hall, None)
        .await;
    assert!(status.is_success(), "{answer}");
    let (status, new_tag, _, second) = get_tile(&server, path, Some(&tag)).await;
    assert_eq!(status, 200, "the covering walk tile changed");
    assert_ne!(new_tag, tag);
    let rgba = decode_rgba(&second);
    let after = sample(&rgba, (5, 0, 0), 1, 2);
    let counts = agree(
        path,
        &after,
        &infos(&server, "main", &after).await,
        &shadings,
    );
    // The core's pixels, 20 x 20 of them (centres 35.25 to 44.75), every other one
    // sampled along each axis (35.75 to 44.75): 10 x 10, all shaded `zone`, and no
    // other pixel.
    assert_eq!(counts.get("zone"), Some(&100), "{counts:?}");
    for p in &after {
        let inside = (35.0..45.0).contains(&p.x) && (35.0..45.0).contains(&p.z);
        assert_eq!(
            shown(p, &shadings).as_deref() == Some("zone"),
            inside,
            "({}, {})",
            p.x,
            p.z
        );
    }
    // A pixel at the hall's centre, sampled or not, is the zone's shading.
    let k = (80 * 256 + 80) * 4; // centre (40.25, 40.25)
    let px: [u8; 4] = rgba[k..k + 4].try_into().unwrap();
    assert_eq!(shadings.get(&px).map(String::as_str), Some("zone"));
    let (status, _, _, _) = get_tile(&server, far, Some(&far_tag)).await;
    assert_eq!(
        status, 304,
        "a walk tile the zone does not reach keeps its tag"
    );

    // Removed: the pixels are those of the terrain without the zone.
    let (status, _) = server
        .delete("/v1/worlds/main/flat-zones/walk-hall", None)
        .await;
    assert!(status.is_success());
    let (status, third_tag, _, third) = get_tile(&server, path, Some(&new_tag)).await;
    assert_eq!(status, 200);
    assert_eq!(third_tag, tag);
    assert_eq!(third, first);
}

#[tokio::test]
async fn voxel_walk_tiles_shade_water_and_two_block_steps() {
    let server = TestServer::start_with(worlds).await;
    let (rule, shadings) = shadings(&server, "blocks").await;
    assert_eq!(rule, "block-step");
    // Zoom 5, map tile (0, 0) and (-1, 0): 0.5 m a pixel over [-128, 128) x [0, 128).
    let mut counts: HashMap<String, usize> = HashMap::new();
    for tile in [(5, 0, 0), (5, -1, 0)] {
        let path = format!(
            "/v1/worlds/blocks/map/{}/{}/{}.png?layer=walk",
            tile.0, tile.1, tile.2
        );
        let (status, _, _, body) = get_tile(&server, &path, None).await;
        assert_eq!(status, 200, "{path}");
        let pixels = sample(&decode_rgba(&body), tile, 1, 3);
        let infos = infos(&server, "blocks", &pixels).await;
        // The heights of each pixel's movement tile and its eight neighbours, at
        // their centres.
        let mut points = Vec::new();
        for p in &pixels {
            let (tx, tz) = (p.x.floor() + 0.5, p.z.floor() + 0.5);
            for dz in [-1.0, 0.0, 1.0] {
                for dx in [-1.0, 0.0, 1.0] {
                    points.push([tx + dx, tz + dz]);
                }
            }
        }
        let (status, answer) = server
            .post_json("/v1/worlds/blocks/heights", &json!({ "points": points }))
            .await;
        assert_eq!(status.as_u16(), 200, "{answer}");
        let heights = nums(&answer["heights"]);
        for (n, (p, info)) in pixels.iter().zip(&infos).enumerate() {
            let around = &heights[9 * n..9 * n + 9];
            let top = around[4];
            assert_eq!(top, num(&info["height"]), "{info}");
            let rises = around.iter().any(|h| top - h > 1.0);
            let want = match info["reason"].as_str() {
                Some(reason) => Some(reason.to_string()),
                None if rises => Some("step".to_string()),
                None => None,
            };
            let got = shown(p, &shadings);
            assert_eq!(
                got, want,
                "{path} ({}, {}): {info}, heights {around:?}",
                p.x, p.z
            );
            *counts
                .entry(got.unwrap_or_else(|| "walkable".to_string()))
                .or_insert(0) += 1;
        }
    }
    for reason in ["walkable", "step"] {
        assert!(counts.get(reason).is_some_and(|&n| n > 10), "{counts:?}");
    }
}

#[tokio::test]
async fn an_unknown_layer_is_refused_naming_it() {
    let server = TestServer::start_with(worlds).await;
    for path in [
        "/v1/worlds/main/map/3/0/0.png?layer=roads",
        "/v1/worlds/main/map/3/0/0.png?layer=",
        "/v1/worlds/main/map/3/0/0.png?layer=walk&layer=walk",
    ] {
        let answer = server.get(path).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("layer"));
    }
    // Other parameters are ignored, as the page's cache buster is.
    let (status, _, content_type, _) = get_tile(
        &server,
        "/v1/worlds/main/map/3/0/0.png?layer=walk&r=7",
        None,
    )
    .await;
    assert_eq!((status, content_type.as_str()), (200, "image/png"));
}
