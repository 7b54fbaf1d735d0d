//! Movement answers computed locally: terrain info, path checks (both modes) and path
//! finding at one replica snapshot, by the world's walkability rule as `ListWorlds`
//! describes it (`WorldInfo::walkability`). They run the same `terrain-core` walker the
//! server runs (`Walker::info`, `check_sampled`, `check_tiles`, `find_path` over
//! `WalkGrids`), on the same terrain, so they are the server's answers bit for bit at
//! the snapshot's revision.
//!
//! Requests are checked as the server checks them, by the same functions
//! ([`terrain_core::walk::limits`]), naming the field in
//! [`ClientError::InvalidArgument`] (or [`ClientError::ResourceExhausted`] for a
//! polyline over its limits). The server's coordinate range (its `max_coordinate`) is
//! not known here: coordinates are checked against the largest a server may have
//! ([`terrain_core::COORDINATE_LIMIT`]).

use std::sync::Arc;

use terrain_core::{
    COORDINATE_LIMIT,
    walk::{
        GridBlocks, PathCheck, WalkGrids, WalkRule, Walker,
        find::{MOVEMENT_TILE, find_path},
        limits,
    },
};

use crate::{
    ClientError, PathChecked, PathFound, PathMode, PointDifficulty, PointInfo, Snapshot,
    TerrainInfos, Town, Unreachable,
};

fn invalid(field: impl Into<String>, message: impl Into<String>) -> ClientError {
    ClientError::InvalidArgument {
        field: field.into(),
        message: message.into(),
    }
}

/// A point as the replica's heights check it ([`crate::check_point`]), the axis named
/// in the message: `coordinates[2]: x must be finite`.
fn finite(field: impl FnOnce() -> String, point: (f64, f64)) -> Result<(), ClientError> {
    Ok(limits::check_point(field, point, COORDINATE_LIMIT)?)
}

/// The movement queries at one snapshot by one rule; see the module docs.
#[derive(Debug, Clone, Copy)]
pub struct LocalWalk<'a> {
    snapshot: &'a Snapshot,
    rule: &'a WalkRule,
    /// The towns difficulty reads; empty: the original's five fallback towns.
    towns: &'a [Town],
}

impl<'a> LocalWalk<'a> {
    /// The queries over `snapshot` by `rule`; difficulty (under the `hyperscape` rule)
    /// with the original's five fallback towns until [`LocalWalk::with_towns`].
    pub fn new(snapshot: &'a Snapshot, rule: &'a WalkRule) -> Self {
        LocalWalk {
            snapshot,
            rule,
            towns: &[],
        }
    }

    /// These queries with difficulty judged from `towns`: the world's, as listed
    /// ([`crate::TerrainClient::list_worlds_with_towns`], [`crate::LocalTerrain::towns`]);
    /// empty reads the original's five fallback towns (the server's default).
    pub fn with_towns(self, towns: &'a [Town]) -> Self {
        LocalWalk { towns, ..self }
    }

    fn walker(&self) -> Walker<'a> {
        Walker::new(self.snapshot.terrain(), self.rule)
    }

    /// Terrain info at each of `points`, as `GetTerrainInfo` answers (with the normal,
    /// and the difficulty under the `hyperscape` rule).
    pub fn terrain_info(&self, points: &[(f64, f64)]) -> Result<TerrainInfos, ClientError> {
        if points.is_empty() {
            return Err(invalid("coordinates", "at least one point"));
        }
        for (i, &p) in points.iter().enumerate() {
            finite(|| format!("coordinates[{}]", 2 * i), p)?;
        }
        let walker = self.walker();
        let points = walker
            .infos(points)
            .into_iter()
            .zip(points)
            .map(|(info, &(x, z))| {
                let details = walker.details(x, z, self.towns);
                PointInfo {
                    height: info.height,
                    biome: info.biome.map(str::to_string),
                    slope: info.slope,
                    underwater: info.underwater,
                    reason: info.reason,
                    normal: details.normal,
                    difficulty: details.difficulty.map(PointDifficulty::of),
                }
            })
            .collect();
        Ok(TerrainInfos {
            points,
            revision: self.snapshot.revision(),
        })
    }

    /// Checks the polyline `points` in `mode`, as `CheckPath` answers.
    pub fn check_path(
        &self,
        points: &[(f64, f64)],
        mode: PathMode,
    ) -> Result<PathChecked, ClientError> {
        check_polyline(points)?;
        let walker = self.walker();
        let check = match mode {
            PathMode::Hyperscape => walker.check_sampled(points),
            PathMode::Exact => walker.check_tiles(points, MOVEMENT_TILE),
        };
        Ok(PathChecked {
            blocked: check.blocked,
            path: check.path,
            revision: self.snapshot.revision(),
        })
    }

    /// A shortest path over the movement tiles from `from` to `to`, as `FindPath`
    /// answers (the server's default budget and distance when `None`).
    pub fn find_path(
        &self,
        from: (f64, f64),
        to: (f64, f64),
        max_nodes: Option<u64>,
        max_distance: Option<f64>,
    ) -> Result<PathFound, ClientError> {
        let bounds = limits::check_search(
            from,
            to,
            max_nodes,
            max_distance,
            COORDINATE_LIMIT,
            SEARCH_FIELDS,
        )?;
        let max_nodes = bounds.max_nodes;
        let walker = self.walker();
        let mut grids = WalkGrids::new(&walker);
        let revision = self.snapshot.revision();
        Ok(
            match find_path(from, to, MOVEMENT_TILE, max_nodes, &mut grids) {
                Ok(found) => PathFound {
                    found: Ok(found.waypoints),
                    length: found.length,
                    expanded: found.expanded as u64,
                    revision,
                },
                Err(none) => PathFound {
                    found: Err(Unreachable::of(none.reason)),
                    length: 0.0,
                    expanded: none.expanded as u64,
                    revision,
                },
            },
        )
    }
}

/// Exact path checks of many moving entities at one snapshot, judged from 64 x 64
/// blocks of movement tiles kept across calls (each built once, from the area path):
/// the per-tick question of a game server, whether each entity may take its next
/// tiles. The answers equal [`LocalWalk::check_path`]'s in exact mode (and so the
/// server's) bit for bit: the grids' judgements equal the point judgements. Take a new
/// mover for a newer snapshot; the blocks held grow with the ground visited (about
/// 4 KiB a block, 36 KiB under `block-step`, which keeps heights).
#[derive(Debug)]
pub struct LocalMover {
    snapshot: Arc<Snapshot>,
    rule: WalkRule,
    blocks: GridBlocks,
}

impl LocalMover {
    /// A mover over `snapshot` by `rule`, with no block built yet.
    pub fn new(snapshot: Arc<Snapshot>, rule: WalkRule) -> Self {
        LocalMover {
            snapshot,
            rule,
            blocks: GridBlocks::default(),
        }
    }

    /// The snapshot the mover answers at.
    pub fn snapshot(&self) -> &Arc<Snapshot> {
        &self.snapshot
    }

    /// Blocks built so far.
    pub fn cached_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The exact check of each polyline of `moves` (usually two points: where an
    /// entity stands and where it goes), in order. Unchecked: each polyline must be
    /// non-empty with finite coordinates, as [`LocalMover::check_path`] requires.
    pub fn check_moves<'m>(
        &mut self,
        moves: impl IntoIterator<Item = &'m [(f64, f64)]>,
    ) -> Vec<PathCheck> {
        let walker = Walker::new(self.snapshot.terrain(), &self.rule);
        let mut grids = WalkGrids::with_blocks(&walker, std::mem::take(&mut self.blocks));
        let out = moves
            .into_iter()
            .map(|points| grids.check_tiles(points))
            .collect();
        self.blocks = grids.into_blocks();
        out
    }

    /// The exact check of `points`, checked as the server checks it.
    pub fn check_path(&mut self, points: &[(f64, f64)]) -> Result<PathChecked, ClientError> {
        check_polyline(points)?;
        let check = self
            .check_moves([points])
            .pop()
            .ok_or_else(|| ClientError::Protocol("no answer".into()))?;
        Ok(PathChecked {
            blocked: check.blocked,
            path: check.path,
            revision: self.snapshot.revision(),
        })
    }
}

/// A polyline's size, coordinates and length, checked as the server checks them.
fn check_polyline(points: &[(f64, f64)]) -> Result<(), ClientError> {
    limits::check_polyline(points, COORDINATE_LIMIT, "points")?;
    Ok(())
}

/// The names this SDK gives a search's fields (those of `FindPathRequest`).
const SEARCH_FIELDS: limits::SearchFields = limits::SearchFields {
    from: "from",
    to: "to",
    max_nodes: "max_nodes",
    max_distance: "max_distance",
};

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use terrain_core::{
        GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet, walk::BiomeLimits,
    };

    #[test]
    fn the_mover_answers_as_the_point_by_point_check() {
        let generator = WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap();
        let terrain = Terrain::new(generator, ZoneSet::new(Overlap::Layered, 100.0));
        let snapshot = Arc::new(Snapshot::from_terrain(terrain, 4));
        let rule = WalkRule::Slope {
            limits: BiomeLimits::hyperscape(),
            water_level: 9.0,
        };
        let walk = LocalWalk::new(&snapshot, &rule);
        let mut mover = LocalMover::new(Arc::clone(&snapshot), rule.clone());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2545_f491_4f6c_dd1d);
        let mut blocked = 0;
        for _ in 0..2000 {
            let a = (
                rng.random_range(-300.0..300.0),
                rng.random_range(-300.0..300.0),
            );
            let line = [
                a,
                (
                    a.0 + rng.random_range(-2.0..2.0),
                    a.1 + rng.random_range(-2.0..2.0),
                ),
            ];
            let want = walk.check_path(&line, PathMode::Exact).unwrap();
            let got = mover.check_path(&line).unwrap();
            assert_eq!(got, want, "{line:?}");
            blocked += usize::from(want.blocked.is_some());
        }
        assert!(blocked > 100 && blocked < 1900, "{blocked} of 2000 blocked");
        assert!(mover.cached_blocks() > 10);
    }
}
