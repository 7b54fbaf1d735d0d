//! A square over 128 x 128 tiles (1,000 km of the island of seed 1, which has
//! mountains): its coarse levels take their samples from sampled grids, so each tile's
//! geometric error is declared in the subtrees (`TILE_GEOMETRIC_ERROR` metadata): its
//! level's where that is proven, more where the ground's proven height span is
//! larger. Every value the server declares is terrain-core's `declared_error`, before
//! and after a zone far above the sea; the root box holds the proven height range;
//! subtrees revalidate by ETag, change exactly where a zone reaches, and bad subtree
//! names are refused naming `file`.

use terrain_tests as common;

use common::tiles3d::{check_tileset, subtree_tile_errors};
use common::*;
use serde_json::{Value, json};
use terrain_core::tiles3d::{ContentKey, TilesetLayout, declared_error, exact_below};
use terrain_core::zones::Shape;
use terrain_core::{FlatZone, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};
use terrain_server::config::WorldConfig;

const BASE: &str = "/v1/worlds/big/3dtiles";
const SEED: u32 = 1;

/// The tiles of the subtree rooted at tileset `(level, x, y)` in the subtree's order:
/// level by level, Morton order within a level (x in the even bits).
fn subtree_tiles(l: &TilesetLayout, root: (u32, u64, u64), levels: u32) -> Vec<ContentKey> {
    let mut out = Vec::new();
    for d in 0..levels.min(l.levels + 1 - root.0) {
        for m in 0..1u64 << (2 * d) {
            let bit = |b: u32, odd: u64| (m >> (2 * b as u64 + odd)) & 1;
            let x: u64 = (0..d).map(|b| bit(b, 0) << b).sum();
            let y: u64 = (0..d).map(|b| bit(b, 1) << b).sum();
            let key = l
                .from_tileset(root.0 + d, (root.1 << d) + x, (root.2 << d) + y)
                .expect("a tile of the tileset");
            out.push(key);
        }
    }
    out
}

fn pad() -> FlatZone {
    FlatZone {
        id: "pad".into(),
        center_x: -400_000.0,
        center_z: -400_000.0,
        shape: Shape::Circle { radius: 10.0 },
        height: 200.0,
        blend_radius: 5.0,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    }
}

/// A server with world `main` and `big`, the 1,000 km island of [`SEED`].
async fn big_world() -> TestServer {
    TestServer::start_with(|c| {
        let mut big = WorldConfig::new("big", GeneratorKind::Hyperscape, SEED);
        big.tileset_extent = 1_000_000.0;
        c.worlds = vec![WorldConfig::new("main", GeneratorKind::Hyperscape, 0), big];
        c.lifecycle.warm_radius = None;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampled_levels_declare_what_the_ground_proves() {
    let server = big_world().await;
    let generator = WorldGenerator::new(GeneratorKind::Hyperscape, SEED).unwrap();
    let layout = TilesetLayout::covering(generator.tile_grid(), 1_000_000.0, 0.25)
        .with_exact_below(exact_below(&generator));
    let mut core = Terrain::new(generator, ZoneSet::new(Overlap::Layered, 100.0));

    // The tileset: subtrees of 7 levels, the schema's one property, the root's error
    // and a box over the proven height range (the island of seed 1: -41.25 to
    // 46.5 m), its bottom lowered by the root's skirt.
    let (status, _, body) = server
        .get_tagged(&format!("{BASE}/tileset.json"), None)
        .await;
    assert_eq!(status, 200);
    let doc: Value = serde_json::from_slice(&body).unwrap();
    check_tileset(&doc);
    assert_eq!(doc["root"]["implicitTiling"]["subtreeLevels"], 7);
    assert_eq!(doc["root"]["geometricError"], 4096.0);
    let property = &doc["schema"]["classes"]["tile"]["properties"]["geometricError"];
    assert_eq!(
        (&property["semantic"], &property["componentType"]),
        (&json!("TILE_GEOMETRIC_ERROR"), &json!("FLOAT64"))
    );
    let bbox: Vec<f64> =
        serde_json::from_value(doc["root"]["boundingVolume"]["box"].clone()).unwrap();
    let (top, bottom) = (bbox[2] + bbox[11], bbox[2] - bbox[11]);
    assert!((top - 46.5).abs() < 1e-3, "{bbox:?}");
    assert!((bottom - (-41.25 - 2.0 * 4096.0)).abs() < 1e-3, "{bbox:?}");

    // The top subtree: every tile's error is core's, the island's level-6 content
    // declares its span, the sea around it its level's error.
    let top_path = format!("{BASE}/subtrees/0.0.0.subtree");
    let (status, top_tag, file) = server.get_tagged(&top_path, None).await;
    assert_eq!(status, 200);
    assert!(top_tag.contains(":3dtiles:subtree:0:0:0:v"), "{top_tag}");
    let tiles = subtree_tiles(&layout, (0, 0, 0), 7);
    let expected = |t: &Terrain| -> Vec<f64> {
        tiles
            .iter()
            .map(|&k| declared_error(&layout, t, k))
            .collect()
    };
    let errors = subtree_tile_errors(&file).expect("tile metadata");
    assert_eq!(errors, expected(&core));
    let at = |level: u32, ix: u64, iz: u64| {
        tiles
            .iter()
            .position(|k| *k == ContentKey { level, ix, iz })
            .unwrap()
    };
    let island = at(6, 32, 32);
    assert!(
        (87.75..87.76).contains(&errors[island]),
        "{}",
        errors[island]
    );
    assert_eq!(errors[at(6, 16, 16)], 64.0);
    assert_eq!(errors[0], 4096.0);
    let (status, _, _) = server.get_tagged(&top_path, Some(&top_tag)).await;
    assert_eq!(status, 304, "an unchanged subtree revalidates");

    // A subtree of proven levels (7 to 13): their own errors, 32 m down to 0.5 m.
    let child_path = format!("{BASE}/subtrees/7.64.63.subtree");
    let (status, child_tag, file) = server.get_tagged(&child_path, None).await;
    assert_eq!(status, 200);
    let errors = subtree_tile_errors(&file).expect("tile metadata");
    let child_tiles = subtree_tiles(&layout, (7, 64, 63), 7);
    assert_eq!(errors.len(), child_tiles.len());
    for (e, k) in errors.iter().zip(&child_tiles) {
        assert_eq!(*e, layout.geometric_error(k.level), "{k:?}");
    }
    // The deepest: one level of the subtree's seven, the full-detail tiles.
    let (status, _, file) = server
        .get_tagged(&format!("{BASE}/subtrees/14.9.9.subtree"), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(subtree_tile_errors(&file).unwrap(), [0.25]);

    // A zone 200 m up far out at sea: the content under it declares the span from the
    // ocean floor to the zone; the top subtree changes, one far from it does not.
    let (status, answer) = server
        .put_json(
            "/v1/worlds/big/flat-zones/pad",
            &json!({"centerX": -400_000.0, "centerZ": -400_000.0, "radius": 10.0,
                    "height": 200.0, "blendRadius": 5.0}),
            None,
        )
        .await;
    assert!(status.is_success(), "{status} {answer}");
    core.zones_mut().insert(pad(), 1);
    let (status, tag, file) = server.get_tagged(&top_path, Some(&top_tag)).await;
    assert_eq!(status, 200, "the zone changes the top subtree");
    assert_ne!(tag, top_tag);
    let errors = subtree_tile_errors(&file).unwrap();
    assert_eq!(errors, expected(&core));
    assert!(
        (197.5..197.51).contains(&errors[at(6, 16, 16)]),
        "{}",
        errors[at(6, 16, 16)]
    );
    let (status, _, _) = server.get_tagged(&child_path, Some(&child_tag)).await;
    assert_eq!(
        status, 304,
        "a subtree the zone does not reach is unchanged"
    );
    server.stop().await;
}

#[tokio::test]
async fn bad_subtree_names_are_refused_naming_the_file() {
    let server = big_world().await;
    for file in [
        "1.0.0.subtree",
        "21.0.0.subtree",
        "07.0.0.subtree",
        "7.128.0.subtree",
        "7.0.128.subtree",
        "0.0.0",
        "0.0.subtree",
        "0.0.0.0.subtree",
        "0.-1.0.subtree",
    ] {
        let answer = server.get(&format!("{BASE}/subtrees/{file}")).await;
        assert_http_error(&answer, 400, "INVALID_ARGUMENT", Some("file"));
    }
    server.stop().await;
}
