//! Fan-out latency over gRPC: opens N `Subscribe` streams (default 1,000), 100 per
//! connection (the server allows 200 concurrent streams on one HTTP/2 connection), then registers a zone R times (default 20) and reports, per
//! mutation, the time from sending it to the last subscriber receiving its event.
//! The zones are removed at the end. Needs the admin token if the server has one.
//!
//! ```text
//! cargo run --release -p terrain-server &
//! cargo run --release -p terrain-client --example fanout -- http://127.0.0.1:8080 1000 20 [TOKEN]
//! ```

use std::time::{Duration, Instant};

use terrain_client::{
    Area, ClientBuilder, ClientError, Shape, StreamMessage, ZoneHeight, ZoneSpec,
};

/// Streams opened on one HTTP/2 connection (the server's limit is 200).
const STREAMS_PER_CONNECTION: usize = 100;

#[tokio::main]
async fn main() -> Result<(), ClientError> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let subscribers: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let rounds: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
        .max(1);
    let mut builder = ClientBuilder::new(url);
    if let Some(token) = args.next() {
        builder = builder.bearer_token(token);
    }
    let mut client = builder.clone().connect().await?;

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(u64, Instant)>();
    let mut connection = client.clone();
    for i in 0..subscribers {
        if i % STREAMS_PER_CONNECTION == 0 {
            connection = builder.clone().connect().await?;
        }
        let mut stream = connection.subscribe("main", Area::All, None).await?;
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Ok(Some(message)) = stream.next().await {
                if let StreamMessage::Tiles(e) = message {
                    let _ = tx.send((e.revision, Instant::now()));
                }
            }
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut samples = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let spec = ZoneSpec {
            center_x: -400.0 + round as f64 * 20.0,
            center_z: 400.0,
            shape: Shape::Rect {
                width: 6.0,
                depth: 6.0,
            },
            height: ZoneHeight::Offset(1.0),
            blend_radius: 2.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        let sent = Instant::now();
        let id = format!("fanout-{round}");
        let revision = client
            .register_flat_zone("main", &id, &spec)
            .await?
            .revision;
        let mut last = sent;
        let mut received = 0;
        while received < subscribers {
            let Some((r, at)) = rx.recv().await else {
                break;
            };
            if r == revision {
                received += 1;
                last = last.max(at);
            }
        }
        samples.push(last - sent);
        client.unregister_flat_zone("main", &id).await?;
        // Let the removal's events drain before the next round.
        let mut drained = 0;
        while drained < subscribers {
            if rx.recv().await.is_none() {
                break;
            }
            drained += 1;
        }
    }
    samples.sort();
    println!(
        "{subscribers} subscribers, {rounds} mutations: mutation -> last event p50 {:.2} ms, max {:.2} ms",
        samples[rounds / 2].as_secs_f64() * 1e3,
        samples[rounds - 1].as_secs_f64() * 1e3
    );
    Ok(())
}
