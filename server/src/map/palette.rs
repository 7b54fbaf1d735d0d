//! How a map pixel is coloured: per generator kind, before hill shading.
//!
//! [`Palette::of`] is the one place that dispatches on a world's generator: a new
//! kind of world (voxel worlds colouring by surface block, say) adds one arm there
//! and one variant here.
//!
//! - hyperscape: the original terrain worker's vertex colours
//!   ([`Colours::at`](terrain_core::generator::hyperscape::Colours::at) at the pixel's
//!   point and its height rounded to f32, linear RGB, sRGB-encoded for the PNG), and
//!   water where the height is below [`WATER_THRESHOLD`] (9 m, the original's
//!   `WATER_THRESHOLD`), darker with depth.
//! - osrs: a ramp over the procedural height range (`h / 16` m for `h` in 10..=60),
//!   low green to high brown.
//! - voxel: the colour of the block seen from straight above (the highest non-air
//!   block of the pixel's column, zones applied: leaves, water, ice, flowers, else the
//!   surface block), as the block palette gives it ([`BlockKind::info`]); water and
//!   ice are drawn flat.

use terrain_core::{
    Generator, Grid, Terrain, WorldGenerator,
    generator::hyperscape::{
        Colours, Hyperscape, Noise,
        colours::{BIOME_NAMES, colour_of},
    },
    voxel::BlockKind,
};

/// Heights below this are water on hyperscape worlds (metres).
pub const WATER_THRESHOLD: f64 = 9.0;

/// Shallow water at the water line (sRGB).
const WATER_SHALLOW: [f64; 3] = [72.0, 134.0, 190.0];
/// Water at [`WATER_DEPTH`] below the line and deeper (sRGB).
const WATER_DEEP: [f64; 3] = [24.0, 60.0, 118.0];
/// The depth at which water is drawn in [`WATER_DEEP`].
const WATER_DEPTH: f64 = 9.0;

/// The osrs height ramp: `(metres, sRGB)`, ascending.
const OSRS_RAMP: [(f64, [f64; 3]); 4] = [
    (10.0 / 16.0, [96.0, 150.0, 72.0]),
    (25.0 / 16.0, [138.0, 176.0, 88.0]),
    (45.0 / 16.0, [170.0, 150.0, 96.0]),
    (60.0 / 16.0, [130.0, 100.0, 70.0]),
];

/// A voxel map band reads one rectangle of columns when its pixels are at most this
/// many metres apart (the rectangle then has at most 4 columns a pixel); sparser
/// pixels read their own column each.
const VOXEL_DENSE_METRES: f64 = 2.0;

/// What one pixel shows before shading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Swatch {
    /// sRGB, 0..=255 (unrounded).
    pub rgb: [f64; 3],
    /// Water is drawn flat: hill shading does not apply.
    pub water: bool,
}

/// One entry of a map's legend.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    pub label: String,
    /// sRGB, 0..=255.
    pub rgb: [u8; 3],
}

/// The colouring of one world's map.
#[derive(Debug)]
pub enum Palette<'a> {
    Hyperscape {
        colours: Colours,
        noise: &'a Noise,
    },
    Osrs,
    /// Voxel worlds: by the block seen from above, which needs the zones.
    Voxel {
        terrain: &'a Terrain,
        sea_level: f64,
    },
}

impl<'a> Palette<'a> {
    /// The palette of `terrain`'s world: the one dispatch on a world's generator kind.
    pub fn of(terrain: &'a Terrain) -> Self {
        match terrain.generator() {
            WorldGenerator::Hyperscape(g) => Self::hyperscape(g),
            WorldGenerator::Osrs(_) => Palette::Osrs,
            WorldGenerator::Voxel(v) => Palette::Voxel {
                terrain,
                sea_level: f64::from(v.config().sea_level),
            },
        }
    }

    fn hyperscape(g: &'a Hyperscape) -> Self {
        Palette::Hyperscape {
            colours: g.colours(),
            noise: g.noise(),
        }
    }

    /// The colour at `(x, z)` whose height is `height`.
    pub fn swatch(&self, x: f64, z: f64, height: f64) -> Swatch {
        match self {
            Palette::Hyperscape { colours, noise } => {
                if height < WATER_THRESHOLD {
                    let depth = ((WATER_THRESHOLD - height) / WATER_DEPTH).clamp(0.0, 1.0);
                    return Swatch {
                        rgb: mix(WATER_SHALLOW, WATER_DEEP, depth),
                        water: true,
                    };
                }
                let c = colours.at(noise, x, z, height as f32);
                Swatch {
                    rgb: c.rgb.map(|v| 255.0 * linear_to_srgb(f64::from(v))),
                    water: false,
                }
            }
            Palette::Osrs => Swatch {
                rgb: ramp(&OSRS_RAMP, height),
                water: false,
            },
            Palette::Voxel { terrain, .. } => {
                let (cx, cz) = (column(x), column(z));
                let top = terrain
                    .voxel_area(cx, cz, 1, 1)
                    .map_or(BlockKind::Air, |v| v.top(cx, cz));
                block_swatch(top)
            }
        }
    }

    /// The heights of every sample of `grid` (row-major) and the swatches of the
    /// samples inside its one-sample border (`grid.nx - 2` a row): what a map band
    /// draws. A voxel world reads both from the same columns (the heights are the
    /// columns' tops, as `Generator::height` answers them), so no column is built
    /// twice; other worlds fill the heights by the terrain's area path.
    pub fn heights_and_band(&self, terrain: &Terrain, grid: &Grid) -> (Vec<f64>, Vec<Swatch>) {
        if let Palette::Voxel { .. } = self {
            let (heights, tops) = voxel_columns(terrain, grid);
            return (heights, tops.into_iter().map(block_swatch).collect());
        }
        let mut heights = vec![0.0; grid.nx * grid.nz];
        terrain.fill(grid, &mut heights);
        let band = self.band(grid, &heights);
        (heights, band)
    }

    /// The swatches of the pixels of `grid` inside its one-sample border (row-major,
    /// `grid.nx - 2` a row), `heights` the heights of all of `grid`'s samples: the
    /// same as [`Palette::swatch`] at each, a voxel band reading its columns at once.
    pub fn band(&self, grid: &Grid, heights: &[f64]) -> Vec<Swatch> {
        if let Palette::Voxel { terrain, .. } = self {
            return voxel_columns(terrain, grid)
                .1
                .into_iter()
                .map(block_swatch)
                .collect();
        }
        let (w, h) = (grid.nx.saturating_sub(2), grid.nz.saturating_sub(2));
        (1..=h)
            .flat_map(|j| (1..=w).map(move |i| (i, j)))
            .map(|(i, j)| self.swatch(grid.x(i), grid.z(j), heights[j * grid.nx + i]))
            .collect()
    }

    /// What the colours mean.
    pub fn legend(&self) -> Vec<LegendEntry> {
        let srgb = |rgb: [f64; 3]| rgb.map(|v| v.round().clamp(0.0, 255.0) as u8);
        match self {
            Palette::Hyperscape { .. } => {
                let mut out = vec![
                    LegendEntry {
                        label: format!("deep water (below {} m)", WATER_THRESHOLD - WATER_DEPTH),
                        rgb: srgb(WATER_DEEP),
                    },
                    LegendEntry {
                        label: format!("shallow water (below {WATER_THRESHOLD} m)"),
                        rgb: srgb(WATER_SHALLOW),
                    },
                ];
                // Lakes share plains' colour: listed once.
                for (id, name) in BIOME_NAMES.iter().enumerate().filter(|(i, _)| *i != 6) {
                    let lin = colour_of(id as u8);
                    out.push(LegendEntry {
                        label: (*name).to_string(),
                        rgb: srgb(lin.map(|v| 255.0 * linear_to_srgb(v))),
                    });
                }
                out.push(LegendEntry {
                    label: "shore tint (7.5 to 12.5 m)".to_string(),
                    rgb: srgb([0.545, 0.451, 0.333].map(|v| 255.0 * linear_to_srgb(v))),
                });
                out
            }
            Palette::Voxel { .. } => BlockKind::ALL
                .iter()
                .filter(|k| !matches!(k, BlockKind::Air | BlockKind::Stone))
                .map(|&k| LegendEntry {
                    label: k.name().replace('_', " "),
                    rgb: k.info().colour,
                })
                .collect(),
            Palette::Osrs => OSRS_RAMP
                .iter()
                .map(|(h, rgb)| LegendEntry {
                    label: format!("{h} m"),
                    rgb: srgb(*rgb),
                })
                .collect(),
        }
    }
}

/// The heights of every sample of `grid` and the top blocks of the samples inside
/// its one-sample border, from voxel columns with the zones applied: one rectangle of
/// columns under the whole grid when its samples are at most
/// [`VOXEL_DENSE_METRES`] apart, else each sample's own column
/// ([`Terrain::voxel_column_top`], which builds no blocks). A column beyond the
/// voxel range has the terrain's height and shows air.
fn voxel_columns(terrain: &Terrain, grid: &Grid) -> (Vec<f64>, Vec<BlockKind>) {
    let (nx, nz) = (grid.nx, grid.nz);
    let dense = (grid.step <= VOXEL_DENSE_METRES && nx > 0 && nz > 0)
        .then(|| {
            let (x0, z0) = (column(grid.x(0)), column(grid.z(0)));
            let (x1, z1) = (column(grid.x(nx - 1)), column(grid.z(nz - 1)));
            let span = |a: i64, b: i64| usize::try_from(b - a + 1).unwrap_or(0);
            terrain.voxel_area(x0, z0, span(x0, x1), span(z0, z1))
        })
        .flatten();
    let mut heights = Vec::with_capacity(nx * nz);
    let mut tops = Vec::with_capacity(nx.saturating_sub(2) * nz.saturating_sub(2));
    for j in 0..nz {
        for i in 0..nx {
            let (x, z) = (grid.x(i), grid.z(j));
            let (cx, cz) = (column(x), column(z));
            let found = match &dense {
                Some(v) => v.column(cx, cz).map(|c| (c.height, v.top(cx, cz))),
                None => terrain
                    .voxel_column_top(cx, cz)
                    .map(|(c, top)| (c.height, top)),
            };
            let (height, top) = match found {
                Some((h, top)) => (f64::from(h), top),
                None => (terrain.height(x, z), BlockKind::Air),
            };
            heights.push(height);
            if (1..nx.saturating_sub(1)).contains(&i) && (1..nz.saturating_sub(1)).contains(&j) {
                tops.push(top);
            }
        }
    }
    (heights, tops)
}

/// The block column of a coordinate (`floor`; NaN is column 0).
fn column(c: f64) -> i64 {
    let f = libm::floor(c);
    if f.is_nan() { 0 } else { f as i64 }
}

/// What a voxel column seen from above shows: its top block's colour, water and ice
/// flat.
fn block_swatch(top: BlockKind) -> Swatch {
    Swatch {
        rgb: top.info().colour.map(f64::from),
        water: matches!(top, BlockKind::Water | BlockKind::Ice),
    }
}

/// `a` to `b` by `t` in 0..=1.
fn mix(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
    [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * t)
}

/// The colour of `height` on a piecewise-linear ramp, clamped at its ends.
fn ramp(stops: &[(f64, [f64; 3])], height: f64) -> [f64; 3] {
    let (first, last) = (stops[0], stops[stops.len() - 1]);
    // NaN takes the first stop too.
    if height.is_nan() || height <= first.0 {
        return first.1;
    }
    for pair in stops.windows(2) {
        let ((h0, c0), (h1, c1)) = (pair[0], pair[1]);
        if height <= h1 {
            return mix(c0, c1, (height - h0) / (h1 - h0));
        }
    }
    last.1
}

/// The sRGB encoding of a linear channel (clamped to 0..=1), as displays expect.
pub fn linear_to_srgb(v: f64) -> f64 {
    let v = v.clamp(0.0, 1.0);
    if v <= 0.0031308 {
        v * 12.92
    } else {
        1.055 * libm::pow(v, 1.0 / 2.4) - 0.055
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrain_core::{FlatZone, GeneratorKind, Overlap, ZoneSet, zones::Shape};

    fn terrain(kind: GeneratorKind) -> Terrain {
        let g = WorldGenerator::new(kind, 0).unwrap();
        let zones = ZoneSet::new(Overlap::default(), g.tile_size());
        Terrain::new(g, zones)
    }

    #[test]
    fn hyperscape_water_is_below_nine_metres() {
        let t = terrain(GeneratorKind::Hyperscape);
        let p = Palette::of(&t);
        assert!(p.swatch(0.0, 0.0, 8.999).water);
        assert!(!p.swatch(0.0, 0.0, 9.0).water);
        assert_eq!(
            p.swatch(0.0, 0.0, 8.999_999).rgb,
            p.swatch(5.0, 5.0, 8.999_999).rgb
        );
        assert_eq!(p.swatch(0.0, 0.0, -50.0).rgb, WATER_DEEP);
    }

    #[test]
    fn hyperscape_land_is_the_vertex_colour_srgb_encoded() {
        let t = terrain(GeneratorKind::Hyperscape);
        let WorldGenerator::Hyperscape(h) = t.generator() else {
            unreachable!()
        };
        let want = h.colours().at(h.noise(), 120.0, -40.0, 20.0f32);
        let got = Palette::of(&t).swatch(120.0, -40.0, 20.0);
        for k in 0..3 {
            let lin = f64::from(want.rgb[k]);
            assert_eq!(got.rgb[k], 255.0 * linear_to_srgb(lin));
        }
    }

    #[test]
    fn osrs_ramps_by_height_and_clamps() {
        let t = terrain(GeneratorKind::Osrs);
        let p = Palette::of(&t);
        assert_eq!(p.swatch(0.0, 0.0, -3.0).rgb, OSRS_RAMP[0].1);
        assert_eq!(p.swatch(0.0, 0.0, 99.0).rgb, OSRS_RAMP[3].1);
        assert_eq!(p.swatch(0.0, 0.0, OSRS_RAMP[1].0).rgb, OSRS_RAMP[1].1);
        assert_eq!(p.legend().len(), OSRS_RAMP.len());
    }

    /// The kinds seen from above over `n` x `n` columns from `(x0, z0)`, each
    /// pixel checked against the generator's own blocks.
    fn voxel_tops(t: &Terrain, x0: i64, z0: i64, n: usize) -> Vec<BlockKind> {
        let p = Palette::of(t);
        let volume = t.voxel_area(x0, z0, n, n).unwrap();
        let mut kinds = Vec::new();
        for z in z0..z0 + n as i64 {
            for x in x0..x0 + n as i64 {
                let top = volume.top(x, z);
                // The highest non-air block, and nothing above it.
                let y = (0..i64::from(volume.height()))
                    .rev()
                    .find(|&y| volume.get(x, y, z) != BlockKind::Air)
                    .unwrap();
                assert_eq!(volume.get(x, y, z), top);
                let s = p.swatch(
                    x as f64 + 0.25,
                    z as f64 + 0.75,
                    t.height(x as f64, z as f64),
                );
                assert_eq!(s, block_swatch(top), "({x}, {z})");
                assert_eq!(s.rgb, top.info().colour.map(f64::from));
                kinds.push(top);
            }
        }
        kinds
    }

    #[test]
    fn voxel_pixels_are_the_top_block_s_colour() {
        let t = terrain(GeneratorKind::Voxel);
        let kinds = voxel_tops(&t, -32, -32, 64);
        let mut distinct = kinds.clone();
        distinct.sort_by_key(|k| k.id());
        distinct.dedup();
        // Coloured by block, not by height: several kinds, water flat among them.
        assert!(distinct.len() >= 3, "{distinct:?}");
        assert!(!distinct.contains(&BlockKind::Air), "{distinct:?}");
        let p = Palette::of(&t);
        assert_eq!(p.legend().len(), BlockKind::ALL.len() - 2);
        assert!(block_swatch(BlockKind::Water).water && !block_swatch(BlockKind::Grass).water);
    }

    #[test]
    fn a_zone_changes_the_voxel_colours_it_levels() {
        let mut t = terrain(GeneratorKind::Voxel);
        // The most common top kind near the origin before the zone ...
        let before = voxel_tops(&t, 0, 0, 16);
        let zone = FlatZone {
            id: "pad".into(),
            center_x: 8.0,
            center_z: 8.0,
            shape: Shape::Rect {
                width: 16.0,
                depth: 16.0,
            },
            height: f64::from(t.generator().as_voxel().unwrap().config().max_height) - 2.0,
            blend_radius: 0.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        t.zones_mut().insert(zone, 1);
        // ... and after: a high dry pad shows its bare surface, never water or leaves.
        let after = voxel_tops(&t, 0, 0, 16);
        assert_ne!(before, after);
        assert!(
            after
                .iter()
                .all(|k| !matches!(k, BlockKind::Water | BlockKind::Ice | BlockKind::Leaves)),
            "{after:?}"
        );
    }

    #[test]
    fn a_voxel_band_equals_its_pixels_dense_and_sparse() {
        let t = terrain(GeneratorKind::Voxel);
        let p = Palette::of(&t);
        for step in [0.25, 1.0, 2.0, 8.0] {
            let grid = Grid::new(-40.125, 17.5, step, 34, 10).unwrap();
            let mut heights = vec![0.0; grid.nx * grid.nz];
            t.fill(&grid, &mut heights);
            let band = p.band(&grid, &heights);
            assert_eq!(band.len(), 32 * 8);
            for j in 1..=8 {
                for i in 1..=32 {
                    let want = p.swatch(grid.x(i), grid.z(j), heights[j * grid.nx + i]);
                    assert_eq!(band[(j - 1) * 32 + i - 1], want, "step {step} ({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn a_voxel_band_reads_the_heights_the_terrain_fills_from_its_columns() {
        let mut t = terrain(GeneratorKind::Voxel);
        let zone = FlatZone {
            id: "pad".into(),
            center_x: -20.0,
            center_z: 22.0,
            shape: Shape::Circle { radius: 9.0 },
            height: 30.4,
            blend_radius: 4.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        t.zones_mut().insert(zone, 1);
        for step in [0.25, 1.0, 2.0, 8.0] {
            let grid = Grid::new(-40.125, 17.5, step, 34, 10).unwrap();
            let mut want = vec![0.0; grid.nx * grid.nz];
            t.fill(&grid, &mut want);
            let p = Palette::of(&t);
            let (heights, band) = p.heights_and_band(&t, &grid);
            assert_eq!(heights, want, "step {step}");
            assert_eq!(band, p.band(&grid, &want), "step {step}");
        }
        let h = terrain(GeneratorKind::Hyperscape);
        let grid = Grid::new(100.0, -60.0, 0.5, 34, 10).unwrap();
        let mut want = vec![0.0; grid.nx * grid.nz];
        h.fill(&grid, &mut want);
        let p = Palette::of(&h);
        assert_eq!(
            p.heights_and_band(&h, &grid),
            (want.clone(), p.band(&grid, &want))
        );
    }

    #[test]
    fn srgb_encoding_endpoints() {
        assert_eq!(linear_to_srgb(0.0), 0.0);
        assert!((linear_to_srgb(1.0) - 1.0).abs() < 1e-12);
        assert!((linear_to_srgb(0.2140) - 0.5).abs() < 1e-3);
    }
}
