//! [`Settings`]: every key of a `terrain-load` run, declared once, each a ghz flag and
//! a key of the `--config` file; and [`Cli`], the command line, which lays the flags
//! given over the file's settings with clap's own update.

use std::{collections::BTreeMap, path::PathBuf};

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser};
use serde::Deserialize;
use serde_json::Value;

use super::{OptionsError, invalid};

/// Every setting of a run, declared once: each field is at the same time a flag
/// (clap; its doc comment is the flag's help) and a key of the `--config` file
/// (serde, unknown keys refused), both named as ghz's. Every value is optional:
/// `None` where a source is silent. [`Cli`] lays the flags given over the file's
/// settings with clap's own update, so no key is listed twice; [`Options::resolve`](super::Options::resolve)
/// fills the rest with ghz's defaults.
#[derive(Debug, Clone, Default, Args, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Fully qualified method: package.Service/Method or package.Service.Method.
    #[arg(long)]
    pub call: Option<String>,
    /// Number of request workers to run concurrently [default: 50].
    #[arg(short = 'c', long)]
    pub concurrency: Option<usize>,
    /// Number of requests to run [default: 200]; ignored with --duration.
    #[arg(short = 'n', long)]
    pub total: Option<u64>,
    /// Number of connections (HTTP/2) the workers share round-robin [default: 1].
    #[arg(long)]
    pub connections: Option<usize>,
    /// Requests per second across all workers; 0 for no limit.
    #[arg(short = 'r', long, alias = "qps")]
    #[serde(alias = "qps")]
    pub rps: Option<u64>,
    /// Run for this long (e.g. 10s, 1m30s); overrides --total.
    #[arg(short = 'z', long)]
    pub duration: Option<String>,
    /// Stop after this long whatever --total says.
    #[arg(short = 'x', long = "max-duration")]
    #[serde(rename = "max-duration")]
    pub max_duration: Option<String>,
    /// Deadline of each request [default: 20s].
    #[arg(short = 't', long)]
    pub timeout: Option<String>,
    /// Connection timeout [default: 10s].
    #[arg(long = "connect-timeout")]
    #[serde(rename = "connect-timeout")]
    pub connect_timeout: Option<String>,
    /// Request data as JSON, with {{.RequestNumber}}-style templates.
    #[arg(short = 'd', long, value_parser = |s: &str| Ok::<_, String>(DataText(s.to_string())))]
    pub data: Option<DataText>,
    /// Request data from a file.
    #[arg(short = 'D', long = "data-file")]
    #[serde(rename = "data-file")]
    pub data_file: Option<PathBuf>,
    /// Request metadata as a JSON object of strings.
    #[arg(short = 'm', long, value_parser = |s: &str| Ok::<_, String>(Metadata::Text(s.to_string())))]
    pub metadata: Option<Metadata>,
    /// Plaintext connection; without it the connection is TLS and needs --cacert.
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub insecure: Option<bool>,
    /// PEM file of the CA certificates to trust for a TLS connection (the server's
    /// `tls_cert`, or its CA); the host may then be given as `https://host:port`.
    #[arg(long)]
    pub cacert: Option<PathBuf>,
    /// Server name to verify the certificate for, instead of the host's.
    #[arg(long)]
    pub cname: Option<String>,
    /// Output format: summary, json or pretty [default: summary].
    #[arg(short = 'O', long)]
    pub format: Option<String>,
    /// Write the report here instead of stdout.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Leave the first N results out of the report (warm-up).
    #[arg(long = "skipFirst")]
    #[serde(rename = "skipFirst")]
    pub skip_first: Option<u64>,
    /// Close each stream call after this long.
    #[arg(long = "stream-call-duration")]
    #[serde(rename = "stream-call-duration")]
    pub stream_call_duration: Option<String>,
    /// Close each stream call after receiving this many messages.
    #[arg(long = "stream-call-count")]
    #[serde(rename = "stream-call-count")]
    pub stream_call_count: Option<u64>,
    /// A name for the run, kept in the report.
    #[arg(long)]
    pub name: Option<String>,
    /// Accepted for ghz compatibility and unused: the terrain and health services are
    /// built in (give other services as a --protoset).
    #[arg(long)]
    pub proto: Option<PathBuf>,
    /// An encoded FileDescriptorSet whose services are callable beside the built-in
    /// ones (e.g. from `terrain-server protoset`, or `protoc --include_imports -o`).
    #[arg(long)]
    pub protoset: Option<PathBuf>,
    /// ghz's proto import paths: accepted in the file so ghz configs load unchanged,
    /// unused (no flag).
    #[arg(skip)]
    #[serde(rename = "import-paths")]
    pub import_paths: Option<Vec<String>>,
    /// ghz's CPU count: accepted in the file, unused (no flag).
    #[arg(skip)]
    pub cpus: Option<u64>,
    /// ghz's report tags: accepted in the file, unused (no flag).
    #[arg(skip)]
    pub tags: Option<BTreeMap<String, String>>,
    /// host:port of the server.
    pub host: Option<String>,
}

/// The request data as given: a flag's text, or the file's `data` value written back
/// as JSON text (either may hold `{{...}}` templates).
#[derive(Debug, Clone, PartialEq)]
pub struct DataText(pub String);

impl<'de> Deserialize<'de> for DataText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(|v| DataText(v.to_string()))
    }
}

/// The request metadata as given: a flag's JSON text (decoded when resolving, so a bad
/// one is named `metadata`), or the file's table of strings.
#[derive(Debug, Clone, PartialEq)]
pub enum Metadata {
    Text(String),
    Map(BTreeMap<String, String>),
}

impl<'de> Deserialize<'de> for Metadata {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BTreeMap::deserialize(d).map(Metadata::Map)
    }
}

impl Settings {
    /// `data` and `data-file` are one setting given two ways: flags that give either
    /// replace both of the file's, and in the file `data-file` wins over `data` (on the
    /// command line `-d` wins over `-D`: [`Options::resolve`](super::Options::resolve) reads `data` first). This
    /// drops what the file's data settings lose to, before the flags are laid over it.
    fn yield_data_to(&mut self, flags: &Settings) {
        if self.data_file.is_some() {
            self.data = None;
        }
        if flags.data.is_some() || flags.data_file.is_some() {
            self.data = None;
            self.data_file = None;
        }
    }
}

/// `terrain-load`'s command line: `--config` and every [`Settings`] key as a flag.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "terrain-load",
    about = "A ghz-compatible load generator for the terrain server",
    version
)]
struct Flags {
    /// JSON or TOML file with the same settings (flags override it).
    #[arg(long)]
    config: Option<PathBuf>,
    #[command(flatten)]
    settings: Settings,
}

/// A parsed command line, which keeps clap's matches to lay the flags given over the
/// file's settings ([`Cli::layer_over`]).
#[derive(Debug, Clone)]
pub struct Cli {
    /// The `--config` file, if any.
    pub config: Option<PathBuf>,
    /// What the flags set.
    pub settings: Settings,
    matches: ArgMatches,
}

impl Cli {
    /// `file` with every key a flag gave replaced by the flag's value (clap's update).
    pub fn layer_over(&self, mut file: Settings) -> Result<Settings, OptionsError> {
        file.yield_data_to(&self.settings);
        file.update_from_arg_matches(&self.matches)
            .map_err(|e| invalid("command line", e.to_string()))?;
        Ok(file)
    }
}

/// `Cli::parse()`, `Cli::parse_from(...)`: clap's parse of `Flags`, keeping the matches.
impl Parser for Cli {}

impl CommandFactory for Cli {
    fn command() -> clap::Command {
        Flags::command()
    }

    fn command_for_update() -> clap::Command {
        Flags::command_for_update()
    }
}

impl FromArgMatches for Cli {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let Flags { config, settings } = Flags::from_arg_matches(matches)?;
        let matches = matches.clone();
        Ok(Cli {
            config,
            settings,
            matches,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Cli::from_arg_matches(matches)?;
        Ok(())
    }
}
