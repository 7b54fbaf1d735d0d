//! The configuration file (TOML), as `--config` reads it: parsed, layered over the
//! defaults and validated into a `Config`.
//!
//! Properties: an accepted file gives a configuration that validates again and is the
//! same when read twice; a refusal names a non-empty key (`worlds[0].seed`,
//! `max_batch_points`) and a reason, or is a syntax error with a message.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use terrain_server::{Config, config::ConfigError};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let base = Path::new("/etc/terrain");
    match Config::from_toml(text, base) {
        Ok(config) => {
            config
                .validate()
                .unwrap_or_else(|e| panic!("accepted config fails validation: {e}"));
            let again = Config::from_toml(text, base).expect("reading again succeeds");
            assert_eq!(again, config, "reading is deterministic");
        }
        Err(ConfigError::Invalid { key, message }) => {
            assert!(
                !key.is_empty(),
                "refusal without a key: {message} for {text:?}"
            );
            assert!(!message.is_empty(), "refusal of {key} without a reason");
        }
        Err(ConfigError::Syntax { message, .. }) => {
            assert!(!message.is_empty(), "syntax error without a message");
        }
        Err(err @ ConfigError::Read { .. }) => panic!("parsing text read a file: {err}"),
    }
});
