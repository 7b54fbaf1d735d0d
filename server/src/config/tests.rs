//! Configuration tests: every refusal names its key; flags override the file.
//!
//! Environment variables are covered by `server/tests/binary.rs` (setting them in this
//! process would be `unsafe` and leak into other tests).

use std::{io::Write, net::SocketAddr, time::Duration};

use clap::Parser;
use terrain_core::{GeneratorKind, Overlap};

use super::*;

/// Resolves a configuration file's text with no flags.
/// The configuration a TOML text resolves to (shared by the config modules' tests).
pub(super) fn from_text(text: &str) -> Result<Config, ConfigError> {
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
    assert_eq!(config.worlds, [WorldConfig::default_main()]);
    let main = &config.worlds[0];
    assert_eq!((main.generator, main.seed), (GeneratorKind::Hyperscape, 0));
    assert_eq!(main.overlap, Overlap::Layered);
    assert_eq!(main.manifests, Some(Manifests::BuiltinHyperscape));
    assert_eq!(main.zone_files, [ZoneFile::BuiltinDuelFloors]);
    assert_eq!(config.listen, DEFAULT_LISTEN.parse::<SocketAddr>().unwrap());
    assert_eq!(config.admin_token, None);
    assert!(!config.insecure);
    assert_eq!(config.limits.max_zone_size, 10_000.0);
    assert_eq!(config.limits.max_zones_per_world, 100_000);
    assert_eq!(config.stats_interval, Duration::from_secs(60));
    assert_eq!(config.limits.max_batch_points, 1_000_000);
    assert_eq!(config.limits.max_heightmap_samples, 4_194_304);
    assert_eq!(config.limits.max_coordinate, 1e9);
    assert_eq!(config.shutdown_timeout, Duration::from_secs(10));
    assert_eq!(config.compute_nice, 5);
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
        admin_token = "tok-123"
        max_zone_size = 250
        max_zones_per_world = 40
        stats_interval = "5s"
        mesh_cache_bytes = 1048576
        subscriber_queue = 16
        event_writers = 3
        event_history = 500
        asof_revisions = 20
        [[worlds]]
        id = "main"
        generator = "hyperscape"
        seed = 7
        overlap = "hyperscape"
        manifests = "/srv/manifests"
        zones = ["/srv/a.json", "builtin:duel-arena-floors"]
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
            max_heightmap_samples: 100,
            max_zone_size: 250.0,
            max_zones_per_world: 40,
            mesh_cache_bytes: 1_048_576,
            subscriber_queue: 16,
            event_writers: 3,
            event_history: 500,
            asof_revisions: 20,
        }
    );
    assert_eq!(config.shutdown_timeout, Duration::from_millis(1500));
    assert_eq!(config.log_format, LogFormat::Json);
    assert_eq!(
        config.admin_token,
        Some(AdminToken::new("tok-123").unwrap())
    );
    assert_eq!(config.stats_interval, Duration::from_secs(5));
    assert_eq!(
        config.worlds,
        [
            WorldConfig {
                overlap: Overlap::Hyperscape,
                manifests: Some(Manifests::Dir("/srv/manifests".into())),
                zone_files: vec![
                    ZoneFile::Path("/srv/a.json".into()),
                    ZoneFile::BuiltinDuelFloors
                ],
                ..WorldConfig::new("main", GeneratorKind::Hyperscape, 7)
            },
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
        ("admin_token = \"\"", "admin_token"),
        ("admin_token = \"has space\"", "admin_token"),
        ("admin_token = 5", "admin_token"),
        ("insecure = \"yes\"", "insecure"),
        ("max_zone_size = 0", "max_zone_size"),
        ("max_zone_size = inf", "max_zone_size"),
        ("compute_nice = 20", "compute_nice"),
        ("compute_nice = -1", "compute_nice"),
        ("compute_nice = \"low\"", "compute_nice"),
        ("max_zone_size = 20001", "max_zone_size"),
        ("max_zones_per_world = 0", "max_zones_per_world"),
        ("stats_interval = \"0s\"", "stats_interval"),
        ("stats_interval = \"often\"", "stats_interval"),
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
fn bad_zone_settings_of_a_world_are_named() {
    let world =
        |extra: &str| format!("[[worlds]]\nid = \"a\"\ngenerator = \"hyperscape\"\n{extra}");
    let cases = [
        ("overlap = \"stacked\"", "worlds[0].overlap"),
        ("overlap = 1", "worlds[0].overlap"),
        ("manifests = 3", "worlds[0].manifests"),
        ("zones = \"a.json\"", "worlds[0].zones"),
        ("zones = [\"a.json\", 3]", "worlds[0].zones[1]"),
        ("zones = [\"\"]", "worlds[0].zones[0]"),
    ];
    for (extra, expected) in cases {
        let text = world(extra);
        assert_eq!(refusal(&text).0, expected, "{text}");
    }
}

#[test]
fn relative_zone_paths_resolve_against_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("terrain.toml");
    std::fs::write(
        &path,
        "[[worlds]]\nid = \"a\"\ngenerator = \"hyperscape\"\n\
         manifests = \"m\"\nzones = [\"z/one.json\", \"/abs/two.json\"]\n",
    )
    .unwrap();
    let cli = Cli::try_parse_from(["terrain-server", "--config", path.to_str().unwrap()]).unwrap();
    let config = Config::load(&cli).unwrap();
    let world = &config.worlds[0];
    assert_eq!(world.overlap, Overlap::Layered, "the default rule");
    assert_eq!(world.manifests, Some(Manifests::Dir(dir.path().join("m"))));
    assert_eq!(
        world.zone_files,
        [
            ZoneFile::Path(dir.path().join("z/one.json")),
            ZoneFile::Path("/abs/two.json".into())
        ]
    );
}

#[test]
fn non_loopback_needs_a_token_or_insecure() {
    let (key, message) = refusal("listen = \"0.0.0.0:8080\"");
    assert_eq!(key, "admin_token");
    assert!(message.contains("0.0.0.0:8080"), "{message}");
    assert!(message.contains("insecure"), "{message}");
    assert!(from_text("listen = \"0.0.0.0:8080\"\nadmin_token = \"t\"").is_ok());
    assert!(from_text("listen = \"0.0.0.0:8080\"\ninsecure = true").is_ok());
    assert!(
        from_text("listen = \"[::1]:8080\"").is_ok(),
        "loopback needs none"
    );
    let cli =
        Cli::try_parse_from(["terrain-server", "--listen", "0.0.0.0:0", "--insecure"]).unwrap();
    assert!(Config::load(&cli).unwrap().insecure);
    let cli = Cli::try_parse_from(["terrain-server", "--listen", "0.0.0.0:0"]).unwrap();
    assert!(
        Config::load(&cli)
            .unwrap_err()
            .to_string()
            .starts_with("admin_token: ")
    );
    let cli = Cli::try_parse_from([
        "terrain-server",
        "--listen",
        "0.0.0.0:0",
        "--admin-token",
        "tok",
    ])
    .unwrap();
    assert_eq!(
        Config::load(&cli).unwrap().admin_token,
        Some(AdminToken::new("tok").unwrap())
    );
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
    let cli = Cli::try_parse_from(["terrain-server", "--world", "a:cubes"]).unwrap();
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
        ["--admin-token", "has space"],
        ["--max-zone-size", "0"],
        ["--max-zones-per-world", "0"],
        ["--stats-interval", "often"],
        ["--compute-nice", "20"],
        ["--compute-nice", "low"],
    ] {
        let err = Cli::try_parse_from(["terrain-server", args[0], args[1]]).unwrap_err();
        assert!(err.to_string().contains(args[0]), "{args:?}: {err}");
    }
    let err = Cli::try_parse_from(["terrain-server", "--insecure=maybe"]).unwrap_err();
    assert!(err.to_string().contains("--insecure"), "{err}");
}

#[test]
fn compute_nice_comes_from_the_file_or_the_flag() {
    assert_eq!(from_text("compute_nice = 0").unwrap().compute_nice, 0);
    assert_eq!(from_text("compute_nice = 19").unwrap().compute_nice, 19);
    let cli = Cli::parse_from(["terrain-server", "--compute-nice", "12"]);
    let file = file::parse("compute_nice = 3").unwrap();
    assert_eq!(
        Config::resolve(cli.layer_over(file).unwrap())
            .unwrap()
            .compute_nice,
        12
    );
}

#[test]
fn protoset_subcommand() {
    let cli = Cli::try_parse_from(["terrain-server", "protoset"]).unwrap();
    assert!(
        matches!(cli.command, Some(Command::Protoset { ref output }) if output.as_os_str() == "-")
    );
}

#[test]
fn layout_worlds_and_lifecycle_settings() {
    let config = from_text(
        r#"
        sim_range = 0.25
        spawn_range = 1.5
        active_range = 3
        cull_grace = "2s"
        viewer_ttl = 30
        max_viewers_per_world = 50
        warm_radius = "off"
        lookahead = "1500ms"
        [[worlds]]
        id = "frontier"
        generator = "hyperscape"
        seed = 7
        [worlds.layout]
        pattern = "rings"
        spokes = "planar"
        chunk_size = 400.0
        cell_size = 8.0
        grid_radius = 3
        spawn = [[0.0, 0.0], [120, -40.5]]
        [[worlds]]
        id = "plain"
        generator = "osrs"
        spawn = [[3200, 3200]]
        "#,
    )
    .unwrap();
    let lc = config.lifecycle;
    assert_eq!(
        (lc.rings.sim, lc.rings.spawn, lc.rings.active),
        (0.25, 1.5, 3.0)
    );
    assert_eq!(lc.cull_grace, Duration::from_secs(2));
    assert_eq!(lc.viewer_ttl, Duration::from_secs(30));
    assert_eq!(lc.max_viewers_per_world, 50);
    assert_eq!(lc.warm_radius, None);
    assert_eq!(lc.lookahead, Duration::from_millis(1500));
    let frontier = &config.worlds[0];
    assert_eq!(frontier.spawn, [[0.0, 0.0], [120.0, -40.5]]);
    let layout = frontier.layout.expect("layout");
    assert_eq!(layout.layout.pattern, terrain_core::layout::Pattern::Rings);
    assert_eq!(
        layout.layout.spokes,
        terrain_core::layout::SpokeRule::Planar
    );
    assert_eq!(
        (layout.layout.chunk_size, layout.layout.cell_size),
        (400.0, 8.0)
    );
    assert_eq!(layout.layout.seed, 7, "the layout's seed is the world's");
    assert_eq!(layout.grid_radius, 3);
    // The seed's 2200 px expansion and 3000 px GC radii over 800 px super-chunks.
    assert_eq!((layout.expand_radius, layout.gc_radius), (1100.0, 1500.0));
    assert_eq!(config.worlds[1].spawn, [[3200.0, 3200.0]]);
    assert_eq!(config.worlds[1].layout, None);
    // Defaults: the seed's rings, grid spokes for the grid pattern.
    let config = from_text(
        r#"
        [[worlds]]
        id = "g"
        generator = "hyperscape"
        [worlds.layout]
        pattern = "grid"
        chunk_size = 1000
        cell_size = 64
        "#,
    )
    .unwrap();
    assert_eq!(config.lifecycle, LifecycleConfig::default());
    let layout = config.worlds[0].layout.unwrap();
    assert_eq!(layout.layout.spokes, terrain_core::layout::SpokeRule::Grid);
    assert_eq!(config.worlds[0].spawn, [[0.0, 0.0]]);
}

#[test]
fn bad_layout_and_lifecycle_settings_are_named() {
    let world = |layout: &str| {
        format!("[[worlds]]\nid = \"f\"\ngenerator = \"hyperscape\"\n[worlds.layout]\n{layout}\n")
    };
    let base = "pattern = \"rings\"\nchunk_size = 400\ncell_size = 8\n";
    let cases = [
        (world("pattern = \"spiral\"\nchunk_size = 400\ncell_size = 8"), "worlds[0].layout.pattern"),
        (world("chunk_size = 400\ncell_size = 8"), "worlds[0].layout.pattern"),
        (world(&format!("{base}spokes = \"curvy\"")), "worlds[0].layout.spokes"),
        (world("pattern = \"rings\"\ncell_size = 8"), "worlds[0].layout.chunk_size"),
        (world("pattern = \"rings\"\nchunk_size = -1\ncell_size = 8"), "worlds[0].layout.chunk_size"),
        (world("pattern = \"rings\"\nchunk_size = 400\ncell_size = 800"), "worlds[0].layout.cell_size"),
        (world(&format!("{base}grid_radius = 1000")), "worlds[0].layout.grid_radius"),
        (world(&format!("{base}grid_radius = -1")), "worlds[0].layout.grid_radius"),
        (world(&format!("{base}gc_radius = 10")), "worlds[0].layout.gc_radius"),
        (world(&format!("{base}spawn = [[1, 2, 3]]")), "worlds[0].layout.spawn[0]"),
        (world(&format!("{base}seed = 3")), "worlds[0].layout.seed"),
        (
            "[[worlds]]\nid = \"f\"\ngenerator = \"hyperscape\"\nspawn = [[0, 0]]\n[worlds.layout]\npattern = \"rings\"\nchunk_size = 400\ncell_size = 8\nspawn = [[1, 1]]\n".to_string(),
            "worlds[0].layout.spawn",
        ),
        (
            "[[worlds]]\nid = \"f\"\ngenerator = \"hyperscape\"\nspawn = [[0, 2e9]]\n".to_string(),
            "worlds[0].spawn[0]",
        ),
        (
            "[[worlds]]\nid = \"f\"\ngenerator = \"hyperscape\"\nspawn = []\n".to_string(),
            "worlds[0].spawn",
        ),
        ("sim_range = 2\nspawn_range = 1".to_string(), "sim_range"),
        ("active_range = -1".to_string(), "active_range"),
        ("spawn_range = 3".to_string(), "spawn_range"),
        ("max_viewers_per_world = 0".to_string(), "max_viewers_per_world"),
        ("warm_radius = \"lots\"".to_string(), "warm_radius"),
        ("warm_radius = 100".to_string(), "warm_radius"),
        ("lookahead = \"61s\"".to_string(), "lookahead"),
        ("lookahead = \"soon\"".to_string(), "lookahead"),
        ("viewer_ttl = \"0s\"".to_string(), "viewer_ttl"),
    ];
    for (text, key) in cases {
        let (got, message) = refusal(&text);
        assert_eq!(got, key, "{text}\n{message}");
    }
}

#[test]
fn lifecycle_flags_override_the_file() {
    let cli = Cli::parse_from([
        "terrain-server",
        "--cull-grace",
        "250ms",
        "--active-range",
        "4",
        "--warm-radius",
        "off",
        "--max-viewers-per-world",
        "7",
    ]);
    let file = file::parse("cull_grace = \"9s\"\nwarm_radius = 3\n").unwrap();
    let config = Config::resolve(cli.layer_over(file).unwrap()).unwrap();
    assert_eq!(config.lifecycle.cull_grace, Duration::from_millis(250));
    assert_eq!(config.lifecycle.rings.active, 4.0);
    assert_eq!(config.lifecycle.warm_radius, None);
    assert_eq!(config.lifecycle.max_viewers_per_world, 7);
    let cli = Cli::parse_from(["terrain-server", "--warm-radius", "1"]);
    let config = Config::resolve(cli.layer_over(file::parse("").unwrap()).unwrap()).unwrap();
    assert_eq!(config.lifecycle.warm_radius, Some(1));
}

#[test]
fn decoding_errors_read_in_the_configs_words() {
    let cases = [
        ("listen = 8080", "listen: expected a string, got integer"),
        (
            "max_batch_points = \"many\"",
            "max_batch_points: expected an integer, got string",
        ),
        (
            "max_batch_points = 0",
            "max_batch_points: must be at least 1",
        ),
        (
            "insecure = \"yes\"",
            "insecure: expected a boolean, got string",
        ),
        (
            "[[worlds]]\nid = \"a\"",
            "worlds[0].generator: missing (required)",
        ),
        (
            "[[worlds]]\nid = \"a\"\ngenerator = \"cubes\"",
            "worlds[0].generator: unknown generator \"cubes\", expected one of: hyperscape, osrs, voxel",
        ),
        (
            "[[worlds]]\nid = \"a\"\ngenerator = \"hyperscape\"\n[worlds.layout]\npattern = \"spiral\"",
            "worlds[0].layout.pattern: unknown pattern \"spiral\", expected one of: grid, zigzag, rings, chaotic",
        ),
        (
            "warm_radius = -1",
            "warm_radius: must be a whole number >= 0, got -1",
        ),
        ("event_writers = 0", "event_writers: must be at least 1"),
        (
            "event_writers = 65",
            "event_writers: at most 64 (more writers than CPUs only add wake-ups)",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(from_text(text).unwrap_err().to_string(), expected, "{text}");
    }
    let err = from_text("bogus = 1").unwrap_err().to_string();
    assert!(
        err.starts_with("bogus: unknown key (expected one of: listen, data_dir, worlds,"),
        "{err}"
    );
}

#[test]
fn max_coordinate_is_bounded_by_the_tile_grids() {
    let largest = values::MAX_MAX_COORDINATE;
    assert_eq!(largest, 70_368_744_177_664.0);
    let config = from_text(&format!("max_coordinate = {largest:.1}")).unwrap();
    assert_eq!(
        config.limits.max_coordinate, largest,
        "the largest is accepted"
    );
    let cli =
        Cli::try_parse_from(["terrain-server", "--max-coordinate", "70368744177664"]).unwrap();
    assert_eq!(Config::load(&cli).unwrap().limits.max_coordinate, largest);
    for text in ["max_coordinate = 70368744177665", "max_coordinate = 1e300"] {
        let (key, message) = refusal(text);
        assert_eq!(key, "max_coordinate", "{text}");
        assert!(message.contains("at most 70368744177664"), "{message}");
    }
    let err = Cli::try_parse_from(["terrain-server", "--max-coordinate", "1e300"]).unwrap_err();
    assert!(err.to_string().contains("--max-coordinate"), "{err}");
    let mut config = Config::default();
    config.limits.max_coordinate = 1e300;
    assert!(
        config
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("max_coordinate: "),
        "a hand-built configuration is held to the same bound"
    );
    // What the bound promises, for every generator's tile grid: a ring of a view of
    // 2 * largest plus the widest ring stays on exact, round-tripping tile indices, and
    // f64 still resolves a few centimetres out there.
    let reach = 2.0 * largest;
    for &kind in GeneratorKind::ALL {
        let grid = terrain_core::WorldGenerator::new(kind, 0)
            .unwrap()
            .tile_grid();
        let edge = reach + lifecycle::MAX_RING * grid.size;
        for c in [edge, -edge] {
            let t = grid.tile_of(c);
            assert!(t.unsigned_abs() < 1 << 52, "{kind}: tile {t} of {c}");
            assert!(
                grid.origin(t) <= c && c < grid.origin(t + 1),
                "{kind}: {c} in tile {t}"
            );
        }
        let span = grid.tile_of(edge) - grid.tile_of(-edge) + 1;
        assert!(span < 1 << 53, "{kind}: a ring {span} tiles wide");
    }
    let ulp = f64::from_bits(reach.to_bits() + 1) - reach;
    assert!(ulp <= 1.0 / 32.0, "{ulp} m");
}

#[test]
fn the_shipped_configuration_files_still_read() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let replica = file::read(&root.join("docker/replica.toml")).unwrap();
    assert_eq!(replica.log_format, Some(LogFormat::Json));
    assert_eq!(replica.store.replicas, Some(3));
    let frontier = file::read(&root.join("worlds/frontier.toml")).unwrap();
    let config = Config::resolve(frontier).unwrap();
    assert!(config.worlds.iter().any(|w| w.layout.is_some()));
}

#[test]
fn tls_takes_a_certificate_and_a_key_together() {
    let config = from_text("tls_cert = \"cert.pem\"\ntls_key = \"key.pem\"").unwrap();
    let tls = config.tls.expect("tls");
    assert_eq!(tls.cert, std::path::PathBuf::from("cert.pem"));
    assert_eq!(tls.key, std::path::PathBuf::from("key.pem"));
    assert_eq!(from_text("").unwrap().tls, None);
    assert_eq!(refusal("tls_cert = \"cert.pem\"").0, "tls_key");
    assert_eq!(refusal("tls_key = \"key.pem\"").0, "tls_cert");
}

/// `towns`: tables of `x`, `z`, `radius` (integers read as metres), on a world under
/// the `hyperscape` rule; the original's five by default; a bad one named by its key,
/// decoding errors included.
#[test]
fn towns_are_read_checked_and_named() {
    use terrain_core::walk::{FALLBACK_TOWNS, Town};
    let world = "[[worlds]]\nid = \"a\"\ngenerator = \"hyperscape\"\noverlap = \"hyperscape\"\n";
    let config = from_text(world).unwrap();
    assert_eq!(config.worlds[0].towns, FALLBACK_TOWNS);
    let text = format!(
        "{world}towns = [{{ x = 0, z = -12.5, radius = 25 }}, {{ x = 400, z = 1, radius = 0.5 }}]"
    );
    let config = from_text(&text).unwrap();
    assert_eq!(
        config.worlds[0].towns,
        [
            Town {
                x: 0.0,
                z: -12.5,
                radius: 25.0
            },
            Town {
                x: 400.0,
                z: 1.0,
                radius: 0.5
            }
        ]
    );
    let cases = [
        (format!("{world}towns = []"), "worlds[0].towns"),
        (
            format!("{world}towns = [{{ x = 0, z = 0, radius = 0 }}]"),
            "worlds[0].towns[0].radius",
        ),
        (
            format!("{world}towns = [{{ x = 0, z = 0, radius = 1 }}, {{ x = nan, z = 0, radius = 1 }}]"),
            "worlds[0].towns[1].x",
        ),
        (
            format!("{world}towns = [{{ x = 0, z = inf, radius = 1 }}]"),
            "worlds[0].towns[0].z",
        ),
        (
            format!("{world}walkability = \"slope\"\ntowns = [{{ x = 0, z = 0, radius = 1 }}]"),
            "worlds[0].towns",
        ),
        (
            "[[worlds]]\nid = \"a\"\ngenerator = \"hyperscape\"\ntowns = [{ x = 0, z = 0, radius = 1 }]"
                .to_string(),
            "worlds[0].towns",
        ),
    ];
    for (text, expected) in cases {
        let (key, message) = refusal(&text);
        assert_eq!(key, expected, "{text}: {message}");
    }
    // Decoding errors name the entry's key too.
    for (town, expected) in [
        ("{ x = 0, z = 0 }", "worlds[0].towns[0]"),
        (
            "{ x = 0, z = 0, radius = 1, name = \"a\" }",
            "worlds[0].towns[0]",
        ),
        ("{ x = \"0\", z = 0, radius = 1 }", "worlds[0].towns[0].x"),
    ] {
        let err = from_text(&format!("{world}towns = [{town}]"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(expected), "{town}: {err}");
    }
}
