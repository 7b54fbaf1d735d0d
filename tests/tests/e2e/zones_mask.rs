//! Tile-mask zones (building footprints) through the API: the original's 28 reference
//! zones and 16 building zones with tile masks (`adapter/zones_seed{0,6}.json`)
//! registered over HTTP on worlds of seeds 0 and 6 under the original's rules answer
//! heights (`POST /heights`), terrain info and the zone at a point as the original's
//! traces (`adapter/trace_seed{0,6}.csv`) say, bit for bit; the masks come back as
//! they went in over HTTP, gRPC and from the store after a restart; bad masks are
//! refused naming `tileMask` with nothing written; and the largest legal mask is
//! registered within the body limit.

use std::path::PathBuf;

use serde_json::{Value, json};
use terrain_core::{GeneratorKind, Overlap};
use terrain_proto::v1 as pb;
use terrain_server::config::WorldConfig;
use terrain_tests as common;

use common::TestServer;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/hyperscape/adapter")
        .join(name)
}

/// `s0` and `s6`: the island of seeds 0 and 6 under the original's overlap (and so its
/// walkability) rule; `plain`: seed 0, layered.
fn worlds(c: &mut terrain_server::Config) {
    let world = |id: &str, seed: u32, overlap: Overlap| {
        let mut w = WorldConfig::new(id, GeneratorKind::Hyperscape, seed);
        w.overlap = overlap;
        w
    };
    c.worlds = vec![
        world("s0", 0, Overlap::Hyperscape),
        world("s6", 6, Overlap::Hyperscape),
        world("plain", 0, Overlap::Layered),
    ];
    c.lifecycle.warm_radius = None;
}

/// The zones file of seed `seed` as API bodies ([`common::game_zone_bodies`]).
fn zone_bodies(seed: u32) -> Vec<(String, Value)> {
    let path = data(&format!("zones_seed{seed}.json"));
    common::game_zone_bodies(&std::fs::read_to_string(path).unwrap())
}

fn trace(seed: u32) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(data(&format!("trace_seed{seed}.csv"))).unwrap();
    let mut lines = text.lines();
    let header = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    (header, rows)
}

fn bits(v: &Value) -> u64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("not a number: {v}"))
        .to_bits()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn building_footprints_answer_as_the_original_on_both_seeds() {
    let server = TestServer::start_with(worlds).await;
    for (seed, world) in [(0, "s0"), (6, "s6")] {
        for (id, body) in zone_bodies(seed) {
            let (status, answer) = server
                .put_json(&format!("/v1/worlds/{world}/flat-zones/{id}"), &body, None)
                .await;
            assert_eq!(status, 200, "{id}: {answer}");
            assert_eq!(
                answer["zone"]["tileMask"],
                body.get("tileMask").cloned().unwrap_or(Value::Null),
                "{id}"
            );
        }
        let (header, rows) = trace(seed);
        let col = |name: &str| header.iter().position(|h| h == name).unwrap();
        let points: Vec<[f64; 2]> = rows.iter().map(|r| [num(&r[0]), num(&r[1])]).collect();
        let (status, heights) = server
            .post_json(
                &format!("/v1/worlds/{world}/heights"),
                &json!({ "points": points }),
            )
            .await;
        assert_eq!(status, 200, "{heights}");
        let (status, info) = server
            .post_json(
                &format!("/v1/worlds/{world}/terrain-info"),
                &json!({ "points": points }),
            )
            .await;
        assert_eq!(status, 200, "{info}");
        let heights = heights["heights"].as_array().unwrap();
        let info = info["points"].as_array().unwrap();
        let mut buildings = 0;
        for (k, row) in rows.iter().enumerate() {
            let at = format!("seed {seed} ({}, {})", row[0], row[1]);
            assert_eq!(
                bits(&heights[k]),
                num(&row[col("getHeightAt")]).to_bits(),
                "height {at}"
            );
            let i = &info[k];
            assert_eq!(
                bits(&i["height"]),
                num(&row[col("info_height")]).to_bits(),
                "info height {at}"
            );
            assert_eq!(
                bits(&i["slope"]),
                num(&row[col("info_slope")]).to_bits(),
                "slope {at}"
            );
            assert_eq!(i["biome"], row[col("info_biome")].as_str(), "biome {at}");
            assert_eq!(
                i["walkable"].to_string(),
                row[col("walkable")],
                "walkable {at}"
            );
            let reason = match i["reason"].as_str() {
                None => "",
                Some("water") => "Water bodies are impassable",
                Some("slope") => "Steep mountain slopes block movement",
                Some(other) => panic!("reason {other} at {at}"),
            };
            assert_eq!(reason, row[col("reason")], "reason {at}");
            buildings += usize::from(row[col("getFlatZoneAt")].starts_with("building_"));
        }
        assert!(
            buildings > 400,
            "seed {seed}: {buildings} trace points in building zones"
        );
        // The zone deciding the height, where the trace says a zone does (some points).
        for row in rows.iter().step_by(9) {
            let (status, at) = server
                .get(&format!(
                    "/v1/worlds/{world}/flat-zone-at?x={}&z={}",
                    row[0], row[1]
                ))
                .await;
            assert_eq!(status, 200, "{at}");
            let decided = !at["zone"].is_null();
            assert_eq!(
                decided.to_string(),
                row[col("isInFlatZone")],
                "zone at ({}, {}): {at}",
                row[0],
                row[1]
            );
        }
    }
    // gRPC answers the mask flattened, as it was registered.
    let mut grpc = server.grpc().await;
    let zone = grpc
        .get_flat_zone(pb::GetFlatZoneRequest {
            world: "s0".into(),
            id: "building_0".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .zone
        .unwrap();
    let (_, body) = zone_bodies(0)
        .into_iter()
        .find(|(id, _)| id == "building_0")
        .unwrap();
    let want: Vec<i32> = body["tileMask"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| [t[0].as_i64().unwrap() as i32, t[1].as_i64().unwrap() as i32])
        .collect();
    assert_eq!(zone.tile_mask, want);
    server.stop().await;
}

/// The exact height of world `plain` at `(x, z)` over HTTP.
async fn height(server: &TestServer, x: f64, z: f64) -> f64 {
    let path = format!("/v1/worlds/plain/height?x={x}&z={z}");
    server.get(&path).await.1["height"].as_f64().unwrap()
}

/// Registered over gRPC, read back over HTTP; stored and reloaded across a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn masks_travel_through_grpc_and_the_store() {
    let mut server = TestServer::start_with(worlds).await;
    let mut grpc = server.grpc().await;
    // An L-shaped footprint.
    let tiles: Vec<[i32; 2]> = (10..20)
        .flat_map(|x| (30..34).map(move |z| [x, z]))
        .chain((10..14).flat_map(|x| (34..40).map(move |z| [x, z])))
        .collect();
    let zone = pb::FlatZone {
        id: "hall".into(),
        center_x: 15.0,
        center_z: 35.0,
        width: Some(16.0),
        depth: Some(16.0),
        height: Some(30.0),
        blend_radius: 4.0,
        carve_inset: Some(0.5),
        tile_mask: tiles.iter().flatten().copied().collect(),
        ..Default::default()
    };
    let answer = grpc
        .register_flat_zone(pb::RegisterFlatZoneRequest {
            world: "plain".into(),
            zone: Some(zone.clone()),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.zone.unwrap().tile_mask, zone.tile_mask);
    let check = |body: Value| {
        let got: Vec<[i32; 2]> = serde_json::from_value(body["zone"]["tileMask"].clone()).unwrap();
        assert_eq!(got, tiles);
    };
    let (_, body) = server.get("/v1/worlds/plain/flat-zones/hall").await;
    check(body.clone());
    // The core is the footprint: level on its tiles, untouched in the L's notch beyond
    // the blend radius, blended beside it.
    assert_eq!(height(&server, 12.5, 38.5).await, 30.0);
    assert_eq!(height(&server, 19.5, 30.5).await, 30.0);
    let notch = height(&server, 19.9, 39.9).await;
    assert_ne!(notch, 30.0, "the L's notch is no core");
    server.restart(worlds).await;
    let (_, body) = server.get("/v1/worlds/plain/flat-zones/hall").await;
    check(body);
    assert_eq!(height(&server, 12.5, 38.5).await, 30.0);
    assert_eq!(height(&server, 19.9, 39.9).await.to_bits(), notch.to_bits());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_masks_are_refused_naming_the_field_and_nothing_is_written() {
    let server = TestServer::start_with(worlds).await;
    let before = server.revision("plain").await;
    let base = |mask: Value| {
        json!({"centerX": 0.0, "centerZ": 0.0, "width": 8.0, "depth": 8.0, "height": 20.0,
               "blendRadius": 2.0, "tileMask": mask})
    };
    let cases = [
        (json!([[0, 0], [0, 0]]), "more than once"),
        (
            json!([[0.5, 0]]),
            "tile 0: tile indices must be whole numbers",
        ),
        (json!([[4, 0]]), "inside the zone's rectangle"),
        (json!([[1e12, 0]]), "at most"),
        (json!([]), "at least one tile"),
        (json!("x"), "expected a list"),
        (json!([[1, 2, 3]]), "expected [x, z]"),
    ];
    for (mask, needle) in cases {
        let (status, body) = server
            .put_json("/v1/worlds/plain/flat-zones/bad", &base(mask.clone()), None)
            .await;
        assert_eq!(status, 400, "{mask}: {body}");
        assert_eq!(body["error"]["field"], "tileMask", "{mask}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{mask}: {message}");
    }
    // Too many tiles: 65,537 in a 257 x 256 block (inside a rectangle that holds them).
    let many: Vec<[i64; 2]> = (0..257)
        .flat_map(|x| (0..256).map(move |z| [x, z]))
        .collect();
    let mut big = base(json!(many));
    big["width"] = json!(600.0);
    big["depth"] = json!(600.0);
    let (status, body) = server
        .put_json("/v1/worlds/plain/flat-zones/bad", &big, None)
        .await;
    assert_eq!(
        (status.as_u16(), &body["error"]["field"]),
        (400, &json!("tileMask")),
        "{body}"
    );
    // Over gRPC: an odd count of numbers.
    let mut grpc = server.grpc().await;
    let status = grpc
        .register_flat_zone(pb::RegisterFlatZoneRequest {
            world: "plain".into(),
            zone: Some(pb::FlatZone {
                id: "bad".into(),
                width: Some(8.0),
                depth: Some(8.0),
                height: Some(20.0),
                tile_mask: vec![0, 0, 1],
                ..Default::default()
            }),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(
        status.message().starts_with("tile_mask: "),
        "{}",
        status.message()
    );
    assert_eq!(
        server.revision("plain").await,
        before,
        "nothing was written"
    );
    assert!(server.zone_ids("plain").await.is_empty());
    server.stop().await;
}

/// The largest legal mask (65,536 tiles, 256 x 256) fits the body limit with the
/// largest tile indices the coordinate range allows near the origin, and registers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_mask_registers() {
    let server = TestServer::start_with(worlds).await;
    let tiles: Vec<[i64; 2]> = (-128..128)
        .flat_map(|x| (-128..128).map(move |z| [x, z]))
        .collect();
    assert_eq!(tiles.len(), 65_536);
    let body = json!({"centerX": 0.0, "centerZ": 0.0, "width": 260.0, "depth": 260.0,
                      "height": 20.0, "blendRadius": 10.0, "tileMask": tiles});
    let started = std::time::Instant::now();
    let (status, answer) = server
        .put_json("/v1/worlds/plain/flat-zones/huge", &body, None)
        .await;
    assert_eq!(status, 200, "{}", &answer.to_string()[..200]);
    eprintln!("largest mask registered in {:?}", started.elapsed());
    let (_, h) = server.get("/v1/worlds/plain/height?x=100.5&z=-100.5").await;
    assert_eq!(h["height"], 20.0);
    server.stop().await;
}
