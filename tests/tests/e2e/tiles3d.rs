//! The 3D Tiles tileset of a world against the real server: the tileset document
//! (3D Tiles 1.1, implicit quadtree, geometric errors halving per level, the root box
//! holding every height), the binary subtree, every content of every level a valid
//! glb (the Khronos validator) inside the root box with fewer triangles than the
//! full-detail tiles it covers, the finest level the full-detail tile meshes
//! themselves; a zone change retags exactly the contents covering its tiles; bad
//! paths are refused naming their field.

use std::path::PathBuf;

use terrain_tests as common;

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
    assert_eq!(&subtree[..4], b"subt");
    let json_len = u64::from_le_bytes(subtree[8..16].try_into().unwrap()) as usize;
    let doc: Value = serde_json::from_slice(&subtree[24..24 + json_len]).unwrap();
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

    // A zone near the origin: exactly the contents over its tiles change tags.
    let zone = json!({"centerX": 20.0, "centerZ": 30.0, "width": 16.0, "depth": 16.0,
                      "heightOffset": 4.0, "blendRadius": 2.0});
    let (status, answer) = server
        .put_json("/v1/worlds/main/flat-zones/plaza", &zone, None)
        .await;
    assert!(status.is_success(), "{answer}");
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
    }
    assert!(
        retagged >= 3,
        "the root, a level-1 content and a tile: {retagged}"
    );
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
