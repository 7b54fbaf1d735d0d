//! The server under soak: started by the driver (`--server-bin`: a fresh data
//! directory, a free loopback port, an admin token) or an existing process
//! (`--url` and `--pid`); its resident memory read from `/proc/PID/status` (`VmRSS`).

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use terrain_client::{ClientBuilder, TerrainClient};

/// Why the server could not be started, reached or measured.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("server-bin {path}: {reason}")]
    Spawn { path: String, reason: String },
    #[error("pid {pid}: /proc/{pid}/status: {reason}")]
    Rss { pid: u32, reason: String },
    #[error("the server at {url} was not ready within {secs} s: {reason}")]
    NotReady {
        url: String,
        secs: u64,
        reason: String,
    },
}

/// A server the soak talks to.
#[derive(Debug)]
pub struct Target {
    pub url: String,
    pub pid: u32,
    pub token: Option<String>,
    child: Option<Child>,
}

/// A loopback port free at the time of asking.
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

impl Target {
    /// Starts `bin` with world `main:hyperscape:0`, its data in `data_dir`, its log in
    /// `data_dir/server.log`, a free loopback port and admin token `token`.
    pub fn spawn(bin: &Path, data_dir: &Path, token: &str) -> Result<Target, ServerError> {
        let fail = |reason: String| ServerError::Spawn {
            path: bin.display().to_string(),
            reason,
        };
        let port = free_port().map_err(|e| fail(format!("no free port: {e}")))?;
        std::fs::create_dir_all(data_dir)
            .map_err(|e| fail(format!("{}: {e}", data_dir.display())))?;
        let log = std::fs::File::create(data_dir.join("server.log"))
            .map_err(|e| fail(format!("server.log: {e}")))?;
        let child = Command::new(bin)
            .arg("--listen")
            .arg(format!("127.0.0.1:{port}"))
            .arg("--data-dir")
            .arg(data_dir.join("data"))
            .args(["--world", "main:hyperscape:0", "--admin-token", token])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| fail(e.to_string()))?;
        Ok(Target {
            url: format!("http://127.0.0.1:{port}"),
            pid: child.id(),
            token: Some(token.to_string()),
            child: Some(child),
        })
    }

    /// An already running server at `url`, process `pid`.
    pub fn attach(url: String, pid: u32, token: Option<String>) -> Target {
        Target {
            url,
            pid,
            token,
            child: None,
        }
    }

    /// A new client (its own HTTP/2 connection) with the admin token.
    pub async fn client(&self) -> Result<TerrainClient, terrain_client::ClientError> {
        let mut b = ClientBuilder::new(&self.url);
        if let Some(t) = &self.token {
            b = b.bearer_token(t);
        }
        b.connect().await
    }

    /// Waits until the server reports `SERVING`, up to `limit`.
    pub async fn wait_ready(&self, limit: Duration) -> Result<(), ServerError> {
        let start = Instant::now();
        let mut last = String::from("no answer yet");
        while start.elapsed() < limit {
            match self.client().await {
                Ok(mut c) => match c.is_serving("").await {
                    Ok(true) => return Ok(()),
                    Ok(false) => last = "not serving yet".into(),
                    Err(e) => last = e.to_string(),
                },
                Err(e) => last = e.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(ServerError::NotReady {
            url: self.url.clone(),
            secs: limit.as_secs(),
            reason: last,
        })
    }

    /// The server's resident memory, KiB.
    pub fn rss_kib(&self) -> Result<u64, ServerError> {
        rss_kib(self.pid)
    }

    /// Stops a server this driver started (SIGTERM, then SIGKILL after 15 s).
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(15) {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `VmRSS` of process `pid`, KiB.
pub fn rss_kib(pid: u32) -> Result<u64, ServerError> {
    let fail = |reason: String| ServerError::Rss { pid, reason };
    let path = PathBuf::from(format!("/proc/{pid}/status"));
    let text = std::fs::read_to_string(&path).map_err(|e| fail(e.to_string()))?;
    parse_vm_rss(&text).ok_or_else(|| fail("no VmRSS line".into()))
}

fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line["VmRSS:".len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_rss_is_read_from_the_status_file() {
        let status = "Name:\tterrain-server\nVmPeak:\t  999 kB\nVmRSS:\t   52344 kB\nThreads:\t9\n";
        assert_eq!(parse_vm_rss(status), Some(52344));
        assert_eq!(parse_vm_rss("Name: x\n"), None);
        // This process has one.
        assert!(rss_kib(std::process::id()).unwrap() > 0);
    }
}
