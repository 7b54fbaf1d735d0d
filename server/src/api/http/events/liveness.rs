//! Whether a WebSocket subscription's client is still there.
//!
//! A gRPC stream rides an HTTP/2 connection whose keep-alive pings drop a stopped
//! peer; a WebSocket over HTTP/1.1 has only its own pings. So once the client has been
//! silent for `websocket_ping_interval` (no pong, no message of any kind) the stream
//! sends a ping, and when nothing comes back within `websocket_ping_timeout` it closes
//! the socket, which gives the subscription's stream place back. A vanished host, a
//! dropped NAT entry or a frozen process is thus dropped within interval + timeout;
//! a client that sends anything, pongs included (RFC 6455 clients answer pings on
//! their own), is never pinged more than once per interval.
//!
//! The socket's reader notes every message it reads ([`Heard`]); the stream's loop
//! waits on [`Liveness::due`] beside its other work and asks [`Liveness::check`]
//! what to do then. Nothing here runs per event.

use std::{
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use tokio::time::{Instant, Sleep};

/// When the client was last heard from, in microseconds since the socket opened:
/// written by the socket's reader, read by the stream.
#[derive(Debug)]
pub struct Heard {
    opened: Instant,
    micros: AtomicU64,
}

impl Heard {
    /// Notes a message from the client, now.
    pub fn now(&self) {
        self.micros
            .store(self.since_open(Instant::now()), Ordering::Relaxed);
    }

    fn last(&self) -> u64 {
        self.micros.load(Ordering::Relaxed)
    }

    fn since_open(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.opened).as_micros()).unwrap_or(u64::MAX)
    }

    fn at(&self, micros: u64) -> Instant {
        after(self.opened, Duration::from_micros(micros))
    }
}

/// `d` after `at`, or a far future (30 years on, as tokio's timers) for a `d` no
/// clock holds (a configured interval of `1e19s` is accepted, and must not panic).
fn after(at: Instant, d: Duration) -> Instant {
    at.checked_add(d)
        .unwrap_or_else(|| at + Duration::from_secs(86_400 * 365 * 30))
}

/// What the stream does when [`Liveness::due`] fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// The client spoke recently: nothing to send.
    Alive,
    /// The client has been silent for the interval: send a ping.
    Ping,
    /// Nothing came back within the timeout of the last ping: close the socket.
    Gone,
}

/// The ping schedule of one WebSocket subscription.
#[derive(Debug)]
pub struct Liveness {
    interval: Duration,
    timeout: Duration,
    heard: Arc<Heard>,
    /// When the unanswered ping went out (microseconds since open), if one did.
    pinged: Option<u64>,
    due: Pin<Box<Sleep>>,
}

impl Liveness {
    /// A schedule starting now, the opening counting as hearing from the client.
    pub fn new(interval: Duration, timeout: Duration) -> Self {
        let opened = Instant::now();
        Liveness {
            interval,
            timeout,
            heard: Arc::new(Heard {
                opened,
                micros: AtomicU64::new(0),
            }),
            pinged: None,
            due: Box::pin(tokio::time::sleep_until(after(opened, interval))),
        }
    }

    /// What the socket's reader notes each message in.
    pub fn heard(&self) -> Arc<Heard> {
        Arc::clone(&self.heard)
    }

    /// Waits until a check is due; call [`Liveness::check`] then (it sets the next).
    pub async fn due(&mut self) {
        self.due.as_mut().await;
    }

    /// What to do now that a check is due, and when the next one is.
    pub fn check(&mut self) -> Check {
        let now = Instant::now();
        let last = self.heard.last();
        if let Some(pinged) = self.pinged.take()
            && last < pinged
        {
            return Check::Gone;
        }
        let quiet_until = after(self.heard.at(last), self.interval);
        if now >= quiet_until {
            self.pinged = Some(self.heard.since_open(now));
            self.due.as_mut().reset(after(now, self.timeout));
            Check::Ping
        } else {
            self.due.as_mut().reset(quiet_until);
            Check::Alive
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INTERVAL: Duration = Duration::from_secs(20);
    const TIMEOUT: Duration = Duration::from_secs(5);

    /// Waits for the next check and answers it with the time it fired at.
    async fn next(l: &mut Liveness) -> (Check, Duration, Instant) {
        let started = Instant::now();
        l.due().await;
        let fired = Instant::now();
        (l.check(), fired - started, fired)
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_client_is_pinged_after_the_interval_and_gone_after_the_timeout() {
        let mut l = Liveness::new(INTERVAL, TIMEOUT);
        assert_eq!(next(&mut l).await.0, Check::Ping);
        let (check, waited, _) = next(&mut l).await;
        assert_eq!((check, waited), (Check::Gone, TIMEOUT));
    }

    #[tokio::test(start_paused = true)]
    async fn a_pong_within_the_timeout_keeps_it_and_the_next_ping_waits_a_whole_interval() {
        let mut l = Liveness::new(INTERVAL, TIMEOUT);
        let (check, waited, _) = next(&mut l).await;
        assert_eq!((check, waited), (Check::Ping, INTERVAL));
        tokio::time::advance(Duration::from_secs(2)).await;
        let answered = Instant::now();
        l.heard().now();
        // The timeout's check finds the answer and waits out the interval from it.
        let (check, _, fired) = next(&mut l).await;
        assert_eq!(check, Check::Alive);
        let (check, _, pinged) = next(&mut l).await;
        assert_eq!(check, Check::Ping);
        assert!(fired < pinged);
        assert_eq!(pinged - answered, INTERVAL);
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_that_talks_is_never_pinged() {
        let mut l = Liveness::new(INTERVAL, TIMEOUT);
        let heard = l.heard();
        let talker = tokio::spawn(async move {
            for _ in 0..10 {
                tokio::time::sleep(INTERVAL / 2).await;
                heard.now();
            }
        });
        let started = Instant::now();
        while started.elapsed() < INTERVAL * 5 {
            assert_eq!(next(&mut l).await.0, Check::Alive);
        }
        talker.await.expect("talker");
        let last_word = started + INTERVAL * 5;
        // Silent again: pinged one interval after its last message.
        loop {
            let (check, _, at) = next(&mut l).await;
            if check == Check::Alive {
                continue;
            }
            assert_eq!((check, at), (Check::Ping, last_word + INTERVAL));
            break;
        }
    }

    #[tokio::test(start_paused = true)]
    async fn intervals_no_clock_holds_wait_far_and_do_not_overflow() {
        let mut l = Liveness::new(Duration::MAX, Duration::MAX);
        assert_eq!(l.check(), Check::Alive);
        let idle = tokio::time::timeout(Duration::from_secs(86_400 * 365), l.due()).await;
        assert!(idle.is_err(), "no check within a year");
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_in_the_same_microsecond_as_the_ping_counts() {
        let mut l = Liveness::new(INTERVAL, TIMEOUT);
        assert_eq!(next(&mut l).await.0, Check::Ping);
        l.heard().now(); // paused time: the very instant of the ping
        assert_eq!(next(&mut l).await.0, Check::Alive);
    }
}
