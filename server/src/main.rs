//! `terrain-server`: parse the command line, load the configuration, start logging,
//! bind, and serve until SIGINT/SIGTERM. `terrain-server protoset [FILE|-]` writes the
//! API's descriptor set instead (for `ghz --protoset`); `terrain-server healthcheck
//! [URL]` exits 0 if the URL answers 200 (the container health check); `backup` and
//! `restore` write and load snapshots of the zone store. All are run by
//! [`terrain_server::commands`].

use std::process::ExitCode;

use clap::Parser;
use terrain_server::{Cli, Config, Server, commands, shutdown, telemetry};
use tokio_util::sync::CancellationToken;

/// An expected failure (a bad key, a damaged store, a port in use) prints its message
/// and causes on one line and exits 1; a stack backtrace is for bugs (panics), so it is
/// not printed here even when `RUST_BACKTRACE` is set.
fn main() -> ExitCode {
    match serve() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

#[tokio::main]
async fn serve() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Some(command) = &cli.command {
        return Ok(commands::run(&cli, command)?);
    }
    let config = Config::load(&cli)?;
    telemetry::init(config.log_format)?;
    let token = CancellationToken::new();
    shutdown::cancel_on_signal(token.clone());
    let server = Server::bind(config).await?;
    server.run(token).await?;
    Ok(())
}
