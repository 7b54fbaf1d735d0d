//! Fixtures shared by the unit tests of several modules.

use terrain_core::{FlatZone, zones::Shape};

/// Zone `a`: a 10 m square at height 1 centred on `(x, 0)`, with a 2 m blend ring.
pub(crate) fn square_zone(x: f64) -> FlatZone {
    FlatZone {
        id: "a".into(),
        center_x: x,
        center_z: 0.0,
        shape: Shape::Rect {
            width: 10.0,
            depth: 10.0,
        },
        height: 1.0,
        blend_radius: 2.0,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    }
}
