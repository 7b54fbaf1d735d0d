//! Viewers and the tile rings around their views.
//!
//! A viewer's view is the rectangle `[x - w/2, x + w/2] x [z - d/2, z + d/2]`. Ring `k`
//! grows it by `range_k` tiles on every side; the ring's tiles are those whose
//! interior overlaps the grown rectangle's (a tile merely touching its edge is out,
//! so a centred view gets a centred ring), and at least the tile under the viewer.

use terrain_core::{
    TileGrid,
    tile::{MAX_TILE_INDEX, tile_index},
};

use super::error::LifecycleError;
use crate::{
    config::Rings,
    validate::{check_coordinate, check_extent},
};

/// The longest viewer id.
pub const MAX_VIEWER_ID_LEN: usize = 128;
/// Most tiles one viewer's active ring may cover (a 128 x 128 square).
pub const MAX_VIEWER_TILES: u64 = 16_384;
/// The fastest velocity component a viewer may report, metres per second.
pub const MAX_VIEWER_SPEED: f64 = 10_000.0;
/// Most positions sampled along a look-ahead path.
const MAX_PATH_STEPS: usize = 64;

/// A tile, a ring, a viewer as a game server reports it: the shared model's.
pub use terrain_model::{Ring, Tile, Viewer};

/// Checks every field of `viewer`; errors name it (`id`, `x`, `z`, `viewWidth`,
/// `viewDepth`, `velocityX`, `velocityZ`).
pub fn check_viewer(viewer: &Viewer, max_coordinate: f64) -> Result<(), LifecycleError> {
    check_viewer_id(&viewer.id)?;
    check_coordinate(viewer.x, max_coordinate).map_err(|r| LifecycleError::invalid("x", r))?;
    check_coordinate(viewer.z, max_coordinate).map_err(|r| LifecycleError::invalid("z", r))?;
    for (field, v) in [
        ("viewWidth", viewer.view_width),
        ("viewDepth", viewer.view_depth),
    ] {
        check_extent(v, 2.0 * max_coordinate).map_err(|r| LifecycleError::invalid(field, r))?;
    }
    for (field, v) in [
        ("velocityX", viewer.velocity_x),
        ("velocityZ", viewer.velocity_z),
    ] {
        if !(v.is_finite() && v.abs() <= MAX_VIEWER_SPEED) {
            return Err(LifecycleError::invalid(
                field,
                format!(
                    "must be a speed in metres per second within +-{MAX_VIEWER_SPEED}, got {}",
                    terrain_core::quote::Num(v)
                ),
            ));
        }
    }
    Ok(())
}

/// `[A-Za-z0-9_.:-]{1,128}`.
pub fn check_viewer_id(id: &str) -> Result<(), LifecycleError> {
    if id.is_empty() || id.len() > MAX_VIEWER_ID_LEN {
        return Err(LifecycleError::invalid(
            "id",
            format!("must be 1 to {MAX_VIEWER_ID_LEN} characters long"),
        ));
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
    {
        return Err(LifecycleError::invalid(
            "id",
            format!("{id:?} may only contain A-Z, a-z, 0-9, '_', '-', '.' and ':'"),
        ));
    }
    if matches!(id, "." | "..") {
        // A normalising client or proxy rewrites these path segments, so such a viewer
        // could never be addressed as `/viewers/{id}`.
        return Err(LifecycleError::invalid(
            "id",
            format!("{id:?} is a path segment clients rewrite; choose another id"),
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

    /// The number of tiles inside, or `None` when it does not fit a `u64` (an
    /// inverted rectangle counts 0). Checked: never wraps into a small count.
    pub fn count(&self) -> Option<u64> {
        let side = |lo: i64, hi: i64| -> Option<u64> {
            if hi < lo {
                return Some(0);
            }
            u64::try_from(hi.checked_sub(lo)?).ok()?.checked_add(1)
        };
        side(self.x0, self.x1)?.checked_mul(side(self.z0, self.z1)?)
    }

    /// Every tile, row-major (z outer, x inner). Callers bound [`TileRect::count`]
    /// first ([`checked_rings`] does).
    pub fn tiles(self) -> impl Iterator<Item = Tile> {
        (self.z0..=self.z1).flat_map(move |z| (self.x0..=self.x1).map(move |x| (x, z)))
    }
}

/// One axis of a viewer, as the ring arithmetic needs it.
struct Axis {
    /// The viewer's coordinate and its field (`x` or `z`).
    at: f64,
    at_field: &'static str,
    /// The view's extent and its field (`viewWidth` or `viewDepth`).
    extent: f64,
    extent_field: &'static str,
}

/// The tiles on one axis whose interior overlaps `[lo, hi]`, and at least the tile
/// holding `lo`; `None` when either end is beyond the tile grid.
fn span(layout: &TileGrid, lo: f64, hi: f64) -> Option<(i64, i64)> {
    let first = layout.checked_tile_of(lo)?;
    // The last tile starting strictly before `hi`.
    let shift = if layout.centred { 0.5 } else { 0.0 };
    let last = tile_index((hi / layout.size + shift).ceil() - 1.0)?;
    Some((first, last.max(first)))
}

/// The spans of one axis for each ring width (in tiles), narrowest first. Everything
/// is checked in metres and tiles as `f64` before any tile index exists: a viewer
/// beyond the tile grid names its coordinate, a view wider than
/// [`MAX_VIEWER_TILES`] tiles names its extent, and no index saturates.
fn axis_spans(
    layout: &TileGrid,
    widths: [f64; 3],
    axis: &Axis,
) -> Result<[(i64, i64); 3], LifecycleError> {
    if layout.checked_tile_of(axis.at).is_none() {
        return Err(LifecycleError::invalid(
            axis.at_field,
            format!(
                "{} is beyond the tile grid (tile indices within +-{MAX_TILE_INDEX} of {} m)",
                axis.at, layout.size
            ),
        ));
    }
    let widest = widths.iter().copied().fold(0.0, f64::max);
    let across = (axis.extent + 2.0 * widest * layout.size) / layout.size;
    // Along one axis the ring has at least one tile on the other, so this bounds it.
    if across.is_nan() || across > MAX_VIEWER_TILES as f64 {
        return Err(LifecycleError::view_too_large(
            axis.extent_field,
            format!(
                "the view's active ring spans about {across:.0} tiles along one axis, more than {MAX_VIEWER_TILES} in all"
            ),
        ));
    }
    let mut spans = [(0, 0); 3];
    for (slot, r) in spans.iter_mut().zip(widths) {
        let grow = r * layout.size;
        let half = axis.extent / 2.0;
        *slot = span(layout, axis.at - half - grow, axis.at + half + grow).ok_or_else(|| {
            LifecycleError::invalid(
                axis.at_field,
                format!(
                    "the rings around {} reach beyond the tile grid (tile indices within +-{MAX_TILE_INDEX})",
                    axis.at
                ),
            )
        })?;
    }
    Ok(spans)
}

/// A viewer's three rings, narrowest first, or why they cannot be held: the viewer or
/// its rings are beyond the tile grid (`x` / `z`), or the active ring covers more than
/// [`MAX_VIEWER_TILES`] (`viewWidth` / `viewDepth`, `TooLarge`). Call after
/// [`check_viewer`].
pub fn checked_rings(
    layout: &TileGrid,
    rings: &Rings,
    v: &Viewer,
) -> Result<[TileRect; 3], LifecycleError> {
    let widths = rings.widths();
    let xs = axis_spans(
        layout,
        widths,
        &Axis {
            at: v.x,
            at_field: "x",
            extent: v.view_width,
            extent_field: "viewWidth",
        },
    )?;
    let zs = axis_spans(
        layout,
        widths,
        &Axis {
            at: v.z,
            at_field: "z",
            extent: v.view_depth,
            extent_field: "viewDepth",
        },
    )?;
    let rects = [0, 1, 2].map(|k| TileRect {
        x0: xs[k].0,
        x1: xs[k].1,
        z0: zs[k].0,
        z1: zs[k].1,
    });
    let count = rects[Ring::Active as usize].count();
    if count.is_none_or(|c| c > MAX_VIEWER_TILES) {
        let field = if v.view_width >= v.view_depth {
            "viewWidth"
        } else {
            "viewDepth"
        };
        let count = count.map_or_else(|| "too many".to_string(), |c| c.to_string());
        return Err(LifecycleError::view_too_large(
            field,
            format!("the view's active ring covers {count} tiles, more than {MAX_VIEWER_TILES}"),
        ));
    }
    Ok(rects)
}

/// The tiles `viewer`'s active ring will reach within `lookahead` at its velocity and
/// that `active` (its active ring now) does not hold: the union of the active rings at
/// positions along the path, at most half a tile apart (at most 64 of them), sorted
/// row-major and at most as many as `active` holds, nearest positions first. Empty
/// for a still viewer; the path stops where it would leave the tile grid.
pub fn lookahead_tiles(
    layout: &TileGrid,
    rings: &Rings,
    viewer: &Viewer,
    lookahead: std::time::Duration,
    active: &TileRect,
) -> Vec<Tile> {
    let t = lookahead.as_secs_f64();
    let (dx, dz) = (viewer.velocity_x * t, viewer.velocity_z * t);
    let distance = libm::hypot(dx, dz);
    if distance == 0.0 || !distance.is_finite() {
        return Vec::new();
    }
    let steps =
        libm::ceil(distance / (layout.size / 2.0)).clamp(1.0, MAX_PATH_STEPS as f64) as usize;
    let budget = active.count().unwrap_or(0).min(MAX_VIEWER_TILES) as usize;
    // Keyed (z, x): iterates row-major.
    let mut ahead = std::collections::BTreeSet::new();
    let mut moved = viewer.clone();
    'path: for k in 1..=steps {
        let f = k as f64 / steps as f64;
        moved.x = viewer.x + dx * f;
        moved.z = viewer.z + dz * f;
        let Ok(rects) = checked_rings(layout, rings, &moved) else {
            break;
        };
        for (x, z) in rects[Ring::Active as usize].tiles() {
            if active.contains((x, z)) || ahead.contains(&(z, x)) {
                continue;
            }
            if ahead.len() >= budget {
                break 'path;
            }
            ahead.insert((z, x));
        }
    }
    ahead.into_iter().map(|(z, x)| (x, z)).collect()
}

/// Squared distance from the centre of `tile` to `(x, z)`.
pub fn tile_dist2(layout: &TileGrid, tile: Tile, x: f64, z: f64) -> f64 {
    let centre = |t: i64| layout.origin(t) + layout.size / 2.0;
    let (dx, dz) = (centre(tile.0) - x, centre(tile.1) - z);
    dx * dx + dz * dz
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{config::lifecycle::DEFAULT_RINGS, error::ServiceError};

    fn rings_of(layout: &TileGrid, rings: &Rings, v: &Viewer) -> [TileRect; 3] {
        checked_rings(layout, rings, v).expect("rings within the limits")
    }

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
            ..Viewer::default()
        }
    }

    /// Hyperscape's grid: 100 m tiles centred on multiples of 100.
    const CENTRED: TileGrid = TileGrid {
        size: 100.0,
        resolution: 64,
        centred: true,
    };

    /// OSRS-like grid: 64 m tiles from 0.
    const CORNERED: TileGrid = TileGrid {
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
        assert_eq!(r[2].count(), Some(35));

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
        for dots in [".", ".."] {
            v.id = dots.into();
            assert_eq!(check_viewer(&v, 1e9).unwrap_err().field(), Some("id"));
        }
        v.id = "a.b".into();
        assert!(check_viewer(&v, 1e9).is_ok());
        let huge = viewer(0.0, 0.0, 100_000.0, 20_000.0);
        let err = checked_rings(&CENTRED, &DEFAULT_RINGS, &huge).unwrap_err();
        assert_eq!(err.field(), Some("viewWidth"));
    }

    #[test]
    fn counts_are_checked() {
        assert_eq!(rect(0, 0, 0, 0).count(), Some(1));
        assert_eq!(rect(1, 0, 0, 0).count(), Some(0));
        assert_eq!(rect(i64::MIN, 0, i64::MAX, 0).count(), None);
        let wide = rect(-(1 << 40), -(1 << 40), 1 << 40, 1 << 40);
        assert_eq!(wide.count(), None, "2^82 tiles do not fit a u64");
    }

    /// The viewers a probe sent with `max_coordinate = 1e300`: each is refused at once,
    /// naming a field, without a tile index saturating or a range being iterated.
    #[test]
    fn far_viewers_are_refused_before_any_tile_is_counted() {
        let max = 1e300;
        let cases = [
            (viewer(0.0, -1e300, 100.0, 100.0), "z"),
            (viewer(0.0, -1e21, 100.0, 100.0), "z"),
            (viewer(-1e21, 0.0, 100.0, 100.0), "x"),
            (viewer(1e299, 0.0, 1e299, 1e299), "x"),
            (viewer(0.0, 0.0, 1e299, 1e299), "viewWidth"),
            (viewer(0.0, 0.0, 100.0, 1e299), "viewDepth"),
            (viewer(0.0, 0.0, 1e18, 0.0), "viewWidth"),
        ];
        for layout in [CENTRED, CORNERED] {
            for (v, field) in &cases {
                check_viewer(v, max).expect("within max_coordinate");
                let err = checked_rings(&layout, &DEFAULT_RINGS, v).unwrap_err();
                assert_eq!(err.field(), Some(*field), "{v:?}: {err}");
            }
        }
        // At the grid's edge the viewer is fine, but its rings reach beyond it.
        let edge = MAX_TILE_INDEX as f64 * CORNERED.size;
        let v = viewer(edge - 1.0, 0.0, 10.0, 10.0);
        let err = checked_rings(&CORNERED, &DEFAULT_RINGS, &v).unwrap_err();
        assert_eq!(err.field(), Some("x"), "{err}");
        // Well inside, the same view is accepted with exact indices.
        // Tile centres, so the 10 m view sits in one tile.
        let v = viewer(edge / 2.0 + 32.0, -edge / 2.0 + 32.0, 10.0, 10.0);
        let r = checked_rings(&CORNERED, &DEFAULT_RINGS, &v).expect("inside the grid");
        assert_eq!(r[2].count(), Some(25));
        assert_eq!(r[2].x0, (1 << 51) - 2);
    }
}
