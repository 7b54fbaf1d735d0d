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

use rustc_hash::FxHashMap;

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
    /// judge steps) and the tile is inside.
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
        let steps = self.judges_steps();
        let mut kept = Vec::with_capacity(if steps { w * d } else { 0 });
        for (j, &z) in zs.iter().enumerate().take(d + 1).skip(1) {
            for (i, &x) in xs.iter().enumerate().take(w + 1).skip(1) {
                if steps {
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

/// The blocks of a [`WalkGrids`] apart from its walker, so that they outlive it: a
/// replica keeps them with its snapshot across calls. They are only valid for walkers
/// over the terrain and rule that built them.
#[derive(Debug, Clone, Default)]
pub struct GridBlocks(FxHashMap<(i64, i64), WalkGrid>);

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
        self.0.values().map(WalkGrid::bytes).sum()
    }
}

/// The blocks of movement tiles a walker's queries touched, built on first use.
#[derive(Debug)]
pub struct WalkGrids<'w, 'a> {
    walker: &'w Walker<'a>,
    blocks: FxHashMap<(i64, i64), WalkGrid>,
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
            blocks: blocks.0,
        }
    }

    /// The blocks built so far, to reuse with [`WalkGrids::with_blocks`].
    pub fn into_blocks(self) -> GridBlocks {
        GridBlocks(self.blocks)
    }

    /// The block holding movement tile `(ix, iz)`, built on first use.
    fn block(&mut self, ix: i64, iz: i64) -> &WalkGrid {
        let key = (ix.div_euclid(BLOCK), iz.div_euclid(BLOCK));
        let walker = self.walker;
        self.blocks.entry(key).or_insert_with(|| {
            walker.grid(key.0 * BLOCK, key.1 * BLOCK, BLOCK as usize, BLOCK as usize)
        })
    }

    /// The judgement of movement tile `(ix, iz)`.
    pub fn blocked(&mut self, ix: i64, iz: i64) -> Option<Reason> {
        self.block(ix, iz).get(ix, iz).flatten()
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
                .height(ix, iz)
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
    use super::*;
    use crate::{
        GeneratorKind, Overlap, Terrain, WorldGenerator, ZoneSet,
        walk::{BiomeLimits, WalkRule},
        zones::ZoneDoc,
    };

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
                let mut kinds = [0usize; 4];
                for iz in -60..10 {
                    for ix in -40..50 {
                        let want = walker.blocked(ix as f64 + 0.5, iz as f64 + 0.5);
                        assert_eq!(grid.get(ix, iz), Some(want), "{rule:?} ({ix}, {iz})");
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
}
