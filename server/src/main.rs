//! `terrain-server`: parse the command line, load the configuration, start logging,
//! bind, and serve until SIGINT/SIGTERM. `terrain-server protoset [FILE|-]` writes the
//! API's descriptor set instead (for `ghz --protoset`); `terrain-server healthcheck
//! [URL]` exits 0 if the URL answers 200 (the container health check).

use anyhow::Context;
use clap::Parser;
use terrain_server::{Cli, Config, Server, config::Command, shutdown, telemetry};
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match &cli.command {
        Some(Command::Protoset { output }) => {
            return terrain_server::config::cli::write_protoset(output)
                .with_context(|| format!("writing {}", output.display()));
        }
        Some(Command::Healthcheck { url }) => {
            return Ok(terrain_server::healthcheck::check(url)?);
        }
        None => {}
    }
    let config = Config::load(&cli)?;
    telemetry::init(config.log_format)?;
    let server = Server::bind(config).await?;
    let token = CancellationToken::new();
    shutdown::cancel_on_signal(token.clone());
    server.run(token).await?;
    Ok(())
}
