//! Sets `cfg(nats_server)` when a `nats-server` binary can be found at build time
//! (`$TERRAIN_TEST_NATS_SERVER` naming a file, or `nats-server` on `PATH`), the way
//! `tests/process/scale.rs` finds it at run time. The NATS tests of `tests/process` are
//! `#[cfg_attr(not(nats_server), ignore = ...)]`: without a server the test runner
//! reports them as ignored instead of letting them pass. Under CI (`CI` set and not
//! `false`) the cfg is set regardless, so a CI without `nats-server` fails those tests
//! rather than ignoring them. Nothing outside those tests reads the cfg.

use std::{env, path::PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(nats_server)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=TERRAIN_TEST_NATS_SERVER");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    let named = env::var_os("TERRAIN_TEST_NATS_SERVER").map(PathBuf::from);
    if let Some(path) = named.as_ref().filter(|p| !p.is_file()) {
        println!(
            "cargo::warning=TERRAIN_TEST_NATS_SERVER={} is not a file; looking for nats-server on PATH",
            path.display()
        );
    }
    let found = named.filter(|p| p.is_file()).or_else(|| {
        env::split_paths(&env::var_os("PATH").unwrap_or_default())
            .map(|dir| dir.join("nats-server"))
            .find(|p| p.is_file())
    });
    let ci = env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
    if found.is_some() || ci {
        println!("cargo::rustc-cfg=nats_server");
    }
}
