//! The sampling kernels of height queries: batches, surface batches and heightmaps,
//! evaluated on this thread when small and on the compute pool in slices when large.
//!
//! Fairness: a batch or heightmap is cut into slices of about a millisecond
//! ([`BATCH_CHUNK_POINTS`] points, [`BAND_SAMPLES`] samples), and the pool takes slices
//! from the open requests in turn ([`Compute::run_sliced`]), so a small heightmap
//! behind a huge one waits for a few slices, not for the whole of the huge one.
//!
//! Splitting never changes a value: batches are split into chunks of points, each
//! evaluated with [`Terrain::sample`], and heightmaps into row bands, each filled with
//! [`Generator::fill_rows`], whose contract is bit-for-bit agreement with `height`.

use std::{collections::HashSet, sync::Arc};

use terrain_core::{
    Generator, Grid, Terrain, Tile, TileGrid,
    mesh::{SurfaceTiles, surface_height},
};

use super::HeightMode;
use crate::{
    compute::{Compute, Metered, OFFLOAD_THRESHOLD, Unfinished},
    world::AsTerrain,
};

/// Points per batch slice: large enough to amortise scheduling, small enough (about a
/// millisecond) that requests take turns often.
pub const BATCH_CHUNK_POINTS: usize = 1024;

/// Samples per heightmap slice (whole rows where a row fits).
pub const BAND_SAMPLES: usize = 4096;

/// The heights (and deciding zones, `with_zones`) of interleaved `coords` on `compute`,
/// in slices of [`BATCH_CHUNK_POINTS`] taking turns with other requests, metered and
/// within the request's deadline ([`Compute::run_metered`]).
pub async fn samples_sliced<S>(
    compute: &Compute,
    metered: Metered<'_>,
    state: S,
    coords: Arc<Vec<f64>>,
    with_zones: bool,
) -> Result<Samples, Unfinished>
where
    S: AsTerrain + Send + Sync + 'static,
{
    let slices = coords.len().div_ceil(2 * BATCH_CHUNK_POINTS);
    let parts = compute
        .run_metered(metered, slices, move |i| {
            let end = (2 * BATCH_CHUNK_POINTS * (i + 1)).min(coords.len());
            let part = &coords[2 * BATCH_CHUNK_POINTS * i..end];
            samples_serial(state.terrain(), part, with_zones)
        })
        .await?;
    let mut all = Samples {
        heights: Vec::with_capacity(coords_len(&parts)),
        zones: Vec::new(),
        hits: 0,
    };
    for part in parts {
        all.heights.extend_from_slice(&part.heights);
        all.zones.extend(part.zones);
        all.hits += part.hits;
    }
    Ok(all)
}

fn coords_len(parts: &[Samples]) -> usize {
    parts.iter().map(|p| p.heights.len()).sum()
}

/// The distinct tiles the points of interleaved `coords` fall in, in first-seen order.
pub fn distinct_tiles(layout: &TileGrid, coords: &[f64]) -> Vec<Tile> {
    let (mut seen, mut keys, mut last) = (HashSet::new(), Vec::new(), None);
    for p in coords.chunks_exact(2) {
        let key = (layout.tile_of(p[0]), layout.tile_of(p[1]));
        if last != Some(key) && seen.insert(key) {
            keys.push(key);
        }
        last = Some(key);
    }
    keys
}

/// The surface heights of interleaved `coords` on this thread: from `surfaces` where
/// it holds the point's tile (its cached vertex heights), otherwise evaluated
/// ([`surface_height`]); the same bits either way.
pub fn surface_serial(terrain: &Terrain, surfaces: &SurfaceTiles, coords: &[f64]) -> Vec<f64> {
    let mut last = 0;
    coords
        .chunks_exact(2)
        .map(|p| {
            let (x, z) = (p[0], p[1]);
            surfaces
                .height(&mut last, x, z)
                .unwrap_or_else(|| surface_height(terrain, x, z))
        })
        .collect()
}

/// [`surface_serial`] on `compute` in slices of [`BATCH_CHUNK_POINTS`] taking turns
/// with other requests, metered and within the request's deadline (on this thread
/// when the batch is small).
pub async fn surface_sliced<S>(
    compute: &Compute,
    metered: Metered<'_>,
    state: S,
    surfaces: Arc<SurfaceTiles>,
    coords: Arc<Vec<f64>>,
) -> Result<Vec<f64>, Unfinished>
where
    S: AsTerrain + Send + Sync + 'static,
{
    if coords.len() / 2 <= OFFLOAD_THRESHOLD {
        return Ok(surface_serial(state.terrain(), &surfaces, &coords));
    }
    let slices = coords.len().div_ceil(2 * BATCH_CHUNK_POINTS);
    let parts = compute
        .run_metered(metered, slices, move |i| {
            let end = (2 * BATCH_CHUNK_POINTS * (i + 1)).min(coords.len());
            let part = &coords[2 * BATCH_CHUNK_POINTS * i..end];
            surface_serial(state.terrain(), &surfaces, part)
        })
        .await?;
    Ok(parts.concat())
}

/// Every sample of `grid` on `compute`, row-major (x fastest), in slices of about
/// [`BAND_SAMPLES`] taking turns with other requests: bands of whole rows filled with
/// [`Generator::fill_rows`], or, for rows longer than a slice, runs of points; metered
/// and within the request's deadline.
pub async fn heightmap_sliced<S>(
    compute: &Compute,
    metered: Metered<'_>,
    state: S,
    grid: Grid,
) -> Result<Vec<f64>, Unfinished>
where
    S: AsTerrain + Send + Sync + 'static,
{
    let parts = if grid.nx <= BAND_SAMPLES {
        let band_rows = (BAND_SAMPLES / grid.nx.max(1)).max(1);
        let slices = grid.nz.div_ceil(band_rows);
        compute
            .run_metered(metered, slices, move |band| {
                let rows = band * band_rows..((band + 1) * band_rows).min(grid.nz);
                let mut out = vec![0.0; rows.len() * grid.nx];
                state.terrain().fill_rows(&grid, rows, &mut out);
                out
            })
            .await?
    } else {
        let slices = grid.len().div_ceil(BATCH_CHUNK_POINTS);
        compute
            .run_metered(metered, slices, move |chunk| {
                let first = chunk * BATCH_CHUNK_POINTS;
                let last = (first + BATCH_CHUNK_POINTS).min(grid.len());
                let terrain = state.terrain();
                (first..last)
                    .map(|k| terrain.height(grid.x(k % grid.nx), grid.z(k / grid.nx)))
                    .collect()
            })
            .await?
    };
    Ok(parts.concat())
}

/// The procedural heights ([`Terrain::procedural`]) of interleaved `coords` on this
/// thread.
pub fn procedural_serial(terrain: &Terrain, coords: &[f64]) -> Vec<f64> {
    coords
        .chunks_exact(2)
        .map(|p| terrain.procedural(p[0], p[1]))
        .collect()
}

/// [`procedural_serial`] on `compute` in slices of [`BATCH_CHUNK_POINTS`] taking turns
/// with other requests, metered and within the request's deadline.
pub async fn procedural_sliced<S>(
    compute: &Compute,
    metered: Metered<'_>,
    state: S,
    coords: Arc<Vec<f64>>,
) -> Result<Vec<f64>, Unfinished>
where
    S: AsTerrain + Send + Sync + 'static,
{
    let slices = coords.len().div_ceil(2 * BATCH_CHUNK_POINTS);
    let parts = compute
        .run_metered(metered, slices, move |i| {
            let end = (2 * BATCH_CHUNK_POINTS * (i + 1)).min(coords.len());
            procedural_serial(state.terrain(), &coords[2 * BATCH_CHUNK_POINTS * i..end])
        })
        .await?;
    Ok(parts.concat())
}

/// Samples `samples` (indexes `iz * nx + ix`) of `grid` in `mode`, each evaluated on
/// its own as a single-point query in that mode answers it, on this thread.
pub fn pointwise_serial(
    terrain: &Terrain,
    grid: &Grid,
    mode: HeightMode,
    samples: std::ops::Range<usize>,
) -> Vec<f64> {
    samples
        .map(|k| {
            let (x, z) = (grid.x(k % grid.nx), grid.z(k / grid.nx));
            match mode {
                HeightMode::Exact => terrain.height(x, z),
                HeightMode::Surface => surface_height(terrain, x, z),
                HeightMode::Procedural => terrain.procedural(x, z),
            }
        })
        .collect()
}

/// [`pointwise_serial`] over the whole of `grid` on `compute`, in slices of
/// [`BATCH_CHUNK_POINTS`] samples taking turns with other requests, metered and
/// within the request's deadline.
pub async fn pointwise_sliced<S>(
    compute: &Compute,
    metered: Metered<'_>,
    state: S,
    grid: Grid,
    mode: HeightMode,
) -> Result<Vec<f64>, Unfinished>
where
    S: AsTerrain + Send + Sync + 'static,
{
    let slices = grid.len().div_ceil(BATCH_CHUNK_POINTS);
    let parts = compute
        .run_metered(metered, slices, move |chunk| {
            let first = chunk * BATCH_CHUNK_POINTS;
            let last = (first + BATCH_CHUNK_POINTS).min(grid.len());
            pointwise_serial(state.terrain(), &grid, mode, first..last)
        })
        .await?;
    Ok(parts.concat())
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

/// Every sample of `grid`, row-major (x fastest), on this thread.
pub fn heightmap_serial(generator: &impl Generator, grid: &Grid) -> Vec<f64> {
    let mut out = vec![0.0; grid.len()];
    generator.fill(grid, &mut out);
    out
}

#[cfg(test)]
mod tests {

    use crate::cost::{Meter, Scope};
    use terrain_core::{FlatZone, GeneratorKind, Overlap, WorldGenerator, ZoneSet, zones::Shape};

    use super::*;

    const SCOPE: Scope = Scope {
        field: "points",
        narrow: "ask for fewer points",
        spread: true,
        kept: false,
    };

    /// `units` of work metered by `meter`.
    fn metered(meter: &Meter, units: usize) -> Metered<'_> {
        Metered {
            meter,
            units: units as u64,
            scope: SCOPE,
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_time()
            .build()
            .unwrap()
    }

    /// Hyperscape seed 0 with one zone, so the zoned and unzoned paths both show.
    fn terrain() -> Terrain {
        let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
        let mut zones = ZoneSet::new(Overlap::Layered, 100.0);
        let zone = FlatZone {
            id: "pad".into(),
            center_x: 10.0,
            center_z: 20.0,
            shape: Shape::Circle { radius: 30.0 },
            height: 12.0,
            blend_radius: 5.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        zones.insert(zone, 1);
        Terrain::new(generator, zones)
    }

    #[test]
    fn splitting_changes_nothing() {
        let compute = Compute::new().unwrap();
        let rt = runtime();
        let terrain = terrain();
        for (nx, nz) in [(300, 41), (5000, 1), (1, 9000), (7, 3), (4097, 2)] {
            let grid = Grid::new(-12.5, 10.25, 0.3, nx, nz).unwrap();
            let serial = heightmap_serial(&terrain, &grid);
            let meter = Meter::new(0.0);
            let work = metered(&meter, grid.len());
            let sliced = rt
                .block_on(heightmap_sliced(&compute, work, terrain.clone(), grid))
                .unwrap();
            assert!(meter.settled() && meter.ns_per_unit() > 0.0, "measured");
            assert_eq!(serial.len(), grid.len());
            assert!(
                serial
                    .iter()
                    .zip(&sliced)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{nx}x{nz}"
            );
            let last = terrain.height(grid.x(nx - 1), grid.z(nz - 1));
            assert_eq!(sliced[grid.len() - 1].to_bits(), last.to_bits());
        }
    }

    #[test]
    fn sampling_splits_change_nothing_and_name_zones() {
        let terrain = terrain();
        let coords: Vec<f64> = (0..5000)
            .flat_map(|i| [i as f64 * 0.05 - 50.0, 20.0 + (i % 7) as f64])
            .collect();
        let serial = samples_serial(&terrain, &coords, true);
        let compute = Compute::new().unwrap();
        let rt = runtime();
        let meter = Meter::new(0.0);
        let sliced = rt
            .block_on(samples_sliced(
                &compute,
                metered(&meter, 5000),
                terrain.clone(),
                Arc::new(coords.clone()),
                true,
            ))
            .unwrap();
        assert_eq!(serial, sliced);
        assert!(serial.hits > 0 && serial.hits < 5000, "{}", serial.hits);
        for (k, p) in coords.chunks_exact(2).enumerate() {
            let s = terrain.sample(p[0], p[1]);
            assert_eq!(serial.heights[k].to_bits(), s.height.to_bits());
            assert_eq!(serial.zones[k].is_empty(), s.zone.is_none());
        }
        let bare = rt
            .block_on(samples_sliced(
                &compute,
                metered(&meter, 5000),
                terrain,
                Arc::new(coords),
                false,
            ))
            .unwrap();
        assert_eq!((bare.heights, bare.hits), (serial.heights, serial.hits));
        assert!(bare.zones.is_empty());
    }

    /// Procedural batches and pointwise heightmaps are each point's own answer in its
    /// mode, however they are sliced; the zone does not change a procedural height.
    #[test]
    fn procedural_and_pointwise_paths_answer_each_point_s_own_height() {
        let terrain = terrain();
        let bare = terrain.with_zones(std::iter::empty());
        let coords: Vec<f64> = (0..3000)
            .flat_map(|i| [i as f64 * 0.05 - 50.0, 20.0 + (i % 7) as f64])
            .collect();
        let compute = Compute::new().unwrap();
        let rt = runtime();
        let serial = procedural_serial(&terrain, &coords);
        let sliced = rt
            .block_on(procedural_sliced(
                &compute,
                metered(&Meter::new(0.0), 3000),
                terrain.clone(),
                Arc::new(coords.clone()),
            ))
            .unwrap();
        let mut differ = 0;
        for (k, p) in coords.chunks_exact(2).enumerate() {
            let want = bare.procedural(p[0], p[1]);
            assert_eq!(serial[k].to_bits(), want.to_bits());
            assert_eq!(sliced[k].to_bits(), want.to_bits());
            differ += usize::from(terrain.height(p[0], p[1]) != want);
        }
        assert!(differ > 0, "the zone decides some exact heights");
        let grid = Grid::new(-12.5, 10.25, 0.3, 70, 40).unwrap();
        for mode in [
            HeightMode::Exact,
            HeightMode::Surface,
            HeightMode::Procedural,
        ] {
            let serial = pointwise_serial(&terrain, &grid, mode, 0..grid.len());
            let sliced = rt
                .block_on(pointwise_sliced(
                    &compute,
                    metered(&Meter::new(0.0), grid.len()),
                    terrain.clone(),
                    grid,
                    mode,
                ))
                .unwrap();
            assert_eq!(serial.len(), grid.len());
            for k in 0..grid.len() {
                let (x, z) = (grid.x(k % grid.nx), grid.z(k / grid.nx));
                let want = match mode {
                    HeightMode::Exact => terrain.height(x, z),
                    HeightMode::Surface => surface_height(&terrain, x, z),
                    HeightMode::Procedural => terrain.procedural(x, z),
                };
                assert_eq!(serial[k].to_bits(), want.to_bits(), "{mode:?} {k}");
                assert_eq!(sliced[k].to_bits(), want.to_bits(), "{mode:?} {k}");
            }
        }
    }
}
