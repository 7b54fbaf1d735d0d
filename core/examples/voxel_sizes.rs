//! Sizes of the binary chunk form: 25 chunks (-2..3 on both axes) of seeds 1 to 4 with
//! the default configuration, against one byte per block.
//!
//! `cargo run --release -p terrain-core --example voxel_sizes`

use terrain_core::voxel::{Voxel, VoxelConfig, VoxelConfigError};

fn main() -> Result<(), VoxelConfigError> {
    let mut sizes = Vec::new();
    let mut raw = 0;
    for seed in 1..=4 {
        let v = Voxel::new(seed, VoxelConfig::default())?;
        for cz in -2..3 {
            for cx in -2..3 {
                let c = v.chunk(cx, cz);
                raw = 32 * 32 * c.height() as usize;
                sizes.push(c.encode().len());
            }
        }
    }
    sizes.sort_unstable();
    let mean = sizes.iter().sum::<usize>() / sizes.len();
    println!(
        "{} chunks: min {} B, median {} B, mean {mean} B, max {} B; one byte per block: {raw} B",
        sizes.len(),
        sizes[0],
        sizes[sizes.len() / 2],
        sizes[sizes.len() - 1]
    );
    Ok(())
}
