//! Value parsers shared by the TOML reader and the command line, so a value means the
//! same thing (and is refused with the same words) whichever source it comes from.

use std::{fmt, net::SocketAddr, path::Path, str::FromStr, time::Duration};

use serde::Deserialize;
use terrain_core::{Overlap, voxel::VoxelConfig};

use super::{
    lifecycle::LayoutSpec,
    world::{Manifests, ZoneFile},
};

/// The longest world id.
pub use crate::validate::MAX_WORLD_ID_LEN;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log shippers.
    Json,
}

impl FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            _ => Err(format!(
                "unknown log format {s:?}, expected \"text\" or \"json\""
            )),
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogFormat::Text => "text",
            LogFormat::Json => "json",
        })
    }
}

/// A world entry as a source gives it (a `[[worlds]]` table, or `--world
/// ID:GENERATOR[:SEED]`), before validation: the generator is still a name, so a bad
/// one is reported with the entry's key. `id` and `generator` are required: empty when
/// missing, refused with their key when the worlds are resolved.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, expecting = "a table")]
pub struct WorldSpec {
    pub id: String,
    pub generator: String,
    /// Default 0.
    pub seed: u32,
    /// Only the file sets the rest; a flag's world has the defaults.
    pub overlap: Overlap,
    pub manifests: Option<Manifests>,
    #[serde(rename = "zones")]
    pub zone_files: Vec<ZoneFile>,
    /// Spawn points (`spawn`, or `layout.spawn`); `None`: the origin.
    pub spawn: Option<Vec<[f64; 2]>>,
    /// The `[worlds.layout]` table.
    pub layout: Option<LayoutSpec>,
    /// The `[worlds.voxel]` table: a voxel world's generator parameters (each key
    /// optional, defaults from `VoxelConfig::default()`).
    pub voxel: Option<VoxelConfig>,
    /// The walkability rule's name (`hyperscape`, `slope`, `max-slope`, `block-step`); `None`: the
    /// generator's default.
    pub walkability: Option<String>,
    /// Where the per-biome slope limits come from: `builtin:hyperscape` or a directory
    /// holding `biomes.json`.
    pub biomes: Option<String>,
    /// The `max-slope` rule's limit (rise over run).
    pub max_slope: Option<f64>,
    /// The towns the `hyperscape` rule's difficulty fades in from; `None`: the
    /// original's five fallback towns.
    pub towns: Option<Vec<super::walk::TownSpec>>,
    /// The side in metres of the square its 3D Tiles tileset covers; `None`: the
    /// generator's default.
    pub tileset_extent: Option<f64>,
}

impl WorldSpec {
    /// Resolves the entry's relative `manifests` and `zones` paths against `base`.
    pub fn rebase(&mut self, base: &Path) {
        if let Some(Manifests::Dir(dir)) = &mut self.manifests {
            *dir = base.join(&*dir);
        }
        for file in &mut self.zone_files {
            if let ZoneFile::Path(path) = file {
                *path = base.join(&*path);
            }
        }
        if let Some(biomes) = &mut self.biomes
            && biomes != super::walk::BUILTIN_BIOMES
        {
            *biomes = base.join(&*biomes).to_string_lossy().into_owned();
        }
    }
}

impl FromStr for WorldSpec {
    type Err = String;

    /// `ID:GENERATOR[:SEED]`, e.g. `main:hyperscape:0` (the seed defaults to 0).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.split(':');
        let (Some(id), Some(generator)) = (parts.next(), parts.next()) else {
            return Err(format!("world {s:?}: expected ID:GENERATOR[:SEED]"));
        };
        let seed = match parts.next() {
            Some(seed) => parse_seed(seed).map_err(|m| format!("world {s:?}: seed: {m}"))?,
            None => 0,
        };
        if parts.next().is_some() {
            return Err(format!("world {s:?}: expected ID:GENERATOR[:SEED]"));
        }
        Ok(WorldSpec {
            id: id.trim().to_string(),
            generator: generator.trim().to_string(),
            seed,
            overlap: Overlap::default(),
            manifests: None,
            zone_files: Vec::new(),
            spawn: None,
            layout: None,
            voxel: None,
            walkability: None,
            biomes: None,
            max_slope: None,
            towns: None,
            tileset_extent: None,
        })
    }
}

/// A seed: an integer in `0..=4294967295`.
pub fn parse_seed(s: &str) -> Result<u32, String> {
    s.trim()
        .parse::<u32>()
        .map_err(|_| format!("expected an integer in 0..={}, got {s:?}", u32::MAX))
}

/// `[A-Za-z0-9_-]{1,64}`: the shared validator (a backup's worlds are checked by it too).
pub use crate::validate::check_world_id;

/// A socket address such as `127.0.0.1:8080` or `[::1]:0`.
pub fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("expected an address like \"127.0.0.1:8080\", got {s:?}"))
}

/// A duration: a number of seconds (`10`, `2.5`) or a number with a unit
/// (`500ms`, `10s`, `2m`, `1h`).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let scale = match unit {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "m" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "unknown unit {unit:?} in {s:?}, expected ms, s, m or h"
            ));
        }
    };
    let number: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("expected a duration like \"10s\", got {s:?}"))?;
    duration_from_secs(number * scale)
}

/// A non-negative, finite number of seconds.
pub fn duration_from_secs(secs: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("must be a finite, non-negative number of seconds, got {secs}"))
}

/// A size or distance limit: finite and greater than 0.
pub fn check_positive(v: f64) -> Result<(), String> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(format!("must be finite and > 0, got {v}"))
    }
}

/// The largest `max_coordinate`: 2^46 m (70,368,744,177,664 m, about 7.0e13), what the
/// tile grids can represent with room for ring ranges:
///
/// - A viewer stands within `max_coordinate` and sees at most `2 * max_coordinate`, so
///   its rings reach at most 2^47 m plus 64 tiles ([`super::lifecycle::MAX_RING`])
///   from the origin. Over the smallest mesh tile (osrs's 64 m = 2^6; hyperscape's are
///   100 m) that is a tile index within +-(2^41 + 65): exact in `f64` (below 2^53) and
///   far inside `i64`, so `floor(c / size)` and `t * size` are exact and the width of
///   any ring (at most 2^42 + 131 tiles a side) is an ordinary integer.
/// - At 2^47 m an `f64` still resolves 2^-5 m (3 cm), finer than either grid's vertex
///   spacing (1 m osrs, 1.59 m hyperscape), so every tile keeps distinct vertices.
/// - The layout layer needs no lower bound: beyond its +-2^26 chunks it leaves the
///   ground alone (`terrain_core::layout::MAX_CHUNK_COORD`).
pub const MAX_MAX_COORDINATE: f64 = terrain_core::COORDINATE_LIMIT;

/// A coordinate limit: finite, greater than 0 and at most [`MAX_MAX_COORDINATE`].
pub fn check_max_coordinate(v: f64) -> Result<(), String> {
    check_positive(v)?;
    if v > MAX_MAX_COORDINATE {
        return Err(format!(
            "must be at most {MAX_MAX_COORDINATE} (2^46 m, what the tile grids can \
             represent), got {v:?}"
        ));
    }
    Ok(())
}

/// `check_max_coordinate` for a flag's text.
pub fn parse_max_coordinate(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a number, got {s:?}"))?;
    check_max_coordinate(v)?;
    Ok(v)
}

/// The largest `max_zone_size`: 20 km. A zone's outer bounds (size plus blend ring, each
/// at most the limit) then span at most 60 km a side, under 940 tiles of the smallest
/// (64 m) grid: a mutation lists at most about 880,000 changed tiles, so the tile range
/// arithmetic of the registry ([`terrain_core::TileGrid::tiles_touching`]) stays small
/// whatever a client sends.
pub const MAX_MAX_ZONE_SIZE: f64 = 20_000.0;

/// A zone size limit: finite, greater than 0 and at most [`MAX_MAX_ZONE_SIZE`].
pub fn check_max_zone_size(v: f64) -> Result<(), String> {
    check_positive(v)?;
    if v > MAX_MAX_ZONE_SIZE {
        return Err(format!(
            "must be at most {MAX_MAX_ZONE_SIZE} (metres: a zone's tiles are listed on \
             every change), got {v}"
        ));
    }
    Ok(())
}

/// `check_max_zone_size` for a flag's text.
pub fn parse_max_zone_size(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a number, got {s:?}"))?;
    check_max_zone_size(v)?;
    Ok(v)
}

/// A count limit: at least 1.
pub fn check_limit(v: usize) -> Result<(), String> {
    if v >= 1 {
        Ok(())
    } else {
        Err("must be at least 1".to_string())
    }
}

/// `event_writers`: 1 to [`super::MAX_EVENT_WRITERS`].
pub fn check_event_writers(v: usize) -> Result<(), String> {
    check_limit(v)?;
    if v > super::MAX_EVENT_WRITERS {
        return Err(format!(
            "at most {} (more writers than CPUs only add wake-ups)",
            super::MAX_EVENT_WRITERS
        ));
    }
    Ok(())
}

/// Largest `compute_nice` (the lowest scheduling priority).
pub const MAX_COMPUTE_NICE: i64 = 19;

/// `compute_nice`: a nice increment, `0..=19`.
pub fn check_compute_nice(v: i64) -> Result<u8, String> {
    u8::try_from(v)
        .ok()
        .filter(|&n| i64::from(n) <= MAX_COMPUTE_NICE)
        .ok_or_else(|| format!("must be between 0 and {MAX_COMPUTE_NICE} (got {v})"))
}

/// `check_compute_nice` for a flag's text.
pub fn parse_compute_nice(s: &str) -> Result<u8, String> {
    let v: i64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected an integer from 0 to {MAX_COMPUTE_NICE}, got {s:?}"))?;
    check_compute_nice(v)
}

/// `check_limit` for a flag's text.
pub fn parse_limit(s: &str) -> Result<usize, String> {
    let v: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a positive integer, got {s:?}"))?;
    check_limit(v)?;
    Ok(v)
}

/// A `cors_origins` entry: `*` (any origin), or an origin exactly as a browser sends it
/// in `Origin` (RFC 6454): `http` or `https`, `://`, a host (a lower-case DNS name,
/// an IPv4 address, or an IPv6 address in brackets) and an optional port other than
/// the scheme's default; no path, trailing slash, query, fragment or user. A browser
/// compares the header byte for byte, so a spelling it never sends is refused here
/// rather than matching nothing.
pub fn check_origin(origin: &str) -> Result<(), String> {
    if origin == "*" {
        return Ok(());
    }
    let expected = "expected scheme://host[:port], e.g. \"https://game.example\"";
    let Some((scheme, rest)) = origin.split_once("://") else {
        return Err(format!("{origin:?}: {expected}"));
    };
    let default_port = match scheme {
        "http" => 80,
        "https" => 443,
        _ => {
            return Err(format!(
                "{origin:?}: the scheme must be http or https (in lower case), got {scheme:?}"
            ));
        }
    };
    if let Some(at) = rest.find(['/', '?', '#']) {
        let what = match rest.as_bytes()[at] {
            b'/' if at + 1 == rest.len() => "a trailing slash",
            b'/' => "a path",
            b'?' => "a query",
            _ => "a fragment",
        };
        return Err(format!(
            "{origin:?}: an origin has no path, trailing slash, query or fragment \
             (got {what}): {expected}"
        ));
    }
    if rest.contains('@') {
        return Err(format!("{origin:?}: an origin has no user: {expected}"));
    }
    // The host as written, its port, and whether it is a name or IPv4 address (to check).
    let (host, port, named) = match rest.strip_prefix('[') {
        Some(bracketed) => {
            let Some((address, after)) = bracketed.split_once(']') else {
                return Err(format!("{origin:?}: an IPv6 address ends with ']'"));
            };
            let ip: std::net::Ipv6Addr = address
                .parse()
                .map_err(|_| format!("{origin:?}: {address:?} is not an IPv6 address"))?;
            if ip.to_string() != address {
                return Err(format!("{origin:?}: a browser writes this address [{ip}]"));
            }
            let port = match after {
                "" => None,
                _ => match after.strip_prefix(':') {
                    Some(port) => Some(port),
                    None => return Err(format!("{origin:?}: {expected}")),
                },
            };
            (format!("[{address}]"), port, false)
        }
        None => match rest.rsplit_once(':') {
            Some((host, port)) => (host.to_string(), Some(port), true),
            None => (rest.to_string(), None, true),
        },
    };
    if named {
        check_origin_host(&host).map_err(|m| format!("{origin:?}: {m}"))?;
    }
    if let Some(port) = port {
        let number = port
            .parse::<u16>()
            .ok()
            .filter(|p| *p > 0 && !port.starts_with('0') && !port.starts_with('+'))
            .ok_or_else(|| format!("{origin:?}: the port must be 1 to 65535, got {port:?}"))?;
        if number == default_port {
            return Err(format!(
                "{origin:?}: a browser leaves {scheme}'s default port {default_port} out of \
                 Origin: write {scheme}://{host}"
            ));
        }
    }
    Ok(())
}

/// The host of an origin: a lower-case DNS name (labels of ASCII letters, digits and
/// `-`, not at either end; an internationalised name in its `xn--` form) or an IPv4
/// address.
fn check_origin_host(host: &str) -> Result<(), String> {
    if host.is_empty() {
        return Err("no host".into());
    }
    if !host.is_ascii() {
        return Err(format!(
            "the host {host:?} is not ASCII: write an internationalised name in its xn-- form"
        ));
    }
    if host.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(format!(
            "a browser sends the host in lower case: write {:?}",
            host.to_ascii_lowercase()
        ));
    }
    for label in host.split('.') {
        let fine = !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !fine {
            return Err(format!(
                "{host:?} is not a host name (labels of a-z, 0-9 and '-', separated by dots)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        for good in [
            "*",
            "https://game.example",
            "http://localhost:5173",
            "https://a.b-c.example:8443",
            "http://127.0.0.1:3000",
            "http://[::1]:8080",
            "https://xn--caf-dma.example",
        ] {
            assert_eq!(check_origin(good), Ok(()), "{good}");
        }
        for (bad, says) in [
            ("game.example", "expected scheme://host[:port]"),
            ("ftp://game.example", "must be http or https"),
            ("HTTPS://game.example", "must be http or https"),
            ("https://game.example/", "trailing slash"),
            ("https://game.example/play", "a path"),
            ("https://game.example?x=1", "a query"),
            ("https://game.example#top", "a fragment"),
            ("https://user@game.example", "no user"),
            ("https://", "no host"),
            ("https://:8443", "no host"),
            ("https://Game.example", "lower case"),
            ("https://caf\u{e9}.example", "xn-- form"),
            ("https://game..example", "not a host name"),
            ("https://-game.example", "not a host name"),
            ("https://game_1.example", "not a host name"),
            ("https://game.example:0", "1 to 65535"),
            ("https://game.example:65536", "1 to 65535"),
            ("https://game.example:", "1 to 65535"),
            ("https://game.example:08443", "1 to 65535"),
            ("https://game.example:443", "default port 443"),
            ("http://game.example:80", "default port 80"),
            ("http://[::1", "ends with ']'"),
            ("http://[::g]", "not an IPv6 address"),
            ("http://[0:0::1]", "writes this address [::1]"),
            ("http://[::1]x", "expected scheme://host[:port]"),
        ] {
            let message = check_origin(bad).expect_err(bad);
            assert!(message.contains(says), "{bad}: {message}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("10 parsecs").is_err());
        assert!(parse_duration("s").is_err());
    }

    #[test]
    fn world_specs() {
        let spec: WorldSpec = "old:osrs:0".parse().unwrap();
        assert_eq!(
            (spec.id.as_str(), spec.generator.as_str(), spec.seed),
            ("old", "osrs", 0)
        );
        assert_eq!(spec.overlap, Overlap::Layered);
        assert!(spec.manifests.is_none() && spec.zone_files.is_empty());
        let spec: WorldSpec = "main:hyperscape".parse().unwrap();
        assert_eq!(spec.seed, 0);
        assert!("main".parse::<WorldSpec>().is_err());
        assert!("main:hyperscape:-1".parse::<WorldSpec>().is_err());
        assert!("a:b:1:2".parse::<WorldSpec>().is_err());
    }

    #[test]
    fn world_ids() {
        assert!(check_world_id("main").is_ok());
        assert!(check_world_id("A-z_09").is_ok());
        assert!(check_world_id(&"a".repeat(64)).is_ok());
        assert!(check_world_id(&"a".repeat(65)).is_err());
        assert!(check_world_id("").is_err());
        assert!(check_world_id("bad id").is_err());
        assert!(check_world_id("caf\u{e9}").is_err());
    }
}
