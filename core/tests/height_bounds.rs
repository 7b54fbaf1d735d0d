//! `Terrain::height_bounds`, what the 3D Tiles coarse levels over sampled grids declare
//! their error from, checked against the heights themselves: random rectangles (1 m
//! to 20 km, anywhere within 60 km of the origin, many over the island and its coast,
//! its pond and its mountains) and random points and grids inside them, on the island
//! of seeds with and without mountains, an osrs world and a voxel world, bare and with
//! random flat zones (heights far above and below the ground, soft and hard edges,
//! both overlap rules). Every height, by the point path and the area path, lies within
//! the bounds; the island's ocean floor beyond 470 m is proven flat to 1.25 m; and
//! the bounds are not loose for nothing: some heights come within a metre of the ends.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use terrain_core::zones::Shape;
use terrain_core::{FlatZone, Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

fn terrain(kind: GeneratorKind, seed: u32, overlap: Overlap, zones: Vec<FlatZone>) -> Terrain {
    let generator = WorldGenerator::new(kind, seed).unwrap();
    let mut set = ZoneSet::new(overlap, generator.tile_size());
    for (revision, zone) in (1..).zip(zones) {
        set.insert(zone, revision);
    }
    Terrain::new(generator, set)
}

/// Random zones within `reach` metres of the origin, heights in `heights`.
fn zones(rng: &mut Xoshiro256PlusPlus, n: usize, reach: f64, heights: (f64, f64)) -> Vec<FlatZone> {
    (0..n)
        .map(|i| FlatZone {
            id: format!("z{i}"),
            center_x: rng.random_range(-reach..reach),
            center_z: rng.random_range(-reach..reach),
            shape: if rng.random_bool(0.5) {
                Shape::Rect {
                    width: rng.random_range(1.0..200.0),
                    depth: rng.random_range(1.0..200.0),
                }
            } else {
                Shape::Circle {
                    radius: rng.random_range(0.5..100.0),
                }
            },
            height: rng.random_range(heights.0..heights.1),
            blend_radius: if rng.random_bool(0.3) {
                0.0
            } else {
                rng.random_range(0.25..40.0)
            },
            carve_inset: None,
            priority: rng.random_range(-2..=2),
            walkable: None,
            tile_mask: None,
        })
        .collect()
}

/// Checks `rects` random rectangles around `centre`: every height at random points
/// and on a grid inside each lies within its bounds. Answers the lowest and highest
/// height seen, and the widest bounds.
fn check(
    t: &Terrain,
    rng: &mut Xoshiro256PlusPlus,
    rects: usize,
    centre: (f64, f64),
    reach: f64,
) -> ((f64, f64), (f64, f64)) {
    let (mut seen, mut widest) = (
        (f64::INFINITY, f64::NEG_INFINITY),
        (f64::INFINITY, f64::NEG_INFINITY),
    );
    for _ in 0..rects {
        let size = 10f64.powf(rng.random_range(0.0..4.3));
        let x0 = centre.0 + rng.random_range(-reach..reach);
        let z0 = centre.1 + rng.random_range(-reach..reach);
        let (x1, z1) = (x0 + size, z0 + size * rng.random_range(0.2..1.0));
        let (lo, hi) = t.height_bounds(x0, z0, x1, z1);
        widest = (widest.0.min(lo), widest.1.max(hi));
        let mut heights: Vec<f64> = (0..40)
            .map(|_| t.height(rng.random_range(x0..=x1), rng.random_range(z0..=z1)))
            .collect();
        let xs: Vec<f64> = (0..12)
            .map(|i| x0 + (x1 - x0) * f64::from(i) / 11.0)
            .collect();
        let zs: Vec<f64> = (0..12)
            .map(|i| z0 + (z1 - z0) * f64::from(i) / 11.0)
            .collect();
        let mut grid = vec![0.0; xs.len() * zs.len()];
        t.fill_axes(&xs, &zs, &mut grid);
        heights.extend(grid);
        for h in heights {
            assert!(
                (lo..=hi).contains(&h),
                "{h} outside {lo}..{hi} over ({x0}, {z0})..({x1}, {z1})"
            );
            seen = (seen.0.min(h), seen.1.max(h));
        }
    }
    (seen, widest)
}

#[test]
fn the_island_s_heights_lie_within_its_bounds() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(51);
    // Seed 1 has two mountain centres (about (842, -404) and (2470, -2850)); seed 0
    // none.
    for seed in [0, 1, 2, 5] {
        let t = terrain(GeneratorKind::Hyperscape, seed, Overlap::Layered, vec![]);
        check(&t, &mut rng, 300, (0.0, 0.0), 600.0);
        check(&t, &mut rng, 100, (0.0, 0.0), 60_000.0);
        // Within the island, over many points, the heights come near both ends.
        let (seen, widest) = check(&t, &mut rng, 400, (-300.0, -300.0), 400.0);
        if seed == 1 {
            assert!(
                (widest.0 + 41.25).abs() < 1e-3 && (widest.1 - 46.5).abs() < 1e-3,
                "{widest:?}"
            );
        }
        assert!(seen.0 < 6.0 && seen.1 > 20.0, "seed {seed}: {seen:?}");
    }
}

#[test]
fn the_island_s_ocean_floor_is_proven_flat() {
    let t0 = terrain(GeneratorKind::Hyperscape, 0, Overlap::Layered, vec![]);
    let t1 = terrain(GeneratorKind::Hyperscape, 1, Overlap::Layered, vec![]);
    // Beyond 470 m of the origin, with no mountain near: the ocean floor exactly.
    let (lo, hi) = t0.height_bounds(480.0, -100.0, 5000.0, 100.0);
    assert!(hi - lo < 1e-5 && (lo - 2.5).abs() < 1e-5, "{lo}..{hi}");
    // Within reach of seed 1's mountains, boosted up to half again.
    let (lo, hi) = t1.height_bounds(480.0, -100.0, 5000.0, 100.0);
    assert!(
        (lo - 2.5).abs() < 1e-5 && (hi - 3.75).abs() < 1e-5,
        "{lo}..{hi}"
    );
    // A rectangle touching the island's possible coast is not flat.
    let (lo, hi) = t0.height_bounds(460.0, 0.0, 5000.0, 1.0);
    assert!(hi - lo > 50.0, "{lo}..{hi}");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    check(&t1, &mut rng, 200, (3000.0, -3000.0), 9000.0);
}

#[test]
fn osrs_and_voxel_heights_lie_within_their_bounds() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(52);
    let osrs = terrain(GeneratorKind::Osrs, 0, Overlap::Layered, vec![]);
    let (seen, widest) = check(&osrs, &mut rng, 300, (10_000.0, 10_000.0), 20_000.0);
    assert_eq!(widest, osrs.height_bounds(0.0, 0.0, 1.0, 1.0));
    assert!(seen.0 < 1.0 && seen.1 > 3.0, "{seen:?}");
    for seed in [3, 8] {
        let voxel = terrain(GeneratorKind::Voxel, seed, Overlap::Layered, vec![]);
        check(&voxel, &mut rng, 60, (0.0, 0.0), 3000.0);
        // Zones far above and below the blocks are rounded into them.
        let z = zones(&mut rng, 12, 200.0, (-500.0, 500.0));
        let voxel = terrain(GeneratorKind::Voxel, seed, Overlap::Layered, z);
        assert_eq!(voxel.height_bounds(-10.0, -10.0, 10.0, 10.0), (0.0, 64.0));
        check(&voxel, &mut rng, 60, (0.0, 0.0), 300.0);
    }
}

#[test]
fn zones_widen_the_bounds_where_they_reach() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(53);
    for (kind, seed) in [(GeneratorKind::Hyperscape, 1), (GeneratorKind::Osrs, 0)] {
        for overlap in [Overlap::Layered, Overlap::Hyperscape] {
            for _ in 0..4 {
                let centre = if kind == GeneratorKind::Osrs {
                    3000.0
                } else {
                    0.0
                };
                let mut z = zones(&mut rng, 10, 500.0, (-300.0, 300.0));
                for zone in &mut z {
                    zone.center_x += centre;
                    zone.center_z += centre;
                }
                let t = terrain(kind, seed, overlap, z.clone());
                let (seen, widest) = check(&t, &mut rng, 150, (centre, centre), 600.0);
                // The zones' heights are in the bounds of rectangles they reach.
                let highest = z.iter().map(|z| z.height).fold(f64::NEG_INFINITY, f64::max);
                assert!(widest.1 >= highest, "{widest:?} {highest}");
                let top = z.iter().find(|z| z.height == highest).unwrap();
                let (_, hi) =
                    t.height_bounds(top.center_x, top.center_z, top.center_x, top.center_z);
                assert_eq!(
                    hi,
                    highest.max(
                        t.generator()
                            .height_bounds(top.center_x, top.center_z, top.center_x, top.center_z)
                            .1
                    )
                );
                assert!(seen.1 <= widest.1 && seen.0 >= widest.0);
                // Far from every zone: the generator's own range.
                let far = (
                    centre + 5000.0,
                    centre + 5000.0,
                    centre + 5100.0,
                    centre + 5100.0,
                );
                assert_eq!(
                    t.height_bounds(far.0, far.1, far.2, far.3),
                    t.generator().height_bounds(far.0, far.1, far.2, far.3)
                );
            }
        }
    }
}
