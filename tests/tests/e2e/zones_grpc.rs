//! The flat-zone registry over gRPC, against the real server: `RegisterFlatZone`,
//! `GetFlatZone`, `ListFlatZones`, `GetFlatZoneAt`, `UnregisterFlatZone`, heights
//! naming their zone, and one revision counter shared with the HTTP surface.

use terrain_tests as common;

use common::*;
use serde_json::json;
use terrain_core::{FlatZone, Overlap, Terrain};
use terrain_proto::v1::{
    FlatZone as PbZone, GetFlatZoneAtRequest, GetFlatZoneRequest, GetHeightRequest,
    GetHeightsRequest, ListFlatZonesRequest, RegisterFlatZoneRequest, TileKey,
    UnregisterFlatZoneRequest, terrain_service_client::TerrainServiceClient,
};
use tonic::{Code, transport::Channel};
use tonic_types::StatusExt as _;

fn arena() -> PbZone {
    PbZone {
        id: "arena:north".into(),
        center_x: -220.25,
        center_z: 140.5,
        width: Some(36.0),
        depth: Some(28.0),
        height_offset: Some(-0.75),
        blend_radius: 7.5,
        carve_inset: Some(2.0),
        priority: 3,
        ..PbZone::default()
    }
}

fn register(world: &str, zone: PbZone) -> RegisterFlatZoneRequest {
    RegisterFlatZoneRequest {
        world: world.into(),
        zone: Some(zone),
    }
}

/// The core zone the server resolves `zone` to.
fn resolved(zone: &PbZone) -> FlatZone {
    let body = json!({
        "centerX": zone.center_x, "centerZ": zone.center_z, "width": zone.width,
        "depth": zone.depth, "radius": zone.radius, "height": zone.height,
        "heightOffset": zone.height_offset, "blendRadius": zone.blend_radius,
        "carveInset": zone.carve_inset, "priority": zone.priority,
    });
    resolve(&main_generator(), &zone.id, &body)
}

fn keys(tiles: &serde_json::Value) -> Vec<TileKey> {
    tiles
        .as_array()
        .expect("tiles")
        .iter()
        .map(|t| TileKey {
            x: t[0].as_i64().expect("x"),
            z: t[1].as_i64().expect("z"),
        })
        .collect()
}

async fn assert_heights(
    client: &mut TerrainServiceClient<Channel>,
    terrain: &Terrain,
    zones: &[FlatZone],
) {
    let points = probe_points(zones);
    for &(x, z) in &points {
        let request = GetHeightRequest {
            world: "main".into(),
            x,
            z,
            ..Default::default()
        };
        let answer = client
            .get_height(request)
            .await
            .expect("GetHeight")
            .into_inner();
        let want = terrain.sample(x, z);
        assert_same(answer.height, want.height, &format!("height at ({x}, {z})"));
        let id = want.zone.map_or("", |(zone, _)| zone.id.as_str());
        assert_eq!(answer.zone, id, "zone at ({x}, {z})");
    }
    let coordinates = points.iter().flat_map(|&(x, z)| [x, z]).collect();
    let request = GetHeightsRequest {
        world: "main".into(),
        coordinates,
        ..Default::default()
    };
    let answer = client
        .get_heights(request)
        .await
        .expect("GetHeights")
        .into_inner();
    assert_eq!(answer.zones.len(), points.len());
    for (k, &(x, z)) in points.iter().enumerate() {
        let want = terrain.sample(x, z);
        assert_same(answer.heights[k], want.height, &format!("heights[{k}]"));
        assert_eq!(
            answer.zones[k],
            want.zone.map_or("", |(zone, _)| zone.id.as_str()),
            "zones[{k}]"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_get_list_at_unregister_over_grpc() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let core = main_generator();
    let zone = resolved(&arena());

    let answer = client
        .register_flat_zone(register("main", arena()))
        .await
        .expect("register")
        .into_inner();
    assert_eq!((answer.revision, answer.change.as_str()), (1, "registered"));
    assert_eq!(answer.tiles, keys(&tiles_json(&core, &[&zone])));
    let got = answer.zone.expect("zone");
    assert_eq!((got.id.as_str(), got.revision), ("arena:north", 1));
    assert_same(
        got.height.expect("resolved height"),
        zone.height,
        "resolved height",
    );
    assert_eq!(got.height_offset, None);
    assert_eq!(
        (got.width, got.depth, got.radius),
        (Some(36.0), Some(28.0), None)
    );
    assert_eq!((got.carve_inset, got.priority), (Some(2.0), 3));
    assert_heights(
        &mut client,
        &terrain(&core, Overlap::Hyperscape, std::slice::from_ref(&zone)),
        std::slice::from_ref(&zone),
    )
    .await;

    // Identical again (the output-only revision is ignored): no revision taken.
    let again = PbZone {
        revision: 99,
        ..arena()
    };
    let answer = client
        .register_flat_zone(register("main", again))
        .await
        .expect("again")
        .into_inner();
    assert_eq!(
        (answer.revision, answer.change.as_str(), answer.tiles.len()),
        (1, "unchanged", 0)
    );

    // A zone registered over HTTP shares the revision counter.
    let (status, body) = server
        .put_json(
            "/v1/worlds/main/flat-zones/disc",
            &json!({"centerX": 5.0, "centerZ": 5.0,
            "radius": 3.0, "height": 40.0, "blendRadius": 1.0}),
            None,
        )
        .await;
    assert_eq!(
        (status.as_u16(), body["revision"].as_u64()),
        (200, Some(2)),
        "{body}"
    );

    let list = client
        .list_flat_zones(ListFlatZonesRequest {
            world: "main".into(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner();
    assert_eq!(list.revision, 2);
    let ids: Vec<_> = list
        .zones
        .iter()
        .map(|z| (z.id.as_str(), z.revision))
        .collect();
    assert_eq!(ids, [("arena:north", 1), ("disc", 2)]);

    let one = client
        .get_flat_zone(GetFlatZoneRequest {
            world: "main".into(),
            id: "disc".into(),
        })
        .await
        .expect("get")
        .into_inner();
    let disc = one.zone.expect("zone");
    assert_eq!(
        (disc.radius, disc.height, disc.revision, one.revision),
        (Some(3.0), Some(40.0), 2, 2)
    );

    let at = |x, z| GetFlatZoneAtRequest {
        world: "main".into(),
        x,
        z,
    };
    let hit = client
        .get_flat_zone_at(at(-220.0, 140.0))
        .await
        .expect("at")
        .into_inner();
    assert_eq!(hit.zone.map(|z| z.id), Some("arena:north".to_string()));
    let miss = client
        .get_flat_zone_at(at(900.0, 900.0))
        .await
        .expect("at")
        .into_inner();
    assert_eq!((miss.zone, miss.revision), (None, 2));
    let status = client
        .get_flat_zone_at(at(f64::NAN, 0.0))
        .await
        .expect_err("NaN");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("x: "), "{}", status.message());

    let gone = UnregisterFlatZoneRequest {
        world: "main".into(),
        id: "arena:north".into(),
    };
    let answer = client
        .unregister_flat_zone(gone.clone())
        .await
        .expect("unregister")
        .into_inner();
    assert_eq!(answer.revision, 3);
    assert_eq!(answer.tiles, keys(&tiles_json(&core, &[&zone])));
    let status = client.unregister_flat_zone(gone).await.expect_err("absent");
    assert_eq!(status.code(), Code::NotFound);
    assert!(status.message().starts_with("id: "), "{}", status.message());
    let status = client
        .get_flat_zone(GetFlatZoneRequest {
            world: "main".into(),
            id: "arena:north".into(),
        })
        .await
        .expect_err("absent");
    assert_eq!(status.code(), Code::NotFound);
    let status = client
        .list_flat_zones(ListFlatZonesRequest {
            world: "nope".into(),
            ..Default::default()
        })
        .await
        .expect_err("no world");
    assert_eq!(status.code(), Code::NotFound);
    assert!(
        status.message().starts_with("world: "),
        "{}",
        status.message()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_zones_are_refused_over_grpc_naming_the_field() {
    let server = TestServer::start_with(|c| {
        c.limits.max_zone_size = 500.0;
        c.limits.max_coordinate = 1e6;
    })
    .await;
    let mut client = server.grpc().await;
    let cases: Vec<(PbZone, &str)> = vec![
        (
            PbZone {
                center_x: f64::NAN,
                ..arena()
            },
            "center_x",
        ),
        (
            PbZone {
                center_z: f64::INFINITY,
                ..arena()
            },
            "center_z",
        ),
        (
            PbZone {
                center_x: 2e6,
                ..arena()
            },
            "center_x",
        ),
        (
            PbZone {
                width: Some(0.0),
                ..arena()
            },
            "width",
        ),
        (
            PbZone {
                depth: Some(-3.0),
                ..arena()
            },
            "depth",
        ),
        (
            PbZone {
                width: Some(501.0),
                ..arena()
            },
            "width",
        ),
        (
            PbZone {
                width: None,
                depth: None,
                radius: Some(f64::NAN),
                ..arena()
            },
            "radius",
        ),
        (
            PbZone {
                blend_radius: -1.0,
                ..arena()
            },
            "blend_radius",
        ),
        (
            PbZone {
                carve_inset: Some(-0.5),
                ..arena()
            },
            "carve_inset",
        ),
        (
            PbZone {
                height_offset: Some(f64::NEG_INFINITY),
                ..arena()
            },
            "height_offset",
        ),
        (
            PbZone {
                height: Some(1.0),
                ..arena()
            },
            "height_offset",
        ),
        (
            PbZone {
                height_offset: None,
                ..arena()
            },
            "height",
        ),
        (
            PbZone {
                depth: None,
                ..arena()
            },
            "depth",
        ),
        (
            PbZone {
                radius: Some(3.0),
                ..arena()
            },
            "radius",
        ),
        (
            PbZone {
                id: String::new(),
                ..arena()
            },
            "id",
        ),
        (
            PbZone {
                id: "bad id".into(),
                ..arena()
            },
            "id",
        ),
    ];
    for (zone, field) in cases {
        let status = client
            .register_flat_zone(register("main", zone.clone()))
            .await
            .expect_err("refused");
        assert_eq!(status.code(), Code::InvalidArgument, "{zone:?}: {status:?}");
        assert!(
            status.message().starts_with(&format!("{field}: ")),
            "{field}: {}",
            status.message()
        );
        // The field violation names it as the proto does, as the message does.
        let bad = status
            .get_details_bad_request()
            .expect("a BadRequest detail");
        assert_eq!(bad.field_violations[0].field, field, "{zone:?}");
    }
    let status = client
        .register_flat_zone(RegisterFlatZoneRequest {
            world: "main".into(),
            zone: None,
        })
        .await
        .expect_err("no zone");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status.message().starts_with("zone: "),
        "{}",
        status.message()
    );
    let list = client
        .list_flat_zones(ListFlatZonesRequest {
            world: "main".into(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner();
    assert_eq!(
        (list.zones.len(), list.revision),
        (0, 0),
        "nothing stored, no revision taken"
    );
    server.stop().await;
}
