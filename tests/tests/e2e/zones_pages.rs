//! Zone lists a page at a time (AIP-158): a world whose masks make its whole list
//! larger than 4 MiB, the receive limit of default gRPC clients (grpcio, tonic), is
//! read complete through every client, each page far under that limit: tonic with its
//! default limit, the Rust SDK's `list_flat_zones`, its replica, and HTTP following
//! `nextPageToken` (and Python's grpcio, in the `#[ignore]`d test run by
//! `scripts/test-all.sh`). Every page of a listing is of its first page's revision,
//! also when zones change between pages; a token the history no longer reaches is
//! refused with a clear "list again" error; the largest legal zone fits a page.

use terrain_tests as common;

use std::time::Duration;

use common::TestServer;
use prost::Message;
use serde_json::{Value, json};
use terrain_client::LocalTerrain;
use terrain_proto::v1::{self as pb, terrain_service_client::TerrainServiceClient};
use tonic::Code;
use tonic_types::StatusExt as _;

/// The receive limit of a default gRPC client (grpcio's, tonic's): 4 MiB.
const DEFAULT_RECEIVE: usize = 4 * 1024 * 1024;

/// Zones of the mask-heavy world: `MASKS` with 256 x 256-tile masks at indices near
/// 100,000 (3-byte varints: 393 KB of protobuf, 1.1 MB of JSON each), and `SMALL`
/// plain ones.
const MASKS: usize = 12;
const SMALL: usize = 150;

/// A 256 x 256 mask zone whose tiles start at `(x0, z0)`, flattened as gRPC carries
/// it.
fn mask_zone(id: &str, x0: i32, z0: i32) -> pb::FlatZone {
    let tile_mask = (0..256)
        .flat_map(|i| (0..256).flat_map(move |j| [x0 + i, z0 + j]))
        .collect();
    pb::FlatZone {
        id: id.into(),
        center_x: f64::from(x0) + 128.0,
        center_z: f64::from(z0) + 128.0,
        width: Some(260.0),
        depth: Some(260.0),
        height: Some(30.0),
        blend_radius: 4.0,
        tile_mask,
        ..Default::default()
    }
}

fn small_zone(i: usize) -> pb::FlatZone {
    pb::FlatZone {
        id: format!("small-{i}"),
        center_x: -5_000.0 + 30.0 * i as f64,
        center_z: -5_000.0,
        width: Some(8.0),
        depth: Some(8.0),
        height: Some(12.0),
        blend_radius: 2.0,
        ..Default::default()
    }
}

/// Registers the mask-heavy world's zones in `world` (masks and small zones
/// interleaved); answers their ids in registration order.
async fn mask_heavy(server: &TestServer, world: &str) -> Vec<String> {
    let mut grpc = server.grpc().await;
    let mut ids = Vec::new();
    for i in 0..MASKS + SMALL {
        let zone = if i % 13 == 0 && ids.len() / 13 < MASKS {
            let k = (i / 13) as i32;
            mask_zone(&format!("mask-{k}"), 100_000 + 300 * k, 100_000)
        } else {
            small_zone(i)
        };
        ids.push(zone.id.clone());
        grpc.register_flat_zone(pb::RegisterFlatZoneRequest {
            world: world.into(),
            zone: Some(zone),
        })
        .await
        .expect("registered");
    }
    ids
}

/// Every page of `world`'s list over gRPC through `client` (with whatever receive
/// limit it has), `page_size` a page: the pages and their encoded sizes.
async fn grpc_pages(
    client: &mut TerrainServiceClient<tonic::transport::Channel>,
    world: &str,
    page_size: i32,
) -> Vec<pb::ListFlatZonesResponse> {
    let mut pages: Vec<pb::ListFlatZonesResponse> = Vec::new();
    let mut token = String::new();
    loop {
        let page = client
            .list_flat_zones(pb::ListFlatZonesRequest {
                world: world.into(),
                page_size,
                page_token: token.clone(),
            })
            .await
            .expect("a page")
            .into_inner();
        if let Some(first) = pages.first() {
            assert_eq!(page.revision, first.revision, "a page of another revision");
            assert_eq!(page.epoch, first.epoch);
        }
        token = page.next_page_token.clone();
        pages.push(page);
        if token.is_empty() {
            return pages;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mask_heavy_list_is_complete_through_every_client() {
    let server = TestServer::start().await;
    let ids = mask_heavy(&server, "main").await;
    let revision = server.revision("main").await;

    // gRPC with the default receive limit (tonic's, as grpcio's: 4 MiB).
    let mut default_client = TerrainServiceClient::new(server.channel().await);
    let pages = grpc_pages(&mut default_client, "main", 0).await;
    let sizes: Vec<usize> = pages.iter().map(Message::encoded_len).collect();
    let total: usize = sizes.iter().sum();
    eprintln!("gRPC pages: {sizes:?} bytes, {total} in all");
    assert!(
        total > DEFAULT_RECEIVE,
        "the whole list is over 4 MiB: {total}"
    );
    assert!(
        sizes.iter().all(|&s| s <= 1024 * 1024 + 64 * 1024),
        "each page about 1 MiB at most: {sizes:?}"
    );
    let listed: Vec<String> = pages
        .iter()
        .flat_map(|p| p.zones.iter().map(|z| z.id.clone()))
        .collect();
    assert_eq!(listed, ids, "every zone once, in registration order");
    assert_eq!(pages[0].revision, revision);
    let masks = pages
        .iter()
        .flat_map(|p| &p.zones)
        .filter(|z| z.tile_mask.len() == 2 * 65_536)
        .count();
    assert_eq!(masks, MASKS, "the masks whole");
    // A page by count: 50 zones at most, never over the byte budget.
    let by_count = grpc_pages(&mut default_client, "main", 50).await;
    assert!(by_count.iter().all(|p| p.zones.len() <= 50));
    assert!(by_count.len() >= (MASKS + SMALL).div_ceil(50));
    let listed: Vec<&str> = by_count
        .iter()
        .flat_map(|p| p.zones.iter().map(|z| z.id.as_str()))
        .collect();
    assert_eq!(listed, ids);

    // The Rust SDK reads every page.
    let mut sdk = server.client().await;
    let list = sdk.list_flat_zones("main").await.expect("the SDK's list");
    let sdk_ids: Vec<&str> = list.zones.iter().map(|e| e.zone.id.as_str()).collect();
    assert_eq!(sdk_ids, ids);
    assert_eq!(list.revision, revision);
    assert_eq!(list.epoch, pages[0].epoch);
    let first = sdk
        .list_flat_zones_page("main", 7, "")
        .await
        .expect("a page");
    assert_eq!(first.list.zones.len(), 7);
    assert!(!first.next_page_token.is_empty());

    // Its replica loads every zone, masks included, and answers as the server does.
    let replica = LocalTerrain::open(sdk.clone(), "main").await.expect("open");
    let snapshot = replica.snapshot();
    assert_eq!(snapshot.terrain().zones().len(), ids.len());
    assert_eq!(snapshot.revision(), revision);
    let points = [(100_010.5, 100_020.5), (-5_000.0, -5_000.0), (0.0, 0.0)];
    let heights = sdk.heights("main", &points).await.expect("heights");
    for (&(x, z), want) in points.iter().zip(&heights.heights) {
        let got = snapshot.height_at(x, z).expect("in range");
        assert_eq!(got.to_bits(), want.to_bits(), "({x}, {z})");
    }
    assert_eq!(heights.heights[0], 30.0, "the mask's core");
    drop(replica);

    // HTTP, as curl would: follow nextPageToken.
    let pages = server.zone_pages("main", "").await;
    let sizes: Vec<usize> = pages.iter().map(|p| p.to_string().len()).collect();
    let total: usize = sizes.iter().sum();
    eprintln!("HTTP pages: {sizes:?} bytes, {total} in all");
    assert!(total > DEFAULT_RECEIVE, "{total}");
    assert!(
        sizes.iter().all(|&s| s <= 1024 * 1024 + 64 * 1024),
        "each page about 1 MiB at most: {sizes:?}"
    );
    let (zones, listed_revision) = server.zone_list("main", "").await;
    let http_ids: Vec<&str> = zones.iter().map(|z| z["id"].as_str().unwrap()).collect();
    assert_eq!(http_ids, ids);
    assert_eq!(listed_revision, revision);
    server.stop().await;
}

/// The ids of a JSON zone page.
fn page_ids(page: &Value) -> Vec<String> {
    page["zones"]
        .as_array()
        .expect("zones")
        .iter()
        .map(|z| z["id"].as_str().unwrap().to_string())
        .collect()
}

async fn put(server: &TestServer, id: &str, x: f64) {
    let body = json!({"centerX": x, "centerZ": 40.0, "width": 6.0, "depth": 6.0,
                      "height": 5.0, "blendRadius": 1.0});
    let (status, answer) = server
        .put_json(&format!("/v1/worlds/main/flat-zones/{id}"), &body, None)
        .await;
    assert_eq!(status, 200, "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_is_of_the_first_page_s_revision_while_zones_change() {
    let server = TestServer::start().await;
    for i in 0..10 {
        put(&server, &format!("z{i}"), 10.0 * f64::from(i)).await;
    }
    let (before, revision) = server.zone_list("main", "").await;
    let before: Vec<&str> = before.iter().map(|z| z["id"].as_str().unwrap()).collect();

    // HTTP: the first page, then changes, then the rest.
    let (status, first) = server.get("/v1/worlds/main/flat-zones?pageSize=4").await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["revision"], revision);
    let token = first["nextPageToken"].as_str().unwrap().to_string();
    // gRPC: the same.
    let mut grpc = server.grpc().await;
    let grpc_first = grpc
        .list_flat_zones(pb::ListFlatZonesRequest {
            world: "main".into(),
            page_size: 4,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner();

    // Replace z1 (it moves to the end), remove z6, add z10.
    put(&server, "z1", 500.0).await;
    let (status, _) = server.delete("/v1/worlds/main/flat-zones/z6", None).await;
    assert_eq!(status, 200);
    put(&server, "z10", 600.0).await;
    assert_eq!(server.revision("main").await, revision + 3);

    let mut ids = page_ids(&first);
    let mut token = token;
    while !token.is_empty() {
        let url = format!("/v1/worlds/main/flat-zones?pageSize=4&pageToken={token}");
        let (status, page) = server.get(&url).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page["revision"], revision, "the listing's revision");
        ids.extend(page_ids(&page));
        token = page["nextPageToken"].as_str().unwrap().to_string();
    }
    assert_eq!(
        ids, before,
        "the list as it was at the first page's revision"
    );

    let mut ids: Vec<String> = grpc_first.zones.iter().map(|z| z.id.clone()).collect();
    let mut token = grpc_first.next_page_token;
    while !token.is_empty() {
        let page = grpc
            .list_flat_zones(pb::ListFlatZonesRequest {
                world: "main".into(),
                page_size: 4,
                page_token: token,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(page.revision, revision);
        ids.extend(page.zones.iter().map(|z| z.id.clone()));
        token = page.next_page_token;
    }
    assert_eq!(ids, before);

    // A fresh listing is of the current revision.
    let (now, now_revision) = server.zone_list("main", "pageSize=4").await;
    assert_eq!(now_revision, revision + 3);
    let now: Vec<&str> = now.iter().map(|z| z["id"].as_str().unwrap()).collect();
    assert_eq!(
        now,
        ["z0", "z2", "z3", "z4", "z5", "z7", "z8", "z9", "z1", "z10"]
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_the_history_no_longer_reaches_says_to_list_again() {
    let server = TestServer::start_with(|c| c.limits.asof_revisions = 2).await;
    for i in 0..4 {
        put(&server, &format!("z{i}"), 10.0 * f64::from(i)).await;
    }
    let (status, first) = server.get("/v1/worlds/main/flat-zones?pageSize=1").await;
    assert_eq!(status, 200, "{first}");
    let token = first["nextPageToken"].as_str().unwrap().to_string();
    for i in 4..7 {
        put(&server, &format!("z{i}"), 10.0 * f64::from(i)).await;
    }
    let (status, body) = server
        .get(&format!(
            "/v1/worlds/main/flat-zones?pageSize=1&pageToken={token}"
        ))
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "FAILED_PRECONDITION");
    assert_eq!(body["error"]["field"], "pageToken");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("pageToken: "), "{message}");
    assert!(
        message.contains("list again from the first page"),
        "{message}"
    );
    let mut grpc = server.grpc().await;
    let status = grpc
        .list_flat_zones(pb::ListFlatZonesRequest {
            world: "main".into(),
            page_size: 1,
            page_token: token.clone(),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert!(status.message().starts_with("page_token: "), "{status:?}");
    let bad = status.get_details_bad_request().expect("BadRequest");
    assert_eq!(bad.field_violations[0].field, "page_token");

    // Malformed tokens and sizes, named.
    for (query, field) in [
        ("pageToken=nonsense", "pageToken"),
        ("pageToken=z1.1.0.00.other", "pageToken"),
        ("pageSize=-1", "pageSize"),
        ("pageSize=1001", "pageSize"),
        ("pageSize=ten", "pageSize"),
        ("pageSize=1&pageSize=2", "pageSize"),
    ] {
        let (status, body) = server
            .get(&format!("/v1/worlds/main/flat-zones?{query}"))
            .await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["error"]["field"], field, "{query}: {body}");
    }
    // The largest page size and the default are served.
    let (status, body) = server.get("/v1/worlds/main/flat-zones?pageSize=1000").await;
    assert_eq!((status.as_u16(), &body["nextPageToken"]), (200, &json!("")));
    let (status, body) = server.get("/v1/worlds/main/flat-zones?pageSize=0").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(page_ids(&body).len(), 7);
    server.stop().await;
}

/// The largest legal zone in bytes: a mask of 65,536 tiles (the most a mask holds)
/// at indices of nine digits and a sign, in a 260 m rectangle near -1e9 (the default
/// `max_coordinate`). Registered, it is listed on a page that a default client
/// receives, over gRPC (0.66 MB) and HTTP (1.6 MB, alone: over the byte budget).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_legal_zone_fits_a_page_a_default_client_receives() {
    let server = TestServer::start().await;
    let x0 = -999_999_700;
    let tiles: Vec<[i64; 2]> = (0..256)
        .flat_map(|i| (0..256).map(move |j| [x0 + i, x0 + j]))
        .collect();
    let centre = x0 as f64 + 128.0;
    let body = json!({"centerX": centre, "centerZ": centre, "width": 260.0, "depth": 260.0,
                      "height": 20.0, "blendRadius": 10.0, "tileMask": tiles});
    let (status, answer) = server
        .put_json("/v1/worlds/main/flat-zones/largest", &body, None)
        .await;
    assert_eq!(
        status,
        200,
        "{}",
        &answer.to_string()[..200.min(answer.to_string().len())]
    );
    put(&server, "after", 0.0).await;

    let mut default_client = TerrainServiceClient::new(server.channel().await);
    let pages = grpc_pages(&mut default_client, "main", 0).await;
    let sizes: Vec<usize> = pages.iter().map(Message::encoded_len).collect();
    eprintln!("gRPC pages of the largest zone: {sizes:?}");
    // Under the byte budget in protobuf: the next zone joins it.
    assert_eq!(pages[0].zones[0].id, "largest");
    assert_eq!(pages[0].zones[0].tile_mask.len(), 2 * 65_536);
    assert!(sizes[0] < DEFAULT_RECEIVE, "{sizes:?}");
    let pages = server.zone_pages("main", "").await;
    let sizes: Vec<usize> = pages.iter().map(|p| p.to_string().len()).collect();
    eprintln!("HTTP pages of the largest zone: {sizes:?}");
    // Over it in JSON: alone on its page, the next zone on the next.
    assert_eq!(page_ids(&pages[0]), ["largest"]);
    assert_eq!(page_ids(&pages[1]), ["after"]);
    assert!(
        sizes[0] > 1024 * 1024 && sizes[0] < DEFAULT_RECEIVE,
        "{sizes:?}"
    );
    server.stop().await;
}

/// Python's grpcio with its defaults (4 MiB receive limit) lists the mask-heavy world
/// complete, page by page (`tests/python/default_clients.py --zones`; needs `pip
/// install websockets grpcio`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs python3 with websockets and grpcio: run with -- --ignored --nocapture"]
async fn python_default_clients_list_a_mask_heavy_world() {
    let server = TestServer::start().await;
    let ids = mask_heavy(&server, "main").await;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("python/default_clients.py");
    let addr = server.addr.to_string();
    let expected = ids.len().to_string();
    let output = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::task::spawn_blocking(move || {
            std::process::Command::new("python3")
                .arg(script)
                .arg(addr)
                .arg("main")
                .arg("--zones")
                .arg(expected)
                .output()
                .expect("python3 runs")
        }),
    )
    .await
    .expect("in time")
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "a default client failed: {stdout}");
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["zones"], ids.len(), "{report}");
    assert!(report["pages"].as_u64().unwrap() > 1, "{report}");
    assert!(
        report["bytes"].as_u64().unwrap() > DEFAULT_RECEIVE as u64,
        "{report}"
    );
    assert!(
        report["largestPage"].as_u64().unwrap() < DEFAULT_RECEIVE as u64,
        "{report}"
    );
    server.stop().await;
}
