//! Viewers and the tile rings around their views.
//!
//! A viewer's view is the rectangle `[x - w/2, x + w/2] x [z - d/2, z + d/2]`. Ring `k`
//! grows it by `range_k` tiles on every side; the ring's tiles are those whose
//! interior overlaps the grown rectangle's (a tile merely touching its edge is out,
//! so a centred view gets a centred ring), and at least the tile under the viewer.

use terrain_core::TileLayout;

use crate::{config::Rings, error::ApiError, query::check_coordinate};

/// The longest viewer id.
pub const MAX_VIEWER_ID_LEN: usize = 128;
/// Most tiles one viewer's active ring may cover (a 128 x 128 square).
pub const MAX_VIEWER_TILES: u64 = 16_384;

/// A tile, a ring, a viewer as a game server reports it: the shared model's.
pub use terrain_model::{Ring, Tile, Viewer};

/// Checks every field of `viewer`; errors name it (`id`, `x`, `z`, `viewWidth`,
/// `viewDepth`).
pub fn check_viewer(viewer: &Viewer, max_coordinate: f64) -> Result<(), ApiError> {
    check_viewer_id(&viewer.id)?;
    check_coordinate(viewer.x, max_coordinate).map_err(|r| ApiError::invalid("x", r))?;
    check_coordinate(viewer.z, max_coordinate).map_err(|r| ApiError::invalid("z", r))?;
    for (field, v) in [
        ("viewWidth", viewer.view_width),
        ("viewDepth", viewer.view_depth),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(ApiError::invalid(
                field,
                format!("must be a finite number of metres >= 0, got {v}"),
            ));
        }
        if v > 2.0 * max_coordinate {
            return Err(ApiError::invalid(
                field,
                format!("must be at most {} metres, got {v}", 2.0 * max_coordinate),
            ));
        }
    }
    Ok(())
}

/// `[A-Za-z0-9_.:-]{1,128}`.
pub fn check_viewer_id(id: &str) -> Result<(), ApiError> {
    if id.is_empty() || id.len() > MAX_VIEWER_ID_LEN {
        return Err(ApiError::invalid(
            "id",
            format!("must be 1 to {MAX_VIEWER_ID_LEN} characters long"),
        ));
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
    {
        return Err(ApiError::invalid(
            "id",
            format!("{id:?} may only contain A-Z, a-z, 0-9, '_', '-', '.' and ':'"),
        ));
    }
    Ok(())
}

/// An inclusive rectangle of tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileRect {
    pub x0: i64,
    pub z0: i64,
    pub x1: i64,
    pub z1: i64,
}

impl TileRect {
    /// Whether `tile` is inside.
    pub fn contains(&self, (tx, tz): Tile) -> bool {
        (self.x0..=self.x1).contains(&tx) && (self.z0..=self.z1).contains(&tz)
    }

    /// The number of tiles inside.
    pub fn count(&self) -> u64 {
        (self.x1 - self.x0 + 1) as u64 * (self.z1 - self.z0 + 1) as u64
    }

    /// Every tile, row-major (z outer, x inner).
    pub fn tiles(self) -> impl Iterator<Item = Tile> {
        (self.z0..=self.z1).flat_map(move |z| (self.x0..=self.x1).map(move |x| (x, z)))
    }
}

/// The tiles on one axis whose interior overlaps `[lo, hi]`, and at least the tile
/// holding `lo`.
fn span(layout: &TileLayout, lo: f64, hi: f64) -> (i64, i64) {
    let first = layout.tile_of(lo);
    // The last tile starting strictly before `hi`.
    let shift = if layout.centred { 0.5 } else { 0.0 };
    let last = (hi / layout.size + shift).ceil() as i64 - 1;
    (first, last.max(first))
}

/// A viewer's three rings, narrowest first.
pub fn rings_of(layout: &TileLayout, rings: &Rings, v: &Viewer) -> [TileRect; 3] {
    rings.widths().map(|r| {
        let grow = r * layout.size;
        let (x0, x1) = span(
            layout,
            v.x - v.view_width / 2.0 - grow,
            v.x + v.view_width / 2.0 + grow,
        );
        let (z0, z1) = span(
            layout,
            v.z - v.view_depth / 2.0 - grow,
            v.z + v.view_depth / 2.0 + grow,
        );
        TileRect { x0, z0, x1, z1 }
    })
}

/// The rings of a validated viewer, refused when the active ring is too large.
pub fn checked_rings(
    layout: &TileLayout,
    rings: &Rings,
    v: &Viewer,
) -> Result<[TileRect; 3], ApiError> {
    let rects = rings_of(layout, rings, v);
    let count = rects[Ring::Active as usize].count();
    if count > MAX_VIEWER_TILES {
        let field = if v.view_width >= v.view_depth {
            "viewWidth"
        } else {
            "viewDepth"
        };
        return Err(ApiError::too_large(
            field,
            format!("the view's active ring covers {count} tiles, more than {MAX_VIEWER_TILES}"),
        ));
    }
    Ok(rects)
}

/// Squared distance from the centre of `tile` to `(x, z)`.
pub fn tile_dist2(layout: &TileLayout, tile: Tile, x: f64, z: f64) -> f64 {
    let centre = |t: i64| layout.origin(t) + layout.size / 2.0;
    let (dx, dz) = (centre(tile.0) - x, centre(tile.1) - z);
    dx * dx + dz * dz
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::lifecycle::DEFAULT_RINGS;

    fn rect(x0: i64, z0: i64, x1: i64, z1: i64) -> TileRect {
        TileRect { x0, z0, x1, z1 }
    }

    fn viewer(x: f64, z: f64, w: f64, d: f64) -> Viewer {
        Viewer {
            id: "v".into(),
            x,
            z,
            view_width: w,
            view_depth: d,
        }
    }

    /// Hyperscape's grid: 100 m tiles centred on multiples of 100.
    const CENTRED: TileLayout = TileLayout {
        size: 100.0,
        resolution: 64,
        centred: true,
    };

    /// OSRS-like grid: 64 m tiles from 0.
    const CORNERED: TileLayout = TileLayout {
        size: 64.0,
        resolution: 65,
        centred: false,
    };

    #[test]
    fn hand_checked_rings() {
        // View 200 x 100 at (0, 0): x in [-100, 100], z in [-50, 50].
        // sim (+50 m): x [-150, 150] -> tiles -1..=1 (tile 1 spans [50, 150), tile 2
        // starts at 150, touching only); z [-100, 100] -> -1..=1.
        // spawn (+100 m): x [-200, 200] -> -2..=2; z [-150, 150] -> -1..=1.
        // active (+200 m): x [-300, 300] -> -3..=3; z [-250, 250] -> -2..=2.
        let r = rings_of(&CENTRED, &DEFAULT_RINGS, &viewer(0.0, 0.0, 200.0, 100.0));
        assert_eq!(r[0], rect(-1, -1, 1, 1));
        assert_eq!(r[1], rect(-2, -1, 2, 1));
        assert_eq!(r[2], rect(-3, -2, 3, 2));
        assert_eq!(r[2].count(), 35);

        // Moved to (30, -70): x [-70, 130] grown by 50 -> [-120, 180]: tiles whose
        // spans [100t - 50, 100t + 50) overlap: t = -1 ([-150,-50)) .. 2 ([150,250)).
        // z [-120, -20] grown by 50 -> [-170, 30]: t = -2 ([-250,-150)) .. 0.
        let r = rings_of(&CENTRED, &DEFAULT_RINGS, &viewer(30.0, -70.0, 200.0, 100.0));
        assert_eq!(r[0], rect(-1, -2, 2, 0));

        // A point viewer with no rings: just the tile under it.
        let none = Rings {
            sim: 0.0,
            spawn: 0.0,
            active: 0.0,
        };
        let r = rings_of(&CENTRED, &none, &viewer(49.0, 51.0, 0.0, 0.0));
        assert_eq!(r[2], rect(0, 1, 0, 1));

        // Tiles from 0: view 64 x 64 at (32, 32) is exactly tile (0, 0); sim adds 32 m
        // on each side -> [-32, 96] -> tiles -1..=1.
        let r = rings_of(&CORNERED, &DEFAULT_RINGS, &viewer(32.0, 32.0, 64.0, 64.0));
        assert_eq!(r[0], rect(-1, -1, 1, 1));
        assert_eq!(r[2], rect(-2, -2, 2, 2));
    }

    #[test]
    fn rings_nest() {
        for (x, z, w, d) in [(0.0, 0.0, 10.0, 300.0), (-1234.5, 987.0, 640.0, 360.0)] {
            let r = rings_of(&CENTRED, &DEFAULT_RINGS, &viewer(x, z, w, d));
            for t in r[0].tiles() {
                assert!(r[1].contains(t));
            }
            for t in r[1].tiles() {
                assert!(r[2].contains(t));
            }
        }
    }

    #[test]
    fn bad_viewers_name_the_field() {
        let cases = [
            (viewer(f64::NAN, 0.0, 1.0, 1.0), "x"),
            (viewer(0.0, 2e9, 1.0, 1.0), "z"),
            (viewer(0.0, 0.0, -1.0, 1.0), "viewWidth"),
            (viewer(0.0, 0.0, 1.0, f64::INFINITY), "viewDepth"),
        ];
        for (v, field) in cases {
            let err = check_viewer(&v, 1e9).unwrap_err();
            assert_eq!(err.field(), Some(field), "{err}");
        }
        let mut v = viewer(0.0, 0.0, 1.0, 1.0);
        v.id = "a b".into();
        assert_eq!(check_viewer(&v, 1e9).unwrap_err().field(), Some("id"));
        v.id = String::new();
        assert_eq!(check_viewer(&v, 1e9).unwrap_err().field(), Some("id"));
        let huge = viewer(0.0, 0.0, 100_000.0, 20_000.0);
        let err = checked_rings(&CENTRED, &DEFAULT_RINGS, &huge).unwrap_err();
        assert_eq!(err.field(), Some("viewWidth"));
    }
}
