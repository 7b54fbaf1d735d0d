//! The flat-zone registry over HTTP, against the real server: register, replace,
//! remove, list, get and the zone at a point, with revisions and tiles checked against
//! `TileGrid::tiles_touching`, and every height (single, batch, heightmap) checked
//! bit for bit against a `terrain_core::Terrain` holding the same zones.

use terrain_tests as common;

use common::*;
use serde_json::{Value, json};
use terrain_core::{FlatZone, Generator, Overlap, Terrain};

const ZONES: &str = "/v1/worlds/main/flat-zones";

/// A rectangle 20 x 12 m at 1.4 m above the ground at its centre.
fn pad(x: f64, z: f64) -> Value {
    json!({"centerX": x, "centerZ": z, "width": 20.0, "depth": 12.0, "heightOffset": 1.4,
           "blendRadius": 6.0, "carveInset": 1.0})
}

/// A disc at an absolute height.
fn ring() -> Value {
    json!({"centerX": -40.5, "centerZ": 33.25, "radius": 9.5, "height": 31.0,
           "blendRadius": 4.0, "priority": 2})
}

/// Asserts every height answer of `server` near `zones` equals `terrain`'s, with the
/// deciding zone named.
async fn assert_heights(server: &TestServer, terrain: &Terrain, zones: &[FlatZone]) {
    let points = probe_points(zones);
    for &(x, z) in &points {
        let (status, body) = server
            .get(&format!("/v1/worlds/main/height?x={x}&z={z}"))
            .await;
        assert_eq!(status, 200, "{body}");
        let want = terrain.sample(x, z);
        assert_same(
            num(&body["height"]),
            want.height,
            &format!("height at ({x}, {z})"),
        );
        let id = want.zone.map(|(zone, _)| zone.id.as_str());
        assert_eq!(body["zone"].as_str(), id, "zone at ({x}, {z})");
    }
    let batch = json!({"points": points.iter().map(|&(x, z)| json!([x, z])).collect::<Vec<_>>()});
    let (status, answer) = server.post_json("/v1/worlds/main/heights", &batch).await;
    assert_eq!(status, 200, "{answer}");
    let heights = nums(&answer["heights"]);
    for (k, &(x, z)) in points.iter().enumerate() {
        let want = terrain.sample(x, z);
        assert_same(heights[k], want.height, &format!("heights[{k}]"));
        let id = want.zone.map(|(zone, _)| zone.id.as_str());
        assert_eq!(answer["zones"][k].as_str(), id, "zones[{k}]");
    }
    for zone in zones {
        let (x0, z0) = (zone.center_x - 30.0, zone.center_z - 25.0);
        let path = format!("/v1/worlds/main/heightmap?x0={x0}&z0={z0}&step=0.75&nx=81&nz=67");
        let (status, map) = server.get(&path).await;
        assert_eq!(status, 200, "{map}");
        let got = nums(&map["heights"]);
        for iz in 0..67 {
            for ix in 0..81 {
                let (x, z) = (x0 + ix as f64 * 0.75, z0 + iz as f64 * 0.75);
                assert_same(
                    got[iz * 81 + ix],
                    terrain.height(x, z),
                    &format!("map ({x}, {z})"),
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_replace_remove_over_http() {
    let server = TestServer::start().await;
    let core = main_generator();
    let pad_a = resolve(&core, "pad", &pad(12.0, -8.0));

    let (status, body) = server
        .put_json(&format!("{ZONES}/pad"), &pad(12.0, -8.0), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["revision"].as_u64(), body["change"].as_str()),
        (Some(1), Some("registered"))
    );
    assert_eq!(body["tiles"], tiles_json(&core, &[&pad_a]));
    assert_eq!(body["zone"]["id"], "pad");
    assert_eq!(body["zone"]["revision"], 1);
    assert_same(
        num(&body["zone"]["height"]),
        core.procedural(12.0, -8.0) + 1.4,
        "resolved height",
    );
    assert_eq!(
        body["zone"].get("heightOffset"),
        None,
        "answers carry the resolved height"
    );
    assert_heights(
        &server,
        &terrain(&core, Overlap::Hyperscape, std::slice::from_ref(&pad_a)),
        std::slice::from_ref(&pad_a),
    )
    .await;

    // The same zone again: a no-op that takes no revision.
    let (status, body) = server
        .put_json(&format!("{ZONES}/pad"), &pad(12.0, -8.0), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["revision"].as_u64(), body["change"].as_str()),
        (Some(1), Some("unchanged"))
    );
    assert_eq!(body["tiles"], json!([]));
    assert_eq!(body["zone"]["revision"], 1);

    // Moved across a tile border: the tiles of both the old and the new place.
    let pad_b = resolve(&core, "pad", &pad(148.0, -8.0));
    let (status, body) = server
        .put_json(&format!("{ZONES}/pad"), &pad(148.0, -8.0), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["revision"].as_u64(), body["change"].as_str()),
        (Some(2), Some("replaced"))
    );
    assert_eq!(body["tiles"], tiles_json(&core, &[&pad_a, &pad_b]));
    let tiles = body["tiles"].as_array().expect("tiles").len();
    assert!(tiles >= 3, "old tile (0,0) plus the new ones: {body}");

    let ring_z = resolve(&core, "ring", &ring());
    let (status, body) = server
        .put_json(&format!("{ZONES}/ring"), &ring(), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["revision"], 3);
    assert_eq!(body["tiles"], tiles_json(&core, &[&ring_z]));
    assert_eq!(num(&body["zone"]["height"]), 31.0);
    let both = [pad_b.clone(), ring_z.clone()];
    assert_heights(&server, &terrain(&core, Overlap::Hyperscape, &both), &both).await;

    let (status, list) = server.get(ZONES).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["revision"], 3);
    let mut want_pad =
        serde_json::to_value(terrain_core::zones::ZoneDoc::from_zone(&pad_b)).expect("json");
    want_pad["revision"] = json!(2);
    let mut want_ring =
        serde_json::to_value(terrain_core::zones::ZoneDoc::from_zone(&ring_z)).expect("json");
    want_ring["revision"] = json!(3);
    assert_eq!(
        list["zones"],
        json!([want_pad, want_ring]),
        "registration order"
    );

    let (status, one) = server.get(&format!("{ZONES}/ring")).await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(one, json!({"zone": want_ring, "revision": 3}));

    let (status, at) = server.get("/v1/worlds/main/flat-zone-at?x=148&z=-8").await;
    assert_eq!(
        (
            status.as_u16(),
            at["zone"]["id"].as_str(),
            at["revision"].as_u64()
        ),
        (200, Some("pad"), Some(3))
    );
    let (status, at) = server.get("/v1/worlds/main/flat-zone-at?x=0&z=500").await;
    assert_eq!((status.as_u16(), &at["zone"]), (200, &Value::Null));

    let (status, worlds) = server.get("/v1/worlds").await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            worlds["worlds"][0]["zones"].as_u64(),
            worlds["worlds"][0]["revision"].as_u64()
        ),
        (Some(2), Some(3))
    );

    let (status, body) = server.delete(&format!("{ZONES}/pad"), None).await;
    assert_eq!(status, 200, "{body}");
    // The rectangles and count (added for large zones) describe the same tiles.
    assert_eq!(
        body,
        json!({"revision": 4, "tiles": tiles_json(&core, &[&pad_b]),
               "tileRects": [[1, 0, 2, 0]], "tileCount": 2})
    );
    assert_http_error(
        &server.get(&format!("{ZONES}/pad")).await,
        404,
        "NOT_FOUND",
        Some("id"),
    );
    assert_http_error(
        &server.delete(&format!("{ZONES}/pad"), None).await,
        404,
        "NOT_FOUND",
        Some("id"),
    );
    assert_eq!(
        server.revision("main").await,
        4,
        "a refused removal takes no revision"
    );
    let left = [ring_z];
    assert_heights(&server, &terrain(&core, Overlap::Hyperscape, &left), &left).await;
    server.stop().await;
}

/// Two overlapping zones in a `layered` and a `hyperscape` world: each world answers
/// with its own rule, bit for bit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overlapping_zones_follow_the_world_rule() {
    let server = TestServer::start_with(|c| {
        c.worlds[0].overlap = Overlap::Layered;
    })
    .await;
    let core = main_generator();
    let low = json!({"centerX": 0.0, "centerZ": 0.0, "width": 30.0, "depth": 30.0, "height": 20.0,
                     "blendRadius": 8.0, "priority": 1});
    let high = json!({"centerX": 14.0, "centerZ": 6.0, "radius": 10.0, "height": 26.0,
                      "blendRadius": 5.0});
    for (id, body) in [("low", &low), ("high", &high)] {
        let (status, answer) = server.put_json(&format!("{ZONES}/{id}"), body, None).await;
        assert_eq!(status, 200, "{answer}");
    }
    let zones = [resolve(&core, "low", &low), resolve(&core, "high", &high)];
    let layered = terrain(&core, Overlap::Layered, &zones);
    let hyperscape = terrain(&core, Overlap::Hyperscape, &zones);
    // The rules disagree somewhere here, so the comparison below tells them apart.
    let points = probe_points(&zones);
    assert!(
        points
            .iter()
            .any(|&(x, z)| layered.height(x, z) != hyperscape.height(x, z))
    );
    assert_heights(&server, &layered, &zones).await;
    // "high" has the lower priority: under the core of "low" it lies beneath.
    let (_, at) = server.get("/v1/worlds/main/flat-zone-at?x=14&z=6").await;
    assert_eq!(at["zone"]["id"], "low");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zone_metrics_count_zones_index_tiles_and_hits() {
    let server = TestServer::start().await;
    let core = main_generator();
    for (id, body) in [("pad", pad(12.0, -8.0)), ("ring", ring())] {
        let (status, answer) = server.put_json(&format!("{ZONES}/{id}"), &body, None).await;
        assert_eq!(status, 200, "{answer}");
    }
    let zones = [
        resolve(&core, "pad", &pad(12.0, -8.0)),
        resolve(&core, "ring", &ring()),
    ];
    let index_tiles = terrain(&core, Overlap::Hyperscape, &zones)
        .zones()
        .index_tiles();
    for (x, z) in [(12.0, -8.0), (5000.0, 5000.0)] {
        let (status, _) = server
            .get(&format!("/v1/worlds/main/height?x={x}&z={z}"))
            .await;
        assert_eq!(status, 200);
    }
    let batch = json!({"points": [[12.0, -8.0], [-40.5, 33.25], [700.0, 0.0]]});
    let (status, answer) = server.post_json("/v1/worlds/main/heights", &batch).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["zones"], json!(["pad", "ring", null]));

    let text = server.metrics().await;
    let expect = [
        (r#"terrain_zones{world="main"}"#, 2.0),
        (
            r#"terrain_zone_index_tiles{world="main"}"#,
            index_tiles as f64,
        ),
        (r#"terrain_world_revision{world="main"}"#, 2.0),
        (
            r#"terrain_zone_lookups_total{world="main",hit="true"}"#,
            3.0,
        ),
        (
            r#"terrain_zone_lookups_total{world="main",hit="false"}"#,
            2.0,
        ),
    ];
    for (series, value) in expect {
        assert_eq!(
            metric_sample(&text, series),
            Some(value),
            "{series} in\n{text}"
        );
    }
    server.stop().await;
}
