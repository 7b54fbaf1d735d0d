//! The seed scene's figures: for seeds 1 to 20, the 48 x 48 columns at the origin of a
//! world with `VoxelConfig::diorama()`, as an isolated diorama: total blocks, visible
//! instances after culling, kinds (instanced draw calls), greedy quads and naive
//! visible faces, as a Markdown table.
//!
//! `cargo run --release -p terrain-core --example voxel_diorama`

use terrain_core::voxel::{AreaStats, Voxel, VoxelConfig, VoxelConfigError};

fn main() -> Result<(), VoxelConfigError> {
    println!("| seed | blocks | visible | kinds | greedy quads | visible faces | mean column |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let mut sum = [0u64; 5];
    for seed in 1..=20 {
        let v = Voxel::new(seed, VoxelConfig::diorama())?;
        let s: AreaStats = v.area_stats(0, 0, 48, 48);
        let a = v.area(0, 0, 48, 48);
        let mean = (0..48 * 48)
            .map(|i| f64::from(a.column(i % 48, i / 48).map_or(0, |c| c.height)))
            .sum::<f64>()
            / 2304.0;
        println!(
            "| {seed} | {} | {} | {} | {} | {} | {mean:.1} |",
            s.total_blocks, s.visible, s.kinds, s.quads, s.visible_faces
        );
        let row = [s.total_blocks, s.visible, s.kinds, s.quads, s.visible_faces];
        for (t, x) in sum.iter_mut().zip(row) {
            *t += x;
        }
    }
    let m = sum.map(|t| t / 20);
    println!(
        "| mean | {} | {} | {} | {} | {} | |",
        m[0], m[1], m[2], m[3], m[4]
    );
    Ok(())
}
