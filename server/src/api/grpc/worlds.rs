//! `ListWorlds` of `terrain.v1.TerrainService`: every hosted world
//! ([`crate::api::worlds`]) as protobuf messages (the shared model's conversion), a
//! voxel world with its parameters and block kinds, a walkability rule with the towns
//! its difficulty reads.

use terrain_proto::v1 as pb;
use tonic::{Request, Response, Status};

use crate::api::{ApiState, worlds};

/// `ListWorlds`: every hosted world, in configuration order.
pub async fn list(
    state: &ApiState,
    _request: Request<pb::ListWorldsRequest>,
) -> Result<Response<pb::ListWorldsResponse>, Status> {
    let worlds = worlds::list(&state.engine)
        .iter()
        .map(|w| {
            let mut world = pb::World::from(&w.info);
            if let Some(rule) = world.walkability.as_mut() {
                rule.towns = terrain_model::town_messages(&w.towns);
            }
            world
        })
        .collect();
    Ok(Response::new(pb::ListWorldsResponse { worlds }))
}
