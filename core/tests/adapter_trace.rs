//! The original's point answers with its building footprints: for seeds 0 and 6, the
//! 28 reference zones and 16 building zones with tile masks of
//! `data/hyperscape/adapter/zones_seed{S}.json` registered in file order under the
//! original's overlap rule, every row of `trace_seed{S}.csv` (2,700 points each, the
//! original's `TerrainSystem` answers) is reproduced bit for bit: `getHeightAt`,
//! `getProceduralHeightAt`, `getNormalAt`, `isInFlatZone`, `isPositionWalkable` (and
//! its reason), `getTerrainInfoAt` and `getDifficultyAtWorldPosition`. And
//! `grid_seed{S}.txt`: walkability at the centre of every 1 m tile of two 96 x 96
//! regions.

use terrain_core::walk::{BiomeLimits, FALLBACK_TOWNS, WalkRule, Walker};
use terrain_core::zones::ZoneDoc;
use terrain_core::{Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

const CASES: [(u32, &str, &str, &str); 2] = [
    (
        0,
        include_str!("data/hyperscape/adapter/zones_seed0.json"),
        include_str!("data/hyperscape/adapter/trace_seed0.csv"),
        include_str!("data/hyperscape/adapter/grid_seed0.txt"),
    ),
    (
        6,
        include_str!("data/hyperscape/adapter/zones_seed6.json"),
        include_str!("data/hyperscape/adapter/trace_seed6.csv"),
        include_str!("data/hyperscape/adapter/grid_seed6.txt"),
    ),
];

/// The zone documents of a zones file: the game's `tileMaskTiles` becomes the API's
/// `tileMask`; `tileMaskBounds` (derived from the tiles) is dropped.
fn zone_docs(json: &str) -> Vec<ZoneDoc> {
    let entries: Vec<serde_json::Value> = serde_json::from_str(json).expect("zones json");
    entries
        .into_iter()
        .map(|mut e| {
            let o = e.as_object_mut().expect("zone object");
            if let Some(t) = o.remove("tileMaskTiles") {
                o.insert("tileMask".into(), t);
            }
            o.remove("tileMaskBounds");
            ZoneDoc::from_file_entry(&e).expect("zone document")
        })
        .collect()
}

fn terrain(seed: u32, zones_json: &str) -> Terrain {
    let mut zones = ZoneSet::new(Overlap::Hyperscape, 100.0);
    let docs = zone_docs(zones_json);
    assert_eq!(docs.len(), 44);
    assert_eq!(docs.iter().filter(|d| d.tile_mask.is_some()).count(), 16);
    for (i, d) in docs.iter().enumerate() {
        let spec = d.spec().expect("valid zone");
        spec.validate(&Default::default()).expect("within limits");
        zones.insert(
            spec.resolve(d.id.clone().expect("id"), f64::NAN),
            i as u64 + 1,
        );
    }
    Terrain::new(
        WorldGenerator::new(GeneratorKind::Hyperscape, seed).unwrap(),
        zones,
    )
}

fn rule() -> WalkRule {
    WalkRule::Hyperscape {
        limits: BiomeLimits::hyperscape(),
    }
}

/// JavaScript's number text: `-0` and the shortest round trip.
fn num(s: &str) -> f64 {
    s.parse().unwrap_or_else(|e| panic!("number {s:?}: {e}"))
}

fn same(what: &str, got: f64, want: &str, at: &str) {
    let w = num(want);
    assert_eq!(
        got.to_bits(),
        w.to_bits(),
        "{what} at {at}: {got:?} vs {want}"
    );
}

#[test]
fn every_trace_row_is_the_original_s_answer() {
    for (seed, zones, trace, _) in CASES {
        let t = terrain(seed, zones);
        let rule = rule();
        let walker = Walker::new(&t, &rule);
        let mut lines = trace.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let mut rows = 0;
        let mut in_masks = 0;
        for line in lines.filter(|l| !l.is_empty()) {
            let f: Vec<&str> = line.split(',').collect();
            let (x, z) = (num(f[0]), num(f[1]));
            let at = format!("seed {seed} ({x}, {z})");
            same("getHeightAt", t.height(x, z), f[col("getHeightAt")], &at);
            same(
                "getProceduralHeightAt",
                t.procedural(x, z),
                f[col("getProceduralHeightAt")],
                &at,
            );
            let n = t.normal(x, z);
            same("normalX", n[0], f[col("normalX")], &at);
            same("normalY", n[1], f[col("normalY")], &at);
            same("normalZ", n[2], f[col("normalZ")], &at);
            let zone = t.zones().zone_at(x, z);
            assert_eq!(
                zone.is_some().to_string(),
                f[col("isInFlatZone")],
                "isInFlatZone at {at}"
            );
            if let Some((z, _)) = zone {
                in_masks += usize::from(z.tile_mask.is_some());
            }
            let info = walker.info(x, z);
            assert_eq!(
                info.walkable().to_string(),
                f[col("walkable")],
                "walkable at {at}"
            );
            let reason = info.reason.map_or("", |r| r.original_message());
            assert_eq!(reason, f[col("reason")], "reason at {at}");
            same("info_height", info.height, f[col("info_height")], &at);
            assert_eq!(info.biome, Some(f[col("info_biome")]), "info_biome at {at}");
            same("info_slope", info.slope, f[col("info_slope")], &at);
            assert_eq!(
                info.underwater.to_string(),
                f[col("info_underwater")],
                "underwater at {at}"
            );
            assert_eq!(
                info.walkable().to_string(),
                f[col("info_walkable")],
                "info_walkable at {at}"
            );
            let d = walker
                .difficulty(x, z, &[])
                .expect("a difficulty under the original's rule");
            assert_eq!(
                d.level.to_string(),
                f[col("difficulty_level")],
                "difficulty_level at {at}"
            );
            same(
                "difficulty_scalar",
                d.scalar,
                f[col("difficulty_scalar")],
                &at,
            );
            assert_eq!(
                d.biome,
                f[col("difficulty_biome")],
                "difficulty_biome at {at}"
            );
            same("difficulty_tier", d.tier, f[col("difficulty_tier")], &at);
            assert_eq!(
                d.is_safe.to_string(),
                f[col("difficulty_isSafe")],
                "isSafe at {at}"
            );
            // The point's details (what terrain info answers) are the same values,
            // with the original's fallback towns given explicitly.
            let details = walker.details(x, z, &FALLBACK_TOWNS);
            assert_eq!(
                details.normal.map(f64::to_bits),
                n.map(f64::to_bits),
                "{at}"
            );
            assert_eq!(details.difficulty, Some(d), "details at {at}");
            rows += 1;
        }
        assert_eq!(rows, 2700, "seed {seed}");
        // The masks decide many of the points (480 are inside them by construction).
        assert!(
            in_masks >= 480,
            "seed {seed}: {in_masks} points decided by a mask"
        );
    }
}

/// One region of a grid table: its first tile, and its rows (z rising) of one
/// character a tile (x rising).
struct Region {
    x0: i64,
    z0: i64,
    rows: Vec<Vec<char>>,
}

/// The regions of a `grid_seed{S}.txt`: a `# ... minTileX=.. minTileZ=.. width=..
/// depth=..` line, then `depth` rows of `width` characters.
fn regions(grid: &str) -> Vec<Region> {
    let mut lines = grid.lines().filter(|l| !l.trim().is_empty());
    let mut out = Vec::new();
    while let Some(head) = lines.next() {
        assert!(head.starts_with('#'), "{head}");
        let field = |k: &str| -> i64 {
            let at = head.find(&format!("{k}=")).unwrap() + k.len() + 1;
            head[at..]
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let (w, d) = (field("width") as usize, field("depth"));
        let rows: Vec<Vec<char>> = (0..d)
            .map(|_| lines.next().expect("grid row").chars().collect())
            .collect();
        assert!(rows.iter().all(|r| r.len() == w), "{head}");
        out.push(Region {
            x0: field("minTileX"),
            z0: field("minTileZ"),
            rows,
        });
    }
    out
}

#[test]
fn every_grid_tile_is_the_original_s_answer() {
    for (seed, zones, _, grid) in CASES {
        let t = terrain(seed, zones);
        let rule = rule();
        let walker = Walker::new(&t, &rule);
        let regions = regions(grid);
        for Region { x0, z0, rows } in &regions {
            for (j, row) in rows.iter().enumerate() {
                for (i, &c) in row.iter().enumerate() {
                    let (x, z) = ((x0 + i as i64) as f64 + 0.5, (z0 + j as i64) as f64 + 0.5);
                    let info = walker.info(x, z);
                    let got = match info.reason.map(|r| r.original_message()) {
                        None => '.',
                        Some(m) if m.contains("Water") => 'w',
                        Some(m) if m.contains("Steep") => 's',
                        Some(m) => panic!("unexpected reason {m}"),
                    };
                    assert_eq!(got, c, "seed {seed} tile ({x}, {z})");
                }
            }
        }
        assert_eq!(regions.len(), 2, "seed {seed}");
    }
}

/// The walk grid as flags (`Walker::flags`, the bytes of `walkGrid` and `walk-grid`):
/// at every tile of both grid tables, walkable exactly where the original says, water
/// and steep by its reason, and the zone-core flag exactly where a zone's core decides
/// the tile's centre.
#[test]
fn walk_flags_are_the_original_s_grid() {
    use terrain_core::walk::flags::{STEEP, WALKABLE, WATER, ZONE_CORE};
    for (seed, zones, _, grid) in CASES {
        let t = terrain(seed, zones);
        let rule = rule();
        let walker = Walker::new(&t, &rule);
        let mut cores = 0;
        for Region { x0, z0, rows } in regions(grid) {
            let (w, d) = (rows[0].len(), rows.len());
            let flags = walker.flags(x0, z0, w, d);
            for (j, row) in rows.iter().enumerate() {
                for (i, &c) in row.iter().enumerate() {
                    let f = flags[j * w + i];
                    let want = match c {
                        '.' => WALKABLE,
                        'w' => WATER,
                        's' => STEEP,
                        c => panic!("grid character {c}"),
                    };
                    let (tx, tz) = (x0 + i as i64, z0 + j as i64);
                    assert_eq!(f & !ZONE_CORE, want, "seed {seed} tile ({tx}, {tz})");
                    let (x, z) = (tx as f64 + 0.5, tz as f64 + 0.5);
                    let core = matches!(
                        t.zones().zone_at(x, z),
                        Some((_, terrain_core::zones::Reach::Core { .. }))
                    );
                    assert_eq!(f & ZONE_CORE != 0, core, "seed {seed} ({x}, {z})");
                    cores += usize::from(core);
                }
            }
        }
        assert!(cores > 100, "seed {seed}: {cores} tiles in zone cores");
    }
}
