//! Planar spokes inside one region: the maximal non-crossing graph over the region's
//! hubs, adding the shortest candidate edges first.
//!
//! Regions are fixed `REGION_CHUNKS x REGION_CHUNKS` blocks of chunks, so a region's
//! graph is a pure function of the configuration and the region coordinates: it can
//! be rebuilt at any time, in any order, on any thread, with the same result.

use std::cmp::Ordering;

use super::config::LayoutConfig;
use super::patterns::{Hub, hubs_in_chunk};

/// Side of a region, in chunks.
pub const REGION_CHUNKS: i64 = 4;

/// Longest planar candidate edge, in chunk sizes. Bounds the candidate count (hence
/// the cost of a region) while still reaching past every adjacent chunk's near side.
pub const PLANAR_MAX_LEN: f64 = 2.0;

/// The region holding chunk `(cx, cz)`.
pub fn region_of(cx: i64, cz: i64) -> (i64, i64) {
    (cx.div_euclid(REGION_CHUNKS), cz.div_euclid(REGION_CHUNKS))
}

/// The planar spoke graph of one region.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionGraph {
    /// The region's hubs, sorted by [`Hub::key`].
    pub hubs: Vec<Hub>,
    /// Edges as index pairs `(i, j)` into `hubs`, `i < j`, in insertion order.
    pub edges: Vec<(usize, usize)>,
    /// Longest candidate edge considered, metres.
    pub max_len: f64,
}

/// The hubs of region `(rx, rz)`, sorted by [`Hub::key`].
pub fn region_hubs(cfg: &LayoutConfig, rx: i64, rz: i64) -> Vec<Hub> {
    let mut hubs = Vec::new();
    for cx in rx * REGION_CHUNKS..(rx + 1) * REGION_CHUNKS {
        for cz in rz * REGION_CHUNKS..(rz + 1) * REGION_CHUNKS {
            hubs.extend(hubs_in_chunk(cfg, cx, cz));
        }
    }
    hubs.sort_by_key(Hub::key);
    hubs
}

/// Builds the planar graph of region `(rx, rz)`: every hub pair no longer than
/// [`PLANAR_MAX_LEN`] chunk sizes is a candidate; candidates are visited by
/// (squared length, then hub keys) and kept if they cross no kept edge.
pub fn planar_region(cfg: &LayoutConfig, rx: i64, rz: i64) -> RegionGraph {
    let hubs = region_hubs(cfg, rx, rz);
    let max_len = PLANAR_MAX_LEN * cfg.chunk_size;
    let limit = max_len * max_len;
    let mut candidates = Vec::new();
    for i in 0..hubs.len() {
        for j in i + 1..hubs.len() {
            let d2 = dist2(&hubs[i], &hubs[j]);
            if d2 <= limit {
                candidates.push((d2, i, j));
            }
        }
    }
    candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let mut buckets = Buckets::new(cfg, rx, rz);
    // Centres packed for the crossing tests; hubs are distinct, so sharing an index
    // is sharing a hub (the rule of `edges_cross`).
    let at: Vec<Point> = hubs.iter().map(|h| (h.x, h.z)).collect();
    for (_, i, j) in candidates {
        let cells = buckets.cells(&hubs[i], &hubs[j]);
        let blocked = cells.iter().any(|&c| {
            buckets.edges[c].iter().any(|&e| {
                let (a, b) = edges[e];
                a != i && a != j && b != i && b != j && segments_touch(at[i], at[j], at[a], at[b])
            })
        });
        if !blocked {
            for c in cells {
                buckets.edges[c].push(edges.len());
            }
            edges.push((i, j));
        }
    }
    RegionGraph {
        hubs,
        edges,
        max_len,
    }
}

/// Buckets per chunk side in [`Buckets`]: two keeps buckets small next to the
/// longest candidate (two chunks) without making every edge span many buckets.
const BUCKETS_PER_CHUNK: i64 = 2;

/// Kept edges bucketed by a uniform grid over the region. Two edges can only meet if
/// their bounding boxes overlap, hence share a bucket, so a candidate is checked
/// against its buckets' edges only; the decisions are those of a full scan.
struct Buckets {
    origin: (f64, f64),
    size: f64,
    side: i64,
    edges: Vec<Vec<usize>>,
}

impl Buckets {
    fn new(cfg: &LayoutConfig, rx: i64, rz: i64) -> Self {
        let side = REGION_CHUNKS * BUCKETS_PER_CHUNK;
        let span = (REGION_CHUNKS as f64) * cfg.chunk_size;
        Self {
            origin: (rx as f64 * span, rz as f64 * span),
            size: cfg.chunk_size / BUCKETS_PER_CHUNK as f64,
            side,
            edges: vec![Vec::new(); (side * side) as usize],
        }
    }

    /// The bucket range (clamped to the region) covering `lo..=hi` on one axis.
    fn span(&self, lo: f64, hi: f64, origin: f64) -> (i64, i64) {
        let at = |v: f64| (libm::floor((v - origin) / self.size) as i64).clamp(0, self.side - 1);
        (at(lo), at(hi))
    }

    /// Every bucket the bounding box of `a-b` touches.
    fn cells(&self, a: &Hub, b: &Hub) -> Vec<usize> {
        let (x0, x1) = self.span(a.x.min(b.x), a.x.max(b.x), self.origin.0);
        let (z0, z1) = self.span(a.z.min(b.z), a.z.max(b.z), self.origin.1);
        let mut out = Vec::new();
        for z in z0..=z1 {
            for x in x0..=x1 {
                out.push((z * self.side + x) as usize);
            }
        }
        out
    }
}

/// Squared distance between two hub centres.
pub fn dist2(a: &Hub, b: &Hub) -> f64 {
    let (dx, dz) = (a.x - b.x, a.z - b.z);
    dx * dx + dz * dz
}

/// Whether edge `p1-p2` and edge `q1-q2` cross. Edges that share a hub never cross
/// (they meet at that hub); otherwise any contact, touching included, counts.
pub fn edges_cross(p1: &Hub, p2: &Hub, q1: &Hub, q2: &Hub) -> bool {
    let shared = [p1, p2]
        .iter()
        .any(|p| p.key() == q1.key() || p.key() == q2.key());
    !shared && segments_touch((p1.x, p1.z), (p2.x, p2.z), (q1.x, q1.z), (q2.x, q2.z))
}

/// A point in the plane, `(x, z)`.
pub type Point = (f64, f64);

/// Whether closed segments `p1-p2` and `q1-q2` have any point in common.
pub fn segments_touch(p1: Point, p2: Point, q1: Point, q2: Point) -> bool {
    if !boxes_overlap(p1, p2, q1, q2) {
        return false;
    }
    let d1 = orient(q1, q2, p1);
    let d2 = orient(q1, q2, p2);
    let d3 = orient(p1, p2, q1);
    let d4 = orient(p1, p2, q2);
    if opposite(d1, d2) && opposite(d3, d4) {
        return true;
    }
    (d1 == Ordering::Equal && within_box(q1, q2, p1))
        || (d2 == Ordering::Equal && within_box(q1, q2, p2))
        || (d3 == Ordering::Equal && within_box(p1, p2, q1))
        || (d4 == Ordering::Equal && within_box(p1, p2, q2))
}

/// The side of line `a-b` that `c` lies on.
fn orient(a: Point, b: Point, c: Point) -> Ordering {
    let cross = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
    if cross > 0.0 {
        Ordering::Greater
    } else if cross < 0.0 {
        Ordering::Less
    } else {
        Ordering::Equal
    }
}

fn opposite(a: Ordering, b: Ordering) -> bool {
    matches!(
        (a, b),
        (Ordering::Less, Ordering::Greater) | (Ordering::Greater, Ordering::Less)
    )
}

fn within_box(a: Point, b: Point, c: Point) -> bool {
    c.0 >= a.0.min(b.0) && c.0 <= a.0.max(b.0) && c.1 >= a.1.min(b.1) && c.1 <= a.1.max(b.1)
}

fn boxes_overlap(p1: Point, p2: Point, q1: Point, q2: Point) -> bool {
    p1.0.max(p2.0) >= q1.0.min(q2.0)
        && q1.0.max(q2.0) >= p1.0.min(p2.0)
        && p1.1.max(p2.1) >= q1.1.min(q2.1)
        && q1.1.max(q2.1) >= p1.1.min(p2.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_touch_counts_crossings_and_contacts_only() {
        let t = segments_touch;
        assert!(
            t((0.0, 0.0), (2.0, 2.0), (0.0, 2.0), (2.0, 0.0)),
            "proper crossing"
        );
        assert!(
            t((0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (1.0, 5.0)),
            "T contact"
        );
        assert!(
            t((0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (3.0, 0.0)),
            "collinear overlap"
        );
        assert!(
            !t((0.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0)),
            "collinear apart"
        );
        assert!(
            !t((0.0, 0.0), (2.0, 2.0), (3.0, 0.0), (5.0, 2.0)),
            "parallel"
        );
        assert!(
            !t((0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (1.5, 0.9)),
            "near miss"
        );
    }

    #[test]
    fn regions_tile_negative_chunks_too() {
        assert_eq!(region_of(0, 3), (0, 0));
        assert_eq!(region_of(-1, -4), (-1, -1));
        assert_eq!(region_of(-5, 4), (-2, 1));
    }
}
