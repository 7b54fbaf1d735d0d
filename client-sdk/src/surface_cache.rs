//! Surface reads of a replica that keeps the tiles it reads often: a tile read often
//! enough at one snapshot has its whole surface computed and kept, so reads where
//! entities stand cost a cell lookup, and reads spread everywhere are evaluated on the
//! spot. The Node addon's and the WebAssembly module's `surfaceHeightAt` and
//! `surfaceHeights` read through a [`SurfaceCache`]; the Node package over the native
//! addon keeps the addon's tiles in a [`HeldSurfaces`] in the WebAssembly module
//! (its `SurfaceStore`), so every surface read, whichever build answers it, is core's
//! rule ([`SurfaceTiles`]) under one keeping rule ([`Keeping`]).

use std::{collections::HashMap, sync::Arc};

use terrain_core::{
    TileGrid,
    mesh::{SurfaceTile, SurfaceTiles},
    tile::Tile,
};

use crate::{ClientError, Snapshot, SurfaceReader, check_point, view::tile_arg};
/// `surfaceHeightAt` reads of one tile, at one snapshot, after which the tile's whole
/// surface is computed and kept: reads of a tile an entity stands on then cost a cell
/// lookup. Computing a tile's surface costs about ten reads evaluated on the spot
/// (2-8 us against 0.6 us, measured from Node), so a tile read once or twice is not
/// computed, and one read often pays for itself within a few reads.
pub const SURFACE_TILE_READS: u32 = 16;

/// Surface tiles `surfaceHeightAt` keeps (about 32 KiB each), so a replica read all
/// over the world stays bounded (32 MiB). A full cache computes no more tiles: reads of
/// other tiles are evaluated on the spot ...
const SURFACE_TILES_KEPT: usize = 1024;

/// ... until this many of them, when the kept tiles are evidently no longer where the
/// reads are (the entities moved on) and the cache starts afresh. Reads spread over
/// more tiles than are kept then rebuild it every few passes instead of every pass.
const SURFACE_FULL_MISSES: u32 = 16 * 1024;

/// What becomes of a read of a tile that is not kept ([`Keeping::miss`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Miss {
    /// Evaluate the point on the spot.
    Evaluate,
    /// Compute the tile's surface and keep it.
    Keep,
    /// Drop every kept tile (the reads have moved elsewhere), then keep this one.
    Restart,
}

/// The rule of which tiles are kept: reads per tile not kept are counted, and a tile
/// read [`SURFACE_TILE_READS`] times is kept, up to [`SURFACE_TILES_KEPT`]; then
/// reads of other tiles are evaluated, until [`SURFACE_FULL_MISSES`] of them start
/// the keeping afresh.
#[derive(Debug, Default)]
struct Keeping {
    /// Reads per tile not yet kept (forgotten past 16 entries per kept tile).
    reads: HashMap<Tile, u32>,
    /// Reads evaluated on the spot because the kept tiles were as many as allowed.
    full_misses: u32,
}

impl Keeping {
    /// The rule for a new view, after `kept` were kept at the one before: those are
    /// kept again at their next read (where entities stood, they mostly still stand;
    /// a zone change would otherwise cost every such tile its reads over again).
    fn after(kept: impl Iterator<Item = Tile>) -> Self {
        Keeping {
            reads: kept.map(|key| (key, SURFACE_TILE_READS - 1)).collect(),
            full_misses: 0,
        }
    }

    /// A read of tile `key`, not kept, with `kept` tiles kept.
    fn miss(&mut self, key: Tile, kept: usize) -> Miss {
        if self.reads.len() >= 16 * SURFACE_TILES_KEPT {
            self.reads.clear();
        }
        let reads = self.reads.entry(key).or_default();
        *reads += 1;
        if *reads < SURFACE_TILE_READS {
            return Miss::Evaluate;
        }
        if kept < SURFACE_TILES_KEPT {
            return Miss::Keep;
        }
        self.full_misses += 1;
        if self.full_misses < SURFACE_FULL_MISSES {
            return Miss::Evaluate;
        }
        *self = Keeping::default();
        Miss::Restart
    }
}

/// The surface tiles `surfaceHeightAt` has computed, at one snapshot.
#[derive(Debug)]
pub struct SurfaceCache {
    /// The kept tiles and the snapshot they are of.
    reader: SurfaceReader,
    keeping: Keeping,
}

impl SurfaceCache {
    /// A cache over `snapshot`, holding no tile yet.
    pub fn new(snapshot: Arc<Snapshot>) -> Self {
        SurfaceCache {
            reader: SurfaceReader::new(snapshot),
            keeping: Keeping::default(),
        }
    }

    /// The cache in `slot` when it is of `snapshot`, else a new one of it put there: a
    /// replica keeps one, replaced at the first read after its view moved on (the
    /// tiles kept before are kept again at their next read).
    pub fn of<'a>(slot: &'a mut Option<SurfaceCache>, snapshot: &Arc<Snapshot>) -> &'a mut Self {
        if !matches!(slot, Some(c) if c.is_of(snapshot)) {
            let keeping = slot
                .take()
                .map(|c| Keeping::after(c.reader.cached_keys()))
                .unwrap_or_default();
            *slot = Some(SurfaceCache {
                reader: SurfaceReader::new(Arc::clone(snapshot)),
                keeping,
            });
        }
        slot.get_or_insert_with(|| SurfaceCache::new(Arc::clone(snapshot)))
    }

    /// Whether the kept tiles are of `snapshot`.
    pub fn is_of(&self, snapshot: &Arc<Snapshot>) -> bool {
        Arc::ptr_eq(self.reader.snapshot(), snapshot)
    }

    /// How many tiles are kept.
    pub fn kept(&self) -> usize {
        self.reader.cached_tiles()
    }

    /// The surface-mode height at `(x, z)`: the same bits whether read from a kept
    /// tile or evaluated on the spot; a point the server would refuse is refused.
    pub fn height_at(&mut self, x: f64, z: f64) -> std::result::Result<f64, ClientError> {
        check_point(x, z)?;
        if let Some(h) = self.reader.held_height_at(x, z) {
            return Ok(h);
        }
        let snapshot = Arc::clone(self.reader.snapshot());
        let layout = snapshot.terrain().generator().tile_grid();
        let key = (layout.tile_of(x), layout.tile_of(z));
        match self.keeping.miss(key, self.reader.cached_tiles()) {
            Miss::Evaluate => return snapshot.surface_height_at(x, z),
            Miss::Keep => {}
            Miss::Restart => self.reader = SurfaceReader::new(snapshot),
        }
        self.reader.height_at(x, z)
    }
}

/// Tile surfaces handed over from elsewhere as float32 vertex heights, kept by
/// [`SurfaceCache`]'s rule and read by core's ([`SurfaceTiles`]): what the Node
/// package keeps of the native addon's replica (through the WebAssembly module's
/// `SurfaceStore`), so its surface reads need no call into the addon for a kept tile
/// and no rule of its own. The holder keeps them at one view of its replica and
/// clears them when the view moves on.
#[derive(Debug)]
pub struct HeldSurfaces {
    tiles: SurfaceTiles,
    /// The tile of the last read: consecutive reads mostly stay in it.
    last: usize,
    keeping: Keeping,
}

impl HeldSurfaces {
    /// None held yet, of the grid of `size` m tiles with `resolution` vertices per
    /// edge (`centred`: tile `t` centred on `t * size`). Refuses a grid that is none,
    /// naming the field.
    pub fn new(size: f64, resolution: u32, centred: bool) -> Result<Self, String> {
        if !(size.is_finite() && size > 0.0) {
            return Err(format!(
                "size: must be a finite number of metres above 0, got {size}"
            ));
        }
        if resolution < 2 {
            return Err(format!(
                "resolution: must be at least 2 vertices per edge, got {resolution}"
            ));
        }
        Ok(HeldSurfaces {
            tiles: SurfaceTiles::new(TileGrid {
                size,
                resolution,
                centred,
            }),
            last: 0,
            keeping: Keeping::default(),
        })
    }

    /// The surface height at `(x, z)` from a held tile: the bits the server's `mode =
    /// surface` answers at the view the tiles are of. `None` when no held tile holds
    /// the point, or the point is one the server refuses.
    #[inline]
    pub fn height_at(&mut self, x: f64, z: f64) -> Option<f64> {
        check_point(x, z).ok()?;
        self.tiles.height(&mut self.last, x, z)
    }

    /// A read of `(x, z)` that [`Self::height_at`] did not answer: `Some(tile)` when
    /// that tile is now to be kept (the holder hands it over with [`Self::insert`]),
    /// `None` when the point is to be evaluated on the spot (or is refused).
    pub fn miss(&mut self, x: f64, z: f64) -> Option<Tile> {
        check_point(x, z).ok()?;
        let layout = self.tiles.layout();
        let key = (layout.tile_of(x), layout.tile_of(z));
        match self.keeping.miss(key, self.tiles.len()) {
            Miss::Evaluate => None,
            Miss::Keep => Some(key),
            Miss::Restart => {
                self.tiles.clear();
                self.last = 0;
                Some(key)
            }
        }
    }

    /// Keeps tile `(tx, tz)`'s surface: its float32 vertex heights, row-major (`iz *
    /// n + ix`, `n` the resolution). Refuses, naming the field, a tile index the
    /// server's routes refuse and heights that are not `n * n`.
    pub fn insert(&mut self, tx: f64, tz: f64, heights: &[f32]) -> Result<(), String> {
        let layout = self.tiles.layout();
        let key = (
            tile_arg("tx", tx, layout.size)?,
            tile_arg("tz", tz, layout.size)?,
        );
        let n = layout.resolution as usize;
        let tile = SurfaceTile::from_heights(layout, key, heights).ok_or_else(|| {
            format!(
                "heights: expected {} ({n} x {n}), got {}",
                n * n,
                heights.len()
            )
        })?;
        self.tiles.insert(tile);
        Ok(())
    }

    /// Drops every held tile (the view moved on); those are asked for again at their
    /// next read.
    pub fn clear(&mut self) {
        self.keeping = Keeping::after(self.tiles.keys());
        self.tiles.clear();
        self.last = 0;
    }

    /// How many tiles are held.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// Whether no tile is held.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng, rngs::Xoshiro256PlusPlus};
    use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

    use super::*;
    use crate::view;

    /// A snapshot of generator `kind`'s world `seed`, without zones.
    fn snapshot_of(kind: GeneratorKind, seed: u32) -> Arc<Snapshot> {
        let generator = WorldGenerator::new(kind, seed).expect("seed");
        let zones = ZoneSet::new(Overlap::Layered, generator.tile_size());
        Arc::new(Snapshot::from_terrain(Terrain::new(generator, zones), 1))
    }

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
            let snapshot = snapshot_of(kind, seed);
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
                assert_eq!(cache.kept(), kept, "{kind:?} {seed}");
            }
            assert_eq!(cache.kept(), 25, "{kind:?} {seed}");
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
        let terrain = || snapshot_of(GeneratorKind::Hyperscape, 0);
        let (a, b) = (terrain(), terrain());
        let mut slot = None;
        for _ in 0..SURFACE_TILE_READS {
            SurfaceCache::of(&mut slot, &a)
                .height_at(1.0, 2.0)
                .expect("in range");
        }
        assert_eq!(SurfaceCache::of(&mut slot, &a).kept(), 1);
        assert_eq!(SurfaceCache::of(&mut slot, &b).kept(), 0);
        // The tile kept at `a` is kept again at its first read at `b`; another tile
        // is not.
        let cache = SurfaceCache::of(&mut slot, &b);
        cache.height_at(1.0, 2.0).expect("in range");
        assert_eq!(cache.kept(), 1);
        cache.height_at(301.0, 2.0).expect("in range");
        assert_eq!(cache.kept(), 1);
        assert!(Arc::ptr_eq(
            slot.as_ref().map(|c| c.reader.snapshot()).expect("a cache"),
            &b
        ));
    }

    /// Held surfaces fed as a holder feeds them (each tile's float32 heights, handed
    /// over when `miss` asks for it; other reads evaluated on the spot) answer every
    /// read with the evaluated surface's bits, over random points on hyperscape seeds
    /// 0 and 6, osrs seed 0 and a voxel world; they ask for a tile exactly when a
    /// `SurfaceCache` over the same reads keeps it.
    #[test]
    fn held_surfaces_answer_the_evaluated_surface_and_keep_what_the_cache_keeps() {
        for (kind, seed) in [
            (GeneratorKind::Hyperscape, 0),
            (GeneratorKind::Hyperscape, 6),
            (GeneratorKind::Osrs, 0),
            (GeneratorKind::Voxel, 7),
        ] {
            let snapshot = snapshot_of(kind, seed);
            let layout = snapshot.terrain().generator().tile_grid();
            let mut held =
                HeldSurfaces::new(layout.size, layout.resolution, layout.centred).expect("a grid");
            let mut cache = SurfaceCache::new(Arc::clone(&snapshot));
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xfeed ^ u64::from(seed));
            let (lo, span) = (layout.origin(-3), layout.size * 6.0);
            for i in 0..3_000 {
                let (x, z) = (
                    rng.random_range(lo..lo + span),
                    rng.random_range(lo..lo + span),
                );
                let want = snapshot.surface_height_at(x, z).expect("in range");
                let got = match held.height_at(x, z) {
                    Some(h) => h,
                    None => match held.miss(x, z) {
                        None => want,
                        Some((tx, tz)) => {
                            let heights =
                                view::surface_tile(snapshot.terrain(), tx as f64, tz as f64)
                                    .expect("a tile");
                            held.insert(tx as f64, tz as f64, &heights).expect("n * n");
                            held.height_at(x, z).expect("the tile just kept")
                        }
                    },
                };
                assert_eq!(got.to_bits(), want.to_bits(), "{kind:?} {seed} ({x}, {z})");
                cache.height_at(x, z).expect("in range");
                assert_eq!(held.len(), cache.kept(), "{kind:?} {seed}, read {i}");
            }
            assert_eq!(held.len(), 36, "{kind:?} {seed}");
            held.clear();
            assert!(held.is_empty());
            // A tile held before is asked for again at its first read.
            let (x, z) = (lo + 1.0, lo + 1.0);
            assert_eq!(held.height_at(x, z), None);
            assert_eq!(
                held.miss(x, z),
                Some((layout.tile_of(x), layout.tile_of(z)))
            );
        }
    }

    /// Refused: a grid of no size or of one vertex per edge, a tile index the
    /// server refuses, heights of the wrong count (each naming its field); a point
    /// the server refuses is neither answered nor asked for.
    #[test]
    fn held_surfaces_refuse_what_the_server_refuses() {
        for size in [f64::NAN, f64::INFINITY, 0.0, -100.0] {
            let err = HeldSurfaces::new(size, 64, true).expect_err("no grid");
            assert!(err.starts_with("size: "), "{size}: {err}");
        }
        let err = HeldSurfaces::new(100.0, 1, true).expect_err("one vertex");
        assert!(err.starts_with("resolution: "), "{err}");
        let mut held = HeldSurfaces::new(100.0, 3, true).expect("a grid");
        let nine = [1.0_f32; 9];
        assert!(
            held.insert(0.5, 0.0, &nine)
                .expect_err("fraction")
                .starts_with("tx: ")
        );
        assert!(
            held.insert(0.0, 1e300, &nine)
                .expect_err("far")
                .starts_with("tz: ")
        );
        let err = held.insert(0.0, 0.0, &nine[1..]).expect_err("eight");
        assert_eq!(err, "heights: expected 9 (3 x 3), got 8");
        held.insert(0.0, 0.0, &nine).expect("a tile");
        assert_eq!(held.height_at(10.0, -10.0), Some(1.0));
        for (x, z) in [(f64::NAN, 0.0), (0.0, 1e300)] {
            assert_eq!(held.height_at(x, z), None);
            for _ in 0..SURFACE_TILE_READS {
                assert_eq!(held.miss(x, z), None);
            }
        }
    }
}
