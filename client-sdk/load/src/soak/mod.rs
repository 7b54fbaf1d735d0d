//! `terrain-soak`: a long mixed load against a real server, checked at the end.
//!
//! The driver starts the server itself (`--server-bin`, a fresh data directory) or
//! attaches to one (`--url`, `--pid`), then runs for `--duration`: `GetHeight`
//! queries, `GetHeights` batches, tile meshes, zone churn (register, replace,
//! remove), `--subscribers` event subscribers and `--viewers` viewers moving over
//! `TrackViewers` streams. Every `--interval` it prints a table row: count, p50
//! and p99 per call kind, events received, errors so far, and the server's resident
//! memory (`VmRSS`). At the end it fails the run unless
//!
//! - no call, stream or event failed (zero errors);
//! - the resident memory after `--warmup` stayed within `--rss-tolerance` (10 %):
//!   its largest sample at most that much above its smallest;
//! - the zones the server lists equal the start-up zones plus the driver's own
//!   record of every acknowledged change (nothing lost, nothing extra), and the
//!   world's revision is the start revision plus the acknowledged changes (each
//!   change takes one revision);
//! - every subscriber received each of those revisions once, in order.
//!
//! - `stats`: histograms per kind and interval, the table;
//! - `server`: starting or attaching to the server, `VmRSS`;
//! - `workload`: the tasks and the zone record.

pub mod server;
pub mod stats;
pub mod workload;

use std::{
    collections::BTreeMap,
    path::PathBuf,
    sync::{Arc, atomic::Ordering},
    time::{Duration, Instant},
};

use clap::Parser;
use terrain_client::{FlatZone, TerrainClient};

use crate::options::parse_duration;
use server::Target;
use stats::{Stats, header, line};
use workload::{Seen, Shared, WORLD};

/// `terrain-soak`'s flags.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "terrain-soak",
    about = "A long mixed load against a real terrain server, checked at the end",
    version
)]
pub struct SoakCli {
    /// Start this terrain-server binary (fresh data directory, free loopback port).
    #[arg(long, conflicts_with_all = ["url", "pid"])]
    pub server_bin: Option<PathBuf>,
    /// Where the started server keeps its data and log [default: a temporary directory].
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// URL of a running server (with --pid) instead of --server-bin.
    #[arg(long, requires = "pid")]
    pub url: Option<String>,
    /// Process id of that server, for its resident memory.
    #[arg(long, requires = "url")]
    pub pid: Option<u32>,
    /// Admin token (mutations and TrackViewers); a started server gets this one.
    #[arg(long, default_value = "soak-token")]
    pub admin_token: String,
    /// How long the load runs (Go duration: 30m, 2m, 90s).
    #[arg(long, default_value = "30m")]
    pub duration: String,
    /// How often a table row is printed.
    #[arg(long, default_value = "60s")]
    pub interval: String,
    /// Resident memory before this is warm-up, not checked [default: a fifth of --duration].
    #[arg(long)]
    pub warmup: Option<String>,
    /// Largest allowed growth of resident memory after warm-up (0.10: 10 %).
    #[arg(long, default_value_t = 0.10)]
    pub rss_tolerance: f64,
    /// Event subscribers (gRPC Subscribe, resuming).
    #[arg(long, default_value_t = 200)]
    pub subscribers: usize,
    /// Moving viewers (TrackViewers, 20 per stream).
    #[arg(long, default_value_t = 200)]
    pub viewers: usize,
    /// GetHeight calls per second.
    #[arg(long, default_value_t = 200)]
    pub height_rate: u32,
    /// GetHeights batches per second, of --batch-points points.
    #[arg(long, default_value_t = 10)]
    pub batch_rate: u32,
    #[arg(long, default_value_t = 1000)]
    pub batch_points: usize,
    /// Tile meshes per second.
    #[arg(long, default_value_t = 10)]
    pub mesh_rate: u32,
    /// Zone changes per second.
    #[arg(long, default_value_t = 5)]
    pub zone_rate: u32,
}

/// Why a soak could not run, or failed its checks.
#[derive(Debug, thiserror::Error)]
pub enum SoakError {
    #[error("{key}: {reason}")]
    Invalid { key: &'static str, reason: String },
    #[error(transparent)]
    Server(#[from] server::ServerError),
    #[error("client: {0}")]
    Client(#[from] terrain_client::ClientError),
    #[error("the soak failed: {}", .0.join("; "))]
    Failed(Vec<String>),
}

fn invalid(key: &'static str, reason: impl Into<String>) -> SoakError {
    SoakError::Invalid {
        key,
        reason: reason.into(),
    }
}

/// The resolved settings.
#[derive(Debug, Clone)]
struct Plan {
    duration: Duration,
    interval: Duration,
    warmup: Duration,
}

fn plan(cli: &SoakCli) -> Result<Plan, SoakError> {
    let dur = |key: &'static str, s: &str| parse_duration(s).map_err(|e| invalid(key, e));
    let duration = dur("duration", &cli.duration)?;
    let interval = dur("interval", &cli.interval)?;
    if interval.is_zero() || interval > duration {
        return Err(invalid(
            "interval",
            "must be above 0 and at most --duration",
        ));
    }
    let warmup = match &cli.warmup {
        Some(w) => dur("warmup", w)?,
        None => duration / 5,
    };
    if warmup >= duration {
        return Err(invalid("warmup", "must be shorter than --duration"));
    }
    if !(cli.rss_tolerance.is_finite() && cli.rss_tolerance >= 0.0) {
        return Err(invalid("rss-tolerance", "must be a fraction >= 0"));
    }
    for (key, rate) in [
        ("height-rate", cli.height_rate),
        ("batch-rate", cli.batch_rate),
        ("mesh-rate", cli.mesh_rate),
        ("zone-rate", cli.zone_rate),
    ] {
        if rate == 0 {
            return Err(invalid(key, "must be at least 1"));
        }
    }
    if cli.batch_points == 0 {
        return Err(invalid("batch-points", "must be at least 1"));
    }
    Ok(Plan {
        duration,
        interval,
        warmup,
    })
}

/// The period of `rate` calls per second spread over `workers` tasks.
fn period(rate: u32, workers: u32) -> Duration {
    Duration::from_secs_f64(f64::from(workers) / f64::from(rate))
}

/// The run's figures, for the summary.
#[derive(Debug)]
pub struct Outcome {
    pub rows: Vec<String>,
    pub rss_after_warmup_kib: (u64, u64),
    pub record_zones: usize,
    pub mutations: u64,
    pub final_revision: u64,
    pub events: u64,
    pub errors: u64,
}

/// Runs the soak, printing the table as it goes; `Err(Failed)` lists every check
/// that did not hold.
pub async fn run(cli: SoakCli) -> Result<Outcome, SoakError> {
    let plan = plan(&cli)?;
    let _temp;
    let mut target = match (&cli.server_bin, &cli.url, cli.pid) {
        (Some(bin), _, _) => {
            let dir = match &cli.data_dir {
                Some(d) => d.clone(),
                None => {
                    let t = tempfile::tempdir()
                        .map_err(|e| invalid("data-dir", format!("a temporary directory: {e}")))?;
                    let p = t.path().to_path_buf();
                    _temp = t;
                    p
                }
            };
            Target::spawn(bin, &dir, &cli.admin_token)?
        }
        (None, Some(url), Some(pid)) => {
            Target::attach(url.clone(), pid, Some(cli.admin_token.clone()))
        }
        _ => {
            return Err(invalid(
                "server-bin",
                "give --server-bin, or --url with --pid",
            ));
        }
    };
    target.wait_ready(Duration::from_secs(120)).await?;
    let result = drive(&cli, &plan, &target).await;
    target.stop();
    result
}

/// Runs the soak against `target`: the load started ([`start_load`]), the table
/// printed every interval while it runs ([`watch`]), then stopped and every
/// subscriber brought to the final revision ([`stop_load`]), checked ([`verify`]) and
/// summed up ([`print_totals`]).
async fn drive(cli: &SoakCli, plan: &Plan, target: &Target) -> Result<Outcome, SoakError> {
    let mut probe = target.client().await?;
    let start_list = probe.list_flat_zones(WORLD).await?;
    let base_revision = start_list.revision;
    let start_zones: BTreeMap<String, FlatZone> = start_list
        .zones
        .into_iter()
        .filter(|e| !e.zone.id.starts_with("soak-"))
        .map(|e| (e.zone.id.clone(), e.zone))
        .collect();
    let load = start_load(cli, target, base_revision).await?;
    let (rows, rss_samples) = watch(plan, target, &load.shared).await?;
    let shared = Arc::clone(&load.shared);
    let (record, final_list, seen) = stop_load(load, &mut probe).await?;
    let end = End {
        base_revision,
        start_zones,
        record: &record,
        final_list: &final_list,
        seen: &seen,
        rss_samples: &rss_samples,
    };
    let failures = verify(cli, &shared, &end);
    let errors = shared.stats.error_count();
    let (lo, hi) = rss_range(&rss_samples);
    print_totals(&shared, &end);
    if !failures.is_empty() {
        return Err(SoakError::Failed(failures));
    }
    println!("soak passed");
    Ok(Outcome {
        rows,
        rss_after_warmup_kib: (lo, hi),
        record_zones: record.zones.len(),
        mutations: record.mutations,
        final_revision: final_list.revision,
        events: shared.stats.event_count(),
        errors,
    })
}

/// The load while it runs: its shared state and the tasks that make it.
struct Load {
    shared: Arc<Shared>,
    /// Tells the subscribers the final revision once the load has stopped.
    until_tx: tokio::sync::watch::Sender<Option<u64>>,
    subs: Vec<tokio::task::JoinHandle<Seen>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    churn: tokio::task::JoinHandle<workload::ZoneRecord>,
}

/// Starts every part of the load: subscribers from `base_revision`, viewers, height,
/// batch and mesh queries, and the zone churn.
async fn start_load(cli: &SoakCli, target: &Target, base_revision: u64) -> Result<Load, SoakError> {
    let shared = Arc::new(Shared {
        stats: Stats::new(),
        stop: Default::default(),
    });
    let (until_tx, until_rx) = tokio::sync::watch::channel(None::<u64>);

    // Subscribers: 20 per connection (the server allows 100 streams per connection).
    let mut subs = Vec::new();
    let mut sub_client: Option<TerrainClient> = None;
    for i in 0..cli.subscribers {
        if i % 20 == 0 {
            sub_client = Some(target.client().await?);
        }
        let Some(c) = &sub_client else { continue };
        let sub = c
            .subscription(WORLD)
            .from_revision(base_revision)
            .open()
            .await?;
        subs.push(tokio::spawn(workload::subscriber(
            sub,
            Arc::clone(&shared),
            until_rx.clone(),
            base_revision,
        )));
    }
    // Viewers: 20 per TrackViewers stream, each stream on its own connection.
    let mut tasks = Vec::new();
    let mut remaining = cli.viewers;
    let mut group = 0;
    while remaining > 0 {
        let n = remaining.min(20);
        tasks.push(tokio::spawn(workload::viewers(
            target.client().await?,
            Arc::clone(&shared),
            group,
            n,
            Duration::from_secs(1),
        )));
        remaining -= n;
        group += 1;
    }
    // Queries: four height workers, one batch, one mesh worker on two connections.
    let (q1, q2) = (target.client().await?, target.client().await?);
    for w in 0..4u64 {
        let c = if w % 2 == 0 { q1.clone() } else { q2.clone() };
        tasks.push(tokio::spawn(workload::heights(
            c,
            Arc::clone(&shared),
            period(cli.height_rate, 4),
            0x5eed + w,
        )));
    }
    tasks.push(tokio::spawn(workload::batches(
        q1.clone(),
        Arc::clone(&shared),
        period(cli.batch_rate, 1),
        cli.batch_points,
        0xba7c,
    )));
    tasks.push(tokio::spawn(workload::meshes(
        q2.clone(),
        Arc::clone(&shared),
        period(cli.mesh_rate, 1),
        4,
        0x3e5,
    )));
    let churn = tokio::spawn(workload::churn(
        target.client().await?,
        Arc::clone(&shared),
        period(cli.zone_rate, 1),
        40,
        0xc4u64,
    ));

    Ok(Load {
        shared,
        until_tx,
        subs,
        tasks,
        churn,
    })
}

/// Prints the table's header and a row every interval until the plan's duration is
/// up: the rows, and the resident set sampled after the warm-up.
async fn watch(
    plan: &Plan,
    target: &Target,
    shared: &Shared,
) -> Result<(Vec<String>, Vec<u64>), SoakError> {
    let began = Instant::now();
    let mut rows = vec![header()];
    println!("{}", rows[0]);
    let mut rss_samples = Vec::new();
    let mut tick = tokio::time::interval_at((began + plan.interval).into(), plan.interval);
    loop {
        tick.tick().await;
        let at = began.elapsed();
        let rss = target.rss_kib()?;
        if at >= plan.warmup {
            rss_samples.push(rss);
        }
        let row = line(
            at,
            &shared.stats.take_interval(),
            shared.stats.event_count(),
            shared.stats.error_count(),
            rss,
        );
        println!("{row}");
        rows.push(row);
        if at + plan.interval / 2 >= plan.duration {
            break;
        }
    }

    Ok((rows, rss_samples))
}

/// Stops the load (every task finishes the call it is in), reads the final zone list
/// and waits for every subscriber to reach its revision.
async fn stop_load(
    load: Load,
    probe: &mut TerrainClient,
) -> Result<(workload::ZoneRecord, terrain_client::ZoneList, Vec<Seen>), SoakError> {
    let Load {
        shared,
        until_tx,
        subs,
        tasks,
        churn,
    } = load;
    shared.stop.store(true, Ordering::Relaxed);
    for t in tasks {
        if t.await.is_err() {
            shared.stats.error("a load task panicked");
        }
    }
    let record = churn
        .await
        .map_err(|_| SoakError::Failed(vec!["the zone churn task panicked".into()]))?;
    let final_list = probe.list_flat_zones(WORLD).await?;
    let _ = until_tx.send(Some(final_list.revision));
    let mut seen: Vec<Seen> = Vec::new();
    for s in subs {
        match tokio::time::timeout(Duration::from_secs(60), s).await {
            Ok(Ok(v)) => seen.push(v),
            Ok(Err(_)) => shared.stats.error("a subscriber panicked"),
            Err(_) => shared
                .stats
                .error("a subscriber did not reach the final revision in 60 s"),
        }
    }
    Ok((record, final_list, seen))
}

/// What the run ended with, for [`verify`] and [`print_totals`].
struct End<'a> {
    base_revision: u64,
    start_zones: BTreeMap<String, FlatZone>,
    record: &'a workload::ZoneRecord,
    final_list: &'a terrain_client::ZoneList,
    seen: &'a [Seen],
    rss_samples: &'a [u64],
}

/// The lowest and highest resident set sampled (0 when none).
fn rss_range(samples: &[u64]) -> (u64, u64) {
    (
        samples.iter().copied().min().unwrap_or(0),
        samples.iter().copied().max().unwrap_or(0),
    )
}

/// The soak's checks: the zones equal the start-up zones plus the churn's record, one
/// revision per acknowledged change, every subscriber saw each revision once, the
/// resident set stayed within the tolerance after the warm-up, and no errors.
fn verify(cli: &SoakCli, shared: &Shared, end: &End<'_>) -> Vec<String> {
    let (base_revision, record, final_list, seen) =
        (end.base_revision, end.record, end.final_list, end.seen);
    let start_zones = end.start_zones.clone();
    let rss_samples = end.rss_samples;
    let mut failures = Vec::new();
    // Zones: the server's list against start-up zones plus the record.
    let mut expected = start_zones;
    expected.extend(record.zones.clone());
    let got: BTreeMap<String, FlatZone> = final_list
        .zones
        .iter()
        .map(|e| (e.zone.id.clone(), e.zone.clone()))
        .collect();
    let lost: Vec<&String> = expected.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<&String> = got.keys().filter(|k| !expected.contains_key(*k)).collect();
    let differ: Vec<&String> = expected
        .iter()
        .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
        .map(|(k, _)| k)
        .collect();
    if !lost.is_empty() || !extra.is_empty() || !differ.is_empty() {
        failures.push(format!(
            "zones differ from the record: lost {lost:?}, extra {extra:?}, changed {differ:?}"
        ));
    }
    if final_list.revision != base_revision + record.mutations {
        failures.push(format!(
            "revision {} is not the start revision {base_revision} + {} acknowledged changes",
            final_list.revision, record.mutations
        ));
    }
    let want_events = final_list.revision - base_revision;
    let short = seen
        .iter()
        .filter(|s| s.events != want_events || s.last_revision != final_list.revision)
        .count();
    if short > 0 || seen.len() != cli.subscribers {
        failures.push(format!(
            "{short} of {} subscribers did not get each of the {want_events} revisions once ({} finished)",
            cli.subscribers,
            seen.len()
        ));
    }
    let (lo, hi) = rss_range(rss_samples);
    if rss_samples.is_empty() {
        failures.push("no resident memory sample after the warm-up".into());
    } else if (hi as f64) > lo as f64 * (1.0 + cli.rss_tolerance) {
        failures.push(format!(
            "resident memory after warm-up grew from {lo} KiB to {hi} KiB (more than {:.0} %)",
            cli.rss_tolerance * 100.0
        ));
    }
    let errors = shared.stats.error_count();
    if errors > 0 {
        failures.push(format!(
            "{errors} errors, the first: {:?}",
            shared.stats.kept_errors()
        ));
    }

    failures
}

/// The totals: each call kind's count and percentiles, the zone changes, the events
/// and the resident set.
fn print_totals(shared: &Shared, end: &End<'_>) {
    let (base_revision, record, final_list, seen) =
        (end.base_revision, end.record, end.final_list, end.seen);
    let rss_samples = end.rss_samples;
    let (lo, hi) = rss_range(rss_samples);
    let errors = shared.stats.error_count();
    let want_events = final_list.revision - base_revision;
    println!("\ntotals:");
    for (k, r) in shared.stats.totals() {
        println!(
            "  {k}: {} calls, p50 {} ms, p99 {} ms",
            r.count,
            stats::ms(r.p50),
            stats::ms(r.p99)
        );
    }
    println!(
        "  zones: {} acknowledged changes ({} registered, {} replaced, {} removed), {} soak zones at the end, revision {} (start {base_revision})",
        record.mutations,
        record.registered,
        record.replaced,
        record.removed,
        record.zones.len(),
        final_list.revision
    );
    println!(
        "  events: {} delivered to {} subscribers ({want_events} each); viewer updates: {}",
        shared.stats.event_count(),
        seen.len(),
        shared.stats.viewer_update_count()
    );
    println!(
        "  RSS after warm-up: {:.1}..{:.1} MiB ({} samples, {:+.1} %); errors: {errors}",
        lo as f64 / 1024.0,
        hi as f64 / 1024.0,
        rss_samples.len(),
        if lo == 0 {
            0.0
        } else {
            (hi as f64 / lo as f64 - 1.0) * 100.0
        }
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(args: &[&str]) -> SoakCli {
        SoakCli::parse_from(std::iter::once("terrain-soak").chain(args.iter().copied()))
    }

    #[test]
    fn settings_are_checked_naming_the_flag() {
        let p = plan(&cli(&[
            "--server-bin",
            "x",
            "--duration",
            "2m",
            "--interval",
            "20s",
        ]))
        .unwrap();
        assert_eq!(
            (p.duration, p.interval, p.warmup),
            (
                Duration::from_secs(120),
                Duration::from_secs(20),
                Duration::from_secs(24)
            )
        );
        let bad = |args: &[&str]| plan(&cli(args)).unwrap_err().to_string();
        assert!(bad(&["--duration", "2 weeks"]).starts_with("duration:"));
        assert!(bad(&["--duration", "1m", "--interval", "2m"]).starts_with("interval:"));
        assert!(bad(&["--duration", "1m", "--warmup", "1m"]).starts_with("warmup:"));
        assert!(bad(&["--zone-rate", "0"]).starts_with("zone-rate:"));
        assert!(bad(&["--rss-tolerance=-1"]).starts_with("rss-tolerance:"));
        assert_eq!(period(200, 4), Duration::from_millis(20));
    }
}
