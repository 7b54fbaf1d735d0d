//! Where the flat-zone registries live: the embedded store (the default), or NATS
//! JetStream key-value shared by several replicas.
//!
//! ```toml
//! store = { kind = "nats", url = "nats://n1:4222,nats://n2:4222", bucket = "terrain", replicas = 3 }
//! ```
//!
//! Flags `--store-kind`, `--store-url`, `--store-bucket`, `--store-replicas` and the
//! variables `TERRAIN_STORE_KIND`, `TERRAIN_STORE_URL`, `TERRAIN_STORE_BUCKET`,
//! `TERRAIN_STORE_REPLICAS` set the same keys, each over the file's.

use std::{fmt, str::FromStr};

use clap::Args;
use serde::Deserialize;

use super::{ConfigError, de, layer::layered};

/// The default bucket name prefix: world `main` lives in bucket `terrain-main`.
pub const DEFAULT_BUCKET: &str = "terrain";
/// The default number of JetStream replicas of each bucket.
pub const DEFAULT_REPLICAS: usize = 1;
/// JetStream keeps at most 5 replicas of a stream.
pub const MAX_REPLICAS: usize = 5;
/// Longest bucket prefix: a bucket name is `{bucket}-{world}`, and world ids take up
/// to 64 characters.
pub const MAX_BUCKET_LEN: usize = 64;

/// Which store backs the registries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StoreKind {
    /// `data_dir/terrain.redb`, one server.
    #[default]
    Embedded,
    /// NATS JetStream key-value, shared by every replica.
    Nats,
}

impl FromStr for StoreKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "embedded" => Ok(StoreKind::Embedded),
            "nats" => Ok(StoreKind::Nats),
            other => Err(format!(
                "unknown store kind {other:?}, expected \"embedded\" or \"nats\""
            )),
        }
    }
}

impl fmt::Display for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StoreKind::Embedded => "embedded",
            StoreKind::Nats => "nats",
        })
    }
}

layered! {
/// What one source says about the store; `None` where it is silent. Each field is a
/// key of the `store` table and a `--store-*` flag / `TERRAIN_STORE_*` variable.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args, Deserialize)]
#[serde(default, deny_unknown_fields, expecting = "a table")]
pub struct StoreSettings {
    /// Where flat zones are stored: `embedded` or `nats` [default: embedded].
    #[arg(id = "store_kind", long = "store-kind", env = "TERRAIN_STORE_KIND", value_name = "KIND", value_parser = str::parse::<StoreKind>)]
    #[serde(deserialize_with = "de::parsed")]
    pub kind: Option<StoreKind>,

    /// NATS server URLs for `--store-kind nats`, comma separated (`nats://host:4222`).
    #[arg(
        id = "store_url",
        long = "store-url",
        env = "TERRAIN_STORE_URL",
        value_name = "URLS"
    )]
    pub url: Option<String>,

    /// NATS bucket name prefix; world `w` lives in bucket `PREFIX-w` [default: terrain].
    #[arg(
        id = "store_bucket",
        long = "store-bucket",
        env = "TERRAIN_STORE_BUCKET",
        value_name = "PREFIX"
    )]
    pub bucket: Option<String>,

    /// JetStream replicas of each bucket, 1 to 5 [default: 1].
    #[arg(id = "store_replicas", long = "store-replicas", env = "TERRAIN_STORE_REPLICAS", value_name = "N", value_parser = parse_replicas)]
    pub replicas: Option<usize>,
}
}

impl StoreSettings {
    /// The validated store configuration; NATS settings without `kind = "nats"` are
    /// refused rather than silently ignored.
    pub fn resolve(self) -> Result<StoreConfig, ConfigError> {
        match self.kind.unwrap_or_default() {
            StoreKind::Embedded => {
                let stray = [
                    ("store.url", self.url.is_some()),
                    ("store.bucket", self.bucket.is_some()),
                    ("store.replicas", self.replicas.is_some()),
                ];
                if let Some((key, _)) = stray.iter().find(|(_, set)| *set) {
                    let message = "only applies to kind = \"nats\" (the store is embedded)";
                    return Err(ConfigError::invalid(*key, message));
                }
                Ok(StoreConfig::Embedded)
            }
            StoreKind::Nats => {
                let url = self.url.ok_or_else(|| {
                    ConfigError::invalid("store.url", "required for kind = \"nats\"")
                })?;
                let urls = parse_urls(&url).map_err(|m| ConfigError::invalid("store.url", m))?;
                let bucket = self.bucket.unwrap_or_else(|| DEFAULT_BUCKET.to_string());
                check_bucket(&bucket).map_err(|m| ConfigError::invalid("store.bucket", m))?;
                let replicas = self.replicas.unwrap_or(DEFAULT_REPLICAS);
                if !(1..=MAX_REPLICAS).contains(&replicas) {
                    let message = format!("must be in 1..={MAX_REPLICAS}, got {replicas}");
                    return Err(ConfigError::invalid("store.replicas", message));
                }
                Ok(StoreConfig::Nats(NatsConfig {
                    urls,
                    bucket,
                    replicas,
                }))
            }
        }
    }
}

/// The resolved store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum StoreConfig {
    #[default]
    Embedded,
    Nats(NatsConfig),
}

/// A NATS JetStream key-value store shared by replicas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NatsConfig {
    /// Seed servers (`nats://host:port`); the client learns the rest of the cluster.
    pub urls: Vec<String>,
    /// Bucket name prefix: world `w` lives in bucket `{bucket}-{w}`.
    pub bucket: String,
    /// JetStream replicas of each bucket (1 for a single server, 3 for a cluster).
    pub replicas: usize,
}

impl NatsConfig {
    /// The bucket of world `world`.
    pub fn bucket_of(&self, world: &str) -> String {
        format!("{}-{world}", self.bucket)
    }
}

/// A comma-separated list of `nats://host:port` (or `tls://`) server URLs.
pub fn parse_urls(s: &str) -> Result<Vec<String>, String> {
    let urls: Vec<String> = s.split(',').map(|u| u.trim().to_string()).collect();
    for url in &urls {
        let rest = url
            .strip_prefix("nats://")
            .or_else(|| url.strip_prefix("tls://"))
            .ok_or_else(|| format!("{url:?}: expected nats://HOST:PORT"))?;
        let host_port = rest.rsplit('@').next().unwrap_or(rest);
        let Some((host, port)) = host_port.rsplit_once(':') else {
            return Err(format!("{url:?}: expected nats://HOST:PORT"));
        };
        if host.is_empty() || port.parse::<u16>().is_err() {
            return Err(format!("{url:?}: expected nats://HOST:PORT"));
        }
    }
    Ok(urls)
}

/// A bucket prefix: `[A-Za-z0-9_-]{1,64}` (what JetStream allows in a bucket name).
pub fn check_bucket(bucket: &str) -> Result<(), String> {
    if bucket.is_empty() || bucket.len() > MAX_BUCKET_LEN {
        return Err(format!(
            "{bucket:?} must be 1 to {MAX_BUCKET_LEN} characters long"
        ));
    }
    if !bucket
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(format!(
            "{bucket:?} may only contain A-Z, a-z, 0-9, '_' and '-'"
        ));
    }
    Ok(())
}

/// A replica count for a flag's text.
pub fn parse_replicas(s: &str) -> Result<usize, String> {
    let v: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("expected an integer in 1..={MAX_REPLICAS}, got {s:?}"))?;
    if !(1..=MAX_REPLICAS).contains(&v) {
        return Err(format!("must be in 1..={MAX_REPLICAS}, got {v}"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn store(text: &str) -> Result<StoreConfig, ConfigError> {
        super::super::file::parse(text)?.store.resolve()
    }

    fn refusal(text: &str) -> String {
        store(text).unwrap_err().to_string()
    }

    #[test]
    fn nats_with_defaults_and_in_full() {
        let got = store(r#"store = { kind = "nats", url = "nats://127.0.0.1:4222" }"#).unwrap();
        let StoreConfig::Nats(nats) = got else {
            panic!("nats");
        };
        assert_eq!(nats.urls, ["nats://127.0.0.1:4222"]);
        assert_eq!((nats.bucket.as_str(), nats.replicas), ("terrain", 1));
        assert_eq!(nats.bucket_of("main"), "terrain-main");
        let got = store(
            "[store]\nkind = \"nats\"\nurl = \"nats://a:1, nats://b:2\"\nbucket = \"t_1\"\nreplicas = 3\n",
        )
        .unwrap();
        assert_eq!(
            got,
            StoreConfig::Nats(NatsConfig {
                urls: vec!["nats://a:1".into(), "nats://b:2".into()],
                bucket: "t_1".into(),
                replicas: 3,
            })
        );
        assert_eq!(
            store(r#"store = { kind = "embedded" }"#).unwrap(),
            StoreConfig::Embedded
        );
    }

    #[test]
    fn bad_values_name_their_key() {
        assert!(
            refusal(r#"store = { kind = "redis" }"#).starts_with("store.kind: unknown store kind")
        );
        assert!(refusal(r#"store = { kind = "nats" }"#).starts_with("store.url: required"));
        assert!(
            refusal(r#"store = { kind = "nats", url = "http://a:1" }"#).starts_with("store.url: ")
        );
        assert!(
            refusal(r#"store = { kind = "nats", url = "nats://a" }"#).starts_with("store.url: ")
        );
        assert!(
            refusal(r#"store = { kind = "nats", url = "nats://a:1", bucket = "a.b" }"#)
                .starts_with("store.bucket: ")
        );
        assert!(
            refusal(r#"store = { kind = "nats", url = "nats://a:1", replicas = 7 }"#)
                .starts_with("store.replicas: must be in 1..=5")
        );
        assert!(
            refusal(r#"store = { kind = "nats", url = "nats://a:1", replica = 3 }"#)
                .starts_with("store.replica: unknown key")
        );
        assert!(
            refusal(r#"store = { url = "nats://a:1" }"#).starts_with("store.url: only applies")
        );
        assert!(refusal(r#"store = "nats""#).starts_with("store: expected a table"));
    }

    #[test]
    fn the_file_and_the_resolved_config_carry_the_store() {
        let text =
            "listen = \"127.0.0.1:0\"\n[store]\nkind = \"nats\"\nurl = \"nats://127.0.0.1:4222\"\n";
        let settings = super::super::file::parse(text).unwrap();
        let config = super::super::Config::resolve(settings).unwrap();
        assert_eq!(
            config.store,
            StoreConfig::Nats(NatsConfig {
                urls: vec!["nats://127.0.0.1:4222".into()],
                bucket: DEFAULT_BUCKET.into(),
                replicas: DEFAULT_REPLICAS,
            })
        );
        let err = super::super::file::parse("[store]\nkind = 3\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "store.kind: expected a string, got integer"
        );
        let default = super::super::Config::resolve(Default::default()).unwrap();
        assert_eq!(default.store, StoreConfig::Embedded);
    }

    #[test]
    fn flags_layer_over_the_file() {
        let file = super::super::file::parse(
            "[store]\nkind = \"nats\"\nurl = \"nats://file:1\"\nreplicas = 3\n",
        )
        .unwrap();
        let flags =
            super::super::Cli::try_parse_from(["terrain-server", "--store-url", "nats://flag:2"])
                .unwrap();
        let StoreConfig::Nats(nats) = flags.layer_over(file).unwrap().store.resolve().unwrap()
        else {
            panic!("nats");
        };
        assert_eq!((nats.urls[0].as_str(), nats.replicas), ("nats://flag:2", 3));
        assert_eq!(parse_replicas("0").unwrap_err(), "must be in 1..=5, got 0");
    }
}
