//! Spokes over an area: the public [`layout_in`] query and the cross-chunk rules.
//!
//! Every spoke is a pure function of the configuration and a bounded set of chunks:
//!
//! - **Grid rule**: each pair of orthogonally adjacent chunks is joined by its
//!   nearest hub pair (ties broken by hub keys). Depends on the two chunks alone.
//! - **Planar rule**: inside each region, the graph of [`planar_region`]. Across a
//!   region border, each pair of adjacent chunks on either side proposes its nearest
//!   hub pair; the proposal is kept if it crosses no edge of either region's graph
//!   and no *earlier* proposal (by squared length, then keys) that shares a chunk with
//!   it. A border edge lies inside the rectangle of its two chunks, so only
//!   proposals sharing a chunk can cross it: the kept graph is non-crossing
//!   everywhere and depends on two regions and a handful of chunks.
//!
//! [`layout_in`] rebuilds whatever it needs from scratch, with no shared state, so
//! its answer cannot depend on earlier queries, their order, or threads;
//! [`super::LayoutCache`] keeps region graphs between queries with the same answers.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::config::{Area, ChunkRect, LayoutConfig, LayoutError, SpokeRule};
use super::patterns::{Hub, hubs_in_chunk};
use super::region::{RegionGraph, dist2, edges_cross, planar_region, region_of};

/// A corridor between two hubs, stored with `a` before `b` in hub-key order.
#[derive(Debug, Clone, PartialEq)]
pub struct Spoke {
    /// Id of the first hub.
    pub a: String,
    /// Id of the second hub.
    pub b: String,
    /// Centre of hub `a`, `(x, z)` metres.
    pub a_at: (f64, f64),
    /// Centre of hub `b`, `(x, z)` metres.
    pub b_at: (f64, f64),
    /// Radius of hub `a`, metres.
    pub a_r: f64,
    /// Radius of hub `b`, metres.
    pub b_r: f64,
}

/// Hubs and spokes of an area.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Layout {
    /// The hubs of every chunk the area touches, sorted by [`Hub::key`].
    pub hubs: Vec<Hub>,
    /// Every spoke with at least one end among `hubs`, sorted by hub keys.
    pub spokes: Vec<Spoke>,
}

/// The hubs and spokes of `area`. Chunks are half-open, so the area touches chunks
/// `floor(min / chunk_size) ..= floor(max / chunk_size)` on each axis; the answer for
/// an area is the union of the answers for any cover of it by smaller areas.
pub fn layout_in(cfg: &LayoutConfig, area: &Area) -> Result<Layout, LayoutError> {
    build(cfg, area, Reach::Ends)
}

/// Like [`layout_in`], but the spokes are every spoke that can pass over `area`: all
/// edges of the regions it touches and every border or grid spoke of its chunks.
/// Every spoke lies inside its region (internal edges) or its two chunks (border and
/// grid edges), so no other spoke can come near the area.
pub fn layout_over(cfg: &LayoutConfig, area: &Area) -> Result<Layout, LayoutError> {
    build(cfg, area, Reach::Over)
}

/// Which region edges a query returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Edges with an end in the queried chunks.
    Ends,
    /// Every edge of the regions touched.
    Over,
}

fn build(cfg: &LayoutConfig, area: &Area, reach: Reach) -> Result<Layout, LayoutError> {
    build_with(cfg, area, reach, &mut RegionMap::new())
}

/// Region graphs by region coordinates, shared behind [`Arc`]s.
pub(crate) type RegionMap = BTreeMap<(i64, i64), Arc<RegionGraph>>;

/// Builds a layout reading and filling `regions`. Region graphs are pure functions of
/// the configuration and the region, so a map filled by earlier queries (or with
/// entries evicted) gives exactly the answer of an empty one.
pub(crate) fn build_with(
    cfg: &LayoutConfig,
    area: &Area,
    reach: Reach,
    regions: &mut RegionMap,
) -> Result<Layout, LayoutError> {
    cfg.validate()?;
    let rect = area.chunks(cfg)?;
    let mut ctx = Ctx::new(cfg, regions);
    let mut hubs: Vec<Hub> = rect.iter().flat_map(|(cx, cz)| ctx.chunk(cx, cz)).collect();
    hubs.sort_by_key(Hub::key);
    let mut edges = EdgeSet::new();
    match cfg.spokes {
        SpokeRule::Grid => grid_edges(&mut ctx, rect, &mut edges),
        SpokeRule::Planar => planar_edges(&mut ctx, rect, reach, &mut edges),
    }
    let spokes = edges
        .into_values()
        .map(|(a, b)| Spoke {
            a: a.id,
            b: b.id,
            a_at: (a.x, a.z),
            b_at: (b.x, b.z),
            a_r: a.r,
            b_r: b.r,
        })
        .collect();
    Ok(Layout { hubs, spokes })
}

/// The hub-key pair of an edge.
type EdgeKey = ((i64, i64, u32), (i64, i64, u32));
/// Edges keyed (and so ordered) by their hub keys.
type EdgeSet = BTreeMap<EdgeKey, (Hub, Hub)>;

fn insert(edges: &mut EdgeSet, a: &Hub, b: &Hub) {
    let (a, b) = if a.key() <= b.key() { (a, b) } else { (b, a) };
    edges
        .entry((a.key(), b.key()))
        .or_insert_with(|| (a.clone(), b.clone()));
}

/// Per-query memo of chunk hubs and region graphs; dropped when the query ends.
struct Ctx<'a> {
    cfg: &'a LayoutConfig,
    chunks: BTreeMap<(i64, i64), Vec<Hub>>,
    regions: &'a mut RegionMap,
}

impl<'a> Ctx<'a> {
    fn new(cfg: &'a LayoutConfig, regions: &'a mut RegionMap) -> Self {
        Self {
            cfg,
            chunks: BTreeMap::new(),
            regions,
        }
    }

    fn chunk(&mut self, cx: i64, cz: i64) -> Vec<Hub> {
        let cfg = self.cfg;
        self.chunks
            .entry((cx, cz))
            .or_insert_with(|| hubs_in_chunk(cfg, cx, cz))
            .clone()
    }

    fn region(&mut self, region: (i64, i64)) -> Arc<RegionGraph> {
        let cfg = self.cfg;
        Arc::clone(
            self.regions
                .entry(region)
                .or_insert_with(|| Arc::new(planar_region(cfg, region.0, region.1))),
        )
    }

    /// The nearest hub pair of two chunks, first hub from `c`.
    fn nearest_pair(&mut self, c: (i64, i64), n: (i64, i64)) -> Option<(Hub, Hub)> {
        let (hc, hn) = (self.chunk(c.0, c.1), self.chunk(n.0, n.1));
        let mut best: Option<(f64, &Hub, &Hub)> = None;
        for a in &hc {
            for b in &hn {
                let d2 = dist2(a, b);
                if best.is_none_or(|(bd, _, _)| d2 < bd) {
                    best = Some((d2, a, b));
                }
            }
        }
        best.map(|(_, a, b)| (a.clone(), b.clone()))
    }
}

/// The four orthogonal neighbours of a chunk.
fn neighbours(c: (i64, i64)) -> [(i64, i64); 4] {
    [
        (c.0 - 1, c.1),
        (c.0 + 1, c.1),
        (c.0, c.1 - 1),
        (c.0, c.1 + 1),
    ]
}

fn grid_edges(ctx: &mut Ctx, rect: ChunkRect, edges: &mut EdgeSet) {
    for c in rect.iter() {
        for n in neighbours(c) {
            if let Some((a, b)) = proposal(ctx, c, n) {
                insert(edges, &a, &b);
            }
        }
    }
}

fn planar_edges(ctx: &mut Ctx, rect: ChunkRect, reach: Reach, edges: &mut EdgeSet) {
    let (r0, r1) = (region_of(rect.cx0, rect.cz0), region_of(rect.cx1, rect.cz1));
    for rz in r0.1..=r1.1 {
        for rx in r0.0..=r1.0 {
            let graph = ctx.region((rx, rz));
            for &(i, j) in &graph.edges {
                let (a, b) = (&graph.hubs[i], &graph.hubs[j]);
                let ends_in = |h: &Hub| rect.contains(h.chunk.0, h.chunk.1);
                if reach == Reach::Over || ends_in(a) || ends_in(b) {
                    insert(edges, a, b);
                }
            }
        }
    }
    for c in rect.iter() {
        for n in neighbours(c) {
            if region_of(n.0, n.1) != region_of(c.0, c.1)
                && let Some((a, b)) = border_edge(ctx, c, n)
            {
                insert(edges, &a, &b);
            }
        }
    }
}

/// The nearest hub pair of adjacent chunks `c` and `n` (a grid spoke, or a border
/// proposal), normalised so that ties break the same whichever side asks.
fn proposal(ctx: &mut Ctx, c: (i64, i64), n: (i64, i64)) -> Option<(Hub, Hub)> {
    let (c, n) = if c <= n { (c, n) } else { (n, c) };
    ctx.nearest_pair(c, n)
}

/// Whether proposal `p` comes before `q`: shorter first, then by hub keys.
fn earlier(p: &(Hub, Hub), q: &(Hub, Hub)) -> bool {
    let key = |e: &(Hub, Hub)| (dist2(&e.0, &e.1), e.0.key(), e.1.key());
    let (kp, kq) = (key(p), key(q));
    kp.0.total_cmp(&kq.0)
        .then(kp.1.cmp(&kq.1))
        .then(kp.2.cmp(&kq.2))
        == Ordering::Less
}

/// The border edge between adjacent chunks `c` and `n` of different regions, if kept.
fn border_edge(ctx: &mut Ctx, c: (i64, i64), n: (i64, i64)) -> Option<(Hub, Hub)> {
    let cand = proposal(ctx, c, n)?;
    let crosses = |e: &(Hub, Hub)| edges_cross(&cand.0, &cand.1, &e.0, &e.1);
    for side in [c, n] {
        for m in neighbours(side) {
            // `m` is never `side`; skip the candidate's own pair.
            if m == c || m == n || region_of(m.0, m.1) == region_of(side.0, side.1) {
                continue;
            }
            if let Some(rival) = proposal(ctx, side, m)
                && earlier(&rival, &cand)
                && crosses(&rival)
            {
                return None;
            }
        }
    }
    for side in [c, n] {
        let graph = ctx.region(region_of(side.0, side.1));
        let hit = graph
            .edges
            .iter()
            .any(|&(i, j)| edges_cross(&cand.0, &cand.1, &graph.hubs[i], &graph.hubs[j]));
        if hit {
            return None;
        }
    }
    Some(cand)
}
