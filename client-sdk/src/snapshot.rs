//! The replica's terrain at one revision ([`Snapshot`]), its surface reads from kept
//! tiles ([`SurfaceReader`]), the point check every read makes ([`check_point`]) and the
//! building of a world's terrain from its listing and zones ([`build_terrain`]): the
//! replica's logic without I/O, which the WebAssembly build (client-sdk/wasm) shares
//! with the following replica ([`crate::LocalTerrain`], feature `net`).

use std::{str::FromStr, sync::Arc};

use terrain_core::{
    Generator, GeneratorKind, Overlap, Terrain, WorldSpec,
    layout::{LayoutConfig, Pattern, SpokeRule},
    mesh::{SurfaceTile, SurfaceTiles, surface_height},
};

use crate::{ClientError, HeightMode, WorldInfo, ZoneList};

/// Refuses a point as the server refuses a query's coordinates: each of `x` and `z`
/// finite and within [`terrain_core::COORDINATE_LIMIT`] (the largest `max_coordinate`
/// a server may be configured with), else [`ClientError::InvalidArgument`] naming it
/// (`x: must be finite`). A NaN would otherwise land on a plausible height.
#[inline]
pub fn check_point(x: f64, z: f64) -> Result<(), ClientError> {
    for (field, v) in [("x", x), ("z", z)] {
        terrain_core::check_coordinate(v, terrain_core::COORDINATE_LIMIT).map_err(|message| {
            ClientError::InvalidArgument {
                field: field.to_string(),
                message,
            }
        })?;
    }
    Ok(())
}

/// The replica's terrain at one revision.
#[derive(Debug, Clone)]
pub struct Snapshot {
    terrain: Terrain,
    revision: u64,
}

impl Snapshot {
    /// A snapshot of `terrain` said to be at `revision` (the replica builds its own;
    /// this is for terrains built locally, e.g. with [`build_terrain`]).
    pub fn from_terrain(terrain: Terrain, revision: u64) -> Self {
        Snapshot { terrain, revision }
    }

    /// The surface-mode height at `(x, z)`: the served mesh's triangle under the
    /// point, evaluated on the spot (see [`SurfaceReader`] for cached tiles).
    /// Refused as the server refuses it: a coordinate that is not finite or lies beyond
    /// [`terrain_core::COORDINATE_LIMIT`] ([`check_point`]).
    pub fn surface_height_at(&self, x: f64, z: f64) -> Result<f64, ClientError> {
        check_point(x, z)?;
        Ok(surface_height(&self.terrain, x, z))
    }

    pub fn terrain(&self) -> &Terrain {
        &self.terrain
    }

    /// The world revision this terrain is exactly equal to.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The exact height at `(x, z)`; refused as [`Self::surface_height_at`] is.
    pub fn height_at(&self, x: f64, z: f64) -> Result<f64, ClientError> {
        check_point(x, z)?;
        Ok(self.terrain.height(x, z))
    }

    /// The procedural height at `(x, z)` ([`Terrain::procedural`]: the generator's
    /// ground without flat zones), what the server's `mode = procedural` answers;
    /// refused as [`Self::surface_height_at`] is.
    pub fn procedural_height_at(&self, x: f64, z: f64) -> Result<f64, ClientError> {
        check_point(x, z)?;
        Ok(self.terrain.procedural(x, z))
    }

    /// The height at `(x, z)` in `mode`, as the server's `GetHeight` answers it at this
    /// revision (a surface height evaluated on the spot; see [`SurfaceReader`] for
    /// cached tiles).
    pub fn height_in(&self, x: f64, z: f64, mode: HeightMode) -> Result<f64, ClientError> {
        match mode {
            HeightMode::Exact => self.height_at(x, z),
            HeightMode::Surface => self.surface_height_at(x, z),
            HeightMode::Procedural => self.procedural_height_at(x, z),
        }
    }

    /// A voxel world's chunk `(cx, cz)` with the flat zones of this revision: the
    /// blocks the server's `GetChunkBlocks` answers, bit for bit. `None` for other
    /// worlds.
    pub fn chunk(&self, cx: i64, cz: i64) -> Option<terrain_core::voxel::Chunk> {
        self.terrain.voxel_chunk(cx, cz)
    }
}

/// Surface-mode heights at one snapshot from cached tiles: the first read in a tile
/// computes that tile's float32 vertex heights once ([`SurfaceTile`]); every read then
/// interpolates the served triangle from them, bit for bit what the server's
/// `mode = surface` answers at the snapshot's revision. The reader keeps every tile
/// it has read (about 32 KiB each); drop it, or take a new one for a newer revision.
#[derive(Debug)]
pub struct SurfaceReader {
    snapshot: Arc<Snapshot>,
    tiles: SurfaceTiles,
    /// The tile of the last read: consecutive reads mostly stay in it.
    last: usize,
}

impl SurfaceReader {
    /// A reader over `snapshot`, with no tile cached yet.
    pub fn new(snapshot: Arc<Snapshot>) -> Self {
        let layout = snapshot.terrain.generator().tile_grid();
        SurfaceReader {
            snapshot,
            tiles: SurfaceTiles::new(layout),
            last: 0,
        }
    }

    /// The snapshot the reader answers at.
    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.snapshot
    }

    /// How many tiles the reader holds.
    pub fn cached_tiles(&self) -> usize {
        self.tiles.len()
    }

    /// The tiles the reader holds.
    pub fn cached_keys(&self) -> impl Iterator<Item = terrain_core::Tile> + '_ {
        self.tiles.keys()
    }

    /// The surface-mode height at `(x, z)` ([`Snapshot::surface_height_at`]'s bits,
    /// refused as it refuses).
    #[inline]
    pub fn height_at(&mut self, x: f64, z: f64) -> Result<f64, ClientError> {
        check_point(x, z)?;
        if let Some(h) = self.tiles.height(&mut self.last, x, z) {
            return Ok(h);
        }
        Ok(self.read_tile(x, z))
    }

    /// The surface-mode height at `(x, z)` from a tile the reader already holds, or
    /// `None` (nothing is computed; always `None` for a point [`check_point`] refuses).
    #[inline]
    pub fn cached_height_at(&mut self, x: f64, z: f64) -> Option<f64> {
        check_point(x, z).ok()?;
        self.held_height_at(x, z)
    }

    /// [`Self::cached_height_at`] of a point the caller has checked already.
    #[inline]
    pub(crate) fn held_height_at(&mut self, x: f64, z: f64) -> Option<f64> {
        self.tiles.height(&mut self.last, x, z)
    }

    /// The first read in a tile: computes the tile's surface, keeps it, reads it.
    #[cold]
    fn read_tile(&mut self, x: f64, z: f64) -> f64 {
        let layout = self.snapshot.terrain.generator().tile_grid();
        let key = (layout.tile_of(x), layout.tile_of(z));
        self.tiles
            .insert(SurfaceTile::new(&self.snapshot.terrain, key));
        self.tiles
            .height(&mut self.last, x, z)
            .unwrap_or_else(|| surface_height(&self.snapshot.terrain, x, z))
    }
}

/// Builds the terrain a world's config and zones describe, through
/// [`terrain_core::build_terrain`]: the same function the server builds its worlds
/// with, so the replica is the server's terrain bit for bit. Here only the listed
/// names are read into core's types.
pub fn build_terrain(world: &WorldInfo, zones: &ZoneList) -> Result<Terrain, ClientError> {
    let bad = |field: &str, e: String| {
        ClientError::Protocol(format!("world {:?} {field}: {e}", world.id))
    };
    let generator =
        GeneratorKind::from_str(&world.generator).map_err(|e| bad("generator", e.to_string()))?;
    let overlap = Overlap::from_str(&world.overlap).map_err(|e| bad("overlap", e.to_string()))?;
    let layout = match &world.layout {
        None => None,
        Some(l) => {
            let pattern =
                Pattern::from_str(&l.pattern).map_err(|e| bad("layout.pattern", e.to_string()))?;
            let spokes =
                SpokeRule::from_str(&l.spokes).map_err(|e| bad("layout.spokes", e.to_string()))?;
            Some(LayoutConfig {
                pattern,
                spokes,
                chunk_size: l.chunk_size,
                cell_size: l.cell_size,
                seed: world.seed,
            })
        }
    };
    let spec = WorldSpec {
        generator,
        seed: world.seed,
        overlap,
        layout,
        voxel: world.voxel,
    };
    let entries = zones.zones.iter().map(|e| (e.zone.clone(), e.revision));
    terrain_core::build_terrain(&spec, entries).map_err(|e| bad(e.field(), e.to_string()))
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use terrain_core::{WorldGenerator, ZoneSet};

    /// A point the server would refuse is refused by every read, naming the axis, never
    /// answered with a height: also by a reader holding the tile a NaN would fall in.
    #[test]
    fn reads_refuse_non_finite_and_out_of_range_points() {
        for kind in [
            GeneratorKind::Hyperscape,
            GeneratorKind::Osrs,
            GeneratorKind::Voxel,
        ] {
            let generator = WorldGenerator::new(kind, 0).expect("seed 0");
            let zones = ZoneSet::new(Overlap::Layered, generator.tile_size());
            let snapshot = Arc::new(Snapshot::from_terrain(Terrain::new(generator, zones), 1));
            let mut reader = SurfaceReader::new(Arc::clone(&snapshot));
            reader.height_at(0.1, 0.1).expect("in range");
            reader.height_at(-0.1, -0.1).expect("in range");
            let field = |r: Result<f64, ClientError>| match r {
                Err(ClientError::InvalidArgument { field, message }) => {
                    format!("{field}: {message}")
                }
                other => panic!("{kind:?}: expected a refusal, got {other:?}"),
            };
            for (x, z, want) in [
                (f64::NAN, 0.0, "x: must be finite"),
                (0.0, f64::NEG_INFINITY, "z: must be finite"),
                (
                    -1e300,
                    -1e300,
                    "x: must be within [-70368744177664, 70368744177664], got -1e300",
                ),
            ] {
                assert_eq!(field(snapshot.height_at(x, z)), want);
                assert_eq!(field(snapshot.surface_height_at(x, z)), want);
                assert_eq!(field(reader.height_at(x, z)), want);
                assert_eq!(reader.cached_height_at(x, z), None);
            }
            let limit = terrain_core::COORDINATE_LIMIT;
            assert!(
                snapshot
                    .height_at(limit, -limit)
                    .expect("at the limit")
                    .is_finite()
            );
        }
    }

    /// Random walks over nine tiles (tile changes, returns to cached tiles), vertices
    /// and cell edges: the reader's heights equal the evaluated surface bit for bit.
    #[test]
    fn surface_reader_equals_the_evaluated_surface() {
        for kind in [GeneratorKind::Hyperscape, GeneratorKind::Osrs] {
            let generator = WorldGenerator::new(kind, 0).expect("seed 0");
            let zones = ZoneSet::new(Overlap::Layered, generator.tile_size());
            let snapshot = Arc::new(Snapshot::from_terrain(Terrain::new(generator, zones), 3));
            let layout = snapshot.terrain().generator().tile_grid();
            let mut reader = SurfaceReader::new(Arc::clone(&snapshot));
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x1357_9bdf_2468_ace0);
            let (lo, span) = (layout.origin(-1), layout.size * 3.0);
            let step = layout.step();
            for k in 0..6000 {
                let (mut x, mut z) = (
                    rng.random_range(lo..lo + span),
                    rng.random_range(lo..lo + span),
                );
                if k % 3 == 0 {
                    // Snap to a vertex line of the cell.
                    x = layout.origin(layout.tile_of(x))
                        + (((x - layout.origin(layout.tile_of(x))) / step).floor()) * step;
                }
                if k % 5 == 0 {
                    z = layout.origin(layout.tile_of(z))
                        + (((z - layout.origin(layout.tile_of(z))) / step).floor()) * step;
                }
                let want = snapshot
                    .surface_height_at(x, z)
                    .expect("in range")
                    .to_bits();
                assert_eq!(
                    reader.height_at(x, z).expect("in range").to_bits(),
                    want,
                    "{kind:?} ({x}, {z})"
                );
            }
            assert_eq!(reader.cached_tiles(), 9);
        }
    }
}
