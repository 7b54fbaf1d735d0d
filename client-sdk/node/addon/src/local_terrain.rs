//! The `LocalTerrain` class: opening (from a server, or offline from JSON), the
//! per-point and batch reads, movement (terrain info, path checks, path search), and
//! waiting for revisions and events.

use std::sync::Arc;

use napi::{
    Env, Error, Result, Status, bindgen_prelude::*, threadsafe_function::ThreadsafeCallContext,
};
use napi_derive::napi;
use terrain_client::{ClientBuilder, LocalWalk, PathMode, ReplicaEvent, Snapshot, check_point};
use tokio::sync::{broadcast, watch};

use crate::answers::{FoundPath, PathCheck, TerrainInfo, flat, info_object, unreachable_code};
use crate::errors::{closed_error, invalid, js_error, pairs, point_error, sdk_error};
use crate::events;
use crate::handoff::{Applied, Handoff, Publisher, forward};
use crate::options::{DEFAULT_WAIT_MS, FindOptions, MAX_SAFE_INTEGER, OpenOptions, timeout_ms};
use crate::replica::{Replica, Source};

/// A local replica of one world: heights bit for bit what the server answers at
/// [`LocalTerrain::revision`].
#[napi]
pub struct LocalTerrain {
    shared: Arc<Replica>,
    world: String,
    /// Set on close: pending `waitForRevision` and `nextEvent` promises settle.
    closed: watch::Sender<bool>,
    /// What the follower applied, from the opening, each once the view shows it
    /// (none for offline replicas).
    events: Option<events::Receiver>,
}

impl std::fmt::Debug for LocalTerrain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalTerrain")
            .field("world", &self.world)
            .field("closed", &self.shared.source().is_err())
            .finish()
    }
}

impl LocalTerrain {
    fn infos(&self, points: &[(f64, f64)]) -> Result<Vec<TerrainInfo>> {
        let (source, snapshot) = self.reading()?;
        let infos = LocalWalk::new(&snapshot, source.walk_rule()?)
            .terrain_info(points)
            .map_err(sdk_error)?;
        Ok(infos.points.into_iter().map(info_object).collect())
    }

    fn new(source: Source, view: Arc<Snapshot>, world: String) -> Self {
        let live = matches!(source, Source::Live(_));
        let shared = Arc::new(Replica::new(source, view));
        let events = live.then(|| Arc::new(tokio::sync::Mutex::new(shared.applied.subscribe())));
        LocalTerrain {
            events,
            shared,
            world,
            closed: watch::channel(false).0,
        }
    }

    /// The source and the view, at once.
    fn reading(&self) -> Result<(Source, Arc<Snapshot>)> {
        self.shared
            .read(|o| (o.source.clone(), Arc::clone(&o.view)))
    }

    fn snapshot(&self) -> Result<Arc<Snapshot>> {
        self.shared.snapshot()
    }
}

#[napi]
impl LocalTerrain {
    /// Connects to `url`, loads world `world` (config and zones at one revision) and
    /// follows its events from that revision. Each snapshot the follower publishes
    /// becomes the view on the JavaScript thread, and `onPublish` is then called with
    /// `[epoch, n, rectangles...]` (the view's epoch and where its zones changed;
    /// `src/native.ts` passes it; see the module docs).
    ///
    /// Writable: `src/native.ts` puts the package's `open` (which passes `onPublish`)
    /// in its place.
    #[napi(
        writable,
        ts_args_type = "url: string, world: string, options: OpenOptions | null | undefined, onPublish: (changed: Float64Array) => void",
        ts_return_type = "Promise<LocalTerrain>"
    )]
    pub fn open<'env>(
        env: &'env Env,
        url: String,
        world: String,
        options: Option<OpenOptions>,
        on_publish: Function<'env, Float64Array, ()>,
    ) -> Result<PromiseRaw<'env, LocalTerrain>> {
        let publisher: Publisher = on_publish
            .build_threadsafe_function::<Handoff>()
            .weak::<true>()
            .build_callback(|ctx: ThreadsafeCallContext<Handoff>| Ok(ctx.value.run()))?;
        let options = options.unwrap_or_default();
        let connect_timeout = options
            .connect_timeout_ms
            .map(|ms| timeout_ms("connectTimeoutMs", ms))
            .transpose()?;
        env.spawn_future(async move {
            let mut builder = ClientBuilder::new(url);
            if let Some(ca) = options.ca_file {
                builder = builder.ca_file(ca);
            }
            if let Some(t) = connect_timeout {
                builder = builder.connect_timeout(t);
            }
            let client = builder.connect().await.map_err(js_error)?;
            let replica = terrain_client::LocalTerrain::open(client, &world)
                .await
                .map_err(js_error)?;
            let replica = Arc::new(replica);
            // Subscribed before the first view is taken: no later snapshot is missed.
            let feed = replica.events();
            let view = replica.snapshot();
            let terrain = LocalTerrain::new(Source::Live(replica), view, world);
            tokio::spawn(forward(
                feed,
                Arc::downgrade(&terrain.shared),
                terrain.closed.subscribe(),
                publisher,
            ));
            Ok(terrain)
        })
    }

    /// A fixed replica with no server: `world` is one world of `GET /v1/worlds` (JSON),
    /// `zones` the answer of `GET /v1/worlds/{world}/flat-zones` (`{"zones": [...],
    /// "revision": n}`) or just its array of zones (each with an absolute `height`).
    ///
    /// Writable: `src/native.ts` puts the package's (which checks the arguments' types
    /// first) in its place.
    #[napi(writable, catch_unwind)]
    pub fn offline(world: String, zones: String) -> Result<LocalTerrain> {
        let info = terrain_client::offline::world_info(&world)
            .map_err(|e| invalid(format!("world: {e}")))?;
        let list = terrain_client::offline::zone_list(&zones)
            .map_err(|e| invalid(format!("zones: {e}")))?;
        let terrain = terrain_client::build_terrain(&info, &list).map_err(js_error)?;
        let snapshot = Snapshot::from_terrain(terrain, list.revision);
        Ok(LocalTerrain::new(
            Source::Offline(info.walkability),
            Arc::new(snapshot),
            info.id,
        ))
    }

    /// The world's id.
    #[napi(getter, catch_unwind)]
    pub fn world(&self) -> String {
        self.world.clone()
    }

    /// Whether the replica follows a server (false for `offline` ones).
    #[napi(getter, catch_unwind)]
    pub fn live(&self) -> bool {
        matches!(self.shared.source(), Ok(Source::Live(_)))
    }

    /// The world revision the replica reflects.
    #[napi(getter, catch_unwind)]
    pub fn revision(&self) -> Result<i64> {
        let r = self.snapshot()?.revision();
        i64::try_from(r).map_err(js_error)
    }

    /// The exact height at `(x, z)` (`GetHeight`'s exact mode).
    #[napi(catch_unwind)]
    pub fn height_at(&self, x: f64, z: f64) -> Result<f64> {
        self.shared.height_at(x, z)
    }

    /// The surface-mode height at `(x, z)`: the served mesh's triangle under the point.
    ///
    /// A tile read `SURFACE_TILE_READS` times at one snapshot has its surface
    /// computed and kept, so reads where entities stand are a cell lookup; at most
    /// `SURFACE_TILES_KEPT` tiles are kept. (The package's `surfaceHeightAt` reads
    /// tiles of [`crate::fast::replica_surface_tile`] kept in the WebAssembly
    /// module's `SurfaceStore` instead: no call into the addon for a kept tile.)
    #[napi(catch_unwind)]
    pub fn surface_height_at(&self, x: f64, z: f64) -> Result<f64> {
        self.shared.surface_height_at(x, z)
    }

    /// The replica as an `External` for the per-call functions of [`crate::fast`], which
    /// `src/native.ts` routes `heightAt` and `surfaceHeightAt` through.
    #[napi(getter, catch_unwind, ts_type = "unknown")]
    pub fn handle(&self) -> External<Arc<Replica>> {
        External::new(Arc::clone(&self.shared))
    }

    /// Exact heights of `points` (`[x0, z0, x1, z1, ...]`, read in place), all at one
    /// snapshot.
    #[napi(catch_unwind)]
    pub fn heights(&self, points: &[f64]) -> Result<Float64Array> {
        let snapshot = self.snapshot()?;
        let out = pairs(points)?
            .enumerate()
            .map(|(i, p)| {
                snapshot
                    .height_at(p[0], p[1])
                    .map_err(|e| point_error(i, e))
            })
            .collect::<Result<Vec<f64>>>()?;
        Ok(Float64Array::new(out))
    }

    /// Surface-mode heights of `points` (as [`Self::heights`]), through the same kept
    /// tiles as [`Self::surface_height_at`]: the same bits (the served mesh's) either way.
    #[napi(catch_unwind)]
    pub fn surface_heights(&self, points: &[f64]) -> Result<Float64Array> {
        Ok(Float64Array::new(
            self.shared.surface_heights(pairs(points)?)?,
        ))
    }

    /// The revision of the zone deciding the height at `(x, z)`, with its id: `null`
    /// where the terrain decided.
    #[napi(catch_unwind)]
    pub fn zone_at(&self, x: f64, z: f64) -> Result<Option<String>> {
        check_point(x, z).map_err(sdk_error)?;
        let snapshot = self.snapshot()?;
        Ok(snapshot
            .terrain()
            .sample(x, z)
            .zone
            .map(|(z, _)| z.id.clone()))
    }

    /// Terrain info at `(x, z)` by the world's walkability rule: what the server's
    /// `terrain-info` answers at [`Self::revision`].
    #[napi(catch_unwind)]
    pub fn terrain_info(&self, x: f64, z: f64) -> Result<TerrainInfo> {
        check_point(x, z).map_err(sdk_error)?;
        let mut infos = self.infos(&[(x, z)])?;
        infos.pop().ok_or_else(|| js_error("no answer"))
    }

    /// Terrain info at `points` (`[x0, z0, x1, z1, ...]`), all at one snapshot.
    #[napi(catch_unwind)]
    pub fn terrain_infos(&self, points: &[f64]) -> Result<Vec<TerrainInfo>> {
        let points: Vec<(f64, f64)> = pairs(points)?.map(|p| (p[0], p[1])).collect();
        self.infos(&points)
    }

    /// The path check of the polyline `points` (`[x0, z0, ...]`) in `mode`
    /// (`"hyperscape"` or `"exact"`, the default).
    #[napi(
        catch_unwind,
        ts_args_type = "points: Float64Array, mode?: \"hyperscape\" | \"exact\" | null"
    )]
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
        let (source, snapshot) = self.reading()?;
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
    #[napi(catch_unwind)]
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
        let (source, snapshot) = self.reading()?;
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
    /// reached; rejects if the replica stopped following (the error says why), was
    /// closed, or has not reached it within `timeoutMs` (default 30 s; the error
    /// gives the revision it is at). An offline replica resolves at once when it is at
    /// `revision`.
    #[napi(
        catch_unwind,
        ts_args_type = "revision: number, timeoutMs?: number | null",
        ts_return_type = "Promise<number>"
    )]
    pub fn wait_for_revision<'env>(
        &self,
        env: &'env Env,
        revision: f64,
        timeout: Option<f64>,
    ) -> Result<PromiseRaw<'env, i64>> {
        if !(revision.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&revision)) {
            return Err(invalid(format!(
                "revision: must be a whole number from 0 to 2^53 - 1, got {revision}"
            )));
        }
        let wanted = revision as u64;
        let timeout = timeout_ms("timeoutMs", timeout.unwrap_or(DEFAULT_WAIT_MS))?;
        let (source, view) = self.reading()?;
        let replica = match source {
            Source::Live(r) => r,
            Source::Offline(_) => {
                let at = view.revision();
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
        let mut published = self.shared.published.subscribe();
        let progress = self.shared.published.subscribe();
        env.spawn_future(async move {
            // The follower reaching `wanted`, then the view (which takes the
            // follower's snapshots on the JavaScript thread) reaching it too.
            let reached = async {
                replica.wait_for_revision(wanted).await.map_err(js_error)?;
                let at = published
                    .wait_for(|r| *r >= wanted)
                    .await
                    .map_err(|_| closed_error())?;
                i64::try_from(*at).map_err(js_error)
            };
            tokio::select! {
                r = reached => r,
                _ = closed.wait_for(|c| *c) => Err(closed_error()),
                _ = tokio::time::sleep(timeout) => Err(Error::new(
                    Status::Cancelled,
                    format!(
                        "revision {wanted}: not reached within {} ms (the replica is at {}; \
                         is the server reachable?)",
                        timeout.as_millis(),
                        *progress.borrow()
                    ),
                )),
            }
        })
    }

    /// The next event of the replica, once the snapshot it describes is the one the
    /// reads see (the view took it on the JavaScript thread before the event was
    /// passed on: re-snap what stands inside its `bounds`); events come in revision
    /// order, each once, from the replica's opening. Resolves `null` for an offline
    /// replica or once closed; rejects with the reason once the replica stopped
    /// following for good (a server that came back with another history is not
    /// that: the replica rebuilds and says `rebuilt`).
    #[napi(ts_return_type = "Promise<LocalEvent | null>")]
    pub fn next_event<'env>(
        &self,
        env: &'env Env,
    ) -> Result<PromiseRaw<'env, Option<events::LocalEvent>>> {
        let Some(receiver) = self.events.clone() else {
            return env.spawn_future(async { Ok(None) });
        };
        if self.shared.source().is_err() {
            return env.spawn_future(async { Ok(None) });
        }
        let shared = Arc::clone(&self.shared);
        let mut closed = self.closed.subscribe();
        let stopped = |reason: &dyn std::fmt::Display| {
            js_error(format!("the replica stopped following: {reason}"))
        };
        env.spawn_future(async move {
            let mut receiver = receiver.lock().await;
            // Stopped before this call (its event already taken): say so, never hang.
            if receiver.is_empty()
                && let Ok(Source::Live(replica)) = shared.source()
                && let Some(e) = replica.stopped()
            {
                return Err(stopped(&e));
            }
            tokio::select! {
                event = receiver.recv() => Ok(match event {
                    Ok(Applied::Event(ReplicaEvent::Stopped { reason })) => {
                        return Err(stopped(&reason));
                    }
                    Ok(Applied::Event(e)) => Some(events::LocalEvent::of(e)),
                    Ok(Applied::Missed(missed))
                    | Err(broadcast::error::RecvError::Lagged(missed)) => {
                        let at = shared.snapshot()?.revision();
                        Some(events::LocalEvent::lagged(at, missed))
                    }
                    Err(broadcast::error::RecvError::Closed) => None,
                }),
                _ = closed.wait_for(|c| *c) => Ok(None),
            }
        })
    }

    /// Stops following and releases the replica; later calls throw. Idempotent.
    #[napi(catch_unwind)]
    pub fn close(&mut self) {
        self.shared.close();
        self.closed.send_replace(true);
    }
}
