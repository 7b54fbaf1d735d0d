//! What the soak measures: per call kind, an HDR histogram of the current interval
//! and one of the whole run; the errors (counted, the first few kept verbatim); and
//! the interval rows printed as a table.

use std::{
    collections::BTreeMap,
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use hdrhistogram::Histogram;

/// Largest latency recorded exactly (a minute); longer ones are clamped.
const MAX_NS: u64 = 60_000_000_000;
/// Error messages kept verbatim for the summary.
const KEPT_ERRORS: usize = 20;

/// The call kinds of the soak, in the order the table shows them.
pub const KINDS: [&str; 5] = ["height", "batch", "mesh", "zone_put", "zone_del"];

/// Per kind: the histogram of the current interval and the one of the whole run.
type Histograms = BTreeMap<&'static str, (Histogram<u64>, Histogram<u64>)>;

/// Latencies and errors, shared by every task of the run.
#[derive(Debug)]
pub struct Stats {
    kinds: Mutex<Histograms>,
    errors: AtomicU64,
    kept: Mutex<Vec<String>>,
    events: AtomicU64,
    viewer_updates: AtomicU64,
}

/// p50 and p99 of one kind in one interval, and its count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KindRow {
    pub count: u64,
    pub p50: Duration,
    pub p99: Duration,
}

fn histogram() -> Histogram<u64> {
    // Constant bounds (1 ns to a minute, 3 significant digits) that are valid.
    Histogram::new_with_bounds(1, MAX_NS, 3).expect("valid histogram bounds")
}

fn row(h: &Histogram<u64>) -> KindRow {
    KindRow {
        count: h.len(),
        p50: Duration::from_nanos(h.value_at_quantile(0.50)),
        p99: Duration::from_nanos(h.value_at_quantile(0.99)),
    }
}

impl Default for Stats {
    fn default() -> Self {
        Self::new()
    }
}

impl Stats {
    pub fn new() -> Self {
        let kinds = KINDS
            .iter()
            .map(|&k| (k, (histogram(), histogram())))
            .collect();
        Stats {
            kinds: Mutex::new(kinds),
            errors: AtomicU64::new(0),
            kept: Mutex::new(Vec::new()),
            events: AtomicU64::new(0),
            viewer_updates: AtomicU64::new(0),
        }
    }

    /// Records one successful call of `kind` that took `latency`.
    pub fn ok(&self, kind: &'static str, latency: Duration) {
        let ns = (latency.as_nanos() as u64).clamp(1, MAX_NS);
        if let Ok(mut kinds) = self.kinds.lock()
            && let Some((now, all)) = kinds.get_mut(kind)
        {
            now.saturating_record(ns);
            all.saturating_record(ns);
        }
    }

    /// Counts an error, keeping its text among the first few.
    pub fn error(&self, what: impl Into<String>) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut kept) = self.kept.lock()
            && kept.len() < KEPT_ERRORS
        {
            kept.push(what.into());
        }
    }

    /// Counts `n` tile events received by subscribers.
    pub fn events(&self, n: u64) {
        self.events.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts `n` viewer position updates sent.
    pub fn viewer_updates(&self, n: u64) {
        self.viewer_updates.fetch_add(n, Ordering::Relaxed);
    }

    pub fn error_count(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }

    pub fn kept_errors(&self) -> Vec<String> {
        self.kept.lock().map(|k| k.clone()).unwrap_or_default()
    }

    pub fn event_count(&self) -> u64 {
        self.events.load(Ordering::Relaxed)
    }

    pub fn viewer_update_count(&self) -> u64 {
        self.viewer_updates.load(Ordering::Relaxed)
    }

    /// The rows of the interval now ending, per kind; starts the next interval.
    pub fn take_interval(&self) -> Vec<(&'static str, KindRow)> {
        let Ok(mut kinds) = self.kinds.lock() else {
            return Vec::new();
        };
        KINDS
            .iter()
            .filter_map(|&k| {
                let (now, _) = kinds.get_mut(k)?;
                let r = row(now);
                now.reset();
                Some((k, r))
            })
            .collect()
    }

    /// The rows of the whole run, per kind.
    pub fn totals(&self) -> Vec<(&'static str, KindRow)> {
        let Ok(kinds) = self.kinds.lock() else {
            return Vec::new();
        };
        KINDS
            .iter()
            .filter_map(|&k| Some((k, row(&kinds.get(k)?.1))))
            .collect()
    }
}

/// Milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

/// The table's header line (Markdown).
pub fn header() -> String {
    let mut h = String::from("| t | ");
    for k in KINDS {
        h.push_str(&format!("{k} n, p50/p99 ms | "));
    }
    h.push_str("events | errors | RSS MiB |");
    let cols = KINDS.len() + 4;
    h + "\n" + &"|---".repeat(cols) + "|"
}

/// One line of the table.
pub fn line(
    at: Duration,
    rows: &[(&'static str, KindRow)],
    events: u64,
    errors: u64,
    rss_kib: u64,
) -> String {
    let mut l = format!("| {}s | ", at.as_secs());
    for (_, r) in rows {
        l.push_str(&format!("{} {}/{} | ", r.count, ms(r.p50), ms(r.p99)));
    }
    l + &format!("{events} | {errors} | {:.1} |", rss_kib as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_reset_and_totals_keep_everything() {
        let s = Stats::new();
        for i in 1..=100u64 {
            s.ok("height", Duration::from_micros(i * 10));
        }
        let first = s.take_interval();
        assert_eq!(first[0].0, "height");
        assert_eq!(first[0].1.count, 100);
        let p50 = first[0].1.p50.as_micros();
        assert!((495..=505).contains(&p50), "{p50}");
        s.ok("height", Duration::from_millis(5));
        assert_eq!(s.take_interval()[0].1.count, 1);
        assert_eq!(s.totals()[0].1.count, 101);
        s.error("boom");
        assert_eq!(
            (s.error_count(), s.kept_errors()),
            (1, vec!["boom".to_string()])
        );
        assert!(header().lines().count() == 2);
    }
}
