//! Configuration tests: every refusal names its key; flags override the file.
//!
//! Environment variables are covered by `server/tests/binary.rs` (setting them in this
//! process would be `unsafe` and leak into other tests).

use std::{io::Write, net::SocketAddr, time::Duration};

use clap::Parser;
use terrain_core::GeneratorKind;

use super::*;

/// Resolves a configuration file's text with no flags.
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

#[test]
fn defaults_serve_main_hyperscape_seed_0() {
    let config = from_text("").unwrap();
    assert_eq!(config, Config::default());
    assert_eq!(
        config.worlds,
        [WorldConfig::new("main", GeneratorKind::Hyperscape, 0)]
    );
    assert_eq!(config.listen, DEFAULT_LISTEN.parse::<SocketAddr>().unwrap());
    assert_eq!(config.limits.max_batch_points, 1_000_000);
    assert_eq!(config.limits.max_heightmap_samples, 4_194_304);
    assert_eq!(config.limits.max_coordinate, 1e9);
    assert_eq!(config.shutdown_timeout, Duration::from_secs(10));
}

#[test]
fn full_file() {
    let config = from_text(
        r#"
        listen = "0.0.0.0:9000"
        data_dir = "/var/lib/terrain"
        max_coordinate = 5e5
        max_batch_points = 10
        max_heightmap_samples = 100
        shutdown_timeout = "1500ms"
        log_format = "json"
        [[worlds]]
        id = "main"
        generator = "hyperscape"
        seed = 7
        [[worlds]]
        id = "old-school_2"
        generator = "osrs"
        "#,
    )
    .unwrap();
    assert_eq!(config.listen, "0.0.0.0:9000".parse::<SocketAddr>().unwrap());
    assert_eq!(config.data_dir, PathBuf::from("/var/lib/terrain"));
    assert_eq!(
        config.limits,
        Limits {
            max_coordinate: 5e5,
            max_batch_points: 10,
            max_heightmap_samples: 100
        }
    );
    assert_eq!(config.shutdown_timeout, Duration::from_millis(1500));
    assert_eq!(config.log_format, LogFormat::Json);
    assert_eq!(
        config.worlds,
        [
            WorldConfig::new("main", GeneratorKind::Hyperscape, 7),
            WorldConfig::new("old-school_2", GeneratorKind::Osrs, 0),
        ]
    );
    assert_eq!(
        from_text("shutdown_timeout = 3").unwrap().shutdown_timeout,
        Duration::from_secs(3)
    );
}

#[test]
fn unknown_keys_are_named() {
    let (key, message) = refusal("listen = \"127.0.0.1:1\"\nbogus = 1");
    assert_eq!(key, "bogus");
    assert!(message.contains("unknown key"), "{message}");
    let (key, _) = refusal("[[worlds]]\nid = \"a\"\ngenerator = \"osrs\"\ncolour = \"red\"");
    assert_eq!(key, "worlds[0].colour");
}

#[test]
fn duplicate_world_id() {
    let text = r#"
        [[worlds]]
        id = "main"
        generator = "hyperscape"
        [[worlds]]
        id = "main"
        generator = "osrs"
    "#;
    let err = from_text(text).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"worlds[1].id: duplicate world id "main""#
    );
}

#[test]
fn bad_world_entries_are_named() {
    let cases = [
        (r#"id = "bad id!""#, "hyperscape", "0", "worlds[0].id"),
        (r#"id = """#, "hyperscape", "0", "worlds[0].id"),
        (r#"id = "main""#, "minecraft", "0", "worlds[0].generator"),
        (r#"id = "main""#, "osrs", "5", "worlds[0].seed"),
        (r#"id = "main""#, "hyperscape", "-1", "worlds[0].seed"),
        (
            r#"id = "main""#,
            "hyperscape",
            "4294967296",
            "worlds[0].seed",
        ),
        (r#"id = "main""#, "hyperscape", "\"zero\"", "worlds[0].seed"),
        ("id = 5", "hyperscape", "0", "worlds[0].id"),
    ];
    for (id, generator, seed, expected) in cases {
        let text = format!("[[worlds]]\n{id}\ngenerator = \"{generator}\"\nseed = {seed}");
        let (key, message) = refusal(&text);
        assert_eq!(key, expected, "{text}: {message}");
    }
    let (key, message) = refusal("[[worlds]]\nid = \"main\"\ngenerator = \"osrs\"\nseed = 5");
    assert_eq!(key, "worlds[0].seed");
    assert!(message.contains("must be 0"), "{message}");
    assert_eq!(
        refusal("[[worlds]]\ngenerator = \"osrs\"").0,
        "worlds[0].id"
    );
    assert_eq!(refusal("worlds = []").0, "worlds");
}

#[test]
fn bad_top_level_values_are_named() {
    let cases = [
        ("listen = 8080", "listen"),
        ("listen = \"localhost\"", "listen"),
        ("max_coordinate = 0", "max_coordinate"),
        ("max_coordinate = nan", "max_coordinate"),
        ("max_batch_points = 0", "max_batch_points"),
        ("max_heightmap_samples = -5", "max_heightmap_samples"),
        ("shutdown_timeout = \"soon\"", "shutdown_timeout"),
        ("shutdown_timeout = -1", "shutdown_timeout"),
        ("log_format = \"xml\"", "log_format"),
        ("worlds = 3", "worlds"),
    ];
    for (text, expected) in cases {
        assert_eq!(refusal(text).0, expected, "{text}");
    }
    assert!(matches!(
        from_text("listen = "),
        Err(ConfigError::Syntax { .. })
    ));
}

#[test]
fn flags_override_the_file() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    write!(
        file,
        "listen = \"127.0.0.1:7000\"\nmax_batch_points = 5\nshutdown_timeout = \"3s\"\n\
         [[worlds]]\nid = \"filed\"\ngenerator = \"hyperscape\"\n"
    )
    .unwrap();
    let path = file.path().to_str().unwrap();
    let cli = Cli::try_parse_from([
        "terrain-server",
        "--config",
        path,
        "--listen",
        "127.0.0.1:0",
        "--world",
        "main:hyperscape:3",
        "--world",
        "old:osrs",
        "--max-heightmap-samples",
        "77",
    ])
    .unwrap();
    let config = Config::load(&cli).unwrap();
    assert_eq!(config.listen, "127.0.0.1:0".parse::<SocketAddr>().unwrap());
    assert_eq!(
        config.worlds,
        [
            WorldConfig::new("main", GeneratorKind::Hyperscape, 3),
            WorldConfig::new("old", GeneratorKind::Osrs, 0)
        ]
    );
    assert_eq!(config.limits.max_heightmap_samples, 77, "flag");
    assert_eq!(config.limits.max_batch_points, 5, "file, no flag");
    assert_eq!(
        config.shutdown_timeout,
        Duration::from_secs(3),
        "file, no flag"
    );
    assert_eq!(
        config.limits.max_coordinate, DEFAULT_MAX_COORDINATE,
        "default"
    );
}

#[test]
fn flag_worlds_are_validated_like_file_worlds() {
    let cli = Cli::try_parse_from([
        "terrain-server",
        "--world",
        "a:hyperscape",
        "--world",
        "a:osrs",
    ])
    .unwrap();
    assert_eq!(
        Config::load(&cli).unwrap_err().to_string(),
        r#"worlds[1].id: duplicate world id "a""#
    );
    let cli = Cli::try_parse_from(["terrain-server", "--world", "a:voxel"]).unwrap();
    assert!(
        Config::load(&cli)
            .unwrap_err()
            .to_string()
            .starts_with("worlds[0].generator: ")
    );
    let cli = Cli::try_parse_from(["terrain-server", "--world", "a:osrs:1"]).unwrap();
    assert!(
        Config::load(&cli)
            .unwrap_err()
            .to_string()
            .starts_with("worlds[0].seed: ")
    );
}

#[test]
fn bad_flags_name_the_flag() {
    for args in [
        ["--max-batch-points", "0"],
        ["--listen", "nowhere"],
        ["--shutdown-timeout", "forever"],
        ["--log-format", "xml"],
        ["--world", "justanid"],
    ] {
        let err = Cli::try_parse_from(["terrain-server", args[0], args[1]]).unwrap_err();
        assert!(err.to_string().contains(args[0]), "{args:?}: {err}");
    }
}

#[test]
fn protoset_subcommand() {
    let cli = Cli::try_parse_from(["terrain-server", "protoset"]).unwrap();
    assert!(
        matches!(cli.command, Some(Command::Protoset { ref output }) if output.as_os_str() == "-")
    );
}
