//! Runs a load test: `connections` HTTP/2 connections (plaintext, or TLS with the
//! `--cacert` CA) shared round-robin by
//! `concurrency` workers, each sending one request at a time until `total`
//! requests were sent, or `duration` / `max-duration` elapsed, optionally paced to
//! `rps` across all workers. Each worker records into its own HDR histogram; they
//! are merged at the end, so recording costs no coordination.

use std::{
    collections::BTreeMap,
    str::FromStr,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant, SystemTime},
};

use hdrhistogram::Histogram;
use tonic::{
    metadata::{AsciiMetadataValue, MetadataKey, MetadataMap},
    transport::{Certificate, Channel, ClientTlsConfig, Endpoint},
};

use crate::{
    Options,
    call::{Caller, code_name, error_text},
    data::DataError,
    report::{Latencies, Report, ReportOptions, buckets, percentiles, rfc3339},
    template::{Context, Rng},
};

/// Why a run could not be made (failed requests are results, not errors).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("connect {host}: {reason}")]
    Connect { host: String, reason: String },
    #[error(transparent)]
    Data(#[from] DataError),
    #[error("histogram: {0}")]
    Histogram(String),
    #[error("call: {0}")]
    Call(String),
}

/// Largest latency recorded exactly (an hour); longer ones are clamped.
const MAX_LATENCY_NS: u64 = 3_600_000_000_000;

/// One worker's results.
struct Stats {
    ok: Histogram<u64>,
    fastest: u64,
    slowest: u64,
    count: u64,
    sum_ns: u128,
    status: BTreeMap<String, u64>,
    errors: BTreeMap<String, u64>,
}

impl Stats {
    fn new() -> Result<Self, LoadError> {
        Ok(Stats {
            ok: Histogram::new_with_bounds(1, MAX_LATENCY_NS, 3)
                .map_err(|e| LoadError::Histogram(e.to_string()))?,
            fastest: u64::MAX,
            slowest: 0,
            count: 0,
            sum_ns: 0,
            status: BTreeMap::new(),
            errors: BTreeMap::new(),
        })
    }

    fn record(&mut self, latency: Duration, result: Result<(), tonic::Status>) {
        let ns = (latency.as_nanos() as u64).clamp(1, MAX_LATENCY_NS);
        self.count += 1;
        self.sum_ns += u128::from(ns);
        match result {
            Ok(()) => {
                self.ok.saturating_record(ns);
                self.fastest = self.fastest.min(ns);
                self.slowest = self.slowest.max(ns);
                *self.status.entry("OK".into()).or_default() += 1;
            }
            Err(status) => {
                *self
                    .status
                    .entry(code_name(status.code()).into())
                    .or_default() += 1;
                *self.errors.entry(error_text(&status)).or_default() += 1;
            }
        }
    }

    fn merge(&mut self, other: Stats) -> Result<(), LoadError> {
        self.ok
            .add(&other.ok)
            .map_err(|e| LoadError::Histogram(format!("{e:?}")))?;
        self.fastest = self.fastest.min(other.fastest);
        self.slowest = self.slowest.max(other.slowest);
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        for (k, v) in other.status {
            *self.status.entry(k).or_default() += v;
        }
        for (k, v) in other.errors {
            *self.errors.entry(k).or_default() += v;
        }
        Ok(())
    }
}

/// What every worker shares.
struct Shared {
    options: Options,
    metadata: MetadataMap,
    start: Instant,
    /// When to stop starting requests (duration or max-duration).
    deadline: Option<Instant>,
    next: AtomicU64,
    completed: AtomicU64,
}

/// Runs `options` and reports.
pub async fn run(options: &Options) -> Result<Report, LoadError> {
    let mut channels = Vec::with_capacity(options.connections);
    for _ in 0..options.connections {
        channels.push(connect(options).await?);
    }
    let mut metadata = MetadataMap::new();
    for (k, v) in &options.metadata {
        if let (Ok(k), Ok(v)) = (MetadataKey::from_str(k), AsciiMetadataValue::from_str(v)) {
            metadata.insert(k, v);
        }
    }
    let start = Instant::now();
    let limit = [options.duration, options.max_duration]
        .into_iter()
        .flatten()
        .min();
    let shared = Arc::new(Shared {
        options: options.clone(),
        metadata,
        start,
        deadline: limit.map(|d| start + d),
        next: AtomicU64::new(0),
        completed: AtomicU64::new(0),
    });
    let callers = (0..options.concurrency)
        .map(|id| Caller::new(channels[id % channels.len()].clone(), &options.method))
        .collect::<Result<Vec<_>, _>>()
        .map_err(LoadError::Call)?;
    let workers: Vec<_> = callers
        .into_iter()
        .enumerate()
        .map(|(id, caller)| tokio::spawn(worker(id, caller, Arc::clone(&shared))))
        .collect();
    let mut stats = Stats::new()?;
    for w in workers {
        match w.await {
            Ok(result) => stats.merge(result?)?,
            Err(e) => return Err(LoadError::Histogram(format!("worker: {e}"))),
        }
    }
    let total = start.elapsed();
    let end_reason = match (options.duration, options.max_duration) {
        (Some(d), _) if total >= d => "timeout",
        (_, Some(d)) if total >= d => "max-duration",
        _ => "normal",
    };
    Ok(report(options, stats, total, end_reason))
}

async fn connect(options: &Options) -> Result<Channel, LoadError> {
    let bad = |reason: String| LoadError::Connect {
        host: options.host.clone(),
        reason,
    };
    let scheme = if options.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let mut endpoint = Endpoint::from_shared(format!("{scheme}://{}", options.host))
        .map_err(|e| bad(e.to_string()))?;
    if let Some(tls) = &options.tls {
        let mut config = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(&tls.ca_pem));
        if let Some(name) = &tls.cname {
            config = config.domain_name(name.clone());
        }
        endpoint = endpoint
            .tls_config(config)
            .map_err(|e| bad(format!("cacert {}: {e}", tls.cacert.display())))?;
    }
    endpoint
        .connect_timeout(options.connect_timeout)
        .tcp_nodelay(true)
        .initial_stream_window_size(terrain_client::STREAM_WINDOW)
        .initial_connection_window_size(terrain_client::CONNECTION_WINDOW)
        .connect()
        .await
        .map_err(|e| bad(format!("{e}: {}", source_chain(&e))))
}

fn source_chain(e: &dyn std::error::Error) -> String {
    let mut out = Vec::new();
    let mut cur = e.source();
    while let Some(s) = cur {
        out.push(s.to_string());
        cur = s.source();
    }
    out.join(": ")
}

async fn worker(id: usize, mut caller: Caller, shared: Arc<Shared>) -> Result<Stats, LoadError> {
    let o = &shared.options;
    let mut stats = Stats::new()?;
    let mut ctx = Context {
        request_number: 0,
        worker_id: id,
        method: o.method.clone(),
        rng: Rng::new(0x5eed_0000 + id as u64),
    };
    loop {
        let n = shared.next.fetch_add(1, Ordering::Relaxed);
        if o.duration.is_none() && n >= o.total {
            break;
        }
        if o.rps > 0 {
            let due = shared.start + Duration::from_secs_f64(n as f64 / o.rps as f64);
            if shared.deadline.is_some_and(|d| due >= d) {
                break;
            }
            tokio::time::sleep_until(due.into()).await;
        }
        if shared.deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        ctx.request_number = n;
        let message = o.data.request(&mut ctx)?;
        let began = Instant::now();
        let result = caller
            .call(message, &shared.metadata, o.timeout, o.stream)
            .await;
        let latency = began.elapsed();
        if shared.completed.fetch_add(1, Ordering::Relaxed) >= o.skip_first {
            stats.record(latency, result);
        }
    }
    Ok(stats)
}

fn report(options: &Options, stats: Stats, total: Duration, end_reason: &str) -> Report {
    let latencies = Latencies {
        fastest: if stats.ok.is_empty() {
            0
        } else {
            stats.fastest
        },
        slowest: stats.slowest,
        histogram: stats.ok,
    };
    let total_ns = total.as_nanos() as u64;
    Report {
        name: options.name.clone(),
        end_reason: end_reason.to_string(),
        options: ReportOptions {
            host: options.host.clone(),
            call: options.method.to_string(),
            insecure: options.tls.is_none(),
            total: options.total,
            concurrency: options.concurrency as u64,
            connections: options.connections as u64,
            rps: options.rps,
            duration: options.duration.map_or(0, |d| d.as_nanos() as u64),
            timeout: options.timeout.as_nanos() as u64,
            skip_first: options.skip_first,
            data: options.data_json.clone(),
            metadata: options.metadata.clone(),
        },
        date: rfc3339(SystemTime::now()),
        count: stats.count,
        total: total_ns,
        average: if stats.count == 0 {
            0
        } else {
            (stats.sum_ns / u128::from(stats.count)) as u64
        },
        fastest: latencies.fastest,
        slowest: latencies.slowest,
        rps: if total_ns == 0 {
            0.0
        } else {
            stats.count as f64 / total.as_secs_f64()
        },
        error_distribution: stats.errors,
        status_code_distribution: stats.status,
        latency_distribution: percentiles(&latencies),
        histogram: buckets(&latencies),
    }
}
