//! Configuration tests of voxel worlds: the `[worlds.voxel]` table, its defaults, and
//! every refusal naming its key.

use terrain_core::{GeneratorKind, voxel::VoxelConfig};

use super::*;

fn from_text(text: &str) -> Result<Config, ConfigError> {
    Config::resolve(file::parse(text)?)
}

/// The key and message of a refused configuration.
fn refusal(text: &str) -> (String, String) {
    match from_text(text) {
        Err(ConfigError::Invalid { key, message }) => (key, message),
        other => panic!("expected a refusal of\n{text}\ngot {other:?}"),
    }
}

fn voxel_world(table: &str) -> String {
    format!("[[worlds]]\nid = \"v\"\ngenerator = \"voxel\"\nseed = 4000000000\n{table}\n")
}

#[test]
fn a_voxel_world_takes_its_table_or_the_defaults() {
    let config = from_text(&voxel_world("")).unwrap();
    let world = &config.worlds[0];
    assert_eq!(
        (world.generator, world.seed),
        (GeneratorKind::Voxel, 4_000_000_000)
    );
    assert_eq!(world.voxel, Some(VoxelConfig::default()));
    let want = VoxelConfig::diorama();
    let table = toml::to_string(&want).unwrap();
    let config = from_text(&voxel_world(&format!("[worlds.voxel]\n{table}"))).unwrap();
    assert_eq!(config.worlds[0].voxel, Some(want));
    // A partial table: the rest are the defaults.
    let config = from_text(&voxel_world("[worlds.voxel]\nsea_level = 5")).unwrap();
    let voxel = config.worlds[0].voxel.unwrap();
    assert_eq!(voxel.sea_level, 5);
    assert_eq!(voxel.max_height, VoxelConfig::default().max_height);
}

#[test]
fn the_shipped_diorama_is_the_core_diorama() {
    let text = include_str!("../../../worlds/diorama.toml");
    let config = from_text(text).unwrap();
    let diorama = config
        .worlds
        .iter()
        .find(|w| w.id == "diorama")
        .expect("world diorama");
    assert_eq!(diorama.generator, GeneratorKind::Voxel);
    assert_eq!(diorama.voxel, Some(VoxelConfig::diorama()));
}

#[test]
fn bad_voxel_settings_are_refused_naming_the_key() {
    let (key, message) = refusal(&voxel_world("[worlds.voxel]\nmax_height = \"tall\""));
    assert_eq!(key, "worlds[0].voxel.max_height", "{message}");
    let (key, message) = refusal(&voxel_world("[worlds.voxel]\nbogus = 1"));
    assert_eq!(key, "worlds[0].voxel.bogus", "{message}");
    assert!(message.contains("unknown key"), "{message}");
    let (key, message) = refusal(&voxel_world(
        "[worlds.voxel]\nmax_height = 64\nsea_level = 64",
    ));
    assert_eq!(key, "worlds[0].voxel.sea_level", "{message}");
    assert!(message.contains("sea_level"), "{message}");
    let (key, message) = refusal(
        "[[worlds]]\nid = \"h\"\ngenerator = \"hyperscape\"\n[worlds.voxel]\nsea_level = 3\n",
    );
    assert_eq!(key, "worlds[0].voxel");
    assert!(message.contains("hyperscape"), "{message}");
    let (key, _) = refusal(&voxel_world(
        "[worlds.layout]\npattern = \"grid\"\nchunk_size = 400\ncell_size = 8",
    ));
    assert_eq!(key, "worlds[0].layout");
}

#[test]
fn hand_built_configs_are_checked_alike() {
    let mut config = Config::default();
    config.worlds[0].voxel = Some(VoxelConfig::default());
    let err = config.validate().unwrap_err().to_string();
    assert!(err.starts_with("worlds[0].voxel: "), "{err}");
    let mut world = WorldConfig::new("v", GeneratorKind::Voxel, 1);
    assert_eq!(world.voxel, Some(VoxelConfig::default()));
    world.voxel = None;
    let config = Config {
        worlds: vec![world.clone()],
        ..Config::default()
    };
    let err = config.validate().unwrap_err().to_string();
    assert!(err.starts_with("worlds[0].voxel: "), "{err}");
    world.voxel = Some(VoxelConfig {
        sea_level: 1000,
        ..VoxelConfig::default()
    });
    let config = Config {
        worlds: vec![world],
        ..Config::default()
    };
    let err = config.validate().unwrap_err().to_string();
    assert!(err.starts_with("worlds[0].voxel.sea_level: "), "{err}");
}
