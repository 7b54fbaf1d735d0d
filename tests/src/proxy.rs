//! [`Proxy`]: a loopback TCP proxy whose connections can all be cut at once, for
//! network failures as a client sees them while the server stays up.

use std::net::SocketAddr;

/// A loopback TCP proxy to `target` whose connections can all be cut at once (a
/// network failure, as the client sees it) while the server stays up.
#[derive(Debug)]
pub struct Proxy {
    /// The proxy's own loopback address: connect here instead of to the target.
    pub addr: SocketAddr,
    cut: tokio::sync::watch::Sender<u64>,
}

impl Proxy {
    /// Listens on an ephemeral loopback port and forwards every connection to
    /// `target` until [`Proxy::cut`].
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
