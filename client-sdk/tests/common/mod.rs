//! A real server on loopback for the client tests, restartable on the same port
//! with the same data directory.

#![allow(dead_code)] // each test binary uses a subset

use std::{net::SocketAddr, time::Duration};

use tempfile::TempDir;
use terrain_client::{Shape, TerrainClient, ZoneHeight, ZoneSpec};
use terrain_core::GeneratorKind;
use terrain_server::{Config, RunningServer, Server, WorldConfig};

/// Bound on anything a test waits for.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// A server and its data directory.
pub struct TestServer {
    pub running: Option<RunningServer>,
    pub addr: SocketAddr,
    pub data: TempDir,
}

/// World `main` (hyperscape seed 0, no start-up zones) and world `old` (osrs).
pub fn plain_config(c: &mut Config) {
    c.worlds = vec![
        WorldConfig::new("main", GeneratorKind::Hyperscape, 0),
        WorldConfig::new("old", GeneratorKind::Osrs, 0),
    ];
}

/// Only world `id`: hyperscape seed 7 under a layout layer of `pattern` (400 m chunks,
/// 8 m cells, the pattern's default spokes), without warmed meshes.
pub fn layout_world(
    id: &'static str,
    pattern: terrain_core::layout::Pattern,
) -> impl Fn(&mut Config) {
    use terrain_core::layout::{LayoutConfig, SpokeRule};
    move |c: &mut Config| {
        let mut world = WorldConfig::new(id, GeneratorKind::Hyperscape, 7);
        world.layout = Some(terrain_server::config::LayoutSettings {
            layout: LayoutConfig {
                pattern,
                spokes: SpokeRule::default_for(pattern),
                chunk_size: 400.0,
                cell_size: 8.0,
                seed: 7,
            },
            grid_radius: 1,
            expand_radius: 1100.0,
            gc_radius: 1500.0,
        });
        c.worlds = vec![world];
        c.lifecycle.warm_radius = None;
    }
}

impl TestServer {
    /// `Config::default()` (world `main` with its 28 built-in zones) as `edit` changes it.
    pub async fn start(edit: impl Fn(&mut Config)) -> Self {
        let data = tempfile::tempdir().expect("temporary directory");
        let addr = SocketAddr::from(([127, 0, 0, 1], 0));
        let running = Self::launch(addr, &data, &edit).await;
        TestServer {
            addr: running.local_addr(),
            running: Some(running),
            data,
        }
    }

    async fn launch(
        addr: SocketAddr,
        data: &TempDir,
        edit: &impl Fn(&mut Config),
    ) -> RunningServer {
        let mut config = Config {
            listen: addr,
            data_dir: data.path().join("data"),
            shutdown_timeout: Duration::from_secs(5),
            ..Config::default()
        };
        edit(&mut config);
        // The port may take a moment to be free again after a restart.
        let mut tries = 0;
        loop {
            match Server::bind(config.clone()).await {
                Ok(server) => {
                    let running = server.spawn();
                    wait_ready(running.local_addr()).await;
                    return running;
                }
                Err(e) if tries < 50 => {
                    tries += 1;
                    eprintln!("bind {addr}: {e}; retrying");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("server starts: {e}"),
            }
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn client(&self) -> TerrainClient {
        TerrainClient::connect(self.url()).await.expect("connect")
    }

    /// Stops the server and waits for the drain.
    pub async fn stop(&mut self) {
        if let Some(running) = self.running.take() {
            tokio::time::timeout(TIMEOUT, running.shutdown())
                .await
                .expect("drains in time")
                .expect("stops cleanly");
        }
    }

    /// Starts the server again on the same port with the same data.
    pub async fn restart(&mut self, edit: impl Fn(&mut Config)) {
        self.stop().await;
        self.running = Some(Self::launch(self.addr, &self.data, &edit).await);
    }

    /// Runs a server on another port over the same data while this one is down,
    /// hands it to `work`, then stops it: changes made while "the" server was away.
    pub async fn elsewhere<F, Fut>(&mut self, edit: impl Fn(&mut Config), work: F)
    where
        F: FnOnce(TerrainClient) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        assert!(self.running.is_none(), "stop the server first");
        let other = Self::launch(SocketAddr::from(([127, 0, 0, 1], 0)), &self.data, &edit).await;
        let client = TerrainClient::connect(format!("http://{}", other.local_addr()))
            .await
            .expect("connect");
        work(client).await;
        tokio::time::timeout(TIMEOUT, other.shutdown())
            .await
            .expect("drains in time")
            .expect("stops cleanly");
    }
}

/// Waits until the server at `addr` reports `SERVING` (its worlds are baked).
async fn wait_ready(addr: SocketAddr) {
    let ready = async {
        let mut client = TerrainClient::connect(format!("http://{addr}"))
            .await
            .expect("connect");
        while !client.is_serving("").await.expect("health") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(TIMEOUT, ready)
        .await
        .expect("ready in time");
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(running) = &self.running {
            running.shutdown_token().cancel();
        }
    }
}

/// A `w` x `d` rectangle at `(x, z)`, `offset` above the terrain, 2 m blend.
pub fn rect(x: f64, z: f64, w: f64, d: f64, offset: f64) -> ZoneSpec {
    ZoneSpec {
        center_x: x,
        center_z: z,
        shape: Shape::Rect { width: w, depth: d },
        height: ZoneHeight::Offset(offset),
        blend_radius: 2.0,
        carve_inset: 0.0,
        priority: 0,
    }
}

/// Points spread over `[-r, r]^2` from a fixed seed (splitmix64).
pub fn random_points(n: usize, r: f64, seed: u64) -> Vec<(f64, f64)> {
    let mut s = seed;
    let mut next = move || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| ((next() * 2.0 - 1.0) * r, (next() * 2.0 - 1.0) * r))
        .collect()
}

/// A loopback TCP proxy to `target` whose connections can all be cut at once (a
/// network failure, as the client sees it) while the server stays up.
pub struct Proxy {
    pub addr: SocketAddr,
    cut: tokio::sync::watch::Sender<u64>,
}

impl Proxy {
    pub async fn start(target: SocketAddr) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (cut, _) = tokio::sync::watch::channel(0u64);
        let cuts = cut.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let mut cut = cuts.subscribe();
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Proxy { addr, cut }
    }

    /// Drops every open connection through the proxy.
    pub fn cut(&self) {
        self.cut.send_modify(|n| *n += 1);
    }
}
