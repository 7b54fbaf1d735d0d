//! Property tests of flat zones over real terrain (hyperscape seed 0 and osrs): 1 to 12
//! random rectangles and circles clustered so that they overlap, with random heights
//! or offsets, blend radii and priorities, under both overlap rules.
//!
//! - (a) heights are finite everywhere, exactly on core and blend edges too;
//! - (b) a zone's core is exactly level where that zone is on top;
//! - (c) heights are continuous across every soft edge (both rules for a lone zone,
//!   every edge of overlapping zones for `layered`), and just inside a zone's outer
//!   edge the height is the height beneath it;
//! - (d) the area paths (`fill_axes`, `fill_rows`) equal `height` bit for bit;
//! - (e) removing every zone restores the generator's heights bit for bit.
//!
//! Zones stay in the island interior (centres within 150 m of the origin). Hyperscape's
//! shoreline adjustment acts where the un-shored height lies in the 6..12 m band around
//! the water line, and next to a flat zone it may step at the zone's outer edge, as in
//! the original. The pond basin around (-80, 60) dips into that band inside the island,
//! so continuity pairs whose procedural height is within 0.5 m of the band are skipped.
//! A zone with no blend ring has a hard edge by design; its edges are not checked.

use proptest::prelude::*;
use terrain_core::zones::{FlatZone, Reach, Shape, ZoneHeight, ZoneSpec};
use terrain_core::{Generator, GeneratorKind, Grid, Overlap, Terrain, WorldGenerator, ZoneSet};

/// Distance between the two points of a continuity pair, in metres.
const GAP: f64 = 1e-7;
/// Largest height step allowed across a continuity pair. The steepest legitimate slope
/// (a 45 m step over a 0.25 m ring) moves 3e-5 m over `GAP`.
const STEP: f64 = 1e-4;

/// One world with its zones, and where along the edges to sample.
#[derive(Debug, Clone)]
struct Case {
    kind: GeneratorKind,
    overlap: Overlap,
    specs: Vec<ZoneSpec>,
    /// Fraction in [0, 1) that places the samples along edges and inside cores.
    phase: f64,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (1.0..60.0f64, 1.0..60.0f64).prop_map(|(width, depth)| Shape::Rect { width, depth }),
        (0.5..30.0f64).prop_map(|radius| Shape::Circle { radius }),
    ]
}

fn spec(x: f64, z: f64) -> impl Strategy<Value = ZoneSpec> {
    let height = prop_oneof![
        (0.0..40.0f64).prop_map(ZoneHeight::Absolute),
        (-5.0..5.0f64).prop_map(ZoneHeight::Offset),
    ];
    let blend = prop_oneof![1 => Just(0.0), 5 => 0.25..10.0f64];
    (
        -40.0..40.0f64,
        -40.0..40.0f64,
        shape(),
        height,
        blend,
        -2..=2i32,
    )
        .prop_map(
            move |(dx, dz, shape, height, blend_radius, priority)| ZoneSpec {
                center_x: x + dx,
                center_z: z + dz,
                shape,
                height,
                blend_radius,
                carve_inset: None,
                priority,
                walkable: None,
                tile_mask: None,
            },
        )
}

fn case() -> impl Strategy<Value = Case> {
    let kind = prop_oneof![Just(GeneratorKind::Hyperscape), Just(GeneratorKind::Osrs)];
    let overlap = prop_oneof![Just(Overlap::Layered), Just(Overlap::Hyperscape)];
    (
        kind,
        overlap,
        -110.0..110.0f64,
        -110.0..110.0f64,
        0.0..1.0f64,
    )
        .prop_flat_map(|(kind, overlap, x, z, phase)| {
            prop::collection::vec(spec(x, z), 1..=12).prop_map(move |specs| Case {
                kind,
                overlap,
                specs,
                phase,
            })
        })
}

/// The terrain with the case's zones registered in order (revision = index + 1), and
/// the zones as registered.
fn build(case: &Case) -> (Terrain, Vec<FlatZone>) {
    let generator = WorldGenerator::new(case.kind, 0).expect("seed 0 is valid");
    let mut set = ZoneSet::new(case.overlap, generator.tile_size());
    let zones: Vec<FlatZone> = case
        .specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            s.resolve(
                format!("z{i}"),
                generator.procedural(s.center_x, s.center_z),
            )
        })
        .collect();
    for (i, z) in zones.iter().enumerate() {
        z.spec()
            .validate(&Default::default())
            .expect("generated zones are valid");
        set.insert(z.clone(), i as u64 + 1);
    }
    (Terrain::new(generator, set), zones)
}

/// `n` fractions in [0, 1) spread by the golden ratio from `phase`.
fn fractions(phase: f64, n: usize) -> impl Iterator<Item = f64> {
    (0..n).map(move |k| (phase + k as f64 * 0.618_033_988_749_895) % 1.0)
}

/// Points on the boundary of `zone`'s core grown by `grow`, with the outward normal.
fn edge_points(zone: &FlatZone, grow: f64, phase: f64) -> Vec<((f64, f64), (f64, f64))> {
    let (cx, cz) = (zone.center_x, zone.center_z);
    match zone.shape {
        Shape::Rect { width, depth } => {
            let (ex, ez) = (width / 2.0 + grow, depth / 2.0 + grow);
            fractions(phase, 3)
                .flat_map(|t| {
                    let s = 2.0 * t - 1.0;
                    [
                        ((cx + ex, cz + s * ez), (1.0, 0.0)),
                        ((cx - ex, cz - s * ez), (-1.0, 0.0)),
                        ((cx + s * ex, cz + ez), (0.0, 1.0)),
                        ((cx - s * ex, cz - ez), (0.0, -1.0)),
                    ]
                })
                .collect()
        }
        Shape::Circle { radius } => fractions(phase, 12)
            .map(|t| {
                let a = t * std::f64::consts::TAU;
                let (sin, cos) = a.sin_cos();
                let r = radius + grow;
                ((cx + r * cos, cz + r * sin), (cos, sin))
            })
            .collect(),
    }
}

/// Points strictly inside `zone`'s core (and its centre).
fn core_points(zone: &FlatZone, phase: f64) -> Vec<(f64, f64)> {
    let (hw, hd) = zone.half_extents();
    let circle = matches!(zone.shape, Shape::Circle { .. });
    let mut points = vec![(zone.center_x, zone.center_z)];
    for (u, v) in fractions(phase, 6).zip(fractions(1.0 - phase, 6)) {
        let (mut dx, mut dz) = ((2.0 * u - 1.0) * hw, (2.0 * v - 1.0) * hd);
        if circle {
            // Squeeze the square onto the disc.
            (dx, dz) = (dx * 0.7, dz * 0.7);
        }
        points.push((zone.center_x + dx * 0.999, zone.center_z + dz * 0.999));
    }
    points
}

/// True when a continuity pair must be skipped: hyperscape's shoreline band, or (for
/// the original's rule, which has cliffs between zones) another zone nearby.
fn skip(case: &Case, t: &Terrain, zones: &[FlatZone], i: usize, pts: [(f64, f64); 2]) -> bool {
    let shore = case.kind == GeneratorKind::Hyperscape
        && pts
            .iter()
            .any(|&(x, z)| (5.5..=12.5).contains(&t.procedural(x, z)));
    let crowded = case.overlap == Overlap::Hyperscape
        && zones.iter().enumerate().any(|(j, other)| {
            let b = other.outer_bounds();
            j != i
                && pts.iter().any(|&(x, z)| {
                    x >= b.min_x - 1e-6
                        && x <= b.max_x + 1e-6
                        && z >= b.min_z - 1e-6
                        && z <= b.max_z + 1e-6
                })
        });
    shore || crowded
}

/// (c) for one zone: pairs across its core edge and its outer edge.
fn check_edges(
    case: &Case,
    t: &Terrain,
    zones: &[FlatZone],
    i: usize,
) -> Result<(), TestCaseError> {
    let zone = &zones[i];
    let mut beneath = t.clone();
    beneath.zones_mut().remove(&zone.id);
    for (grow, outer) in [(0.0, false), (zone.blend_radius, true)] {
        for ((x, z), (nx, nz)) in edge_points(zone, grow, case.phase) {
            let inside = (x - nx * GAP / 2.0, z - nz * GAP / 2.0);
            let outside = (x + nx * GAP / 2.0, z + nz * GAP / 2.0);
            if skip(case, t, zones, i, [inside, outside]) {
                continue;
            }
            let (hi, ho) = (t.height(inside.0, inside.1), t.height(outside.0, outside.1));
            prop_assert!(
                (hi - ho).abs() <= STEP,
                "{} edge of {} at ({x}, {z}): {hi} vs {ho}",
                if outer { "outer" } else { "core" },
                zone.id
            );
            if outer {
                let hb = beneath.height(inside.0, inside.1);
                let scale = 1f64.max(zone.height.abs()).max(hb.abs());
                prop_assert!(
                    (hi - hb).abs() <= 1e-9 * scale,
                    "just inside {} at ({x}, {z}): {hi}, beneath {hb}",
                    zone.id
                );
            }
        }
    }
    Ok(())
}

/// A grid covering every zone's outer bounds with a margin.
fn covering_grid(zones: &[FlatZone], n: usize) -> Grid {
    let bounds = zones.iter().map(FlatZone::outer_bounds);
    let (mut x0, mut z0, mut x1, mut z1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for b in bounds {
        (x0, z0, x1, z1) = (
            x0.min(b.min_x),
            z0.min(b.min_z),
            x1.max(b.max_x),
            z1.max(b.max_z),
        );
    }
    let step = (x1 - x0).max(z1 - z0) / (n - 5) as f64;
    Grid::new(x0 - 2.0 * step, z0 - 2.0 * step, step, n, n).expect("valid grid")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// (a) Finite everywhere: on exact core and outer edges, corners, centres, and
    /// random points around the cluster.
    #[test]
    fn heights_are_finite_everywhere(
        case in case(),
        extra in prop::collection::vec((-150.0..150.0f64, -150.0..150.0f64), 16),
    ) {
        let (t, zones) = build(&case);
        let mut points = extra;
        for zone in &zones {
            for grow in [0.0, zone.blend_radius] {
                points.extend(edge_points(zone, grow, case.phase).into_iter().map(|(p, _)| p));
                let (hw, hd) = zone.half_extents();
                let (ex, ez) = (hw + grow, hd + grow);
                let (cx, cz) = (zone.center_x, zone.center_z);
                points.extend([(cx + ex, cz + ez), (cx - ex, cz - ez)]);
            }
            points.push((zone.center_x, zone.center_z));
        }
        for (x, z) in points {
            let h = t.height(x, z);
            prop_assert!(h.is_finite(), "({x}, {z}): {h}");
        }
    }

    /// (b) Inside a zone's core the height is exactly the zone's where that zone is on
    /// top (layered: the highest (priority, revision) reaching the point; the original's
    /// rule: the only zone reaching it). Under the original's rule any point in some
    /// core has the height of one of those cores.
    #[test]
    fn cores_are_level_where_their_zone_is_on_top(case in case()) {
        let (t, zones) = build(&case);
        for zone in &zones {
            for (x, z) in core_points(zone, case.phase) {
                let reaching: Vec<(usize, Reach)> = zones
                    .iter()
                    .enumerate()
                    .filter_map(|(j, other)| other.reach(x, z).map(|r| (j, r)))
                    .collect();
                let h = t.height(x, z);
                let top = reaching.iter().max_by_key(|(j, _)| (zones[*j].priority, *j));
                let alone = reaching.len() == 1;
                if let Some(&(j, Reach::Core { .. })) = top
                    && (case.overlap == Overlap::Layered || alone)
                {
                    let want = zones[j].height.to_bits();
                    prop_assert_eq!(h.to_bits(), want, "({}, {}) in {}", x, z, zones[j].id);
                    let decided = t.sample(x, z).zone.map(|(d, _)| d.id.clone());
                    prop_assert_eq!(decided.as_deref(), Some(zones[j].id.as_str()));
                }
                if case.overlap == Overlap::Hyperscape {
                    let mut cores =
                        reaching.iter().filter(|(_, r)| matches!(r, Reach::Core { .. }));
                    let one_of = cores.any(|(j, _)| zones[*j].height.to_bits() == h.to_bits());
                    prop_assert!(one_of, "({x}, {z})");
                }
            }
        }
    }

    /// (c) Continuity across soft edges, and the height beneath at the outer edge.
    #[test]
    fn heights_are_continuous_across_soft_edges(case in case()) {
        let (t, zones) = build(&case);
        for (i, zone) in zones.iter().enumerate() {
            if zone.blend_radius > 0.0 {
                check_edges(&case, &t, &zones, i)?;
            }
        }
    }

    /// (d) `fill_rows` (whole grid and a band) and `fill_axes` (on axes through the
    /// zones' edges) equal `height` bit for bit.
    #[test]
    fn area_paths_equal_the_point_path(case in case()) {
        let (t, zones) = build(&case);
        let grid = covering_grid(&zones, 28);
        let mut all = vec![0.0; grid.len()];
        t.fill(&grid, &mut all);
        let mut band = vec![0.0; 9 * grid.nx];
        t.fill_rows(&grid, 7..16, &mut band);
        for iz in 0..grid.nz {
            for ix in 0..grid.nx {
                let h = t.height(grid.x(ix), grid.z(iz));
                prop_assert_eq!(all[iz * grid.nx + ix].to_bits(), h.to_bits(), "({}, {})", ix, iz);
                if (7..16).contains(&iz) {
                    prop_assert_eq!(band[(iz - 7) * grid.nx + ix].to_bits(), h.to_bits());
                }
            }
        }
        let edges = zones.iter().flat_map(|z| edge_points(z, z.blend_radius, case.phase));
        let (xs, zs): (Vec<f64>, Vec<f64>) = edges.take(20).map(|(p, _)| p).unzip();
        let mut out = vec![0.0; xs.len() * zs.len()];
        t.fill_axes(&xs, &zs, &mut out);
        for (iz, &z) in zs.iter().enumerate() {
            for (ix, &x) in xs.iter().enumerate() {
                let want = t.height(x, z).to_bits();
                prop_assert_eq!(out[iz * xs.len() + ix].to_bits(), want, "({}, {})", x, z);
            }
        }
    }

    /// (e) Removing every zone (in an order of its own) leaves an empty index and the
    /// generator's heights, on the point and area paths.
    #[test]
    fn removing_every_zone_restores_the_generator(case in case(), rotate in 0usize..12) {
        let (mut t, zones) = build(&case);
        let grid = covering_grid(&zones, 16);
        let n = zones.len();
        for k in 0..n {
            let removed = t.zones_mut().remove(&zones[(k + rotate) % n].id);
            prop_assert!(removed.is_some());
        }
        prop_assert!(t.zones().is_empty());
        prop_assert_eq!((t.zones().index_entries(), t.zones().index_tiles()), (0, 0));
        let g = WorldGenerator::new(case.kind, 0).expect("seed 0 is valid");
        let (mut a, mut b) = (vec![0.0; grid.len()], vec![0.0; grid.len()]);
        t.fill(&grid, &mut a);
        g.fill(&grid, &mut b);
        for iz in 0..grid.nz {
            for ix in 0..grid.nx {
                let (x, z) = (grid.x(ix), grid.z(iz));
                let want = g.height(x, z).to_bits();
                prop_assert_eq!(t.height(x, z).to_bits(), want, "({}, {})", x, z);
                prop_assert_eq!(a[iz * grid.nx + ix].to_bits(), want);
                prop_assert_eq!(b[iz * grid.nx + ix].to_bits(), want);
            }
        }
    }
}
