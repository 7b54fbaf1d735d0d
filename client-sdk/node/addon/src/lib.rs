//! `terrain-node`: terrain-client's [`terrain_client::LocalTerrain`] for Node.js
//! (napi-rs). The heights are computed by the same Rust code the Rust SDK and the
//! server run, so they are the same bits; this crate only converts arguments.
//!
//! `LocalTerrain.open(url, world)` loads a world from a server and follows its events
//! on the addon's tokio runtime (napi's `tokio_rt`); `LocalTerrain.offline(world,
//! zones)` builds a fixed replica from JSON descriptions with no server. Reads
//! (`heightAt`, `surfaceHeightAt`, `heights`, `surfaceHeights`) are synchronous, from
//! the current snapshot, and so is movement (`terrainInfo`, `terrainInfos`, `checkPath`,
//! `findPath`): the Rust SDK's [`terrain_client::LocalWalk`] by the world's listed
//! walkability rule, the server's answers bit for bit.

use std::{collections::HashMap, sync::Arc};

use napi::{Env, Error, Result, Status, bindgen_prelude::*};
use napi_derive::napi;
use terrain_client::{ClientBuilder, LocalWalk, PathMode, Snapshot, SurfaceReader};
use terrain_core::walk::WalkRule;
use tokio::sync::watch;

mod offline;

/// Points of one `surfaceHeights` call in one tile from which computing the tile's
/// whole surface once is cheaper than evaluating each point (a tile's surface costs
/// about as much as 150 points evaluated on the spot).
const DENSE_TILE: u32 = 128;

/// What the JS object holds: a following replica, or a fixed snapshot and the rule
/// its world description gave (if any).
enum Source {
    Live(Arc<terrain_client::LocalTerrain>),
    Offline(Arc<Snapshot>, Option<WalkRule>),
}

impl Source {
    fn snapshot(&self) -> Arc<Snapshot> {
        match self {
            Source::Live(r) => r.snapshot(),
            Source::Offline(s, _) => Arc::clone(s),
        }
    }

    fn walk_rule(&self) -> Result<&WalkRule> {
        match self {
            Source::Live(r) => r.walk_rule().map_err(js_error),
            Source::Offline(_, rule) => rule.as_ref().ok_or_else(|| {
                invalid("world: the description has no `walkability` (GET /v1/worlds lists it)")
            }),
        }
    }
}

/// One point of terrain info, as the server's `terrain-info` answers it.
#[napi(object, use_nullable = true)]
#[derive(Debug)]
pub struct TerrainInfo {
    /// The final height (zones included), metres.
    pub height: f64,
    /// The biome the rule used; `null` where the world has none.
    pub biome: Option<String>,
    /// The 8-direction slope at 1 m (rise over run).
    pub slope: f64,
    pub underwater: bool,
    pub walkable: bool,
    /// `null` when walkable, else `water`, `slope` or `zone`.
    pub reason: Option<String>,
}

/// A path check's answer.
#[napi(object, use_nullable = true)]
pub struct PathCheck {
    pub blocked: bool,
    /// The first blocked point `[x, z]`, `null` when not blocked.
    pub at: Option<Vec<f64>>,
    /// Why `at` is blocked (`water`, `slope`, `zone`, `step`), `null` when not.
    pub reason: Option<String>,
    /// `[x0, z0, x1, z1, ...]`: hyperscape mode the samples when not blocked (empty when
    /// blocked), exact mode the centres of the tiles crossed up to the blocked one.
    pub path: Float64Array,
}

impl std::fmt::Debug for PathCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PathCheck")
            .field("blocked", &self.blocked)
            .field("at", &self.at)
            .field("reason", &self.reason)
            .field("path", &&self.path[..])
            .finish()
    }
}

/// Options of `findPath`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct FindOptions {
    /// Most tiles to expand (default 100,000; 1 to 1,000,000).
    pub max_nodes: Option<f64>,
    /// Longest straight distance between the ends, metres (default 1,000; at most 5,000).
    pub max_distance: Option<f64>,
}

/// A path search's answer.
#[napi(object, use_nullable = true)]
pub struct FoundPath {
    pub found: bool,
    /// `[x0, z0, x1, z1, ...]`: `from`, the corners, `to`; empty when not found.
    pub waypoints: Float64Array,
    /// The waypoint polyline's length, metres (0 when not found).
    pub length: f64,
    /// Tiles taken off the open set.
    pub expanded: f64,
    /// When not found: `start_blocked`, `goal_blocked`, `no_path` or `node_budget`.
    pub reason: Option<String>,
}

impl std::fmt::Debug for FoundPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FoundPath")
            .field("found", &self.found)
            .field("waypoints", &&self.waypoints[..])
            .field("length", &self.length)
            .field("expanded", &self.expanded)
            .field("reason", &self.reason)
            .finish()
    }
}

fn info_object(p: terrain_client::PointInfo) -> TerrainInfo {
    TerrainInfo {
        height: p.height,
        walkable: p.walkable(),
        biome: p.biome,
        slope: p.slope,
        underwater: p.underwater,
        reason: p.reason.map(|r| r.code().to_string()),
    }
}

fn flat(points: &[(f64, f64)]) -> Float64Array {
    Float64Array::new(points.iter().flat_map(|&(x, z)| [x, z]).collect())
}

/// `unreachable` code of the SDK's answer, as the server spells it.
fn unreachable_code(u: terrain_client::Unreachable) -> &'static str {
    match u {
        terrain_client::Unreachable::StartBlocked => "start_blocked",
        terrain_client::Unreachable::GoalBlocked => "goal_blocked",
        terrain_client::Unreachable::NoPath => "no_path",
        terrain_client::Unreachable::NodeBudget => "node_budget",
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

/// An SDK error as a JS error; an invalid argument names its field as JS spells it.
fn sdk_error(e: terrain_client::ClientError) -> Error {
    match e {
        terrain_client::ClientError::InvalidArgument { field, message } => {
            let field = match field.as_str() {
                "max_nodes" => "maxNodes".to_string(),
                "max_distance" => "maxDistance".to_string(),
                _ => match field.strip_prefix("coordinates") {
                    // The flat array's index, as the server's `coordinates[k]`.
                    Some(rest) => format!("points{rest}"),
                    None => field,
                },
            };
            invalid(format!("{field}: {message}"))
        }
        other => js_error(other),
    }
}

impl LocalTerrain {
    fn infos(&self, points: &[(f64, f64)]) -> Result<Vec<TerrainInfo>> {
        let source = self.source()?;
        let snapshot = source.snapshot();
        let infos = LocalWalk::new(&snapshot, source.walk_rule()?)
            .terrain_info(points)
            .map_err(sdk_error)?;
        Ok(infos.points.into_iter().map(info_object).collect())
    }

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
            Source::Offline(Arc::new(snapshot), info.walkability),
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
            Source::Offline(s, _) => s.height_at(x, z),
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

    /// Terrain info at `(x, z)` by the world's walkability rule: what the server's
    /// `terrain-info` answers at [`Self::revision`].
    #[napi]
    pub fn terrain_info(&self, x: f64, z: f64) -> Result<TerrainInfo> {
        let mut infos = self.infos(&[(x, z)])?;
        infos.pop().ok_or_else(|| js_error("no answer"))
    }

    /// Terrain info at `points` (`[x0, z0, x1, z1, ...]`), all at one snapshot.
    #[napi]
    pub fn terrain_infos(&self, points: &[f64]) -> Result<Vec<TerrainInfo>> {
        let points: Vec<(f64, f64)> = pairs(points)?.map(|p| (p[0], p[1])).collect();
        self.infos(&points)
    }

    /// The path check of the polyline `points` (`[x0, z0, ...]`) in `mode`
    /// (`"hyperscape"` or `"exact"`, the default).
    #[napi(ts_args_type = "points: Float64Array, mode?: \"hyperscape\" | \"exact\" | null")]
    pub fn check_path(&self, points: &[f64], mode: Option<String>) -> Result<PathCheck> {
        let mode = match mode.as_deref() {
            None | Some("exact") => PathMode::Exact,
            Some("hyperscape") => PathMode::Hyperscape,
            Some(other) => {
                return Err(invalid(format!(
                    "mode: unknown mode {other:?}; expected \"hyperscape\" or \"exact\""
                )));
            }
        };
        let points: Vec<(f64, f64)> = pairs(points)?.map(|p| (p[0], p[1])).collect();
        let source = self.source()?;
        let snapshot = source.snapshot();
        let check = LocalWalk::new(&snapshot, source.walk_rule()?)
            .check_path(&points, mode)
            .map_err(sdk_error)?;
        Ok(PathCheck {
            blocked: check.blocked.is_some(),
            at: check.blocked.map(|((x, z), _)| vec![x, z]),
            reason: check.blocked.map(|(_, r)| r.code().to_string()),
            path: flat(&check.path),
        })
    }

    /// A shortest path over the 1 m movement tiles from `(fromX, fromZ)` to `(toX, toZ)`.
    #[napi]
    pub fn find_path(
        &self,
        from_x: f64,
        from_z: f64,
        to_x: f64,
        to_z: f64,
        options: Option<FindOptions>,
    ) -> Result<FoundPath> {
        let options = options.unwrap_or_default();
        let max_nodes = match options.max_nodes {
            None => None,
            Some(n) if n.fract() == 0.0 && n >= 0.0 && n <= u64::MAX as f64 => Some(n as u64),
            Some(n) => {
                return Err(invalid(format!(
                    "maxNodes: must be a whole number, got {n}"
                )));
            }
        };
        let source = self.source()?;
        let snapshot = source.snapshot();
        let found = LocalWalk::new(&snapshot, source.walk_rule()?)
            .find_path(
                (from_x, from_z),
                (to_x, to_z),
                max_nodes,
                options.max_distance,
            )
            .map_err(sdk_error)?;
        Ok(match found.found {
            Ok(waypoints) => FoundPath {
                found: true,
                waypoints: flat(&waypoints),
                length: found.length,
                expanded: found.expanded as f64,
                reason: None,
            },
            Err(why) => FoundPath {
                found: false,
                waypoints: Float64Array::new(Vec::new()),
                length: found.length,
                expanded: found.expanded as f64,
                reason: Some(unreachable_code(why).to_string()),
            },
        })
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
            Source::Offline(s, _) => {
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
