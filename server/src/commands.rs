//! The subcommands other than serving, run by `main` instead of a server:
//! `protoset` writes the API's descriptor set, `healthcheck` GETs a readiness URL. The
//! command line that names them is parsed by [`crate::config::cli`], which only parses.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use crate::{config::Command, healthcheck};

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
    Healthcheck(#[from] healthcheck::CheckError),
}

/// Runs `command` to completion.
pub fn run(command: &Command) -> Result<(), CommandError> {
    match command {
        Command::Protoset { output } => {
            write_protoset(output).map_err(|source| CommandError::Protoset {
                path: output.clone(),
                source,
            })
        }
        Command::Healthcheck { url } => Ok(healthcheck::check(url)?),
    }
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
    use super::*;

    #[test]
    fn protoset_to_a_file_and_a_failure_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("api.protoset");
        run(&Command::Protoset {
            output: path.clone(),
        })
        .unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            terrain_proto::FILE_DESCRIPTOR_SET
        );
        let missing = dir.path().join("no/such/dir/api.protoset");
        let err = run(&Command::Protoset { output: missing }).unwrap_err();
        assert!(err.to_string().contains("no/such/dir"), "{err}");
    }
}
