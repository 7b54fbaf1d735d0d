//! The 3D Tiles tileset of a world against the real server: the tileset document
//! (3D Tiles 1.1, implicit quadtree, geometric errors halving per level, the root box
//! holding every height), the binary subtree, every content of every level a valid
//! glb (the Khronos validator) inside the root box with fewer triangles than the
//! full-detail tiles it covers, the finest level the full-detail tile meshes
//! themselves; a zone change retags exactly the contents covering its tiles; bad
//! paths are refused naming their field.

use std::{
    path::PathBuf,
    time::{Duration, Instant},
};

use terrain_tests as common;

use common::events::{grpc_tile_event, revision, subscribe_both, ws_connect, ws_event};
use common::tiles3d::{check_subtree, check_tileset};
use common::voxel::validate_glb;
use common::*;
use serde_json::{Value, json};
use terrain_core::{
    Overlap,
    mesh::{build_tile, to_glb},
    tile::TileRect,
    tiles3d::TilesetLayout,
};

const BASE: &str = "/v1/worlds/main/3dtiles";

fn small(c: &mut terrain_server::config::Config) {
    c.worlds[0].tileset_extent = 400.0;
}

/// Every content `(level, x, y)` of a tileset of `levels` levels below the root.
fn contents(levels: u32) -> Vec<(u32, u64, u64)> {
    (0..=levels)
        .flat_map(|l| {
            let n = 1u64 << l;
            (0..n * n).map(move |k| (l, k % n, k / n))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tileset_serves_every_level_and_follows_zones() {
    let server = TestServer::start_with(small).await;
    let generator = main_generator();
    let layout = TilesetLayout::covering(generator.tile_grid(), 400.0, 0.25);
    assert_eq!(layout.levels, 2);

    let (status, tileset) = server.get(&format!("{BASE}/tileset.json")).await;
    assert_eq!(status, 200, "{tileset}");
    check_tileset(&tileset);
    assert_eq!(tileset["asset"]["version"], "1.1");
    let root = &tileset["root"];
    assert_eq!(root["refine"], "REPLACE");
    assert_eq!(root["geometricError"], 1.0);
    assert!(num(&tileset["geometricError"]) > num(&root["geometricError"]));
    let implicit = &root["implicitTiling"];
    assert_eq!(implicit["subdivisionScheme"], "QUADTREE");
    assert_eq!(implicit["availableLevels"], 3);
    assert_eq!(implicit["subtreeLevels"], 3);
    assert_eq!(
        implicit["subtrees"]["uri"],
        "subtrees/{level}.{x}.{y}.subtree"
    );
    assert_eq!(root["content"]["uri"], "content/{level}/{x}/{y}.glb");
    let bbox = nums(&root["boundingVolume"]["box"]);
    assert_eq!(bbox.len(), 12);
    // The box: x over -200..200 m, tileset y (world -z) likewise, z up over the heights.
    assert!(
        (bbox[3] - 198.4).abs() < 2.0 && (bbox[7] - 198.4).abs() < 2.0,
        "{bbox:?}"
    );
    let (lo, hi) = (bbox[2] - bbox[11], bbox[2] + bbox[11]);

    // The subtree: header and availability.
    let (status, _, subtree) = server
        .get_tagged(&format!("{BASE}/subtrees/0.0.0.subtree"), None)
        .await;
    assert_eq!(status, 200);
    let doc = check_subtree(&subtree);
    assert_eq!(doc["tileAvailability"]["constant"], 1);
    assert_eq!(doc["contentAvailability"][0]["constant"], 1);
    assert_eq!(doc["childSubtreeAvailability"]["constant"], 0);

    // Every content: a valid glb inside the box, coarser above.
    let core = terrain(&generator, Overlap::Layered, &[]);
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut tags = Vec::new();
    for (l, x, y) in contents(2) {
        let path = format!("{BASE}/content/{l}/{x}/{y}.glb");
        let (status, tag, body) = server.get_tagged(&path, None).await;
        assert_eq!(status, 200, "{path}");
        assert!(tag.contains(&format!(":3dtiles:{l}:{x}:{y}:v")), "{tag}");
        let doc = gltf::Gltf::from_slice(&body).expect("a glb");
        let blob = doc.blob.as_deref().unwrap();
        let node = doc.nodes().next().unwrap();
        let t = node.transform().decomposed().0;
        let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
        let reader = prim.reader(|_| Some(blob));
        let ys: Vec<f32> = reader
            .read_positions()
            .unwrap()
            .map(|p| p[1] + t[1])
            .collect();
        let tris = reader.read_indices().unwrap().into_u32().count() / 3;
        assert!(
            ys.iter()
                .all(|&y| f64::from(y) >= lo - 1e-3 && f64::from(y) <= hi + 1e-3)
        );
        let key = layout.from_tileset(l, x, y).unwrap();
        let covered = layout.tiles(key).len() as usize;
        if l == 2 {
            // The full-detail tile mesh itself.
            let r = layout.tiles(key);
            let want = to_glb(&build_tile(&core, (r.min_tx, r.min_tz), 0)).unwrap();
            assert!(
                body == want,
                "content {l}/{x}/{y} is tile ({}, {})",
                r.min_tx,
                r.min_tz
            );
        } else {
            assert!(
                tris < covered * 7938 / 4,
                "content {l}/{x}/{y}: {tris} triangles"
            );
        }
        let file = dir.path().join(format!("{l}_{x}_{y}.glb"));
        std::fs::write(&file, &body).unwrap();
        files.push(file);
        tags.push(((l, x, y), tag));
    }
    validate_glb(&files);

    // A zone near the origin: exactly the contents over its tiles change tags, and
    // its event names them, live on both surfaces and when resumed.
    let (mut ws, _events, mut stream) = subscribe_both(&server, "main").await;
    let zone = json!({"centerX": 20.0, "centerZ": 30.0, "width": 16.0, "depth": 16.0,
                      "heightOffset": 4.0, "blendRadius": 2.0});
    let (status, answer) = server
        .put_json("/v1/worlds/main/flat-zones/plaza", &zone, None)
        .await;
    assert!(status.is_success(), "{answer}");
    let live = ws_event(&mut ws).await;
    assert_eq!(live["revision"], answer["revision"], "{live}");
    let mut resumed = ws_connect(
        &server,
        "main",
        &format!("fromRevision={}", revision(&live) - 1),
    )
    .await;
    let replayed = ws_event(&mut resumed).await;
    assert_eq!(replayed["revision"], live["revision"]);
    // `[level, minX, minY, maxX, maxY]`.
    let named_json = |event: &Value| -> Vec<[u64; 5]> {
        event["tilesetContents"]
            .as_array()
            .expect("tilesetContents")
            .iter()
            .map(|c| std::array::from_fn(|i| c[i].as_u64().expect("an index")))
            .collect()
    };
    let named = named_json(&live);
    assert_eq!(named_json(&replayed), named);
    let grpc: Vec<[u64; 5]> = grpc_tile_event(&mut stream)
        .await
        .tileset_contents
        .iter()
        .map(|c| [u64::from(c.level), c.min_x, c.min_y, c.max_x, c.max_y])
        .collect();
    assert_eq!(grpc, named);
    let is_named = |(l, x, y): (u32, u64, u64)| {
        named.iter().any(|&[nl, x0, y0, x1, y1]| {
            nl == u64::from(l) && (x0..=x1).contains(&x) && (y0..=y1).contains(&y)
        })
    };
    let changed: Vec<(i64, i64)> = answer["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t[0].as_i64().unwrap(), t[1].as_i64().unwrap()))
        .collect();
    assert!(!changed.is_empty());
    let mut retagged = 0;
    for ((l, x, y), tag) in &tags {
        let key = layout.from_tileset(*l, *x, *y).unwrap();
        let r: TileRect = layout.tiles(key);
        let covers = changed.iter().any(|&t| r.contains(t));
        let path = format!("{BASE}/content/{l}/{x}/{y}.glb");
        let (status, new_tag, _) = server.get_tagged(&path, Some(tag)).await;
        if covers {
            assert_eq!(status, 200, "{path} covers the zone");
            assert_ne!(&new_tag, tag);
            retagged += 1;
        } else {
            assert_eq!(status, 304, "{path} does not cover the zone");
        }
        assert_eq!(
            is_named((*l, *x, *y)),
            covers,
            "{path} in the event: {named:?}"
        );
    }
    assert!(
        retagged >= 3,
        "the root, a level-1 content and a tile: {retagged}"
    );
    server.stop().await;
}

/// A cold root (every full-detail height of the island, 128 x 128 tiles) is built in
/// slices the pool takes in turn with other requests: a heightmap asked for meanwhile
/// is answered while the root is still being built, in a fraction of its time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_root_does_not_starve_height_queries() {
    let server = TestServer::start().await;
    let root = {
        let (http, url) = (
            server.http.clone(),
            server.url(&format!("{BASE}/content/0/0/0.glb")),
        );
        tokio::spawn(async move {
            let started = Instant::now();
            let answer = http.get(url).send().await.expect("GET the root");
            let status = answer.status().as_u16();
            (
                status,
                answer.bytes().await.unwrap().len(),
                started.elapsed(),
            )
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let small = server
        .http
        .get(server.url("/v1/worlds/main/heightmap?x0=0&z0=0&nx=128&nz=128&step=2"))
        .send()
        .await
        .unwrap();
    let waited = started.elapsed();
    assert_eq!(small.status(), 200);
    let small_done_first = !root.is_finished();
    let (status, bytes, root_took) = root.await.unwrap();
    assert_eq!(status, 200);
    assert!(bytes > 1000);
    assert!(
        small_done_first && waited * 5 < root_took,
        "the heightmap took {waited:?} while the cold root took {root_took:?}"
    );
    eprintln!("a heightmap took {waited:?} during a cold root of {root_took:?}");
}

/// A first view asks for the tileset, its root and the four level-1 contents at
/// once: every grid they need is made from the terrain once (the island: 32 x 32 grids
/// of 4 x 4 tiles), however the requests interleave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_over_cold_ground_build_each_grid_once() {
    let server = TestServer::start().await;
    let mut paths = vec![
        format!("{BASE}/tileset.json"),
        format!("{BASE}/content/0/0/0.glb"),
    ];
    paths.extend((0..4).map(|i| format!("{BASE}/content/1/{}/{}.glb", i % 2, i / 2)));
    let started = Instant::now();
    let answers = futures::future::join_all(paths.iter().map(|path| {
        let request = server.http.get(server.url(path)).send();
        async move { request.await.expect("GET").status().as_u16() }
    }))
    .await;
    assert!(answers.iter().all(|&s| s == 200), "{answers:?}");
    let built = server.metric("terrain_tiles3d_grids_built_total").await;
    eprintln!(
        "a cold first view: {built} grids built in {:?}",
        started.elapsed()
    );
    assert_eq!(built, 32.0 * 32.0);
    // A level-2 content over the same ground: its samples from the kept grids, and
    // only the four level-6 grids of the one patch it needs (a level-5 sample over
    // the world's zones whose error leaves less than half of level 2's to the
    // simplification) made from the terrain.
    let (status, _, _) = server
        .get_tagged(&format!("{BASE}/content/2/1/1.glb"), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        server.metric("terrain_tiles3d_grids_built_total").await,
        1024.0 + 4.0
    );
}

/// An osrs world's tileset: its square starts at map square (0, 0) and covers 4 x 4
/// map squares here; the finest contents are the map squares' full-detail meshes, the
/// coarser ones valid glbs of fewer triangles whose every vertex is a full-detail
/// vertex at its exact height (or a skirt vertex below one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_osrs_world_serves_its_map_squares_as_a_tileset() {
    let server = TestServer::start_with(|c| {
        plain_config(c);
        c.worlds[1].tileset_extent = 256.0;
    })
    .await;
    let base = "/v1/worlds/old/3dtiles";
    let generator = generator(terrain_core::GeneratorKind::Osrs, 0);
    let grid = generator.tile_grid();
    let mut layout = TilesetLayout::covering(grid, 256.0, 0.25);
    layout.min_tile = (0, 0);
    assert_eq!(layout.levels, 2);
    let (status, tileset) = server.get(&format!("{base}/tileset.json")).await;
    assert_eq!(status, 200, "{tileset}");
    check_tileset(&tileset);
    // The box: x over 0..256 (map squares 0..=3), tileset y (world -z) over -256..0.
    let bbox = nums(&tileset["root"]["boundingVolume"]["box"]);
    assert_eq!(
        (bbox[0], bbox[1], bbox[3], bbox[7]),
        (128.0, -128.0, 128.0, 128.0)
    );
    let (status, _, subtree) = server
        .get_tagged(&format!("{base}/subtrees/0.0.0.subtree"), None)
        .await;
    assert_eq!(status, 200);
    check_subtree(&subtree);

    let core = terrain(&generator, Overlap::Layered, &[]);
    // Every full-detail vertex's height, by world position (whole metres on osrs).
    let mut full = std::collections::HashMap::new();
    for tz in 0..4 {
        for tx in 0..4 {
            let m = build_tile(&core, (tx, tz), 0);
            for p in m.positions.chunks_exact(3) {
                let at = (
                    (f64::from(p[0]) + m.placement[0]) as i64,
                    (f64::from(p[2]) + m.placement[2]) as i64,
                );
                full.insert(at, p[1]);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (l, x, y) in contents(2) {
        let path = format!("{base}/content/{l}/{x}/{y}.glb");
        let (status, tag, body) = server.get_tagged(&path, None).await;
        assert_eq!(status, 200, "{path}");
        assert!(tag.contains(&format!("old:3dtiles:{l}:{x}:{y}:v")), "{tag}");
        let key = layout.from_tileset(l, x, y).unwrap();
        let r = layout.tiles(key);
        if l == 2 {
            let want = to_glb(&build_tile(&core, (r.min_tx, r.min_tz), 0)).unwrap();
            assert!(body == want, "content {path} is map square {r:?}");
        } else {
            let doc = gltf::Gltf::from_slice(&body).expect("a glb");
            let blob = doc.blob.as_deref().unwrap();
            let t = doc.nodes().next().unwrap().transform().decomposed().0;
            let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
            let reader = prim.reader(|_| Some(blob));
            let tris = reader.read_indices().unwrap().into_u32().count() / 3;
            assert!(
                tris < r.len() as usize * 64 * 64 * 2,
                "{path}: {tris} triangles"
            );
            let skirt = terrain_core::mesh::skirt_depth(layout.geometric_error(l));
            for p in reader.read_positions().unwrap() {
                let at = ((p[0] + t[0]).round() as i64, (p[2] + t[2]).round() as i64);
                let (h, y) = (full[&at], p[1] + t[1]);
                assert!(
                    y == h || (f64::from(h - y) - skirt).abs() < 1e-3,
                    "{path}: vertex {p:?} neither at the full-detail height {h} at {at:?} \
                     nor a skirt {skirt} m below it"
                );
            }
        }
        let file = dir.path().join(format!("{l}_{x}_{y}.glb"));
        std::fs::write(&file, &body).unwrap();
        files.push(file);
    }
    validate_glb(&files);
    server.stop().await;
}

#[tokio::test]
async fn bad_tileset_paths_are_refused_naming_the_field() {
    let server = TestServer::start_with(small).await;
    for (path, field) in [
        ("content/3/0/0.glb", "level"),
        ("content/x/0/0.glb", "level"),
        ("content/99999999999/0/0.glb", "level"),
        ("content/1/2/0.glb", "x"),
        ("content/1/-1/0.glb", "x"),
        ("content/1/0/0.png", "file"),
        ("content/1/0/-1.glb", "file"),
        ("subtrees/1.0.0.subtree", "file"),
    ] {
        let answer = server.get(&format!("{BASE}/{path}")).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some(field));
    }
    let answer = server.get("/v1/worlds/nowhere/3dtiles/tileset.json").await;
    assert_eq!(answer.0, 404);
    server.stop().await;
}
