//! What the answers are checked against, and the inputs the tests send: the core
//! generators (and zone-carrying [`Terrain`]s) a world must agree with bit for bit,
//! configurations of the worlds under test, zone bodies and specs, and point sets.

use serde_json::Value;
use terrain_client::{Shape, ZoneHeight, ZoneSpec};
use terrain_core::{
    FlatZone, Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet, zones::ZoneDoc,
};
use terrain_server::{Config, WorldConfig};

/// Distinct points, including fractions, negatives, signed zero, a subnormal and the
/// edges of the default coordinate limit.
pub const POINTS: &[(f64, f64)] = &[
    (0.0, 0.0),
    (12.5, -7.25),
    (-1234.567, 890.123),
    (0.1, 0.2),
    (33.333333333333336, -66.66666666666667),
    (1e6, -1e6),
    (-0.0, 5e-324),
    (987_654.321, 123_456.789),
    (-1e9, 1e9),
    (49.99999999999999, 50.00000000000001),
];

/// The core generator a world with this configuration uses.
pub fn generator(kind: GeneratorKind, seed: u32) -> WorldGenerator {
    WorldGenerator::new(kind, seed).expect("valid generator")
}

/// The generator of the default world `main`.
pub fn main_generator() -> WorldGenerator {
    generator(GeneratorKind::Hyperscape, 0)
}

/// A zone document from JSON (as a test writes it).
#[track_caller]
pub fn doc(value: &Value) -> ZoneDoc {
    serde_json::from_value(value.clone()).unwrap_or_else(|e| panic!("zone {value}: {e}"))
}

/// The zone `id` as the server registers `body` over `generator`: height resolved
/// against the procedural height at the centre.
#[track_caller]
pub fn resolve(generator: &WorldGenerator, id: &str, body: &Value) -> FlatZone {
    let spec = doc(body).spec().expect("valid zone");
    spec.resolve(id, generator.procedural(spec.center_x, spec.center_z))
}

/// A core [`Terrain`] with `zones` registered at revisions 1, 2, ... in order: what
/// a world with the same registrations must answer, bit for bit.
pub fn terrain(generator: &WorldGenerator, overlap: Overlap, zones: &[FlatZone]) -> Terrain {
    let mut set = ZoneSet::new(overlap, generator.tile_size());
    for (i, zone) in zones.iter().enumerate() {
        set.insert(zone.clone(), i as u64 + 1);
    }
    Terrain::new(generator.clone(), set)
}

/// The tiles a change of `zones` touches, as `[[x, z], ...]` JSON: the union of each
/// zone's `tiles_touching(outer bounds, 1.0)`, row-major, without duplicates.
pub fn tiles_json(generator: &WorldGenerator, zones: &[&FlatZone]) -> Value {
    let mut tiles: Vec<(i64, i64)> = zones
        .iter()
        .flat_map(|z| generator.tile_grid().tiles_touching(&z.outer_bounds(), 1.0))
        .collect();
    tiles.sort_by_key(|&(x, z)| (z, x));
    tiles.dedup();
    Value::from(tiles.iter().map(|&(x, z)| vec![x, z]).collect::<Vec<_>>())
}

/// Points in, around and between `zones`: centres, core edges, blend rings, the 1 m
/// shoreline margin, and well outside.
pub fn probe_points(zones: &[FlatZone]) -> Vec<(f64, f64)> {
    let mut points = vec![(5000.0, -5000.0)];
    for z in zones {
        let b = z.outer_bounds();
        let (cx, cz) = (z.center_x, z.center_z);
        let (hw, _) = z.half_extents();
        for dx in [
            0.0,
            0.37,
            hw * 0.5,
            hw,
            hw + z.blend_radius * 0.5,
            b.max_x - cx,
            b.max_x - cx + 0.5,
            b.max_x - cx + 1.2,
            -(b.max_x - cx + 0.9),
        ] {
            for dz in [0.0, 0.25, -(b.max_z - cz) * 0.7, b.max_z - cz + 0.6] {
                points.push((cx + dx, cz + dz));
            }
        }
    }
    points
}

/// `n` distinct points on an irregular spiral, for batches larger than the offload
/// threshold.
pub fn spiral(n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|i| {
            let t = i as f64 * 0.618_033_988_75;
            let r = 3.0 + i as f64 * 0.731;
            (r * t.cos() - 17.25, r * t.sin() + 4.5)
        })
        .collect()
}

/// World `main` (hyperscape seed 0, no start-up zones) and world `old` (osrs).
pub fn plain_config(c: &mut Config) {
    c.worlds = vec![
        WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
        WorldConfig::new("old", GeneratorKind::Osrs, 0),
    ];
}

/// Only world `id`: hyperscape seed 7 under a layout layer of `pattern` (400 m chunks,
/// 8 m cells, the pattern's default spokes), without warmed meshes.
pub fn layout_world(
    id: &'static str,
    pattern: terrain_core::layout::Pattern,
) -> impl Fn(&mut Config) {
    use terrain_core::layout::{LayoutConfig, SpokeRule};
    move |c: &mut Config| {
        let mut world = WorldConfig::new(id, GeneratorKind::Hyperscape, 7);
        world.layout = Some(terrain_server::config::LayoutSettings {
            layout: LayoutConfig {
                pattern,
                spokes: SpokeRule::default_for(pattern),
                chunk_size: 400.0,
                cell_size: 8.0,
                seed: 7,
            },
            grid_radius: 1,
            expand_radius: 1100.0,
            gc_radius: 1500.0,
        });
        c.worlds = vec![world];
        c.lifecycle.warm_radius = None;
    }
}

/// A `w` x `d` rectangle at `(x, z)`, `offset` above the terrain, 2 m blend.
pub fn rect(x: f64, z: f64, w: f64, d: f64, offset: f64) -> ZoneSpec {
    ZoneSpec {
        center_x: x,
        center_z: z,
        shape: Shape::Rect { width: w, depth: d },
        height: ZoneHeight::Offset(offset),
        blend_radius: 2.0,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    }
}

/// Points spread over `[-r, r]^2` from a fixed seed (splitmix64).
pub fn random_points(n: usize, r: f64, seed: u64) -> Vec<(f64, f64)> {
    let mut s = seed;
    let mut next = move || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| ((next() * 2.0 - 1.0) * r, (next() * 2.0 - 1.0) * r))
        .collect()
}

/// The entries of one of the original game's zones files (`adapter/zones_seed{S}.json`)
/// as API bodies, each with its id: the game's `tileMaskTiles` is the API's `tileMask`,
/// and `tileMaskBounds` (derived from the tiles) is left out.
pub fn game_zone_bodies(json: &str) -> Vec<(String, Value)> {
    let entries: Vec<Value> = serde_json::from_str(json).expect("a zones file");
    entries
        .into_iter()
        .map(|mut e| {
            let o = e.as_object_mut().expect("a zone object");
            let id = o.remove("id").and_then(|v| v.as_str().map(str::to_string));
            if let Some(t) = o.remove("tileMaskTiles") {
                o.insert("tileMask".into(), t);
            }
            o.remove("tileMaskBounds");
            (id.expect("an id"), e)
        })
        .collect()
}
