//! Exponential backoff for idempotent calls, on the failures
//! [`ClientError::is_transient`] names (unavailable, deadline exceeded, aborted).

use std::{future::Future, time::Duration};

use crate::ClientError;

/// How idempotent calls are retried after a transient failure
/// ([`ClientError::is_transient`]). Non-idempotent calls are never retried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, including the first; 1 disables retries.
    pub max_attempts: u32,
    /// Delay before the second attempt; doubled after each further failure.
    pub initial_backoff: Duration,
    /// Upper bound of one delay.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(2),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// The delay after failed attempt `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }

    /// Runs `call` until it succeeds, fails with a non-transient error, or the attempts
    /// are used up.
    pub(crate) async fn run<T, F, Fut>(
        &self,
        what: &'static str,
        mut call: F,
    ) -> Result<T, ClientError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ClientError>>,
    {
        let mut attempt = 1;
        loop {
            match call().await {
                Err(e) if e.is_transient() && attempt < self.max_attempts => {
                    let delay = self.backoff(attempt);
                    tracing::debug!(call = what, attempt, ?delay, error = %e, "retrying");
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
                result => return result,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let p = RetryPolicy {
            max_attempts: 10,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(500),
        };
        let delays: Vec<_> = (1..=5).map(|a| p.backoff(a).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 500, 500]);
    }

    #[tokio::test(start_paused = true)]
    async fn retries_transient_failures_only() {
        let calls = AtomicU32::new(0);
        let p = RetryPolicy::default();
        let r: Result<u32, _> = p
            .run("t", || async {
                let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                if n < 3 {
                    Err(ClientError::Unavailable("down".into()))
                } else {
                    Ok(n)
                }
            })
            .await;
        assert_eq!(r, Ok(3));
        calls.store(0, Ordering::SeqCst);
        let r: Result<u32, _> = p
            .run("t", || async {
                calls.fetch_add(1, Ordering::SeqCst);
                Err(ClientError::NotFound("w".into()))
            })
            .await;
        assert_eq!(r, Err(ClientError::NotFound("w".into())));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        calls.store(0, Ordering::SeqCst);
        let r: Result<u32, _> = p
            .run("t", || async {
                calls.fetch_add(1, Ordering::SeqCst);
                Err(ClientError::Unavailable("down".into()))
            })
            .await;
        assert!(r.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), p.max_attempts);
    }

    #[tokio::test(start_paused = true)]
    async fn aborted_and_failed_precondition_differ() {
        let calls = AtomicU32::new(0);
        let p = RetryPolicy::default();
        let r: Result<u32, _> = p
            .run("t", || async {
                let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                if n < 2 {
                    Err(ClientError::Aborted("lost the race".into()))
                } else {
                    Ok(n)
                }
            })
            .await;
        assert_eq!(r, Ok(2), "an aborted read is tried again");
        calls.store(0, Ordering::SeqCst);
        let r: Result<u32, _> = p
            .run("t", || async {
                calls.fetch_add(1, Ordering::SeqCst);
                Err(ClientError::FailedPrecondition("owned".into()))
            })
            .await;
        assert!(matches!(r, Err(ClientError::FailedPrecondition(_))));
        assert_eq!(calls.load(Ordering::SeqCst), 1, "a conflict is not");
    }
}
