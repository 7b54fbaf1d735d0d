//! The 3D Tiles tileset of a voxel world against the real server: the tileset document
//! over a square of chunks centred on the origin (the root box holding the whole block
//! range), the subtree, every content of every level a glb that passes the Khronos
//! validator and lies in the root box; the finest level byte for byte the chunks' `mesh.glb`;
//! every coarse content within its level's geometric error of the top-block heightfield
//! (`terrain-core`'s height queries) at every block corner under it, coloured by the
//! block seen from above each vertex; a zone change retags exactly the contents over
//! its chunks (the others answer `304`), which then follow the new heights; bad paths
//! are refused naming their field; the default square is 4,096 m centred on the origin.

use std::path::PathBuf;

use terrain_tests as common;

use common::tiles3d::{check_subtree, check_tileset};
use common::voxel::*;
use common::*;
use serde_json::json;
use terrain_core::{
    FlatZone, Generator, GeneratorKind, Terrain, WorldGenerator,
    tiles3d::{ContentKey, TilesetLayout},
    voxel::{CHUNK, base_colour},
};

const BASE: &str = "/v1/worlds/blocks/3dtiles";

/// Four chunks a side: levels 0 to 2.
const EXTENT: f64 = 128.0;

fn small(c: &mut terrain_server::Config) {
    voxel_worlds(c);
    c.worlds[0].tileset_extent = EXTENT;
}

/// The square's layout as the server makes it: chunks -2 to 1 on both axes (centred on
/// the origin), one block of error at the finest level.
fn layout() -> TilesetLayout {
    let generator = WorldGenerator::new(GeneratorKind::Voxel, SEED).unwrap();
    let layout = TilesetLayout::covering(generator.tile_grid(), EXTENT, 1.0);
    assert_eq!(layout.min_tile, (-2, -2));
    layout
}

/// The block at the square's lowest x and z.
fn first_block(layout: &TilesetLayout) -> i64 {
    layout.min_tile.0 * CHUNK
}

/// Every content of the tileset, as tileset `(level, x, y)` and key.
fn contents(layout: &TilesetLayout) -> Vec<((u32, u64, u64), ContentKey)> {
    (0..=layout.levels)
        .flat_map(|l| {
            let n = 1u64 << l;
            (0..n * n).map(move |k| (l, k % n, k / n))
        })
        .map(|(l, x, y)| ((l, x, y), layout.from_tileset(l, x, y).unwrap()))
        .collect()
}

/// A coarse content as served: world positions, triangles and vertex colours.
struct Content {
    positions: Vec<[f64; 3]>,
    triangles: Vec<[usize; 3]>,
    colours: Vec<[f32; 3]>,
}

fn read_content(body: &[u8]) -> Content {
    let doc = gltf::Gltf::from_slice(body).expect("a glb");
    let blob = doc.blob.as_deref().expect("a binary chunk");
    let t = doc.nodes().next().unwrap().transform().decomposed().0;
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob));
    let positions = reader
        .read_positions()
        .unwrap()
        .map(|p| [0, 1, 2].map(|k| f64::from(p[k]) + f64::from(t[k])))
        .collect();
    let indices: Vec<usize> = reader
        .read_indices()
        .unwrap()
        .into_u32()
        .map(|i| i as usize)
        .collect();
    let colours = reader
        .read_colors(0)
        .expect("COLOR_0")
        .into_rgb_f32()
        .collect();
    Content {
        positions,
        triangles: indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect(),
        colours,
    }
}

/// The top-block heights of the square's block corners, row by row from block
/// `(first, first)`.
fn corner_heights(terrain: &Terrain, side: usize, first: i64) -> Vec<f64> {
    (0..side * side)
        .map(|k| {
            let (x, z) = (first + (k % side) as i64, first + (k / side) as i64);
            terrain.height(x as f64, z as f64)
        })
        .collect()
}

/// Checks coarse content `key` (`body`) against `terrain`, whose block corner heights
/// are `heights`: at every corner under the content some surface triangle lies over it
/// and every one within the level's geometric error of the corner's height; every
/// vertex inside the root box and in the colour of the block seen from above its
/// column. Answers the largest distance found.
fn check_coarse(
    layout: &TilesetLayout,
    key: ContentKey,
    body: &[u8],
    terrain: &Terrain,
    heights: &[f64],
    box_heights: (f64, f64),
) -> f64 {
    let c = read_content(body);
    assert_eq!(c.colours.len(), c.positions.len());
    for (p, colour) in c.positions.iter().zip(&c.colours) {
        assert!(
            p[1] >= box_heights.0 && p[1] <= box_heights.1,
            "{key:?}: {p:?}"
        );
        let (x, z) = (p[0].floor() as i64, p[2].floor() as i64);
        let kind = terrain.voxel_column_top(x, z).unwrap().1;
        assert_eq!(*colour, base_colour(kind).map(|v| v as f32), "({x}, {z})");
    }
    let side = (layout.side() as i64 * CHUNK + 1) as usize;
    let first = first_block(layout);
    let r = layout.tiles(key);
    let (x0, x1) = (r.min_tx * CHUNK, (r.max_tx + 1) * CHUNK);
    let (z0, z1) = (r.min_tz * CHUNK, (r.max_tz + 1) * CHUNK);
    let w = (x1 - x0 + 1) as usize;
    let mut covered = vec![false; w * (z1 - z0 + 1) as usize];
    let limit = layout.geometric_error(key.level) + 1e-4;
    let mut worst = 0.0f64;
    for t in &c.triangles {
        let [a, b, v] = t.map(|i| c.positions[i]);
        let d = (b[2] - v[2]) * (a[0] - v[0]) + (v[0] - b[0]) * (a[2] - v[2]);
        if d.abs() < 1e-9 {
            // A skirt: vertical.
            continue;
        }
        let lo = |k: usize| a[k].min(b[k]).min(v[k]).ceil() as i64;
        let hi = |k: usize| a[k].max(b[k]).max(v[k]).floor() as i64;
        for z in lo(2)..=hi(2) {
            for x in lo(0)..=hi(0) {
                let (fx, fz) = (x as f64, z as f64);
                let s = ((b[2] - v[2]) * (fx - v[0]) + (v[0] - b[0]) * (fz - v[2])) / d;
                let u = ((v[2] - a[2]) * (fx - v[0]) + (a[0] - v[0]) * (fz - v[2])) / d;
                let q = 1.0 - s - u;
                if s < -1e-9 || u < -1e-9 || q < -1e-9 {
                    continue;
                }
                assert!(
                    (x0..=x1).contains(&x) && (z0..=z1).contains(&z),
                    "{key:?}: a triangle over ({x}, {z}), beyond its square"
                );
                let surface = s * a[1] + u * b[1] + q * v[1];
                let h = heights[(z - first) as usize * side + (x - first) as usize];
                let e = (surface - h).abs();
                assert!(
                    e <= limit,
                    "{key:?}: {e} m from the top blocks at ({x}, {z})"
                );
                worst = worst.max(e);
                covered[(z - z0) as usize * w + (x - x0) as usize] = true;
            }
        }
    }
    if let Some(k) = covered.iter().position(|&c| !c) {
        panic!(
            "{key:?}: no triangle over ({}, {})",
            x0 + (k % w) as i64,
            z0 + (k / w) as i64
        );
    }
    worst
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_voxel_tileset_is_chunk_meshes_under_top_block_heightfields() {
    let server = TestServer::start_with(small).await;
    let layout = layout();
    assert_eq!((layout.levels, layout.side()), (2, 4));
    let max_height = f64::from(voxel_config().max_height);

    let (status, tileset) = server.get(&format!("{BASE}/tileset.json")).await;
    assert_eq!(status, 200, "{tileset}");
    check_tileset(&tileset);
    assert_eq!(tileset["asset"]["version"], "1.1");
    let root = &tileset["root"];
    // One block at the chunks, doubling per level.
    assert_eq!(root["geometricError"], 4.0);
    assert_eq!(root["implicitTiling"]["availableLevels"], 3);
    assert_eq!(root["content"]["uri"], "content/{level}/{x}/{y}.glb");
    // The box: x over -64..64 m, tileset y (world -z) over -64..64, z up over every
    // block (0 to max_height) and the root's skirt (8 m) below.
    let bbox = nums(&root["boundingVolume"]["box"]);
    assert_eq!(&bbox[..4], &[0.0, 0.0, (max_height - 8.0) / 2.0, 64.0]);
    assert_eq!((bbox[7], bbox[11]), (64.0, (max_height + 8.0) / 2.0));
    let box_heights = (bbox[2] - bbox[11], bbox[2] + bbox[11]);

    let (status, _, subtree) = server
        .get_tagged(&format!("{BASE}/subtrees/0.0.0.subtree"), None)
        .await;
    assert_eq!(status, 200);
    let doc = check_subtree(&subtree);
    assert_eq!(doc["tileAvailability"]["constant"], 1);
    assert_eq!(doc["contentAvailability"][0]["constant"], 1);

    let side = (layout.side() as i64 * CHUNK + 1) as usize;
    let terrain = voxel_terrain(&[]);
    let heights = corner_heights(&terrain, side, first_block(&layout));
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut tags = Vec::new();
    for ((l, x, y), key) in contents(&layout) {
        let path = format!("{BASE}/content/{l}/{x}/{y}.glb");
        let (status, tag, body) = server.get_tagged(&path, None).await;
        assert_eq!(status, 200, "{path}");
        assert!(tag.contains(&format!(":3dtiles:{l}:{x}:{y}:v0")), "{tag}");
        if l == layout.levels {
            let r = layout.tiles(key);
            let chunk = format!(
                "/v1/worlds/{VOXEL}/tiles/{}/{}/mesh.glb",
                r.min_tx, r.min_tz
            );
            let (status, _, want) = server.get_tagged(&chunk, None).await;
            assert_eq!(status, 200);
            assert!(body == want, "{path} is not {chunk}");
            // And it is terrain-core's greedy mesh of the chunk.
            let core = terrain.voxel_mesh(r.min_tx, r.min_tz).unwrap();
            let doc = gltf::Gltf::from_slice(&body).expect("a glb");
            let t = doc.nodes().next().unwrap().transform().decomposed().0;
            let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
            let blob = doc.blob.as_deref().unwrap();
            let opaque: Vec<[f32; 3]> = prim
                .reader(|_| Some(blob))
                .read_positions()
                .unwrap()
                .map(|p| [p[0] + t[0], p[1] + t[1], p[2] + t[2]])
                .collect();
            assert!(opaque == core.opaque.positions, "{path}: opaque positions");
            let ys = read_positions_y(&body);
            assert!(!ys.is_empty());
            assert!(ys.iter().all(|&y| y >= box_heights.0 && y <= box_heights.1));
        } else {
            let worst = check_coarse(&layout, key, &body, &terrain, &heights, box_heights);
            eprintln!(
                "content {l}/{x}/{y}: {worst} m of {}",
                layout.geometric_error(l)
            );
        }
        let file = dir.path().join(format!("{l}_{x}_{y}.glb"));
        std::fs::write(&file, &body).unwrap();
        files.push(file);
        tags.push(((l, x, y), key, tag));
    }
    validate_glb(&files);

    // A raised pad inside chunk (1, 1): the contents over that chunk change tags, and
    // follow the new heights; the others revalidate.
    let zone = json!({"centerX": 48.0, "centerZ": 48.0, "width": 8.0, "depth": 8.0,
                      "height": 50.0, "blendRadius": 2.0});
    let (status, answer) = server
        .put_json(&format!("/v1/worlds/{VOXEL}/flat-zones/pad"), &zone, None)
        .await;
    assert!(status.is_success(), "{answer}");
    let revision = answer["revision"].as_u64().unwrap();
    let changed: Vec<(i64, i64)> = answer["tiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t[0].as_i64().unwrap(), t[1].as_i64().unwrap()))
        .collect();
    assert_eq!(changed, [(1, 1)]);
    let generator = WorldGenerator::new(GeneratorKind::Voxel, SEED).unwrap();
    let zones: Vec<FlatZone> = vec![resolve(&generator, "pad", &zone)];
    let terrain = voxel_terrain(&zones);
    assert_eq!(terrain.height(48.5, 48.5), 50.0);
    let heights = corner_heights(&terrain, side, first_block(&layout));
    let mut retagged = Vec::new();
    for ((l, x, y), key, tag) in &tags {
        let path = format!("{BASE}/content/{l}/{x}/{y}.glb");
        let (status, new_tag, body) = server.get_tagged(&path, Some(tag)).await;
        if !changed.iter().any(|&t| layout.tiles(*key).contains(t)) {
            assert_eq!((status, body.len()), (304, 0), "{path} is not over the pad");
            continue;
        }
        assert_eq!(status, 200, "{path} is over the pad");
        assert!(new_tag.ends_with(&format!(":v{revision}\"")), "{new_tag}");
        if *l == layout.levels {
            let chunk = format!("/v1/worlds/{VOXEL}/tiles/1/1/mesh.glb");
            let (_, _, want) = server.get_tagged(&chunk, None).await;
            assert!(body == want, "{path} is not {chunk}");
        } else {
            check_coarse(&layout, *key, &body, &terrain, &heights, box_heights);
        }
        retagged.push((*l, *x, *y));
    }
    // The root, the level-1 content over chunks 0..1 x 0..1 (tileset x 1, y 0) and the
    // chunk (tileset x 3, y 0: the square's last row of chunks along z is tileset row 0).
    assert_eq!(retagged, [(0, 0, 0), (1, 1, 0), (2, 3, 0)]);
    server.stop().await;
}

/// The heights of every vertex of every primitive of a glb, in world metres.
fn read_positions_y(body: &[u8]) -> Vec<f64> {
    let doc = gltf::Gltf::from_slice(body).expect("a glb");
    let blob = doc.blob.as_deref().unwrap_or_default();
    let ty = f64::from(doc.nodes().next().unwrap().transform().decomposed().0[1]);
    doc.meshes()
        .flat_map(|m| m.primitives().collect::<Vec<_>>())
        .flat_map(|p| {
            let reader = p.reader(|_| Some(blob));
            reader
                .read_positions()
                .map(|ps| ps.map(|p| f64::from(p[1]) + ty).collect::<Vec<_>>())
                .unwrap_or_default()
        })
        .collect()
}

#[tokio::test]
async fn bad_voxel_tileset_paths_are_refused_naming_the_field() {
    let server = TestServer::start_with(small).await;
    for (path, field) in [
        ("content/3/0/0.glb", "level"),
        ("content/1/2/0.glb", "x"),
        // y is the path's `{y}.glb` segment: the field is that parameter, `file`.
        ("content/1/0/2.glb", "file"),
        ("content/2/0/0.png", "file"),
        ("subtrees/0.1.0.subtree", "file"),
    ] {
        let answer = server.get(&format!("{BASE}/{path}")).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some(field));
    }
    let answer = server
        .get("/v1/worlds/nowhere/3dtiles/content/0/0/0.glb")
        .await;
    assert_eq!(answer.0, 404);
    server.stop().await;
}

#[tokio::test]
async fn the_default_voxel_square_is_4096_m_centred_on_the_origin() {
    let server = TestServer::start_with(voxel_worlds).await;
    let (status, tileset) = server.get(&format!("{BASE}/tileset.json")).await;
    assert_eq!(status, 200, "{tileset}");
    check_tileset(&tileset);
    let root = &tileset["root"];
    // 128 x 128 chunks: 7 levels below the root, 1 m at the chunks.
    assert_eq!(root["implicitTiling"]["availableLevels"], 8);
    assert_eq!(root["geometricError"], 128.0);
    let bbox = nums(&root["boundingVolume"]["box"]);
    assert_eq!(
        [bbox[0], bbox[1], bbox[3], bbox[7]],
        [0.0, 0.0, 2048.0, 2048.0]
    );
    server.stop().await;
}
