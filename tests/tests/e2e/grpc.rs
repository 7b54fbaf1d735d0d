//! The gRPC surface against the real server, with the generated `TerrainServiceClient`:
//! answers equal `terrain_core`'s bit for bit, batches keep their order, heightmaps have
//! the documented layout, and bad input gets the right status code with the offending
//! field at the start of the message.

use terrain_tests as common;

use common::*;
use terrain_core::Generator;
use terrain_proto::v1::{
    GetHeightRequest, GetHeightmapRequest, GetHeightsRequest, ListWorldsRequest,
};
use tonic::Code;

fn height_request(world: &str, x: f64, z: f64) -> GetHeightRequest {
    GetHeightRequest {
        world: world.into(),
        x,
        z,
        ..Default::default()
    }
}

fn heights_request(world: &str, points: &[(f64, f64)]) -> GetHeightsRequest {
    GetHeightsRequest {
        world: world.into(),
        coordinates: points.iter().flat_map(|&(x, z)| [x, z]).collect(),
        ..Default::default()
    }
}

fn heightmap_request(x0: f64, z0: f64, step: f64, nx: u32, nz: u32) -> GetHeightmapRequest {
    GetHeightmapRequest {
        world: "main".into(),
        x0,
        z0,
        step,
        nx,
        nz,
        ..Default::default()
    }
}

/// Asserts a refusal: its code, and that its message starts with `field` then `: `.
#[track_caller]
fn assert_status(status: tonic::Status, code: Code, field: &str) {
    assert_eq!(status.code(), code, "{status:?}");
    let prefix = format!("{field}: ");
    assert!(
        status.message().starts_with(&prefix),
        "message {:?} should start with {prefix:?}",
        status.message()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_height_matches_core_bit_for_bit() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let core = main_generator();
    for &(x, z) in POINTS {
        let answer = client
            .get_height(height_request("main", x, z))
            .await
            .expect("GetHeight")
            .into_inner();
        // proto3 does not send a singular double equal to 0.0, so -0.0 arrives as +0.0:
        // the server answers for the point it received.
        let (x, z) = (x + 0.0, z + 0.0);
        assert_same(answer.x, x, "x echoed");
        assert_same(answer.z, z, "z echoed");
        assert_same(
            answer.height,
            core.height(x, z),
            &format!("height at ({x}, {z})"),
        );
        assert_eq!(answer.zone, "", "no zone decides");
        assert_eq!(answer.revision, 0);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_heights_keep_order() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let core = main_generator();
    for points in [POINTS.to_vec(), spiral(6000), Vec::new()] {
        let answer = client
            .get_heights(heights_request("main", &points))
            .await
            .expect("GetHeights")
            .into_inner();
        assert_eq!(answer.heights.len(), points.len());
        for (i, (&(x, z), &h)) in points.iter().zip(&answer.heights).enumerate() {
            assert_same(h, core.height(x, z), &format!("heights[{i}] at ({x}, {z})"));
        }
        assert_eq!(answer.zones, vec![String::new(); points.len()]);
        assert_eq!(answer.revision, 0);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_heightmap_layout() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let core = main_generator();
    for (x0, z0, step, nx, nz) in [
        (-10.5, 20.25, 0.75, 7, 5),
        (250.0, -75.5, 0.5, 64, 130),
        (0.0, 0.0, 2.0, 1, 3000),
    ] {
        let request = heightmap_request(x0, z0, step, nx, nz);
        let answer = client
            .get_heightmap(request)
            .await
            .expect("GetHeightmap")
            .into_inner();
        assert_eq!(
            (answer.x0, answer.z0, answer.step, answer.nx, answer.nz),
            (x0, z0, step, nx, nz)
        );
        assert_eq!(answer.revision, 0);
        assert_eq!(answer.heights.len(), (nx * nz) as usize);
        for iz in 0..nz as usize {
            for ix in 0..nx as usize {
                let (x, z) = (x0 + ix as f64 * step, z0 + iz as f64 * step);
                let got = answer.heights[iz * nx as usize + ix];
                assert_same(
                    got,
                    core.height(x, z),
                    &format!("cell ({ix}, {iz}) of {nx}x{nz}"),
                );
            }
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_and_http_heightmaps_are_identical() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let (x0, z0, step, nx, nz) = (-512.0, 64.5, 1.0 / 3.0, 90, 80);
    let grpc = client
        .get_heightmap(heightmap_request(x0, z0, step, nx, nz))
        .await
        .expect("GetHeightmap");
    let path = format!("/v1/worlds/main/heightmap?x0={x0}&z0={z0}&step={step}&nx={nx}&nz={nz}");
    let (status, http) = server.get(&path).await;
    assert_eq!(status, 200, "{http}");
    let http = nums(&http["heights"]);
    let grpc = grpc.into_inner().heights;
    assert_eq!(http.len(), grpc.len());
    for (i, (a, b)) in grpc.iter().zip(&http).enumerate() {
        assert_same(*b, *a, &format!("sample {i}"));
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_list_worlds_fields() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let worlds = client
        .list_worlds(ListWorldsRequest {})
        .await
        .expect("ListWorlds")
        .into_inner()
        .worlds;
    assert_eq!(worlds.len(), 1);
    let world = &worlds[0];
    assert_eq!(
        (world.id.as_str(), world.generator.as_str(), world.seed),
        ("main", "hyperscape", 0)
    );
    assert_eq!(
        (world.tile_size, world.tile_resolution, world.revision),
        (100.0, 64, 0)
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_errors_name_the_field() {
    let server = TestServer::start().await;
    let mut client = server.grpc().await;
    let height_cases = [
        (
            height_request("main", f64::NAN, 0.0),
            Code::InvalidArgument,
            "x",
        ),
        (
            height_request("main", 0.0, f64::NEG_INFINITY),
            Code::InvalidArgument,
            "z",
        ),
        (
            height_request("main", 1.5e9, 0.0),
            Code::InvalidArgument,
            "x",
        ),
        (
            height_request("main", 0.0, -1e9 - 1.0),
            Code::InvalidArgument,
            "z",
        ),
        (height_request("nope", 0.0, 0.0), Code::NotFound, "world"),
        (height_request("", 0.0, 0.0), Code::NotFound, "world"),
    ];
    for (request, code, field) in height_cases {
        let status = client.get_height(request).await.expect_err("refused");
        assert_status(status, code, field);
    }

    let mut odd = heights_request("main", &[(1.0, 2.0)]);
    odd.coordinates.push(3.0);
    assert_status(
        client.get_heights(odd).await.expect_err("odd"),
        Code::InvalidArgument,
        "coordinates",
    );
    let bad = heights_request("main", &[(1.0, 2.0), (3.0, 4.0), (5.0, f64::NAN)]);
    assert_status(
        client.get_heights(bad).await.expect_err("NaN"),
        Code::InvalidArgument,
        "coordinates[5]",
    );
    let far = heights_request("main", &[(1.0, 2.0), (-2e9, 4.0)]);
    assert_status(
        client.get_heights(far).await.expect_err("far"),
        Code::InvalidArgument,
        "coordinates[2]",
    );
    let unknown = heights_request("nope", &[(1.0, 2.0)]);
    assert_status(
        client.get_heights(unknown).await.expect_err("world"),
        Code::NotFound,
        "world",
    );

    let heightmap_cases = [
        (
            heightmap_request(0.0, 0.0, 1.0, 0, 4),
            Code::InvalidArgument,
            "nx",
        ),
        (
            heightmap_request(0.0, 0.0, 1.0, 4, 0),
            Code::InvalidArgument,
            "nz",
        ),
        (
            heightmap_request(0.0, 0.0, 0.0, 4, 4),
            Code::InvalidArgument,
            "step",
        ),
        (
            heightmap_request(0.0, 0.0, -2.0, 4, 4),
            Code::InvalidArgument,
            "step",
        ),
        (
            heightmap_request(0.0, 0.0, f64::NAN, 4, 4),
            Code::InvalidArgument,
            "step",
        ),
        (
            heightmap_request(f64::NAN, 0.0, 1.0, 4, 4),
            Code::InvalidArgument,
            "x0",
        ),
        (
            heightmap_request(999_999_990.0, 0.0, 10.0, 3, 1),
            Code::InvalidArgument,
            "nx",
        ),
        (
            heightmap_request(0.0, 0.0, 1.0, 4096, 4096),
            Code::ResourceExhausted,
            "nx*nz",
        ),
    ];
    for (request, code, field) in heightmap_cases {
        let status = client.get_heightmap(request).await.expect_err("refused");
        assert_status(status, code, field);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_limits_give_resource_exhausted() {
    let server = TestServer::start_with(|c| {
        c.limits.max_batch_points = 10;
        c.limits.max_heightmap_samples = 100;
    })
    .await;
    let mut client = server.grpc().await;
    let points = |n| vec![(1.5, -2.5); n];
    let answer = client
        .get_heights(heights_request("main", &points(10)))
        .await
        .expect("at the limit");
    assert_eq!(answer.into_inner().heights.len(), 10);
    let status = client
        .get_heights(heights_request("main", &points(11)))
        .await
        .expect_err("over");
    assert_status(status, Code::ResourceExhausted, "coordinates");
    // Far past the limit, tonic refuses the message before decoding it; that is still
    // RESOURCE_EXHAUSTED, not tonic's OUT_OF_RANGE.
    let status = client
        .get_heights(heights_request("main", &points(50_000)))
        .await
        .expect_err("huge");
    assert_status(status, Code::ResourceExhausted, "request");
    let status = client
        .get_heightmap(heightmap_request(0.0, 0.0, 1.0, 11, 10))
        .await
        .expect_err("over");
    assert_status(status, Code::ResourceExhausted, "nx*nz");
    server.stop().await;
}
