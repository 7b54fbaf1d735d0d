//! The start-up bake: before the server reports ready, each world's layout around its
//! spawn points is built (`grid_radius` chunks on every side) and the tile meshes
//! around them (`warm_radius` tiles on every side) are warmed into the cache, both on
//! the compute pool. Zones were loaded before the port was bound.

use std::{
    collections::BTreeSet,
    sync::Arc,
    time::{Duration, Instant},
};

use futures::{StreamExt, stream};
use rayon::prelude::*;
use terrain_core::{
    layout::{Area, LayoutGround},
    tile::tile_index,
};
use tracing::info;

use super::{LifecycleError, rings::Tile};
use crate::{compute::Compute, mesh::MeshCache, world::World};

/// What one world's bake did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Baked {
    /// Layout chunks built (0 without a layout layer).
    pub chunks: usize,
    /// Tile meshes warmed.
    pub tiles: usize,
    pub elapsed: Duration,
}

/// The squares of `radius` cells on every side of each point's cell, deduplicated,
/// row-major; `cell_of` maps a coordinate to its cell index (checked). A point whose
/// cell is not representable is refused, naming `spawn`, before anything is iterated.
fn squares(
    spawns: &[[f64; 2]],
    radius: u32,
    cell_of: impl Fn(f64) -> Option<i64>,
    what: &str,
) -> Result<Vec<(i64, i64)>, LifecycleError> {
    let r = i64::from(radius);
    let mut cells = BTreeSet::new();
    for (i, [x, z]) in spawns.iter().enumerate() {
        let beyond = || {
            LifecycleError::invalid(
                "spawn",
                format!("spawn point {i} ({x}, {z}) is beyond the {what} grid"),
            )
        };
        let (cx, cz) = (
            cell_of(*x).ok_or_else(beyond)?,
            cell_of(*z).ok_or_else(beyond)?,
        );
        // Cell indices are within +-2^52 and `r` within u32: no overflow.
        for dz in -r..=r {
            for dx in -r..=r {
                cells.insert((cz + dz, cx + dx));
            }
        }
    }
    Ok(cells.into_iter().map(|(z, x)| (x, z)).collect())
}

/// The chunks within `radius` chunks of each spawn point, deduplicated, row-major.
pub fn spawn_chunks(
    surface: &LayoutGround,
    spawns: &[[f64; 2]],
    radius: u32,
) -> Result<Vec<(i64, i64)>, LifecycleError> {
    let size = surface.config().chunk_size;
    squares(spawns, radius, |c| tile_index((c / size).floor()), "chunk")
}

/// The tiles within `radius` tiles of each spawn point's tile, deduplicated, row-major.
pub fn spawn_tiles(world: &World, radius: u32) -> Result<Vec<Tile>, LifecycleError> {
    let layout = world.tile_grid();
    squares(world.spawn(), radius, |c| layout.checked_tile_of(c), "tile")
}

/// Bakes `world`: its layout around the spawn points, then the meshes around them.
pub async fn bake(
    world: &Arc<World>,
    meshes: &MeshCache,
    compute: &Compute,
    warm_radius: Option<u32>,
    parallel: usize,
) -> Result<Baked, LifecycleError> {
    let start = Instant::now();
    info!(world = world.id(), "baking world");
    let mut chunks = 0;
    if let (Some(surface), Some(settings)) = (world.layout_ground(), world.layout()) {
        let list = spawn_chunks(surface, world.spawn(), settings.grid_radius)?;
        let surface = Arc::clone(surface);
        let t = Instant::now();
        let count = list.len();
        compute
            .run(move || {
                let size = surface.config().chunk_size;
                list.par_iter().try_for_each(|&(cx, cz)| {
                    let (x, z) = ((cx as f64 + 0.5) * size, (cz as f64 + 0.5) * size);
                    let area = Area::new(x, z, x, z)?;
                    surface.prepare(&area).map(drop)
                })
            })
            .await
            .map_err(|e| LifecycleError::Internal(e.to_string()))??;
        chunks = count;
        info!(
            world = world.id(),
            chunks,
            grid_radius = settings.grid_radius,
            elapsed_ms = t.elapsed().as_millis() as u64,
            "layout baked around spawn points"
        );
    }
    let t = Instant::now();
    let tiles = match warm_radius {
        Some(r) => spawn_tiles(world, r)?,
        None => Vec::new(),
    };
    let warmed = tiles.len();
    let results: Vec<Result<bool, crate::mesh::MeshError>> = stream::iter(tiles)
        .map(|tile| async move {
            let state = world.snapshot();
            meshes.prefetch(world, state, tile).await
        })
        .buffer_unordered(parallel.max(1))
        .collect()
        .await;
    for result in results {
        result?;
    }
    info!(
        world = world.id(),
        tiles = warmed,
        warm_radius = %warm_radius.map_or_else(|| "off".to_string(), |r| r.to_string()),
        elapsed_ms = t.elapsed().as_millis() as u64,
        "tile meshes warmed around spawn points"
    );
    let elapsed = start.elapsed();
    info!(
        world = world.id(),
        elapsed_ms = elapsed.as_millis() as u64,
        "world baked"
    );
    Ok(Baked {
        chunks,
        tiles: warmed,
        elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ServiceError;

    #[test]
    fn spawn_squares_are_checked_before_they_are_iterated() {
        let cell = |c: f64| tile_index((c / 100.0).floor());
        let square = squares(&[[0.0, 0.0], [150.0, 0.0]], 1, cell, "tile").expect("cells");
        // Cells -1..=1 and 0..=2 on x, -1..=1 on z: 4 x 3, deduplicated, row-major.
        assert_eq!(square.len(), 12);
        assert_eq!(square[0], (-1, -1));
        assert_eq!(square[11], (2, 1));
        for far in [[1e300, 0.0], [0.0, -1e21 * 100.0], [f64::NAN, 0.0]] {
            let err = squares(&[far], 2, cell, "tile").unwrap_err();
            assert_eq!(err.field(), Some("spawn"), "{err}");
        }
    }
}
