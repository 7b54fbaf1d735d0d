//! `terrain-load`'s settings: ghz's flags ([`Cli`]) and config file keys (JSON or
//! TOML, `--config`), resolved into [`Options`]. Flags override the file; the
//! defaults are ghz's (`-c 50`, `-n 200`, `--connections 1`, `-t 20s`).

use std::{collections::BTreeMap, path::PathBuf, time::Duration};

use clap::Parser;
use rustls_pki_types::{CertificateDer, pem::PemObject};
use serde::Deserialize;
use serde_json::Value;

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

/// Command-line flags, named as ghz's.
#[derive(Debug, Clone, Default, Parser)]
#[command(
    name = "terrain-load",
    about = "A ghz-compatible load generator for the terrain server",
    version
)]
pub struct Cli {
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
    pub rps: Option<u64>,
    /// Run for this long (e.g. 10s, 1m30s); overrides --total.
    #[arg(short = 'z', long)]
    pub duration: Option<String>,
    /// Stop after this long whatever --total says.
    #[arg(short = 'x', long = "max-duration")]
    pub max_duration: Option<String>,
    /// Deadline of each request [default: 20s].
    #[arg(short = 't', long)]
    pub timeout: Option<String>,
    /// Connection timeout [default: 10s].
    #[arg(long = "connect-timeout")]
    pub connect_timeout: Option<String>,
    /// Request data as JSON, with {{.RequestNumber}}-style templates.
    #[arg(short = 'd', long)]
    pub data: Option<String>,
    /// Request data from a file.
    #[arg(short = 'D', long = "data-file")]
    pub data_file: Option<PathBuf>,
    /// Request metadata as a JSON object of strings.
    #[arg(short = 'm', long)]
    pub metadata: Option<String>,
    /// Plaintext connection; without it the connection is TLS and needs --cacert.
    #[arg(long)]
    pub insecure: bool,
    /// PEM file of the CA certificates to trust for a TLS connection (the server's
    /// `tls_cert`, or its CA); the host may then be given as `https://host:port`.
    #[arg(long)]
    pub cacert: Option<PathBuf>,
    /// Server name to verify the certificate for, instead of the host's.
    #[arg(long)]
    pub cname: Option<String>,
    /// JSON or TOML file with the same settings (flags override it).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Output format: summary, json or pretty [default: summary].
    #[arg(short = 'O', long)]
    pub format: Option<String>,
    /// Write the report here instead of stdout.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Leave the first N results out of the report (warm-up).
    #[arg(long = "skipFirst")]
    pub skip_first: Option<u64>,
    /// Close each stream call after this long.
    #[arg(long = "stream-call-duration")]
    pub stream_call_duration: Option<String>,
    /// Close each stream call after receiving this many messages.
    #[arg(long = "stream-call-count")]
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
    /// host:port of the server.
    pub host: Option<String>,
}

/// Config file keys, named as ghz's.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    host: Option<String>,
    call: Option<String>,
    concurrency: Option<usize>,
    total: Option<u64>,
    connections: Option<usize>,
    #[serde(alias = "qps")]
    rps: Option<u64>,
    duration: Option<String>,
    #[serde(rename = "max-duration")]
    max_duration: Option<String>,
    timeout: Option<String>,
    #[serde(rename = "connect-timeout")]
    connect_timeout: Option<String>,
    data: Option<Value>,
    #[serde(rename = "data-file")]
    data_file: Option<PathBuf>,
    metadata: Option<BTreeMap<String, String>>,
    insecure: Option<bool>,
    cacert: Option<PathBuf>,
    cname: Option<String>,
    format: Option<String>,
    output: Option<PathBuf>,
    #[serde(rename = "skipFirst")]
    skip_first: Option<u64>,
    #[serde(rename = "stream-call-duration")]
    stream_call_duration: Option<String>,
    #[serde(rename = "stream-call-count")]
    stream_call_count: Option<u64>,
    name: Option<String>,
    protoset: Option<PathBuf>,
    // Accepted so ghz configs load unchanged; unused here.
    #[allow(dead_code)]
    proto: Option<String>,
    #[allow(dead_code)]
    #[serde(rename = "import-paths")]
    import_paths: Option<Vec<String>>,
    #[allow(dead_code)]
    cpus: Option<u64>,
    #[allow(dead_code)]
    tags: Option<BTreeMap<String, String>>,
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

fn read_config(path: &PathBuf) -> Result<FileConfig, OptionsError> {
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

/// The PEM text of the `--cacert` file, with at least one certificate in it.
fn read_cacert(path: &PathBuf) -> Result<Vec<u8>, OptionsError> {
    let bad = |reason: String| invalid("cacert", format!("{}: {reason}", path.display()));
    let pem = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    let mut count = 0usize;
    for cert in CertificateDer::pem_slice_iter(&pem) {
        cert.map_err(|e| bad(format!("not a PEM certificate file: {e}")))?;
        count += 1;
    }
    if count == 0 {
        return Err(bad("no PEM CERTIFICATE block in the file".into()));
    }
    Ok(pem)
}

impl Options {
    /// Resolves flags over the config file over ghz's defaults, and validates.
    pub fn resolve(cli: Cli) -> Result<Options, OptionsError> {
        let file = match &cli.config {
            Some(path) => read_config(path)?,
            None => FileConfig::default(),
        };
        let host = cli
            .host
            .or(file.host)
            .ok_or_else(|| invalid("host", "required (host:port of the server)"))?;
        let insecure = cli.insecure || file.insecure.unwrap_or(false);
        let cacert = cli.cacert.or(file.cacert);
        let scheme = ["http://", "https://"]
            .into_iter()
            .find(|p| host.starts_with(p));
        let host = host
            .strip_prefix(scheme.unwrap_or(""))
            .unwrap_or(&host)
            .trim_end_matches('/')
            .to_string();
        let tls = match (insecure, cacert, scheme) {
            (true, Some(_), _) => {
                return Err(invalid(
                    "cacert",
                    "--insecure makes a plaintext connection: give one of --insecure, --cacert",
                ));
            }
            (true, None, Some("https://")) => {
                return Err(invalid(
                    "insecure",
                    "the host is https:// (TLS): give --cacert FILE instead of --insecure",
                ));
            }
            (true, None, _) => None,
            (false, Some(_), Some("http://")) => {
                return Err(invalid(
                    "cacert",
                    "the host is http:// (plaintext): use https:// with --cacert",
                ));
            }
            (false, Some(path), _) => Some(Tls {
                ca_pem: read_cacert(&path)?,
                cacert: path,
                cname: cli.cname.or(file.cname),
            }),
            (false, None, _) => {
                return Err(invalid(
                    "insecure",
                    "give --insecure (plaintext) or --cacert FILE (TLS; the system roots are not loaded)",
                ));
            }
        };
        let call = cli
            .call
            .or(file.call)
            .ok_or_else(|| invalid("call", "required, e.g. terrain.v1.TerrainService/GetHeight"))?;
        let mut pool = builtin_pool()?;
        if let Some(path) = cli.protoset.or(file.protoset) {
            let bytes = std::fs::read(&path)
                .map_err(|e| invalid("protoset", format!("{}: {e}", path.display())))?;
            add_descriptor_set(&mut pool, &path.display().to_string(), &bytes)?;
        }
        let method = Method::find(&pool, &call).map_err(|e| invalid("call", e))?;
        let concurrency = cli.concurrency.or(file.concurrency).unwrap_or(50);
        if concurrency == 0 {
            return Err(invalid("concurrency", "must be at least 1"));
        }
        let connections = cli.connections.or(file.connections).unwrap_or(1);
        if connections == 0 || connections > concurrency {
            return Err(invalid(
                "connections",
                format!("must be between 1 and the concurrency ({concurrency})"),
            ));
        }
        let duration = duration_of("duration", cli.duration.or(file.duration))?;
        let total = cli.total.or(file.total).unwrap_or(200);
        if total == 0 && duration.is_none() {
            return Err(invalid("total", "must be at least 1 (or give a duration)"));
        }
        let data_text = match (cli.data, cli.data_file.or(file.data_file), file.data) {
            (Some(d), _, _) => d,
            (None, Some(path), _) => std::fs::read_to_string(&path)
                .map_err(|e| invalid("data-file", format!("{}: {e}", path.display())))?,
            (None, None, Some(v)) => v.to_string(),
            (None, None, None) => "{}".to_string(),
        };
        let data = Data::parse(&data_text, &method)?;
        let data_json = serde_json::from_str(&data_text).unwrap_or(Value::String(data_text));
        let metadata = match cli.metadata {
            Some(m) => serde_json::from_str(&m)
                .map_err(|e| invalid("metadata", format!("a JSON object of strings: {e}")))?,
            None => file.metadata.unwrap_or_default(),
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
        let format = match cli.format.or(file.format).as_deref() {
            None | Some("summary") => Format::Summary,
            Some("json") => Format::Json,
            Some("pretty") => Format::Pretty,
            Some(other) => {
                return Err(invalid(
                    "format",
                    format!("{other:?} is not one of summary, json, pretty"),
                ));
            }
        };
        let stream = StreamLimits {
            duration: duration_of(
                "stream-call-duration",
                cli.stream_call_duration.or(file.stream_call_duration),
            )?,
            count: cli.stream_call_count.or(file.stream_call_count),
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
            rps: cli.rps.or(file.rps).unwrap_or(0),
            duration,
            max_duration: duration_of("max-duration", cli.max_duration.or(file.max_duration))?,
            timeout: duration_of("timeout", cli.timeout.or(file.timeout))?
                .unwrap_or(Duration::from_secs(20)),
            connect_timeout: duration_of(
                "connect-timeout",
                cli.connect_timeout.or(file.connect_timeout),
            )?
            .unwrap_or(Duration::from_secs(10)),
            data_json,
            data,
            metadata,
            format,
            output: cli.output.or(file.output),
            skip_first: cli.skip_first.or(file.skip_first).unwrap_or(0),
            stream,
            name: cli.name.or(file.name),
        })
    }
}

#[cfg(test)]
mod tests {
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
