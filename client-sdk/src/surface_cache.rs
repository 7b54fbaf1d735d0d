//! Surface reads of a replica that keeps the tiles it reads often: a tile read often
//! enough at one snapshot has its whole surface computed and kept, so reads where
//! entities stand cost a cell lookup, and reads spread everywhere are evaluated on the
//! spot. The Node addon's and the WebAssembly module's `surfaceHeightAt` and
//! `surfaceHeights` read through one of these.

use std::{collections::HashMap, sync::Arc};

use crate::{ClientError, Snapshot, SurfaceReader, check_point};

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
pub struct SurfaceCache {
    /// The kept tiles and the snapshot they are of.
    reader: SurfaceReader,
    /// Reads per tile not yet computed (forgotten past 16 entries per kept tile).
    reads: HashMap<(i64, i64), u32>,
    /// Reads evaluated on the spot because the cache was full.
    full_misses: u32,
}

impl SurfaceCache {
    /// A cache over `snapshot`, holding no tile yet.
    pub fn new(snapshot: Arc<Snapshot>) -> Self {
        SurfaceCache {
            reader: SurfaceReader::new(snapshot),
            reads: HashMap::new(),
            full_misses: 0,
        }
    }

    /// The cache in `slot` when it is of `snapshot`, else a new one of it put there: a
    /// replica keeps one, replaced at the first read after its view moved on.
    pub fn of<'a>(slot: &'a mut Option<SurfaceCache>, snapshot: &Arc<Snapshot>) -> &'a mut Self {
        if !matches!(slot, Some(c) if Arc::ptr_eq(c.reader.snapshot(), snapshot)) {
            *slot = None;
        }
        slot.get_or_insert_with(|| SurfaceCache::new(Arc::clone(snapshot)))
    }

    /// The surface-mode height at `(x, z)`: the same bits whether read from a kept
    /// tile or evaluated on the spot; a point the server would refuse is refused.
    pub fn height_at(&mut self, x: f64, z: f64) -> std::result::Result<f64, ClientError> {
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

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng, rngs::Xoshiro256PlusPlus};
    use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

    use super::*;

    /// Reads over 25 tiles, each read many times, on hyperscape seeds 0 and 6 and osrs
    /// seed 0: tiles are kept once read `SURFACE_TILE_READS` times, never before, and
    /// every answer (evaluated or read from a kept tile) equals the evaluated surface
    /// bit for bit; refused points are refused as the snapshot refuses them.
    #[test]
    fn kept_or_evaluated_the_answers_are_the_evaluated_surface() {
        for (kind, seed) in [
            (GeneratorKind::Hyperscape, 0),
            (GeneratorKind::Hyperscape, 6),
            (GeneratorKind::Osrs, 0),
        ] {
            let generator = WorldGenerator::new(kind, seed).expect("seed");
            let zones = ZoneSet::new(Overlap::Layered, generator.tile_size());
            let snapshot = Arc::new(Snapshot::from_terrain(Terrain::new(generator, zones), 1));
            let layout = snapshot.terrain().generator().tile_grid();
            let mut cache = SurfaceCache::new(Arc::clone(&snapshot));
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x5eed_cafe ^ u64::from(seed));
            let (lo, span) = (layout.origin(-2), layout.size * 5.0);
            let mut reads: HashMap<(i64, i64), u32> = HashMap::new();
            for _ in 0..2_000 {
                let (x, z) = (
                    rng.random_range(lo..lo + span),
                    rng.random_range(lo..lo + span),
                );
                let want = snapshot.surface_height_at(x, z).expect("in range");
                let got = cache.height_at(x, z).expect("in range");
                assert_eq!(got.to_bits(), want.to_bits(), "{kind:?} {seed} ({x}, {z})");
                *reads
                    .entry((layout.tile_of(x), layout.tile_of(z)))
                    .or_default() += 1;
                let kept = reads.values().filter(|&&n| n >= SURFACE_TILE_READS).count();
                assert_eq!(cache.reader.cached_tiles(), kept, "{kind:?} {seed}");
            }
            assert_eq!(cache.reader.cached_tiles(), 25, "{kind:?} {seed}");
            for (x, z) in [(f64::NAN, 0.0), (0.0, 1e300)] {
                assert_eq!(
                    cache.height_at(x, z).map_err(|e| e.to_string()),
                    snapshot.surface_height_at(x, z).map_err(|e| e.to_string())
                );
            }
        }
    }

    /// `of` keeps the cache of the same snapshot (its kept tiles with it) and replaces
    /// one of another snapshot.
    #[test]
    fn a_replica_s_cache_is_replaced_when_its_view_moves_on() {
        let terrain = || {
            let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).expect("seed 0");
            let zones = ZoneSet::new(Overlap::Layered, generator.tile_size());
            Arc::new(Snapshot::from_terrain(Terrain::new(generator, zones), 1))
        };
        let (a, b) = (terrain(), terrain());
        let mut slot = None;
        for _ in 0..SURFACE_TILE_READS {
            SurfaceCache::of(&mut slot, &a)
                .height_at(1.0, 2.0)
                .expect("in range");
        }
        assert_eq!(SurfaceCache::of(&mut slot, &a).reader.cached_tiles(), 1);
        assert_eq!(SurfaceCache::of(&mut slot, &b).reader.cached_tiles(), 0);
        assert!(Arc::ptr_eq(
            slot.as_ref().map(|c| c.reader.snapshot()).expect("a cache"),
            &b
        ));
    }
}
