//! The TOML configuration file: parsed by `toml`, decoded into [`Settings`] by serde
//! (every struct refuses unknown keys), with `serde_path_to_error` naming the key path
//! of any problem, e.g. `worlds[1].generator` or `store.replicas`.
//!
//! ```toml
//! listen = "127.0.0.1:8080"
//! data_dir = "data"
//! admin_token = "change-me"
//! [[worlds]]
//! id = "main"
//! generator = "hyperscape"
//! seed = 0
//! overlap = "hyperscape"
//! manifests = "worlds/hyperscape/manifests"
//! zones = ["worlds/hyperscape/zones/duel-arena-floors.json"]
//! ```
//!
//! Relative `manifests` and `zones` paths resolve against the file's directory
//! (`data_dir` against the working directory, as a flag's would). The value decoders that the
//! file's keys share with their flags are in [`super::de`].

use std::path::Path;

use super::{ConfigError, Settings};

/// Reads and parses the file at `path`.
pub(super) fn read(path: &Path) -> Result<Settings, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let base = path.parent().unwrap_or(Path::new(""));
    parse_in(&text, base).map_err(|err| match err {
        ConfigError::Syntax { message, .. } => ConfigError::Syntax {
            path: path.to_path_buf(),
            message,
        },
        other => other,
    })
}

/// Parses the text of a configuration file; relative paths stay as written.
#[cfg(test)]
pub(super) fn parse(text: &str) -> Result<Settings, ConfigError> {
    parse_in(text, Path::new(""))
}

/// Parses the text of a configuration file whose relative paths resolve against `base`.
pub(super) fn parse_in(text: &str, base: &Path) -> Result<Settings, ConfigError> {
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| ConfigError::Syntax {
            path: "<text>".into(),
            message: e.to_string().trim_end().to_string(),
        })?;
    let settings: Settings = serde_path_to_error::deserialize(table)
        .map_err(|err| ConfigError::invalid(key_name(err.path()), reword(err.inner().message())))?;
    Ok(settings.rebased(base))
}

/// The key a refusal names: serde's path (`worlds[0].seed`), with a top-level key
/// spelled `""` (an empty path would name nothing) written as TOML quotes it.
fn key_name(path: &serde_path_to_error::Path) -> String {
    match path.to_string() {
        key if key.is_empty() => "\"\"".to_string(),
        key => key,
    }
}

/// Serde's fixed wording (`invalid type: integer `3`, expected a string`, `unknown
/// field `x`, expected one of `a`, `b``) in the configuration's own: `expected a
/// string, got integer`, `unknown key (expected one of: a, b)`. Other messages (the
/// value checks of [`super::de`]) are already in it and pass through.
fn reword(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return format!("expected {expected}, got {}", kind(got));
    }
    if let Some(rest) = message.strip_prefix("invalid value: ")
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return format!("expected {expected}, got {}", value(got));
    }
    if let Some(rest) = message.strip_prefix("unknown field ") {
        return match rest.split_once(", expected ") {
            Some((_, names)) => {
                let names = names
                    .trim_start_matches("one of ")
                    .replace(" or ", ", ")
                    .replace('`', "");
                format!("unknown key (expected one of: {names})")
            }
            None => "unknown key".to_string(),
        };
    }
    message.to_string()
}

/// The TOML type of serde's description of a value: `integer `3`` is `integer`.
fn kind(got: &str) -> &str {
    match got.split([' ', '`', '"']).next().unwrap_or(got) {
        "floating" => "float",
        "sequence" => "array",
        "map" => "table",
        other => other,
    }
}

/// The value in serde's description of one: `integer `-1`` is `-1`.
fn value(got: &str) -> &str {
    match got.split_once(' ') {
        Some((_, v)) => v.trim_matches(['`', '"']),
        None => got,
    }
}

#[cfg(test)]
mod tests {
    use super::{parse, reword};
    use crate::config::ConfigError;

    /// Found by the `config` fuzz target: a top-level `"" = 1` was refused naming no key.
    #[test]
    fn an_empty_top_level_key_is_named() {
        match parse("\"\" = 1\n") {
            Err(ConfigError::Invalid { key, message }) => {
                assert_eq!(key, "\"\"");
                assert!(message.starts_with("unknown key"), "{message}");
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn serde_wording_becomes_the_configs() {
        let cases = [
            (
                "invalid type: integer `3`, expected a string",
                "expected a string, got integer",
            ),
            (
                "invalid type: string \"nats\", expected a table",
                "expected a table, got string",
            ),
            (
                "invalid type: floating point `1.5`, expected u32",
                "expected u32, got float",
            ),
            (
                "invalid type: sequence, expected a string",
                "expected a string, got array",
            ),
            (
                "invalid value: integer `-1`, expected u32",
                "expected u32, got -1",
            ),
            (
                "unknown field `bogus`, expected one of `listen`, `data_dir`, `worlds`",
                "unknown key (expected one of: listen, data_dir, worlds)",
            ),
            (
                "unknown field `x`, expected `url` or `kind`",
                "unknown key (expected one of: url, kind)",
            ),
            (
                "unknown field `x`, expected `y`",
                "unknown key (expected one of: y)",
            ),
            ("must be at least 1", "must be at least 1"),
        ];
        for (serde, ours) in cases {
            assert_eq!(reword(serde), ours, "{serde}");
        }
    }
}
