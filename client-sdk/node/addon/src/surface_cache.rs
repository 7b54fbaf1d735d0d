//! `surfaceHeightAt` of the class (and `surfaceHeights`) in Rust: a tile read often
//! enough at one snapshot has its whole surface computed and kept, so reads where
//! entities stand cost a cell lookup. The package's own `surfaceHeightAt` keeps tiles
//! in JavaScript instead (`src/surface.ts`, the same rule); these are the class's.

use std::{collections::HashMap, sync::Arc};

use terrain_client::{ClientError, Snapshot, SurfaceReader, check_point};

/// `surfaceHeightAt` reads of one tile, at one snapshot, after which the tile's whole
/// surface is computed and kept: reads of a tile an entity stands on then cost a cell
/// lookup. Computing a tile's surface costs about ten reads evaluated on the spot
/// (2-8 us against 0.6 us, measured from Node), so a tile read once or twice is not
/// computed, and one read often pays for itself within a few reads.
const SURFACE_TILE_READS: u32 = 16;

/// Surface tiles `surfaceHeightAt` keeps (about 32 KiB each), so a replica read all
/// over the world stays bounded (32 MiB). A full cache computes no more tiles: reads of
/// other tiles are evaluated on the spot ...
const SURFACE_TILES_KEPT: usize = 1024;

/// ... until this many of them, when the kept tiles are evidently no longer where the
/// reads are (the entities moved on) and the cache starts afresh. Reads spread over
/// more tiles than are kept then rebuild it every few passes instead of every pass.
const SURFACE_FULL_MISSES: u32 = 16 * 1024;

/// The surface tiles `surfaceHeightAt` has computed, at one snapshot.
#[derive(Debug)]
pub(crate) struct SurfaceCache {
    pub(crate) reader: SurfaceReader,
    /// Reads per tile not yet computed (forgotten past 16 entries per kept tile).
    reads: HashMap<(i64, i64), u32>,
    /// Reads evaluated on the spot because the cache was full.
    full_misses: u32,
}

impl SurfaceCache {
    pub(crate) fn new(snapshot: Arc<Snapshot>) -> Self {
        SurfaceCache {
            reader: SurfaceReader::new(snapshot),
            reads: HashMap::new(),
            full_misses: 0,
        }
    }

    /// The surface-mode height at `(x, z)`: the same bits whether read from a kept
    /// tile or evaluated on the spot; a point the server would refuse is refused.
    pub(crate) fn height_at(&mut self, x: f64, z: f64) -> std::result::Result<f64, ClientError> {
        check_point(x, z)?;
        if let Some(h) = self.reader.cached_height_at(x, z) {
            return Ok(h);
        }
        let snapshot = Arc::clone(self.reader.snapshot());
        let layout = snapshot.terrain().generator().tile_grid();
        if self.reads.len() >= 16 * SURFACE_TILES_KEPT {
            self.reads.clear();
        }
        let reads = self
            .reads
            .entry((layout.tile_of(x), layout.tile_of(z)))
            .or_default();
        *reads += 1;
        if *reads < SURFACE_TILE_READS {
            return snapshot.surface_height_at(x, z);
        }
        if self.reader.cached_tiles() >= SURFACE_TILES_KEPT {
            self.full_misses += 1;
            if self.full_misses < SURFACE_FULL_MISSES {
                return snapshot.surface_height_at(x, z);
            }
            *self = SurfaceCache::new(snapshot);
        }
        self.reader.height_at(x, z)
    }
}
