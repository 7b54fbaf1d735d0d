//! `terrain-server`: parse the command line, load the configuration, start logging,
//! bind, and serve until SIGINT/SIGTERM. `terrain-server protoset [FILE|-]` writes the
//! API's descriptor set instead (for `ghz --protoset`).

use anyhow::Context;
use clap::Parser;
use terrain_server::{Cli, Config, Server, config::Command, shutdown, telemetry};
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Some(Command::Protoset { output }) = &cli.command {
        return terrain_server::config::cli::write_protoset(output)
            .with_context(|| format!("writing {}", output.display()));
    }
    let config = Config::load(&cli)?;
    telemetry::init(config.log_format)?;
    let server = Server::bind(config).await?;
    let token = CancellationToken::new();
    shutdown::cancel_on_signal(token.clone());
    server.run(token).await?;
    Ok(())
}
