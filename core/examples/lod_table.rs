//! The levels-of-detail table of the docs (docs/src/tiles3d.md): triangles and vertices
//! per tile of the 10 km island (seed 0, 100 x 100 tiles) against the maximum error,
//! with the simplification time per tile, and the largest error measured at the
//! full-detail vertices.
//!
//! `cargo run --release -p terrain-core --example lod_table`

use std::time::Instant;

use terrain_core::mesh::{HeightGrid, build_tile, simplify_grid, simplify_tile};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

fn main() {
    let terrain = Terrain::new(
        WorldGenerator::new(GeneratorKind::Hyperscape, 0).expect("seed 0"),
        ZoneSet::new(Overlap::Layered, 100.0),
    );
    let errors = [0.0, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0];
    let started = Instant::now();
    let terrain = &terrain;
    let tiles: Vec<_> = (-50..50)
        .flat_map(|tz| (-50..50).map(move |tx| build_tile(terrain, (tx, tz), 0)))
        .collect();
    let build = started.elapsed().as_secs_f64() / tiles.len() as f64;
    println!(
        "{} tiles, full-detail build {:.0} us per tile",
        tiles.len(),
        build * 1e6
    );
    println!(
        "| max error (m) | triangles per tile (mean) | vertices per tile (mean) | of full detail | largest error measured (m) | simplification per tile (us) |"
    );
    println!("|---|---|---|---|---|---|");
    let full_tris = tiles[0].indices.len() as f64 / 3.0;
    for e in errors {
        let started = Instant::now();
        let (mut tris, mut verts, mut worst) = (0usize, 0usize, 0.0f64);
        for t in &tiles {
            let s = simplify_tile(t, e);
            tris += s.indices.len() / 3;
            verts += s.positions.len() / 3;
        }
        let per = started.elapsed().as_secs_f64() / tiles.len() as f64;
        // The error as the simplifier measured it, surface triangles only.
        for t in &tiles {
            let n = t.resolution as usize;
            let h: Vec<f64> = t
                .positions
                .chunks_exact(3)
                .map(|p| f64::from(p[1]))
                .collect();
            let grid = HeightGrid {
                nx: n,
                nz: n,
                heights: &h,
                carved: &[],
            };
            worst = worst.max(simplify_grid(&grid, e).max_error);
        }
        let k = tiles.len() as f64;
        println!(
            "| {e} | {:.0} | {:.0} | {:.1} % | {worst:.3} | {:.0} |",
            tris as f64 / k,
            verts as f64 / k,
            100.0 * tris as f64 / k / full_tris,
            per * 1e6
        );
    }
}
