//! Run a local replica of a world and compare it with the server.
//!
//! The replica loads the world's generator and zones, follows the event stream,
//! and answers heights in-process: the same bits as `GetHeight` at the revision it
//! reflects. This prints its revision, checks a spread of points against the
//! server, then times local lookups against the RPC.
//!
//! ```text
//! cargo run --release -p terrain-server &
//! cargo run --release --example local_replica -- http://127.0.0.1:8080 main
//! ```

use std::time::Instant;

use terrain_client::{ClientError, LocalTerrain, TerrainClient};

#[tokio::main]
async fn main() -> Result<(), ClientError> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let world = args.next().unwrap_or_else(|| "main".into());
    let mut client = TerrainClient::connect(url).await?;
    let replica = LocalTerrain::open(client.clone(), &world).await?;
    let info = replica.world();
    println!(
        "replica of {} ({} seed {}, {} overlap): {} zones at revision {}",
        info.id,
        info.generator,
        info.seed,
        info.overlap,
        replica.snapshot().terrain().zones().len(),
        replica.revision()
    );

    // A 100 x 100 grid over the island, checked against the server bit for bit.
    let points: Vec<(f64, f64)> = (0..10_000)
        .map(|i| {
            (
                (i % 100) as f64 * 9.01 - 450.0,
                (i / 100) as f64 * 9.03 - 450.0,
            )
        })
        .collect();
    let served = client.heights(&world, &points).await?;
    replica.wait_for_revision(served.revision).await?;
    let snapshot = replica.snapshot();
    let equal = points
        .iter()
        .zip(&served.heights)
        .filter(|&(&(x, z), h)| {
            snapshot
                .height_at(x, z)
                .is_ok_and(|v| v.to_bits() == h.to_bits())
        })
        .count();
    println!(
        "{equal} of {} heights equal the server's bit for bit (revision {})",
        points.len(),
        snapshot.revision()
    );

    // Local lookups vs the RPC, one point at a time.
    let started = Instant::now();
    let mut sum = 0.0;
    for &(x, z) in &points {
        sum += replica.height_at(x, z)?;
    }
    let local = started.elapsed() / points.len() as u32;
    let started = Instant::now();
    for &(x, z) in &points[..1000] {
        sum += client.height(&world, x, z).await?.height;
    }
    let rpc = started.elapsed() / 1000;
    println!("height_at: {local:?} per call; GetHeight: {rpc:?} per call (checksum {sum:.3})");
    Ok(())
}
