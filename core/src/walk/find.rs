//! Path finding over the movement-tile grid: A* from the start tile to the goal tile,
//! 8-connected, a diagonal step only where both tiles beside it are walkable (no corner
//! cutting), cost by distance (1 per straight step, `SQRT2` per diagonal), the octile
//! distance as the heuristic (consistent, so the first path found is a shortest one).
//! The search is bounded by a node budget; ties are broken by the tile's coordinates,
//! so the answer never depends on hash order.
//!
//! The tile path is then reduced to the waypoints a straight tiles-mode path check
//! ([`super::path::tiles_crossed`]) cannot skip: from each waypoint the walk goes as far
//! along the tile path as a straight segment stays on walkable tiles. Every returned
//! polyline therefore passes the tiles-mode check.
//!
//! Under a rule that judges steps (`block-step`) a move may rise at most one block: a
//! straight move from its tile to the next, a diagonal one from its tile to the
//! diagonal tile and through both tiles beside it (from the tile to each, from each to
//! the diagonal one), as the tiles-mode check judges a corner crossing. Moves are then
//! directed (a fall is allowed where the climb back is not).

use std::{cmp::Ordering, collections::BinaryHeap};

use libm::floor;
use rustc_hash::FxHashMap;

use super::{
    Reason,
    path::{TileJudge, walk_tiles},
};

pub use super::limits::{DEFAULT_MAX_DISTANCE, DEFAULT_MAX_NODES, MAX_DISTANCE, MAX_NODES};
/// The movement tile of the exact path check and of path finding: 1 m, as the
/// original's server moves.
pub const MOVEMENT_TILE: f64 = 1.0;

const SQRT2: f64 = std::f64::consts::SQRT_2;

/// The eight steps to a tile's neighbours: straight ones first.
const STEPS: [(i64, i64); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

use crate::tile::Tile;
/// Each reached tile's best known cost and the tile it was reached from.
type Best = FxHashMap<Tile, (f64, Tile)>;

/// Why no path was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreachable {
    /// The start tile is not walkable.
    Start(Reason),
    /// The goal tile is not walkable.
    Goal(Reason),
    /// Every tile reachable from the start was expanded and none is the goal.
    NoPath,
    /// The node budget ran out first.
    Budget,
}

impl Unreachable {
    /// The code on the wire.
    pub fn code(self) -> &'static str {
        match self {
            Unreachable::Start(_) => "start_blocked",
            Unreachable::Goal(_) => "goal_blocked",
            Unreachable::NoPath => "no_path",
            Unreachable::Budget => "node_budget",
        }
    }
}

/// A path search's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// `from`, the corners, `to`.
    pub waypoints: Vec<(f64, f64)>,
    /// The length of the waypoint polyline, metres.
    pub length: f64,
    /// The grid cost of the tile path (straight 1, diagonal `SQRT2`, times the tile).
    pub grid_length: f64,
    /// Nodes taken off the open set.
    pub expanded: usize,
}

/// A path search that found nothing, and how far it looked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NotFound {
    pub reason: Unreachable,
    pub expanded: usize,
}

/// An open-set entry, ordered so that the binary heap pops the lowest `f`, then the
/// lowest `h`, then the lowest tile.
#[derive(Debug, PartialEq)]
struct Open {
    f: f64,
    h: f64,
    /// The cost it was pushed with: stale once a cheaper way to `tile` is known.
    g: f64,
    tile: (i64, i64),
}

impl Eq for Open {}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .f
            .total_cmp(&self.f)
            .then(other.h.total_cmp(&self.h))
            .then(other.tile.cmp(&self.tile))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn octile(a: (i64, i64), b: (i64, i64)) -> f64 {
    let (dx, dz) = ((a.0 - b.0).unsigned_abs(), (a.1 - b.1).unsigned_abs());
    let (lo, hi) = (dx.min(dz) as f64, dx.max(dz) as f64);
    (hi - lo) + lo * SQRT2
}

/// A judge whose standing answers are kept: each tile is judged at most once.
struct Cached<J> {
    inner: J,
    judged: FxHashMap<Tile, Option<Reason>>,
}

impl<J: TileJudge> Cached<J> {
    fn get(&mut self, t: Tile) -> Option<Reason> {
        let inner = &mut self.inner;
        *self
            .judged
            .entry(t)
            .or_insert_with(|| inner.blocked(t.0, t.1))
    }
}

impl<J: TileJudge> TileJudge for Cached<J> {
    fn blocked(&mut self, ix: i64, iz: i64) -> Option<Reason> {
        self.get((ix, iz))
    }

    fn step_blocked(&mut self, from: Tile, to: Tile) -> bool {
        self.inner.step_blocked(from, to)
    }
}

/// A shortest path from `from` to `to` over tiles of edge `tile`, where `judge` says
/// why a tile may not be entered (judged at its centre) and which moves rise too much,
/// expanding at most `max_nodes` tiles. Each tile is judged at most once.
pub fn find_path(
    from: (f64, f64),
    to: (f64, f64),
    tile: f64,
    max_nodes: usize,
    judge: impl TileJudge,
) -> Result<Found, NotFound> {
    let cell = |p: (f64, f64)| (floor(p.0 / tile) as i64, floor(p.1 / tile) as i64);
    let (start, goal) = (cell(from), cell(to));
    let mut judge = Cached {
        inner: judge,
        judged: FxHashMap::default(),
    };
    if let Some(r) = judge.get(start) {
        return Err(NotFound {
            reason: Unreachable::Start(r),
            expanded: 0,
        });
    }
    if let Some(r) = judge.get(goal) {
        return Err(NotFound {
            reason: Unreachable::Goal(r),
            expanded: 0,
        });
    }
    // Best known cost and the tile it was reached from.
    let mut best: Best = FxHashMap::default();
    let mut open = BinaryHeap::new();
    best.insert(start, (0.0, start));
    let h0 = octile(start, goal);
    open.push(Open {
        f: h0,
        h: h0,
        g: 0.0,
        tile: start,
    });
    let mut expanded = 0;
    while let Some(Open { g, tile: at, .. }) = open.pop() {
        if g > best[&at].0 {
            continue; // a stale entry: `at` was reached more cheaply since
        }
        if at == goal {
            let tiles = walk_back(&best, start, goal);
            let waypoints = reduce(from, to, &tiles, tile, &mut judge);
            let length = waypoints
                .windows(2)
                .map(|w| libm::hypot(w[1].0 - w[0].0, w[1].1 - w[0].1))
                .sum();
            return Ok(Found {
                waypoints,
                length,
                grid_length: g * tile,
                expanded,
            });
        }
        if expanded == max_nodes {
            return Err(NotFound {
                reason: Unreachable::Budget,
                expanded,
            });
        }
        expanded += 1;
        for (dx, dz) in STEPS {
            let next = (at.0 + dx, at.1 + dz);
            if judge.get(next).is_some() || judge.step_blocked(at, next) {
                continue;
            }
            let diagonal = dx != 0 && dz != 0;
            if diagonal {
                let sides = [(at.0 + dx, at.1), (at.0, at.1 + dz)];
                if sides.into_iter().any(|side| {
                    judge.get(side).is_some()
                        || judge.step_blocked(at, side)
                        || judge.step_blocked(side, next)
                }) {
                    continue;
                }
            }
            let ng = g + if diagonal { SQRT2 } else { 1.0 };
            if best.get(&next).is_some_and(|&(known, _)| known <= ng) {
                continue;
            }
            best.insert(next, (ng, at));
            let nh = octile(next, goal);
            open.push(Open {
                f: ng + nh,
                h: nh,
                g: ng,
                tile: next,
            });
        }
    }
    Err(NotFound {
        reason: Unreachable::NoPath,
        expanded,
    })
}

/// The tile path from `start` to `goal` by the recorded predecessors.
fn walk_back(best: &Best, start: Tile, goal: Tile) -> Vec<Tile> {
    let mut tiles = vec![goal];
    let mut at = goal;
    while at != start {
        at = best[&at].1;
        tiles.push(at);
    }
    tiles.reverse();
    tiles
}

/// `from`, the tile centres no straight walkable segment can skip, `to`.
fn reduce(
    from: (f64, f64),
    to: (f64, f64),
    tiles: &[(i64, i64)],
    tile: f64,
    judge: &mut impl TileJudge,
) -> Vec<(f64, f64)> {
    let centre = |t: (i64, i64)| ((t.0 as f64 + 0.5) * tile, (t.1 as f64 + 0.5) * tile);
    // The points of the tile path: `from`, the inner tiles' centres, `to`.
    let mut points = vec![from];
    if tiles.len() > 2 {
        points.extend(tiles[1..tiles.len() - 1].iter().map(|&t| centre(t)));
    }
    if tiles.len() > 1 || from != to {
        points.push(to);
    }
    let mut clear =
        |a: (f64, f64), b: (f64, f64)| walk_tiles(&[a, b], tile, &mut *judge, |_| {}).is_none();
    let mut waypoints = vec![points[0]];
    let mut anchor = 0;
    while anchor + 1 < points.len() {
        let mut reach = anchor + 1;
        while reach + 1 < points.len() && clear(points[anchor], points[reach + 1]) {
            reach += 1;
        }
        waypoints.push(points[reach]);
        anchor = reach;
    }
    waypoints
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::walk::path::{Standing, tiles_crossed};

    /// A maze of `n` x `n` tiles: walls on a fixed pseudo-random pattern, an open border.
    fn maze(seed: u64, n: i64, density: u64) -> impl Fn(i64, i64) -> Option<Reason> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let walls: Vec<bool> = (0..n * n)
            .map(|_| rng.random_range(0..100) < density)
            .collect();
        move |x, z| {
            if !(0..n).contains(&x) || !(0..n).contains(&z) {
                return Some(Reason::Slope);
            }
            (walls[(z * n + x) as usize] && (x, z) != (0, 0) && (x, z) != (n - 1, n - 1))
                .then_some(Reason::Slope)
        }
    }

    /// Dijkstra over the same grid and moves: the oracle for the shortest grid cost.
    fn dijkstra(n: i64, blocked: &impl Fn(i64, i64) -> Option<Reason>) -> Option<f64> {
        let mut cost = vec![f64::INFINITY; (n * n) as usize];
        let idx = |x: i64, z: i64| (z * n + x) as usize;
        cost[0] = 0.0;
        let mut queue = VecDeque::from([(0i64, 0i64)]);
        // Bellman-Ford style relaxation until nothing changes (a brute force).
        while let Some((x, z)) = queue.pop_front() {
            for (dx, dz) in STEPS {
                let (nx, nz) = (x + dx, z + dz);
                if blocked(nx, nz).is_some() {
                    continue;
                }
                let diagonal = dx != 0 && dz != 0;
                if diagonal && (blocked(x + dx, z).is_some() || blocked(x, z + dz).is_some()) {
                    continue;
                }
                let c = cost[idx(x, z)] + if diagonal { SQRT2 } else { 1.0 };
                if c < cost[idx(nx, nz)] - 1e-12 {
                    cost[idx(nx, nz)] = c;
                    queue.push_back((nx, nz));
                }
            }
        }
        let c = cost[idx(n - 1, n - 1)];
        c.is_finite().then_some(c)
    }

    #[test]
    fn paths_in_mazes_are_shortest_and_pass_the_tile_check() {
        let n = 40;
        let (mut found, mut none) = (0, 0);
        for seed in 0..60 {
            let blocked = maze(seed, n, 30);
            let from = (0.25, 0.75);
            let to = (n as f64 - 0.4, n as f64 - 0.6);
            let answer = find_path(from, to, 1.0, 1_000_000, Standing(&blocked));
            match (answer, dijkstra(n, &blocked)) {
                (Ok(f), Some(want)) => {
                    found += 1;
                    assert!(
                        (f.grid_length - want).abs() < 1e-9,
                        "seed {seed}: {} vs {want}",
                        f.grid_length
                    );
                    assert!(f.length <= f.grid_length + 2.0, "seed {seed}");
                    assert_eq!((f.waypoints[0], *f.waypoints.last().unwrap()), (from, to));
                    for w in f.waypoints.windows(2) {
                        tiles_crossed(w[0], w[1], 1.0, |x, z, _| {
                            assert!(blocked(x, z).is_none(), "seed {seed}: ({x}, {z}) on {w:?}");
                            true
                        });
                    }
                }
                (Err(e), None) => {
                    none += 1;
                    assert_eq!(e.reason, Unreachable::NoPath, "seed {seed}");
                }
                (a, b) => panic!("seed {seed}: {a:?} against the oracle's {b:?}"),
            }
        }
        assert!(found > 10 && none > 0, "{found} found, {none} unreachable");
    }

    /// Terraces of `n` x `n` tiles, heights 0 to 3 on a pseudo-random pattern, a move
    /// rising more than one blocked; walls outside.
    struct Terraces {
        n: i64,
        /// Row by row, drawn once from the seed.
        heights: Vec<i64>,
    }

    impl Terraces {
        fn new(seed: u64, n: i64) -> Terraces {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let heights = (0..n * n).map(|_| rng.random_range(0..4)).collect();
            Terraces { n, heights }
        }

        fn height(&self, x: i64, z: i64) -> i64 {
            let outside = !(0..self.n).contains(&x) || !(0..self.n).contains(&z);
            if outside || (x, z) == (0, 0) || (x, z) == (self.n - 1, self.n - 1) {
                0
            } else {
                self.heights[(z * self.n + x) as usize]
            }
        }
    }

    impl TileJudge for Terraces {
        fn blocked(&mut self, x: i64, z: i64) -> Option<Reason> {
            (!(0..self.n).contains(&x) || !(0..self.n).contains(&z)).then_some(Reason::Slope)
        }

        fn step_blocked(&mut self, from: Tile, to: Tile) -> bool {
            self.height(to.0, to.1) - self.height(from.0, from.1) > 1
        }
    }

    #[test]
    fn paths_over_terraces_are_shortest_and_climb_one_step_at_a_time() {
        let n = 30;
        let (mut found, mut none) = (0, 0);
        for seed in 0..40 {
            let mut t = Terraces::new(seed, n);
            // Dijkstra over the directed moves, by brute-force relaxation.
            let idx = |x: i64, z: i64| (z * n + x) as usize;
            let mut cost = vec![f64::INFINITY; (n * n) as usize];
            cost[0] = 0.0;
            let mut queue = VecDeque::from([(0i64, 0i64)]);
            while let Some((x, z)) = queue.pop_front() {
                for (dx, dz) in STEPS {
                    let next = (x + dx, z + dz);
                    if t.blocked(next.0, next.1).is_some() || t.step_blocked((x, z), next) {
                        continue;
                    }
                    let diagonal = dx != 0 && dz != 0;
                    if diagonal
                        && [(x + dx, z), (x, z + dz)].into_iter().any(|s| {
                            t.blocked(s.0, s.1).is_some()
                                || t.step_blocked((x, z), s)
                                || t.step_blocked(s, next)
                        })
                    {
                        continue;
                    }
                    let c = cost[idx(x, z)] + if diagonal { SQRT2 } else { 1.0 };
                    if c < cost[idx(next.0, next.1)] - 1e-12 {
                        cost[idx(next.0, next.1)] = c;
                        queue.push_back(next);
                    }
                }
            }
            let want = cost[idx(n - 1, n - 1)];
            let (from, to) = ((0.3, 0.6), (n as f64 - 0.2, n as f64 - 0.7));
            match find_path(from, to, 1.0, 1_000_000, &mut t) {
                Ok(f) => {
                    found += 1;
                    assert!(
                        (f.grid_length - want).abs() < 1e-9,
                        "seed {seed}: {f:?} vs {want}"
                    );
                    let check = walk_tiles(&f.waypoints, 1.0, &mut t, |_| {});
                    assert_eq!(check, None, "seed {seed}: {f:?}");
                }
                Err(e) => {
                    none += 1;
                    assert!(want.is_infinite(), "seed {seed}: {e:?} vs {want}");
                    assert_eq!(e.reason, Unreachable::NoPath);
                }
            }
        }
        assert!(found > 5 && none > 0, "{found} found, {none} unreachable");
    }

    #[test]
    fn the_budget_and_blocked_ends_are_reported() {
        let open = |_: i64, _: i64| None;
        let open = Standing(open);
        let far = find_path((0.5, 0.5), (300.5, 0.5), 1.0, 100, open).unwrap_err();
        assert_eq!((far.reason, far.expanded), (Unreachable::Budget, 100));
        let straight = find_path((0.5, 0.5), (300.5, 0.5), 1.0, 1_000, open).unwrap();
        assert_eq!(straight.waypoints, [(0.5, 0.5), (300.5, 0.5)]);
        assert_eq!(straight.length, 300.0);
        let wall = Standing(|x: i64, _: i64| (x == 5).then_some(Reason::Water));
        let goal = find_path((0.5, 0.5), (5.5, 0.5), 1.0, 1_000, wall).unwrap_err();
        assert_eq!(goal.reason, Unreachable::Goal(Reason::Water));
        let start = find_path((5.5, 0.5), (0.5, 0.5), 1.0, 1_000, wall).unwrap_err();
        assert_eq!(start.reason, Unreachable::Start(Reason::Water));
    }
}
