//! Renders map tiles of a voxel world (default parameters) to PNG files, as the server's
//! `/v1/worlds/{w}/map/{z}/{x}/{y}.png` draws them: for looking at the biomes.
//!
//! `cargo run --release -p terrain-server --example voxel_map -- SEED OUT_PREFIX ZOOM X Y [ZOOM X Y ...]`
//! writes `OUT_PREFIX_z{ZOOM}_{X}_{Y}.png` for each tile.

use terrain_core::{GeneratorKind, Overlap, WorldSpec, build_terrain};
use terrain_server::map::{MapTile, render};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: voxel_map SEED OUT_PREFIX ZOOM X Y [ZOOM X Y ...]";
    if args.len() < 5 || !(args.len() - 2).is_multiple_of(3) {
        return Err(usage.into());
    }
    let seed: u32 = args[0].parse()?;
    let spec = WorldSpec {
        generator: GeneratorKind::Voxel,
        seed,
        overlap: Overlap::default(),
        layout: None,
        voxel: None,
    };
    let terrain = build_terrain(&spec, std::iter::empty())?;
    for t in args[2..].chunks(3) {
        let tile = MapTile {
            zoom: t[0].parse()?,
            x: t[1].parse()?,
            y: t[2].parse()?,
        };
        let start = std::time::Instant::now();
        let png = render::encode_png(&render::render(&terrain, tile))?;
        let path = format!("{}_z{}_{}_{}.png", args[1], tile.zoom, tile.x, tile.y);
        std::fs::write(&path, png)?;
        println!("{path} in {:.2?}", start.elapsed());
    }
    Ok(())
}
