//! Carving as the original does it: for seeds 0 and 6, with the 44 zones of
//! `data/hyperscape/adapter/zones_seed{S}.json` registered in file order (28 reference
//! zones, 8 of them duel-arena floors with a `carveInset`, and 16 buildings with tile
//! masks), every tile listed in `carve_seed{S}.json` (the original's
//! `applyFlatZoneCarve` on its 64 x 64 tile geometry) drops exactly the listed cells
//! and keeps an index buffer of exactly the listed length; every other tile a zone
//! reaches drops nothing.

use std::collections::BTreeSet;

use serde_json::Value;
use terrain_core::mesh::{TileMesh, build_tile};
use terrain_core::zones::ZoneDoc;
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

const CASES: [(u32, &str, &str); 2] = [
    (
        0,
        include_str!("data/hyperscape/adapter/zones_seed0.json"),
        include_str!("data/hyperscape/adapter/carve_seed0.json"),
    ),
    (
        6,
        include_str!("data/hyperscape/adapter/zones_seed6.json"),
        include_str!("data/hyperscape/adapter/carve_seed6.json"),
    ),
];

/// The zone documents of a zones file: the game's `tileMaskTiles` becomes the API's
/// `tileMask`; `tileMaskBounds` (derived from the tiles) is dropped.
fn terrain(seed: u32, json: &str) -> Terrain {
    let entries: Vec<Value> = serde_json::from_str(json).expect("zones json");
    let mut zones = ZoneSet::new(Overlap::Hyperscape, 100.0);
    for (i, mut e) in entries.into_iter().enumerate() {
        let o = e.as_object_mut().expect("zone object");
        if let Some(t) = o.remove("tileMaskTiles") {
            o.insert("tileMask".into(), t);
        }
        o.remove("tileMaskBounds");
        let doc = ZoneDoc::from_file_entry(&e).expect("zone document");
        let spec = doc.spec().expect("valid zone");
        spec.validate(&Default::default()).expect("within limits");
        zones.insert(spec.resolve(doc.id.expect("id"), f64::NAN), i as u64 + 1);
    }
    assert_eq!(zones.len(), 44);
    Terrain::new(
        WorldGenerator::new(GeneratorKind::Hyperscape, seed).unwrap(),
        zones,
    )
}

/// The cells `(ix, iz)` a 64 x 64 mesh leaves out: every cell's first index is its
/// corner `a = ix + 64 iz` (`a, b, d, b, c, d`).
fn carved(mesh: &TileMesh) -> BTreeSet<(u32, u32)> {
    let n = mesh.resolution;
    let kept: BTreeSet<u32> = (0..mesh.indices.len())
        .step_by(6)
        .map(|k| mesh.indices.get(k).unwrap())
        .collect();
    (0..n - 1)
        .flat_map(|iz| (0..n - 1).map(move |ix| (ix, iz)))
        .filter(|&(ix, iz)| !kept.contains(&(ix + n * iz)))
        .collect()
}

#[test]
fn every_tile_carves_the_original_s_cells() {
    let mut totals = Vec::new();
    for (seed, zones, table) in CASES {
        let t = terrain(seed, zones);
        let table: Value = serde_json::from_str(table).expect("carve json");
        assert_eq!(table["resolution"], 64);
        let mut listed = BTreeSet::new();
        let mut total = 0;
        for entry in table["tiles"].as_array().expect("tiles") {
            let key = (
                entry["tile"][0].as_i64().unwrap(),
                entry["tile"][1].as_i64().unwrap(),
            );
            let want: BTreeSet<(u32, u32)> = entry["carved"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| (c[0].as_u64().unwrap() as u32, c[1].as_u64().unwrap() as u32))
                .collect();
            let mesh = build_tile(&t, key, 0);
            assert_eq!(mesh.resolution, 64);
            let got = carved(&mesh);
            let missing: Vec<_> = want.difference(&got).collect();
            let extra: Vec<_> = got.difference(&want).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "seed {seed} tile {key:?}: {} cells kept that the original carves \
                 (first {:?}), {} carved that it keeps (first {:?})",
                missing.len(),
                missing.first(),
                extra.len(),
                extra.first()
            );
            assert_eq!(
                mesh.indices.len() as u64,
                entry["index"].as_u64().unwrap(),
                "seed {seed} tile {key:?}"
            );
            total += got.len();
            listed.insert(key);
        }
        // Every other tile a zone reaches keeps every cell.
        let mut reached = BTreeSet::new();
        for (zone, _) in t.zones().iter() {
            let b = zone.outer_bounds();
            let tile = |v: f64| ((v + 50.0) / 100.0).floor() as i64;
            for tx in tile(b.min_x)..=tile(b.max_x) {
                for tz in tile(b.min_z)..=tile(b.max_z) {
                    reached.insert((tx, tz));
                }
            }
        }
        for &key in reached.difference(&listed) {
            let mesh = build_tile(&t, key, 0);
            assert_eq!(mesh.indices.len(), 63 * 63 * 6, "seed {seed} tile {key:?}");
        }
        totals.push((seed, listed.len(), total));
    }
    // The tables' own totals: 25 tiles and 2,275 cells (seed 0), 22 and 2,174 (seed 6).
    assert_eq!(totals, [(0, 25, 2275), (6, 22, 2174)]);
}
