//! `terrain-load`'s settings: each declared once in [`Settings`] (`settings`), both a
//! ghz flag and a key of the config file (JSON or TOML, `--config`); [`Cli`] lays the
//! flags over the file and [`Options::resolve`] validates the result into [`Options`].
//! The defaults are ghz's (`-c 50`, `-n 200`, `--connections 1`, `-t 20s`).

use std::{collections::BTreeMap, path::PathBuf, time::Duration};

use serde_json::Value;

mod settings;

pub use settings::{Cli, DataText, Metadata, Settings};

use crate::{
    Method,
    call::StreamLimits,
    data::{Data, DataError},
    methods::{DescriptorError, add_descriptor_set, builtin_pool},
};

/// A bad flag, key or value, named.
#[derive(Debug, thiserror::Error)]
pub enum OptionsError {
    #[error("{key}: {reason}")]
    Invalid { key: &'static str, reason: String },
    #[error("config {path}: {reason}")]
    Config { path: PathBuf, reason: String },
    #[error(transparent)]
    Data(#[from] DataError),
    #[error(transparent)]
    Descriptors(#[from] DescriptorError),
}

fn invalid(key: &'static str, reason: impl Into<String>) -> OptionsError {
    OptionsError::Invalid {
        key,
        reason: reason.into(),
    }
}

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// ghz's text summary.
    Summary,
    /// ghz's JSON report on one line.
    Json,
    /// The same, indented.
    Pretty,
}

/// TLS settings of a run: the CA to trust, read and checked when resolving.
#[derive(Debug, Clone)]
pub struct Tls {
    /// The `--cacert` file, for messages.
    pub cacert: PathBuf,
    /// Its PEM text (at least one certificate).
    pub ca_pem: Vec<u8>,
    /// `--cname`: the name the certificate must be for, if not the host's.
    pub cname: Option<String>,
}

/// A resolved, validated run.
#[derive(Debug, Clone)]
pub struct Options {
    /// `host:port`.
    pub host: String,
    /// `Some`: connect with TLS (`--cacert`); `None`: plaintext (`--insecure`).
    pub tls: Option<Tls>,
    pub method: Method,
    pub concurrency: usize,
    pub total: u64,
    pub connections: usize,
    /// 0: no limit.
    pub rps: u64,
    pub duration: Option<Duration>,
    pub max_duration: Option<Duration>,
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// The data as given (for the report).
    pub data_json: Value,
    pub data: Data,
    pub metadata: BTreeMap<String, String>,
    pub format: Format,
    pub output: Option<PathBuf>,
    pub skip_first: u64,
    pub stream: StreamLimits,
    pub name: Option<String>,
}

/// A Go-style duration: `1h2m3.5s`, `250ms`, `10us`, `5ns`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let mut total = 0f64;
    let mut rest = s.trim();
    if rest.is_empty() {
        return Err("empty duration".into());
    }
    if rest == "0" {
        return Ok(Duration::ZERO);
    }
    while !rest.is_empty() {
        let split = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("{s:?}: missing unit (ns, us, ms, s, m, h)"))?;
        let (number, tail) = rest.split_at(split);
        let value: f64 = number
            .parse()
            .map_err(|_| format!("{s:?}: {number:?} is not a number"))?;
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_len);
        let scale = match unit {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            other => return Err(format!("{s:?}: unknown unit {other:?}")),
        };
        total += value * scale;
        rest = tail;
    }
    Duration::try_from_secs_f64(total).map_err(|e| format!("{s:?}: {e}"))
}

fn duration_of(key: &'static str, v: Option<String>) -> Result<Option<Duration>, OptionsError> {
    v.map(|s| parse_duration(&s).map_err(|e| invalid(key, e)))
        .transpose()
}

fn read_config(path: &PathBuf) -> Result<Settings, OptionsError> {
    let bad = |reason: String| OptionsError::Config {
        path: path.clone(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let is_toml = path.extension().is_some_and(|e| e == "toml");
    if is_toml {
        toml::from_str(&text).map_err(|e| bad(e.to_string()))
    } else {
        serde_json::from_str(&text).map_err(|e| bad(e.to_string()))
    }
}

/// The PEM text of the `--cacert` file, with at least one certificate in it (the
/// client SDK's check, [`terrain_client::tls::check_ca_pem`]).
fn read_cacert(path: &PathBuf) -> Result<Vec<u8>, OptionsError> {
    let bad = |reason: String| invalid("cacert", format!("{}: {reason}", path.display()));
    let pem = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    terrain_client::tls::check_ca_pem(&pem).map_err(bad)?;
    Ok(pem)
}

/// The host without its scheme and trailing `/`, and the scheme (`http://` or
/// `https://`) if it had one.
fn split_scheme(host: &str) -> (String, Option<&'static str>) {
    let scheme = ["http://", "https://"]
        .into_iter()
        .find(|p| host.starts_with(p));
    let rest = host.strip_prefix(scheme.unwrap_or("")).unwrap_or(host);
    (rest.trim_end_matches('/').to_string(), scheme)
}

/// The TLS settings of `insecure`, `cacert` and the host's scheme, or why they
/// disagree.
fn tls_of(
    insecure: bool,
    cacert: Option<PathBuf>,
    scheme: Option<&str>,
    cname: Option<String>,
) -> Result<Option<Tls>, OptionsError> {
    match (insecure, cacert, scheme) {
        (true, Some(_), _) => Err(invalid(
            "cacert",
            "--insecure makes a plaintext connection: give one of --insecure, --cacert",
        )),
        (true, None, Some("https://")) => Err(invalid(
            "insecure",
            "the host is https:// (TLS): give --cacert FILE instead of --insecure",
        )),
        (true, None, _) => Ok(None),
        (false, Some(_), Some("http://")) => Err(invalid(
            "cacert",
            "the host is http:// (plaintext): use https:// with --cacert",
        )),
        (false, Some(path), _) => Ok(Some(Tls {
            ca_pem: read_cacert(&path)?,
            cacert: path,
            cname,
        })),
        (false, None, _) => Err(invalid(
            "insecure",
            "give --insecure (plaintext) or --cacert FILE (TLS; the system roots are not loaded)",
        )),
    }
}

/// The method `call` names, among the built-in services and those of `protoset`.
fn method_of(call: Option<String>, protoset: Option<PathBuf>) -> Result<Method, OptionsError> {
    let call =
        call.ok_or_else(|| invalid("call", "required, e.g. terrain.v1.TerrainService/GetHeight"))?;
    let mut pool = builtin_pool()?;
    if let Some(path) = protoset {
        let bytes = std::fs::read(&path)
            .map_err(|e| invalid("protoset", format!("{}: {e}", path.display())))?;
        add_descriptor_set(&mut pool, &path.display().to_string(), &bytes)?;
    }
    Method::find(&pool, &call).map_err(|e| invalid("call", e))
}

/// The request data's text: `-d`, else the `data-file`'s contents, else `{}`.
fn data_text(data: Option<DataText>, data_file: Option<PathBuf>) -> Result<String, OptionsError> {
    match (data, data_file) {
        (Some(DataText(d)), _) => Ok(d),
        (None, Some(path)) => std::fs::read_to_string(&path)
            .map_err(|e| invalid("data-file", format!("{}: {e}", path.display()))),
        (None, None) => Ok("{}".to_string()),
    }
}

/// The metadata as a map of valid ASCII headers.
fn metadata_of(metadata: Option<Metadata>) -> Result<BTreeMap<String, String>, OptionsError> {
    let metadata = match metadata {
        Some(Metadata::Text(m)) => serde_json::from_str(&m)
            .map_err(|e| invalid("metadata", format!("a JSON object of strings: {e}")))?,
        Some(Metadata::Map(m)) => m,
        None => BTreeMap::new(),
    };
    for (k, v) in &metadata {
        let ok_key =
            tonic::metadata::MetadataKey::<tonic::metadata::Ascii>::from_bytes(k.as_bytes())
                .is_ok();
        if !ok_key || v.parse::<tonic::metadata::AsciiMetadataValue>().is_err() {
            return Err(invalid(
                "metadata",
                format!("{k:?}: not a valid ASCII header"),
            ));
        }
    }
    Ok(metadata)
}

fn format_of(format: Option<&str>) -> Result<Format, OptionsError> {
    match format {
        None | Some("summary") => Ok(Format::Summary),
        Some("json") => Ok(Format::Json),
        Some("pretty") => Ok(Format::Pretty),
        Some(other) => Err(invalid(
            "format",
            format!("{other:?} is not one of summary, json, pretty"),
        )),
    }
}

impl Options {
    /// Resolves flags over the config file over ghz's defaults, and validates.
    pub fn resolve(cli: Cli) -> Result<Options, OptionsError> {
        let file = match &cli.config {
            Some(path) => read_config(path)?,
            None => Settings::default(),
        };
        let s = cli.layer_over(file)?;
        let host = s
            .host
            .ok_or_else(|| invalid("host", "required (host:port of the server)"))?;
        let (host, scheme) = split_scheme(&host);
        let tls = tls_of(s.insecure.unwrap_or(false), s.cacert, scheme, s.cname)?;
        let method = method_of(s.call, s.protoset)?;
        let concurrency = s.concurrency.unwrap_or(50);
        if concurrency == 0 {
            return Err(invalid("concurrency", "must be at least 1"));
        }
        let connections = s.connections.unwrap_or(1);
        if connections == 0 || connections > concurrency {
            return Err(invalid(
                "connections",
                format!("must be between 1 and the concurrency ({concurrency})"),
            ));
        }
        let duration = duration_of("duration", s.duration)?;
        let total = s.total.unwrap_or(200);
        if total == 0 && duration.is_none() {
            return Err(invalid("total", "must be at least 1 (or give a duration)"));
        }
        let data_text = data_text(s.data, s.data_file)?;
        let data = Data::parse(&data_text, &method)?;
        let data_json = serde_json::from_str(&data_text).unwrap_or(Value::String(data_text));
        let metadata = metadata_of(s.metadata)?;
        let format = format_of(s.format.as_deref())?;
        let stream = StreamLimits {
            duration: duration_of("stream-call-duration", s.stream_call_duration)?,
            count: s.stream_call_count,
        };
        if method.is_stream() && stream.duration.is_none() && stream.count.is_none() {
            return Err(invalid(
                "stream-call-duration",
                format!(
                    "{method} streams its answers: give --stream-call-duration or --stream-call-count"
                ),
            ));
        }
        Ok(Options {
            host,
            tls,
            method,
            concurrency,
            total,
            connections,
            rps: s.rps.unwrap_or(0),
            duration,
            max_duration: duration_of("max-duration", s.max_duration)?,
            timeout: duration_of("timeout", s.timeout)?.unwrap_or(Duration::from_secs(20)),
            connect_timeout: duration_of("connect-timeout", s.connect_timeout)?
                .unwrap_or(Duration::from_secs(10)),
            data_json,
            data,
            metadata,
            format,
            output: s.output,
            skip_first: s.skip_first.unwrap_or(0),
            stream,
            name: s.name,
        })
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    fn cli(args: &[&str]) -> Cli {
        Cli::parse_from(std::iter::once("terrain-load").chain(args.iter().copied()))
    }

    #[test]
    fn go_durations_parse() {
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("3d").is_err());
    }

    #[test]
    fn flags_override_the_config_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.toml");
        std::fs::write(
            &path,
            "host = \"127.0.0.1:9\"\ncall = \"grpc.health.v1.Health/Check\"\ninsecure = true\n\
             total = 5000\nconcurrency = 16\nconnections = 4\nrps = 100\nskipFirst = 10\n\
             timeout = \"2s\"\nformat = \"json\"\n[data]\nservice = \"\"\n",
        )
        .unwrap();
        let p = path.to_str().unwrap();
        let o = Options::resolve(cli(&["--config", p, "-c", "8", "-O", "pretty"])).unwrap();
        assert_eq!(o.host, "127.0.0.1:9");
        assert_eq!(o.method.full_name(), "grpc.health.v1.Health.Check");
        assert_eq!((o.total, o.concurrency, o.connections), (5000, 8, 4));
        assert_eq!((o.rps, o.skip_first), (100, 10));
        assert_eq!(o.timeout, Duration::from_secs(2));
        assert_eq!(o.format, Format::Pretty);

        std::fs::write(&path, "host = \"x:1\"\nbogus = 1\n").unwrap();
        let e = Options::resolve(cli(&["--config", p]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("bogus"), "{e}");
        let json = dir.path().join("run.json");
        std::fs::write(&json, r#"{"host":"h:1","call":"terrain.v1.TerrainService.GetHeight","insecure":true,"data":{"world":"main","x":1,"z":2},"max-duration":"3s"}"#).unwrap();
        let o = Options::resolve(cli(&["--config", json.to_str().unwrap()])).unwrap();
        assert_eq!(o.method.full_name(), "terrain.v1.TerrainService.GetHeight");
        assert_eq!(o.max_duration, Some(Duration::from_secs(3)));
    }

    #[test]
    fn bad_settings_name_their_key() {
        let base = [
            "--insecure",
            "--call",
            "terrain.v1.TerrainService/GetHeight",
            "h:1",
        ];
        let with = |extra: &[&str]| {
            let mut v: Vec<&str> = base.to_vec();
            v.extend_from_slice(extra);
            Options::resolve(cli(&v)).unwrap_err().to_string()
        };
        assert!(with(&["-c", "0"]).starts_with("concurrency:"));
        assert!(with(&["-c", "2", "--connections", "3"]).starts_with("connections:"));
        assert!(with(&["-z", "5 parsecs"]).starts_with("duration:"));
        assert!(with(&["-O", "html"]).starts_with("format:"));
        assert!(with(&["-d", r#"{"world":1}"#]).starts_with("data.world:"));
        let e = Options::resolve(cli(&["--call", "grpc.health.v1.Health/Check", "h:1"]))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("insecure:"), "{e}");
    }

    #[test]
    fn each_key_is_one_flag_and_one_file_key_and_data_is_one_setting() {
        Cli::command().debug_assert();
        let dir = tempfile::tempdir().unwrap();
        let body = dir.path().join("body.json");
        std::fs::write(&body, r#"{"service":"from-file"}"#).unwrap();
        let config = dir.path().join("run.toml");
        let write = |extra: &str| {
            let text = format!(
                "host = \"h:1\"\ncall = \"grpc.health.v1.Health/Check\"\ninsecure = true\n{extra}"
            );
            std::fs::write(&config, text).unwrap();
        };
        let c = config.to_str().unwrap();
        let data = |args: &[&str]| Options::resolve(cli(args)).unwrap().data_json;
        let path = body.to_str().unwrap().replace('\\', "/");
        // In the file, data-file wins over data.
        write(&format!(
            "data-file = \"{path}\"\n[data]\nservice = \"inline\"\n"
        ));
        assert_eq!(data(&["--config", c])["service"], "from-file");
        // A flag for either replaces both of the file's; on the command line -d wins.
        assert_eq!(
            data(&["--config", c, "-d", r#"{"service":"flag"}"#])["service"],
            "flag"
        );
        write("[data]\nservice = \"inline\"\n");
        assert_eq!(data(&["--config", c, "-D", &path])["service"], "from-file");
        let both = ["--config", c, "-D", &path, "-d", r#"{"service":"flag"}"#];
        assert_eq!(data(&both)["service"], "flag");
        // A flag without a value keeps the file's value of every other key.
        write("total = 7\nmetadata = { a = \"b\" }\n");
        let o = Options::resolve(cli(&["--config", c, "--insecure", "-c", "2"])).unwrap();
        assert_eq!((o.total, o.concurrency), (7, 2));
        assert_eq!(o.metadata.get("a").map(String::as_str), Some("b"));
    }

    #[test]
    fn cacert_selects_tls_and_a_bad_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let call = ["--call", "grpc.health.v1.Health/Check"];
        let resolve = |extra: &[&str]| {
            let mut v: Vec<&str> = call.to_vec();
            v.extend_from_slice(extra);
            Options::resolve(cli(&v)).map_err(|e| e.to_string())
        };
        let missing = dir.path().join("missing.pem");
        let garbage = dir.path().join("garbage.pem");
        std::fs::write(&garbage, "not a certificate").unwrap();
        for path in [&missing, &garbage] {
            let e = resolve(&["--cacert", path.to_str().unwrap(), "https://h:1"]).unwrap_err();
            assert!(
                e.starts_with("cacert: ") && e.contains(path.to_str().unwrap()),
                "{e}"
            );
        }
        let e = resolve(&["--insecure", "https://h:1"]).unwrap_err();
        assert!(e.starts_with("insecure:"), "{e}");
        let e = resolve(&["--insecure", "--cacert", "x.pem", "h:1"]).unwrap_err();
        assert!(e.starts_with("cacert:"), "{e}");
        let e = resolve(&["--cacert", "x.pem", "http://h:1"]).unwrap_err();
        assert!(e.starts_with("cacert:"), "{e}");
        // A certificate-shaped PEM block is accepted (its DER is checked by the handshake).
        let pem = dir.path().join("ca.pem");
        std::fs::write(
            &pem,
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        let o = resolve(&[
            "--cacert",
            pem.to_str().unwrap(),
            "--cname",
            "localhost",
            "https://h:1/",
        ])
        .unwrap();
        assert_eq!(o.host, "h:1");
        let tls = o.tls.expect("TLS");
        assert_eq!(tls.cname.as_deref(), Some("localhost"));
        assert!(
            resolve(&["--insecure", "http://h:1"])
                .unwrap()
                .tls
                .is_none()
        );
    }
}
