//! Movement authority from the server: terrain info at points, path checks along a
//! polyline and path finding, by the world's walkability rule. Reads, so retried like
//! the height calls.

use terrain_core::walk::Reason;
#[cfg(feature = "net")]
use terrain_proto::v1;

use crate::ClientError;
#[cfg(feature = "net")]
use crate::TerrainClient;

/// What the world's rule says about one point.
#[derive(Debug, Clone, PartialEq)]
pub struct PointInfo {
    /// The final height (zones included), metres.
    pub height: f64,
    /// The biome the rule used; `None` where the world has none.
    pub biome: Option<String>,
    /// The 8-direction slope at 1 m (rise over run).
    pub slope: f64,
    pub underwater: bool,
    /// `None` when walkable, else why not.
    pub reason: Option<Reason>,
    /// The surface normal `[x, y, z]` (the original's `getNormalAt`, a unit vector; x
    /// and z are `-0.0` on flat ground).
    pub normal: [f64; 3],
    /// The original's `getDifficultyAtWorldPosition`, under the `hyperscape` rule only.
    pub difficulty: Option<PointDifficulty>,
}

/// How dangerous a position is (the original's `getDifficultyAtWorldPosition`; its
/// `difficultyTier` is [`PointDifficulty::tier`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PointDifficulty {
    /// 0 (safe) or 1 to 1000.
    pub level: u32,
    /// The curved blend in [0, 1] the level comes from.
    pub scalar: f64,
    /// The biome whose tier it starts from (the seed's first biome centre's type).
    pub biome: String,
    /// That biome's difficulty tier.
    pub tier: f64,
    /// No difficulty here: within a town, or a biome of tier 0.
    pub is_safe: bool,
}

impl PointDifficulty {
    /// The SDK's form of terrain-core's answer (the one a replica computes).
    pub fn of(d: terrain_core::walk::Difficulty) -> Self {
        PointDifficulty {
            level: d.level,
            scalar: d.scalar,
            biome: d.biome.to_string(),
            tier: d.tier,
            is_safe: d.is_safe,
        }
    }
}

impl PointInfo {
    pub fn walkable(&self) -> bool {
        self.reason.is_none()
    }
}

/// Terrain info at each requested point, in order, and the revision it is of.
#[derive(Debug, Clone, PartialEq)]
pub struct TerrainInfos {
    pub points: Vec<PointInfo>,
    pub revision: u64,
}

/// How a path check samples a polyline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathMode {
    /// The original's `findWalkablePath`: 21 samples per segment.
    Hyperscape,
    /// Every 1 m movement tile a segment crosses.
    Exact,
}

/// A path check's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct PathChecked {
    /// The first blocked point and why.
    pub blocked: Option<((f64, f64), Reason)>,
    /// Hyperscape mode: the samples when not blocked, empty when blocked. Exact mode:
    /// the centres of the tiles crossed, up to the blocked one.
    pub path: Vec<(f64, f64)>,
    pub revision: u64,
}

/// A path search's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct PathFound {
    /// `from`, the corners, `to`; or why there is no path.
    pub found: Result<Vec<(f64, f64)>, Unreachable>,
    /// The waypoint polyline's length, metres (0 when not found).
    pub length: f64,
    /// Tiles taken off the open set.
    pub expanded: u64,
    pub revision: u64,
}

#[cfg(feature = "net")]
fn reason(code: i32) -> Result<Option<Reason>, ClientError> {
    match v1::WalkReason::try_from(code) {
        Ok(v1::WalkReason::None) => Ok(None),
        Ok(v1::WalkReason::Water) => Ok(Some(Reason::Water)),
        Ok(v1::WalkReason::Slope) => Ok(Some(Reason::Slope)),
        Ok(v1::WalkReason::Zone) => Ok(Some(Reason::Zone)),
        Ok(v1::WalkReason::Step) => Ok(Some(Reason::Step)),
        Err(_) => Err(ClientError::Protocol(format!("unknown walk reason {code}"))),
    }
}

#[cfg(feature = "net")]
fn point(p: &v1::Point2) -> (f64, f64) {
    (p.x, p.z)
}

/// Why a path search found nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreachable {
    /// The start tile is not walkable.
    StartBlocked,
    /// The goal tile is not walkable.
    GoalBlocked,
    /// Every tile reachable from the start was expanded and none is the goal.
    NoPath,
    /// The node budget ran out first.
    NodeBudget,
}

impl Unreachable {
    /// The SDK's form of terrain-core's answer (the one a local search gives).
    pub fn of(reason: terrain_core::walk::find::Unreachable) -> Self {
        use terrain_core::walk::find::Unreachable as Core;
        match reason {
            Core::Start(_) => Unreachable::StartBlocked,
            Core::Goal(_) => Unreachable::GoalBlocked,
            Core::NoPath => Unreachable::NoPath,
            Core::Budget => Unreachable::NodeBudget,
        }
    }

    /// The code on the wire (`reason` of `FindPathResponse`).
    pub fn parse(code: &str) -> Result<Self, ClientError> {
        match code {
            "start_blocked" => Ok(Unreachable::StartBlocked),
            "goal_blocked" => Ok(Unreachable::GoalBlocked),
            "no_path" => Ok(Unreachable::NoPath),
            "node_budget" => Ok(Unreachable::NodeBudget),
            other => Err(ClientError::Protocol(format!(
                "unknown path reason {other:?}"
            ))),
        }
    }
}

#[cfg(feature = "net")]
impl TerrainClient {
    /// Terrain info at `points` of `world`.
    pub async fn terrain_info(
        &mut self,
        world: &str,
        points: &[(f64, f64)],
    ) -> Result<TerrainInfos, ClientError> {
        self.terrain_info_as_of(world, points, None).await
    }

    /// The walkability of the `width x depth` 1 m tiles from tile `(min_tile_x,
    /// min_tile_z)`, one byte of flags a tile (rows of `width`, z rising; the bits of
    /// [`terrain_core::walk::flags`]: walkable, water, steep, zone core, blocked by a
    /// zone, step), with the revision it is of: a game's collision map from the
    /// server's judgement (`GetWalkGrid`).
    pub async fn walk_grid(
        &mut self,
        world: &str,
        min_tile_x: i64,
        min_tile_z: i64,
        width: u32,
        depth: u32,
    ) -> Result<(Vec<u8>, u64), ClientError> {
        let inner = self.inner.clone();
        let expected = width as usize * depth as usize;
        self.retry
            .run("GetWalkGrid", || {
                let mut c = inner.clone();
                let req = v1::GetWalkGridRequest {
                    world: world.to_string(),
                    min_tile_x,
                    min_tile_z,
                    width,
                    depth,
                    revision: None,
                };
                async move {
                    let r = c.get_walk_grid(req).await?.into_inner();
                    if r.flags.len() != expected {
                        return Err(ClientError::Protocol(format!(
                            "{} bytes for {expected} tiles",
                            r.flags.len()
                        )));
                    }
                    Ok((r.flags, r.revision))
                }
            })
            .await
    }

    /// [`TerrainClient::terrain_info`] as of `revision` (`None`: now): for the world as
    /// it was at that earlier revision (lag compensation), answered with it. A
    /// revision older than the server's history holds (`asof_revisions`), or newer than
    /// the world's, is [`ClientError::FailedPrecondition`] (naming `revision`).
    pub async fn terrain_info_as_of(
        &mut self,
        world: &str,
        points: &[(f64, f64)],
        revision: Option<u64>,
    ) -> Result<TerrainInfos, ClientError> {
        let coordinates: Vec<f64> = points.iter().flat_map(|&(x, z)| [x, z]).collect();
        let expected = points.len();
        let inner = self.inner.clone();
        self.retry
            .run("GetTerrainInfo", || {
                let mut c = inner.clone();
                let req = v1::GetTerrainInfoRequest {
                    world: world.to_string(),
                    coordinates: coordinates.clone(),
                    revision,
                };
                async move {
                    let r = c.get_terrain_info(req).await?.into_inner();
                    if r.points.len() != expected {
                        return Err(ClientError::Protocol(format!(
                            "{} answers for {expected} points",
                            r.points.len()
                        )));
                    }
                    let points = r
                        .points
                        .into_iter()
                        .map(|p| {
                            let normal: [f64; 3] =
                                p.normal.as_slice().try_into().map_err(|_| {
                                    ClientError::Protocol(format!(
                                        "a normal of {} values, expected 3",
                                        p.normal.len()
                                    ))
                                })?;
                            Ok(PointInfo {
                                height: p.height,
                                biome: (!p.biome.is_empty()).then_some(p.biome),
                                slope: p.slope,
                                underwater: p.underwater,
                                reason: reason(p.reason)?,
                                normal,
                                difficulty: p.difficulty.map(|d| PointDifficulty {
                                    level: d.level,
                                    scalar: d.scalar,
                                    biome: d.biome,
                                    tier: d.tier,
                                    is_safe: d.is_safe,
                                }),
                            })
                        })
                        .collect::<Result<_, ClientError>>()?;
                    Ok(TerrainInfos {
                        points,
                        revision: r.revision,
                    })
                }
            })
            .await
    }

    /// Checks the polyline `points` of `world` in `mode`.
    pub async fn check_path(
        &mut self,
        world: &str,
        points: &[(f64, f64)],
        mode: PathMode,
    ) -> Result<PathChecked, ClientError> {
        self.check_path_as_of(world, points, mode, None).await
    }

    /// [`TerrainClient::check_path`] as of `revision` (`None`: now): whether the move
    /// was walkable on the ground the world had at that earlier revision (judging a
    /// client's move against what it saw), as [`TerrainClient::terrain_info_as_of`].
    pub async fn check_path_as_of(
        &mut self,
        world: &str,
        points: &[(f64, f64)],
        mode: PathMode,
        revision: Option<u64>,
    ) -> Result<PathChecked, ClientError> {
        let points: Vec<v1::Point2> = points.iter().map(|&(x, z)| v1::Point2 { x, z }).collect();
        let mode = match mode {
            PathMode::Hyperscape => v1::PathMode::Hyperscape,
            PathMode::Exact => v1::PathMode::Exact,
        };
        let inner = self.inner.clone();
        self.retry
            .run("CheckPath", || {
                let mut c = inner.clone();
                let req = v1::CheckPathRequest {
                    world: world.to_string(),
                    points: points.clone(),
                    mode: mode.into(),
                    revision,
                };
                async move {
                    let r = c.check_path(req).await?.into_inner();
                    let blocked = match (r.blocked, r.at.as_ref(), reason(r.reason)?) {
                        (false, _, _) => None,
                        (true, Some(at), Some(why)) => Some((point(at), why)),
                        _ => {
                            return Err(ClientError::Protocol(
                                "a blocked path without its point or reason".into(),
                            ));
                        }
                    };
                    Ok(PathChecked {
                        blocked,
                        path: r.path.iter().map(point).collect(),
                        revision: r.revision,
                    })
                }
            })
            .await
    }

    /// A shortest path over the movement tiles of `world` from `from` to `to`, with the
    /// server's default budget and distance when `None`.
    pub async fn find_path(
        &mut self,
        world: &str,
        from: (f64, f64),
        to: (f64, f64),
        max_nodes: Option<u64>,
        max_distance: Option<f64>,
    ) -> Result<PathFound, ClientError> {
        let inner = self.inner.clone();
        self.retry
            .run("FindPath", || {
                let mut c = inner.clone();
                let req = v1::FindPathRequest {
                    world: world.to_string(),
                    from: Some(v1::Point2 {
                        x: from.0,
                        z: from.1,
                    }),
                    to: Some(v1::Point2 { x: to.0, z: to.1 }),
                    max_nodes: max_nodes.unwrap_or(0),
                    max_distance: max_distance.unwrap_or(0.0),
                };
                async move {
                    let r = c.find_path(req).await?.into_inner();
                    let found = if r.found {
                        Ok(r.waypoints.iter().map(point).collect())
                    } else {
                        Err(Unreachable::parse(&r.reason)?)
                    };
                    Ok(PathFound {
                        found,
                        length: r.length,
                        expanded: r.expanded,
                        revision: r.revision,
                    })
                }
            })
            .await
    }
}
