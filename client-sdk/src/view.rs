//! The *view* a replica's reads answer at: the server's state (the *base*, a
//! [`Snapshot`]) with the zone changes made in this process on top ([`Overlay`]), and
//! the Hyperscape adapter's point answers over it as plain numbers. No I/O: the Node
//! addon (client-sdk/node/addon) and the WebAssembly build (client-sdk/wasm) both
//! answer through these functions, so the two cannot drift.
//!
//! Local zone changes (`registerFlatZone`, `unregisterFlatZone`) decide heights in this
//! process at once, before the server has them. Each is an operation over the base:
//! registrations are inserted at revisions above any the server gives
//! ([`OVERLAY_REVISION`] onwards, in the order they were made), removals remove. The
//! view is the base with every pending operation on top. Once the server answered an
//! operation with the revision that holds it and the base reached that revision, the
//! operation is dropped (the base has it, or whatever the server did after it);
//! refused, it is withdrawn. Every change of the view answers the rectangles where its
//! zones changed ([`changed_bounds`]), so caches of heights and walkability drop
//! exactly those.
//!
//! Answers are numbers because both hosts hand them to JavaScript in typed arrays:
//! biomes travel as indices into [`BIOMES`], reasons as [`reason_code`]s.

use std::{
    collections::HashMap,
    sync::{Arc, OnceLock},
};

use terrain_core::{
    FlatZone, Terrain, TileGrid, WorldGenerator,
    generator::hyperscape::{Biome, Hyperscape},
    mesh::{SurfaceTile, TileMesh, build_tile},
    walk::{
        BiomeLimits, MAX_TOWNS, Reason, Town, WalkRule, Walker, difficulty::difficulty,
        flags::tile_flags,
    },
    zones::{Reach, ZoneDoc, ZoneHeight, ZoneLimits},
};

use crate::Snapshot;

/// The revision the first local registration is inserted at (the next ones above
/// it): above any revision a server gives, so local zones come after the server's
/// in the overlap rules' order, as they will on the server.
pub const OVERLAY_REVISION: u64 = 1 << 62;

/// Biome names by the index the reads answer (`-1`: none).
pub const BIOMES: [&str; 9] = [
    "plains",
    "forest",
    "valley",
    "mountains",
    "tundra",
    "desert",
    "lakes",
    "swamp",
    "undefined",
];

/// The index of `name` in [`BIOMES`], `-1` for none (or an unknown name).
pub fn biome_index(name: Option<&str>) -> f64 {
    name.and_then(|n| BIOMES.iter().position(|b| *b == n))
        .map_or(-1.0, |i| i as f64)
}

/// A reason's code: 0 walkable, 1 water, 2 slope, 3 zone, 4 step.
pub fn reason_code(r: Option<Reason>) -> u32 {
    match r {
        None => 0,
        Some(Reason::Water) => 1,
        Some(Reason::Slope) => 2,
        Some(Reason::Zone) => 3,
        Some(Reason::Step) => 4,
    }
}

/// One zone change made in this process.
#[derive(Debug, Clone)]
struct PendingOp {
    seq: u64,
    id: String,
    /// The zone registered, or `None` for a removal.
    zone: Option<FlatZone>,
    /// The server's revision that holds it, once it answered.
    committed: Option<u64>,
}

/// The zone changes made in this process and not yet in the base, and the towns of
/// the difficulty rule.
#[derive(Debug, Default, Clone)]
pub struct Overlay {
    ops: Vec<PendingOp>,
    next_seq: u64,
    /// The game's towns ([`Overlay::set_towns`]); `None`: the world's.
    towns: Option<Vec<Town>>,
}

impl Overlay {
    /// Drops the operations the base holds: answered by the server with a revision
    /// the base has reached.
    pub fn prune(&mut self, base: &Snapshot) {
        let at = base.revision();
        self.ops.retain(|op| op.committed.is_none_or(|r| r > at));
    }

    /// The base with every pending operation on top, in order (the base itself when
    /// there is none).
    pub fn apply(&self, base: &Arc<Snapshot>) -> Arc<Snapshot> {
        if self.ops.is_empty() {
            return Arc::clone(base);
        }
        let mut terrain = base.terrain().clone();
        for op in &self.ops {
            match &op.zone {
                Some(z) => {
                    terrain
                        .zones_mut()
                        .insert(z.clone(), OVERLAY_REVISION + op.seq);
                }
                None => {
                    terrain.zones_mut().remove(&op.id);
                }
            }
        }
        Arc::new(Snapshot::from_terrain(terrain, base.revision()))
    }

    /// Adds a registration of `zone` (`Some`) or a removal of zone `id` (`None`);
    /// answers the operation's number.
    pub fn push(&mut self, id: String, zone: Option<FlatZone>) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.ops.push(PendingOp {
            seq,
            id,
            zone,
            committed: None,
        });
        seq
    }

    /// Operation `seq`'s fate at the server, over `base`: `revision >= 0`, the
    /// revision that holds it (dropped once the base reaches it); `-1`, refused
    /// (withdrawn now); `-2`, a removal of a zone the server does not have (dropped
    /// once the base lacks it too, after its next revision at most). An unknown `seq`
    /// (already dropped) changes nothing.
    pub fn settle(&mut self, base: &Snapshot, seq: f64, revision: f64) -> Result<(), String> {
        let Some(at) = self.ops.iter().position(|op| op.seq as f64 == seq) else {
            return Ok(());
        };
        if revision == -1.0 {
            self.ops.remove(at);
        } else if revision == -2.0 {
            let gone = base.terrain().zones().get(&self.ops[at].id).is_none();
            self.ops[at].committed = Some(if gone { 0 } else { base.revision() + 1 });
        } else if revision >= 0.0 && revision.fract() == 0.0 {
            self.ops[at].committed = Some(revision as u64);
        } else {
            return Err(format!("revision: a revision, -1 or -2, got {revision}"));
        }
        Ok(())
    }

    /// The difficulty rule's towns: `Some`, the game's; `None`, the world's again.
    pub fn set_towns(&mut self, towns: Option<Vec<Town>>) {
        self.towns = towns;
    }

    /// The game's towns, if set ([`Overlay::set_towns`]).
    pub fn towns(&self) -> Option<&[Town]> {
        self.towns.as_deref()
    }
}

/// The server's state, the view built on it, the view's epoch and the local changes:
/// what a replica's reads answer at, with the one way to change it ([`View::rebuild`]).
#[derive(Debug, Clone)]
pub struct View {
    /// The server's state the view is built on.
    pub base: Arc<Snapshot>,
    /// The snapshot every read answers at: `base` with the zone changes made in this
    /// process and not yet in `base` on top (none: `base` itself).
    pub view: Arc<Snapshot>,
    /// Bumped each time `view` changes: what JavaScript keeps, it keeps by epoch.
    pub epoch: u64,
    /// Zone changes made in this process, applied over `base` until the server's
    /// revision that holds them reaches it; the towns of the difficulty rule.
    pub overlay: Overlay,
}

impl View {
    /// A view of `base` with no local change, at epoch 0.
    pub fn new(base: Arc<Snapshot>) -> Self {
        View {
            view: Arc::clone(&base),
            base,
            epoch: 0,
            overlay: Overlay::default(),
        }
    }

    /// Takes `base` as the server's state: drops the local changes it now holds and
    /// builds the view again (see [`View::rebuild`]).
    pub fn rebase(&mut self, base: Arc<Snapshot>) -> Vec<f64> {
        self.base = base;
        self.rebuild()
    }

    /// Builds the view from `base` and the pending local changes; when it differs
    /// from the one before, bumps the epoch. Answers `[epoch, n, minX, minZ, maxX,
    /// maxZ, ...]`: the view's epoch and the `n` rectangles where the zones changed
    /// (a zone's outer bounds, old and new), so a reader's cache can drop what lies
    /// there and keep the rest.
    pub fn rebuild(&mut self) -> Vec<f64> {
        self.overlay.prune(&self.base);
        let view = self.overlay.apply(&self.base);
        let mut out = vec![0.0, 0.0];
        if !Arc::ptr_eq(&view, &self.view) {
            changed_bounds(self.view.terrain(), view.terrain(), &mut out);
            self.view = view;
            self.epoch += 1;
        }
        out[0] = self.epoch as f64;
        out[1] = ((out.len() - 2) / 4) as f64;
        out
    }

    /// A local registration (`Some`) or removal (`None`) of zone `id`: answers
    /// `[seq, epoch, n, rectangles...]`, the operation's number (for
    /// [`View::settle`]) and [`View::rebuild`]'s answer.
    pub fn change(&mut self, id: String, zone: Option<FlatZone>) -> Vec<f64> {
        let seq = self.overlay.push(id, zone);
        let mut out = self.rebuild();
        out.insert(0, seq as f64);
        out
    }

    /// [`Overlay::settle`], then [`View::rebuild`]'s answer.
    pub fn settle(&mut self, seq: f64, revision: f64) -> Result<Vec<f64>, String> {
        self.overlay.settle(&self.base, seq, revision)?;
        Ok(self.rebuild())
    }
}

/// Appends to `out` the outer bounds (`minX, minZ, maxX, maxZ`) of every zone that
/// differs between `old` and `new`: gone, new, or changed (its fields or its
/// revision, which orders it among overlapping zones), both its old and new bounds.
/// Heights differ between the two terrains only inside these (a zone decides nothing
/// beyond its outer bounds; the generator's samples within 1 m of them see it, which
/// readers add as a margin).
pub fn changed_bounds(old: &Terrain, new: &Terrain, out: &mut Vec<f64>) {
    let mut push = |z: &FlatZone| {
        let b = z.outer_bounds();
        out.extend([b.min_x, b.min_z, b.max_x, b.max_z]);
    };
    let mut before: HashMap<&str, (&FlatZone, u64)> = old
        .zones()
        .iter()
        .map(|(z, r)| (z.id.as_str(), (z, r)))
        .collect();
    for (z, r) in new.zones().iter() {
        match before.remove(z.id.as_str()) {
            Some((o, or)) if or == r && o == z => {}
            Some((o, _)) => {
                push(o);
                push(z);
            }
            None => push(z),
        }
    }
    for (o, _) in before.into_values() {
        push(o);
    }
}

/// The zone a local registration of `id` with `body` (as the HTTP API takes it:
/// `centerX`, `width`, an absolute `height`, `tileMask`, ...) makes. Checked as the
/// server checks it with its default limits; a refusal names the field (`width: must
/// be above 0`).
pub fn local_zone(id: &str, body: &str) -> Result<FlatZone, String> {
    let doc = ZoneDoc::from_request_json(body.as_bytes()).map_err(|e| match e.field() {
        Some(field) => format!("{field}: {}", e.reason()),
        None => e.reason().to_string(),
    })?;
    let spec = doc
        .spec()
        .map_err(|e| format!("{}: {}", e.field(), e.reason()))?;
    terrain_core::zones::validate_zone(id, &spec, &ZoneLimits::default())
        .map_err(|e| format!("{}: {}", e.field(), e.reason()))?;
    match spec.height {
        ZoneHeight::Absolute(h) => Ok(spec.resolve(id.to_string(), h)),
        ZoneHeight::Offset(_) => Err("heightOffset: the adapter registers absolute heights".into()),
    }
}

/// The difficulty rule's towns from `[x0, z0, radius0, x1, ...]`, checked as the
/// server checks a world's `towns`: at most [`MAX_TOWNS`], finite centres, finite
/// radii above 0; errors name the town and its key (`towns[2].radius`).
pub fn towns_of(towns: &[f64]) -> Result<Vec<Town>, String> {
    if !towns.len().is_multiple_of(3) {
        return Err(format!(
            "towns: expected x, z, radius triples, got {} numbers",
            towns.len()
        ));
    }
    let n = towns.len() / 3;
    if n > MAX_TOWNS {
        return Err(format!("towns: {n} towns exceed the limit of {MAX_TOWNS}"));
    }
    let mut list = Vec::with_capacity(n);
    for (i, t) in towns.chunks_exact(3).enumerate() {
        for (key, v) in [("x", t[0]), ("z", t[1])] {
            if !v.is_finite() {
                return Err(format!(
                    "towns[{i}].{key}: must be a finite number (got {v})"
                ));
            }
        }
        if !(t[2].is_finite() && t[2] > 0.0) {
            return Err(format!(
                "towns[{i}].radius: must be a finite number above 0 (got {})",
                t[2]
            ));
        }
        list.push(Town {
            x: t[0],
            z: t[1],
            radius: t[2],
        });
    }
    Ok(list)
}

/// The hyperscape generator under `terrain`, or an error naming the world's.
pub fn hyperscape(terrain: &Terrain) -> Result<&Hyperscape, String> {
    match terrain.generator() {
        WorldGenerator::Hyperscape(h) => Ok(h),
        other => Err(format!(
            "world: the original's answers need a hyperscape world, this one is {}",
            other.kind()
        )),
    }
}

/// The type of the seed's first biome centre: the original's biome of a position
/// outside the starter towns.
pub fn first_biome(h: &Hyperscape) -> &'static str {
    h.biome_centers()
        .first()
        .map_or(Biome::Plains, |c| c.biome)
        .as_str()
}

/// The difficulty tier of `biome`: the world's, when its rule lists tiers (`GET
/// /v1/worlds` lists each biome's `difficulty` under the `hyperscape` rule), else the
/// original manifest's (`BiomeLimits::hyperscape`: a server that lists none).
pub fn tier_of(rule: Option<&WalkRule>, biome: &str) -> f64 {
    static ORIGINAL: OnceLock<BiomeLimits> = OnceLock::new();
    match rule.and_then(WalkRule::biome_limits) {
        Some(limits) if limits.difficulty_entries().next().is_some() => limits.difficulty(biome),
        _ => ORIGINAL
            .get_or_init(BiomeLimits::hyperscape)
            .difficulty(biome),
    }
}

/// The world facts the adapter needs once, as JSON: `generator`, `seed`, `overlap`,
/// `walkability` (the rule's name, `null` without one), `firstBiome` (hyperscape
/// only), `firstBiomeTier`, `towns` (the world's, `[x, z, radius]` each), `tileSize`,
/// and `biomes` (the names the reads' biome indices stand for).
pub fn world_facts(terrain: &Terrain, rule: Option<&WalkRule>, towns: &[Town]) -> String {
    let generator = terrain.generator();
    let (seed, first) = match generator {
        WorldGenerator::Hyperscape(h) => (Some(h.seed()), Some(first_biome(h))),
        _ => (None, None),
    };
    let towns: Vec<[f64; 3]> = towns.iter().map(|t| [t.x, t.z, t.radius]).collect();
    serde_json::json!({
        "generator": generator.kind().to_string(),
        "seed": seed,
        "overlap": terrain.zones().overlap().to_string(),
        "walkability": rule.map(WalkRule::name),
        "firstBiome": first,
        "firstBiomeTier": first.map(|b| tier_of(rule, b)),
        "towns": towns,
        "tileSize": generator.tile_size(),
        "biomes": BIOMES,
    })
    .to_string()
}

/// The outer bounds of every zone of `terrain`, `[minX, minZ, maxX, maxZ, ...]`.
pub fn zone_bounds(terrain: &Terrain) -> Vec<f64> {
    let zones = terrain.zones();
    let mut out = Vec::with_capacity(4 * zones.len());
    for (z, _) in zones.iter() {
        let b = z.outer_bounds();
        out.extend([b.min_x, b.min_z, b.max_x, b.max_z]);
    }
    out
}

/// `getTerrainInfoAt`: height, slope, underwater (0 or 1), the reason code
/// ([`reason_code`]) and the biome's index in [`BIOMES`] (`-1`: none).
pub fn info_answer(terrain: &Terrain, rule: &WalkRule, x: f64, z: f64) -> [f64; 5] {
    let info = Walker::new(terrain, rule).info(x, z);
    [
        info.height,
        info.slope,
        f64::from(u8::from(info.underwater)),
        f64::from(reason_code(info.reason)),
        biome_index(info.biome),
    ]
}

/// `getDifficultyAtWorldPosition`: level, scalar, the tier, isSafe (0 or 1) and the
/// biome's index, computed by terrain-core (its own `pow`, never the host's). With
/// `has_tier`, `tier` is the tier (the original's third argument), else the biome's
/// tier by [`tier_of`]. `towns` are the game's, else the world's (empty: the
/// original's fallback towns).
pub fn difficulty_answer(
    terrain: &Terrain,
    rule: Option<&WalkRule>,
    towns: &[Town],
    tier: Option<f64>,
    x: f64,
    z: f64,
) -> Result<[f64; 5], String> {
    let h = hyperscape(terrain)?;
    let biome = first_biome(h);
    let tier = tier.unwrap_or_else(|| tier_of(rule, biome));
    let d = difficulty(h.noise(), towns, biome, tier, x, z);
    // The original's `Math.max(1, Math.floor(1 + scalar * 999))` is NaN for a NaN
    // scalar (a NaN tier), where core's whole level saturates.
    let level = if d.scalar.is_nan() {
        f64::NAN
    } else {
        f64::from(d.level)
    };
    Ok([
        level,
        d.scalar,
        d.tier,
        f64::from(u8::from(d.is_safe)),
        biome_index(Some(d.biome)),
    ])
}

/// Tile `(tx, tz)`'s mesh at `terrain`, built at `version` as the server's mesh routes
/// build it ([`build_tile`]: float32 positions relative to the placement, normals,
/// the original's vertex colours and biome ids, carved cells absent), or why not:
/// a tile the server refuses (`tx: ...`: not a whole number, or `tx * size` beyond the
/// coordinate range, as its `check_tile` says), and every tile of a voxel world
/// (`world: ...`), whose meshes the server serves as its chunks' greedy meshes, which
/// a replica does not build ([`chunk_blocks`] gives the chunk's blocks).
pub fn tile_mesh(terrain: &Terrain, tx: f64, tz: f64, version: u64) -> Result<TileMesh, String> {
    let generator = terrain.generator();
    if generator.as_voxel().is_some() {
        return Err(
            "world: a voxel world's tile meshes are its chunks' greedy meshes, \
            which a replica does not build; read the chunk's blocks instead"
                .to_string(),
        );
    }
    let size = generator.tile_grid().size;
    Ok(build_tile(
        terrain,
        (tile_arg("tx", tx, size)?, tile_arg("tz", tz, size)?),
        version,
    ))
}

/// Mesh tile index `t` of tiles `size` wide from argument `name`, as the server's
/// tile routes take it: a whole number with `t * size` within the coordinate range
/// (`tx: must be a whole tile index ...` otherwise).
pub fn tile_arg(name: &str, t: f64, size: f64) -> Result<i64, String> {
    let limit = terrain_core::COORDINATE_LIMIT;
    if t.fract() == 0.0 && (t * size).abs() <= limit {
        Ok(t as i64)
    } else {
        Err(format!(
            "{name}: must be a whole tile index with {name} * {size} within ±{limit}, got {t}"
        ))
    }
}

/// `[size, shift, step, n]` of `layout`: tile `t` owns `floor(c / size + shift) = t`,
/// its vertices `step` apart, `n` per edge (what a holder of tile surfaces, or of the
/// tiles a zone change regenerates, needs of the grid).
pub fn grid_numbers(layout: &TileGrid) -> [f64; 4] {
    let shift = if layout.centred { 0.5 } else { 0.0 };
    [
        layout.size,
        shift,
        layout.step(),
        f64::from(layout.resolution.max(2)),
    ]
}

/// Tile `(tx, tz)`'s float32 vertex heights at `terrain`, row-major (`iz * n + ix`):
/// the surface the server serves for that tile (core rounds each vertex height to f32
/// and widens it back, so a float32 array holds each exactly). A tile the server's
/// routes refuse is refused in [`tile_arg`]'s words.
pub fn surface_tile(terrain: &Terrain, tx: f64, tz: f64) -> Result<Vec<f32>, String> {
    let size = terrain.generator().tile_grid().size;
    let key = (tile_arg("tx", tx, size)?, tile_arg("tz", tz, size)?);
    let tile = SurfaceTile::new(terrain, key);
    Ok(tile.heights().iter().map(|&h| h as f32).collect())
}

/// A voxel world's chunk `(cx, cz)` at `terrain`, in the binary form the server's
/// blocks route and `GetChunkBlocks` answer ([`Chunk::encode`](terrain_core::voxel::Chunk::encode)),
/// bit for bit; `None` on other worlds. A chunk the server refuses is refused in its
/// words (`cx: ...`: not a whole number, or beyond [`MAX_CHUNK`](terrain_core::voxel::MAX_CHUNK)).
pub fn chunk_blocks(terrain: &Terrain, cx: f64, cz: f64) -> Result<Option<Vec<u8>>, String> {
    let max = terrain_core::voxel::MAX_CHUNK;
    let index = |name: &str, c: f64| {
        if c.fract() == 0.0 && c.abs() <= max as f64 {
            Ok(c as i64)
        } else {
            Err(format!(
                "{name}: chunk {c} is beyond the voxel chunks served: must be a whole number with |{name}| at most {max}"
            ))
        }
    };
    let (cx, cz) = (index("cx", cx)?, index("cz", cz)?);
    Ok(terrain.voxel_chunk(cx, cz).map(|c| c.encode()))
}

/// A 1 m walk tile index from argument `name`: a whole number within the coordinate
/// range.
fn walk_tile_arg(name: &str, v: f64) -> Result<i64, String> {
    let limit = terrain_core::COORDINATE_LIMIT;
    if v.fract() == 0.0 && v.abs() <= limit {
        Ok(v as i64)
    } else {
        Err(format!(
            "{name}: must be a whole number of tiles within ±{limit}, got {v}"
        ))
    }
}

/// The first tile of a [`walk_grid`] of `w x d` tiles from `(x0, z0)` into buffers of
/// `flags` bytes and `heights` numbers (0: no heights), or why the request is refused
/// (`minTileX: must be a whole number of tiles ...`, `flags: 3 bytes for 4 tiles`).
pub fn check_walk_grid(
    x0: f64,
    z0: f64,
    w: u32,
    d: u32,
    flags: usize,
    heights: usize,
) -> Result<(i64, i64), String> {
    let (x0, z0) = (
        walk_tile_arg("minTileX", x0)?,
        walk_tile_arg("minTileZ", z0)?,
    );
    let (wi, di) = (i64::from(w), i64::from(d));
    walk_tile_arg("minTileX + width", (x0 + wi) as f64)?;
    walk_tile_arg("minTileZ + depth", (z0 + di) as f64)?;
    let n = w as usize * d as usize;
    if flags < n {
        return Err(format!("flags: {flags} bytes for {n} tiles"));
    }
    if heights != 0 && heights < n {
        return Err(format!("heights: {heights} numbers for {n} tiles"));
    }
    Ok((x0, z0))
}

/// The walk grid of the `w x d` movement tiles (1 m) from tile `(x0, z0)` into
/// `flags` (row-major, z rising; terrain-core's [`tile_flags`], the bytes of the
/// server's `GET .../walk-grid`: 1 walkable, 2 water, 4 steep, 8 in a zone's core, 16
/// blocked by a zone, 32 a step), each tile judged at its centre as
/// `isPositionWalkable` judges it ([`Walker::grid`]); with a non-empty `heights`, the
/// final heights at the centres too (`w * d` of them).
#[allow(clippy::too_many_arguments)]
pub fn walk_grid(
    terrain: &Terrain,
    rule: &WalkRule,
    x0: f64,
    z0: f64,
    w: u32,
    d: u32,
    flags: &mut [u8],
    heights: &mut [f64],
) -> Result<(), String> {
    let (x0, z0) = check_walk_grid(x0, z0, w, d, flags.len(), heights.len())?;
    let keep = !heights.is_empty();
    let walker = Walker::new(terrain, rule);
    let (w, d) = (w as usize, d as usize);
    let grid = if keep {
        walker.grid_with_heights(x0, z0, w, d)
    } else {
        walker.grid(x0, z0, w, d)
    };
    let zones = terrain.zones();
    for j in 0..d {
        let iz = z0 + j as i64;
        for i in 0..w {
            let ix = x0 + i as i64;
            let in_core = !zones.is_empty()
                && matches!(
                    zones.zone_at(ix as f64 + 0.5, iz as f64 + 0.5),
                    Some((_, Reach::Core { .. }))
                );
            flags[j * w + i] = tile_flags(grid.get(ix, iz).flatten(), in_core);
            if keep {
                heights[j * w + i] = grid.height(ix, iz).unwrap_or(f64::NAN);
            }
        }
    }
    Ok(())
}

/// The index of the first of `points` (judged in order, each as `isPositionWalkable`)
/// where an entity may not stand, or -1: `findWalkablePath`'s samples. The points are
/// checked by the caller.
pub fn first_blocked(terrain: &Terrain, rule: &WalkRule, points: &[(f64, f64)]) -> i32 {
    let walker = Walker::new(terrain, rule);
    points
        .iter()
        .position(|&(x, z)| walker.blocked(x, z).is_some())
        .map_or(-1, |i| i as i32)
}
