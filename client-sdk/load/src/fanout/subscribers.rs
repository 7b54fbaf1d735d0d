//! The subscribers: WebSocket and gRPC readers that record when each event arrived,
//! by revision, in one shared [`Arrivals`].

use std::{
    collections::BTreeMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Instant,
};

use anyhow::Context as _;
use futures::{StreamExt as _, TryStreamExt as _};
use terrain_client::{Area, ClientBuilder, StreamMessage};
use tokio::{sync::Notify, task::JoinHandle};
use tokio_tungstenite::tungstenite::{Message, protocol::WebSocketConfig};

/// The WebSocket client's read buffer. tungstenite zero-fills the spare capacity of
/// its read buffer before every read; at its 128 KiB default, a thousand sockets each
/// reading one small frame per event spend more time clearing memory than reading.
const READ_BUFFER_BYTES: usize = 4096;

/// When each subscriber received each revision's event, in nanoseconds since the
/// run started.
#[derive(Debug)]
pub struct Arrivals {
    start: Instant,
    /// Subscribers that must receive an event before it is complete.
    expected: usize,
    state: Mutex<State>,
    /// Woken when a revision is complete or a subscriber ends.
    complete: Notify,
    /// Events of revisions already collected (or never waited for).
    strays: AtomicU64,
    /// Subscribers whose stream ended or that were told to resync.
    lost: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    by_revision: BTreeMap<u64, Vec<u64>>,
    /// The last revision collected by [`Arrivals::wait`].
    collected: u64,
}

impl Arrivals {
    /// Arrivals of `expected` subscribers.
    pub fn new(expected: usize) -> Self {
        Arrivals {
            start: Instant::now(),
            expected,
            state: Mutex::new(State::default()),
            complete: Notify::new(),
            strays: AtomicU64::new(0),
            lost: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Nanoseconds since the run started.
    pub fn now_ns(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    /// One subscriber received `revision`'s event now.
    pub fn record(&self, revision: u64) {
        let at = self.now_ns();
        let mut state = self.lock();
        if revision <= state.collected {
            self.strays.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let times = state.by_revision.entry(revision).or_default();
        times.push(at);
        if times.len() == self.expected {
            self.complete.notify_one();
        }
    }

    /// A subscriber ended or must resync: it will receive nothing more.
    pub fn lose(&self) {
        self.lost.fetch_add(1, Ordering::Relaxed);
        self.complete.notify_one();
    }

    /// Waits until every subscriber received `revision`'s event; answers the arrival
    /// times. Arrivals of earlier revisions never waited for count as strays.
    pub async fn wait(&self, revision: u64) -> anyhow::Result<Vec<u64>> {
        loop {
            {
                let mut state = self.lock();
                if state
                    .by_revision
                    .get(&revision)
                    .is_some_and(|t| t.len() >= self.expected)
                {
                    let mut later = state.by_revision.split_off(&revision);
                    let earlier: usize = state.by_revision.values().map(Vec::len).sum();
                    self.strays.fetch_add(earlier as u64, Ordering::Relaxed);
                    let times = later.remove(&revision).unwrap_or_default();
                    state.by_revision = later;
                    state.collected = revision;
                    return Ok(times);
                }
            }
            let lost = self.lost.load(Ordering::Relaxed);
            if lost > 0 {
                anyhow::bail!("{lost} subscribers ended or were told to resync");
            }
            self.complete.notified().await;
        }
    }

    /// Subscribers that received `revision`'s event so far.
    pub fn count(&self, revision: u64) -> usize {
        self.lock().by_revision.get(&revision).map_or(0, Vec::len)
    }

    /// Events received for revisions this run did not wait for.
    pub fn strays(&self) -> u64 {
        self.strays.load(Ordering::Relaxed)
    }
}

/// The revision of a JSON event frame (`{"type":"event","world":...,"revision":N,...}`),
/// found without parsing the rest; `None` for any other frame.
pub fn event_revision(text: &str) -> Option<u64> {
    if !text.starts_with(r#"{"type":"event""#) {
        return None;
    }
    const KEY: &str = r#""revision":"#;
    let at = text.find(KEY)? + KEY.len();
    let digits = &text[at..];
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse().ok()
}

/// Opens `n` WebSocket subscriptions to `url`, `concurrency` at a time, each read by
/// a task of its own.
pub async fn open_ws(
    url: &str,
    n: usize,
    concurrency: usize,
    arrivals: &Arc<Arrivals>,
) -> anyhow::Result<Vec<JoinHandle<()>>> {
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER_BYTES);
    futures::stream::iter(0..n)
        .map(|i| async move {
            let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true)
                .await
                .with_context(|| format!("WebSocket {} of {n}: {url}", i + 1))?;
            let arrivals = Arc::clone(arrivals);
            Ok::<_, anyhow::Error>(tokio::spawn(async move {
                let mut ws = ws;
                while let Some(frame) = ws.next().await {
                    match frame {
                        Ok(Message::Text(text)) => match event_revision(text.as_str()) {
                            Some(revision) => arrivals.record(revision),
                            // An area acknowledgement never comes unasked; a resync does.
                            None => break,
                        },
                        Ok(Message::Close(_)) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
                arrivals.lose();
            }))
        })
        .buffer_unordered(concurrency)
        .try_collect()
        .await
}

/// Opens `n` gRPC `Subscribe` streams to `url`, `per_connection` to one HTTP/2
/// connection, each read by a task of its own.
pub async fn open_grpc(
    url: &str,
    world: &str,
    n: usize,
    per_connection: usize,
    token: Option<&str>,
    arrivals: &Arc<Arrivals>,
) -> anyhow::Result<Vec<JoinHandle<()>>> {
    let mut builder = ClientBuilder::new(url);
    if let Some(token) = token {
        builder = builder.bearer_token(token);
    }
    let mut readers = Vec::with_capacity(n);
    while readers.len() < n {
        let mut client = builder
            .clone()
            .connect()
            .await
            .with_context(|| format!("gRPC connection to {url}"))?;
        for _ in 0..per_connection.min(n - readers.len()) {
            let mut stream = client
                .subscribe(world, Area::All, None)
                .await
                .with_context(|| format!("gRPC Subscribe {} of {n}", readers.len() + 1))?;
            let arrivals = Arc::clone(arrivals);
            readers.push(tokio::spawn(async move {
                loop {
                    match stream.next().await {
                        Ok(Some(StreamMessage::Tiles(e))) => arrivals.record(e.revision),
                        Ok(Some(StreamMessage::Subscribed { .. })) => {}
                        Ok(Some(_)) | Ok(None) | Err(_) => break,
                    }
                }
                arrivals.lose();
            }));
        }
    }
    Ok(readers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_revision_is_read_from_event_frames_only() {
        let frame = r#"{"type":"event","world":"main","revision":1234,"cause":{"zone":"a","kind":"registered"}}"#;
        assert_eq!(event_revision(frame), Some(1234));
        assert_eq!(
            event_revision(r#"{"type":"event","world":"w","revision":7}"#),
            Some(7)
        );
        assert_eq!(event_revision(r#"{"type":"resync","revision":9}"#), None);
        assert_eq!(event_revision(r#"{"type":"event","world":"w"}"#), None);
        assert_eq!(
            event_revision(r#"{"type":"event","revision":"x"}"#),
            None,
            "not a number"
        );
    }

    #[tokio::test]
    async fn a_revision_completes_when_every_subscriber_has_it() {
        let arrivals = Arc::new(Arrivals::new(3));
        // An event of a revision nobody waits for, then revision 5 from all three.
        arrivals.record(4);
        for _ in 0..2 {
            arrivals.record(5);
        }
        assert_eq!(arrivals.count(5), 2);
        let waiter = {
            let arrivals = Arc::clone(&arrivals);
            tokio::spawn(async move { arrivals.wait(5).await })
        };
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        arrivals.record(5);
        let times = waiter.await.unwrap().unwrap();
        assert_eq!(times.len(), 3);
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(arrivals.strays(), 1, "revision 4 was never waited for");
        // Late copies of a collected revision are strays too.
        arrivals.record(5);
        assert_eq!(arrivals.strays(), 2);
        arrivals.record(6);
        arrivals.lose();
        let err = arrivals.wait(6).await.unwrap_err();
        assert!(err.to_string().contains("1 subscribers ended"), "{err}");
    }
}
