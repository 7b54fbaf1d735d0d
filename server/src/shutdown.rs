//! Turning SIGINT / SIGTERM into the server's one [`CancellationToken`].

use tokio_util::sync::CancellationToken;

/// Cancels `token` on the first SIGINT (Ctrl-C) or SIGTERM.
pub fn cancel_on_signal(token: CancellationToken) {
    tokio::spawn(async move {
        let signal = tokio::select! {
            () = interrupt() => "SIGINT",
            () = terminate() => "SIGTERM",
            () = token.cancelled() => return,
        };
        tracing::info!(signal, "shutdown signal received");
        token.cancel();
    });
}

async fn interrupt() {
    if let Err(e) = tokio::signal::ctrl_c().await {
        tracing::error!(error = %e, "cannot listen for SIGINT");
        std::future::pending::<()>().await;
    }
}

#[cfg(unix)]
async fn terminate() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut sigterm) => {
            sigterm.recv().await;
        }
        Err(e) => {
            tracing::error!(error = %e, "cannot listen for SIGTERM");
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(not(unix))]
async fn terminate() {
    std::future::pending::<()>().await;
}
