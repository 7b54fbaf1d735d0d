//! The seed's scene: `VoxelConfig::diorama()` over 48 x 48 columns at the origin gives
//! columns of about 12 blocks, about 30,000 blocks, a few thousand visible instances
//! and at most 15 kinds, for each of seeds 1 to 20 (the table in docs/src/voxel.md).

use terrain_core::voxel::{Voxel, VoxelConfig};

#[test]
fn the_diorama_is_sized_like_the_seed_scene() {
    for seed in 1..=20 {
        let v = Voxel::new(seed, VoxelConfig::diorama()).unwrap();
        let s = v.area_stats(0, 0, 48, 48);
        assert!((20_000..=40_000).contains(&s.total_blocks), "{seed}: {s:?}");
        assert!((3_000..=12_000).contains(&s.visible), "{seed}: {s:?}");
        assert!((6..=15).contains(&s.kinds), "{seed}: {s:?}");
        assert!(s.quads * 2 < s.visible_faces, "{seed}: {s:?}");
        assert!(
            s.visible < s.total_blocks / 2,
            "{seed}: culling hides most blocks"
        );
        let a = v.area(0, 0, 48, 48);
        let heights: Vec<i32> = (0..48 * 48)
            .map(|i| a.column(i % 48, i / 48).unwrap().height)
            .collect();
        let mean = heights.iter().map(|&h| f64::from(h)).sum::<f64>() / heights.len() as f64;
        assert!((10.0..=14.0).contains(&mean), "{seed}: mean column {mean}");
        assert!(
            heights.iter().any(|&h| h < 10),
            "{seed}: some water or lowland"
        );
    }
}
