//! The command line: `--config`, a subcommand, and every key of [`Settings`] as a flag
//! and a `TERRAIN_*` environment variable. Flags and variables override the file: clap
//! lays the ones given over the file's settings ([`Cli::layer_over`]).
//!
//! This module only parses. The subcommands ([`Command`]) are run by
//! `crate::commands`.

use std::path::PathBuf;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

use super::Settings;

/// The URL `terrain-server healthcheck` checks by default: the readiness route of a
/// server on the default address, [`super::DEFAULT_LISTEN`].
pub const DEFAULT_HEALTHCHECK_URL: &str = "http://127.0.0.1:8080/readyz";

/// Authoritative terrain server: height queries over gRPC and HTTP on one port.
///
/// Settings come from flags and environment variables, then the `--config` file, then
/// defaults. Without any, it serves world `main` (hyperscape, seed 0, with the island's
/// stations and duel arenas) on 127.0.0.1:8080.
#[derive(Debug, Clone, Parser)]
#[command(name = "terrain-server", version)]
struct Args {
    /// TOML configuration file.
    #[arg(long, short, env = "TERRAIN_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,

    #[command(flatten)]
    settings: Settings,

    #[command(subcommand)]
    command: Option<Command>,
}

/// Commands other than serving.
#[derive(Debug, Clone, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Write the encoded `FileDescriptorSet` of the API (for `ghz --protoset`).
    Protoset {
        /// Output file, or `-` for standard output.
        #[arg(default_value = "-")]
        output: PathBuf,
    },
    /// GET a readiness URL; exit 0 if it answers 200 (for container health checks).
    Healthcheck {
        /// The URL to check.
        #[arg(default_value = DEFAULT_HEALTHCHECK_URL)]
        url: String,
    },
    /// Writes a consistent snapshot of every world's zones and revision: of a running
    /// server with `--from URL` (through its authenticated `GET /v1/admin/backup`, using
    /// the configured admin token), otherwise of the stopped server's `data_dir`.
    Backup {
        /// Where to write the backup file (`-`: standard output).
        #[arg(long, short, default_value = "-")]
        output: PathBuf,
        /// The running server, e.g. `http://127.0.0.1:8080` or `https://HOST:PORT`
        /// (with `--ca-file`).
        #[arg(long, value_name = "URL")]
        from: Option<String>,
        /// For an `https://` `--from`: the PEM certificate(s) of the CA that signed the
        /// server's certificate (its own certificate, if self-signed).
        #[arg(long, value_name = "FILE", requires = "from")]
        ca_file: Option<PathBuf>,
    },
    /// Loads a backup file into the configured `data_dir`, whose store must be new or
    /// empty.
    Restore {
        /// The backup file (`-`: standard input).
        #[arg(long, short)]
        input: PathBuf,
    },
}

/// A parsed command line.
#[derive(Debug, Clone)]
pub struct Cli {
    /// The configuration file named by `--config` / `TERRAIN_CONFIG`.
    pub config: Option<PathBuf>,
    /// A command to run instead of serving.
    pub command: Option<Command>,
    /// What the flags and variables set; [`Cli::layer_over`] lays them over a file's.
    pub settings: Settings,
    /// The parse, which knows which flags and variables were given.
    matches: ArgMatches,
}

impl Cli {
    /// `lower` (a file's settings) with every key that a flag or variable gave
    /// replaced by that value: clap's own update, so no key is listed twice.
    pub fn layer_over(&self, lower: Settings) -> Result<Settings, clap::Error> {
        let mut settings = lower;
        settings.update_from_arg_matches(&self.matches)?;
        Ok(settings)
    }
}

/// `Cli::parse()`, `Cli::try_parse_from(...)`: clap's parse of the derived `Args`, keeping the
/// matches for [`Cli::layer_over`].
impl Parser for Cli {}

impl CommandFactory for Cli {
    fn command() -> clap::Command {
        Args::command()
    }

    fn command_for_update() -> clap::Command {
        Args::command_for_update()
    }
}

impl FromArgMatches for Cli {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let args = Args::from_arg_matches(matches)?;
        Ok(Cli {
            config: args.config,
            command: args.command,
            settings: args.settings,
            matches: matches.clone(),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Cli::from_arg_matches(matches)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DEFAULT_LISTEN;

    #[test]
    fn the_default_healthcheck_url_is_the_default_address() {
        assert_eq!(
            DEFAULT_HEALTHCHECK_URL,
            format!("http://{DEFAULT_LISTEN}/readyz")
        );
        Args::command().debug_assert();
    }
}
