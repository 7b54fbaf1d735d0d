//! `terrain-fanout`: event fan-out measured from a process of its own.
//!
//! Opens `--ws` WebSocket subscriptions (`/v1/worlds/{world}/events`, everything) and
//! `--grpc` gRPC `Subscribe` streams (`--grpc-per-connection` to one HTTP/2
//! connection), then `PUT`s `--mutations` zones one at a time, each after the previous
//! one's event reached every subscriber, and reports per mutation the time from the
//! `PUT` being sent to its event reaching the **last** subscriber (p50, p99, max), the
//! same for every single delivery, and, given `--server-pid`, the server's CPU time
//! (`utime + stime` of `/proc/PID/stat`) over the measured mutations divided by the
//! deliveries. The client reads frames without parsing JSON beyond the `revision`
//! number, on `--threads` runtime threads, so that its own cost stays small next to
//! the server's. The zones (`fanout-0..`) are removed at the end.
//!
//! - [`subscribers`]: the WebSocket and gRPC readers and where they record arrivals;
//! - [`cpu`]: a process's CPU time from `/proc`.

pub mod cpu;
pub mod subscribers;

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::{Context as _, bail};
use clap::Parser;
use hdrhistogram::Histogram;
use serde::Serialize;
use serde_json::{Value, json};

use crate::options::parse_duration;
use subscribers::Arrivals;

/// `terrain-fanout`'s flags.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "terrain-fanout",
    about = "Event fan-out latency and server CPU per delivered event, from another process",
    version
)]
pub struct FanoutCli {
    /// The server's base URL (HTTP and gRPC share the port).
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// The world whose events are subscribed to and whose zones are put.
    #[arg(long, default_value = "main")]
    pub world: String,
    /// WebSocket subscriptions (one connection each).
    #[arg(long, default_value_t = 1000)]
    pub ws: usize,
    /// gRPC `Subscribe` streams.
    #[arg(long, default_value_t = 0)]
    pub grpc: usize,
    /// gRPC streams per HTTP/2 connection (the server allows 200 concurrent streams
    /// on one, and `max_subscriptions_per_connection`, 100 by default).
    #[arg(long, default_value_t = 100)]
    pub grpc_per_connection: usize,
    /// Measured mutations.
    #[arg(long, default_value_t = 100)]
    pub mutations: usize,
    /// Mutations before the measured ones (not measured).
    #[arg(long, default_value_t = 5)]
    pub warmup: usize,
    /// The server's process id: its CPU time per delivered event is reported.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Admin token for the zone mutations, if the server has one.
    #[arg(long, env = "TERRAIN_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Runtime threads of this client.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Measured mutations put one after another (each answered) before waiting for
    /// their events: 1 measures one event at a time, more let events queue up behind
    /// each other at every subscriber.
    #[arg(long, default_value_t = 1)]
    pub burst: usize,
    /// Pause after each mutation's (or burst's) last delivery (Go duration: 0s, 20ms).
    #[arg(long, default_value = "0s")]
    pub pause: String,
    /// How long one mutation's event may take to reach every subscriber.
    #[arg(long, default_value = "30s")]
    pub timeout: String,
    /// Subscriptions opened at once while connecting.
    #[arg(long, default_value_t = 32)]
    pub connect_concurrency: usize,
    /// Print the report as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// What a run measured.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FanoutReport {
    pub ws_subscribers: usize,
    pub grpc_subscribers: usize,
    pub mutations: usize,
    /// `PUT` sent -> the event at the last subscriber, milliseconds.
    pub last_p50_ms: f64,
    pub last_p99_ms: f64,
    pub last_max_ms: f64,
    /// `PUT` sent -> the event at one subscriber, every delivery, milliseconds.
    pub each_p50_ms: f64,
    pub each_p99_ms: f64,
    /// Events received over the measured mutations.
    pub deliveries: u64,
    /// Wall time of the measured mutations, seconds.
    pub wall_seconds: f64,
    /// The server's CPU time over the measured mutations, seconds (with `--server-pid`).
    pub server_cpu_seconds: Option<f64>,
    /// That divided by `deliveries`, microseconds.
    pub server_cpu_us_per_delivery: Option<f64>,
    /// Of which the server's own code (`utime`) and the kernel's (`stime`: system
    /// calls, and on loopback the receiving side's TCP processing), microseconds.
    pub server_user_us_per_delivery: Option<f64>,
    pub server_system_us_per_delivery: Option<f64>,
    /// This client's CPU time over the measured mutations, seconds.
    pub client_cpu_seconds: f64,
}

impl FanoutReport {
    /// The text form: one line of latency, one of CPU.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "{} WebSocket + {} gRPC subscribers, {} mutations: PUT sent -> last subscriber's event \
             p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; every delivery p50 {:.2} ms, p99 {:.2} ms\n",
            self.ws_subscribers,
            self.grpc_subscribers,
            self.mutations,
            self.last_p50_ms,
            self.last_p99_ms,
            self.last_max_ms,
            self.each_p50_ms,
            self.each_p99_ms,
        );
        let server = match (
            self.server_cpu_seconds,
            self.server_cpu_us_per_delivery,
            self.server_user_us_per_delivery,
            self.server_system_us_per_delivery,
        ) {
            (Some(s), Some(per), Some(user), Some(system)) => format!(
                "server CPU {s:.3} s, {per:.2} us per delivered event \
                 ({user:.2} us user, {system:.2} us system)"
            ),
            _ => "server CPU not measured (no --server-pid)".to_string(),
        };
        out += &format!(
            "{} deliveries in {:.2} s; {server}; client CPU {:.3} s",
            self.deliveries, self.wall_seconds, self.client_cpu_seconds
        );
        out
    }
}

/// The zone body of mutation `i`: a small raised square, a new place each time.
fn zone(i: usize) -> Value {
    let (x, z) = (
        (i % 40) as f64 * 24.0 - 480.0,
        (i / 40 % 40) as f64 * 24.0 - 480.0,
    );
    json!({"centerX": x, "centerZ": z, "width": 8.0, "depth": 8.0,
           "heightOffset": 1.0, "blendRadius": 2.0})
}

/// The zone HTTP client: `PUT`s and `DELETE`s with the admin token.
struct Zones {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
}

impl Zones {
    fn request(&self, method: reqwest::Method, id: &str) -> reqwest::RequestBuilder {
        let mut request = self.http.request(method, format!("{}/{id}", self.base));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        request
    }

    /// Registers zone `id`; answers the revision it took.
    async fn put(&self, id: &str, body: &Value) -> anyhow::Result<u64> {
        let response = self
            .request(reqwest::Method::PUT, id)
            .json(body)
            .send()
            .await
            .with_context(|| format!("PUT {}/{id}", self.base))?;
        let status = response.status();
        let answer: Value = response
            .json()
            .await
            .with_context(|| format!("PUT {id}: reading the answer"))?;
        if !status.is_success() {
            bail!("PUT {id}: {status} {answer}");
        }
        if answer["change"] == "unchanged" {
            bail!("PUT {id}: the zone was already there unchanged (no event): remove it first");
        }
        answer["revision"]
            .as_u64()
            .with_context(|| format!("PUT {id}: no revision in {answer}"))
    }

    async fn delete(&self, id: &str) -> anyhow::Result<()> {
        let response = self
            .request(reqwest::Method::DELETE, id)
            .send()
            .await
            .with_context(|| format!("DELETE {id}"))?;
        if !response.status().is_success() {
            bail!("DELETE {id}: {}", response.status());
        }
        Ok(())
    }
}

/// Milliseconds of a histogram of microseconds at quantile `q`.
fn ms(h: &Histogram<u64>, q: f64) -> f64 {
    h.value_at_quantile(q) as f64 / 1e3
}

/// Runs the measurement `cli` describes.
pub async fn run(cli: &FanoutCli) -> anyhow::Result<FanoutReport> {
    let total = cli.ws + cli.grpc;
    if total == 0 {
        bail!("--ws and --grpc: at least one subscriber is needed");
    }
    if cli.mutations == 0 {
        bail!("--mutations: at least one");
    }
    if cli.burst == 0 {
        bail!("--burst: at least one");
    }
    if cli.grpc_per_connection == 0 {
        bail!("--grpc-per-connection: at least one");
    }
    let pause = parse_duration(&cli.pause).map_err(|e| anyhow::anyhow!("--pause: {e}"))?;
    let timeout = parse_duration(&cli.timeout).map_err(|e| anyhow::anyhow!("--timeout: {e}"))?;
    let url = cli.url.trim_end_matches('/').to_string();
    let zones = Zones {
        http: reqwest::Client::new(),
        base: format!("{url}/v1/worlds/{}/flat-zones", cli.world),
        token: cli.admin_token.clone(),
    };

    let arrivals = Arc::new(Arrivals::new(total));
    let ws_url = format!(
        "{}/v1/worlds/{}/events",
        url.replacen("http", "ws", 1),
        cli.world
    );
    let mut readers =
        subscribers::open_ws(&ws_url, cli.ws, cli.connect_concurrency.max(1), &arrivals).await?;
    readers.extend(
        subscribers::open_grpc(
            &url,
            &cli.world,
            cli.grpc,
            cli.grpc_per_connection,
            cli.admin_token.as_deref(),
            &arrivals,
        )
        .await?,
    );

    let ids: Vec<String> = (0..cli.warmup + cli.mutations)
        .map(|i| format!("fanout-{i}"))
        .collect();
    let result = measure(cli, &zones, &ids, &arrivals, pause, timeout).await;
    for reader in &readers {
        reader.abort();
    }
    // Every zone this run may have put; one absent (a failed run) answers 404.
    for id in &ids {
        let _ = zones.delete(id).await;
    }
    result
}

async fn measure(
    cli: &FanoutCli,
    zones: &Zones,
    ids: &[String],
    arrivals: &Arrivals,
    pause: Duration,
    timeout: Duration,
) -> anyhow::Result<FanoutReport> {
    let total = cli.ws + cli.grpc;
    let mut last = Histogram::<u64>::new(3)?;
    let mut each = Histogram::<u64>::new(3)?;
    let mut server_cpu = None;
    let mut client_cpu = cpu::Cpu::default();
    let mut wall = Instant::now();
    let mut deliveries = 0u64;
    let mut i = 0;
    while i < ids.len() {
        let measured = i >= cli.warmup;
        if i == cli.warmup {
            if let Some(pid) = cli.server_pid {
                server_cpu = Some(cpu::Cpu::of(pid)?);
            }
            client_cpu = cpu::Cpu::of_self()?;
            wall = Instant::now();
        }
        let size = if measured { cli.burst } else { 1 }.min(ids.len() - i);
        let mut put = Vec::with_capacity(size);
        for (j, id) in ids.iter().enumerate().skip(i).take(size) {
            let sent = arrivals.now_ns();
            put.push((zones.put(id, &zone(j)).await?, sent));
        }
        for (revision, sent) in put {
            let times = tokio::time::timeout(timeout, arrivals.wait(revision))
                .await
                .with_context(|| {
                    format!(
                        "revision {revision}: {} of {total} subscribers had its event after {timeout:?}",
                        arrivals.count(revision)
                    )
                })??;
            if measured {
                let us = |t: u64| t.saturating_sub(sent) / 1000;
                last.record(us(times.iter().copied().max().unwrap_or(sent)))?;
                for &t in &times {
                    each.record(us(t))?;
                }
                deliveries += times.len() as u64;
            }
        }
        if arrivals.strays() > 0 {
            bail!(
                "{} events of revisions not put by this run arrived (another client is mutating {}?)",
                arrivals.strays(),
                cli.world
            );
        }
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        i += size;
    }
    let wall = wall.elapsed().as_secs_f64();
    let server_cpu = match (server_cpu, cli.server_pid) {
        (Some(before), Some(pid)) => Some(cpu::Cpu::of(pid)?.seconds_since(&before)),
        _ => None,
    };
    let (user, system) = cpu::Cpu::of_self()?.seconds_since(&client_cpu);
    let per_delivery = |s: f64| s * 1e6 / deliveries.max(1) as f64;
    Ok(FanoutReport {
        ws_subscribers: cli.ws,
        grpc_subscribers: cli.grpc,
        mutations: cli.mutations,
        last_p50_ms: ms(&last, 0.5),
        last_p99_ms: ms(&last, 0.99),
        last_max_ms: last.max() as f64 / 1e3,
        each_p50_ms: ms(&each, 0.5),
        each_p99_ms: ms(&each, 0.99),
        deliveries,
        wall_seconds: wall,
        server_cpu_seconds: server_cpu.map(|(u, s)| u + s),
        server_cpu_us_per_delivery: server_cpu.map(|(u, s)| per_delivery(u + s)),
        server_user_us_per_delivery: server_cpu.map(|(u, _)| per_delivery(u)),
        server_system_us_per_delivery: server_cpu.map(|(_, s)| per_delivery(s)),
        client_cpu_seconds: user + system,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_differ_and_stay_in_the_island() {
        let bodies: Vec<Value> = (0..1600).map(zone).collect();
        for (i, b) in bodies.iter().enumerate() {
            let (x, z) = (
                b["centerX"].as_f64().unwrap(),
                b["centerZ"].as_f64().unwrap(),
            );
            assert!(
                (-480.0..=456.0).contains(&x) && (-480.0..=456.0).contains(&z),
                "{i}"
            );
        }
        assert_ne!(bodies[0], bodies[1]);
        assert_ne!(bodies[0], bodies[40]);
        assert_eq!(bodies[1599]["centerX"], 456.0);
        assert_eq!(bodies[1599]["centerZ"], 456.0);
    }

    #[test]
    fn the_summary_names_every_figure() {
        let report = FanoutReport {
            ws_subscribers: 1000,
            grpc_subscribers: 0,
            mutations: 40,
            last_p50_ms: 12.5,
            last_p99_ms: 19.25,
            last_max_ms: 20.0,
            each_p50_ms: 7.0,
            each_p99_ms: 15.0,
            deliveries: 40_000,
            wall_seconds: 1.5,
            server_cpu_seconds: Some(0.2),
            server_cpu_us_per_delivery: Some(5.0),
            server_user_us_per_delivery: Some(2.0),
            server_system_us_per_delivery: Some(3.0),
            client_cpu_seconds: 0.75,
        };
        let text = report.summary();
        assert!(
            text.contains("p50 12.50 ms, p99 19.25 ms, max 20.00 ms"),
            "{text}"
        );
        assert!(
            text.contains(
                "server CPU 0.200 s, 5.00 us per delivered event (2.00 us user, 3.00 us system)"
            ),
            "{text}"
        );
        let none = FanoutReport {
            server_cpu_seconds: None,
            server_cpu_us_per_delivery: None,
            server_user_us_per_delivery: None,
            server_system_us_per_delivery: None,
            ..report
        };
        assert!(none.summary().contains("no --server-pid"));
    }
}
