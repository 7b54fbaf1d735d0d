//! CPU work off the async runtime.
//!
//! Large batches and heightmaps (and the encoding of large JSON answers) run on a rayon
//! pool owned by the server, so an async worker thread never blocks on them and both
//! cores share the work. A job reaches the pool through `spawn` and reports back on a
//! `oneshot` channel; if the caller goes away, the answer is simply dropped.
//!
//! Splitting never changes a value: batches are split into chunks of points, each
//! evaluated with [`Generator::height`], and heightmaps into row bands, each filled with
//! [`Generator::fill_rows`], whose contract is bit-for-bit agreement with `height`.

use std::{ops::Range, sync::Arc};

use rayon::prelude::*;
use terrain_core::{Generator, Grid, Terrain};
use tokio::sync::oneshot;

/// Above this many heights (or values to encode), work goes to the pool.
pub const OFFLOAD_THRESHOLD: usize = 2048;

/// Points per parallel batch chunk: large enough to amortise scheduling.
const BATCH_CHUNK_POINTS: usize = 1024;

/// Samples per parallel heightmap band (at least one row).
const BAND_SAMPLES: usize = 4096;

/// Why offloaded work produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum ComputeError {
    /// The pool could not be started.
    #[error("compute pool: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// The job ended without answering (it panicked).
    #[error("a compute job ended without an answer")]
    Lost,
}

/// The server's compute pool.
#[derive(Debug, Clone)]
pub struct Compute {
    pool: Arc<rayon::ThreadPool>,
}

impl Compute {
    /// A pool with one thread per core. A panicking job is logged and its caller gets
    /// [`ComputeError::Lost`]; the process is not aborted.
    pub fn new() -> Result<Self, ComputeError> {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("terrain-compute-{i}"))
            .panic_handler(|_| tracing::error!("a compute job panicked"))
            .build()?;
        Ok(Compute {
            pool: Arc::new(pool),
        })
    }

    /// The number of threads in the pool.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Runs `job` on the pool and waits for its answer without blocking the runtime.
    /// Rayon parallel iterators inside `job` use this pool.
    pub async fn run<T, F>(&self, job: F) -> Result<T, ComputeError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        self.pool.spawn(move || {
            // The receiver may be gone (the client hung up); the answer is then unwanted.
            let _ = tx.send(job());
        });
        rx.await.map_err(|_| ComputeError::Lost)
    }
}

/// Heights of interleaved `coords` (x0, z0, x1, z1, ...), in order, on this thread.
pub fn heights_serial(generator: &impl Generator, coords: &[f64]) -> Vec<f64> {
    coords
        .chunks_exact(2)
        .map(|p| generator.height(p[0], p[1]))
        .collect()
}

/// [`heights_serial`], split into chunks across the current rayon pool.
pub fn heights_parallel(generator: &impl Generator, coords: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; coords.len() / 2];
    out.par_chunks_mut(BATCH_CHUNK_POINTS)
        .zip(coords.par_chunks(2 * BATCH_CHUNK_POINTS))
        .for_each(|(out, coords)| {
            for (h, p) in out.iter_mut().zip(coords.chunks_exact(2)) {
                *h = generator.height(p[0], p[1]);
            }
        });
    out
}

/// Heights of a batch with the zone that decided each, from [`Terrain::sample`].
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    pub heights: Vec<f64>,
    /// One zone id per point (empty where the terrain decided); empty when zones
    /// were not asked for.
    pub zones: Vec<String>,
    /// How many points a zone decided.
    pub hits: u64,
}

/// Samples interleaved `coords` into `heights` (and `zones`, if given); answers how
/// many a zone decided.
fn sample_into(
    terrain: &Terrain,
    coords: &[f64],
    heights: &mut [f64],
    zones: Option<&mut [String]>,
) -> u64 {
    let mut hits = 0;
    match zones {
        Some(zones) => {
            for ((h, id), p) in heights.iter_mut().zip(zones).zip(coords.chunks_exact(2)) {
                let s = terrain.sample(p[0], p[1]);
                *h = s.height;
                if let Some((zone, _)) = s.zone {
                    id.clone_from(&zone.id);
                    hits += 1;
                }
            }
        }
        None => {
            for (h, p) in heights.iter_mut().zip(coords.chunks_exact(2)) {
                let s = terrain.sample(p[0], p[1]);
                *h = s.height;
                hits += u64::from(s.zone.is_some());
            }
        }
    }
    hits
}

/// Samples interleaved `coords` on this thread; zone ids only `with_zones`.
pub fn samples_serial(terrain: &Terrain, coords: &[f64], with_zones: bool) -> Samples {
    let n = coords.len() / 2;
    let mut heights = vec![0.0; n];
    let mut zones = if with_zones {
        vec![String::new(); n]
    } else {
        Vec::new()
    };
    let ids = with_zones.then_some(zones.as_mut_slice());
    let hits = sample_into(terrain, coords, &mut heights, ids);
    Samples {
        heights,
        zones,
        hits,
    }
}

/// [`samples_serial`], split into chunks across the current rayon pool.
pub fn samples_parallel(terrain: &Terrain, coords: &[f64], with_zones: bool) -> Samples {
    let n = coords.len() / 2;
    let mut heights = vec![0.0; n];
    let coord_chunks = coords.par_chunks(2 * BATCH_CHUNK_POINTS);
    let (zones, hits) = if with_zones {
        let mut zones = vec![String::new(); n];
        let hits = heights
            .par_chunks_mut(BATCH_CHUNK_POINTS)
            .zip(zones.par_chunks_mut(BATCH_CHUNK_POINTS))
            .zip(coord_chunks)
            .map(|((h, z), c)| sample_into(terrain, c, h, Some(z)))
            .sum();
        (zones, hits)
    } else {
        let hits = heights
            .par_chunks_mut(BATCH_CHUNK_POINTS)
            .zip(coord_chunks)
            .map(|(h, c)| sample_into(terrain, c, h, None))
            .sum();
        (Vec::new(), hits)
    };
    Samples {
        heights,
        zones,
        hits,
    }
}

/// Every sample of `grid`, row-major (x fastest), on this thread.
pub fn heightmap_serial(generator: &impl Generator, grid: &Grid) -> Vec<f64> {
    let mut out = vec![0.0; grid.len()];
    generator.fill(grid, &mut out);
    out
}

/// [`heightmap_serial`] across the current rayon pool: row bands when there are enough
/// rows to share out, otherwise point by point (a grid with few, very long rows cannot
/// be split by columns without changing how the coordinates are computed).
pub fn heightmap_parallel(generator: &impl Generator, grid: &Grid) -> Vec<f64> {
    let mut out = vec![0.0; grid.len()];
    let threads = rayon::current_num_threads();
    if grid.nz >= 2 * threads {
        let band_rows = (BAND_SAMPLES / grid.nx).clamp(1, grid.nz.div_ceil(2 * threads));
        out.par_chunks_mut(band_rows * grid.nx)
            .enumerate()
            .for_each(|(band, out)| {
                let start = band * band_rows;
                let rows: Range<usize> = start..start + out.len() / grid.nx;
                generator.fill_rows(grid, rows, out);
            });
    } else {
        out.par_chunks_mut(BATCH_CHUNK_POINTS)
            .enumerate()
            .for_each(|(chunk, out)| {
                let first = chunk * BATCH_CHUNK_POINTS;
                for (k, h) in out.iter_mut().enumerate() {
                    let (iz, ix) = ((first + k) / grid.nx, (first + k) % grid.nx);
                    *h = generator.height(grid.x(ix), grid.z(iz));
                }
            });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generator whose value identifies the point exactly, so any reordering or
    /// coordinate drift in the splitting shows.
    struct Probe;

    impl Generator for Probe {
        fn height(&self, x: f64, z: f64) -> f64 {
            x * 1000.0 + z
        }
    }

    #[test]
    fn splitting_changes_nothing() {
        let compute = Compute::new().unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let coords: Vec<f64> = (0..10_001)
            .flat_map(|i| [i as f64 * 0.37, -(i as f64)])
            .collect();
        let serial = heights_serial(&Probe, &coords);
        let c = coords.clone();
        let parallel = rt
            .block_on(compute.run(move || heights_parallel(&Probe, &c)))
            .unwrap();
        assert_eq!(serial, parallel);

        for (nx, nz) in [(300, 41), (5000, 1), (1, 9000), (7, 3)] {
            let grid = Grid::new(-12.5, 40.25, 0.3, nx, nz).unwrap();
            let serial = heightmap_serial(&Probe, &grid);
            let parallel = rt
                .block_on(compute.run(move || heightmap_parallel(&Probe, &grid)))
                .unwrap();
            assert_eq!(serial, parallel, "{nx}x{nz}");
            let last = Probe.height(grid.x(nx - 1), grid.z(nz - 1));
            assert_eq!(serial[grid.len() - 1], last);
        }
    }

    #[test]
    fn sampling_splits_change_nothing_and_name_zones() {
        use terrain_core::{
            FlatZone, GeneratorKind, Overlap, WorldGenerator, ZoneSet, zones::Shape,
        };
        let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
        let mut zones = ZoneSet::new(Overlap::Layered, 100.0);
        let zone = FlatZone {
            id: "pad".into(),
            center_x: 10.0,
            center_z: 20.0,
            shape: Shape::Circle { radius: 30.0 },
            height: 12.0,
            blend_radius: 5.0,
            carve_inset: 0.0,
            priority: 0,
        };
        zones.insert(zone, 1);
        let terrain = Terrain::new(generator, zones);
        let coords: Vec<f64> = (0..5000)
            .flat_map(|i| [i as f64 * 0.05 - 50.0, 20.0 + (i % 7) as f64])
            .collect();
        let serial = samples_serial(&terrain, &coords, true);
        let compute = Compute::new().unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let c = coords.clone();
        let t = terrain.clone();
        let parallel = rt
            .block_on(compute.run(move || samples_parallel(&t, &c, true)))
            .unwrap();
        assert_eq!(serial, parallel);
        assert!(serial.hits > 0 && serial.hits < 5000, "{}", serial.hits);
        for (k, p) in coords.chunks_exact(2).enumerate() {
            let s = terrain.sample(p[0], p[1]);
            assert_eq!(serial.heights[k].to_bits(), s.height.to_bits());
            assert_eq!(serial.zones[k].is_empty(), s.zone.is_none());
        }
        let bare = samples_serial(&terrain, &coords, false);
        assert_eq!((bare.heights, bare.hits), (serial.heights, serial.hits));
        assert!(bare.zones.is_empty());
    }
}
