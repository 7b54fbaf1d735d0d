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
//! - voxel: water at and below sea level, land on a ramp from sea level to
//!   `max_height` (colouring by surface block is the arm to replace here).

use terrain_core::{
    WorldGenerator,
    generator::hyperscape::{
        Colours, Hyperscape, Noise,
        colours::{BIOME_NAMES, colour_of},
    },
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

/// Voxel land from sea level (sRGB) ...
const VOXEL_LOW: [f64; 3] = [104.0, 160.0, 70.0];
/// ... to the top of the world.
const VOXEL_HIGH: [f64; 3] = [235.0, 235.0, 235.0];

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
    /// Voxel worlds: heights are whole blocks.
    Voxel {
        sea_level: f64,
        max_height: f64,
    },
}

impl<'a> Palette<'a> {
    /// The palette of `generator`: the one dispatch on a world's generator kind.
    pub fn of(generator: &'a WorldGenerator) -> Self {
        match generator {
            WorldGenerator::Hyperscape(g) => Self::hyperscape(g),
            WorldGenerator::Osrs(_) => Palette::Osrs,
            WorldGenerator::Voxel(v) => Palette::Voxel {
                sea_level: f64::from(v.config().sea_level),
                max_height: f64::from(v.config().max_height),
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
            &Palette::Voxel {
                sea_level,
                max_height,
            } => {
                if height <= sea_level {
                    let depth = ((sea_level - height) / WATER_DEPTH).clamp(0.0, 1.0);
                    return Swatch {
                        rgb: mix(WATER_SHALLOW, WATER_DEEP, depth),
                        water: true,
                    };
                }
                let t = ((height - sea_level) / (max_height - sea_level).max(1.0)).clamp(0.0, 1.0);
                Swatch {
                    rgb: mix(VOXEL_LOW, VOXEL_HIGH, t),
                    water: false,
                }
            }
        }
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
            &Palette::Voxel {
                sea_level,
                max_height,
            } => vec![
                LegendEntry {
                    label: format!("water (at or below sea level, {sea_level} m)"),
                    rgb: srgb(WATER_SHALLOW),
                },
                LegendEntry {
                    label: "land just above sea level".to_string(),
                    rgb: srgb(VOXEL_LOW),
                },
                LegendEntry {
                    label: format!("{max_height} m"),
                    rgb: srgb(VOXEL_HIGH),
                },
            ],
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
    use terrain_core::GeneratorKind;

    #[test]
    fn hyperscape_water_is_below_nine_metres() {
        let g = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
        let p = Palette::of(&g);
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
        let g = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
        let WorldGenerator::Hyperscape(h) = &g else {
            unreachable!()
        };
        let want = h.colours().at(h.noise(), 120.0, -40.0, 20.0f32);
        let got = Palette::of(&g).swatch(120.0, -40.0, 20.0);
        for k in 0..3 {
            let lin = f64::from(want.rgb[k]);
            assert_eq!(got.rgb[k], 255.0 * linear_to_srgb(lin));
        }
    }

    #[test]
    fn osrs_ramps_by_height_and_clamps() {
        let g = WorldGenerator::new(GeneratorKind::Osrs, 0).unwrap();
        let p = Palette::of(&g);
        assert_eq!(p.swatch(0.0, 0.0, -3.0).rgb, OSRS_RAMP[0].1);
        assert_eq!(p.swatch(0.0, 0.0, 99.0).rgb, OSRS_RAMP[3].1);
        assert_eq!(p.swatch(0.0, 0.0, OSRS_RAMP[1].0).rgb, OSRS_RAMP[1].1);
        assert_eq!(p.legend().len(), OSRS_RAMP.len());
    }

    #[test]
    fn srgb_encoding_endpoints() {
        assert_eq!(linear_to_srgb(0.0), 0.0);
        assert!((linear_to_srgb(1.0) - 1.0).abs() < 1e-12);
        assert!((linear_to_srgb(0.2140) - 0.5).abs() < 1e-3);
    }
}
