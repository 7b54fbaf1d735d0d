//! Carving through the API, and a `carveInset` that was not given staying absent.
//!
//! - The 44 zones of the original's `adapter/zones_seed6.json` (8 duel-arena floors
//!   with a `carveInset`, 16 buildings with tile masks) registered over HTTP on a world
//!   of seed 6: the served meshes of five tiles of `adapter/carve_seed6.json` (the
//!   original's `applyFlatZoneCarve`) leave out exactly the original's cells and have
//!   its index count, as JSON, as glb and over gRPC (`GetTileMesh`).
//! - A zone registered without `carveInset` answers without it (HTTP `PUT`, `GET`,
//!   the list; gRPC register, get, list), and so does it after a restart (the store);
//!   one registered with `carveInset: 0` answers 0 everywhere.

use std::collections::BTreeSet;
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

/// `s6`: the island of seed 6 under the original's overlap rule.
fn worlds(c: &mut terrain_server::Config) {
    let mut w = WorldConfig::new("s6", GeneratorKind::Hyperscape, 6);
    w.overlap = Overlap::Hyperscape;
    c.worlds = vec![w];
    c.lifecycle.warm_radius = None;
}

/// The carved cells `(ix, iz)` of a 64 x 64 tile's index list: each kept cell's first
/// index is its corner `ix + 64 iz`.
fn carved(indices: &[u32]) -> BTreeSet<(u32, u32)> {
    let kept: BTreeSet<u32> = indices.iter().step_by(6).copied().collect();
    (0..63)
        .flat_map(|iz| (0..63).map(move |ix| (ix, iz)))
        .filter(|&(ix, iz)| !kept.contains(&(ix + 64 * iz)))
        .collect()
}

/// The original's carve of `tile`: its carved cells and index count.
fn original(table: &Value, tile: (i64, i64)) -> (BTreeSet<(u32, u32)>, usize) {
    let entry = table["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tile"] == json!([tile.0, tile.1]))
        .unwrap_or_else(|| panic!("tile {tile:?} is in the table"));
    let cells = entry["carved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c[0].as_u64().unwrap() as u32, c[1].as_u64().unwrap() as u32))
        .collect();
    (cells, entry["index"].as_u64().unwrap() as usize)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_meshes_carve_the_original_s_cells() {
    let server = TestServer::start_with(worlds).await;
    let zones = std::fs::read_to_string(data("zones_seed6.json")).unwrap();
    for (id, body) in common::game_zone_bodies(&zones) {
        let (status, answer) = server
            .put_json(&format!("/v1/worlds/s6/flat-zones/{id}"), &body, None)
            .await;
        assert_eq!(status, 200, "{id}: {answer}");
    }
    let table: Value =
        serde_json::from_str(&std::fs::read_to_string(data("carve_seed6.json")).unwrap()).unwrap();
    let mut grpc = server.grpc().await;
    let mut total = 0;
    // The duel arenas' floors, two building footprints, the spawn's tile.
    for tile in [(1, 1), (-1, -2), (0, 3), (1, 2), (0, 0)] {
        let (want, index) = original(&table, tile);
        let (tx, tz) = tile;
        let (status, mesh) = server
            .get(&format!("/v1/worlds/s6/tiles/{tx}/{tz}/mesh"))
            .await;
        assert_eq!(status, 200, "{mesh}");
        let json: Vec<u32> = mesh["indices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(
            (json.len(), carved(&json)),
            (index, want.clone()),
            "JSON {tile:?}"
        );

        let glb = server
            .http
            .get(server.url(&format!("/v1/worlds/s6/tiles/{tx}/{tz}/mesh.glb")))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let doc = gltf::Gltf::from_slice(&glb).expect("a glb");
        let blob = doc.blob.as_deref().expect("binary chunk");
        let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
        let glb: Vec<u32> = prim
            .reader(|_| Some(blob))
            .read_indices()
            .unwrap()
            .into_u32()
            .collect();
        assert_eq!(
            (glb.len(), carved(&glb)),
            (index, want.clone()),
            "glb {tile:?}"
        );

        let msg = grpc
            .get_tile_mesh(pb::GetTileMeshRequest {
                world: "s6".into(),
                tile_x: tx,
                tile_z: tz,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(msg.index_format, pb::IndexFormat::U16 as i32);
        let grpc_indices: Vec<u32> = msg
            .indices
            .chunks_exact(2)
            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
            .collect();
        assert_eq!(
            (grpc_indices.len(), carved(&grpc_indices)),
            (index, want.clone()),
            "gRPC {tile:?}"
        );
        total += want.len();
    }
    // 1,234 + 90 + 138 + 159 + 24 cells, as the table says.
    assert_eq!(total, 1645);
    server.stop().await;
}

/// `carveInset` of zone `id` in every answer that holds the zone: HTTP `GET`, the HTTP
/// list, gRPC `GetFlatZone` and `ListFlatZones` (as JSON numbers; `None` absent).
async fn insets(server: &TestServer, id: &str) -> [Option<f64>; 4] {
    let (status, body) = server.get(&format!("/v1/worlds/s6/flat-zones/{id}")).await;
    assert_eq!(status, 200, "{body}");
    let zone = &body["zone"];
    assert_eq!(zone["id"], id, "{body}");
    let get = zone
        .get("carveInset")
        .map(|v| v.as_f64().expect("a number"));
    let (list, _) = server.zone_list("s6", "").await;
    let listed = list.iter().find(|z| z["id"] == id).expect("listed");
    let list = listed
        .get("carveInset")
        .map(|v| v.as_f64().expect("a number"));
    let mut grpc = server.grpc().await;
    let one = grpc
        .get_flat_zone(pb::GetFlatZoneRequest {
            world: "s6".into(),
            id: id.into(),
        })
        .await
        .unwrap()
        .into_inner()
        .zone
        .expect("the zone");
    let page = grpc
        .list_flat_zones(pb::ListFlatZonesRequest {
            world: "s6".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let listed = page.zones.into_iter().find(|z| z.id == id).expect("listed");
    [get, list, one.carve_inset, listed.carve_inset]
}

/// The index count of tile `(tx, 0)` of `s6`.
async fn index_count(server: &TestServer, tx: i64) -> usize {
    let (status, mesh) = server
        .get(&format!("/v1/worlds/s6/tiles/{tx}/0/mesh"))
        .await;
    assert_eq!(status, 200, "{mesh}");
    mesh["indices"].as_array().unwrap().len()
}

/// Each zone on a tile of its own: `(id, centerX, tile x, carveInset)`.
const ZONES: [(&str, f64, i64, Option<f64>); 4] = [
    ("http-none", -300.0, -3, None),
    ("http-zero", -400.0, -4, Some(0.0)),
    ("grpc-none", -500.0, -5, None),
    ("grpc-zero", -600.0, -6, Some(0.0)),
];

/// A zone's tile keeps every cell without an inset; with 0 it loses its whole core:
/// 12 x 10 m at 100/63 m a cell, 6 or 7 cells across by 5 or 6 deep (as the vertices
/// fall).
async fn assert_carving(server: &TestServer) {
    for (id, _, tx, inset) in ZONES {
        let carved = (63 * 63 * 6 - index_count(server, tx).await) / 6;
        match inset {
            None => assert_eq!(carved, 0, "{id}"),
            Some(_) => assert!((30..=42).contains(&carved), "{id}: {carved} cells"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_absent_carve_inset_stays_absent_and_zero_stays_zero() {
    let mut server = TestServer::start_with(worlds).await;
    let mut grpc = server.grpc().await;
    for (id, x, _, inset) in ZONES {
        if id.starts_with("http") {
            let mut body = json!({"centerX": x, "centerZ": 40.0, "width": 12.0, "depth": 10.0,
                                  "height": 31.0, "blendRadius": 2.0});
            if let Some(inset) = inset {
                body["carveInset"] = json!(inset);
            }
            let (status, put) = server
                .put_json(&format!("/v1/worlds/s6/flat-zones/{id}"), &body, None)
                .await;
            assert_eq!(status, 200, "{put}");
            let echoed = put["zone"].get("carveInset").and_then(Value::as_f64);
            assert_eq!(echoed, inset, "{put}");
        } else {
            let answer = grpc
                .register_flat_zone(pb::RegisterFlatZoneRequest {
                    world: "s6".into(),
                    zone: Some(pb::FlatZone {
                        id: id.into(),
                        center_x: x,
                        center_z: 40.0,
                        width: Some(12.0),
                        depth: Some(10.0),
                        height: Some(31.0),
                        blend_radius: 2.0,
                        carve_inset: inset,
                        ..Default::default()
                    }),
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(answer.zone.unwrap().carve_inset, inset, "{id}");
        }
    }
    for (id, _, _, inset) in ZONES {
        assert_eq!(insets(&server, id).await, [inset; 4], "{id}");
    }
    assert_carving(&server).await;
    server.restart(worlds).await;
    for (id, _, _, inset) in ZONES {
        assert_eq!(
            insets(&server, id).await,
            [inset; 4],
            "{id} after a restart"
        );
    }
    assert_carving(&server).await;
    server.stop().await;
}
