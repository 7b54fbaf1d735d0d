//! The subcommands other than serving, run by `main` instead of a server:
//! `protoset` writes the API's descriptor set, `healthcheck` GETs a readiness URL,
//! `backup` writes a snapshot of the zone store (of a running server, or of a stopped
//! one's `data_dir`) and `restore` loads one into an empty `data_dir`. The command line
//! that names them is parsed by [`crate::config::cli`], which only parses.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use crate::{
    config::{Cli, Command, Config, ConfigError},
    fetch,
    store::{
        StoreError, ZoneStore,
        backup::{Backup, BackupError},
    },
    world::ZoneRules,
};

/// Why a subcommand failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The descriptor set could not be written.
    #[error("writing {}: {source}", path.display())]
    Protoset {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The readiness URL did not answer 200.
    #[error(transparent)]
    Healthcheck(#[from] fetch::CheckError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Backup(#[from] BackupError),
    /// The backup file could not be read or written.
    #[error("{}: {source}", path.display())]
    File {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Runs `command` to completion; `backup` and `restore` read the configuration of
/// `cli` (its `data_dir`, its admin token).
pub fn run(cli: &Cli, command: &Command) -> Result<(), CommandError> {
    match command {
        Command::Backup {
            output,
            from,
            ca_file,
        } => backup(cli, output, from.as_deref(), ca_file.as_deref()),
        Command::Restore { input } => restore(&Config::load(cli)?, input),
        Command::Protoset { output } => {
            write_protoset(output).map_err(|source| CommandError::Protoset {
                path: output.clone(),
                source,
            })
        }
        Command::Healthcheck { url } => Ok(fetch::check(url)?),
    }
}

/// `backup`: the snapshot of the running server at `from` (`http://` or `https://`,
/// trusting `ca_file`), or of the configured `data_dir` (which a running server holds
/// locked: then use `from`).
fn backup(
    cli: &Cli,
    output: &Path,
    from: Option<&str>,
    ca_file: Option<&Path>,
) -> Result<(), CommandError> {
    let config = Config::load(cli)?;
    let snapshot = match from {
        Some(url) => {
            let url = format!("{}/v1/admin/backup", url.trim_end_matches('/'));
            let auth = config
                .admin_token
                .as_ref()
                .map(|t| format!("Bearer {}", t.expose()));
            Backup::from_json(&fetch::fetch(&url, auth.as_deref(), ca_file)?)?
        }
        None => {
            let store = ZoneStore::open_existing(&config.data_dir)?;
            let snapshot = store.snapshot()?;
            store.close();
            snapshot
        }
    };
    write_out(output, &snapshot.to_json())?;
    eprintln!(
        "backup: {} worlds, {} zones, to {}",
        snapshot.worlds.len(),
        snapshot.zones(),
        output.display()
    );
    Ok(())
}

/// `restore`: loads the backup at `input` into `config.data_dir`'s new or empty store.
pub fn restore(config: &Config, input: &Path) -> Result<(), CommandError> {
    let file = |source| CommandError::File {
        path: input.to_path_buf(),
        source,
    };
    let bytes = if input == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes).map_err(file)?;
        bytes
    } else {
        std::fs::read(input).map_err(file)?
    };
    let backup = Backup::from_json(&bytes)?;
    // Every world checked before the data_dir or its store is created: a refused
    // backup leaves no trace.
    // The server's range; a voxel world's narrower one is checked again when it opens.
    let rules = ZoneRules::from_limits(&config.limits, config.limits.max_coordinate);
    backup.check(&rules)?;
    std::fs::create_dir_all(&config.data_dir).map_err(|source| CommandError::File {
        path: config.data_dir.clone(),
        source,
    })?;
    let store = ZoneStore::open(&config.data_dir)?;
    store.restore(&backup, &rules)?;
    store.close();
    eprintln!(
        "restore: {} worlds, {} zones into {}",
        backup.worlds.len(),
        backup.zones(),
        config.data_dir.display()
    );
    Ok(())
}

/// Writes `bytes` to `output` (`-` is standard output).
fn write_out(output: &Path, bytes: &[u8]) -> Result<(), CommandError> {
    let result = if output == Path::new("-") {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(bytes).and_then(|()| stdout.flush())
    } else {
        std::fs::write(output, bytes)
    };
    result.map_err(|source| CommandError::File {
        path: output.to_path_buf(),
        source,
    })
}

/// Writes [`terrain_proto::FILE_DESCRIPTOR_SET`] to `output` (`-` is standard output).
pub fn write_protoset(output: &Path) -> std::io::Result<()> {
    let bytes = terrain_proto::FILE_DESCRIPTOR_SET;
    if output == Path::new("-") {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(bytes)?;
        stdout.flush()
    } else {
        std::fs::write(output, bytes)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn cli() -> Cli {
        Cli::try_parse_from(["terrain-server"]).unwrap()
    }

    #[test]
    fn protoset_to_a_file_and_a_failure_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("api.protoset");
        run(
            &cli(),
            &Command::Protoset {
                output: path.clone(),
            },
        )
        .unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            terrain_proto::FILE_DESCRIPTOR_SET
        );
        let missing = dir.path().join("no/such/dir/api.protoset");
        let err = run(&cli(), &Command::Protoset { output: missing }).unwrap_err();
        assert!(err.to_string().contains("no/such/dir"), "{err}");
    }
}
