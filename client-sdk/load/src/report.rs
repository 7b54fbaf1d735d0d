//! ghz's report: the JSON fields (`count`, `total`, `average`, `fastest`,
//! `slowest` in integer nanoseconds, `rps`, `latencyDistribution`,
//! `statusCodeDistribution`, `errorDistribution`, `histogram`) and the text summary.
//! Percentiles come from an HDR histogram (3 significant digits), clamped to the
//! exact fastest and slowest latencies, so they are ordered.

use std::{collections::BTreeMap, fmt::Write as _, time::SystemTime};

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// The percentiles of `latencyDistribution`.
pub const PERCENTILES: [f64; 8] = [10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9];

/// One percentile: `latency` in nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    pub percentage: f64,
    pub latency: u64,
}

/// One histogram bucket: the results up to `mark` seconds (and above the previous).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bucket {
    pub mark: f64,
    pub count: u64,
    pub frequency: f64,
}

/// The settings of the run, as ghz's `options`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportOptions {
    pub host: String,
    pub call: String,
    pub insecure: bool,
    pub total: u64,
    pub concurrency: u64,
    pub connections: u64,
    pub rps: u64,
    /// Nanoseconds, 0 when unset.
    pub duration: u64,
    pub timeout: u64,
    #[serde(rename = "skipFirst")]
    pub skip_first: u64,
    pub data: serde_json::Value,
    pub metadata: BTreeMap<String, String>,
}

/// A finished run, in ghz's JSON layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `normal`, `timeout` (the duration elapsed) or `max-duration`.
    pub end_reason: String,
    pub options: ReportOptions,
    /// RFC 3339, UTC.
    pub date: String,
    /// Results reported (after `skipFirst`), successful or not.
    pub count: u64,
    /// Wall time of the run, nanoseconds.
    pub total: u64,
    /// Mean latency of all results, nanoseconds.
    pub average: u64,
    /// Fastest and slowest successful result, nanoseconds.
    pub fastest: u64,
    pub slowest: u64,
    pub rps: f64,
    pub error_distribution: BTreeMap<String, u64>,
    pub status_code_distribution: BTreeMap<String, u64>,
    pub latency_distribution: Vec<Percentile>,
    pub histogram: Vec<Bucket>,
}

/// The latencies of the successful results, for the report.
#[derive(Debug, Clone)]
pub struct Latencies {
    pub histogram: Histogram<u64>,
    pub fastest: u64,
    pub slowest: u64,
}

/// The percentiles of `lat`.
pub fn percentiles(lat: &Latencies) -> Vec<Percentile> {
    if lat.histogram.is_empty() {
        return Vec::new();
    }
    PERCENTILES
        .iter()
        .map(|&p| Percentile {
            percentage: p,
            latency: lat
                .histogram
                .value_at_quantile(p / 100.0)
                .clamp(lat.fastest, lat.slowest),
        })
        .collect()
}

/// ghz's histogram: 11 marks from fastest to slowest in equal steps.
pub fn buckets(lat: &Latencies) -> Vec<Bucket> {
    let n = lat.histogram.len();
    if n == 0 {
        return Vec::new();
    }
    let (lo, hi) = (lat.fastest as f64, lat.slowest as f64);
    let step = (hi - lo) / 10.0;
    let marks: Vec<f64> = (0..=10)
        .map(|i| if i == 10 { hi } else { lo + step * i as f64 })
        .collect();
    let mut counts = [0u64; 11];
    for v in lat.histogram.iter_recorded() {
        let value = (v.value_iterated_to() as f64).clamp(lo, hi);
        let i = marks.iter().position(|&m| value <= m).unwrap_or(10);
        counts[i] += v.count_since_last_iteration();
    }
    marks
        .iter()
        .zip(counts)
        .map(|(&mark, count)| Bucket {
            mark: mark / 1e9,
            count,
            frequency: count as f64 / n as f64,
        })
        .collect()
}

/// `now` as RFC 3339 UTC (`2025-01-31T12:34:56Z`).
pub fn rfc3339(now: SystemTime) -> String {
    let secs = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn ms(ns: u64) -> String {
    format!("{:.2}", ns as f64 / 1e6)
}

impl Report {
    /// ghz's text summary.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "\nSummary:");
        if let Some(name) = &self.name {
            let _ = writeln!(s, "  Name:\t{name}");
        }
        let _ = writeln!(s, "  Count:\t{}", self.count);
        let _ = writeln!(s, "  Total:\t{} ms", ms(self.total));
        let _ = writeln!(s, "  Slowest:\t{} ms", ms(self.slowest));
        let _ = writeln!(s, "  Fastest:\t{} ms", ms(self.fastest));
        let _ = writeln!(s, "  Average:\t{} ms", ms(self.average));
        let _ = writeln!(s, "  Requests/sec:\t{:.2}", self.rps);
        let _ = writeln!(s, "\nResponse time histogram:");
        let max = self.histogram.iter().map(|b| b.count).max().unwrap_or(0);
        for b in &self.histogram {
            let bar = (b.count * 40 + max / 2).checked_div(max).unwrap_or(0);
            let _ = writeln!(
                s,
                "  {:.3} [{}]\t|{}",
                b.mark * 1000.0,
                b.count,
                "∎".repeat(bar as usize)
            );
        }
        let _ = writeln!(s, "\nLatency distribution:");
        for p in &self.latency_distribution {
            let _ = writeln!(s, "  {} % in {} ms ", p.percentage, ms(p.latency));
        }
        let _ = writeln!(s, "\nStatus code distribution:");
        for (code, n) in &self.status_code_distribution {
            let _ = writeln!(s, "  [{code}]\t{n} responses");
        }
        if !self.error_distribution.is_empty() {
            let _ = writeln!(s, "\nError distribution:");
            for (e, n) in &self.error_distribution {
                let _ = writeln!(s, "  [{n}]\t{e}");
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latencies(values: &[u64]) -> Latencies {
        let mut histogram = Histogram::new(3).unwrap();
        for &v in values {
            histogram.record(v).unwrap();
        }
        Latencies {
            histogram,
            fastest: *values.iter().min().unwrap(),
            slowest: *values.iter().max().unwrap(),
        }
    }

    #[test]
    fn percentiles_and_buckets_of_a_known_distribution() {
        // 1..=1000 microseconds, one each.
        let values: Vec<u64> = (1..=1000).map(|i| i * 1000).collect();
        let lat = latencies(&values);
        let p = percentiles(&lat);
        let want = [100.0, 250.0, 500.0, 750.0, 900.0, 950.0, 990.0, 999.0];
        for (p, want) in p.iter().zip(want) {
            // Within the histogram's 3 significant digits.
            let got = p.latency as f64 / 1000.0;
            assert!(
                (got - want).abs() <= want * 1e-3 + 0.5,
                "{p:?}: want {want} us"
            );
        }
        assert!(p.windows(2).all(|w| w[0].latency <= w[1].latency));
        let b = buckets(&lat);
        assert_eq!(b.len(), 11);
        assert_eq!(b.iter().map(|b| b.count).sum::<u64>(), 1000);
        assert_eq!(b[0].count, 1);
        assert_eq!(b[0].mark, 0.001 / 1000.0);
        assert_eq!(b[10].mark, 1.0e-3);
        // A step of 99.9 us: about a hundred results per bucket.
        assert!(
            b[1..].iter().all(|b| (95..=105).contains(&b.count)),
            "{b:?}"
        );
    }

    #[test]
    fn dates_are_rfc3339() {
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        assert_eq!(rfc3339(t), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }
}
