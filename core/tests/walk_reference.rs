//! Walkability against the original game: under the `hyperscape` rule, with the 28 zones
//! of `flat_zones.json` registered in file order under the `hyperscape` overlap rule,
//! `walk_seed0.csv` (2,000 points: height, biome, slope, underwater, walkable, reason,
//! from the original's `getTerrainInfoAt` and `isPositionWalkable`) and
//! `paths_seed0.csv` (300 segments through its `findWalkablePath`) are reproduced
//! exactly: heights and slopes bit for bit, biome, underwater, walkable, the reason
//! strings and `path_len` on every row. The same for seeds 2, 3, 4, 5 and 7
//! (`seeds/walk_seed{S}.csv` with their own zones' heights, `seeds/flat_zones_seed{S}.json`),
//! and the spec's invariants hold on other seeds.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use terrain_core::walk::{BiomeLimits, Reason, WalkRule, Walker};
use terrain_core::zones::ZoneDoc;
use terrain_core::{FlatZone, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

const ZONES: &str = include_str!("data/hyperscape/flat_zones.json");
const WALK: &str = include_str!("data/hyperscape/walkability/walk_seed0.csv");
const PATHS: &str = include_str!("data/hyperscape/walkability/paths_seed0.csv");

/// The original's walk tables of other seeds, with their zones: `(seed, zones, rows)`.
const SEEDS: [(u32, &str, &str); 5] = [
    (
        2,
        include_str!("data/hyperscape/seeds/flat_zones_seed2.json"),
        include_str!("data/hyperscape/seeds/walk_seed2.csv"),
    ),
    (
        3,
        include_str!("data/hyperscape/seeds/flat_zones_seed3.json"),
        include_str!("data/hyperscape/seeds/walk_seed3.csv"),
    ),
    (
        4,
        include_str!("data/hyperscape/seeds/flat_zones_seed4.json"),
        include_str!("data/hyperscape/seeds/walk_seed4.csv"),
    ),
    (
        5,
        include_str!("data/hyperscape/seeds/flat_zones_seed5.json"),
        include_str!("data/hyperscape/seeds/walk_seed5.csv"),
    ),
    (
        7,
        include_str!("data/hyperscape/seeds/flat_zones_seed7.json"),
        include_str!("data/hyperscape/seeds/walk_seed7.csv"),
    ),
];

fn terrain(seed: u32) -> Terrain {
    terrain_with(seed, ZONES)
}

fn terrain_with(seed: u32, zones_json: &str) -> Terrain {
    let docs: Vec<ZoneDoc> = serde_json::from_str(zones_json).expect("flat zones json");
    let mut zones = ZoneSet::new(Overlap::Hyperscape, 100.0);
    for (i, d) in docs.iter().enumerate() {
        let zone: FlatZone = d
            .spec()
            .expect("valid zone")
            .resolve(d.id.clone().expect("id"), f64::NAN);
        zones.insert(zone, i as u64 + 1);
    }
    Terrain::new(
        WorldGenerator::new(GeneratorKind::Hyperscape, seed).unwrap(),
        zones,
    )
}

fn original() -> WalkRule {
    WalkRule::Hyperscape {
        limits: BiomeLimits::hyperscape(),
    }
}

fn reason_text(r: Option<Reason>) -> &'static str {
    r.map_or("", Reason::original_message)
}

/// Every row of a walk table (`x,z,height,biome,slope,underwater,walkable,reason`)
/// equals the walker's answer: numbers bit for bit, the rest as text.
fn reproduce(t: &Terrain, table: &str) -> (usize, usize) {
    let rule = original();
    let walker = Walker::new(t, &rule);
    let (mut rows, mut walkable) = (0, 0);
    for line in table.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| f[i].parse::<f64>().unwrap();
        let (x, z) = (num(0), num(1));
        let info = walker.info(x, z);
        assert_eq!(
            info.height.to_bits(),
            num(2).to_bits(),
            "height at ({x}, {z}): {} vs {}",
            info.height,
            f[2]
        );
        assert_eq!(info.biome, Some(f[3]), "biome at ({x}, {z})");
        assert_eq!(
            info.slope.to_bits(),
            num(4).to_bits(),
            "slope at ({x}, {z}): {} vs {}",
            info.slope,
            f[4]
        );
        assert_eq!(
            info.underwater.to_string(),
            f[5],
            "underwater at ({x}, {z})"
        );
        assert_eq!(info.walkable().to_string(), f[6], "walkable at ({x}, {z})");
        assert_eq!(reason_text(info.reason), f[7], "reason at ({x}, {z})");
        assert_eq!(walker.blocked(x, z), info.reason, "blocked() at ({x}, {z})");
        walkable += usize::from(info.walkable());
        rows += 1;
    }
    (rows, walkable)
}

#[test]
fn every_row_of_walk_seed0_is_reproduced_exactly() {
    let (rows, walkable) = reproduce(&terrain(0), WALK);
    assert_eq!(rows, 2000);
    assert!(walkable > 200 && walkable < 1800, "{walkable} walkable");
}

#[test]
fn every_row_of_the_other_seeds_walk_tables_is_reproduced_exactly() {
    for (seed, zones, table) in SEEDS {
        let (rows, walkable) = reproduce(&terrain_with(seed, zones), table);
        assert_eq!(rows, 2000, "seed {seed}");
        assert!(
            walkable > 200 && walkable < 1800,
            "seed {seed}: {walkable} walkable"
        );
    }
}

#[test]
fn every_segment_of_paths_seed0_is_reproduced_exactly() {
    let t = terrain(0);
    let rule = original();
    let walker = Walker::new(&t, &rule);
    let (mut rows, mut blocked) = (0, 0);
    for line in PATHS.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| f[i].parse::<f64>().unwrap();
        let check = walker.check_sampled(&[(num(0), num(1)), (num(2), num(3))]);
        assert_eq!(check.blocked.is_some().to_string(), f[4], "{line}");
        assert_eq!(check.path.len().to_string(), f[5], "{line}");
        if check.blocked.is_none() {
            // The samples are the original's: start + (end - start)/20 * i.
            assert_eq!(check.path[0], (num(0), num(1)));
        }
        blocked += usize::from(check.blocked.is_some());
        rows += 1;
    }
    assert_eq!((rows, blocked), (300, 111));
}

/// The invariants of docs/src/reference/walkability.md ("Water") on random points of other seeds: underwater implies
/// not walkable for water; otherwise walkable exactly when the slope is within the
/// biome's limit; plains exactly in the town block; elsewhere the first centre's type.
#[test]
fn the_spec_s_invariants_hold_on_other_seeds() {
    let firsts = [
        (1, "valley"),
        (2, "plains"),
        (3, "swamp"),
        (4, "mountains"),
        (6, "tundra"),
        (7, "mountains"),
    ];
    let limits = BiomeLimits::hyperscape();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2545_f491_4f6c_dd1d);
    for (seed, first) in firsts {
        let t = terrain(seed);
        let rule = original();
        let walker = Walker::new(&t, &rule);
        for _ in 0..300 {
            let (x, z) = (
                rng.random_range(-500.0..500.0),
                rng.random_range(-500.0..500.0),
            );
            let info = walker.info(x, z);
            let (tx, tz) = ((x / 100.0).floor(), (z / 100.0).floor());
            let town = tx * tx + tz * tz < 9.0;
            assert_eq!(
                info.biome,
                Some(if town { "plains" } else { first }),
                "seed {seed} ({x}, {z})"
            );
            assert_eq!(info.underwater, info.height < 9.0);
            if info.underwater {
                assert_eq!(info.reason, Some(Reason::Water));
            } else {
                let limit = limits.max_slope(info.biome.unwrap());
                assert_eq!(
                    info.walkable(),
                    info.slope <= limit,
                    "seed {seed} ({x}, {z})"
                );
            }
        }
    }
}

/// The `slope` rule (what the original means: the dominant biome of the vertex colours
/// at the point, its limit, water below the same 9 m) against the table: water and the
/// slope are the same, only the biome and so the limit differ. The figure is in the docs.
#[test]
fn the_slope_rule_differs_from_the_original_only_by_the_biome() {
    let t = terrain(0);
    let original = original();
    let meant = WalkRule::Slope {
        limits: BiomeLimits::hyperscape(),
        water_level: 9.0,
    };
    let (a, b) = (Walker::new(&t, &original), Walker::new(&t, &meant));
    let (mut changed, mut to_walkable, mut biomes) = (0, 0, std::collections::BTreeMap::new());
    for line in WALK.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let (x, z) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        let (old, new) = (a.info(x, z), b.info(x, z));
        assert_eq!(old.height.to_bits(), new.height.to_bits());
        assert_eq!(old.slope.to_bits(), new.slope.to_bits());
        assert_eq!(old.underwater, new.underwater);
        *biomes.entry(new.biome.unwrap()).or_insert(0) += 1;
        if old.walkable() != new.walkable() {
            changed += 1;
            to_walkable += usize::from(new.walkable());
            assert!(!old.underwater, "a water point changed at ({x}, {z})");
        }
    }
    eprintln!(
        "slope rule: {changed} of 2000 change ({to_walkable} become walkable); biomes {biomes:?}"
    );
    assert!(changed > 0, "the rules differ on the table");
}
