//! The docker deployment, kept honest without a Docker engine:
//!
//! - `docker/compose.yaml` parses as a Compose Specification file (merge keys
//!   applied), names the services the deployment needs, and every file it mounts from
//!   the repository exists;
//! - the same topology runs as plain processes on loopback ports: a 3-node NATS
//!   cluster from `docker/nats/nats.conf` (the compose nodes' file), three replicas
//!   from `docker/replica.toml` (the compose replicas' file, with the addresses
//!   overridden by flags) and the admin token, each healthy by the image's own
//!   `healthcheck` command, sharing one registry.

use crate::common;
use crate::scale;

use std::{path::Path, process::Command};

use scale::*;

fn docker_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docker")
}

#[test]
fn the_compose_file_is_valid_and_complete() {
    let dir = docker_dir();
    let text = std::fs::read_to_string(dir.join("compose.yaml")).expect("compose.yaml");
    let compose = compose_spec::Compose::options()
        .apply_merge(true)
        .from_yaml_str(&text)
        .unwrap_or_else(|e| panic!("docker/compose.yaml: {e}"));
    compose.validate_all().expect("compose.yaml validates");
    let services: Vec<String> = compose.services.keys().map(|k| k.to_string()).collect();
    for needed in [
        "nats-1",
        "nats-2",
        "nats-3",
        "terrain-1",
        "terrain-2",
        "terrain-3",
        "lb",
        "ghz-get-height",
    ] {
        assert!(
            services.iter().any(|s| s == needed),
            "service {needed} in {services:?}"
        );
    }
    // Every file mounted from the repository exists (`- ./path:/in/container`).
    let mut mounted = 0;
    for line in text.lines() {
        let Some(source) = line.trim().strip_prefix("- ./") else {
            continue;
        };
        let source = source.split(':').next().unwrap_or_default();
        if source == "ghz" && !dir.join(source).exists() {
            eprintln!("docker/ghz/ (the load scenarios) not present: not checked");
            continue;
        }
        assert!(
            dir.join(source).exists(),
            "docker/{source} (mounted) is missing"
        );
        mounted += 1;
    }
    assert!(mounted >= 3, "mounts found: {mounted}");
    // The ghz runs name configs under docker/ghz/ (the load scenarios).
    let ghz = dir.join("ghz");
    for line in text
        .lines()
        .filter(|l| l.contains("/ghz/") && l.contains(".json"))
    {
        let name = line
            .split('"')
            .find(|part| part.starts_with("/ghz/"))
            .and_then(|p| p.strip_prefix("/ghz/"))
            .expect("a /ghz/<config>.json argument");
        if ghz.is_dir() {
            assert!(ghz.join(name).is_file(), "docker/ghz/{name} is missing");
        } else {
            eprintln!("docker/ghz/ not present: not checking {name}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(nats_server),
    ignore = "needs nats-server: set TERRAIN_TEST_NATS_SERVER"
)]
async fn the_compose_topology_runs_as_plain_processes() {
    let bin = nats_binary();
    let dir = tempfile::tempdir().expect("tempdir");
    let docker = docker_dir();
    let nodes = Nats::cluster(&bin, &docker.join("nats/nats.conf"), dir.path());
    let url = urls(&nodes);
    let config = docker.join("replica.toml");
    let config = config.to_str().expect("path");
    let token = "e2e-token";
    let replicas: Vec<_> = (1..=3)
        .map(|i| {
            let data = dir.path().join(format!("terrain-{i}"));
            common::Running::start(
                &[
                    "--config",
                    config,
                    "--log-format",
                    "text",
                    "--store-url",
                    &url,
                    "--admin-token",
                    token,
                ],
                &data,
                dir.path(),
            )
        })
        .collect();
    for r in &replicas {
        wait_ready(r.addr, 200);
        // The image's HEALTHCHECK command.
        let status = Command::new(common::BIN)
            .args(["healthcheck", &format!("http://{}/readyz", r.addr)])
            .status()
            .expect("healthcheck");
        assert!(status.success(), "healthcheck of {}", r.addr);
        assert_eq!(revision(r.addr), 28);
    }
    // Mutations need the token; any replica accepts them for all.
    let path = "/v1/worlds/main/flat-zones/lb_pad";
    let body = zone(7, 12.5);
    let (status, _) = call(replicas[1].addr, "PUT", path, &body);
    assert_eq!(status, 401);
    let (status, answer) = common::http_authorized(replicas[1].addr, "PUT", path, &body, token);
    assert_eq!(status, 200, "{answer}");
    let answer: serde_json::Value = serde_json::from_str(&answer).expect("JSON");
    assert_eq!(answer["revision"], 29);
    for r in &replicas {
        wait_revision(r.addr, 29);
        let got = common::get_json(r.addr, path);
        assert_eq!(got["zone"], answer["zone"], "{}", r.addr);
    }
    // The bucket holds 3 replicas and the 29 revisions.
    let client = async_nats::connect(nodes[2].url())
        .await
        .expect("nats client");
    let jetstream = async_nats::jetstream::new(client);
    let info = jetstream
        .get_stream("KV_terrain-main")
        .await
        .expect("bucket terrain-main")
        .get_info()
        .await
        .expect("stream info");
    assert_eq!(info.config.num_replicas, 3);
    assert_eq!(info.state.last_sequence, 29);
    for r in replicas {
        r.stop();
    }
}
