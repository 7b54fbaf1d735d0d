//! Walkability grids: the answer for every 1 m movement tile of a rectangle at once.
//!
//! A movement tile is judged at its centre `(ix + 0.5, iz + 0.5)`, and the slope's eight
//! neighbours at 1 m are exactly the neighbouring tiles' centres (half-integers are exact
//! in f64). So a `w x d` grid needs the heights of a `(w + 2) x (d + 2)` grid of centres,
//! which the generator's area path computes bit for bit as the point path does, at a
//! fraction of the cost of nine point heights per tile. Every cell equals
//! [`Walker::blocked`] at its centre (tested).
//!
//! [`WalkGrids`] keeps the blocks of [`BLOCK`] x [`BLOCK`] tiles a query touched, so a
//! path check or search judges each tile from a grid, building each block once.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use libm::floor;

use super::{Reason, Walker};
use crate::Generator;

/// The edge of a cached block of movement tiles.
pub const BLOCK: i64 = 64;

/// The judgement of every movement tile (1 m) of a rectangle.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkGrid {
    x0: i64,
    z0: i64,
    w: usize,
    d: usize,
    /// Row-major (z outer): `None` walkable, else why not.
    cells: Vec<Option<Reason>>,
    /// The tiles' heights, row-major, kept only when the rule judges steps.
    heights: Vec<f64>,
}

impl WalkGrid {
    /// The judgement of tile `(ix, iz)`, or `None` outside the grid.
    pub fn get(&self, ix: i64, iz: i64) -> Option<Option<Reason>> {
        let (i, j) = (ix.checked_sub(self.x0)?, iz.checked_sub(self.z0)?);
        if i < 0 || j < 0 || i as usize >= self.w || j as usize >= self.d {
            return None;
        }
        Some(self.cells[j as usize * self.w + i as usize])
    }

    /// The height at tile `(ix, iz)`'s centre, when the grid keeps heights (rules that
    /// judge steps, or [`Walker::grid_with_heights`]) and the tile is inside.
    pub fn height(&self, ix: i64, iz: i64) -> Option<f64> {
        let (i, j) = (ix.checked_sub(self.x0)?, iz.checked_sub(self.z0)?);
        if i < 0 || j < 0 || i as usize >= self.w || j as usize >= self.d {
            return None;
        }
        self.heights.get(j as usize * self.w + i as usize).copied()
    }

    /// The bytes it holds, for a cache's budget.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.cells.len() * std::mem::size_of::<Option<Reason>>()
            + self.heights.len() * std::mem::size_of::<f64>()
    }
}

impl Walker<'_> {
    /// The grid of the `w x d` movement tiles (1 m) from tile `(x0, z0)`.
    pub fn grid(&self, x0: i64, z0: i64, w: usize, d: usize) -> WalkGrid {
        self.grid_keeping(x0, z0, w, d, self.judges_steps())
    }

    /// [`Walker::grid`] keeping every tile's centre height whatever the rule
    /// ([`WalkGrid::height`]): the final heights its judgement read, the point path's
    /// bits, for a client that caches heights at tile centres beside the judgements.
    pub fn grid_with_heights(&self, x0: i64, z0: i64, w: usize, d: usize) -> WalkGrid {
        self.grid_keeping(x0, z0, w, d, true)
    }

    fn grid_keeping(&self, x0: i64, z0: i64, w: usize, d: usize, keep: bool) -> WalkGrid {
        let centres = |o: i64, n: usize| -> Vec<f64> {
            (0..n as i64 + 2)
                .map(|i| (o - 1 + i) as f64 + 0.5)
                .collect()
        };
        let (xs, zs) = (centres(x0, w), centres(z0, d));
        let mut heights = vec![0.0; xs.len() * zs.len()];
        self.terrain().fill_axes(&xs, &zs, &mut heights);
        let stride = xs.len();
        let h = |i: usize, j: usize| heights[j * stride + i];
        let mut cells = Vec::with_capacity(w * d);
        let mut kept = Vec::with_capacity(if keep { w * d } else { 0 });
        for (j, &z) in zs.iter().enumerate().take(d + 1).skip(1) {
            for (i, &x) in xs.iter().enumerate().take(w + 1).skip(1) {
                if keep {
                    kept.push(h(i, j));
                }
                if let Some(judged) = self.zone_judgement(x, z) {
                    cells.push(judged);
                    continue;
                }
                let h0 = h(i, j);
                let (water, max_slope) = self.limits(self.biome(x, z, h0));
                if self.underwater(x, z, h0, water) {
                    cells.push(Some(Reason::Water));
                    continue;
                }
                if max_slope == f64::INFINITY {
                    cells.push(None);
                    continue;
                }
                let neighbours = [
                    // N, S, E, W, then NE, NW, SE, SW: the order of `slope_from`.
                    h(i, j + 1),
                    h(i, j - 1),
                    h(i + 1, j),
                    h(i - 1, j),
                    h(i + 1, j + 1),
                    h(i - 1, j + 1),
                    h(i + 1, j - 1),
                    h(i - 1, j - 1),
                ];
                let slope = super::slope_of(h0, neighbours);
                cells.push((slope > max_slope).then_some(Reason::Slope));
            }
        }
        WalkGrid {
            x0,
            z0,
            w,
            d,
            cells,
            heights: kept,
        }
    }
}

/// How many distinct values (bits) `values` holds.
fn distinct(values: &[f64]) -> usize {
    let mut bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
    bits.sort_unstable();
    bits.dedup();
    bits.len()
}

/// The distinct values of `points` and, when `neighbours`, of each point offset by the
/// slope's distance both ways (`p - 1`, `p + 1`: the f64s [`Walker::slope_from`]
/// reads), sorted; and for each point the indices of `p - 1`, `p` and `p + 1` among
/// them (all three `p`'s without `neighbours`).
fn spread(points: &[f64], neighbours: bool) -> (Vec<f64>, Vec<[usize; 3]>) {
    let c = super::SLOPE_DISTANCE;
    // The distinct values, sorted, and each point's rank among them: one sort of the
    // points' order (the offsets keep it, so they need no sort of their own).
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_unstable_by(|&a, &b| points[a].total_cmp(&points[b]));
    let mut distinct: Vec<f64> = Vec::with_capacity(points.len());
    let mut rank = vec![0; points.len()];
    for &i in &order {
        if distinct
            .last()
            .is_none_or(|l| l.to_bits() != points[i].to_bits())
        {
            distinct.push(points[i]);
        }
        rank[i] = distinct.len() - 1;
    }
    if !neighbours {
        return (distinct, rank.into_iter().map(|r| [r; 3]).collect());
    }
    // `p - c`, `p` and `p + c` of the distinct values are three sorted lists (rounding
    // is monotonic); merged without repeats (the same bits), each entry's place noted.
    let lists: [Vec<f64>; 3] = [
        distinct.iter().map(|&p| p - c).collect(),
        distinct.clone(),
        distinct.iter().map(|&p| p + c).collect(),
    ];
    let mut values: Vec<f64> = Vec::with_capacity(3 * distinct.len());
    let mut place = [
        vec![0; distinct.len()],
        vec![0; distinct.len()],
        vec![0; distinct.len()],
    ];
    let mut heads = [0; 3];
    loop {
        let next = (0..3)
            .filter(|&k| heads[k] < distinct.len())
            .min_by(|&a, &b| lists[a][heads[a]].total_cmp(&lists[b][heads[b]]));
        let Some(k) = next else { break };
        let v = lists[k][heads[k]];
        if values.last().is_none_or(|l| l.to_bits() != v.to_bits()) {
            values.push(v);
        }
        place[k][heads[k]] = values.len() - 1;
        heads[k] += 1;
    }
    let indices = rank
        .into_iter()
        .map(|r| [place[0][r], place[1][r], place[2][r]])
        .collect();
    (values, indices)
}

impl Walker<'_> {
    /// Terrain info at each of `points` from the area path, handed to `answer` with
    /// the point's index, when that pays: the distinct x and z coordinates the points'
    /// neighbourhoods read (each point and its neighbours at 1 m, [`spread`]) span a
    /// lattice of at most eight heights per point (a lattice height costs about 0.09 us
    /// in `walk` benchmarks, a point's nine on shared axis parts about 0.95 us, so past
    /// that [`Walker::shared_axes_infos`] is cheaper). Then the generator's area path computes
    /// that lattice once (bit for bit the point path's heights) and every point reads
    /// its nine from it. `false` (and nothing answered) when it does not pay.
    pub(super) fn area_infos(
        &self,
        points: &[(f64, f64)],
        mut answer: impl FnMut(usize, super::TerrainInfo),
    ) -> bool {
        let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
        let zs: Vec<f64> = points.iter().map(|p| p.1).collect();
        let (vx, ix) = spread(&xs, true);
        let (vz, iz) = spread(&zs, true);
        if vx.len().saturating_mul(vz.len()) > 8 * points.len() {
            return false;
        }
        let mut heights = vec![0.0; vx.len() * vz.len()];
        self.terrain().fill_axes(&vx, &vz, &mut heights);
        let stride = vx.len();
        for (k, (&(x, z), (xi, zi))) in points.iter().zip(ix.iter().zip(&iz)).enumerate() {
            let nine = nine(xi, zi).map(|(i, j)| heights[j * stride + i]);
            answer(k, self.info_from(x, z, &nine));
        }
        true
    }
}

/// The nine `(x, z)` index pairs of a point's neighbourhood, from the indices of its
/// `x - 1, x, x + 1` and `z - 1, z, z + 1` ([`spread`]): entry `3 j + i` at
/// `(x + (i - 1), z + (j - 1))`, the order [`Walker::info_from`] reads.
fn nine(&[w, c, e]: &[usize; 3], &[s, m, n]: &[usize; 3]) -> [(usize, usize); 9] {
    [
        (w, s),
        (c, s),
        (e, s),
        (w, m),
        (c, m),
        (e, m),
        (w, n),
        (c, n),
        (e, n),
    ]
}

impl Walker<'_> {
    /// Terrain info at each of `points`, in order, their nine heights each computed
    /// from the axis parts of the batch's distinct coordinates
    /// ([`crate::Terrain::heights_at`]), when the points share coordinates: their
    /// neighbourhoods' distinct x and z values (each point's and its neighbours' at
    /// 1 m, [`spread`]) number at most half the six per point the neighbourhood path
    /// computes parts for. `None` when they do not.
    pub(super) fn shared_axes_infos(
        &self,
        points: &[(f64, f64)],
    ) -> Option<Vec<super::TerrainInfo>> {
        let xs: Vec<f64> = points.iter().map(|p| p.0).collect();
        let zs: Vec<f64> = points.iter().map(|p| p.1).collect();
        // Scattered points (each coordinate its own) are told apart by a sort of
        // their bits, cheaper than spreading them.
        if distinct(&xs) + distinct(&zs) > 3 * points.len() / 2 {
            return None;
        }
        let (vx, ix) = spread(&xs, true);
        let (vz, iz) = spread(&zs, true);
        if 2 * (vx.len() + vz.len()) > 6 * points.len() {
            return None;
        }
        let pairs: Vec<(usize, usize)> = ix
            .iter()
            .zip(&iz)
            .flat_map(|(xi, zi)| nine(xi, zi))
            .collect();
        let mut heights = vec![0.0; pairs.len()];
        self.terrain().heights_at(&vx, &vz, &pairs, &mut heights);
        let (nines, _) = heights.as_chunks::<9>();
        Some(
            points
                .iter()
                .zip(nines)
                .map(|(&(x, z), nine)| self.info_from(x, z, nine))
                .collect(),
        )
    }
}

/// The judgement of every point of a lattice, and the heights it read.
#[derive(Debug, Clone, PartialEq)]
pub struct Lattice {
    /// Row-major (z outer): `None` walkable, else why not.
    pub cells: Vec<Option<Reason>>,
    /// Row-major (z outer), filled only by [`Walker::step_rises`]: whether the point's
    /// movement tile stands more than the rule's step above one of its eight
    /// neighbouring tiles.
    pub rises: Vec<bool>,
    /// The heights computed (for a cost meter).
    pub heights: usize,
}

impl Walker<'_> {
    /// The judgement at every point `(x, z)` of the lattice `xs` x `zs`, row-major (z
    /// outer): each equal to [`Walker::blocked`] at the point (tested). The heights it
    /// needs, each point's and (for rules with a slope limit) its eight neighbours' at
    /// 1 m, are computed once each by the generator's area path, which answers bit for
    /// bit as the point path does: a lattice whose spacing divides 1 m shares them
    /// between neighbouring points.
    pub fn lattice(&self, xs: &[f64], zs: &[f64]) -> Lattice {
        // Only `block-step` never reads a slope.
        let slopes = !matches!(self.rule, super::WalkRule::BlockStep { .. });
        let (vx, ix) = spread(xs, slopes);
        let (vz, iz) = spread(zs, slopes);
        let mut heights = vec![0.0; vx.len() * vz.len()];
        self.terrain().fill_axes(&vx, &vz, &mut heights);
        let stride = vx.len();
        let h = |i: usize, j: usize| heights[j * stride + i];
        let mut cells = Vec::with_capacity(xs.len() * zs.len());
        for (&z, &[s, jc, n]) in zs.iter().zip(&iz) {
            for (&x, &[w, ic, e]) in xs.iter().zip(&ix) {
                if let Some(judged) = self.zone_judgement(x, z) {
                    cells.push(judged);
                    continue;
                }
                let h0 = h(ic, jc);
                let (water, max_slope) = self.limits(self.biome(x, z, h0));
                if self.underwater(x, z, h0, water) {
                    cells.push(Some(Reason::Water));
                    continue;
                }
                if max_slope == f64::INFINITY {
                    cells.push(None);
                    continue;
                }
                // N, S, E, W, then NE, NW, SE, SW: the order of `slope_from`.
                let neighbours = [
                    h(ic, n),
                    h(ic, s),
                    h(e, jc),
                    h(w, jc),
                    h(e, n),
                    h(w, n),
                    h(e, s),
                    h(w, s),
                ];
                let slope = super::slope_of(h0, neighbours);
                cells.push((slope > max_slope).then_some(Reason::Slope));
            }
        }
        Lattice {
            cells,
            rises: Vec::new(),
            heights: heights.len(),
        }
    }

    /// [`Walker::lattice`], with [`Lattice::rises`] filled when the rule judges steps
    /// (`block-step`): for each point, whether its movement tile `(floor(x),
    /// floor(z))` stands higher than one of its eight neighbouring tiles by more than
    /// the rule's step ([`Walker::step_blocked`] of the tiles' centre heights), so that
    /// it cannot be stepped up onto from there.
    pub fn step_rises(&self, xs: &[f64], zs: &[f64]) -> Lattice {
        let mut lattice = self.lattice(xs, zs);
        if !self.judges_steps() {
            return lattice;
        }
        let centre = |p: &f64| floor(*p) + 0.5;
        let tx: Vec<f64> = xs.iter().map(centre).collect();
        let tz: Vec<f64> = zs.iter().map(centre).collect();
        let (vx, ix) = spread(&tx, true);
        let (vz, iz) = spread(&tz, true);
        let mut heights = vec![0.0; vx.len() * vz.len()];
        self.terrain().fill_axes(&vx, &vz, &mut heights);
        let stride = vx.len();
        let h = |i: usize, j: usize| heights[j * stride + i];
        let mut rises = Vec::with_capacity(xs.len() * zs.len());
        for &[s, jc, n] in &iz {
            for &[w, ic, e] in &ix {
                let top = h(ic, jc);
                let around = [
                    (ic, n),
                    (ic, s),
                    (e, jc),
                    (w, jc),
                    (e, n),
                    (w, n),
                    (e, s),
                    (w, s),
                ];
                rises.push(
                    around
                        .into_iter()
                        .any(|(i, j)| self.step_blocked(h(i, j), top)),
                );
            }
        }
        lattice.rises = rises;
        lattice.heights += heights.len();
        lattice
    }
}

/// The blocks of a [`WalkGrids`] apart from its walker, so that they outlive it: a
/// replica keeps them with its snapshot across calls. They are only valid for walkers
/// over the terrain and rule that built them.
#[derive(Debug, Clone, Default)]
pub struct GridBlocks(FxHashMap<(i64, i64), Arc<WalkGrid>>);

impl GridBlocks {
    /// Blocks held.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The bytes they hold.
    pub fn bytes(&self) -> usize {
        self.0.values().map(|g| g.bytes()).sum()
    }
}

/// Blocks kept across queries (a server's cache), by their key ([`WalkGrids`]' 64 x 64
/// tile blocks). A store lent to a [`WalkGrids`] answers for the ground of that
/// walker only: the store tells grounds apart (a server keys its blocks by the tile
/// versions they read).
pub trait BlockStore: Sync + std::fmt::Debug {
    /// Block `key` built before over this ground, if kept.
    fn get(&self, key: (i64, i64)) -> Option<Arc<WalkGrid>>;
    /// Keeps block `key`, just built over this ground.
    fn put(&self, key: (i64, i64), grid: Arc<WalkGrid>);
    /// Whether block `key`, not kept, is worth building for a query that can judge the
    /// few tiles it needs one by one instead (asked once per query and block).
    fn wants(&self, key: (i64, i64)) -> bool;
}

/// The blocks of movement tiles a walker's queries touched, built on first use (or
/// taken from a [`BlockStore`]).
#[derive(Debug)]
pub struct WalkGrids<'w, 'a> {
    walker: &'w Walker<'a>,
    /// `None`: a block whose tiles are judged one by one (its store did not want it
    /// built).
    blocks: FxHashMap<(i64, i64), Option<Arc<WalkGrid>>>,
    store: Option<(&'w dyn BlockStore, Build)>,
}

/// When a [`WalkGrids`] with a store builds a block the store does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// Always (searches, which judge most tiles of the blocks they enter).
    Always,
    /// When the store [wants](BlockStore::wants) it, else the block's tiles are judged
    /// one by one (path checks, which cross a few tiles of each block).
    WhenWanted,
}

impl<'w, 'a> WalkGrids<'w, 'a> {
    pub fn new(walker: &'w Walker<'a>) -> Self {
        Self::with_blocks(walker, GridBlocks::default())
    }

    /// Grids over `walker` starting from `blocks` (built earlier by a walker over the
    /// same terrain and rule).
    pub fn with_blocks(walker: &'w Walker<'a>, blocks: GridBlocks) -> Self {
        WalkGrids {
            walker,
            blocks: blocks.0.into_iter().map(|(k, g)| (k, Some(g))).collect(),
            store: None,
        }
    }

    /// Grids over `walker` that take the blocks `store` holds, and give it those they
    /// build (when `build` says to).
    pub fn with_store(walker: &'w Walker<'a>, store: &'w dyn BlockStore, build: Build) -> Self {
        WalkGrids {
            walker,
            blocks: FxHashMap::default(),
            store: Some((store, build)),
        }
    }

    /// The blocks built (or taken) so far, to reuse with [`WalkGrids::with_blocks`].
    pub fn into_blocks(self) -> GridBlocks {
        GridBlocks(
            self.blocks
                .into_iter()
                .filter_map(|(k, g)| Some((k, g?)))
                .collect(),
        )
    }

    /// The block holding movement tile `(ix, iz)`: kept, taken from the store or built
    /// on first use; `None` when the store did not want it built.
    fn block(&mut self, ix: i64, iz: i64) -> Option<&WalkGrid> {
        let key = (ix.div_euclid(BLOCK), iz.div_euclid(BLOCK));
        let (walker, store) = (self.walker, self.store);
        let build =
            || Arc::new(walker.grid(key.0 * BLOCK, key.1 * BLOCK, BLOCK as usize, BLOCK as usize));
        self.blocks
            .entry(key)
            .or_insert_with(|| match store {
                None => Some(build()),
                Some((store, how)) => store.get(key).or_else(|| {
                    (how == Build::Always || store.wants(key)).then(|| {
                        let grid = build();
                        store.put(key, Arc::clone(&grid));
                        grid
                    })
                }),
            })
            .as_deref()
    }

    /// The judgement of movement tile `(ix, iz)`: its block's, or the point judgement
    /// at its centre (the same, tested) when the block is not built.
    pub fn blocked(&mut self, ix: i64, iz: i64) -> Option<Reason> {
        let walker = self.walker;
        match self.block(ix, iz) {
            Some(grid) => grid.get(ix, iz).flatten(),
            None => walker.blocked(ix as f64 + 0.5, iz as f64 + 0.5),
        }
    }

    /// Whether the move from tile `from` to its neighbour `to` rises too much for the
    /// rule ([`Walker::step_blocked`] of the tiles' centre heights).
    pub fn step_blocked(&mut self, from: (i64, i64), to: (i64, i64)) -> bool {
        if !self.walker.judges_steps() {
            return false;
        }
        let walker = self.walker;
        let mut height = |(ix, iz): (i64, i64)| {
            self.block(ix, iz)
                .and_then(|grid| grid.height(ix, iz))
                .unwrap_or_else(|| walker.height(ix as f64 + 0.5, iz as f64 + 0.5))
        };
        let (a, b) = (height(from), height(to));
        walker.step_blocked(a, b)
    }

    /// Blocks built so far.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::{
        GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet,
        walk::{BiomeLimits, WalkRule},
        zones::ZoneDoc,
    };

    /// `spread` gives what sorting every value and offset and searching each would:
    /// repeated values, movement-tile centres whose offsets are other points, both
    /// zeros, and magnitudes where `p - 1` and `p + 1` round onto other points.
    #[test]
    fn spread_equals_sorting_every_value() {
        let naive = |points: &[f64], neighbours: bool| {
            let trio = |p: f64| {
                if neighbours {
                    [p - 1.0, p, p + 1.0]
                } else {
                    [p; 3]
                }
            };
            let mut values: Vec<f64> = points.iter().flat_map(|&p| trio(p)).collect();
            values.sort_by(f64::total_cmp);
            values.dedup_by(|a, b| a.to_bits() == b.to_bits());
            let at = |v: f64| {
                values
                    .iter()
                    .position(|w| w.to_bits() == v.to_bits())
                    .unwrap()
            };
            let indices: Vec<[usize; 3]> = points.iter().map(|&p| trio(p).map(at)).collect();
            (values, indices)
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x0bad_cafe_f00d_1234);
        let big = 2f64.powi(53);
        let sets: Vec<Vec<f64>> = vec![
            vec![3.5],
            (0..50).map(|k| f64::from(k % 17) - 8.5).collect(),
            vec![0.0, -0.0, 1.0, -1.0, 0.0, 2.0],
            vec![big, big - 1.0, big + 2.0, big - 2.0, big + 4.0, -big],
            (0..200)
                .map(|_| f64::from(rng.random_range(0..4000)) / 8.0 - 250.0)
                .collect(),
        ];
        for points in &sets {
            for neighbours in [false, true] {
                let (values, indices) = spread(points, neighbours);
                let (want_values, want_indices) = naive(points, neighbours);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&values), bits(&want_values), "{points:?}");
                assert_eq!(indices, want_indices, "{points:?}");
            }
        }
    }

    fn island(overlap: Overlap) -> Terrain {
        let mut zones = ZoneSet::new(overlap, 100.0);
        let doc: ZoneDoc = serde_json::from_str(
            r#"{"id": "steep", "centerX": 12.0, "centerZ": -20.0, "width": 30.0, "depth": 18.0, "height": 40.0, "blendRadius": 6.0}"#,
        )
        .unwrap();
        zones.insert(doc.spec().unwrap().resolve("steep", f64::NAN), 1);
        // A building that blocks, and a floor over the steep zone's edge that does not.
        for (revision, (id, json)) in [
            ("hall", r#"{"centerX": -20.0, "centerZ": 0.0, "width": 10.0, "depth": 8.0, "height": 12.0, "blendRadius": 3.0, "walkable": false}"#),
            ("floor", r#"{"centerX": 26.0, "centerZ": -20.0, "width": 8.0, "depth": 12.0, "height": 30.0, "blendRadius": 2.0, "walkable": true}"#),
        ]
        .into_iter()
        .enumerate()
        {
            let doc: ZoneDoc = serde_json::from_str(json).unwrap();
            zones.insert(doc.spec().unwrap().resolve(id, f64::NAN), revision as u64 + 2);
        }
        Terrain::new(
            WorldGenerator::new(GeneratorKind::Hyperscape, 0).unwrap(),
            zones,
        )
    }

    #[test]
    fn every_cell_equals_the_point_judgement() {
        for overlap in [Overlap::Hyperscape, Overlap::Layered] {
            let t = island(overlap);
            for rule in [
                WalkRule::Hyperscape {
                    limits: BiomeLimits::hyperscape(),
                },
                WalkRule::Slope {
                    limits: BiomeLimits::hyperscape(),
                    water_level: 9.0,
                },
                WalkRule::MaxSlope {
                    max_slope: 0.3,
                    water_level: None,
                },
            ] {
                let walker = Walker::new(&t, &rule);
                // Across the zone, the coast and the town block's edge.
                let grid = walker.grid(-40, -60, 90, 70);
                let kept = walker.grid_with_heights(-40, -60, 90, 70);
                assert_eq!(grid.get(0, 0), kept.get(0, 0));
                let mut kinds = [0usize; 4];
                for iz in -60..10 {
                    for ix in -40..50 {
                        let (x, z) = (ix as f64 + 0.5, iz as f64 + 0.5);
                        let want = walker.blocked(x, z);
                        assert_eq!(grid.get(ix, iz), Some(want), "{rule:?} ({ix}, {iz})");
                        assert_eq!(kept.get(ix, iz), Some(want), "{rule:?} ({ix}, {iz})");
                        assert_eq!(
                            kept.height(ix, iz).map(f64::to_bits),
                            Some(t.height(x, z).to_bits()),
                            "height at ({x}, {z})"
                        );
                        kinds[match want {
                            None => 0,
                            Some(Reason::Water) => 1,
                            Some(Reason::Slope) => 2,
                            Some(Reason::Zone) => 3,
                            Some(Reason::Step) => unreachable!("a point never blocks for its step"),
                        }] += 1;
                    }
                }
                assert!(
                    kinds[0] > 0 && kinds[2] > 0 && kinds[3] == 80,
                    "{rule:?}: {kinds:?}"
                );
                assert_eq!(grid.get(50, 0), None);
            }
        }
    }

    /// A store that keeps every block given and wants a block built on the `after`th
    /// time it is asked about it.
    #[derive(Debug)]
    struct TestStore {
        kept: std::sync::Mutex<FxHashMap<(i64, i64), Arc<WalkGrid>>>,
        asked: std::sync::Mutex<FxHashMap<(i64, i64), usize>>,
        after: usize,
    }

    impl TestStore {
        fn new(after: usize) -> Self {
            TestStore {
                kept: Default::default(),
                asked: Default::default(),
                after,
            }
        }

        fn kept(&self) -> usize {
            self.kept.lock().unwrap().len()
        }
    }

    impl BlockStore for TestStore {
        fn get(&self, key: (i64, i64)) -> Option<Arc<WalkGrid>> {
            self.kept.lock().unwrap().get(&key).cloned()
        }

        fn put(&self, key: (i64, i64), grid: Arc<WalkGrid>) {
            self.kept.lock().unwrap().insert(key, grid);
        }

        fn wants(&self, key: (i64, i64)) -> bool {
            let mut asked = self.asked.lock().unwrap();
            let n = asked.entry(key).or_default();
            *n += 1;
            *n >= self.after
        }
    }

    /// Path checks over a store answer what the point path does whether their blocks
    /// are kept, built (and given to the store) or judged tile by tile; a search builds
    /// every block it enters; a later query takes the kept blocks instead of building.
    #[test]
    fn checks_over_a_store_equal_the_point_path_built_or_not() {
        let t = island(Overlap::Layered);
        let rule = WalkRule::Slope {
            limits: BiomeLimits::hyperscape(),
            water_level: 9.0,
        };
        let walker = Walker::new(&t, &rule);
        let find = |grids: &mut WalkGrids| {
            super::super::find::find_path((-60.5, -25.5), (60.5, 10.5), 1.0, 200_000, grids)
                .expect("a path")
        };
        // A search builds what it enters, whatever the store wants.
        let never = TestStore::new(usize::MAX);
        let mut grids = WalkGrids::with_store(&walker, &never, Build::Always);
        let found = find(&mut grids);
        assert!(never.kept() >= 2 && never.kept() == grids.len());
        // Taken from the store, not rebuilt: the same answer, nothing new kept.
        let before = never.kept();
        let mut again = WalkGrids::with_store(&walker, &never, Build::Always);
        assert_eq!(find(&mut again).waypoints, found.waypoints);
        assert_eq!(never.kept(), before);
        // Checks: the found path (clear) and segments across the zones and the coast.
        let segments: Vec<Vec<(f64, f64)>> = vec![
            found.waypoints.clone(),
            vec![(-60.3, -25.1), (70.2, -18.4)],
            vec![(-30.0, 40.5), (-10.2, -70.0)],
            vec![(15.5, -20.5), (40.0, -21.0)],
            vec![(130.0, 130.0), (-150.7, -90.2)],
        ];
        // Built on the second ask: the first check judges its tiles one by one.
        let store = TestStore::new(2);
        let mut outcomes = [0; 2];
        for pass in 0..3 {
            for (i, seg) in segments.iter().enumerate() {
                let want = walker.check_tiles(seg, 1.0);
                let mut grids = WalkGrids::with_store(&walker, &store, Build::WhenWanted);
                assert_eq!(grids.check_tiles(seg), want, "pass {pass} {seg:?}");
                outcomes[usize::from(want.blocked.is_some())] += 1;
                if pass == 0 && i == 0 {
                    assert_eq!(store.kept(), 0, "nothing built on the first ask");
                }
            }
        }
        let kept = store.kept();
        assert!(kept >= 4, "{kept} blocks kept");
        assert!(
            outcomes[0] > 0 && outcomes[1] > 0,
            "clear and blocked: {outcomes:?}"
        );
    }

    /// The pixel centres of a map tile at `m` metres a pixel, `n` of them from `t0`.
    fn centres(t0: i64, n: i64, m: f64) -> Vec<f64> {
        (0..n).map(|i| ((t0 + i) as f64 + 0.5) * m).collect()
    }

    #[test]
    fn every_lattice_point_equals_the_point_judgement() {
        let t = island(Overlap::Layered);
        let rules = [
            WalkRule::Slope {
                limits: BiomeLimits::hyperscape(),
                water_level: 9.0,
            },
            WalkRule::MaxSlope {
                max_slope: 0.3,
                water_level: Some(9.0),
            },
        ];
        // 0.25 m to 16 m a pixel: the neighbours at 1 m are pixel centres (shared) at
        // the fine spacings, between them at the coarse ones.
        for rule in &rules {
            let walker = Walker::new(&t, rule);
            let mut seen = [0usize; 3];
            for (m, x0, z0, n) in [
                // The hall, the floor and the steep zone's ring, the coast.
                (0.25, -104, -24, 48),
                (0.5, 40, -60, 40),
                (1.0, -30, -10, 60),
                (2.0, -30, -40, 30),
                (16.0, -8, -8, 16),
            ] {
                let (xs, zs) = (centres(x0, n, m), centres(z0, n, m));
                let lattice = walker.lattice(&xs, &zs);
                assert_eq!(lattice.cells.len(), xs.len() * zs.len());
                let mut kinds = [0usize; 3];
                for (j, &z) in zs.iter().enumerate() {
                    for (i, &x) in xs.iter().enumerate() {
                        let want = walker.blocked(x, z);
                        assert_eq!(want, walker.info(x, z).reason);
                        assert_eq!(lattice.cells[j * xs.len() + i], want, "{m} m ({x}, {z})");
                        kinds[match want {
                            None => 0,
                            Some(Reason::Slope) => 1,
                            _ => 2,
                        }] += 1;
                    }
                }
                for (k, n) in kinds.into_iter().enumerate() {
                    seen[k] += n;
                }
                // Distinct coordinates per axis: shared at 1 m or finer, the even
                // metres between odd centres at 2 m, three per centre at 16 m.
                let n = n as usize;
                let per_axis = match m {
                    0.25 => n + 8,
                    0.5 => n + 4,
                    1.0 => n + 2,
                    2.0 => 2 * n + 1,
                    _ => 3 * n,
                };
                assert_eq!(lattice.heights, per_axis * per_axis, "{m} m");
            }
            // Walkable, too steep, and blocked otherwise (the hall, the sea).
            assert!(seen.iter().all(|&n| n > 0), "{rule:?}: {seen:?}");
        }
    }
}
