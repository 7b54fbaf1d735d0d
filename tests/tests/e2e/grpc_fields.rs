//! gRPC errors name fields as the proto does (snake_case: `tile_mask`,
//! `from_revision`, `min_tile_x`), in the message's leading field and in the
//! `google.rpc.BadRequest` field violation alike, for every RPC that takes input;
//! HTTP keeps the JSON names (lowerCamelCase) for the same refusals.

use terrain_tests as common;

use std::time::Duration;

use common::{TestServer, events::events_client};
use terrain_proto::v1::{
    self as pb, terrain_lifecycle_client::TerrainLifecycleClient, viewer_update::Update,
};
use tokio_stream::StreamExt as _;
use tonic::{Code, Status};
use tonic_types::StatusExt as _;

/// Checks `status` names `field` (the proto's spelling) in its message and its field
/// violation, with `code`.
fn names(rpc: &str, status: &Status, code: Code, field: &str) {
    assert_eq!(status.code(), code, "{rpc}: {status:?}");
    assert!(
        status.message().starts_with(&format!("{field}: ")),
        "{rpc}: {field}: {}",
        status.message()
    );
    let bad = status
        .get_details_bad_request()
        .unwrap_or_else(|| panic!("{rpc}: a BadRequest detail: {status:?}"));
    assert_eq!(bad.field_violations.len(), 1, "{rpc}");
    assert_eq!(bad.field_violations[0].field, field, "{rpc}");
    assert!(
        !field.bytes().any(|b| b.is_ascii_uppercase()),
        "{rpc}: {field} is not snake_case"
    );
}

fn zone() -> pb::FlatZone {
    pb::FlatZone {
        id: "pad".into(),
        center_x: 10.0,
        center_z: 10.0,
        width: Some(8.0),
        depth: Some(8.0),
        height: Some(20.0),
        blend_radius: 2.0,
        ..Default::default()
    }
}

fn register(zone: pb::FlatZone) -> pb::RegisterFlatZoneRequest {
    pb::RegisterFlatZoneRequest {
        world: "main".into(),
        zone: Some(zone),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_names_its_invalid_fields_as_the_proto_does() {
    let server = TestServer::start().await;
    let mut c = server.grpc().await;
    let main = || "main".to_string();
    let inv = Code::InvalidArgument;

    // TerrainService.
    let s = c
        .get_height(pb::GetHeightRequest {
            world: main(),
            x: f64::NAN,
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("GetHeight", &s, inv, "x");
    let s = c
        .get_height(pb::GetHeightRequest {
            world: main(),
            revision: Some(99),
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("GetHeight", &s, Code::FailedPrecondition, "revision");
    let s = c
        .get_heights(pb::GetHeightsRequest {
            world: main(),
            coordinates: vec![0.0, 0.0, f64::NAN, 0.0],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(s.message().starts_with("coordinates["), "{s:?}");
    let field = s.get_details_bad_request().unwrap().field_violations[0]
        .field
        .clone();
    names("GetHeights", &s, inv, &field);
    let s = c
        .get_heightmap(pb::GetHeightmapRequest {
            world: main(),
            step: 1.0,
            nx: 0,
            nz: 4,
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("GetHeightmap", &s, inv, "nx");
    for (bad, field) in [
        (
            pb::FlatZone {
                center_x: f64::NAN,
                ..zone()
            },
            "center_x",
        ),
        (
            pb::FlatZone {
                center_z: f64::INFINITY,
                ..zone()
            },
            "center_z",
        ),
        (
            pb::FlatZone {
                blend_radius: -1.0,
                ..zone()
            },
            "blend_radius",
        ),
        (
            pb::FlatZone {
                carve_inset: Some(-1.0),
                ..zone()
            },
            "carve_inset",
        ),
        (
            pb::FlatZone {
                height: None,
                height_offset: Some(f64::NAN),
                ..zone()
            },
            "height_offset",
        ),
        (
            pb::FlatZone {
                tile_mask: vec![0, 0, 1],
                ..zone()
            },
            "tile_mask",
        ),
        (
            pb::FlatZone {
                tile_mask: vec![500, 500],
                ..zone()
            },
            "tile_mask",
        ),
        (
            pb::FlatZone {
                id: "bad id".into(),
                ..zone()
            },
            "id",
        ),
    ] {
        let s = c.register_flat_zone(register(bad)).await.unwrap_err();
        names("RegisterFlatZone", &s, inv, field);
    }
    let s = c
        .unregister_flat_zone(pb::UnregisterFlatZoneRequest {
            world: main(),
            id: "absent".into(),
        })
        .await
        .unwrap_err();
    names("UnregisterFlatZone", &s, Code::NotFound, "id");
    let s = c
        .get_flat_zone(pb::GetFlatZoneRequest {
            world: "nowhere".into(),
            id: "a".into(),
        })
        .await
        .unwrap_err();
    names("GetFlatZone", &s, Code::NotFound, "world");
    for (size, token, field) in [
        (-1, "", "page_size"),
        (1001, "", "page_size"),
        (0, "garbage", "page_token"),
        (0, "z1.0.0..other", "page_token"),
    ] {
        let s = c
            .list_flat_zones(pb::ListFlatZonesRequest {
                world: main(),
                page_size: size,
                page_token: token.into(),
            })
            .await
            .unwrap_err();
        names("ListFlatZones", &s, inv, field);
    }
    let s = c
        .get_flat_zone_at(pb::GetFlatZoneAtRequest {
            world: main(),
            x: 0.0,
            z: f64::INFINITY,
        })
        .await
        .unwrap_err();
    names("GetFlatZoneAt", &s, inv, "z");
    let s = c
        .get_tile_mesh(pb::GetTileMeshRequest {
            world: main(),
            tile_x: i64::MAX,
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("GetTileMesh", &s, inv, "tile_x");
    let s = c
        .get_tile_mesh(pb::GetTileMeshRequest {
            world: main(),
            max_error: -1.0,
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("GetTileMesh", &s, inv, "max_error");
    let s = c
        .get_tile_meshes(pb::GetTileMeshesRequest {
            world: main(),
            tiles: vec![pb::TileKey { x: 0, z: i64::MIN }],
            ..Default::default()
        })
        .await
        .map(drop)
        .unwrap_err();
    names("GetTileMeshes", &s, inv, "tiles[0].z");
    let s = c
        .get_chunk_blocks(pb::GetChunkBlocksRequest {
            world: main(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("GetChunkBlocks", &s, Code::FailedPrecondition, "world");
    let s = c
        .get_chunk_instances(pb::GetChunkInstancesRequest {
            world: main(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("GetChunkInstances", &s, Code::FailedPrecondition, "world");
    let s = c
        .get_terrain_info(pb::GetTerrainInfoRequest {
            world: main(),
            coordinates: vec![0.0, f64::NAN],
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("GetTerrainInfo", &s, inv, "coordinates[1]");
    let s = c
        .check_path(pb::CheckPathRequest {
            world: main(),
            points: vec![
                pb::Point2 { x: 0.0, z: 0.0 },
                pb::Point2 {
                    x: f64::NAN,
                    z: 0.0,
                },
            ],
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("CheckPath", &s, inv, "points[1]");
    let from = Some(pb::Point2 { x: 0.0, z: 0.0 });
    let to = Some(pb::Point2 { x: 5.0, z: 5.0 });
    let s = c
        .find_path(pb::FindPathRequest {
            world: main(),
            from,
            to,
            max_distance: -1.0,
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("FindPath", &s, inv, "max_distance");
    let s = c
        .find_path(pb::FindPathRequest {
            world: main(),
            from,
            to,
            max_nodes: u64::MAX,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(s.message().starts_with("max_nodes: "), "{s:?}");
    let s = c
        .find_path(pb::FindPathRequest {
            world: main(),
            from: None,
            to,
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("FindPath", &s, inv, "from");
    let grid = |min_tile_x: i64, width: u32| pb::GetWalkGridRequest {
        world: main(),
        min_tile_x,
        min_tile_z: 0,
        width,
        depth: 4,
        revision: None,
    };
    let s = c.get_walk_grid(grid(2_000_000_000, 4)).await.unwrap_err();
    names("GetWalkGrid", &s, inv, "min_tile_x");
    let s = c.get_walk_grid(grid(0, 0)).await.unwrap_err();
    names("GetWalkGrid", &s, inv, "width");

    // TerrainLifecycle.
    let mut lc = TerrainLifecycleClient::new(server.channel().await);
    let s = lc
        .get_live_tiles(pb::GetLiveTilesRequest {
            world: "nowhere".into(),
        })
        .await
        .unwrap_err();
    names("GetLiveTiles", &s, Code::NotFound, "world");
    let s = lc
        .get_layout(pb::GetLayoutRequest {
            world: main(),
            max_x: 1.0,
            max_z: 1.0,
            ..Default::default()
        })
        .await
        .unwrap_err();
    names("GetLayout", &s, Code::NotFound, "world");
    let s = lc
        .get_zone_class(pb::GetZoneClassRequest {
            world: main(),
            x: f64::NAN,
            z: 0.0,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(s.code(), Code::InvalidArgument | Code::NotFound),
        "{s:?}"
    );
    let field = s.get_details_bad_request().unwrap().field_violations[0]
        .field
        .clone();
    names("GetZoneClass", &s, s.code(), &field);
    // TrackViewers answers a refused update in the stream, naming the field. (The
    // server answers the stream once it has its first update: queued before the call.)
    let viewers = [
        (
            pb::Viewer {
                id: "cam".into(),
                view_width: -1.0,
                view_depth: 10.0,
                ..Default::default()
            },
            "view_width",
        ),
        (
            pb::Viewer {
                id: "cam".into(),
                view_width: 10.0,
                view_depth: 10.0,
                velocity_x: f64::NAN,
                ..Default::default()
            },
            "velocity_x",
        ),
    ];
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    for (viewer, _) in &viewers {
        tx.send(pb::ViewerUpdate {
            world: main(),
            update: Some(Update::Upsert(viewer.clone())),
        })
        .await
        .unwrap();
    }
    let mut stream = lc
        .track_viewers(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .expect("TrackViewers")
        .into_inner();
    for (_, field) in viewers {
        let rejected = loop {
            let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
                .await
                .expect("in time")
                .expect("stream open")
                .expect("stream ok");
            if let Some(pb::lifecycle_event::Kind::Rejected(r)) = event.kind {
                break r;
            }
        };
        assert_eq!(rejected.field, field, "{rejected:?}");
        assert!(
            rejected.message.starts_with(&format!("{field}: ")),
            "{rejected:?}"
        );
    }
    drop(tx);

    // TerrainEvents.
    let mut ev = events_client(&server).await;
    let s = ev
        .subscribe(pb::SubscribeRequest {
            world: main(),
            from_revision: Some(1_000),
            ..Default::default()
        })
        .await
        .map(drop)
        .unwrap_err();
    names("Subscribe", &s, inv, "from_revision");
    let s = ev
        .subscribe(pb::SubscribeRequest {
            world: main(),
            from_epoch: Some("00ff00ff00ff00ff".into()),
            ..Default::default()
        })
        .await
        .map(drop)
        .unwrap_err();
    names("Subscribe", &s, inv, "from_epoch");
    let s = ev
        .update_subscription(pb::UpdateSubscriptionRequest {
            subscription_id: "nope".into(),
            area: None,
        })
        .await
        .unwrap_err();
    names("UpdateSubscription", &s, inv, "subscription_id");

    // HTTP keeps the JSON names for the same refusals.
    let (status, body) = server
        .get("/v1/worlds/main/walk-grid?minTileX=2000000000&minTileZ=0&width=4&depth=4")
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["field"], "minTileX", "{body}");
    let (status, body) = server.get("/v1/worlds/main/flat-zones?pageSize=1001").await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["field"], "pageSize", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("pageSize: "),
        "{body}"
    );
    server.stop().await;
}
