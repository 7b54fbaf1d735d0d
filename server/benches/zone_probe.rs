//! The height probe of a zone registration: the ground sampled over the changed area
//! before the change, then the change's largest height difference after it
//! (`world::delta::Probe`, up to 65 x 65 points each), for the largest legal zone (a
//! 10 km square with a 10 km blend ring) on a voxel world (seed 3, default
//! parameters, nothing cached) beside a hyperscape one (seed 0). One iteration is one
//! registration's probe.
//!
//! `cargo bench -p terrain-server --bench zone_probe`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use terrain_core::zones::Shape;
use terrain_core::{FlatZone, GeneratorKind, Overlap, Terrain, WorldSpec, build_terrain};
use terrain_server::world::delta::{Probe, union};

fn terrain(generator: GeneratorKind, seed: u32) -> Terrain {
    let spec = WorldSpec {
        generator,
        seed,
        overlap: Overlap::Layered,
        layout: None,
        voxel: None,
    };
    build_terrain(&spec, []).expect("default world")
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("zone_probe");
    group.sample_size(10);
    for (kind, seed) in [(GeneratorKind::Voxel, 3), (GeneratorKind::Hyperscape, 0)] {
        let zone = FlatZone {
            id: "huge".into(),
            center_x: 0.0,
            center_z: 0.0,
            shape: Shape::Rect {
                width: 10_000.0,
                depth: 10_000.0,
            },
            height: terrain(kind, seed).procedural(0.0, 0.0) + 2.0,
            blend_radius: 10_000.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        let bounds = union([zone.outer_bounds()], 1.0).expect("one zone");
        let probe = Probe::over(&bounds);
        group.bench_function(format!("{}/largest_zone", kind.as_str()), |b| {
            b.iter_batched(
                || {
                    let mut after = terrain(kind, seed);
                    after.zones_mut().insert(zone.clone(), 1);
                    (terrain(kind, seed), after)
                },
                |(before, after)| {
                    let sampled = probe.sample(&before);
                    black_box(probe.delta(&sampled, &after))
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
