//! The map projection and the rendering of one map tile into a PNG.
//!
//! Projection: world `x` to the right (east), world `z` downward (south), so north
//! (`-z`) is up. Map tiles are [`TILE_PIXELS`] square. At zoom `z` (0 to
//! [`MAX_ZOOM`]) a pixel is `2^(4 - z)` metres: 16 m at zoom 0 (a map tile spans
//! 4096 m), 0.25 m at zoom 6 (64 m). Map tile `(x, y)` at zoom `z` covers world
//! `x` in `[x * 256 * m, (x + 1) * 256 * m)` and `z` in
//! `[y * 256 * m, (y + 1) * 256 * m)`, `m` the metres per pixel; pixel `(i, j)` shows the point at its centre,
//! `((x * 256 + i + 0.5) * m, (y * 256 + j + 0.5) * m)`, exactly (every term is a
//! power of two times a small integer), so `GET .../height` at that point answers
//! the height the pixel was coloured from.

use terrain_core::{Grid, Terrain, TileGrid};

use super::{palette::Palette, shade};

/// Pixels along a map tile's edge.
pub const TILE_PIXELS: usize = 256;
/// The coarsest zoom level.
pub const MIN_ZOOM: u8 = 0;
/// The finest zoom level.
pub const MAX_ZOOM: u8 = 6;

/// Rows of pixels per compute slice.
pub const BAND_ROWS: usize = 32;

/// One map tile: zoom level and column / row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MapTile {
    pub zoom: u8,
    pub x: i64,
    pub y: i64,
}

impl MapTile {
    /// Metres per pixel at this tile's zoom.
    pub fn metres_per_pixel(&self) -> f64 {
        metres_per_pixel(self.zoom)
    }

    /// The metres one map tile spans along each axis.
    pub fn span(&self) -> f64 {
        self.metres_per_pixel() * TILE_PIXELS as f64
    }

    /// The world point at the centre of pixel `(i, j)` (which may lie one pixel
    /// outside the tile: `-1` and `TILE_PIXELS` are its border).
    pub fn pixel_centre(&self, i: i64, j: i64) -> (f64, f64) {
        let m = self.metres_per_pixel();
        let p = TILE_PIXELS as i64;
        let at = |t: i64, k: i64| ((t * p + k) as f64 + 0.5) * m;
        (at(self.x, i), at(self.y, j))
    }

    /// The mesh tiles whose heights a rendering of this tile reads (its pixels and
    /// their one-pixel border): every mesh tile owning one of those points.
    pub fn covered(
        &self,
        grid: &TileGrid,
    ) -> (std::ops::RangeInclusive<i64>, std::ops::RangeInclusive<i64>) {
        let p = TILE_PIXELS as i64;
        let (x0, z0) = self.pixel_centre(-1, -1);
        let (x1, z1) = self.pixel_centre(p, p);
        (
            grid.tile_of(x0)..=grid.tile_of(x1),
            grid.tile_of(z0)..=grid.tile_of(z1),
        )
    }

    /// The mesh tiles owning a point within `margin` metres (on each axis) of one of
    /// this tile's pixel centres: those a rendering reading that far around its pixels
    /// reads.
    pub fn covered_within(
        &self,
        grid: &TileGrid,
        margin: f64,
    ) -> (std::ops::RangeInclusive<i64>, std::ops::RangeInclusive<i64>) {
        let p = TILE_PIXELS as i64;
        let (x0, z0) = self.pixel_centre(0, 0);
        let (x1, z1) = self.pixel_centre(p - 1, p - 1);
        (
            grid.tile_of(x0 - margin)..=grid.tile_of(x1 + margin),
            grid.tile_of(z0 - margin)..=grid.tile_of(z1 + margin),
        )
    }
}

/// Metres per pixel at `zoom`: `2^(4 - zoom)`.
pub fn metres_per_pixel(zoom: u8) -> f64 {
    f64::powi(2.0, 4 - i32::from(zoom))
}

/// The RGB pixels (row-major, 3 bytes each) of rows `rows` of `tile`.
pub fn render_rows(terrain: &Terrain, tile: MapTile, rows: std::ops::Range<usize>) -> Vec<u8> {
    let m = tile.metres_per_pixel();
    let w = TILE_PIXELS;
    let h = rows.len();
    let (x0, z0) = tile.pixel_centre(-1, rows.start as i64 - 1);
    // Grid::new only refuses non-finite origins and empty axes, which a checked
    // tile never has; an empty band renders nothing.
    let Ok(grid) = Grid::new(x0, z0, m, w + 2, h + 2) else {
        return Vec::new();
    };
    let (heights, swatches) = Palette::of(terrain).heights_and_band(terrain, &grid);
    let factors = shade::factors(&heights, w, h, m);
    let mut out = Vec::with_capacity(w * h * 3);
    for j in 0..h {
        for i in 0..w {
            let swatch = swatches[j * w + i];
            let f = if swatch.water {
                1.0
            } else {
                factors[j * w + i]
            };
            for v in swatch.rgb {
                out.push((v * f).round().clamp(0.0, 255.0) as u8);
            }
        }
    }
    out
}

/// The whole of `tile` as RGB pixels.
pub fn render(terrain: &Terrain, tile: MapTile) -> Vec<u8> {
    render_rows(terrain, tile, 0..TILE_PIXELS)
}

/// `rgb` (`TILE_PIXELS` square, 3 bytes a pixel) as a PNG.
pub fn encode_png(rgb: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    encode_png_as(rgb, png::ColorType::Rgb)
}

/// `pixels` (`TILE_PIXELS` square, of colour type `colour`: RGB or RGBA) as a PNG.
pub fn encode_png_as(pixels: &[u8], colour: png::ColorType) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let side = TILE_PIXELS as u32;
        let mut encoder = png::Encoder::new(&mut out, side, side);
        encoder.set_color(colour);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(pixels)?;
        writer.finish()?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrain_core::{Generator, GeneratorKind, Overlap, WorldGenerator, ZoneSet};

    fn terrain(kind: GeneratorKind) -> Terrain {
        let g = WorldGenerator::new(kind, 0).unwrap();
        let zones = ZoneSet::new(Overlap::default(), g.tile_size());
        Terrain::new(g, zones)
    }

    fn decode(png_bytes: &[u8]) -> (png::OutputInfo, Vec<u8>) {
        let decoder = png::Decoder::new(png_bytes);
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info, buf)
    }

    #[test]
    fn pixel_centres_are_exact_and_tiles_abut() {
        let t = MapTile {
            zoom: 6,
            x: -1,
            y: 2,
        };
        assert_eq!(t.metres_per_pixel(), 0.25);
        assert_eq!(t.pixel_centre(0, 0), (-64.0 + 0.125, 128.0 + 0.125));
        let next = MapTile { x: 0, ..t };
        assert_eq!(t.pixel_centre(256, 0), next.pixel_centre(0, 0));
        assert_eq!(metres_per_pixel(0), 16.0);
        assert_eq!(
            MapTile {
                zoom: 0,
                x: 0,
                y: 0
            }
            .span(),
            4096.0
        );
    }

    #[test]
    fn covered_tiles_include_the_border_pixels() {
        let grid = TileGrid {
            size: 100.0,
            resolution: 64,
            centred: true,
        };
        // Zoom 4: 1 m a pixel; tile (0, 0) reads -0.5 ..= 256.5, tiles 0 ..= 3.
        let (xs, zs) = MapTile {
            zoom: 4,
            x: 0,
            y: 0,
        }
        .covered(&grid);
        assert_eq!((xs, zs), (0..=3, 0..=3));
        let (xs, _) = MapTile {
            zoom: 4,
            x: -1,
            y: 0,
        }
        .covered(&grid);
        assert_eq!(xs, -3..=0);
    }

    #[test]
    fn pngs_decode_to_the_rendered_pixels() {
        for kind in [GeneratorKind::Hyperscape, GeneratorKind::Osrs] {
            let t = terrain(kind);
            let tile = MapTile {
                zoom: 2,
                x: 0,
                y: -1,
            };
            let rgb = render(&t, tile);
            assert_eq!(rgb.len(), TILE_PIXELS * TILE_PIXELS * 3);
            let (info, pixels) = decode(&encode_png(&rgb).unwrap());
            assert_eq!((info.width, info.height), (256, 256));
            assert_eq!(info.color_type, png::ColorType::Rgb);
            assert_eq!(pixels, rgb, "{kind:?}");
            // Not one flat colour.
            assert!(pixels.chunks(3).any(|p| p != &pixels[..3]), "{kind:?}");
        }
    }

    #[test]
    fn bands_agree_with_the_whole_tile() {
        let t = terrain(GeneratorKind::Hyperscape);
        let tile = MapTile {
            zoom: 5,
            x: 1,
            y: 0,
        };
        let whole = render(&t, tile);
        let banded: Vec<u8> = (0..TILE_PIXELS / BAND_ROWS)
            .flat_map(|b| render_rows(&t, tile, b * BAND_ROWS..(b + 1) * BAND_ROWS))
            .collect();
        assert_eq!(whole, banded);
    }

    #[test]
    fn hyperscape_water_pixels_are_where_the_height_is_below_nine_metres() {
        let t = terrain(GeneratorKind::Hyperscape);
        let tile = MapTile {
            zoom: 1,
            x: -1,
            y: -1,
        };
        let rgb = render(&t, tile);
        let palette = Palette::of(&t);
        let (mut water, mut land) = (0, 0);
        for j in (0..TILE_PIXELS).step_by(17) {
            for i in (0..TILE_PIXELS).step_by(13) {
                let (x, z) = tile.pixel_centre(i as i64, j as i64);
                let h = t.height(x, z);
                let want = palette.swatch(x, z, h);
                let k = (j * TILE_PIXELS + i) * 3;
                if want.water {
                    water += 1;
                    let exact = want.rgb.map(|v| v.round() as u8);
                    assert_eq!(&rgb[k..k + 3], &exact, "water at ({x}, {z}), height {h}");
                } else {
                    land += 1;
                }
            }
        }
        assert!(water > 0 && land > 0, "water {water} land {land}");
    }
}
