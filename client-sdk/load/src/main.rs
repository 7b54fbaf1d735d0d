//! `terrain-load`: a ghz-compatible load generator for the terrain server.
//!
//! ```text
//! terrain-load --insecure --call terrain.v1.TerrainService/GetHeight \
//!     -d '{"world":"main","x":"{{randomFloat -450 450}}","z":"{{randomFloat -450 450}}"}' \
//!     -c 64 -n 200000 --connections 4 127.0.0.1:8080
//! ```

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use terrain_load::{Cli, Format, Options, run};

fn main() -> ExitCode {
    terrain_load::exit_code(run_main())
}

fn run_main() -> anyhow::Result<()> {
    let options = Options::resolve(Cli::parse())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let report = runtime.block_on(run(&options))?;
    let text = match options.format {
        Format::Summary => report.summary(),
        Format::Json => serde_json::to_string(&report)?,
        Format::Pretty => serde_json::to_string_pretty(&report)?,
    };
    match &options.output {
        Some(path) => std::fs::write(path, text + "\n")
            .with_context(|| format!("writing {}", path.display()))?,
        None => println!("{text}"),
    }
    Ok(())
}
