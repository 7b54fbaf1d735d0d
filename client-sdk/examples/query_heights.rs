//! Query heights from a running server.
//!
//! ```text
//! cargo run --release -p terrain-server &
//! cargo run --example query_heights -- http://127.0.0.1:8080 main
//! ```

use terrain_client::{ClientError, TerrainClient};

#[tokio::main]
async fn main() -> Result<(), ClientError> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let world = args.next().unwrap_or_else(|| "main".into());
    let mut client = TerrainClient::connect(url).await?;
    for w in client.list_worlds().await? {
        println!(
            "world {} ({} seed {}), revision {}",
            w.id, w.generator, w.seed, w.revision
        );
    }
    let h = client.height(&world, 0.0, 0.0).await?;
    println!(
        "height at the origin: {:.3} m (revision {})",
        h.height, h.revision
    );
    let path: Vec<(f64, f64)> = (0..5).map(|i| (i as f64 * 25.0, -40.0)).collect();
    let hs = client.heights(&world, &path).await?;
    for ((x, z), h) in path.iter().zip(&hs.heights) {
        println!("({x:>6.1}, {z:>6.1}) -> {h:.3} m");
    }
    let map = client
        .heightmap(&world, (-50.0, -50.0), 10.0, (11, 11))
        .await?;
    let (min, max) = map
        .heights
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &h| (lo.min(h), hi.max(h)));
    println!("11x11 heightmap around the origin: {min:.2}..{max:.2} m");
    Ok(())
}
