//! The 3D Tiles benchmarks of the docs (docs/src/tiles3d.md), on the 10 km island
//! (hyperscape seed 0, no zones, 128 x 128 tiles, 7 levels below the root):
//!
//! - content builds per level, single-threaded: cold (the content's grids from the
//!   full-detail heights up, then its mesh and glb) on a sample of contents, and warm
//!   (grids kept as the server keeps them, the levels above the two finest) on a
//!   spread of contents; with the glb bytes per content;
//! - a flight from 2 km out and 1 km up down to standing on the ground at the centre,
//!   50 camera positions, selecting contents by screen-space error (16 px, 1080 px
//!   high, 60 degree field of view, REPLACE refinement, every direction, with no view
//!   distance or culled beyond 2 km or 1 km): the bytes of every distinct content
//!   fetched, against the full-detail tiles under the same contents.
//!
//! `cargo run --release -p terrain-core --example tiles3d_flight`

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

use terrain_core::mesh::{build_tile, to_glb};
use terrain_core::tiles3d::{
    ContentGrid, ContentKey, TilesetLayout, content_mesh, content_patches, leaf_error, leaf_grid,
    parent_grid, sample_depth,
};
use terrain_core::{Generator, GeneratorKind, Overlap, Terrain, TileRect, WorldGenerator, ZoneSet};

/// Screen-space error above which a tile is refined, in pixels.
const MAX_SSE: f64 = 16.0;
const SCREEN_HEIGHT: f64 = 1080.0;
const FOV_DEGREES: f64 = 60.0;
/// Camera positions of the flight.
const POSITIONS: usize = 50;
/// Tiles whose contents are sampled for the cold builds: the plains at the origin,
/// hills, the coast and five more spread over the square.
const COLD_TILES: [(i64, i64); 8] = [
    (0, 0),
    (18, -27),
    (-48, 30),
    (35, 20),
    (-30, -40),
    (10, 50),
    (-60, -5),
    (50, -55),
];

/// The grids of a content's square, by level below it, row by row in its square.
struct Square {
    origin: ContentKey,
    levels: Vec<Vec<ContentGrid>>,
}

impl Square {
    fn get(&self, key: ContentKey) -> &ContentGrid {
        let dl = key.level - self.origin.level;
        let side = 1u64 << dl;
        let (i, j) = (
            key.ix - (self.origin.ix << dl),
            key.iz - (self.origin.iz << dl),
        );
        &self.levels[dl as usize][(j * side + i) as usize]
    }

    fn descendants(&self, key: ContentKey, depth: u32) -> Vec<&ContentGrid> {
        descendant_keys(key, depth)
            .into_iter()
            .map(|k| self.get(k))
            .collect()
    }
}

/// `key`'s descendants `depth` levels down, row by row from the lowest x and z.
fn descendant_keys(key: ContentKey, depth: u32) -> Vec<ContentKey> {
    let k = 1u64 << depth;
    (0..k * k)
        .map(|i| ContentKey {
            level: key.level + depth,
            ix: key.ix * k + i % k,
            iz: key.iz * k + i / k,
        })
        .collect()
}

/// Every grid under `origin`, bottom-up.
fn build_square(t: &Terrain, l: &TilesetLayout, origin: ContentKey) -> Square {
    let depth = l.levels - origin.level;
    let side = 1u64 << depth;
    let leaves: Vec<ContentGrid> = (0..side * side)
        .map(|k| {
            let key = ContentKey {
                level: l.levels,
                ix: (origin.ix << depth) + k % side,
                iz: (origin.iz << depth) + k / side,
            };
            leaf_grid(t, l, key)
        })
        .collect();
    let mut levels = vec![leaves];
    for d in (0..depth).rev() {
        let below = levels.last().expect("a level below");
        let (s, sb) = (1u64 << d, 2u64 << d);
        let grids = (0..s * s)
            .map(|k| {
                let (i, j) = (k % s, k / s);
                let key = ContentKey {
                    level: origin.level + d,
                    ix: (origin.ix << d) + i,
                    iz: (origin.iz << d) + j,
                };
                let c = [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .map(|(a, b)| &below[((2 * j + b) * sb + 2 * i + a) as usize]);
                parent_grid(key, c)
            })
            .collect();
        levels.push(grids);
    }
    levels.reverse();
    Square { origin, levels }
}

/// A coarse content's glb from kept grids, the depth of its samples and its mesh's
/// proven error bound.
fn content_glb(
    t: &Terrain,
    l: &TilesetLayout,
    sq: &Square,
    key: ContentKey,
) -> (Vec<u8>, u32, f64) {
    let depth = sample_depth(l, key, |d| {
        sq.descendants(key, d)
            .iter()
            .map(|g| g.error)
            .fold(0.0, f64::max)
    });
    let samples = sq.descendants(key, depth);
    let patches = content_patches(l, key, &samples, &mut |k: ContentKey| {
        k.children().map(|c| sq.get(c)).to_vec()
    });
    let (mesh, bound) = content_mesh(t, l, key, &samples, depth, &patches, 0);
    (to_glb(&mesh).expect("glb"), depth, bound)
}

/// A full-detail tile's glb (the finest level's content).
fn tile_glb(t: &Terrain, l: &TilesetLayout, key: ContentKey) -> Vec<u8> {
    let r = l.tiles(key);
    to_glb(&build_tile(t, (r.min_tx, r.min_tz), 0)).expect("glb")
}

/// A grid the server does not keep, made again from the terrain.
fn rebuild(t: &Terrain, l: &TilesetLayout, key: ContentKey) -> ContentGrid {
    if key.level == l.levels {
        return leaf_grid(t, l, key);
    }
    let c = key.children().map(|c| rebuild(t, l, c));
    parent_grid(key, [&c[0], &c[1], &c[2], &c[3]])
}

/// A coarse content as the server builds it with its grids kept (levels above the two
/// finest): the samples of each depth it tries, made again where not kept, then the
/// mesh and glb.
fn warm_server(t: &Terrain, l: &TilesetLayout, sq: &Square, key: ContentKey) -> usize {
    let fetch = |d: u32| -> Vec<Cow<'_, ContentGrid>> {
        descendant_keys(key, d)
            .into_iter()
            .map(|k| {
                if k.level + 2 <= l.levels {
                    Cow::Borrowed(sq.get(k))
                } else {
                    Cow::Owned(rebuild(t, l, k))
                }
            })
            .collect()
    };
    let budget = l.geometric_error(key.level);
    let mut depth = 1;
    let mut samples = fetch(1);
    loop {
        let worst = samples.iter().map(|g| g.error).fold(0.0, f64::max);
        let want = sample_depth(l, key, |d| if d <= depth { worst } else { 0.0 });
        if want <= depth || worst <= budget / 2.0 {
            break;
        }
        depth += 1;
        samples = fetch(depth);
    }
    let refs: Vec<&ContentGrid> = samples.iter().map(|g| &**g).collect();
    let patches = content_patches(l, key, &refs, &mut |k: ContentKey| {
        k.children().map(|c| sq.get(c)).to_vec()
    });
    let (mesh, _) = content_mesh(t, l, key, &refs, depth, &patches, 0);
    to_glb(&mesh).expect("glb").len()
}

/// A content's box in world coordinates: `([x0, y0, z0], [x1, y1, z1])`, heights from
/// its grid's exact range.
fn content_box(l: &TilesetLayout, g: &ContentGrid) -> ([f64; 3], [f64; 3]) {
    let (bx0, bz0, bx1, bz1) = l.bounds();
    let n = (1u64 << g.key.level) as f64;
    let (wx, wz) = ((bx1 - bx0) / n, (bz1 - bz0) / n);
    let (x0, z0) = (bx0 + g.key.ix as f64 * wx, bz0 + g.key.iz as f64 * wz);
    (
        [x0, f64::from(g.min), z0],
        [x0 + wx, f64::from(g.max), z0 + wz],
    )
}

fn distance(p: [f64; 3], b: ([f64; 3], [f64; 3])) -> f64 {
    (0..3)
        .map(|i| {
            let d = (b.0[i] - p[i]).max(p[i] - b.1[i]).max(0.0);
            d * d
        })
        .sum::<f64>()
        .sqrt()
}

/// The contents a 3D Tiles viewer renders from `cam`: from the root, a tile is refined
/// (REPLACE) while its screen-space error exceeds [`MAX_SSE`]; tiles farther than
/// `view` are culled.
fn select(
    l: &TilesetLayout,
    sq: &Square,
    key: ContentKey,
    cam: [f64; 3],
    view: Option<f64>,
    out: &mut Vec<ContentKey>,
) {
    let d = distance(cam, content_box(l, sq.get(key)));
    if view.is_some_and(|v| d > v) {
        return;
    }
    let k = SCREEN_HEIGHT / (2.0 * (FOV_DEGREES.to_radians() / 2.0).tan());
    let sse = l.geometric_error(key.level) * k / d.max(1e-9);
    if sse > MAX_SSE && key.level < l.levels {
        for c in key.children() {
            select(l, sq, c, cam, view, out);
        }
    } else {
        out.push(key);
    }
}

fn ms(s: f64) -> String {
    let m = s * 1e3;
    if m >= 100.0 {
        format!("{m:.0}")
    } else if m >= 10.0 {
        format!("{m:.1}")
    } else {
        format!("{m:.2}")
    }
}

fn main() {
    let terrain = Terrain::new(
        WorldGenerator::new(GeneratorKind::Hyperscape, 0).expect("seed 0"),
        ZoneSet::new(Overlap::Layered, 100.0),
    );
    let t = &terrain;
    let l = TilesetLayout::covering(
        t.generator().tile_grid(),
        10_000.0,
        leaf_error(t.generator()),
    );
    let root = ContentKey {
        level: 0,
        ix: 0,
        iz: 0,
    };
    println!(
        "{} x {} tiles, {} levels below the root",
        l.side(),
        l.side(),
        l.levels
    );

    // Cold: each sampled content from nothing (its square's grids, then its mesh).
    let mut cold: BTreeMap<u32, (usize, f64)> = BTreeMap::new();
    for level in (1..=l.levels).rev() {
        let mut keys: Vec<ContentKey> = COLD_TILES
            .iter()
            .map(|&(tx, tz)| {
                let r = TileRect {
                    min_tx: tx,
                    min_tz: tz,
                    max_tx: tx,
                    max_tz: tz,
                };
                l.covering_contents(level, &r).expect("in the square").0
            })
            .collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            let started = Instant::now();
            if level == l.levels {
                std::hint::black_box(tile_glb(t, &l, key));
            } else {
                let sq = build_square(t, &l, key);
                std::hint::black_box(content_glb(t, &l, &sq, key));
            }
            let e = cold.entry(level).or_default();
            e.0 += 1;
            e.1 += started.elapsed().as_secs_f64();
        }
    }
    // The root cold: every grid of the island, kept for what follows.
    let started = Instant::now();
    let sq = build_square(t, &l, root);
    let grids_s = started.elapsed().as_secs_f64();
    let (root_glb, _, _) = content_glb(t, &l, &sq, root);
    cold.insert(0, (1, started.elapsed().as_secs_f64()));
    println!(
        "every grid of the island: {grids_s:.1} s; root grid heights {:.1}..{:.1} m, error {:.3} m",
        sq.get(root).min,
        sq.get(root).max,
        sq.get(root).error
    );

    // Every full-detail tile's glb (the finest contents), timed as the warm finest level.
    let started = Instant::now();
    let side = l.side();
    let tile_bytes: Vec<usize> = (0..side * side)
        .map(|k| {
            let key = ContentKey {
                level: l.levels,
                ix: k % side,
                iz: k / side,
            };
            tile_glb(t, &l, key).len()
        })
        .collect();
    let tiles_s = started.elapsed().as_secs_f64();

    // Warm: a spread of contents per coarse level (all of a level of 256 or fewer, else
    // a 16 x 16 lattice over the square), grids kept as the server keeps them; and the
    // same contents' mesh and glb alone, every grid in memory.
    let mut bytes: HashMap<ContentKey, usize> = HashMap::new();
    bytes.insert(root, root_glb.len());
    println!();
    println!(
        "| level | geometric error (m) | contents | cold: contents built | cold per content (ms) | cold contents/s |"
    );
    println!("|---|---|---|---|---|---|");
    for level in 0..=l.levels {
        let (k, s) = cold[&level];
        let per = s / k as f64;
        println!(
            "| {level} | {} | {} | {k} | {} | {:.1} |",
            l.geometric_error(level),
            1u64 << (2 * level),
            ms(per),
            1.0 / per
        );
    }
    println!();
    println!(
        "| level | warm: contents built | warm, kept grids (ms) | warm contents/s | mesh + glb alone (ms) | mesh + glb contents/s | sample depth (mean) | largest error bound (m) | glb bytes per content (mean) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for level in 0..l.levels {
        let n = 1u64 << level;
        let keys: Vec<ContentKey> = if n <= 16 {
            (0..n * n)
                .map(|k| ContentKey {
                    level,
                    ix: k % n,
                    iz: k / n,
                })
                .collect()
        } else {
            (0..256)
                .map(|k| ContentKey {
                    level,
                    ix: (k % 16) * n / 16 + n / 32,
                    iz: (k / 16) * n / 16 + n / 32,
                })
                .collect()
        };
        let started = Instant::now();
        for &key in &keys {
            std::hint::black_box(warm_server(t, &l, &sq, key));
        }
        let server = started.elapsed().as_secs_f64() / keys.len() as f64;
        let started = Instant::now();
        let (mut total, mut depths, mut worst) = (0usize, 0u32, 0.0f64);
        for &key in &keys {
            let (glb, depth, bound) = content_glb(t, &l, &sq, key);
            total += glb.len();
            depths += depth;
            worst = worst.max(bound);
            bytes.insert(key, glb.len());
        }
        let alone = started.elapsed().as_secs_f64() / keys.len() as f64;
        let k = keys.len() as f64;
        println!(
            "| {level} | {} | {} | {:.0} | {} | {:.0} | {:.2} | {worst:.3} | {:.0} |",
            keys.len(),
            ms(server),
            1.0 / server,
            ms(alone),
            1.0 / alone,
            f64::from(depths) / k,
            total as f64 / k
        );
    }
    let per_tile = tiles_s / tile_bytes.len() as f64;
    println!(
        "| {} | {} (every tile) | {} (build_tile + to_glb) | {:.0} | | | | 0 | {:.0} |",
        l.levels,
        tile_bytes.len(),
        ms(per_tile),
        1.0 / per_tile,
        tile_bytes.iter().sum::<usize>() as f64 / tile_bytes.len() as f64
    );

    // The flight: a straight line from (2000, 0), 1000 m above the ground, to (0, 0),
    // 2 m above the ground; the height above the ground under the camera falls linearly.
    let cams: Vec<[f64; 3]> = (0..POSITIONS)
        .map(|i| {
            let f = i as f64 / (POSITIONS - 1) as f64;
            let (x, z) = (2000.0 * (1.0 - f), 0.0);
            let above = 1000.0 * (1.0 - f) + 2.0 * f;
            [x, t.height(x, z) + above, z]
        })
        .collect();
    let content_bytes = |key: ContentKey, bytes: &mut HashMap<ContentKey, usize>| -> usize {
        if key.level == l.levels {
            return tile_bytes[(key.iz * side + key.ix) as usize];
        }
        *bytes
            .entry(key)
            .or_insert_with(|| content_glb(t, &l, &sq, key).0.len())
    };
    let views: [(Option<f64>, &str); 3] = [
        (None, "none (the whole square)"),
        (Some(2000.0), "2 km"),
        (Some(1000.0), "1 km"),
    ];
    let mut summary = Vec::new();
    for (view, name) in views {
        let mut fetched: HashSet<ContentKey> = HashSet::new();
        let mut full: HashSet<u64> = HashSet::new();
        let mut rows = Vec::new();
        for (i, &cam) in cams.iter().enumerate() {
            let mut sel = Vec::new();
            select(&l, &sq, root, cam, view, &mut sel);
            let mut view_bytes = 0;
            let mut view_tiles = 0u64;
            for &key in &sel {
                view_bytes += content_bytes(key, &mut bytes);
                fetched.insert(key);
                let span = 1u64 << (l.levels - key.level);
                view_tiles += span * span;
                for j in 0..span * span {
                    let (ix, iz) = (key.ix * span + j % span, key.iz * span + j / span);
                    full.insert(iz * side + ix);
                }
            }
            let lo = sel.iter().map(|k| k.level).min().unwrap_or(0);
            let hi = sel.iter().map(|k| k.level).max().unwrap_or(0);
            rows.push((i, cam, sel.len(), lo, hi, view_bytes, view_tiles));
        }
        let sent: usize = fetched.iter().map(|&k| content_bytes(k, &mut bytes)).sum();
        let full_sent: usize = full.iter().map(|&k| tile_bytes[k as usize]).sum();
        let mut per_level: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
        for &k in &fetched {
            let e = per_level.entry(k.level).or_default();
            e.0 += 1;
            e.1 += content_bytes(k, &mut bytes);
        }
        if view.is_none() {
            println!();
            println!("Flight, no view distance: every 7th position and the last");
            println!();
            println!(
                "| position | camera x (m) | above ground (m) | contents rendered | levels | bytes of the view | full-detail tiles under them |"
            );
            println!("|---|---|---|---|---|---|---|");
            for &(i, cam, n, lo, hi, vb, vt) in &rows {
                if i % 7 == 0 || i == POSITIONS - 1 {
                    println!(
                        "| {i} | {:.0} | {:.0} | {n} | {lo}-{hi} | {:.0} kB | {vt} |",
                        cam[0],
                        cam[1] - t.height(cam[0], cam[2]),
                        vb as f64 / 1e3
                    );
                }
            }
            println!();
            println!("| level | distinct contents fetched | bytes |");
            println!("|---|---|---|");
            for (level, (n, b)) in &per_level {
                println!("| {level} | {n} | {:.0} kB |", *b as f64 / 1e3);
            }
        }
        summary.push((name, fetched.len(), sent, full.len(), full_sent));
    }
    println!();
    println!(
        "| view distance | distinct contents fetched | bytes fetched | full-detail tiles under them | full-detail bytes | ratio |"
    );
    println!("|---|---|---|---|---|---|");
    for (name, n, sent, tiles, full_sent) in summary {
        println!(
            "| {name} | {n} | {:.2} MB | {tiles} | {:.1} MB | {:.0}x |",
            sent as f64 / 1e6,
            full_sent as f64 / 1e6,
            full_sent as f64 / sent as f64
        );
    }
}
