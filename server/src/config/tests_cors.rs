//! Configuration tests of `cors_origins`: none by default, read from the file, the
//! repeatable `--cors-origin` flag (which replaces the file's list), and every refusal
//! naming the entry, `cors_origins[i]`.
//!
//! `TERRAIN_CORS_ORIGINS` (comma-separated, like `TERRAIN_WORLDS`) is clap's
//! `value_delimiter` on the same argument; setting a variable in this process would be
//! `unsafe`, so the delimiter is shown on the flag.

use clap::Parser;

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

#[test]
fn no_origins_by_default() {
    assert_eq!(from_text("").unwrap().cors_origins, Vec::<String>::new());
    assert_eq!(Config::default().cors_origins, Vec::<String>::new());
    assert_eq!(
        from_text("cors_origins = []").unwrap().cors_origins,
        Vec::<String>::new()
    );
}

#[test]
fn origins_come_from_the_file() {
    let config =
        from_text(r#"cors_origins = ["https://game.example", "http://localhost:5173"]"#).unwrap();
    assert_eq!(
        config.cors_origins,
        ["https://game.example", "http://localhost:5173"]
    );
    let config = from_text(r#"cors_origins = ["*"]"#).unwrap();
    assert_eq!(config.cors_origins, ["*"]);
}

#[test]
fn the_flag_repeats_and_replaces_the_files_list() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut file, br#"cors_origins = ["https://filed.example"]"#).unwrap();
    let path = file.path().to_str().unwrap();
    let cli = Cli::try_parse_from([
        "terrain-server",
        "--config",
        path,
        "--cors-origin",
        "https://game.example",
        "--cors-origin",
        "http://localhost:5173,http://127.0.0.1:5173",
    ])
    .unwrap();
    assert_eq!(
        Config::load(&cli).unwrap().cors_origins,
        [
            "https://game.example",
            "http://localhost:5173",
            "http://127.0.0.1:5173"
        ]
    );
    let cli = Cli::try_parse_from(["terrain-server", "--config", path]).unwrap();
    assert_eq!(
        Config::load(&cli).unwrap().cors_origins,
        ["https://filed.example"],
        "file, no flag"
    );
    // A flag's origin is checked like a file's, naming the entry.
    let cli = Cli::try_parse_from([
        "terrain-server",
        "--cors-origin",
        "https://game.example",
        "--cors-origin",
        "https://game.example/",
    ])
    .unwrap();
    let err = Config::load(&cli).unwrap_err().to_string();
    assert!(
        err.starts_with(r#"cors_origins[1]: "https://game.example/": "#),
        "{err}"
    );
}

#[test]
fn bad_origins_are_refused_naming_the_entry() {
    for (list, key, says) in [
        (
            r#"["https://game.example/"]"#,
            "cors_origins[0]",
            "trailing slash",
        ),
        (
            r#"["https://a.example", "https://b.example/play"]"#,
            "cors_origins[1]",
            "a path",
        ),
        (
            r#"["https://game.example?v=1"]"#,
            "cors_origins[0]",
            "a query",
        ),
        (
            r#"["game.example"]"#,
            "cors_origins[0]",
            "scheme://host[:port]",
        ),
        (
            r#"["ws://game.example"]"#,
            "cors_origins[0]",
            "http or https",
        ),
        (
            r#"["https://Game.Example"]"#,
            "cors_origins[0]",
            "lower case",
        ),
        (
            r#"["https://game.example:443"]"#,
            "cors_origins[0]",
            "default port 443",
        ),
        (
            r#"["http://localhost:99999"]"#,
            "cors_origins[0]",
            "1 to 65535",
        ),
        (r#"["https://"]"#, "cors_origins[0]", "no host"),
        (r#"[""]"#, "cors_origins[0]", "scheme://host[:port]"),
        (
            r#"["https://a.example", "*"]"#,
            "cors_origins[1]",
            "give it alone",
        ),
        (
            r#"["*", "https://a.example"]"#,
            "cors_origins[0]",
            "give it alone",
        ),
        (
            r#"["https://a.example", "https://a.example"]"#,
            "cors_origins[1]",
            "duplicate origin",
        ),
    ] {
        let (got_key, message) = refusal(&format!("cors_origins = {list}"));
        assert_eq!(got_key, key, "{list}: {message}");
        assert!(message.contains(says), "{list}: {message}");
    }
}

#[test]
fn origins_of_the_wrong_type_are_named() {
    let (key, _) = refusal(r#"cors_origins = "https://game.example""#);
    assert_eq!(key, "cors_origins");
    let (key, _) = refusal(r#"cors_origins = ["https://game.example", 3]"#);
    assert_eq!(key, "cors_origins[1]");
}

#[test]
fn a_hand_built_config_is_checked_too() {
    let config = Config {
        cors_origins: vec![
            "https://game.example".into(),
            "https://game.example/".into(),
        ],
        ..Config::default()
    };
    let err = config.validate().unwrap_err().to_string();
    assert!(err.starts_with("cors_origins[1]: "), "{err}");
}
