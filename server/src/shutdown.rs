//! Shutdown: SIGINT / SIGTERM turned into the server's one [`CancellationToken`]
//! ([`cancel_on_signal`]), and [`Tasks`], the owner of every background task the
//! server starts (lifecycle workers and timers, `TrackViewers` stream readers, zone
//! statistics, metrics upkeep, the readiness reporter). Each task ends on the tasks'
//! token; at shutdown the server cancels it and waits for them, for a bounded time.

use std::{
    future::Future,
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::sync::locked;

/// Cancels `token` on the first SIGINT (Ctrl-C) or SIGTERM. The handlers are
/// installed before this returns (call it from within the runtime, before the server
/// announces its address), so a signal sent as soon as the server is seen listening
/// starts a clean shutdown instead of the default action, which ends the process.
pub fn cancel_on_signal(token: CancellationToken) {
    let signals = Signals::install();
    tokio::spawn(async move {
        let signal = tokio::select! {
            name = signals.first() => name,
            () = token.cancelled() => return,
        };
        tracing::info!(signal, "shutdown signal received");
        token.cancel();
    });
}

/// The installed handlers of the shutdown signals.
#[cfg(unix)]
struct Signals {
    interrupt: Option<tokio::signal::unix::Signal>,
    terminate: Option<tokio::signal::unix::Signal>,
}

#[cfg(unix)]
impl Signals {
    fn install() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        let install = |kind: SignalKind, name: &str| match signal(kind) {
            Ok(handler) => Some(handler),
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for {name}");
                None
            }
        };
        Signals {
            interrupt: install(SignalKind::interrupt(), "SIGINT"),
            terminate: install(SignalKind::terminate(), "SIGTERM"),
        }
    }

    /// The name of the first signal received.
    async fn first(mut self) -> &'static str {
        async fn next(handler: &mut Option<tokio::signal::unix::Signal>) {
            match handler {
                Some(handler) => {
                    handler.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            () = next(&mut self.interrupt) => "SIGINT",
            () = next(&mut self.terminate) => "SIGTERM",
        }
    }
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn install() -> Self {
        Signals
    }

    async fn first(self) -> &'static str {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
        "SIGINT"
    }
}

/// Every background task of one server, and the token they end on. Cheap to clone;
/// clones share the tasks.
#[derive(Debug, Clone, Default)]
pub struct Tasks {
    inner: Arc<TasksInner>,
}

#[derive(Debug, Default)]
struct TasksInner {
    set: Mutex<JoinSet<()>>,
    token: CancellationToken,
}

impl Tasks {
    /// No tasks yet, with a fresh token.
    pub fn new() -> Self {
        Self::default()
    }

    /// The token every task ends on; fired by [`Tasks::cancel`].
    pub fn token(&self) -> &CancellationToken {
        &self.inner.token
    }

    fn set(&self) -> MutexGuard<'_, JoinSet<()>> {
        // A panic while holding the lock leaves a usable set behind.
        locked(&self.inner.set)
    }

    /// Spawns `task`, which watches [`Tasks::token`] itself (it may clean up before
    /// it ends). Tasks that already ended are reaped here, so the set stays small.
    pub fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        let mut set = self.set();
        while let Some(done) = set.try_join_next() {
            report(done);
        }
        set.spawn(task);
    }

    /// Spawns `task`, dropped where it stands when the token fires.
    pub fn spawn_until_cancelled(&self, task: impl Future<Output = ()> + Send + 'static) {
        let token = self.token().clone();
        self.spawn(async move {
            tokio::select! {
                biased;
                () = token.cancelled() => {}
                () = task => {}
            }
        });
    }

    /// Fires the token: every task is asked to end.
    pub fn cancel(&self) {
        self.inner.token.cancel();
    }

    /// Fires the token and waits up to `timeout` for every task to end; the ones
    /// still running then are aborted. Answers how many were.
    pub async fn shutdown(&self, timeout: Duration) -> usize {
        self.cancel();
        let mut set = std::mem::take(&mut *self.set());
        let drained = tokio::time::timeout(timeout, async {
            while let Some(done) = set.join_next().await {
                report(done);
            }
        })
        .await;
        if drained.is_ok() {
            return 0;
        }
        let left = set.len();
        tracing::warn!(
            tasks = left,
            ?timeout,
            "background tasks did not end in time; aborting them"
        );
        set.shutdown().await;
        left
    }
}

/// Logs a task that panicked (an aborted one ended on purpose).
fn report(done: Result<(), tokio::task::JoinError>) {
    if let Err(err) = done
        && err.is_panic()
    {
        tracing::error!(error = %err, "background task panicked");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tasks_end_on_the_token_and_shutdown_waits_for_them() {
        let tasks = Tasks::new();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        // One cleans up after the token fires; one is dropped where it stands.
        let token = tasks.token().clone();
        let cleanup = tx.clone();
        tasks.spawn(async move {
            token.cancelled().await;
            cleanup.send("cleaned up").ok();
        });
        tasks.spawn_until_cancelled(std::future::pending());
        // Finished tasks are reaped as others are spawned.
        for _ in 0..100 {
            tasks.spawn(async {});
            tokio::task::yield_now().await;
        }
        assert!(tasks.set().len() < 10, "{}", tasks.set().len());
        assert_eq!(tasks.shutdown(Duration::from_secs(5)).await, 0);
        assert_eq!(rx.recv().await, Some("cleaned up"));
        assert!(tasks.set().is_empty());
        drop(tx);
    }

    #[tokio::test]
    async fn a_task_that_ignores_the_token_is_aborted_after_the_timeout() {
        let tasks = Tasks::new();
        tasks.spawn(std::future::pending());
        assert_eq!(tasks.shutdown(Duration::from_millis(50)).await, 1);
    }
}
