//! A typed async client for the terrain server's gRPC API.
//!
//! - [`TerrainClient`]: connect with [`ClientBuilder`] (URL, optional bearer token,
//!   timeouts, retry policy), then call the service with Rust types.
//! - [`ClientError`]: typed failures (invalid argument with the offending field, not
//!   found, unauthenticated, unavailable, ...).
//! - [`RetryPolicy`]: exponential backoff, applied to idempotent calls only (every
//!   call of this version is a read, so all of them).
//!
//! ```no_run
//! # async fn demo() -> Result<(), terrain_client::ClientError> {
//! let mut client = terrain_client::TerrainClient::connect("http://127.0.0.1:8080").await?;
//! let h = client.height("main", 10.0, -20.0).await?;
//! println!("height {} m at revision {}", h.height, h.revision);
//! # Ok(()) }
//! ```

mod client;
mod error;
mod retry;
mod types;

pub use client::{BearerAuth, ClientBuilder, TerrainClient};
pub use error::ClientError;
pub use retry::RetryPolicy;
pub use types::{Height, Heightmap, Heights, WorldInfo};
