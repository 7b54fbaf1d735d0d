//! `terrain-load` against a real server: the binary's JSON report parses, counts add
//! up, percentiles are ordered, refused requests are counted as errors; streams and
//! the health baseline run too.

// The end-to-end harness shared by every crate's tests.
use terrain_tests as common;

use std::process::Command;

use common::{TestServer, plain_config};
use serde_json::Value;

/// Runs the binary with `args` and parses its JSON report.
fn run_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_terrain-load"))
        .args(args)
        .args(["-O", "json"])
        .output()
        .expect("terrain-load runs");
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("integer nanoseconds expected, got {v}"))
}

/// The invariants every report keeps.
fn assert_consistent(r: &Value) {
    let count = u(&r["count"]);
    let statuses: u64 = r["statusCodeDistribution"]
        .as_object()
        .unwrap()
        .values()
        .map(u)
        .sum();
    assert_eq!(statuses, count, "{r}");
    let ok = r["statusCodeDistribution"]["OK"].as_u64().unwrap_or(0);
    let errors: u64 = r["errorDistribution"]
        .as_object()
        .unwrap()
        .values()
        .map(u)
        .sum();
    assert_eq!(ok + errors, count, "{r}");
    if ok > 0 {
        let lat: Vec<u64> = r["latencyDistribution"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| u(&p["latency"]))
            .collect();
        let pct: Vec<f64> = r["latencyDistribution"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["percentage"].as_f64().unwrap())
            .collect();
        assert_eq!(pct, [10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9]);
        let (fastest, slowest) = (u(&r["fastest"]), u(&r["slowest"]));
        assert!(fastest > 0 && fastest <= lat[0], "{r}");
        assert!(lat.windows(2).all(|w| w[0] <= w[1]), "{lat:?}");
        assert!(*lat.last().unwrap() <= slowest);
        let hist: u64 = r["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| u(&b["count"]))
            .sum();
        assert_eq!(hist, ok);
        let total = u(&r["total"]) as f64 / 1e9;
        let rps = r["rps"].as_f64().unwrap();
        assert!(
            (rps - count as f64 / total).abs() < 1e-6 * rps.max(1.0),
            "{r}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_run_reports_in_ghz_json() {
    let server = TestServer::start_default_with(plain_config).await;
    let host = server.addr.to_string();
    let r = tokio::task::spawn_blocking(move || {
        run_json(&[
            "--insecure",
            "--call",
            "terrain.v1.TerrainService/GetHeight",
            "-d",
            r#"{"world":"main","x":"{{randomFloat -450 450}}","z":"{{randomFloat -450 450}}"}"#,
            "-c",
            "8",
            "-n",
            "400",
            "--connections",
            "2",
            "--skipFirst",
            "20",
            &host,
        ])
    })
    .await
    .unwrap();
    assert_eq!(u(&r["count"]), 380, "skipFirst leaves 400 - 20");
    assert_eq!(r["statusCodeDistribution"], serde_json::json!({"OK": 380}));
    assert_eq!(r["errorDistribution"], serde_json::json!({}));
    assert_eq!(r["options"]["call"], "terrain.v1.TerrainService.GetHeight");
    assert_eq!(r["endReason"], "normal");
    assert_consistent(&r);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_requests_are_counted_as_errors() {
    let server = TestServer::start_default_with(|c| {
        plain_config(c);
        c.limits.max_batch_points = 100;
    })
    .await;
    let host = server.addr.to_string();
    // Every other request asks for a world the server does not host.
    let r = tokio::task::spawn_blocking(move || {
        run_json(&[
            "--insecure",
            "--call",
            "terrain.v1.TerrainService.GetHeights",
            "-d",
            r#"[{"world":"main","coordinates":"{{randomCoordinates 100 -10 -10 10 10}}"},
                      {"world":"nope","coordinates":[1,2]},
                      {"world":"main","coordinates":"{{randomCoordinates 101 -10 -10 10 10}}"}]"#,
            "-c",
            "4",
            "-n",
            "90",
            &host,
        ])
    })
    .await
    .unwrap();
    assert_eq!(u(&r["count"]), 90);
    assert_eq!(
        r["statusCodeDistribution"],
        serde_json::json!({"OK": 30, "NotFound": 30, "ResourceExhausted": 30})
    );
    let errors = r["errorDistribution"].as_object().unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    for (text, n) in errors {
        assert!(text.starts_with("rpc error: code = "), "{text}");
        assert_eq!(u(n), 30);
    }
    assert_consistent(&r);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_meshes_and_streams_run() {
    let server = TestServer::start_default_with(plain_config).await;
    let host = server.addr.to_string();
    let r = tokio::task::spawn_blocking(move || {
        let health = run_json(&[
            "--insecure",
            "--call",
            "grpc.health.v1.Health/Check",
            "-n",
            "200",
            "-c",
            "4",
            &host,
        ]);
        let mesh = run_json(&[
            "--insecure",
            "--call",
            "terrain.v1.TerrainService/GetTileMesh",
            "-d",
            r#"{"world":"main","tileX":"{{randomInt -2 3}}","tileZ":0}"#,
            "-n",
            "20",
            "-c",
            "2",
            &host,
        ]);
        let streams = run_json(&[
            "--insecure",
            "--call",
            "terrain.v1.TerrainEvents/Subscribe",
            "-d",
            r#"{"world":"main"}"#,
            "-n",
            "6",
            "-c",
            "3",
            "--stream-call-duration",
            "50ms",
            &host,
        ]);
        (health, mesh, streams)
    })
    .await
    .unwrap();
    for report in [&r.0, &r.1, &r.2] {
        assert_eq!(
            report["errorDistribution"],
            serde_json::json!({}),
            "{report}"
        );
        assert_consistent(report);
    }
    assert_eq!(u(&r.0["count"]), 200);
    assert_eq!(u(&r.1["count"]), 20);
    assert_eq!(u(&r.2["count"]), 6);
    // Each stream was held open for its 50 ms.
    assert!(u(&r.2["fastest"]) >= 50_000_000, "{}", r.2);
}

/// Methods no code of `terrain-load` names run from their descriptors alone: a unary
/// zone lookup, a server stream that ends by itself, and a bidirectional stream held
/// for one answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_method_of_the_services_runs() {
    let server = TestServer::start_default_with(|c| {
        plain_config(c);
        // The viewers' tiles are released soon after their streams end, so the server's
        // teardown does not wait out the default 10 s grace.
        c.lifecycle.cull_grace = std::time::Duration::from_millis(100);
    })
    .await;
    let host = server.addr.to_string();
    let r = tokio::task::spawn_blocking(move || {
        let zone_at = run_json(&[
            "--insecure",
            "--call",
            "terrain.v1.TerrainService/GetFlatZoneAt",
            "-d",
            r#"{"world":"main","x":"{{randomFloat -50 50}}","z":0}"#,
            "-n",
            "20",
            "-c",
            "2",
            &host,
        ]);
        let meshes = run_json(&[
            "--insecure",
            "--call",
            "terrain.v1.TerrainService/GetTileMeshes",
            "-d",
            r#"{"world":"main","tiles":[{"x":0,"z":0},{"x":"{{randomInt -2 3}}","z":1}]}"#,
            "-n",
            "6",
            "-c",
            "2",
            "--stream-call-duration",
            "20s",
            &host,
        ]);
        let viewers = run_json(&[
            "--insecure",
            "--call",
            "terrain.v1.TerrainLifecycle.TrackViewers",
            "-d",
            r#"{"world":"old","upsert":{"id":"v{{.RequestNumber}}","x":0,"z":0,"viewWidth":10,"viewDepth":10}}"#,
            "-n",
            "4",
            "-c",
            "2",
            "--stream-call-count",
            "1",
            &host,
        ]);
        (zone_at, meshes, viewers)
    })
    .await
    .unwrap();
    for report in [&r.0, &r.1, &r.2] {
        assert_eq!(
            report["errorDistribution"],
            serde_json::json!({}),
            "{report}"
        );
        assert_consistent(report);
    }
    assert_eq!(u(&r.0["count"]), 20);
    assert_eq!(u(&r.1["count"]), 6);
    // The stream of two meshes ended long before its 20 s.
    assert!(u(&r.1["slowest"]) < 10_000_000_000, "{}", r.1);
    assert_eq!(u(&r.2["count"]), 4);
    assert_eq!(
        r.2["options"]["call"],
        "terrain.v1.TerrainLifecycle.TrackViewers"
    );
}

#[test]
fn bad_flags_are_named() {
    let out = Command::new(env!("CARGO_BIN_EXE_terrain-load"))
        .args([
            "--insecure",
            "--call",
            "terrain.v1.TerrainService/GetHeight",
            "-c",
            "0",
            "127.0.0.1:1",
        ])
        // An expected error is a message, not a bug: no backtrace even when asked for.
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("concurrency: must be at least 1"),
        "{stderr}"
    );
    assert!(!stderr.to_lowercase().contains("backtrace"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line:\n{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_text_summary_follows_ghz() {
    let server = TestServer::start_default_with(plain_config).await;
    let host = server.addr.to_string();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_terrain-load"))
            .args([
                "--insecure",
                "--call",
                "terrain.v1.TerrainService/GetHeight",
                "-d",
                r#"{"world":"main"}"#,
                "-n",
                "50",
                "-c",
                "2",
                &host,
            ])
            .output()
            .expect("runs")
    })
    .await
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for section in [
        "Summary:",
        "  Count:\t50",
        "Requests/sec:",
        "Response time histogram:",
        "Latency distribution:",
        "  99.9 % in ",
        "Status code distribution:",
        "  [OK]\t50 responses",
    ] {
        assert!(text.contains(section), "{section:?} missing from\n{text}");
    }
}

#[test]
fn the_ghz_configs_in_docker_load() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docker/ghz");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("docker/ghz") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let cli = <terrain_load::Cli as clap::Parser>::parse_from([
                "terrain-load",
                "--config",
                path.to_str().unwrap(),
            ]);
            let options = terrain_load::Options::resolve(cli)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(options.host, "127.0.0.1:8080");
            seen += 1;
        }
    }
    assert_eq!(seen, 6);
}

/// A TLS server (a certificate made here with rcgen for 127.0.0.1), and its CA file.
async fn tls_server(dir: &tempfile::TempDir) -> terrain_server::RunningServer {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()])
        .expect("a certificate");
    std::fs::write(dir.path().join("cert.pem"), cert.cert.pem()).unwrap();
    std::fs::write(dir.path().join("key.pem"), cert.signing_key.serialize_pem()).unwrap();
    let mut c = terrain_server::Config {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        data_dir: dir.path().join("data"),
        tls: Some(terrain_server::config::TlsFiles {
            cert: dir.path().join("cert.pem"),
            key: dir.path().join("key.pem"),
        }),
        ..Default::default()
    };
    plain_config(&mut c);
    let running = terrain_server::Server::bind(c)
        .await
        .expect("binds")
        .spawn();
    let url = format!("https://127.0.0.1:{}", running.local_addr().port());
    let mut client = terrain_client::ClientBuilder::new(url)
        .ca_file(dir.path().join("cert.pem"))
        .connect()
        .await
        .expect("connects over TLS");
    for _ in 0..400 {
        if client.is_serving("").await.unwrap_or(false) {
            return running;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("not serving over TLS");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_run_over_tls_with_cacert() {
    let dir = tempfile::tempdir().unwrap();
    let running = tls_server(&dir).await;
    let host = format!("https://127.0.0.1:{}", running.local_addr().port());
    let cacert = dir.path().join("cert.pem").display().to_string();
    let (ok, refused) = tokio::task::spawn_blocking(move || {
        let ok = run_json(&[
            "--cacert",
            &cacert,
            "--call",
            "terrain.v1.TerrainService/GetHeight",
            "-d",
            r#"{"world":"main","x":"{{randomFloat -450 450}}","z":"{{randomFloat -450 450}}"}"#,
            "-c",
            "4",
            "-n",
            "200",
            "--connections",
            "2",
            &host,
        ]);
        // The plaintext flag against the TLS port cannot be served.
        let plain = host.replace("https://", "");
        let refused = Command::new(env!("CARGO_BIN_EXE_terrain-load"))
            .args(["--insecure", "--call", "grpc.health.v1.Health/Check"])
            .args(["--connect-timeout", "5s", "-t", "5s", "-n", "1", "-c", "1"])
            .arg(&plain)
            .output()
            .expect("runs");
        (ok, refused)
    })
    .await
    .unwrap();
    assert_eq!(ok["statusCodeDistribution"], serde_json::json!({"OK": 200}));
    assert_eq!(ok["options"]["insecure"], false);
    assert_consistent(&ok);
    let text = String::from_utf8_lossy(&refused.stdout).into_owned()
        + &String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() || !text.contains("\"OK\""),
        "plaintext was served over the TLS port: {text}"
    );
    running.shutdown().await.unwrap();
}

#[test]
fn a_bad_cacert_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not a certificate").unwrap();
    for path in [dir.path().join("missing.pem"), garbage] {
        let out = Command::new(env!("CARGO_BIN_EXE_terrain-load"))
            .args(["--call", "grpc.health.v1.Health/Check", "--cacert"])
            .arg(&path)
            .arg("https://127.0.0.1:1")
            .output()
            .expect("runs");
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("cacert: ") && stderr.contains(&*path.to_string_lossy()),
            "{stderr}"
        );
    }
}
