//! What the voxel end-to-end tests share: the configuration of a server hosting a
//! voxel world (and a hyperscape one beside it), the core terrain to compare its
//! answers with, and the Khronos glTF validator run over served `.glb` files.

use std::{path::PathBuf, process::Command};

use terrain_core::{
    FlatZone, GeneratorKind, Overlap, Terrain, WorldSpec, build_terrain, voxel::VoxelConfig,
};
use terrain_server::{Config, WorldConfig};

/// The voxel world's id and seed.
pub const VOXEL: &str = "blocks";
pub const SEED: u32 = 3;

/// The voxel world's parameters: the generator's defaults, unchanged (the tests that
/// need water, coast or transparent kinds find them where the defaults put them).
pub fn voxel_config() -> VoxelConfig {
    VoxelConfig::default()
}

/// World `blocks` (voxel, seed 3) first, then `main` (hyperscape seed 0), neither
/// with start-up zones nor warmed meshes.
pub fn voxel_worlds(c: &mut Config) {
    let mut world = WorldConfig::new(VOXEL, GeneratorKind::Voxel, SEED);
    world.voxel = Some(voxel_config());
    c.worlds = vec![
        world,
        WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
    ];
    c.lifecycle.warm_radius = None;
}

/// The core terrain of `blocks` with `zones` registered in order.
pub fn voxel_terrain(zones: &[FlatZone]) -> Terrain {
    let spec = WorldSpec {
        generator: GeneratorKind::Voxel,
        seed: SEED,
        overlap: Overlap::default(),
        layout: None,
        voxel: Some(voxel_config()),
    };
    let zones = zones.iter().cloned().zip(1..);
    build_terrain(&spec, zones).expect("voxel terrain")
}

/// Where the validator's package lives (`npm ci --prefix tests/gltf-validator`).
fn validator_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gltf-validator")
}

/// Runs the Khronos glTF validator over `files`; panics with its report on any error.
/// Without the installed package the test fails under CI and is skipped (with a note)
/// elsewhere.
pub fn validate_glb(files: &[PathBuf]) {
    let dir = validator_dir();
    if !dir.join("node_modules/gltf-validator").is_dir() {
        let hint = "install it with `npm ci --prefix tests/gltf-validator`";
        assert!(
            std::env::var_os("CI").is_none(),
            "the glTF validator is missing under CI: {hint}"
        );
        eprintln!("skipping glTF validation: {hint}");
        return;
    }
    let output = Command::new("node")
        .arg(dir.join("validate.mjs"))
        .args(files)
        .output()
        .expect("run node");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "gltf-validator refused a glb:\n{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for line in report.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON report line");
        assert_eq!(v["errors"], 0, "{line}");
        assert_eq!(v["warnings"], 0, "{line}");
    }
    assert_eq!(report.lines().count(), files.len(), "{report}");
}
