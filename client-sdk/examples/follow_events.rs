//! Follow the events of an area and re-snap the entities standing there.
//!
//! A game server keeps its entities on the ground. When a zone changes, the event
//! says which rectangle changed and by how much at most (`maxHeightDelta`); only
//! entities inside that rectangle are re-snapped, and only if the change could
//! matter to them. The subscription survives server restarts and resumes without
//! losing an event.
//!
//! ```text
//! cargo run --release -p terrain-server &
//! cargo run --example follow_events -- http://127.0.0.1:8080 main
//! # in another shell, change a zone near the origin:
//! curl -XPUT localhost:8080/v1/worlds/main/flat-zones/pad \
//!   -d '{"centerX":10,"centerZ":10,"width":12,"depth":8,"heightOffset":1.5,"blendRadius":3}'
//! ```

use terrain_client::{Area, ClientError, ResyncMode, SubscriptionEvent, TerrainClient};

/// Entities closer to the ground than this are re-snapped.
const SNAP_TOLERANCE: f64 = 0.01;

#[derive(Debug)]
struct Entity {
    name: String,
    x: f64,
    z: f64,
    y: f64,
}

#[tokio::main]
async fn main() -> Result<(), ClientError> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:8080".into());
    let world = args.next().unwrap_or_else(|| "main".into());
    let mut client = TerrainClient::connect(url).await?;

    // A few entities on a ring around the origin, standing on the ground.
    let positions: Vec<(f64, f64)> = (0..16)
        .map(|i| {
            let a = i as f64 * std::f64::consts::TAU / 16.0;
            (30.0 * a.cos(), 30.0 * a.sin())
        })
        .collect();
    let ground = client.heights(&world, &positions).await?;
    let mut entities: Vec<Entity> = positions
        .iter()
        .zip(&ground.heights)
        .enumerate()
        .map(|(i, (&(x, z), &y))| Entity {
            name: format!("npc{i}"),
            x,
            z,
            y,
        })
        .collect();
    println!(
        "{} entities on the ground at revision {}",
        entities.len(),
        ground.revision
    );

    // Everything within 60 m of the origin, resumed from the revision we read.
    let mut events = client
        .subscription(&world)
        .area(Area::Circle {
            x: 0.0,
            z: 0.0,
            radius: 60.0,
        })
        .from_revision(ground.revision)
        .resync(ResyncMode::Surface)
        .open()
        .await?;
    loop {
        let (bounds, delta, revision) = match events.next().await? {
            SubscriptionEvent::Tiles(e) => {
                println!(
                    "revision {}: zone {} {:?}, {} tiles in {:?}, max height delta {:?}",
                    e.revision, e.zone, e.kind, e.tile_count, e.tile_rects, e.max_height_delta
                );
                (Some(e.bounds), e.max_height_delta, e.revision)
            }
            // History lost: re-snap everyone.
            SubscriptionEvent::Resync { revision }
            | SubscriptionEvent::Resynced(terrain_client::ZoneList { revision, .. }) => {
                println!("resync at revision {revision}: re-snapping everyone");
                (None, None, revision)
            }
        };
        if delta.is_some_and(|d| d < SNAP_TOLERANCE) {
            continue;
        }
        let affected: Vec<usize> = entities
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                bounds.is_none_or(|b| {
                    e.x >= b.min_x && e.x <= b.max_x && e.z >= b.min_z && e.z <= b.max_z
                })
            })
            .map(|(i, _)| i)
            .collect();
        if affected.is_empty() {
            continue;
        }
        let points: Vec<(f64, f64)> = affected
            .iter()
            .map(|&i| (entities[i].x, entities[i].z))
            .collect();
        let fresh = client.heights(&world, &points).await?;
        for (&i, &y) in affected.iter().zip(&fresh.heights) {
            let e = &mut entities[i];
            println!(
                "  {} at ({:.1}, {:.1}): {:.3} -> {:.3} m (revision {revision})",
                e.name, e.x, e.z, e.y, y
            );
            e.y = y;
        }
    }
}
