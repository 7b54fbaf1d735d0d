//! The end-to-end harness for the tests still in this crate (`load.rs`, which runs the
//! `terrain-load` executable, so it stays with its package): the `terrain-tests`
//! library, shared with the one end-to-end binary `tests/tests/e2e`.

pub use terrain_tests::*;
