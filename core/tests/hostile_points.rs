//! Every point answer of the core at hostile coordinates: infinities, NaN, the largest
//! doubles, the integer limits' neighbours and subnormals, on every generator with
//! zones registered. None may panic (integer overflow included: the test profile
//! checks it), and every finite point within [`COORDINATE_LIMIT`] answers a finite
//! height. The SDK and the server refuse what lies outside the limit before it gets
//! here; the core still has to survive it.

use terrain_core::{
    COORDINATE_LIMIT, Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet,
    mesh::surface_height,
    walk::{BiomeLimits, WalkRule, Walker},
    zones::{FlatZone, Shape},
};

/// Coordinates a careless or hostile caller may pass.
fn hostile() -> Vec<f64> {
    let mut v = vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN,
        1e300,
        -1e300,
        9.3e18,
        -9.3e18,
        i64::MAX as f64,
        i64::MIN as f64,
        u64::MAX as f64,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -0.0,
        0.0,
        COORDINATE_LIMIT,
        -COORDINATE_LIMIT,
        COORDINATE_LIMIT * 2.0,
        16_777_216.5,
        -16_777_216.5,
    ];
    v.extend([1e6, -1e6, 123.456, -7.5]);
    v
}

fn zone(id: &str, x: f64, z: f64) -> FlatZone {
    FlatZone {
        id: id.to_string(),
        center_x: x,
        center_z: z,
        shape: Shape::Rect {
            width: 20.0,
            depth: 12.0,
        },
        height: 12.0,
        blend_radius: 6.0,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    }
}

fn terrain(kind: GeneratorKind) -> Terrain {
    let generator = WorldGenerator::new(kind, 0).expect("seed 0");
    let mut zones = ZoneSet::new(Overlap::Layered, generator.tile_size());
    zones.insert(zone("near", 10.0, -4.0), 1);
    zones.insert(zone("far", 9.0e5, -9.0e5), 2);
    Terrain::new(generator, zones)
}

fn rule(kind: GeneratorKind) -> WalkRule {
    match kind {
        GeneratorKind::Hyperscape => WalkRule::Hyperscape {
            limits: BiomeLimits::hyperscape(),
        },
        GeneratorKind::Voxel => WalkRule::BlockStep { sea_level: 20.0 },
        _ => WalkRule::MaxSlope {
            max_slope: 1.0,
            water_level: None,
        },
    }
}

#[test]
fn no_point_answer_panics_at_hostile_coordinates() {
    let values = hostile();
    for kind in [
        GeneratorKind::Hyperscape,
        GeneratorKind::Osrs,
        GeneratorKind::Voxel,
    ] {
        let terrain = terrain(kind);
        let rule = rule(kind);
        let walker = Walker::new(&terrain, &rule);
        for &x in &values {
            for &z in &values {
                let sample = terrain.sample(x, z);
                let height = terrain.height(x, z);
                let procedural = terrain.procedural(x, z);
                let surface = surface_height(&terrain, x, z);
                let info = walker.info(x, z);
                let within = |v: f64| v.is_finite() && v.abs() <= COORDINATE_LIMIT;
                if within(x) && within(z) {
                    for (what, h) in [
                        ("sample", sample.height),
                        ("height", height),
                        ("procedural", procedural),
                        ("surface", surface),
                        ("info", info.height),
                    ] {
                        assert!(h.is_finite(), "{kind:?} {what} at ({x}, {z}): {h}");
                    }
                }
            }
        }
        // The batch path over every pair at once.
        let points: Vec<(f64, f64)> = values
            .iter()
            .flat_map(|&x| values.iter().map(move |&z| (x, z)))
            .collect();
        assert_eq!(walker.infos(&points).len(), points.len());
    }
}
