//! The plain objects the class answers (`terrainInfo`, `checkPath`, `findPath`) and
//! their conversion from the Rust SDK's answers.

use napi::bindgen_prelude::Float64Array;
use napi_derive::napi;

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

pub(crate) fn info_object(p: terrain_client::PointInfo) -> TerrainInfo {
    TerrainInfo {
        height: p.height,
        walkable: p.walkable(),
        biome: p.biome,
        slope: p.slope,
        underwater: p.underwater,
        reason: p.reason.map(|r| r.code().to_string()),
    }
}

pub(crate) fn flat(points: &[(f64, f64)]) -> Float64Array {
    Float64Array::new(points.iter().flat_map(|&(x, z)| [x, z]).collect())
}

/// `unreachable` code of the SDK's answer, as the server spells it.
pub(crate) fn unreachable_code(u: terrain_client::Unreachable) -> &'static str {
    match u {
        terrain_client::Unreachable::StartBlocked => "start_blocked",
        terrain_client::Unreachable::GoalBlocked => "goal_blocked",
        terrain_client::Unreachable::NoPath => "no_path",
        terrain_client::Unreachable::NodeBudget => "node_budget",
    }
}
