//! The tiles a change touched, described so that its size does not grow with the
//! area: a few inclusive rectangles ([`TileRect`]) and their tile count, with the
//! explicit list only up to [`TILE_LIST_MAX`] tiles. Zone answers and events carry
//! all three on every surface (`tileRects`, `tileCount`, `tiles`).

use terrain_core::TileRect;
use terrain_proto::v1 as pb;

use crate::Tile;

/// The most tiles a change lists one by one (`tiles`); a change touching more lists
/// none, and only its rectangles say which. 256 tiles: a zone up to about 500 m
/// across on 32 m tiles, 1.5 km on 100 m tiles.
pub const TILE_LIST_MAX: u64 = 256;

/// The tiles a change touched: the union of a few rectangles.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChangedTiles {
    /// Non-empty, distinct, none inside another; they may overlap.
    pub rects: Vec<TileRect>,
    /// How many tiles their union holds.
    pub count: u64,
}

impl ChangedTiles {
    /// The union of `rects` (empty ones dropped, and those inside another).
    pub fn new(rects: impl IntoIterator<Item = TileRect>) -> Self {
        let mut kept: Vec<TileRect> = Vec::new();
        for r in rects.into_iter().filter(|r| !r.is_empty()) {
            if kept.iter().any(|k| inside(&r, k)) {
                continue;
            }
            kept.retain(|k| !inside(k, &r));
            kept.push(r);
        }
        let count = union_len(&kept);
        ChangedTiles { rects: kept, count }
    }

    /// True when `tile` is one of the changed tiles.
    pub fn contains(&self, tile: Tile) -> bool {
        self.rects.iter().any(|r| r.contains(tile))
    }

    /// True when some changed tile lies in `rect`.
    pub fn meets(&self, rect: &TileRect) -> bool {
        self.rects.iter().any(|r| r.intersects(rect))
    }

    /// The changed tiles one by one, row-major (z outer, x inner), when there are at
    /// most [`TILE_LIST_MAX`]; empty otherwise.
    pub fn listed(&self) -> Vec<Tile> {
        if self.count > TILE_LIST_MAX {
            return Vec::new();
        }
        let mut tiles: Vec<Tile> = self.rects.iter().flat_map(TileRect::tiles).collect();
        tiles.sort_unstable_by_key(|&(x, z)| (z, x));
        tiles.dedup();
        tiles
    }

    /// The protobuf rectangles.
    pub fn to_proto(&self) -> Vec<pb::TileRect> {
        self.rects.iter().map(rect_to_proto).collect()
    }

    /// The JSON rectangles: `[minTx, minTz, maxTx, maxTz]` each.
    pub fn to_json(&self) -> Vec<[i64; 4]> {
        self.rects
            .iter()
            .map(|r| [r.min_tx, r.min_tz, r.max_tx, r.max_tz])
            .collect()
    }
}

fn inside(a: &TileRect, b: &TileRect) -> bool {
    a.min_tx >= b.min_tx && a.max_tx <= b.max_tx && a.min_tz >= b.min_tz && a.max_tz <= b.max_tz
}

/// The protobuf form of `r`.
pub fn rect_to_proto(r: &TileRect) -> pb::TileRect {
    pb::TileRect {
        min_tx: r.min_tx,
        min_tz: r.min_tz,
        max_tx: r.max_tx,
        max_tz: r.max_tz,
    }
}

/// The rectangle of protobuf `r` (as sent: possibly empty).
pub fn rect_of_proto(r: &pb::TileRect) -> TileRect {
    TileRect {
        min_tx: r.min_tx,
        min_tz: r.min_tz,
        max_tx: r.max_tx,
        max_tz: r.max_tz,
    }
}

/// The number of tiles in the union of `rects`: the cells of the grid their edges
/// cut, counted once (a change has one or two rectangles).
fn union_len(rects: &[TileRect]) -> u64 {
    if let [r] = rects {
        return r.len();
    }
    let edges = |lo: fn(&TileRect) -> i64, hi: fn(&TileRect) -> i64| {
        let mut v: Vec<i64> = rects.iter().flat_map(|r| [lo(r), hi(r) + 1]).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let xs = edges(|r| r.min_tx, |r| r.max_tx);
    let zs = edges(|r| r.min_tz, |r| r.max_tz);
    let mut total: u64 = 0;
    for x in xs.windows(2) {
        for z in zs.windows(2) {
            if rects.iter().any(|r| r.contains((x[0], z[0]))) {
                let cells = (x[1] - x[0]) as u64 * (z[1] - z[0]) as u64;
                total = total.saturating_add(cells);
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(min_tx: i64, min_tz: i64, max_tx: i64, max_tz: i64) -> TileRect {
        TileRect {
            min_tx,
            min_tz,
            max_tx,
            max_tz,
        }
    }

    /// Counts and lists agree with enumerating the tiles (the brute-force oracle).
    #[test]
    fn the_union_counts_each_tile_once() {
        let cases = [
            vec![rect(0, 0, 0, 0)],
            vec![rect(0, 0, 3, 2), rect(2, 1, 5, 6)],
            vec![rect(0, 0, 3, 2), rect(0, 0, 3, 2)],
            vec![rect(-4, -4, 4, 4), rect(-1, -1, 1, 1)],
            vec![rect(0, 0, 1, 1), rect(10, 10, 11, 12)],
            vec![rect(0, 0, 1, 1), rect(3, 3, 2, 2)],
        ];
        for rects in cases {
            let changed = ChangedTiles::new(rects.clone());
            let mut brute: Vec<Tile> = rects.iter().flat_map(TileRect::tiles).collect();
            brute.sort_unstable_by_key(|&(x, z)| (z, x));
            brute.dedup();
            assert_eq!(changed.count, brute.len() as u64, "{rects:?}");
            assert_eq!(changed.listed(), brute, "{rects:?}");
            for &t in &brute {
                assert!(changed.contains(t));
            }
            assert!(!changed.contains((100, 100)));
        }
        let nested = ChangedTiles::new([rect(-1, -1, 1, 1), rect(-4, -4, 4, 4)]);
        assert_eq!(nested.rects, [rect(-4, -4, 4, 4)]);
    }

    /// Past [`TILE_LIST_MAX`] tiles nothing is listed, and the count stays exact.
    #[test]
    fn large_changes_list_no_tiles() {
        let small = ChangedTiles::new([rect(0, 0, 15, 15)]);
        assert_eq!(small.listed().len(), 256);
        let big = ChangedTiles::new([rect(-469, -469, 468, 468), rect(0, 0, 500, 500)]);
        assert!(big.listed().is_empty());
        assert_eq!(big.count, 938 * 938 + 501 * 501 - 469 * 469);
        assert!(big.meets(&rect(480, 480, 490, 490)));
        assert!(!big.meets(&rect(-500, 480, -490, 490)));
    }
}
