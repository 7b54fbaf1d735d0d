//! The harness under its old path, for a test file still written as its own binary
//! (`tests/tests/<topic>.rs` with `mod common;`): it is the `terrain-tests` library.
//! Such a file belongs in the one binary: move it to `tests/tests/e2e/` (see the `//!`
//! of `tests/tests/e2e/main.rs`).

pub use terrain_tests::*;
