//! Height lookups through [`Terrain`] with 0, 100 and 100,000 flat zones registered:
//! station-sized zones (5-9 m cores, 2-3 m blend rings) spread deterministically over a
//! 20 km x 20 km square, plus one zone at (30, 30) so that the index tile of the
//! measured island points always lists a zone.
//!
//! - `outside_busy_tile`: (12.3, -31.7), outside every zone, in a tile that lists one;
//! - `outside_empty_tile`: (-120.4, 87.9), in a tile kept free of zones;
//! - `outside_scattered`: 256 points over the whole square, outside every zone (per
//!   point; the index is no longer cache-hot);
//! - `core` and `blend`: inside the zone at (30, 30), in its core and in its ring;
//! - `zone_set_*`: the index parts alone (`ZoneSet::sample`, `ZoneSet::near`) at the
//!   busy-tile point, to see what the zones cost on top of the generator.
//!
//! The target: with 100,000 zones, a lookup outside zones costs at most 1.2x the lookup
//! without zones.
//!
//! `covered_tile_*`: a tile's bordered grid under a zone covering it, area path against
//! the point-by-point redo it replaced.
//!
//! Run: `cargo bench --workspace --bench zones -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use terrain_core::zones::{FlatZone, Shape};
use terrain_core::{Generator, GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

const COUNTS: [usize; 3] = [0, 100, 100_000];
/// Half the side of the square the zones are spread over, in metres.
const SPREAD: f64 = 10_000.0;
const BUSY: (f64, f64) = (12.3, -31.7);
const EMPTY: (f64, f64) = (-120.4, 87.9);
/// The zone whose tile holds `BUSY`.
const ANCHOR: (f64, f64) = (30.0, 30.0);

/// A small deterministic generator (64-bit LCG), uniform in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

fn station(id: usize, x: f64, z: f64, rng: &mut Lcg) -> FlatZone {
    FlatZone {
        id: format!("s{id}"),
        center_x: x,
        center_z: z,
        shape: Shape::Rect {
            width: rng.range(5.0, 9.0),
            depth: rng.range(5.0, 9.0),
        },
        height: rng.range(20.0, 30.0),
        blend_radius: rng.range(2.0, 3.0),
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    }
}

/// `n` zones: the anchor, then zones uniform over the square, none within 80 m of the
/// empty-tile point (its 100 m tile stays unlisted).
fn zones(n: usize) -> Vec<FlatZone> {
    let mut rng = Lcg(0x5eed);
    let mut out = Vec::with_capacity(n);
    if n > 0 {
        out.push(station(0, ANCHOR.0, ANCHOR.1, &mut rng));
    }
    while out.len() < n {
        let (x, z) = (rng.range(-SPREAD, SPREAD), rng.range(-SPREAD, SPREAD));
        if (x - EMPTY.0).abs() < 80.0 && (z - EMPTY.1).abs() < 80.0 {
            continue;
        }
        out.push(station(out.len(), x, z, &mut rng));
    }
    out
}

fn terrain(kind: GeneratorKind, n: usize) -> Terrain {
    let generator = WorldGenerator::new(kind, 0).expect("seed 0 is valid");
    let mut set = ZoneSet::new(Overlap::Layered, generator.tile_size());
    for (i, z) in zones(n).into_iter().enumerate() {
        set.insert(z, i as u64 + 1);
    }
    Terrain::new(generator, set)
}

/// 256 points over the square that no zone of the largest set reaches.
fn scattered(t: &Terrain) -> Vec<(f64, f64)> {
    let mut rng = Lcg(0xface);
    let mut out = Vec::new();
    while out.len() < 256 {
        let (x, z) = (rng.range(-SPREAD, SPREAD), rng.range(-SPREAD, SPREAD));
        if t.sample(x, z).zone.is_none() {
            out.push((x, z));
        }
    }
    out
}

fn lookups(c: &mut Criterion, kind: GeneratorKind) {
    let largest = terrain(kind, *COUNTS.last().expect("counts"));
    let points = scattered(&largest);
    let mut group = c.benchmark_group(format!("zones_{}", kind.as_str()));
    for n in COUNTS {
        let t = if n == largest.zones().len() {
            largest.clone()
        } else {
            terrain(kind, n)
        };
        assert!(
            t.sample(BUSY.0, BUSY.1).zone.is_none() && t.sample(EMPTY.0, EMPTY.1).zone.is_none()
        );
        let point = |name: &str, (x, z): (f64, f64)| (BenchmarkId::new(name, n), x, z);
        let mut cases = vec![
            point("outside_busy_tile", BUSY),
            point("outside_empty_tile", EMPTY),
        ];
        if n > 0 {
            cases.push(point("core", ANCHOR));
            cases.push(point("blend", (ANCHOR.0 + 5.5, ANCHOR.1)));
        }
        group.throughput(Throughput::Elements(1));
        for (id, x, z) in cases {
            group.bench_function(id, |b| b.iter(|| t.height(black_box(x), black_box(z))));
        }
        let zones = t.zones();
        let (x, z) = BUSY;
        group.bench_function(BenchmarkId::new("zone_set_sample", n), |b| {
            b.iter(|| {
                zones
                    .sample(black_box(x), black_box(z), |_, _| 0.0)
                    .is_some()
            })
        });
        group.bench_function(BenchmarkId::new("zone_set_near", n), |b| {
            b.iter(|| zones.near(black_box(x), black_box(z), 1.0))
        });
        group.throughput(Throughput::Elements(points.len() as u64));
        group.bench_function(BenchmarkId::new("outside_scattered", n), |b| {
            b.iter(|| {
                points
                    .iter()
                    .map(|&(x, z)| t.height(black_box(x), black_box(z)))
                    .sum::<f64>()
            })
        });
    }
    let g = WorldGenerator::new(kind, 0).expect("seed 0 is valid");
    group.throughput(Throughput::Elements(1));
    group.bench_function("generator_height", |b| {
        b.iter(|| g.height(black_box(BUSY.0), black_box(BUSY.1)))
    });
    group.finish();
}

/// Tile (1, -1)'s 66 x 66 bordered grid under one zone that covers it completely
/// (a 10 m core with an 80 m blend ring reaching past the tile, so nearly every
/// point blends toward the procedural height): `covered_tile_area` is
/// `Terrain::fill_axes` (one area pass, the procedural heights reused under the zone);
/// `covered_tile_point_redo` is what it replaced, the area pass and then every point
/// near a zone again through `Terrain::height`.
fn covered_tile(c: &mut Criterion) {
    let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).expect("seed 0 is valid");
    let mut set = ZoneSet::new(Overlap::Layered, generator.tile_size());
    let zone = FlatZone {
        id: "cover".into(),
        center_x: 100.0,
        center_z: -100.0,
        shape: Shape::Rect {
            width: 10.0,
            depth: 10.0,
        },
        height: 20.0,
        blend_radius: 80.0,
        carve_inset: None,
        priority: 0,
        walkable: None,
        tile_mask: None,
    };
    set.insert(zone, 1);
    let t = Terrain::new(generator, set);
    let step = 100.0 / 63.0;
    let xs: Vec<f64> = (-1..=64)
        .map(|i| (-50.0 + f64::from(i) * step) + 100.0)
        .collect();
    let zs: Vec<f64> = (-1..=64)
        .map(|i| (-50.0 + f64::from(i) * step) - 100.0)
        .collect();
    assert!(
        zs.iter()
            .all(|&z| xs.iter().all(|&x| t.zones().near(x, z, 1.0)))
    );
    let mut out = vec![0.0; xs.len() * zs.len()];
    let mut group = c.benchmark_group("zones_hyperscape");
    group.throughput(Throughput::Elements(out.len() as u64));
    group.bench_function("covered_tile_area", |b| {
        b.iter(|| t.fill_axes(black_box(&xs), black_box(&zs), &mut out))
    });
    group.bench_function("covered_tile_point_redo", |b| {
        b.iter(|| {
            t.generator()
                .fill_axes(black_box(&xs), black_box(&zs), &mut out);
            for (iz, &z) in zs.iter().enumerate() {
                for (ix, &x) in xs.iter().enumerate() {
                    if t.zones().near(x, z, 1.0) {
                        out[iz * xs.len() + ix] = t.height(x, z);
                    }
                }
            }
        })
    });
    let mut redo = vec![0.0; out.len()];
    t.fill_axes(&xs, &zs, &mut out);
    for (iz, &z) in zs.iter().enumerate() {
        for (ix, &x) in xs.iter().enumerate() {
            redo[iz * xs.len() + ix] = t.height(x, z);
        }
    }
    assert_eq!(out, redo);
    group.finish();
}

fn benches(c: &mut Criterion) {
    covered_tile(c);
    lookups(c, GeneratorKind::Hyperscape);
    lookups(c, GeneratorKind::Osrs);
}

criterion_group!(zone_benches, benches);
criterion_main!(zone_benches);
