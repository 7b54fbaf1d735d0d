//! The voxel figures of the 3D Tiles docs (docs/src/tiles3d.md): a voxel world's
//! default square (seed 3, the default parameters, no zones, 128 x 128 chunks centred on
//! the origin, 7 levels below the root, the server's errors from one block at the chunks),
//! single-threaded:
//!
//! - every chunk's grid from the top-block heights, then every parent grid, timed;
//! - per coarse level, on every content of levels 0 to 3 and a lattice of 64 contents
//!   below: the content's mesh and glb as the server builds them from the kept grids
//!   (triangles, glb bytes, time, the largest proven bound, and any content whose bound
//!   exceeds its level's error);
//! - a lattice of 64 chunks' greedy meshes as glb (what the finest level serves).
//!
//! `cargo run --release -p terrain-core --example tiles3d_voxel`

use std::time::Instant;

use terrain_core::mesh::glb::{ColouredMesh, coloured_to_glb};
use terrain_core::mesh::to_glb;
use terrain_core::tiles3d::{
    ContentGrid, ContentKey, TilesetLayout, content_mesh, content_patches, leaf_error, leaf_grid,
    parent_grid, sample_depth,
};
use terrain_core::{GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet};

/// The server's default `tileset_extent` of voxel worlds.
const EXTENT: f64 = 4096.0;
/// Contents (and chunks) sampled per level below the fully measured ones.
const SAMPLE: u64 = 64;

/// The `i`-th of a lattice of samples over `n x n` indices.
fn lattice(i: u64, n: u64) -> (u64, u64) {
    ((i * 5 + 1) % n, (i * 7 + 2) % n)
}

fn main() {
    let generator = WorldGenerator::new(GeneratorKind::Voxel, 3).expect("voxel seed 3");
    let t = Terrain::new(generator, ZoneSet::new(Overlap::Layered, 32.0));
    let l = TilesetLayout::covering(t.generator().tile_grid(), EXTENT, leaf_error(t.generator()));
    let side = l.side();

    let start = Instant::now();
    let leaves: Vec<ContentGrid> = (0..side * side)
        .map(|k| {
            let key = ContentKey {
                level: l.levels,
                ix: k % side,
                iz: k / side,
            };
            leaf_grid(&t, &l, key)
        })
        .collect();
    let heights: usize = leaves.iter().map(|g| g.heights.len()).sum();
    println!(
        "chunk grids: {} ({heights} top-block heights) in {:.2} s",
        leaves.len(),
        start.elapsed().as_secs_f64()
    );
    // Grids by level, the chunks' first.
    let mut grids = vec![leaves];
    let start = Instant::now();
    for level in (0..l.levels).rev() {
        let below = grids.last().expect("the level below");
        let (n, nb) = (1u64 << level, 1u64 << (level + 1));
        let made = (0..n * n)
            .map(|k| {
                let key = ContentKey {
                    level,
                    ix: k % n,
                    iz: k / n,
                };
                let c = key.children().map(|c| &below[(c.iz * nb + c.ix) as usize]);
                parent_grid(key, c)
            })
            .collect();
        grids.push(made);
    }
    println!("parent grids in {:.2} s", start.elapsed().as_secs_f64());
    let at = |level: u32| &grids[(l.levels - level) as usize];

    println!(
        "| level | geometric error (m) | contents | triangles (mean) | glb bytes (mean) | mesh + glb (ms, mean) | largest bound (m) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for level in 0..l.levels {
        let n = 1u64 << level;
        let keys: Vec<ContentKey> = if n * n <= SAMPLE {
            (0..n * n).map(|k| (k % n, k / n)).collect::<Vec<_>>()
        } else {
            (0..SAMPLE).map(|i| lattice(i, n)).collect()
        }
        .into_iter()
        .map(|(ix, iz)| ContentKey { level, ix, iz })
        .collect();
        let limit = l.geometric_error(level);
        let (mut triangles, mut bytes, mut ms, mut worst) = (0, 0, 0.0, 0.0f64);
        for &key in &keys {
            let below = |d: u32| -> Vec<&ContentGrid> {
                let (k, nl) = (1u64 << d, 1u64 << (level + d));
                (0..k * k)
                    .map(|i| {
                        &at(level + d)[((key.iz * k + i / k) * nl + key.ix * k + i % k) as usize]
                    })
                    .collect()
            };
            let depth = sample_depth(&l, key, |d| {
                below(d).iter().map(|g| g.error).fold(0.0, f64::max)
            });
            let samples = below(depth);
            let start = Instant::now();
            let patches = content_patches(&l, key, &samples, &mut |k: ContentKey| {
                k.children()
                    .map(|c| &at(c.level)[(c.iz * (1u64 << c.level) + c.ix) as usize])
                    .to_vec()
            });
            let (mesh, bound) = content_mesh(&t, &l, key, &samples, depth, &patches, 0);
            let glb = to_glb(&mesh).expect("a glb");
            ms += start.elapsed().as_secs_f64() * 1000.0;
            if bound > limit {
                println!("{key:?}: bound {bound} m beyond {limit} m");
            }
            triangles += mesh.indices.len() / 3;
            bytes += glb.len();
            worst = worst.max(bound);
        }
        let k = keys.len();
        println!(
            "| {level} | {limit} | {k} | {} | {} | {:.1} | {worst:.3} |",
            triangles / k,
            bytes / k,
            ms / k as f64
        );
    }

    let (mut triangles, mut bytes, mut ms) = (0, 0, 0.0);
    for i in 0..SAMPLE {
        let (ix, iz) = lattice(i, side);
        let (cx, cz) = (l.min_tile.0 + ix as i64, l.min_tile.1 + iz as i64);
        let start = Instant::now();
        let mesh = t.voxel_mesh(cx, cz).expect("a chunk in range");
        let glb = coloured_to_glb(&ColouredMesh {
            name: format!("chunk_{cx}_{cz}"),
            translation: [0.0; 3],
            extras: serde_json::json!({}),
            primitives: mesh.primitives(),
        })
        .expect("a glb");
        ms += start.elapsed().as_secs_f64() * 1000.0;
        triangles += (mesh.opaque.indices.len() + mesh.transparent.indices.len()) / 3;
        bytes += glb.len();
    }
    println!(
        "chunks: {SAMPLE}, {} triangles, {} glb bytes, greedy mesh + glb {:.1} ms (means)",
        triangles / SAMPLE as usize,
        bytes / SAMPLE as usize,
        ms / SAMPLE as f64
    );
}
