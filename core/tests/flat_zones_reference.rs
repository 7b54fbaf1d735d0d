//! Flat zones against the original game: the 28 zones of `flat_zones.json` under the
//! `hyperscape` overlap rule reproduce `flat_heights_stations.csv` (height, mode and
//! winning zone); the `layered` rule removes the original's cliffs.

use terrain_core::zones::{Reach, ZoneDoc};
use terrain_core::{FlatZone, Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

const ZONES: &str = include_str!("data/hyperscape/flat_zones.json");
const HEIGHTS: &str = include_str!("data/hyperscape/flat_heights_stations.csv");

fn reference_zones() -> Vec<FlatZone> {
    let docs: Vec<ZoneDoc> = serde_json::from_str(ZONES).expect("flat_zones.json");
    docs.iter()
        .map(|d| {
            d.spec()
                .expect("valid zone")
                .resolve(d.id.clone().expect("id"), f64::NAN)
        })
        .collect()
}

fn terrain(overlap: Overlap) -> Terrain {
    let mut zones = ZoneSet::new(overlap, 100.0);
    for (i, z) in reference_zones().into_iter().enumerate() {
        zones.insert(z, i as u64 + 1);
    }
    Terrain::new(
        WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap(),
        zones,
    )
}

#[test]
fn hyperscape_rule_reproduces_every_station_row() {
    let t = terrain(Overlap::Hyperscape);
    assert_eq!(t.zones().len(), 28);
    let mut rows = 0;
    for line in HEIGHTS.lines().skip(1).filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let (x, z, want): (f64, f64, f64) = (
            f[0].parse().unwrap(),
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
        );
        let s = t.sample(x, z);
        assert_eq!(
            s.height.to_bits(),
            want.to_bits(),
            "({x}, {z}): {} vs {want}",
            s.height
        );
        let (mode, zone) = match s.zone {
            None => ("procedural", ""),
            Some((zone, Reach::Core { .. })) => ("core", zone.id.as_str()),
            Some((zone, Reach::Blend { .. })) => ("blend", zone.id.as_str()),
        };
        assert_eq!((mode, zone), (f[3], f[4]), "({x}, {z})");
        rows += 1;
    }
    assert!(rows > 300, "{rows}");
}

/// Between the furnace (core height 22.856) and the anvil (23.469) at x ~ -22.25 the
/// original rule jumps from one core to the other: a 0.61 m cliff. The layered rule
/// puts the later zone on top and blends its ring into the one beneath: no step.
#[test]
fn layered_rule_has_no_cliff_between_furnace_and_anvil() {
    let step = 1e-4;
    let jump = |t: &Terrain| {
        (0..20_000)
            .map(|i| -23.0 + i as f64 * step)
            .map(|x| (t.height(x + step, 28.0) - t.height(x, 28.0)).abs())
            .fold(0.0, f64::max)
    };
    let original = jump(&terrain(Overlap::Hyperscape));
    assert!(
        original > 0.6 && original < 0.62,
        "the original's cliff: {original}"
    );
    let layered = jump(&terrain(Overlap::Layered));
    // The steepest smoothstep slope over a 2 m ring of a 0.6 m step is 1.5 * 0.6 / 2
    // per metre: about 5e-5 per 1e-4 m step. Anything near 0.6 would be a cliff.
    assert!(layered < 1e-3, "layered must be continuous: {layered}");
}

/// Where only one zone reaches a point, both rules agree.
#[test]
fn rules_agree_where_zones_do_not_overlap() {
    let (h, l) = (terrain(Overlap::Hyperscape), terrain(Overlap::Layered));
    for (x, z) in [
        (0.0, 0.0),
        (2.4, 1.0),
        (3.5, 0.0),
        (0.0, -25.0),
        (-26.0, -4.0),
        (105.0, 62.0),
        (500.0, 500.0),
    ] {
        assert_eq!(
            h.height(x, z).to_bits(),
            l.height(x, z).to_bits(),
            "({x}, {z})"
        );
    }
}
