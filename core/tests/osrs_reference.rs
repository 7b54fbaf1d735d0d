//! Reference tests of the `osrs` generator: the client's table and the reference
//! values of the reference table (docs/src/reference/osrs.md, "Reference values"), per point and through the area path; agreement of the
//! area path with the per-point path on negative and i32-wrapping coordinates; and
//! the `Generator` contract (corners, bilinear blend, `fill_rows` bit for bit).

use terrain_core::generator::osrs::{
    self, MAX_HEIGHT, MIN_HEIGHT, OFFSET_X, OFFSET_Y, Osrs, tile_height, tile_heights_area,
    tile_heights_grid,
};
use terrain_core::{Generator, GeneratorKind, Grid, WorldGenerator};

const LUMBRIDGE_CSV: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/osrs/lumbridge_64x64.csv"
));

/// `(x, y, h)` rows of the Lumbridge table.
fn lumbridge() -> Vec<(i32, i32, i32)> {
    let mut lines = LUMBRIDGE_CSV.lines();
    assert_eq!(lines.next(), Some("x,y,height"));
    let rows: Vec<(i32, i32, i32)> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<i32> = l.split(',').map(|v| v.trim().parse().expect(l)).collect();
            assert_eq!(f.len(), 3, "{l}");
            (f[0], f[1], f[2])
        })
        .collect();
    assert_eq!(rows.len(), 64 * 64);
    rows
}

#[test]
fn lumbridge_table_per_point() {
    for (x, y, h) in lumbridge() {
        assert_eq!(tile_height(x, y), h, "tile ({x}, {y})");
    }
}

#[test]
fn lumbridge_table_area_path() {
    let area = tile_heights_area(3200, 3200, 64, 64);
    assert_eq!(area.len(), 64 * 64);
    for (x, y, h) in lumbridge() {
        let i = (y - 3200) as usize * 64 + (x - 3200) as usize;
        assert_eq!(area[i], h, "tile ({x}, {y})");
    }
}

/// The reference table (docs/src/reference/osrs.md, "Reference values") (plain world tile coordinates).
const REFERENCE_VALUES: [(i32, i32, i32); 12] = [
    (3222, 3218, 31),
    (3223, 3218, 30),
    (3222, 3219, 32),
    (3221, 3218, 34),
    (3222, 3217, 32),
    (3200, 3200, 29),
    (3136, 3136, 30),
    (3263, 3263, 40),
    (3240, 3250, 20),
    (3164, 3180, 37),
    (3213, 3424, 26),
    (0, 0, 39),
];

#[test]
fn algorithm_md_reference_values() {
    for (x, y, h) in REFERENCE_VALUES {
        assert_eq!(tile_height(x, y), h, "tile ({x}, {y})");
        assert_eq!(tile_heights_area(x, y, 1, 1), vec![h], "area at ({x}, {y})");
        // The same tile inside a larger area, not at its corner.
        let area = tile_heights_area(x - 3, y - 5, 7, 9);
        assert_eq!(area[5 * 7 + 3], h, "inside area at ({x}, {y})");
    }
}

/// Values from an independent arbitrary-precision (Python) transcription of
/// the reference description that reproduces the Lumbridge table: negative noise coordinates
/// (truncating `/`, masked fraction) and coordinates whose offsets wrap.
const INDEPENDENT: [(i32, i32, i32); 22] = [
    (-1, -1, 36),
    (-2, -3, 43),
    (-5, -7, 23),
    (-932731, -556238, 43),
    (-932732, -556239, 47),
    (-932733, -556241, 49),
    (-978097, -648162, 33),
    (-978096, -648161, 35),
    (-943028, -594061, 35),
    (-943025, -594059, 39),
    (2147483647, 2147483647, 29),
    (-2147483648, -2147483648, 46),
    (-2147483647, -2147483648, 38),
    (2146550916, 2146927409, 41),
    (2146550917, 2146927410, 40),
    (2146550915, 2146927408, 40),
    (2146505551, 5, 35),
    (2146505552, 6, 39),
    (5, 2146835487, 30),
    (6, 2146835488, 38),
    (-1000000, -2000000, 35),
    (123456789, -987654321, 34),
];

#[test]
fn negative_and_wrapping_values_match_independent_model() {
    for (x, y, h) in INDEPENDENT {
        assert_eq!(tile_height(x, y), h, "tile ({x}, {y})");
        let area = tile_heights_area(x.wrapping_sub(2), y.wrapping_sub(1), 4, 3);
        assert_eq!(area[4 + 2], h, "inside area at ({x}, {y})");
    }
}

#[test]
fn noise_height_is_tile_height_moved_by_the_offset() {
    for (x, y, h) in REFERENCE_VALUES.into_iter().chain(INDEPENDENT) {
        let moved = osrs::noise_height(x.wrapping_add(OFFSET_X), y.wrapping_add(OFFSET_Y));
        assert_eq!(moved, h, "tile ({x}, {y})");
    }
}

/// Asserts the area path equals the per-point path on the whole rectangle.
fn assert_area_matches(x: i32, y: i32, width: usize, depth: usize) {
    let area = tile_heights_area(x, y, width, depth);
    assert_eq!(area.len(), width * depth);
    for j in 0..depth {
        for i in 0..width {
            let (tx, ty) = (x.wrapping_add(i as i32), y.wrapping_add(j as i32));
            let h = tile_height(tx, ty);
            assert!((MIN_HEIGHT..=MAX_HEIGHT).contains(&h));
            assert_eq!(area[j * width + i], h, "area ({x}, {y}) tile ({tx}, {ty})");
        }
    }
}

/// World coordinates at which a noise coordinate (tile + offset + layer offset)
/// crosses 0 or wraps from i32::MAX to i32::MIN, for the three layers.
fn critical(offset: i32, layer_offsets: [i32; 3]) -> Vec<i32> {
    layer_offsets
        .into_iter()
        .flat_map(|d| {
            let shift = offset.wrapping_add(d);
            [0i32.wrapping_sub(shift), i32::MIN.wrapping_sub(shift)]
        })
        .collect()
}

#[test]
fn area_matches_per_point_at_zero_and_wrap_crossings() {
    let xs = critical(OFFSET_X, [45_365, 10_294, 0]);
    let ys = critical(OFFSET_Y, [91_923, 37_821, 0]);
    for (&cx, &cy) in xs.iter().zip(&ys) {
        // Straddle the crossing on both axes, at several alignments.
        for back in [1, 7, 10] {
            assert_area_matches(cx.wrapping_sub(back), cy.wrapping_sub(back + 3), 20, 17);
        }
    }
    for &cx in &xs {
        assert_area_matches(cx - 9, 3200, 21, 5);
    }
    for &cy in &ys {
        assert_area_matches(3200, cy - 9, 5, 21);
    }
}

#[test]
fn area_matches_per_point_around_world_zero_and_i32_limits() {
    assert_area_matches(-32, -32, 64, 64);
    assert_area_matches(-5, -3, 11, 13);
    // The world coordinates themselves wrap inside the area.
    assert_area_matches(i32::MAX - 10, i32::MAX - 12, 30, 30);
    assert_area_matches(i32::MIN, i32::MIN, 33, 33);
    assert_area_matches(i32::MIN + 1, i32::MAX - 2, 9, 7);
    // Where adding the offset wraps past i32::MAX.
    assert_area_matches(i32::MAX - OFFSET_X - 32, i32::MAX - OFFSET_Y - 32, 64, 64);
}

#[test]
fn area_matches_per_point_on_pseudo_random_areas() {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 32) as u32
    };
    for _ in 0..40 {
        let (x, y) = (next() as i32, next() as i32);
        let (w, d) = (1 + next() as usize % 24, 1 + next() as usize % 24);
        assert_area_matches(x, y, w, d);
    }
}

#[test]
fn grid_matches_per_point_for_unordered_axes() {
    let xs = [
        7,
        3,
        3,
        100,
        -7,
        -6,
        i32::MIN,
        i32::MAX,
        0,
        2,
        5,
        -932_731,
        -932_732,
    ];
    let ys = [
        i32::MAX - OFFSET_Y,
        -1,
        0,
        1,
        4,
        -556_239,
        -556_238,
        9,
        8,
        i32::MIN,
    ];
    let grid = tile_heights_grid(&xs, &ys);
    assert_eq!(grid.len(), xs.len() * ys.len());
    for (r, &y) in ys.iter().enumerate() {
        for (c, &x) in xs.iter().enumerate() {
            assert_eq!(grid[r * xs.len() + c], tile_height(x, y), "tile ({x}, {y})");
        }
    }
}

#[test]
fn empty_areas_are_empty() {
    assert!(tile_heights_area(0, 0, 0, 5).is_empty());
    assert!(tile_heights_area(0, 0, 5, 0).is_empty());
    assert!(tile_heights_grid(&[], &[1, 2]).is_empty());
}

#[test]
fn corners_are_h_over_16() {
    let g = Osrs::new();
    for (x, y, h) in REFERENCE_VALUES.into_iter().chain(INDEPENDENT) {
        let v = g.height(f64::from(x), f64::from(y));
        assert_eq!(16.0 * v, f64::from(h), "corner ({x}, {y})");
    }
    // Coordinates beyond i32 wrap rather than saturate or panic.
    let wrapped = g.height(4_294_967_296.0 + 3222.0, 3218.0 - 4_294_967_296.0);
    assert_eq!(16.0 * wrapped, 31.0);
}

#[test]
fn bilinear_blend_between_corners() {
    let g = Osrs::new();
    // Corners (3222, 3218) = 31, (3223, 3218) = 30, (3222, 3219) = 32.
    let h11 = f64::from(tile_height(3223, 3219));
    assert_eq!(g.height(3222.5, 3218.5), (31.0 + 30.0 + 32.0 + h11) / 64.0);
    assert_eq!(g.height(3222.25, 3218.0), (3.0 * 31.0 + 30.0) / 64.0);
    assert_eq!(g.height(3222.0, 3218.75), (31.0 + 3.0 * 32.0) / 64.0);
    assert_eq!(g.height(3221.5, 3218.0), (34.0 + 31.0) / 32.0);
    // Negative coordinates blend towards the lower corner (floor, not truncation).
    let (a, b) = (tile_height(-2, -1), tile_height(-1, -1));
    let (c, d) = (tile_height(-2, 0), tile_height(-1, 0));
    assert_ne!((a, b, c), (d, d, d), "pick corners that differ");
    let expected = f64::from(a + b + c + d) / 64.0;
    assert_eq!(g.height(-1.5, -0.5), expected);
}

/// Asserts `fill`, and `fill_rows` on several row bands, equal `height` bit for bit.
fn assert_fill_matches(grid: Grid) {
    let g = Osrs::new();
    let mut whole = vec![f64::NAN; grid.len()];
    g.fill(&grid, &mut whole);
    for iz in 0..grid.nz {
        for ix in 0..grid.nx {
            let expected = g.height(grid.x(ix), grid.z(iz));
            let got = whole[iz * grid.nx + ix];
            assert_eq!(
                got.to_bits(),
                expected.to_bits(),
                "{grid:?} at ({ix}, {iz})"
            );
        }
    }
    let nz = grid.nz;
    for rows in [
        0..1,
        nz / 3..nz,
        nz / 2..nz / 2 + 1,
        1.min(nz)..nz.saturating_sub(1),
    ] {
        let mut band = vec![f64::NAN; rows.len() * grid.nx];
        g.fill_rows(&grid, rows.clone(), &mut band);
        let from_whole = &whole[rows.start * grid.nx..rows.end * grid.nx];
        let same = band
            .iter()
            .zip(from_whole)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "{grid:?} rows {rows:?}");
    }
}

#[test]
fn fill_matches_height_on_integer_grids() {
    let grid = |x0: f64, z0: f64, step, nx, nz| Grid::new(x0, z0, step, nx, nz).expect("grid");
    assert_fill_matches(grid(3200.0, 3200.0, 1.0, 65, 65));
    assert_fill_matches(grid(-40.0, -33.0, 1.0, 70, 150)); // more rows than one band
    assert_fill_matches(grid(f64::from(i32::MAX) - 20.0, -2.0e9, 1.0, 41, 9));
    let wrap_x = f64::from(i32::MAX - OFFSET_X) - 10.0;
    assert_fill_matches(grid(wrap_x, f64::from(i32::MIN), 1.0, 24, 24));
    assert_fill_matches(grid(0.0, 0.0, 2.0, 33, 17));
    assert_fill_matches(grid(-1000.0, 500.0, 64.0, 5, 5));
}

#[test]
fn fill_matches_height_on_fractional_grids() {
    let grid = |x0: f64, z0: f64, step, nx, nz| Grid::new(x0, z0, step, nx, nz).expect("grid");
    assert_fill_matches(grid(3200.0, 3200.0, 0.25, 65, 65));
    assert_fill_matches(grid(3200.3, 3199.9, 0.37, 40, 90));
    assert_fill_matches(grid(-7.5, -3.25, 0.5, 31, 31));
    assert_fill_matches(grid(-0.1, -0.1, 1.5, 20, 20));
    assert_fill_matches(grid(1.0e9 + 0.5, -1.0e9 - 0.5, 7.3, 12, 12));
    assert_fill_matches(grid(4.5e9, -4.5e9, 0.125, 10, 10));
    assert_fill_matches(grid(0.1, 0.2, 1.0, 16, 16));
}

#[test]
fn fill_far_away_is_cheap_and_total() {
    let g = Osrs::new();
    for x in [
        1.0e9,
        -1.0e9,
        1.0e18,
        -1.0e300,
        1.0e300,
        f64::MAX,
        f64::MIN_POSITIVE,
    ] {
        let grid = Grid::new(x, x, 1.0, 1, 1).expect("grid");
        let mut out = [f64::NAN];
        g.fill(&grid, &mut out);
        assert_eq!(out[0].to_bits(), g.height(x, x).to_bits(), "x = {x}");
        assert!((10.0 / 16.0..=60.0 / 16.0).contains(&out[0]));
    }
}

#[test]
fn world_generator_dispatches_to_osrs() {
    let world = WorldGenerator::new(GeneratorKind::Osrs, 0).expect("osrs");
    assert_eq!(world.tile_size(), osrs::TILE_SIZE);
    assert_eq!(world.tile_resolution(), osrs::TILE_RESOLUTION);
    let grid = Grid::new(3200.0, 3200.0, 1.0, 65, 65).expect("grid");
    let (mut a, mut b) = (vec![0.0; grid.len()], vec![0.0; grid.len()]);
    world.fill(&grid, &mut a);
    Osrs::new().fill(&grid, &mut b);
    assert_eq!(a, b);
    assert_eq!(16.0 * a[0], 29.0);
}

#[test]
fn fill_axes_matches_height_on_irregular_axes() {
    let g = Osrs::new();
    let xs = [
        3222.0,
        3222.5,
        3221.0,
        -0.5,
        -1.0,
        0.0,
        7.75,
        7.75,
        1.0e9 + 0.25,
        -3.3,
    ];
    let zs: Vec<f64> = (0..150).map(|i| 3100.0 + f64::from(i) * 1.37).collect();
    let mut out = vec![f64::NAN; xs.len() * zs.len()];
    g.fill_axes(&xs, &zs, &mut out);
    for (iz, &z) in zs.iter().enumerate() {
        for (ix, &x) in xs.iter().enumerate() {
            let expected = g.height(x, z).to_bits();
            assert_eq!(out[iz * xs.len() + ix].to_bits(), expected, "({x}, {z})");
        }
    }
}
