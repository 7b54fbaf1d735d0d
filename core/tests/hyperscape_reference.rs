//! The hyperscape generator against the original game's reference tables (seed 0), and
//! against the documented behaviour of seeds with mountain centres.

use terrain_core::generator::hyperscape::{Biome, Hyperscape, tile};
use terrain_core::{Generator, Grid};

const HEIGHTS: &str = include_str!("data/hyperscape/seed0_heights.csv");
const TILE_VERTICES: &str = include_str!("data/hyperscape/seed0_tile_vertices.csv");
const PERM: &str = include_str!("data/hyperscape/seed0_perm.json");
const CENTERS: &str = include_str!("data/hyperscape/seed0_biome_centers.json");

/// Parses a CSV with a header into rows of fields.
fn rows(csv: &str) -> impl Iterator<Item = Vec<&str>> {
    csv.lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').collect())
}

fn num(s: &str) -> f64 {
    s.parse()
        .unwrap_or_else(|e| panic!("bad number {s:?}: {e}"))
}

#[test]
fn seed0_permutation_is_the_reference() {
    let want: Vec<u8> = serde_json::from_str(PERM).expect("perm json");
    assert_eq!(want.len(), 256);
    assert_eq!(Hyperscape::new(0).noise().permutation().to_vec(), want);
}

#[test]
fn seed0_biome_centres_are_the_reference() {
    let want: Vec<serde_json::Value> = serde_json::from_str(CENTERS).expect("centres json");
    let got = Hyperscape::new(0).biome_centers().to_vec();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.x, w["x"].as_f64().unwrap());
        assert_eq!(g.z, w["z"].as_f64().unwrap());
        assert_eq!(g.influence, w["influence"].as_f64().unwrap());
        assert_eq!(g.biome.as_str(), w["type"].as_str().unwrap());
    }
    assert!(got.iter().all(|c| c.biome != Biome::Mountains));
}

#[test]
fn seed0_heights_match_every_reference_row() {
    let g = Hyperscape::new(0);
    let mut count = 0;
    let mut worst: f64 = 0.0;
    for r in rows(HEIGHTS) {
        let (x, z) = (num(r[0]), num(r[1]));
        let (base, boosted, fin) = (num(r[3]), num(r[4]), num(r[5]));
        for (what, got, want) in [
            ("base", g.base(x, z), base),
            ("procedural", g.procedural(x, z), boosted),
            ("final", g.height(x, z), fin),
        ] {
            let err = (got - want).abs();
            worst = worst.max(err);
            assert!(
                err <= 1e-9,
                "{what} at ({x}, {z}) [{}]: got {got}, want {want}",
                r[2]
            );
        }
        count += 1;
    }
    assert_eq!(count, 1045);
    eprintln!("seed0_heights: 1045 rows, largest difference {worst:e} m");
}

#[test]
fn seed0_tile_vertices_match_heights_and_normals() {
    let g = Hyperscape::new(0);
    let mut tiles: Vec<(i64, i64, Vec<Vec<&str>>)> = Vec::new();
    for r in rows(TILE_VERTICES) {
        let key = (r[0].parse().unwrap(), r[1].parse().unwrap());
        match tiles.last_mut() {
            Some((tx, tz, v)) if (*tx, *tz) == key => v.push(r),
            _ => tiles.push((key.0, key.1, vec![r])),
        }
    }
    assert_eq!(
        tiles.iter().map(|t| (t.0, t.1)).collect::<Vec<_>>(),
        [(0, 0), (1, -2), (3, 0)]
    );
    let (mut worst_h, mut worst_n): (f64, f64) = (0.0, 0.0);
    for (tx, tz, vertices) in &tiles {
        assert_eq!(vertices.len(), 64 * 64);
        let normals = tile::worker_normals(&g, *tx, *tz);
        for r in vertices {
            let (ix, iz): (usize, usize) = (r[2].parse().unwrap(), r[3].parse().unwrap());
            let (wx, wz) = (tile::main_coord(*tx, ix), tile::main_coord(*tz, iz));
            assert_eq!(
                (wx, wz),
                (num(r[4]), num(r[5])),
                "main-thread coordinates of {tx},{tz} [{ix},{iz}]"
            );
            let h_main = g.height(wx, wz);
            let h_worker = g.height(
                tile::worker_coord(*tx, ix as i64),
                tile::worker_coord(*tz, iz as i64),
            ) as f32;
            worst_h = worst_h.max((h_main - num(r[6])).abs());
            assert!(
                (h_main - num(r[6])).abs() <= 1e-9,
                "height_main {tx},{tz} [{ix},{iz}]: {h_main} vs {}",
                r[6]
            );
            assert!(
                (f64::from(h_worker) - num(r[7])).abs() <= 1e-9,
                "height_worker_f32 {tx},{tz} [{ix},{iz}]: {h_worker} vs {}",
                r[7]
            );
            let n = normals[iz * 64 + ix];
            for (k, col) in [8, 9, 10].into_iter().enumerate() {
                let err = (f64::from(n[k]) - num(r[col])).abs();
                worst_n = worst_n.max(err);
                assert!(
                    err <= 1e-6,
                    "normal[{k}] {tx},{tz} [{ix},{iz}]: {} vs {}",
                    n[k],
                    r[col]
                );
            }
        }
    }
    eprintln!("seed0_tile_vertices: largest height difference {worst_h:e} m, normal {worst_n:e}");
}

/// Seed 1 has two mountain centres, near (842, -404) with influence ~2797 and near
/// (2470, -2850) with influence ~2569 (ALGORITHM.md §4.1); the island lies well within
/// 2.5 influence radii of both, so every point is boosted by `1 + 0.5 exp(-0.3 nd^2)`
/// of its nearer centre.
#[test]
fn mountain_boost_applies_for_seeds_with_mountain_centres() {
    let g = Hyperscape::new(1);
    let m: Vec<_> = g
        .biome_centers()
        .iter()
        .filter(|c| c.biome == Biome::Mountains)
        .copied()
        .collect();
    assert_eq!(m.len(), 2);
    let expected_gain = |x: f64, z: f64| {
        let nd = |cx: f64, cz: f64, inf: f64| ((x - cx).hypot(z - cz)) / inf;
        let b1 = (-0.3 * nd(842.0, -404.0, 2797.0).powi(2)).exp();
        let b2 = (-0.3 * nd(2470.0, -2850.0, 2569.0).powi(2)).exp();
        1.0 + 0.5 * b1.max(b2)
    };
    let mut boosted = 0;
    for i in 0..400 {
        let (x, z) = (i as f64 * 3.7 - 740.0, i as f64 * -2.9 + 580.0);
        let (base, proc_) = (g.base(x, z), g.procedural(x, z));
        let want = (base / 50.0 * expected_gain(x, z)).min(1.0) * 50.0;
        assert!(
            (proc_ - want).abs() < 2e-3 * want,
            "({x}, {z}): base {base}, procedural {proc_}, want ~{want}"
        );
        if proc_ > base * 1.4 {
            boosted += 1;
        }
    }
    assert!(
        boosted > 300,
        "the boost should raise most island points by > 40%: {boosted}"
    );
    // At the first mountain centre, in the ocean: floor 2.5 m boosted by half.
    assert_eq!(g.base(m[0].x, m[0].z), 2.5);
    assert!((g.procedural(m[0].x, m[0].z) - 3.75).abs() < 1e-12);
    // Beyond 2.5 influence radii of both centres, nothing changes.
    assert_eq!(g.procedural(-9000.0, 9000.0), g.base(-9000.0, 9000.0));
    // Seed 0 has none: procedural is base everywhere.
    let g0 = Hyperscape::new(0);
    assert_eq!(g0.procedural(100.0, -50.0), g0.base(100.0, -50.0));
}

#[test]
fn different_seeds_give_different_terrain() {
    let (a, b) = (Hyperscape::new(0), Hyperscape::new(12345));
    let differ = (0..100)
        .filter(|&i| a.base(i as f64 * 3.0, 7.0) != b.base(i as f64 * 3.0, 7.0))
        .count();
    assert!(differ > 90, "{differ}");
}

/// The area path must equal the per-point path bit for bit: over the island interior,
/// the pond, the coast (shore band), the ocean, with a boosted seed, and for row bands.
#[test]
fn area_path_equals_point_path() {
    for seed in [0, 1, 77] {
        let g = Hyperscape::new(seed);
        for (x0, z0, step) in [
            (-60.0, -45.0, 1.7),
            (-140.0, 10.0, 0.9),
            (260.0, -320.0, 2.3),
            (-480.0, 300.0, 3.1),
        ] {
            let grid = Grid::new(x0, z0, step, 37, 29).unwrap();
            let mut area = vec![0.0; grid.len()];
            g.fill(&grid, &mut area);
            let mut band = vec![0.0; 10 * grid.nx];
            g.fill_rows(&grid, 7..17, &mut band);
            for iz in 0..grid.nz {
                for ix in 0..grid.nx {
                    let want = g.height(grid.x(ix), grid.z(iz));
                    assert_eq!(
                        area[iz * grid.nx + ix].to_bits(),
                        want.to_bits(),
                        "seed {seed} ({ix},{iz})"
                    );
                    if (7..17).contains(&iz) {
                        assert_eq!(band[(iz - 7) * grid.nx + ix].to_bits(), want.to_bits());
                    }
                }
            }
        }
    }
}

#[test]
fn heights_are_identical_across_threads() {
    let g = Hyperscape::new(5);
    let pts: Vec<(f64, f64)> = (0..2000)
        .map(|i| (i as f64 * 0.37 - 300.0, i as f64 * -0.29 + 250.0))
        .collect();
    let serial: Vec<u64> = pts.iter().map(|&(x, z)| g.height(x, z).to_bits()).collect();
    let threaded: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = pts
            .chunks(250)
            .map(|c| {
                s.spawn(|| {
                    c.iter()
                        .map(|&(x, z)| g.height(x, z).to_bits())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(serial, threaded);
}
