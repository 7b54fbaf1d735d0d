//! `terrain-soak`: a long mixed load against a real terrain server, with a table of
//! latencies, errors and the server's memory every interval, and the checks of
//! `terrain_load::soak` at the end (a non-zero exit when one fails).
//!
//! ```text
//! terrain-soak --server-bin target/release/terrain-server --duration 30m --interval 60s
//! ```

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use terrain_load::soak::{SoakCli, run};

fn main() -> ExitCode {
    terrain_load::exit_code(run_main())
}

fn run_main() -> anyhow::Result<()> {
    let cli = SoakCli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    runtime.block_on(run(cli))?;
    Ok(())
}
