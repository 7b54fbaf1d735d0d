//! The TOML configuration file, read key by key so every problem (unknown key, wrong
//! type, bad value) names its key path, e.g. `worlds[1].generator`.
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
//! (`data_dir`, as before, against the working directory).

use std::{path::Path, time::Duration};

use terrain_core::Overlap;
use toml::{Table, Value};

use super::{
    ConfigError, Settings, WorldSpec,
    lifecycle::{self, LayoutSpec},
    values,
    world::{Manifests, ZoneFile},
};
use crate::auth::AdminToken;

/// The top-level keys, for the unknown-key message.
const TOP_LEVEL_KEYS: &[&str] = &[
    "listen",
    "data_dir",
    "worlds",
    "max_coordinate",
    "max_batch_points",
    "max_heightmap_samples",
    "shutdown_timeout",
    "log_format",
    "admin_token",
    "insecure",
    "max_zone_size",
    "max_zones_per_world",
    "stats_interval",
    "mesh_cache_bytes",
    "subscriber_queue",
    "event_history",
    "sim_range",
    "spawn_range",
    "active_range",
    "cull_grace",
    "viewer_ttl",
    "max_viewers_per_world",
    "warm_radius",
    "store",
];

/// The keys of one `[[worlds]]` entry.
const WORLD_KEYS: &[&str] = &[
    "id",
    "generator",
    "seed",
    "overlap",
    "manifests",
    "zones",
    "spawn",
    "layout",
];

/// Spawn points, `[x, z]`.
type Points = Vec<[f64; 2]>;

/// The keys of a `[worlds.layout]` table.
const LAYOUT_KEYS: &[&str] = &[
    "pattern",
    "spokes",
    "chunk_size",
    "cell_size",
    "grid_radius",
    "spawn",
    "expand_radius",
    "gc_radius",
];

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
    let table: Table = text
        .parse()
        .map_err(|e: toml::de::Error| ConfigError::Syntax {
            path: "<text>".into(),
            message: e.to_string().trim_end().to_string(),
        })?;
    let mut root = Section::new(String::new(), table, base);
    let settings = Settings {
        listen: root.parse_str("listen", values::parse_listen)?,
        data_dir: root.string("data_dir")?.map(Into::into),
        worlds: root.worlds()?,
        max_coordinate: root.max_coordinate()?,
        max_batch_points: root.limit("max_batch_points")?,
        max_heightmap_samples: root.limit("max_heightmap_samples")?,
        shutdown_timeout: root.duration("shutdown_timeout")?,
        log_format: root.parse_str("log_format", str::parse)?,
        admin_token: root.parse_str("admin_token", str::parse::<AdminToken>)?,
        insecure: root.boolean("insecure")?,
        max_zone_size: root.positive_number("max_zone_size")?,
        max_zones_per_world: root.limit("max_zones_per_world")?,
        stats_interval: root.duration("stats_interval")?,
        mesh_cache_bytes: root.limit("mesh_cache_bytes")?,
        subscriber_queue: root.limit("subscriber_queue")?,
        event_history: root.limit("event_history")?,
        sim_range: root.number("sim_range")?,
        spawn_range: root.number("spawn_range")?,
        active_range: root.number("active_range")?,
        cull_grace: root.duration("cull_grace")?,
        viewer_ttl: root.duration("viewer_ttl")?,
        max_viewers_per_world: root.limit("max_viewers_per_world")?,
        warm_radius: root.warm_radius()?,
        store: match root.table.remove("store") {
            Some(value) => super::StoreSettings::from_toml(value)?,
            None => super::StoreSettings::default(),
        },
    };
    root.finish(TOP_LEVEL_KEYS)?;
    Ok(settings)
}

/// A table being consumed: each read removes its key, so what is left at the end is
/// unknown.
struct Section<'a> {
    /// The key path of this table (`""` at the top, `worlds[1]` for an entry).
    path: String,
    table: Table,
    /// What relative paths resolve against.
    base: &'a Path,
}

impl<'a> Section<'a> {
    fn new(path: String, table: Table, base: &'a Path) -> Self {
        Section { path, table, base }
    }

    /// The full key path of `key`.
    fn key(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn wrong_type(&self, key: &str, expected: &str, got: &Value) -> ConfigError {
        ConfigError::invalid(
            self.key(key),
            format!("expected {expected}, got {}", got.type_str()),
        )
    }

    fn string(&mut self, key: &str) -> Result<Option<String>, ConfigError> {
        match self.table.remove(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.wrong_type(key, "a string", &other)),
        }
    }

    fn parse_str<T>(
        &mut self,
        key: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, ConfigError> {
        match self.string(key)? {
            None => Ok(None),
            Some(s) => parse(&s)
                .map(Some)
                .map_err(|m| ConfigError::invalid(self.key(key), m)),
        }
    }

    fn integer(&mut self, key: &str) -> Result<Option<i64>, ConfigError> {
        match self.table.remove(key) {
            None => Ok(None),
            Some(Value::Integer(i)) => Ok(Some(i)),
            Some(other) => Err(self.wrong_type(key, "an integer", &other)),
        }
    }

    fn limit(&mut self, key: &str) -> Result<Option<usize>, ConfigError> {
        let Some(v) = self.integer(key)? else {
            return Ok(None);
        };
        let v = usize::try_from(v).unwrap_or(0);
        values::check_limit(v).map_err(|m| ConfigError::invalid(self.key(key), m))?;
        Ok(Some(v))
    }

    fn boolean(&mut self, key: &str) -> Result<Option<bool>, ConfigError> {
        match self.table.remove(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(b)),
            Some(other) => Err(self.wrong_type(key, "true or false", &other)),
        }
    }

    fn max_coordinate(&mut self) -> Result<Option<f64>, ConfigError> {
        self.positive_number("max_coordinate")
    }

    /// Any number (an integer is accepted too); the caller checks its range.
    fn number(&mut self, key: &str) -> Result<Option<f64>, ConfigError> {
        match self.table.remove(key) {
            None => Ok(None),
            Some(Value::Float(f)) => Ok(Some(f)),
            Some(Value::Integer(i)) => Ok(Some(i as f64)),
            Some(other) => Err(self.wrong_type(key, "a number", &other)),
        }
    }

    /// A whole number of tiles or chunks, `0..=u32::MAX`.
    fn radius(&mut self, key: &str) -> Result<Option<u32>, ConfigError> {
        match self.integer(key)? {
            None => Ok(None),
            Some(v) => u32::try_from(v).map(Some).map_err(|_| {
                ConfigError::invalid(
                    self.key(key),
                    format!("must be a whole number >= 0, got {v}"),
                )
            }),
        }
    }

    /// `warm_radius`: a whole number of tiles, or `"off"`.
    fn warm_radius(&mut self) -> Result<Option<Option<u32>>, ConfigError> {
        let key = "warm_radius";
        match self.table.get(key) {
            Some(Value::String(_)) => self.parse_str(key, lifecycle::parse_warm_radius),
            _ => Ok(self.radius(key)?.map(Some)),
        }
    }

    /// `[[x, z], ...]`: an array of number pairs.
    fn points(&mut self, key: &str) -> Result<Option<Vec<[f64; 2]>>, ConfigError> {
        let items = match self.table.remove(key) {
            None => return Ok(None),
            Some(Value::Array(items)) => items,
            Some(other) => return Err(self.wrong_type(key, "an array of [x, z] pairs", &other)),
        };
        let mut points = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let pair = match &item {
                Value::Array(pair) if pair.len() == 2 => pair
                    .iter()
                    .map(|v| match v {
                        Value::Float(f) => Some(*f),
                        Value::Integer(i) => Some(*i as f64),
                        _ => None,
                    })
                    .collect::<Option<Vec<f64>>>(),
                _ => None,
            };
            match pair {
                Some(p) => points.push([p[0], p[1]]),
                None => {
                    return Err(ConfigError::invalid(
                        format!("{}[{i}]", self.key(key)),
                        format!(
                            "expected an [x, z] pair of numbers, got {}",
                            item.type_str()
                        ),
                    ));
                }
            }
        }
        Ok(Some(points))
    }

    /// A finite number greater than 0 (an integer is accepted too).
    fn positive_number(&mut self, key: &str) -> Result<Option<f64>, ConfigError> {
        let v = match self.table.remove(key) {
            None => return Ok(None),
            Some(Value::Float(f)) => f,
            Some(Value::Integer(i)) => i as f64,
            Some(other) => return Err(self.wrong_type(key, "a number", &other)),
        };
        values::check_max_coordinate(v).map_err(|m| ConfigError::invalid(self.key(key), m))?;
        Ok(Some(v))
    }

    /// A duration: `"10s"`-style text, or a number of seconds.
    fn duration(&mut self, key: &str) -> Result<Option<Duration>, ConfigError> {
        let parsed = match self.table.remove(key) {
            None => return Ok(None),
            Some(Value::String(s)) => values::parse_duration(&s),
            Some(Value::Integer(i)) => values::duration_from_secs(i as f64),
            Some(Value::Float(f)) => values::duration_from_secs(f),
            Some(other) => return Err(self.wrong_type(key, "a duration like \"10s\"", &other)),
        };
        parsed
            .map(Some)
            .map_err(|m| ConfigError::invalid(self.key(key), m))
    }

    /// The `[[worlds]]` array of tables.
    fn worlds(&mut self) -> Result<Option<Vec<WorldSpec>>, ConfigError> {
        let key = "worlds";
        let entries = match self.table.remove(key) {
            None => return Ok(None),
            Some(Value::Array(entries)) => entries,
            Some(other) => return Err(self.wrong_type(key, "an array of tables", &other)),
        };
        let mut specs = Vec::with_capacity(entries.len());
        for (i, entry) in entries.into_iter().enumerate() {
            let path = format!("{}[{i}]", self.key(key));
            let Value::Table(table) = entry else {
                let got = entry.type_str();
                return Err(ConfigError::invalid(
                    path,
                    format!("expected a table, got {got}"),
                ));
            };
            specs.push(Section::new(path, table, self.base).world()?);
        }
        Ok(Some(specs))
    }

    /// One `[[worlds]]` entry; `id` and `generator` are required, `seed` defaults to 0.
    fn world(mut self) -> Result<WorldSpec, ConfigError> {
        let id = self.string("id")?.ok_or_else(|| self.missing("id"))?;
        let generator = self
            .string("generator")?
            .ok_or_else(|| self.missing("generator"))?;
        let seed = match self.integer("seed")? {
            None => 0,
            Some(v) => u32::try_from(v).map_err(|_| {
                let message = format!("expected an integer in 0..={}, got {v}", u32::MAX);
                ConfigError::invalid(self.key("seed"), message)
            })?,
        };
        let overlap = self.parse_str("overlap", str::parse::<Overlap>)?;
        let base = self.base;
        let manifests = self
            .string("manifests")?
            .map(|m| Manifests::parse(&m, base));
        let zone_files = self
            .paths("zones")?
            .iter()
            .map(|f| ZoneFile::parse(f, base))
            .collect();
        let mut spawn = self.points("spawn")?;
        let layout = match self.table.remove("layout") {
            None => None,
            Some(Value::Table(table)) => {
                let path = self.key("layout");
                let (layout, layout_spawn) = Section::new(path.clone(), table, base).layout()?;
                if let Some(points) = layout_spawn {
                    if spawn.is_some() {
                        return Err(ConfigError::invalid(
                            format!("{path}.spawn"),
                            "given twice: set spawn either on the world or in its layout",
                        ));
                    }
                    spawn = Some(points);
                }
                Some(layout)
            }
            Some(other) => return Err(self.wrong_type("layout", "a table", &other)),
        };
        self.finish(WORLD_KEYS)?;
        Ok(WorldSpec {
            id,
            generator,
            seed,
            overlap: overlap.unwrap_or_default(),
            manifests,
            zone_files,
            spawn,
            layout,
        })
    }

    /// A `[worlds.layout]` table, with its own `spawn` points if given.
    fn layout(mut self) -> Result<(LayoutSpec, Option<Points>), ConfigError> {
        let pattern = self
            .parse_str("pattern", lifecycle::parse_pattern)?
            .ok_or_else(|| self.missing("pattern"))?;
        let spokes = self.parse_str("spokes", lifecycle::parse_spokes)?;
        let chunk_size = self
            .number("chunk_size")?
            .ok_or_else(|| self.missing("chunk_size"))?;
        let cell_size = self
            .number("cell_size")?
            .ok_or_else(|| self.missing("cell_size"))?;
        let spec = LayoutSpec {
            pattern,
            spokes,
            chunk_size,
            cell_size,
            grid_radius: self.radius("grid_radius")?,
            expand_radius: self.number("expand_radius")?,
            gc_radius: self.number("gc_radius")?,
        };
        let spawn = self.points("spawn")?;
        self.finish(LAYOUT_KEYS)?;
        Ok((spec, spawn))
    }

    /// An array of non-empty strings (file names).
    fn paths(&mut self, key: &str) -> Result<Vec<String>, ConfigError> {
        let items = match self.table.remove(key) {
            None => return Ok(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(other) => return Err(self.wrong_type(key, "an array of file names", &other)),
        };
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) if !s.is_empty() => Ok(s),
                other => Err(ConfigError::invalid(
                    format!("{}[{i}]", self.key(key)),
                    format!("expected a file name, got {}", describe(&other)),
                )),
            })
            .collect()
    }

    fn missing(&self, key: &str) -> ConfigError {
        ConfigError::invalid(self.key(key), "missing (required)")
    }

    /// Refuses whatever keys were not read.
    fn finish(self, known: &[&str]) -> Result<(), ConfigError> {
        match self.table.keys().next() {
            None => Ok(()),
            Some(key) => Err(ConfigError::invalid(
                self.key(key),
                format!("unknown key (expected one of: {})", known.join(", ")),
            )),
        }
    }
}

/// A value's type, or "an empty string".
fn describe(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "an empty string",
        other => other.type_str(),
    }
}
