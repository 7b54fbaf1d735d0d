//! Error-bounded simplification of a grid mesh.
//!
//! A grid of `nx x nz` vertex heights (as served: the float32 heights of a tile mesh) is
//! covered by axis-aligned leaf rectangles of a quadtree whose splits fall on the same
//! vertex indices on both axes (interval `[a, b]` splits at `(a + b) / 2`), so every kept
//! vertex is a vertex of the full-detail grid and has its exact served height. A leaf
//! with only its four corners on its sides is two triangles split along the same
//! (ix, iz+1)-(ix+1, iz) diagonal as the full mesh; a leaf with vertices of smaller
//! neighbours on its sides is a fan from its centre vertex, so no T-junction opens a
//! crack inside the mesh. Leaves are split until the largest vertical distance between
//! the triangles and the grid's own surface (its vertices, and every point where a
//! triangle's side crosses a grid cell's side or diagonal: the distance between two
//! piecewise-planar surfaces peaks at those) is at most the error asked for (measured
//! exactly, not estimated), and leaves holding carved cells
//! are split down to single cells, whose carved ones are left out: carved floors stay
//! carved.
//!
//! Neighbouring tiles meet by skirts (see [`simplify_tile`]), not by shared edge
//! vertices: a tile's edge vertices then depend on nothing but its own heights and the
//! error asked for, so each tile (or 3D Tiles content) is built, cached and rebuilt after
//! a zone change alone, at any pair of errors.

use super::tile::{Indices, TileMesh};

/// A rectangle of vertex indices `[x0, x1] x [z0, z1]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rect {
    x0: u32,
    x1: u32,
    z0: u32,
    z1: u32,
}

impl Rect {
    fn splits_x(&self) -> bool {
        self.x1 - self.x0 >= 2
    }

    fn splits_z(&self) -> bool {
        self.z1 - self.z0 >= 2
    }

    /// The children: each axis with at least two cells is halved at its midpoint.
    fn split(&self) -> Vec<Rect> {
        let xs = if self.splits_x() {
            let m = (self.x0 + self.x1) / 2;
            vec![(self.x0, m), (m, self.x1)]
        } else {
            vec![(self.x0, self.x1)]
        };
        let zs = if self.splits_z() {
            let m = (self.z0 + self.z1) / 2;
            vec![(self.z0, m), (m, self.z1)]
        } else {
            vec![(self.z0, self.z1)]
        };
        zs.iter()
            .flat_map(|&(z0, z1)| xs.iter().map(move |&(x0, x1)| Rect { x0, x1, z0, z1 }))
            .collect()
    }
}

/// A height grid to simplify.
#[derive(Debug, Clone, Copy)]
pub struct HeightGrid<'a> {
    /// Vertices along x.
    pub nx: usize,
    /// Vertices along z.
    pub nz: usize,
    /// Heights, vertex `(ix, iz)` at `iz * nx + ix`.
    pub heights: &'a [f64],
    /// Carved cells, cell `(ix, iz)` at `iz * (nx - 1) + ix`; empty when none is.
    pub carved: &'a [bool],
}

impl HeightGrid<'_> {
    fn h(&self, ix: u32, iz: u32) -> f64 {
        self.heights[iz as usize * self.nx + ix as usize]
    }

    fn carved(&self, ix: u32, iz: u32) -> bool {
        !self.carved.is_empty() && self.carved[iz as usize * (self.nx - 1) + ix as usize]
    }

    fn any_carved(&self, r: &Rect) -> bool {
        !self.carved.is_empty() && (r.z0..r.z1).any(|iz| (r.x0..r.x1).any(|ix| self.carved(ix, iz)))
    }
}

/// A simplified grid: kept vertices and triangles, by grid vertex index (`iz * nx + ix`).
#[derive(Debug, Clone, PartialEq)]
pub struct Simplified {
    /// The kept vertices, ascending.
    pub vertices: Vec<u32>,
    /// Triangles wound as the full mesh's (clockwise in (x, z), facing +y).
    pub triangles: Vec<[u32; 3]>,
    /// The kept vertices on each outer edge, in order of increasing coordinate along it:
    /// `z = 0`, `x = nx - 1`, `z = nz - 1`, `x = 0`.
    pub edges: [Vec<u32>; 4],
    /// The largest vertical distance between the triangles and a grid vertex under them.
    pub max_error: f64,
}

impl Simplified {
    /// The triangles' indices and the edges' vertices through `remap` (grid vertex
    /// index to the index of a mesh's vertex arrays).
    pub fn remapped(&self, remap: &[u32]) -> (Vec<u32>, [Vec<u32>; 4]) {
        let indices = self
            .triangles
            .iter()
            .flat_map(|t| t.map(|v| remap[v as usize]))
            .collect();
        let edges = self
            .edges
            .clone()
            .map(|e| e.into_iter().map(|v| remap[v as usize]).collect());
        (indices, edges)
    }
}

/// Twice the signed area of `(a, b, c)` in (x, z): negative for the full mesh's winding.
fn orient(a: (i64, i64), b: (i64, i64), c: (i64, i64)) -> i64 {
    (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
}

/// The largest distance between triangle `(a, b, c)` (grid coordinates) and the grid
/// vertices inside it or on its sides.
fn triangle_error(grid: &HeightGrid<'_>, t: [(u32, u32); 3]) -> f64 {
    let p = t.map(|(x, z)| (i64::from(x), i64::from(z)));
    let area = orient(p[0], p[1], p[2]);
    if area == 0 {
        return 0.0;
    }
    let h = t.map(|(x, z)| grid.h(x, z));
    let (x0, x1) = (p.iter().map(|q| q.0).min(), p.iter().map(|q| q.0).max());
    let (z0, z1) = (p.iter().map(|q| q.1).min(), p.iter().map(|q| q.1).max());
    let (Some(x0), Some(x1), Some(z0), Some(z1)) = (x0, x1, z0, z1) else {
        return 0.0;
    };
    let mut worst = 0.0f64;
    for z in z0..=z1 {
        for x in x0..=x1 {
            let q = (x, z);
            let w0 = orient(p[1], p[2], q);
            let w1 = orient(p[2], p[0], q);
            let w2 = orient(p[0], p[1], q);
            let inside = if area > 0 {
                w0 >= 0 && w1 >= 0 && w2 >= 0
            } else {
                w0 <= 0 && w1 <= 0 && w2 <= 0
            };
            if !inside {
                continue;
            }
            let a = area as f64;
            let v = (w0 as f64 / a) * h[0] + (w1 as f64 / a) * h[1] + (w2 as f64 / a) * h[2];
            worst = worst.max((v - grid.h(x as u32, z as u32)).abs());
        }
    }
    // Between the grid's vertices the distance to the grid's own surface is linear on
    // each piece where both are planes, so the rest of its extremes lie where the
    // triangle's sides cross the grid's cell sides and diagonals.
    for e in 0..3 {
        worst = worst.max(side_error(grid, p[e], p[(e + 1) % 3], h[e], h[(e + 1) % 3]));
    }
    worst
}

/// The largest distance between side `p -> q` of a triangle (heights `hp`, `hq`) and
/// the grid's surface at every point where the side crosses a grid line (x or z an
/// integer) or a cell diagonal (x + z an integer).
fn side_error(grid: &HeightGrid<'_>, p: (i64, i64), q: (i64, i64), hp: f64, hq: f64) -> f64 {
    let (dx, dz) = (q.0 - p.0, q.1 - p.1);
    let mut worst = 0.0f64;
    let mut at = |num: i64, den: i64| {
        // The point p + (num / den) (q - p), strictly inside the side.
        if den == 0 || num <= 0 || num >= den {
            return;
        }
        let s = num as f64 / den as f64;
        let (x, z) = (p.0 as f64 + s * dx as f64, p.1 as f64 + s * dz as f64);
        let on_side = hp + s * (hq - hp);
        worst = worst.max((on_side - grid_surface(grid, x, z)).abs());
    };
    // Crossing x = p.x + k (k = 1 .. |dx| - 1) is at s = k / |dx|; likewise z and
    // x + z (whose integer values step by one along the side every 1 / |dx + dz|).
    for d in [dx.abs(), dz.abs(), (dx + dz).abs()] {
        for k in 1..d {
            at(k, d);
        }
    }
    worst
}

/// The height of the full grid's surface at `(x, z)` (grid units): the plane of the
/// cell triangle under it, cells split along the (ix, iz+1)-(ix+1, iz) diagonal.
fn grid_surface(grid: &HeightGrid<'_>, x: f64, z: f64) -> f64 {
    let ix = (x.floor().max(0.0) as u32).min(grid.nx as u32 - 2);
    let iz = (z.floor().max(0.0) as u32).min(grid.nz as u32 - 2);
    let (u, v) = (x - f64::from(ix), z - f64::from(iz));
    if u + v <= 1.0 {
        let (a, b, d) = (grid.h(ix, iz), grid.h(ix, iz + 1), grid.h(ix + 1, iz));
        a + (d - a) * u + (b - a) * v
    } else {
        let (b, c, d) = (
            grid.h(ix, iz + 1),
            grid.h(ix + 1, iz + 1),
            grid.h(ix + 1, iz),
        );
        c + (b - c) * (1.0 - u) + (d - c) * (1.0 - v)
    }
}

/// Winds `t` as the full mesh does (negative orientation in (x, z)).
fn wound(t: [(u32, u32); 3]) -> [(u32, u32); 3] {
    let p = t.map(|(x, z)| (i64::from(x), i64::from(z)));
    if orient(p[0], p[1], p[2]) > 0 {
        [t[0], t[2], t[1]]
    } else {
        t
    }
}

/// How a leaf is triangulated, given the vertices used on its sides.
enum Leaf {
    /// Triangles (grid coordinates) and their largest error.
    Triangles(Vec<[(u32, u32); 3]>, f64),
    /// Carved: no triangles.
    Carved,
    /// Has to be split.
    Split,
}

fn triangulate(grid: &HeightGrid<'_>, used: &[bool], r: &Rect, tolerance: f64) -> Leaf {
    let nx = grid.nx;
    let is_used = |x: u32, z: u32| used[z as usize * nx + x as usize];
    if r.x1 - r.x0 == 1 && r.z1 - r.z0 == 1 && grid.carved(r.x0, r.z0) {
        return Leaf::Carved;
    }
    // The boundary, counter-clockwise from (x0, z0).
    let mut ring = Vec::new();
    ring.extend(
        (r.x0..r.x1)
            .filter(|&x| is_used(x, r.z0))
            .map(|x| (x, r.z0)),
    );
    ring.extend(
        (r.z0..r.z1)
            .filter(|&z| is_used(r.x1, z))
            .map(|z| (r.x1, z)),
    );
    ring.extend(
        (r.x0 + 1..=r.x1)
            .rev()
            .filter(|&x| is_used(x, r.z1))
            .map(|x| (x, r.z1)),
    );
    ring.extend(
        (r.z0 + 1..=r.z1)
            .rev()
            .filter(|&z| is_used(r.x0, z))
            .map(|z| (r.x0, z)),
    );
    let triangles = if ring.len() == 4 {
        let (a, b, c, d) = ((r.x0, r.z0), (r.x0, r.z1), (r.x1, r.z1), (r.x1, r.z0));
        vec![[a, b, d], [b, c, d]]
    } else if r.splits_x() && r.splits_z() {
        let centre = ((r.x0 + r.x1) / 2, (r.z0 + r.z1) / 2);
        (0..ring.len())
            .map(|i| wound([centre, ring[i], ring[(i + 1) % ring.len()]]))
            .collect()
    } else {
        return Leaf::Split;
    };
    let error = triangles
        .iter()
        .map(|&t| triangle_error(grid, t))
        .fold(0.0, f64::max);
    if error > tolerance && (r.splits_x() || r.splits_z()) {
        return Leaf::Split;
    }
    Leaf::Triangles(triangles, error)
}

/// Simplifies `grid` to at most `tolerance` metres of vertical error at every grid
/// vertex. `tolerance <= 0` (or a grid of one cell) keeps every vertex.
///
/// # Panics
/// Never for a consistent grid; `heights` must hold `nx * nz` values and `carved`
/// none or `(nx - 1) * (nz - 1)`, with `nx, nz >= 2` (checked by a debug assertion).
pub fn simplify_grid(grid: &HeightGrid<'_>, tolerance: f64) -> Simplified {
    debug_assert!(grid.nx >= 2 && grid.nz >= 2 && grid.heights.len() == grid.nx * grid.nz);
    let (nx, nz) = (grid.nx, grid.nz);
    let tolerance = if tolerance.is_finite() {
        tolerance.max(0.0)
    } else {
        0.0
    };
    let root = Rect {
        x0: 0,
        x1: nx as u32 - 1,
        z0: 0,
        z1: nz as u32 - 1,
    };
    // First pass: split while the two corner triangles miss or a cell is carved.
    let mut leaves = Vec::new();
    let mut work = vec![root];
    while let Some(r) = work.pop() {
        let splittable = r.splits_x() || r.splits_z();
        let two = || {
            let (a, b, c, d) = ((r.x0, r.z0), (r.x0, r.z1), (r.x1, r.z1), (r.x1, r.z0));
            triangle_error(grid, [a, b, d]).max(triangle_error(grid, [b, c, d]))
        };
        if splittable && (grid.any_carved(&r) || two() > tolerance) {
            work.extend(r.split());
        } else {
            leaves.push(r);
        }
    }
    // Then triangulate against the neighbours' corners until every leaf holds.
    loop {
        let mut used = vec![false; nx * nz];
        for r in &leaves {
            for (x, z) in [(r.x0, r.z0), (r.x1, r.z0), (r.x0, r.z1), (r.x1, r.z1)] {
                used[z as usize * nx + x as usize] = true;
            }
        }
        let mut next = Vec::with_capacity(leaves.len());
        let mut triangles = Vec::new();
        let mut max_error = 0.0f64;
        let mut split_any = false;
        for r in &leaves {
            match triangulate(grid, &used, r, tolerance) {
                Leaf::Split => {
                    split_any = true;
                    next.extend(r.split());
                }
                Leaf::Carved => next.push(*r),
                Leaf::Triangles(t, e) => {
                    next.push(*r);
                    max_error = max_error.max(e);
                    triangles.extend(t);
                }
            }
        }
        leaves = next;
        if split_any {
            continue;
        }
        let index = |(x, z): (u32, u32)| z * nx as u32 + x;
        let mut kept = vec![false; nx * nz];
        let triangles: Vec<[u32; 3]> = triangles
            .into_iter()
            .map(|t| {
                let t = t.map(index);
                for &v in &t {
                    kept[v as usize] = true;
                }
                t
            })
            .collect();
        let vertices: Vec<u32> = (0..(nx * nz) as u32)
            .filter(|&v| kept[v as usize])
            .collect();
        let on = |v: u32| kept[v as usize];
        let (lx, lz) = (nx as u32 - 1, nz as u32 - 1);
        let edges = [
            (0..=lx).map(|x| index((x, 0))).filter(|&v| on(v)).collect(),
            (0..=lz)
                .map(|z| index((lx, z)))
                .filter(|&v| on(v))
                .collect(),
            (0..=lx)
                .map(|x| index((x, lz)))
                .filter(|&v| on(v))
                .collect(),
            (0..=lz).map(|z| index((0, z))).filter(|&v| on(v)).collect(),
        ];
        return Simplified {
            vertices,
            triangles,
            edges,
            max_error,
        };
    }
}

/// The height of the simplified surface at grid vertex `(ix, iz)`: the plane of the
/// triangle holding it (`None` where no triangle does: carved). For checks and tools.
pub fn surface_at(grid: &HeightGrid<'_>, s: &Simplified, ix: u32, iz: u32) -> Option<f64> {
    let nx = grid.nx as u32;
    let q = (i64::from(ix), i64::from(iz));
    s.triangles.iter().find_map(|t| {
        let c = t.map(|v| (i64::from(v % nx), i64::from(v / nx)));
        let area = orient(c[0], c[1], c[2]);
        let w = [
            orient(c[1], c[2], q),
            orient(c[2], c[0], q),
            orient(c[0], c[1], q),
        ];
        let inside = w.iter().all(|&w| if area > 0 { w >= 0 } else { w <= 0 });
        (area != 0 && inside).then(|| {
            let a = area as f64;
            (0..3)
                .map(|k| (w[k] as f64 / a) * grid.heights[t[k] as usize])
                .sum::<f64>()
        })
    })
}

/// The carved cells of a tile mesh: cells whose two triangles it leaves out.
fn carved_of(mesh: &TileMesh) -> Vec<bool> {
    let n = mesh.resolution as usize;
    let mut present = vec![false; (n - 1) * (n - 1)];
    let mut k = 0;
    while let Some(a) = mesh.indices.get(k) {
        let (ix, iz) = (a as usize % n, a as usize / n);
        if ix < n - 1 && iz < n - 1 {
            present[iz * (n - 1) + ix] = true;
        }
        k += 6;
    }
    if present.iter().all(|&p| p) {
        return Vec::new();
    }
    present.into_iter().map(|p| !p).collect()
}

/// How far a skirt hangs below the edge of a mesh simplified to `error`: twice the
/// error. Two neighbours simplified to `e1` and `e2` are each within their error of the
/// full-detail edge (which both share), so the gap between them is at most `e1 + e2`,
/// which the deeper skirt, `2 max(e1, e2)`, always covers.
pub fn skirt_depth(error: f64) -> f64 {
    2.0 * error
}

/// Appends a skirt below each outer edge of a simplified mesh: for each pair of
/// consecutive kept edge vertices (`edges`, as [`Simplified::edges`], by index into the
/// vertex arrays), two triangles down to copies of them `depth` lower, facing outwards.
/// `carved_between(a, b)` leaves out the skirt under a carved edge cell.
pub(crate) fn add_skirts(
    mesh: &mut TileMesh,
    edges: &[Vec<u32>; 4],
    depth: f32,
    carved_between: impl Fn(u32, u32) -> bool,
    indices: &mut Vec<u32>,
) {
    if depth <= 0.0 {
        return;
    }
    // Outward directions of the edges z = min, x = max, z = max, x = min.
    let outward = [(0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)];
    for (edge, &(ox, oz)) in edges.iter().zip(&outward) {
        for pair in edge.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if carved_between(a, b) {
                continue;
            }
            let copy = |mesh: &mut TileMesh, v: u32| -> u32 {
                let i = v as usize;
                let k = (mesh.positions.len() / 3) as u32;
                let p = [
                    mesh.positions[i * 3],
                    mesh.positions[i * 3 + 1] - depth,
                    mesh.positions[i * 3 + 2],
                ];
                mesh.positions.extend(p);
                let nrm = [
                    mesh.normals[i * 3],
                    mesh.normals[i * 3 + 1],
                    mesh.normals[i * 3 + 2],
                ];
                mesh.normals.extend(nrm);
                if !mesh.colours.is_empty() {
                    let c = [
                        mesh.colours[i * 3],
                        mesh.colours[i * 3 + 1],
                        mesh.colours[i * 3 + 2],
                    ];
                    mesh.colours.extend(c);
                }
                if !mesh.biomes.is_empty() {
                    mesh.biomes.push(mesh.biomes[i]);
                }
                let h = mesh.heights[i] - f64::from(depth);
                mesh.heights.push(h);
                k
            };
            let (a2, b2) = (copy(mesh, a), copy(mesh, b));
            let at = |v: u32| {
                let i = v as usize * 3;
                (
                    f64::from(mesh.positions[i]),
                    f64::from(mesh.positions[i + 1]),
                    f64::from(mesh.positions[i + 2]),
                )
            };
            // Normal of (a, b, b2) by the cross product; flip to face outwards.
            let (pa, pb, pc) = (at(a), at(b), at(b2));
            let (u, w) = (
                (pb.0 - pa.0, pb.1 - pa.1, pb.2 - pa.2),
                (pc.0 - pa.0, pc.1 - pa.1, pc.2 - pa.2),
            );
            let n = (u.1 * w.2 - u.2 * w.1, u.0 * w.1 - u.1 * w.0);
            if n.0 * ox + n.1 * oz >= 0.0 {
                indices.extend([a, b, b2, a, b2, a2]);
            } else {
                indices.extend([a, b2, b, a, a2, b2]);
            }
        }
    }
    mesh.min_height -= depth;
}

/// `mesh` (a full-detail tile mesh) simplified to at most `max_error` metres of vertical
/// error at every one of its vertices, with skirts [`skirt_depth`] deep along its four
/// edges. Kept vertices keep their positions, heights, normals, vertex colours and biome
/// ids; carved cells stay carved. `max_error <= 0` answers the mesh itself, and so
/// does an error so small that the simplified mesh with its skirts would have more
/// vertices or triangles than full detail (the full mesh is within any error).
pub fn simplify_tile(mesh: &TileMesh, max_error: f64) -> TileMesh {
    let n = mesh.resolution as usize;
    if max_error.is_nan() || max_error <= 0.0 || n < 2 || mesh.positions.len() != n * n * 3 {
        return mesh.clone();
    }
    let heights: Vec<f64> = mesh
        .positions
        .chunks_exact(3)
        .map(|p| f64::from(p[1]))
        .collect();
    let carved = carved_of(mesh);
    let grid = HeightGrid {
        nx: n,
        nz: n,
        heights: &heights,
        carved: &carved,
    };
    let s = simplify_grid(&grid, max_error);
    let mut remap = vec![u32::MAX; n * n];
    let mut out = TileMesh {
        positions: Vec::with_capacity(s.vertices.len() * 3),
        normals: Vec::with_capacity(s.vertices.len() * 3),
        colours: Vec::new(),
        biomes: Vec::new(),
        heights: Vec::with_capacity(s.vertices.len()),
        indices: Indices::U32(Vec::new()),
        ..mesh.clone()
    };
    let coloured = mesh.colours.len() == n * n * 3 && mesh.biomes.len() == n * n;
    for (k, &v) in s.vertices.iter().enumerate() {
        let i = v as usize;
        remap[i] = k as u32;
        out.positions
            .extend_from_slice(&mesh.positions[i * 3..i * 3 + 3]);
        out.normals
            .extend_from_slice(&mesh.normals[i * 3..i * 3 + 3]);
        if coloured {
            out.colours
                .extend_from_slice(&mesh.colours[i * 3..i * 3 + 3]);
            out.biomes.push(mesh.biomes[i]);
        }
        out.heights.push(mesh.heights[i]);
    }
    let (mut indices, edges) = s.remapped(&remap);
    // Two consecutive edge vertices one cell apart bound a carved cell when that cell is.
    let cell_of_pair = |a: u32, b: u32| -> Option<usize> {
        let (a, b) = (
            s.vertices[a as usize] as usize,
            s.vertices[b as usize] as usize,
        );
        let (ax, az, bx, bz) = (a % n, a / n, b % n, b / n);
        let (x, z) = (ax.min(bx), az.min(bz));
        let one = ax.abs_diff(bx) + az.abs_diff(bz) == 1;
        (one && !carved.is_empty()).then(|| {
            let (x, z) = (x.min(n - 2), z.min(n - 2));
            z * (n - 1) + x
        })
    };
    add_skirts(
        &mut out,
        &edges,
        skirt_depth(max_error) as f32,
        |a, b| cell_of_pair(a, b).is_some_and(|c| carved[c]),
        &mut indices,
    );
    if out.positions.len() >= mesh.positions.len() || indices.len() >= mesh.indices.len() {
        return mesh.clone();
    }
    out.indices = Indices::fitting(indices, out.positions.len() / 3);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(grid: &HeightGrid<'_>, s: &Simplified, tolerance: f64) -> f64 {
        let mut worst = 0.0f64;
        for iz in 0..grid.nz as u32 {
            for ix in 0..grid.nx as u32 {
                let cell_carved = |x: u32, z: u32| {
                    x < grid.nx as u32 - 1 && z < grid.nz as u32 - 1 && grid.carved(x, z)
                };
                match surface_at(grid, s, ix, iz) {
                    Some(v) => worst = worst.max((v - grid.h(ix, iz)).abs()),
                    None => assert!(
                        cell_carved(ix, iz)
                            || (ix > 0 && cell_carved(ix - 1, iz))
                            || (iz > 0 && cell_carved(ix, iz - 1))
                            || (ix > 0 && iz > 0 && cell_carved(ix - 1, iz - 1)),
                        "vertex ({ix}, {iz}) is under no triangle"
                    ),
                }
            }
        }
        assert!(worst <= tolerance, "{worst} > {tolerance}");
        worst
    }

    fn bumpy(nx: usize, nz: usize) -> Vec<f64> {
        (0..nz)
            .flat_map(|z| {
                (0..nx).map(move |x| {
                    let (x, z) = (x as f64, z as f64);
                    10.0 * libm::sin(x * 0.21) * libm::cos(z * 0.17)
                        + 0.05 * x
                        + 3.0 * libm::sin(x * z * 0.01)
                })
            })
            .collect()
    }

    #[test]
    fn every_vertex_is_within_the_error_and_fewer_triangles_for_more_error() {
        for (nx, nz) in [(64, 64), (65, 65), (33, 33), (127, 127), (5, 9)] {
            let heights = bumpy(nx, nz);
            let grid = HeightGrid {
                nx,
                nz,
                heights: &heights,
                carved: &[],
            };
            let mut last = usize::MAX;
            for tol in [0.0, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0] {
                let s = simplify_grid(&grid, tol);
                let worst = check(&grid, &s, tol);
                assert!(s.max_error >= worst - 1e-12, "{} < {worst}", s.max_error);
                assert!(s.triangles.len() <= last, "{nx}x{nz} at {tol}");
                last = s.triangles.len();
                if tol == 0.0 {
                    assert_eq!(s.vertices.len(), nx * nz);
                    assert_eq!(s.triangles.len(), (nx - 1) * (nz - 1) * 2);
                }
            }
            assert!(last < (nx - 1) * (nz - 1), "{nx}x{nz}: {last}");
        }
    }

    #[test]
    fn a_plane_is_two_triangles_and_carved_cells_stay_out() {
        let (nx, nz) = (64, 64);
        let heights: Vec<f64> = (0..nx * nz)
            .map(|v| 2.0 + 0.5 * (v % nx) as f64 - 0.25 * (v / nx) as f64)
            .collect();
        let plain = HeightGrid {
            nx,
            nz,
            heights: &heights,
            carved: &[],
        };
        let s = simplify_grid(&plain, 0.01);
        assert_eq!(s.triangles.len(), 2);
        assert_eq!(s.vertices.len(), 4);
        assert_eq!(s.edges.iter().map(Vec::len).sum::<usize>(), 8);

        let mut carved = vec![false; (nx - 1) * (nz - 1)];
        for iz in 20..30 {
            for ix in 10..25 {
                carved[iz * (nx - 1) + ix] = true;
            }
        }
        let grid = HeightGrid {
            carved: &carved,
            ..plain
        };
        let s = simplify_grid(&grid, 0.01);
        check(&grid, &s, 0.01);
        // No triangle covers a carved cell's inside.
        for t in &s.triangles {
            let c: Vec<(f64, f64)> = t
                .iter()
                .map(|&v| ((v % nx as u32) as f64, (v / nx as u32) as f64))
                .collect();
            let centroid = (
                (c[0].0 + c[1].0 + c[2].0) / 3.0,
                (c[0].1 + c[1].1 + c[2].1) / 3.0,
            );
            let cell = (centroid.1 as usize) * (nx - 1) + centroid.0 as usize;
            assert!(!carved[cell], "triangle {t:?} over a carved cell");
        }
        assert!(s.triangles.len() < 2 * (nx - 1) * (nz - 1) / 4);
    }

    #[test]
    fn triangles_are_wound_as_the_full_mesh() {
        let heights = bumpy(64, 64);
        let grid = HeightGrid {
            nx: 64,
            nz: 64,
            heights: &heights,
            carved: &[],
        };
        let s = simplify_grid(&grid, 0.3);
        for t in &s.triangles {
            let c = t.map(|v| (i64::from(v % 64), i64::from(v / 64)));
            assert!(orient(c[0], c[1], c[2]) < 0, "{t:?}");
        }
    }
}
