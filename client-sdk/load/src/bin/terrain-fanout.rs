//! `terrain-fanout`: event fan-out latency and the server's CPU per delivered event,
//! measured from a process of its own (see `terrain_load::fanout`).
//!
//! ```text
//! terrain-fanout --url http://127.0.0.1:18080 --ws 1000 --mutations 100 \
//!     --server-pid "$(pidof terrain-server)"
//! ```

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use terrain_load::fanout::{FanoutCli, run};

fn main() -> ExitCode {
    terrain_load::exit_code(run_main())
}

fn run_main() -> anyhow::Result<()> {
    let cli = FanoutCli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cli.threads.max(1))
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let report = runtime.block_on(run(&cli))?;
    if cli.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!("{}", report.summary());
    }
    Ok(())
}
