//! `terrain-node`: terrain-client's [`terrain_client::LocalTerrain`] for Node.js
//! (napi-rs). The heights are computed by the same Rust code the Rust SDK and the
//! server run, so they are the same bits; this crate only converts arguments.
//!
//! `LocalTerrain.open(url, world)` loads a world from a server and follows its events
//! on the addon's tokio runtime (napi's `tokio_rt`); `LocalTerrain.offline(world,
//! zones)` builds a fixed replica from JSON descriptions with no server. Reads
//! (`heightAt`, `surfaceHeightAt`, `heights`, `surfaceHeights`) are synchronous, from
//! the current snapshot.

use std::{collections::HashMap, sync::Arc};

use napi::{Env, Error, Result, Status, bindgen_prelude::*};
use napi_derive::napi;
use terrain_client::{ClientBuilder, Snapshot, SurfaceReader};
use tokio::sync::watch;

mod offline;

/// Points of one `surfaceHeights` call in one tile from which computing the tile's
/// whole surface once is cheaper than evaluating each point (a tile's surface costs
/// about as much as 150 points evaluated on the spot).
const DENSE_TILE: u32 = 128;

/// What the JS object holds: a following replica, or a fixed snapshot.
enum Source {
    Live(Arc<terrain_client::LocalTerrain>),
    Offline(Arc<Snapshot>),
}

impl Source {
    fn snapshot(&self) -> Arc<Snapshot> {
        match self {
            Source::Live(r) => r.snapshot(),
            Source::Offline(s) => Arc::clone(s),
        }
    }
}

/// Options of `LocalTerrain.open`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct OpenOptions {
    /// PEM file of the CA that signed the server's certificate (`https://` URLs).
    pub ca_file: Option<String>,
    /// Connect timeout in milliseconds (default: the Rust SDK's).
    pub connect_timeout_ms: Option<u32>,
}

/// A local replica of one world: heights bit for bit what the server answers at
/// [`LocalTerrain::revision`].
#[napi]
pub struct LocalTerrain {
    /// `None` once closed.
    source: Option<Source>,
    world: String,
    /// Set on close: pending `waitForRevision` promises reject.
    closed: watch::Sender<bool>,
}

impl std::fmt::Debug for LocalTerrain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalTerrain")
            .field("world", &self.world)
            .field("closed", &self.source.is_none())
            .finish()
    }
}

fn js_error(e: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, e.to_string())
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, message.into())
}

fn closed_error() -> Error {
    Error::new(Status::GenericFailure, "LocalTerrain is closed")
}

/// The points of a flat `[x0, z0, x1, z1, ...]` array, or why not.
fn pairs(points: &[f64]) -> Result<std::slice::ChunksExact<'_, f64>> {
    if !points.len().is_multiple_of(2) {
        return Err(invalid(format!(
            "points: expected x, z pairs (an even length), got {} numbers",
            points.len()
        )));
    }
    Ok(points.chunks_exact(2))
}

impl LocalTerrain {
    fn new(source: Source, world: String) -> Self {
        LocalTerrain {
            source: Some(source),
            world,
            closed: watch::channel(false).0,
        }
    }

    fn source(&self) -> Result<&Source> {
        self.source.as_ref().ok_or_else(closed_error)
    }
}

#[napi]
impl LocalTerrain {
    /// Connects to `url`, loads world `world` (config and zones at one revision) and
    /// follows its events from that revision.
    #[napi]
    pub async fn open(
        url: String,
        world: String,
        options: Option<OpenOptions>,
    ) -> Result<LocalTerrain> {
        let options = options.unwrap_or_default();
        let mut builder = ClientBuilder::new(url);
        if let Some(ca) = options.ca_file {
            builder = builder.ca_file(ca);
        }
        if let Some(ms) = options.connect_timeout_ms {
            builder = builder.connect_timeout(std::time::Duration::from_millis(ms.into()));
        }
        let client = builder.connect().await.map_err(js_error)?;
        let replica = terrain_client::LocalTerrain::open(client, &world)
            .await
            .map_err(js_error)?;
        Ok(LocalTerrain::new(Source::Live(Arc::new(replica)), world))
    }

    /// A fixed replica with no server: `world` is one world of `GET /v1/worlds` (JSON),
    /// `zones` the answer of `GET /v1/worlds/{world}/flat-zones` (`{"zones": [...],
    /// "revision": n}`) or just its array of zones (each with an absolute `height`).
    #[napi]
    pub fn offline(world: String, zones: String) -> Result<LocalTerrain> {
        let info = offline::world_info(&world).map_err(|e| invalid(format!("world: {e}")))?;
        let list = offline::zone_list(&zones).map_err(|e| invalid(format!("zones: {e}")))?;
        let terrain = terrain_client::build_terrain(&info, &list).map_err(js_error)?;
        let snapshot = Snapshot::from_terrain(terrain, list.revision);
        Ok(LocalTerrain::new(
            Source::Offline(Arc::new(snapshot)),
            info.id,
        ))
    }

    /// The world's id.
    #[napi(getter)]
    pub fn world(&self) -> String {
        self.world.clone()
    }

    /// Whether the replica follows a server (false for `offline` ones).
    #[napi(getter)]
    pub fn live(&self) -> bool {
        matches!(self.source, Some(Source::Live(_)))
    }

    /// The world revision the replica reflects.
    #[napi(getter)]
    pub fn revision(&self) -> Result<i64> {
        let r = self.source()?.snapshot().revision();
        i64::try_from(r).map_err(js_error)
    }

    /// The exact height at `(x, z)` (`GetHeight`'s exact mode).
    #[napi]
    pub fn height_at(&self, x: f64, z: f64) -> Result<f64> {
        Ok(match self.source()? {
            Source::Live(r) => r.height_at(x, z),
            Source::Offline(s) => s.height_at(x, z),
        })
    }

    /// The surface-mode height at `(x, z)`: the served mesh's triangle under the point.
    #[napi]
    pub fn surface_height_at(&self, x: f64, z: f64) -> Result<f64> {
        Ok(self.source()?.snapshot().surface_height_at(x, z))
    }

    /// Exact heights of `points` (`[x0, z0, x1, z1, ...]`, read in place), all at one
    /// snapshot.
    #[napi]
    pub fn heights(&self, points: &[f64]) -> Result<Float64Array> {
        let snapshot = self.source()?.snapshot();
        let out: Vec<f64> = pairs(points)?
            .map(|p| snapshot.height_at(p[0], p[1]))
            .collect();
        Ok(Float64Array::new(out))
    }

    /// Surface-mode heights of `points` (as [`Self::heights`]). A tile holding at
    /// least [`DENSE_TILE`] of the points has its surface computed once for the call
    /// ([`SurfaceReader`]); the points of sparser tiles are evaluated on the spot. Both
    /// are the same bits (the served mesh's).
    #[napi]
    pub fn surface_heights(&self, points: &[f64]) -> Result<Float64Array> {
        let snapshot = self.source()?.snapshot();
        let layout = snapshot.terrain().generator().tile_grid();
        let tile = |p: &[f64]| (layout.tile_of(p[0]), layout.tile_of(p[1]));
        let mut per_tile: HashMap<(i64, i64), u32> = HashMap::new();
        for p in pairs(points)? {
            *per_tile.entry(tile(p)).or_default() += 1;
        }
        let mut reader = SurfaceReader::new(Arc::clone(&snapshot));
        let out: Vec<f64> = pairs(points)?
            .map(|p| {
                if per_tile.get(&tile(p)).is_some_and(|&n| n >= DENSE_TILE) {
                    reader.height_at(p[0], p[1])
                } else {
                    snapshot.surface_height_at(p[0], p[1])
                }
            })
            .collect();
        Ok(Float64Array::new(out))
    }

    /// The revision of the zone deciding the height at `(x, z)`, with its id: `null`
    /// where the terrain decided.
    #[napi]
    pub fn zone_at(&self, x: f64, z: f64) -> Result<Option<String>> {
        let snapshot = self.source()?.snapshot();
        Ok(snapshot
            .terrain()
            .sample(x, z)
            .zone
            .map(|(z, _)| z.id.clone()))
    }

    /// Resolves once the replica reflects `revision` or later, with the revision
    /// reached; rejects if the replica stopped following (the error says why) or was
    /// closed. An offline replica resolves at once when it is at `revision`.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn wait_for_revision<'env>(
        &self,
        env: &'env Env,
        revision: i64,
    ) -> Result<PromiseRaw<'env, i64>> {
        let wanted = u64::try_from(revision)
            .map_err(|_| invalid(format!("revision: must be >= 0, got {revision}")))?;
        let source = self.source()?;
        let replica = match source {
            Source::Live(r) => Arc::clone(r),
            Source::Offline(s) => {
                let at = s.revision();
                return env.spawn_future(async move {
                    if at >= wanted {
                        i64::try_from(at).map_err(js_error)
                    } else {
                        Err(invalid(format!(
                            "revision {wanted}: an offline replica stays at {at}"
                        )))
                    }
                });
            }
        };
        let mut closed = self.closed.subscribe();
        env.spawn_future(async move {
            tokio::select! {
                reached = replica.wait_for_revision(wanted) => {
                    let r = reached.map_err(js_error)?;
                    i64::try_from(r).map_err(js_error)
                }
                _ = closed.wait_for(|c| *c) => Err(closed_error()),
            }
        })
    }

    /// Stops following and releases the replica; later calls throw. Idempotent.
    #[napi]
    pub fn close(&mut self) {
        self.source = None;
        self.closed.send_replace(true);
    }
}
