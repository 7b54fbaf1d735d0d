//! The walkability layer of the map: a transparent overlay shading the ground an
//! entity may not stand on, by the world's walkability rule, one colour per reason.
//!
//! Pixel `(i, j)` shows the judgement at its centre (the projection of
//! [`super::render`](mod@super::render)), exactly what `POST
//! /v1/worlds/{w}/terrain-info` answers there: transparent where `walkable`, else the
//! colour of its `reason` ([`colour`]).
//! Under `block-step` (voxel worlds), ground a point alone may stand on but whose
//! movement tile stands more than one block above one of its eight neighbouring tiles
//! (it cannot be stepped up onto from there: reason `step` of path checks) is shaded
//! as `step`. Each band of pixels reads its heights once, from the area path
//! ([`Walker::step_rises`]).

use terrain_core::{
    Terrain,
    walk::{Reason, WalkRule, Walker},
};

use super::render::{MapTile, TILE_PIXELS};

/// The layer's ETag prefix, changed when the rendering changes (as
/// [`super::RENDERING`] is for the terrain layer).
pub const RENDERING: &str = "walk1";

/// Metres around a map tile's pixel centres whose heights the layer reads: the slope's
/// neighbours at 1 m, and the centres of the neighbours of a pixel's movement tile
/// (within 1.5 m) for steps.
pub const MARGIN: f64 = 2.0;

/// The straight-alpha RGBA of ground blocked for `reason`.
pub fn colour(reason: Reason) -> [u8; 4] {
    match reason {
        Reason::Water => [16, 32, 96, 150],
        Reason::Slope => [226, 64, 24, 165],
        Reason::Zone => [124, 0, 168, 190],
        Reason::Step => [255, 184, 0, 190],
    }
}

/// One entry of the layer's legend.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkLegendEntry {
    /// The `reason` code of terrain info.
    pub reason: &'static str,
    pub label: String,
    /// Straight-alpha RGBA.
    pub rgba: [u8; 4],
}

/// The reasons `rule` can shade, with what they mean.
pub fn legend(rule: &WalkRule) -> Vec<WalkLegendEntry> {
    let mut out = Vec::new();
    let mut add = |reason: Reason, label: String| {
        out.push(WalkLegendEntry {
            reason: reason.code(),
            label,
            rgba: colour(reason),
        });
    };
    if let Some(level) = rule.water_level() {
        add(
            Reason::Water,
            format!(
                "water: under water (ground below {} m)",
                terrain_core::quote::Num(level)
            ),
        );
    }
    match rule {
        WalkRule::Hyperscape { .. } | WalkRule::Slope { .. } => add(
            Reason::Slope,
            "slope: steeper than the biome's limit".to_string(),
        ),
        WalkRule::MaxSlope { max_slope, .. } => add(
            Reason::Slope,
            format!(
                "slope: steeper than {}",
                terrain_core::quote::Num(*max_slope)
            ),
        ),
        WalkRule::BlockStep { .. } => {}
    }
    add(
        Reason::Zone,
        "zone: a flat zone registered with walkable false".to_string(),
    );
    if rule.max_step().is_some() {
        add(
            Reason::Step,
            "step: more than one block above a neighbouring tile".to_string(),
        );
    }
    out
}

/// An upper bound of the heights one band of `rows` rows of `tile` reads (the cost
/// meter's units): each axis holds each pixel centre and its neighbours at 1 m, shared
/// between pixels at 1 m a pixel and finer; twice that under a rule judging steps.
pub fn heights_estimate(tile: MapTile, rows: usize, rule: &WalkRule) -> u64 {
    let m = tile.metres_per_pixel();
    let axis = |n: usize| -> u64 {
        let n = n as f64;
        let spread = if m <= 1.0 { n + 2.0 / m } else { 3.0 * n };
        spread as u64
    };
    let once = axis(TILE_PIXELS) * axis(rows);
    if rule.max_step().is_some() {
        2 * once
    } else {
        once
    }
}

/// The RGBA pixels (row-major, 4 bytes each) of rows `rows` of `tile`'s walk layer,
/// and the heights read.
pub fn render_rows(
    terrain: &Terrain,
    rule: &WalkRule,
    tile: MapTile,
    rows: std::ops::Range<usize>,
) -> (Vec<u8>, usize) {
    let xs: Vec<f64> = (0..TILE_PIXELS as i64)
        .map(|i| tile.pixel_centre(i, 0).0)
        .collect();
    let zs: Vec<f64> = rows.map(|j| tile.pixel_centre(0, j as i64).1).collect();
    let walker = Walker::new(terrain, rule);
    let lattice = walker.step_rises(&xs, &zs);
    let mut out = Vec::with_capacity(lattice.cells.len() * 4);
    for (k, cell) in lattice.cells.iter().enumerate() {
        let shade = match cell {
            Some(reason) => colour(*reason),
            None if lattice.rises.get(k).copied().unwrap_or(false) => colour(Reason::Step),
            None => [0; 4],
        };
        out.extend_from_slice(&shade);
    }
    (out, lattice.heights)
}

/// The whole of `tile`'s walk layer as RGBA pixels.
pub fn render(terrain: &Terrain, rule: &WalkRule, tile: MapTile) -> Vec<u8> {
    render_rows(terrain, rule, tile, 0..TILE_PIXELS).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrain_core::{
        GeneratorKind, Overlap, WorldGenerator, ZoneSet, walk::BiomeLimits, zones::ZoneDoc,
    };

    fn island_with_hall() -> Terrain {
        let g = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
        let mut zones = ZoneSet::new(Overlap::Layered, g.tile_size());
        let doc: ZoneDoc = serde_json::from_str(
            r#"{"centerX": 20.0, "centerZ": 20.0, "width": 16.0, "depth": 10.0, "height": 14.0, "blendRadius": 3.0, "walkable": false}"#,
        )
        .unwrap();
        zones.insert(doc.spec().unwrap().resolve("hall", f64::NAN), 1);
        Terrain::new(g, zones)
    }

    #[test]
    fn pixels_are_the_judgement_at_their_centres() {
        let t = island_with_hall();
        let rule = WalkRule::Slope {
            limits: BiomeLimits::hyperscape(),
            water_level: 9.0,
        };
        let walker = Walker::new(&t, &rule);
        // Zoom 5 over the hall; zoom 1 over the coast (8 m a pixel).
        for tile in [
            MapTile {
                zoom: 5,
                x: 0,
                y: 0,
            },
            MapTile {
                zoom: 1,
                x: -1,
                y: -1,
            },
        ] {
            let rgba = render(&t, &rule, tile);
            assert_eq!(rgba.len(), TILE_PIXELS * TILE_PIXELS * 4);
            let mut seen = std::collections::HashSet::new();
            for j in (0..TILE_PIXELS).step_by(3) {
                for i in (0..TILE_PIXELS).step_by(5) {
                    let (x, z) = tile.pixel_centre(i as i64, j as i64);
                    let want = walker.info(x, z).reason.map_or([0; 4], colour);
                    let k = (j * TILE_PIXELS + i) * 4;
                    assert_eq!(rgba[k..k + 4], want, "{tile:?} ({x}, {z})");
                    seen.insert(want);
                }
            }
            assert!(seen.len() >= 2, "{tile:?}: {seen:?}");
            if tile.zoom == 5 {
                assert!(seen.contains(&colour(Reason::Zone)), "{seen:?}");
            }
        }
    }

    #[test]
    fn bands_agree_with_the_whole_tile_and_the_estimate_bounds_the_heights() {
        let t = island_with_hall();
        let rule = WalkRule::MaxSlope {
            max_slope: 0.4,
            water_level: Some(9.0),
        };
        for zoom in [0, 3, 4, 6] {
            let tile = MapTile { zoom, x: 0, y: 0 };
            let whole = render(&t, &rule, tile);
            let mut banded = Vec::new();
            for b in 0..TILE_PIXELS / 32 {
                let (rows, heights) = render_rows(&t, &rule, tile, b * 32..(b + 1) * 32);
                assert!(
                    heights as u64 <= heights_estimate(tile, 32, &rule),
                    "zoom {zoom}"
                );
                banded.extend(rows);
            }
            assert_eq!(whole, banded, "zoom {zoom}");
        }
    }

    #[test]
    fn the_legend_lists_what_the_rule_can_shade() {
        let codes =
            |rule: &WalkRule| -> Vec<&str> { legend(rule).iter().map(|e| e.reason).collect() };
        let slope = WalkRule::Slope {
            limits: BiomeLimits::hyperscape(),
            water_level: 9.0,
        };
        assert_eq!(codes(&slope), ["water", "slope", "zone"]);
        let osrs = WalkRule::MaxSlope {
            max_slope: 0.5,
            water_level: None,
        };
        assert_eq!(codes(&osrs), ["slope", "zone"]);
        assert_eq!(legend(&osrs)[0].label, "slope: steeper than 0.5");
        let blocks = WalkRule::BlockStep { sea_level: 24.0 };
        assert_eq!(codes(&blocks), ["water", "zone", "step"]);
        // Distinct colours, none transparent.
        let all: std::collections::HashSet<_> =
            [Reason::Water, Reason::Slope, Reason::Zone, Reason::Step]
                .into_iter()
                .map(colour)
                .collect();
        assert_eq!(all.len(), 4);
        assert!(all.iter().all(|c| c[3] > 0));
    }
}
