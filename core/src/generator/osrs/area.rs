//! The area path: heights for every tile of a rectangle (or, more generally, of the
//! outer product of two coordinate lists) with each lattice point hashed once.
//!
//! Results equal [`tile_height`](super::tile_height) everywhere, including negative
//! and wrapping coordinates: every column and row derives its lattice cell exactly as
//! the per-point path does (truncating `/`, masked fraction, wrapping `+ 1`), and the
//! lattice is built from the cells that actually occur rather than from a range.

use super::noise::{LAYERS, Layer, OFFSET_X, OFFSET_Y, interp, noise, scale};

/// Lays out overlapping windows of consecutive integers once.
///
/// For each value `v` (in order) returns `k` such that
/// `axis[k + d] == v.wrapping_add(lo).wrapping_add(d)` for `d` in `0..width`.
/// Windows that overlap the previous one (its start moved forward by `0..=width`)
/// share its entries, so a run of consecutive values costs one entry each.
pub(super) fn share_windows(
    values: impl IntoIterator<Item = i32>,
    lo: i32,
    width: usize,
) -> (Vec<i32>, Vec<usize>) {
    let values = values.into_iter();
    let mut axis = Vec::with_capacity(values.size_hint().0 + width);
    let mut starts = Vec::with_capacity(values.size_hint().0);
    let mut prev: Option<(i32, usize)> = None;
    for v in values {
        let start = v.wrapping_add(lo);
        // The previous window is always the tail of `axis`.
        let shared = prev.and_then(|(p, k)| {
            let d = usize::try_from(start.wrapping_sub(p)).ok()?;
            (d <= width).then_some((k, d))
        });
        let (k, new_from) = match shared {
            Some((k, d)) => (k + d, width - d),
            None => (axis.len(), 0),
        };
        axis.extend((new_from..width).map(|j| start.wrapping_add(j as i32)));
        starts.push(k);
        prev = Some((start, k));
    }
    (axis, starts)
}

/// [`smoothed_noise`](super::smoothed_noise) at every `(xs[c], ys[r])`:
/// `values[rows[r] * width + cols[c]]`.
struct Smoothed {
    values: Vec<i32>,
    width: usize,
    cols: Vec<usize>,
    rows: Vec<usize>,
}

impl Smoothed {
    /// Hashes the raw noise once over the shared 3x3 windows of all points, then
    /// smooths every interior point of that block.
    fn new(xs: &[i32], ys: &[i32]) -> Self {
        let (ex, cols) = share_windows(xs.iter().copied(), -1, 3);
        let (ey, rows) = share_windows(ys.iter().copied(), -1, 3);
        let w = ex.len();
        let mut values = Vec::new();
        if w > 0 {
            let mut raw = Vec::with_capacity(w * ey.len());
            for &y in &ey {
                raw.extend(ex.iter().map(|&x| noise(x, y)));
            }
            values.reserve((w - 2) * ey.len().saturating_sub(2));
            let lines = || raw.chunks_exact(w);
            for ((up, mid), down) in lines().zip(lines().skip(1)).zip(lines().skip(2)) {
                let blocks = up.windows(3).zip(mid.windows(3)).zip(down.windows(3));
                values.extend(blocks.map(|((u, m), d)| smooth_block(u, m, d)));
            }
        }
        let width = w.saturating_sub(2);
        Self {
            values,
            width,
            cols,
            rows,
        }
    }

    /// The smoothed values of input row `r`, indexed by `cols`.
    fn row(&self, r: usize) -> &[i32] {
        &self.values[self.rows[r] * self.width..]
    }
}

/// The smoothing of the centre of a 3x3 block given as its three rows.
#[inline]
fn smooth_block(up: &[i32], mid: &[i32], down: &[i32]) -> i32 {
    let corners = up[0] + up[2] + down[0] + down[2];
    let sides = mid[0] + mid[2] + up[1] + down[1];
    corners / 16 + sides / 8 + mid[1] / 4
}

/// One axis of a layer: the shared lattice coordinates, and per input coordinate the
/// index of its cell's low corner in that lattice and its blend weight.
struct LayerAxis {
    lattice: Vec<i32>,
    cells: Vec<usize>,
    weights: Vec<i32>,
}

impl LayerAxis {
    fn new(coords: &[i32], offset: i32, layer: Layer) -> Self {
        let freq = layer.freq;
        let table = layer.weights();
        let moved = || coords.iter().map(move |&c| c.wrapping_add(offset));
        let (lattice, cells) = share_windows(moved().map(|c| c / freq), 0, 2);
        let weights = moved().map(|c| table[(c & (freq - 1)) as usize]).collect();
        Self {
            lattice,
            cells,
            weights,
        }
    }
}

/// Adds `(layer - 128) >> shift` of one layer at every `(xs[c], ys[r])` to `acc`.
fn add_layer(acc: &mut [i32], xs: &[i32], ys: &[i32], layer: Layer) {
    let shift = layer.shift;
    let rows = acc.chunks_exact_mut(xs.len().max(1));
    if layer.freq == 1 {
        let moved = |v: &[i32], d: i32| v.iter().map(|&c| c.wrapping_add(d)).collect::<Vec<_>>();
        let smooth = Smoothed::new(&moved(xs, layer.dx), &moved(ys, layer.dy));
        for (r, row) in rows.enumerate() {
            let line = smooth.row(r);
            for (a, &c) in row.iter_mut().zip(&smooth.cols) {
                *a += (line[c] - 128) >> shift;
            }
        }
        return;
    }
    let ax = LayerAxis::new(xs, layer.dx, layer);
    let ay = LayerAxis::new(ys, layer.dy, layer);
    let smooth = Smoothed::new(&ax.lattice, &ay.lattice);
    // Each column's two lattice samples, then every lattice row blended along x once.
    let pairs: Vec<(usize, usize)> = (ax.cells.iter())
        .map(|&i| (smooth.cols[i], smooth.cols[i + 1]))
        .collect();
    let n = xs.len();
    let mut blended = Vec::with_capacity(ay.lattice.len() * n);
    for j in 0..ay.lattice.len() {
        let line = smooth.row(j);
        let samples = pairs.iter().zip(&ax.weights);
        blended.extend(samples.map(|(&(a, b), &fx)| interp(line[a], line[b], fx)));
    }
    for ((row, &j), &fy) in rows.zip(&ay.cells).zip(&ay.weights) {
        let (low, high) = (
            &blended[j * n..(j + 1) * n],
            &blended[(j + 1) * n..(j + 2) * n],
        );
        for ((a, &l), &h) in row.iter_mut().zip(low).zip(high) {
            *a += (interp(l, h, fy) - 128) >> shift;
        }
    }
}

/// The heights `h` at every world tile `(xs[c], ys[r])`, row-major (`r` outer, `c`
/// inner): `out[r * xs.len() + c] == tile_height(xs[c], ys[r])`.
///
/// The coordinates may be in any order and may repeat; runs of consecutive values
/// share their lattice points.
pub fn tile_heights_grid(xs: &[i32], ys: &[i32]) -> Vec<i32> {
    let xs: Vec<i32> = xs.iter().map(|&x| x.wrapping_add(OFFSET_X)).collect();
    let ys: Vec<i32> = ys.iter().map(|&y| y.wrapping_add(OFFSET_Y)).collect();
    let mut acc = vec![0; xs.len() * ys.len()];
    for layer in LAYERS {
        add_layer(&mut acc, &xs, &ys, layer);
    }
    acc.into_iter().map(scale).collect()
}

/// The heights `h` of the `width` x `depth` tiles whose corner is world tile `(x, y)`,
/// row-major (y outer, x inner): `out[j * width + i] == tile_height(x + i, y + j)`
/// with the additions wrapping.
pub fn tile_heights_area(x: i32, y: i32, width: usize, depth: usize) -> Vec<i32> {
    let axis = |start: i32, n: usize| -> Vec<i32> {
        (0..n).map(|i| start.wrapping_add(i as i32)).collect()
    };
    tile_heights_grid(&axis(x, width), &axis(y, depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_windows(values: &[i32], lo: i32, width: usize) -> usize {
        let (axis, starts) = share_windows(values.iter().copied(), lo, width);
        assert_eq!(starts.len(), values.len());
        for (&v, &k) in values.iter().zip(&starts) {
            for d in 0..width {
                assert_eq!(axis[k + d], v.wrapping_add(lo).wrapping_add(d as i32));
            }
        }
        axis.len()
    }

    #[test]
    fn windows_share_runs_and_survive_jumps() {
        assert_eq!(check_windows(&[0, 0, 1, 2, 2, 3], 0, 2), 5);
        assert_eq!(check_windows(&[5, 6, 7], -1, 3), 5);
        let wrap = [i32::MAX - 1, i32::MAX, i32::MIN, i32::MIN + 1];
        assert_eq!(check_windows(&wrap, 0, 2), 5);
        check_windows(&[7, 3, 3, 100, -7, i32::MIN, i32::MAX, 0, 2, 5], -1, 3);
        check_windows(&[], 0, 2);
    }
}
