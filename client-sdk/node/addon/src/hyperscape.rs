//! The native half of `HyperscapeTerrain` (`src/hyperscape.ts`): the original game's
//! `TerrainSystem` answered from a replica's view, and the zone changes the adapter
//! makes in this process ([`Overlay`]).
//!
//! Every read is a plain function of the replica's `External` handle (as [`crate::fast`]),
//! answering numbers, or writing them into a `Float64Array` the caller passes and
//! reuses: an object built by napi costs several microseconds (each property a call
//! into V8), more than the answer, while JavaScript builds the same object from a few
//! numbers in nanoseconds. Strings (biomes) travel as indices into [`BIOMES`].
//!
//! Local zone changes: `registerFlatZone` and `unregisterFlatZone` decide heights in
//! this process at once, before the server has them. Each is an operation over the
//! server's state (the follower's snapshot, the view's *base*): registrations are
//! inserted at revisions above any the server gives ([`OVERLAY_REVISION`] onwards, in
//! the order they were made), removals remove. The view is the base with every
//! pending operation on top. Once the server answered an operation with the revision
//! that holds it and the base reached that revision, the operation is dropped (the
//! base has it, or whatever the server did after it); refused, it is withdrawn.
//! Every change of the view answers the rectangles where its zones changed
//! ([`changed_bounds`]), so caches of heights and walkability drop exactly those.

use std::{
    collections::HashMap,
    sync::{Arc, OnceLock},
    time::Instant,
};

use napi::{
    Env, Result,
    bindgen_prelude::{External, Float64Array, Function},
};
use napi_derive::napi;
use terrain_client::{Snapshot, check_point};
use terrain_core::{
    FlatZone, Terrain, WorldGenerator,
    generator::hyperscape::Biome,
    walk::{
        BiomeLimits, MAX_TOWNS, Reason, Town, WalkRule, Walker, difficulty::difficulty,
        flags::tile_flags,
    },
    zones::{Reach, ZoneDoc, ZoneLimits},
};

use crate::errors::{invalid, js_error, pairs, point_error, sdk_error};
use crate::fast::point_fn;
use crate::replica::{Open, Replica, Source};

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

fn biome_index(name: Option<&str>) -> f64 {
    name.and_then(|n| BIOMES.iter().position(|b| *b == n))
        .map_or(-1.0, |i| i as f64)
}

/// A reason's code: 0 walkable, 1 water, 2 slope, 3 zone, 4 step.
fn reason_code(r: Option<Reason>) -> u32 {
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
#[derive(Debug, Default)]
pub struct Overlay {
    ops: Vec<PendingOp>,
    next_seq: u64,
    /// The game's towns ([`hs_set_towns`]); `None`: the world's.
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

    fn push(&mut self, id: String, zone: Option<FlatZone>) -> u64 {
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

/// A point, refused as the replica refuses it (`x: must be finite`).
fn point(x: f64, z: f64) -> Result<()> {
    check_point(x, z).map_err(sdk_error)
}

/// `f` over the view and the world's walkability rule.
fn walking<T>(replica: &Replica, f: impl FnOnce(&Snapshot, &WalkRule) -> Result<T>) -> Result<T> {
    replica.read(|o| f(&o.view, o.source.walk_rule()?))?
}

/// The hyperscape generator under `terrain`, or an error naming the world's.
fn hyperscape(terrain: &Terrain) -> Result<&terrain_core::generator::hyperscape::Hyperscape> {
    match terrain.generator() {
        WorldGenerator::Hyperscape(h) => Ok(h),
        other => Err(invalid(format!(
            "world: the original's answers need a hyperscape world, this one is {}",
            other.kind()
        ))),
    }
}

/// The type of the seed's first biome centre: the original's biome of a position
/// outside the starter towns.
fn first_biome(h: &terrain_core::generator::hyperscape::Hyperscape) -> &'static str {
    h.biome_centers()
        .first()
        .map_or(Biome::Plains, |c| c.biome)
        .as_str()
}

/// The difficulty tier of `biome`: the world's, when its rule lists tiers (`GET
/// /v1/worlds` lists each biome's `difficulty` under the `hyperscape` rule), else the
/// original manifest's (`BiomeLimits::hyperscape`: a server that lists none).
fn tier_of(rule: Option<&WalkRule>, biome: &str) -> f64 {
    static ORIGINAL: OnceLock<BiomeLimits> = OnceLock::new();
    match rule.and_then(WalkRule::biome_limits) {
        Some(limits) if limits.difficulty_entries().next().is_some() => limits.difficulty(biome),
        _ => ORIGINAL
            .get_or_init(BiomeLimits::hyperscape)
            .difficulty(biome),
    }
}

/// The towns the world's rule judges difficulty from, as the server lists them (none:
/// the original's fallback towns).
fn world_towns(source: &Source) -> &[Town] {
    match source {
        Source::Live(r) => r.towns(),
        Source::Offline(_) => &[],
    }
}

/// A `Float64Array` the caller passes for the answer, written in place (napi-rs reads
/// a typed array argument of this type as a slice of its memory, no copy).
type F64Out<'a> = &'a mut [f64];
/// A `Uint8Array` written in place, as [`F64Out`].
type U8Out<'a> = &'a mut [u8];

fn out_len(out: &[f64], n: usize) -> Result<()> {
    if out.len() < n {
        return Err(invalid(format!(
            "out: expected at least {n} numbers, got {}",
            out.len()
        )));
    }
    Ok(())
}

/// The world facts the adapter needs once, as JSON: `generator`, `seed`, `overlap`,
/// `walkability` (the rule's name, `null` without one), `firstBiome` (hyperscape
/// only), `tileSize`, and `biomes` (the names the reads' biome indices stand for).
#[napi(catch_unwind, ts_args_type = "handle: unknown")]
pub fn hs_world(handle: &External<Arc<Replica>>) -> Result<String> {
    handle.read(|o| {
        let terrain = o.view.terrain();
        let generator = terrain.generator();
        let (seed, first) = match generator {
            WorldGenerator::Hyperscape(h) => (Some(h.seed()), Some(first_biome(h))),
            _ => (None, None),
        };
        let rule = o.source.walk_rule().ok();
        let towns: Vec<[f64; 3]> = world_towns(&o.source)
            .iter()
            .map(|t| [t.x, t.z, t.radius])
            .collect();
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
    })
}

/// The outer bounds of every zone of the view, `[minX, minZ, maxX, maxZ, ...]`: no zone
/// decides the height outside its own (`src/hyperscape.ts` answers the zone lookups of
/// points outside all of them without calling in).
#[napi(catch_unwind, ts_args_type = "handle: unknown")]
pub fn hs_zone_bounds(handle: &External<Arc<Replica>>) -> Result<Float64Array> {
    handle.read(|o| {
        let zones = o.view.terrain().zones();
        let mut out = Vec::with_capacity(4 * zones.len());
        for (z, _) in zones.iter() {
            let b = z.outer_bounds();
            out.extend([b.min_x, b.min_z, b.max_x, b.max_z]);
        }
        Float64Array::new(out)
    })
}

/// `getProceduralHeightAt`: the procedural height with the mountain boost, no zones,
/// no shoreline ([`Terrain::procedural`]).
fn procedural(replica: &Replica, x: f64, z: f64) -> Result<f64> {
    point(x, z)?;
    replica.read(|o| o.view.terrain().procedural(x, z))
}

/// `procedural` bound to the replica (`fast::point_fn`).
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown",
    ts_return_type = "(x: number, z: number) => number"
)]
pub fn hs_procedural_fn<'env>(
    env: &'env Env,
    handle: &External<Arc<Replica>>,
) -> Result<Function<'env, (f64, f64), f64>> {
    point_fn(env, "getProceduralHeightAt", handle, procedural)
}

/// `getNormalAt` into `out[0..3]` ([`Terrain::normal`]).
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, x: number, z: number, out: Float64Array"
)]
pub fn hs_normal(handle: &External<Arc<Replica>>, x: f64, z: f64, out: F64Out) -> Result<()> {
    point(x, z)?;
    out_len(out, 3)?;
    let n = handle.read(|o| o.view.terrain().normal(x, z))?;
    out[..3].copy_from_slice(&n);
    Ok(())
}

/// `isPositionWalkable`'s reason code at `(x, z)` ([`Walker::blocked`]): 0 walkable,
/// 1 water, 2 slope, 3 zone.
#[napi(catch_unwind, ts_args_type = "handle: unknown, x: number, z: number")]
pub fn hs_blocked(handle: &External<Arc<Replica>>, x: f64, z: f64) -> Result<u32> {
    point(x, z)?;
    walking(handle, |s, rule| {
        Ok(reason_code(Walker::new(s.terrain(), rule).blocked(x, z)))
    })
}

/// `getTerrainInfoAt` into `out[0..5]`: height, slope, underwater (0 or 1), the
/// reason code (as [`hs_blocked`]) and the biome's index in [`BIOMES`] (`-1`: none).
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, x: number, z: number, out: Float64Array"
)]
pub fn hs_info(handle: &External<Arc<Replica>>, x: f64, z: f64, out: F64Out) -> Result<()> {
    point(x, z)?;
    out_len(out, 5)?;
    let info = walking(handle, |s, rule| {
        Ok(Walker::new(s.terrain(), rule).info(x, z))
    })?;
    out[0] = info.height;
    out[1] = info.slope;
    out[2] = f64::from(u8::from(info.underwater));
    out[3] = f64::from(reason_code(info.reason));
    out[4] = biome_index(info.biome);
    Ok(())
}

/// `getDifficultyAtWorldPosition` into `out[0..5]`: level, scalar, the tier, isSafe
/// (0 or 1) and the biome's index, computed by terrain-core (its own `pow`, never the
/// host's: `src/hyperscape.ts` does none of this arithmetic, so every Node version
/// answers the server's bits). With `hasTier`, `tier` is the tier (the original's
/// third argument), else the biome's tier in the original's manifest (`tier_of`).
/// The towns are [`hs_set_towns`]'s, else the original's fallback towns.
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, x: number, z: number, hasTier: boolean, tier: number, out: Float64Array"
)]
pub fn hs_difficulty(
    handle: &External<Arc<Replica>>,
    x: f64,
    z: f64,
    has_tier: bool,
    tier: f64,
    out: F64Out,
) -> Result<()> {
    point(x, z)?;
    out_len(out, 5)?;
    let d = handle.read(|o| -> Result<_> {
        let h = hyperscape(o.view.terrain())?;
        let biome = first_biome(h);
        let tier = if has_tier {
            tier
        } else {
            tier_of(o.source.walk_rule().ok(), biome)
        };
        let towns = match &o.overlay.towns {
            Some(t) => t.as_slice(),
            None => world_towns(&o.source),
        };
        Ok(difficulty(h.noise(), towns, biome, tier, x, z))
    })??;
    // The original's `Math.max(1, Math.floor(1 + scalar * 999))` is NaN for a NaN
    // scalar (a NaN tier), where core's whole level saturates.
    out[0] = if d.scalar.is_nan() {
        f64::NAN
    } else {
        f64::from(d.level)
    };
    out[1] = d.scalar;
    out[2] = d.tier;
    out[3] = f64::from(u8::from(d.is_safe));
    out[4] = biome_index(Some(d.biome));
    Ok(())
}

/// Whether a zone decides the height at `(x, z)` (core or blend).
#[napi(catch_unwind, ts_args_type = "handle: unknown, x: number, z: number")]
pub fn hs_in_zone(handle: &External<Arc<Replica>>, x: f64, z: f64) -> Result<bool> {
    point(x, z)?;
    handle.read(|o| o.view.terrain().zones().zone_at(x, z).is_some())
}

/// The id of the zone deciding the height at `(x, z)`, or `null`.
#[napi(catch_unwind, ts_args_type = "handle: unknown, x: number, z: number")]
pub fn hs_zone_at(handle: &External<Arc<Replica>>, x: f64, z: f64) -> Result<Option<String>> {
    point(x, z)?;
    handle.read(|o| {
        o.view
            .terrain()
            .zones()
            .zone_at(x, z)
            .map(|(zone, _)| zone.id.clone())
    })
}

/// Zone `id` of the view as the API writes it (JSON, its height resolved), or `null`.
#[napi(catch_unwind, ts_args_type = "handle: unknown, id: string")]
pub fn hs_zone(handle: &External<Arc<Replica>>, id: String) -> Result<Option<String>> {
    handle.read(|o| {
        o.view
            .terrain()
            .zones()
            .get(&id)
            .map(|z| serde_json::to_string(&ZoneDoc::from_zone(z)).map_err(js_error))
            .transpose()
    })?
}

/// The index of the first of `points` (`[x0, z0, ...]`, judged in order, each as
/// [`hs_blocked`]) where an entity may not stand, or -1: `findWalkablePath`'s
/// samples.
#[napi(catch_unwind, ts_args_type = "handle: unknown, points: Float64Array")]
pub fn hs_first_blocked(handle: &External<Arc<Replica>>, points: &[f64]) -> Result<i32> {
    let pairs = pairs(points)?;
    for (i, p) in pairs.clone().enumerate() {
        check_point(p[0], p[1]).map_err(|e| point_error(i, e))?;
    }
    walking(handle, |s, rule| {
        let walker = Walker::new(s.terrain(), rule);
        for (i, p) in pairs.enumerate() {
            if walker.blocked(p[0], p[1]).is_some() {
                return Ok(i as i32);
            }
        }
        Ok(-1)
    })
}

/// A whole number of tiles from `name`, within the coordinate range.
fn tile_index(name: &str, v: f64) -> Result<i64> {
    let limit = terrain_core::COORDINATE_LIMIT;
    if v.fract() == 0.0 && v.abs() <= limit {
        Ok(v as i64)
    } else {
        Err(invalid(format!(
            "{name}: must be a whole number of tiles within ±{limit}, got {v}"
        )))
    }
}

/// The walk grid of the `w x d` movement tiles (1 m) from tile `(x0, z0)` into
/// `flags` (row-major, z rising; terrain-core's [`tile_flags`], the bytes of the
/// server's `GET .../walk-grid`: 1 walkable, 2 water, 4 steep, 8 in a zone's core, 16
/// blocked by a zone, 32 a step), each tile judged at its centre as
/// `isPositionWalkable` judges it ([`Walker::grid`]); with a non-empty `heights`, the
/// final heights at the centres too (`w * d` of them).
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, x0: number, z0: number, w: number, d: number, flags: Uint8Array, heights: Float64Array"
)]
pub fn hs_grid(
    handle: &External<Arc<Replica>>,
    x0: f64,
    z0: f64,
    w: u32,
    d: u32,
    flags: U8Out,
    heights: F64Out,
) -> Result<()> {
    let (x0, z0) = (tile_index("minTileX", x0)?, tile_index("minTileZ", z0)?);
    let (wi, di) = (i64::from(w), i64::from(d));
    tile_index("minTileX + width", (x0 + wi) as f64)?;
    tile_index("minTileZ + depth", (z0 + di) as f64)?;
    let n = w as usize * d as usize;
    if flags.len() < n {
        return Err(invalid(format!(
            "flags: {} bytes for {n} tiles",
            flags.len()
        )));
    }
    let keep = !heights.is_empty();
    if keep && heights.len() < n {
        return Err(invalid(format!(
            "heights: {} numbers for {n} tiles",
            heights.len()
        )));
    }
    walking(handle, |s, rule| {
        let terrain = s.terrain();
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
    })
}

/// Registers zone `id` (its body as the HTTP API takes it: `centerX`, `width`, an
/// absolute `height`, `tileMask`, ...) in this process: the view has it at once.
/// Checked as the server checks it with its default limits; a refusal names the
/// field (`width: must be above 0`). Answers `[seq, epoch, n, rectangles...]`: the
/// operation's number (for [`hs_settle`]) and `Open::rebuild`'s answer.
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, id: string, body: string"
)]
pub fn hs_register(
    handle: &External<Arc<Replica>>,
    id: String,
    body: String,
) -> Result<Float64Array> {
    let doc = ZoneDoc::from_request_json(body.as_bytes()).map_err(|e| match e.field() {
        Some(field) => invalid(format!("{field}: {}", e.reason())),
        None => invalid(e.reason()),
    })?;
    let spec = doc
        .spec()
        .map_err(|e| invalid(format!("{}: {}", e.field(), e.reason())))?;
    terrain_core::zones::validate_zone(&id, &spec, &ZoneLimits::default())
        .map_err(|e| invalid(format!("{}: {}", e.field(), e.reason())))?;
    let zone = match spec.height {
        terrain_core::zones::ZoneHeight::Absolute(h) => spec.resolve(id.clone(), h),
        terrain_core::zones::ZoneHeight::Offset(_) => {
            return Err(invalid(
                "heightOffset: the adapter registers absolute heights",
            ));
        }
    };
    handle.change(|o: &mut Open| {
        let seq = o.overlay.push(id, Some(zone));
        let mut out = o.rebuild();
        out.insert(0, seq as f64);
        Ok(Float64Array::new(out))
    })
}

/// Removes zone `id` in this process (the view loses it at once, if it had it).
/// Answers as [`hs_register`].
#[napi(catch_unwind, ts_args_type = "handle: unknown, id: string")]
pub fn hs_unregister(handle: &External<Arc<Replica>>, id: String) -> Result<Float64Array> {
    handle.change(|o: &mut Open| {
        let seq = o.overlay.push(id, None);
        let mut out = o.rebuild();
        out.insert(0, seq as f64);
        Ok(Float64Array::new(out))
    })
}

/// Local operation `seq`'s fate at the server: `revision >= 0`, the revision that
/// holds it (dropped once the base reaches it); `-1`, refused (withdrawn now); `-2`,
/// a removal of a zone the server does not have (dropped once the base lacks it too,
/// after its next revision at most). Answers `Open::rebuild`'s answer. An unknown
/// `seq` (already dropped) changes nothing.
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, seq: number, revision: number"
)]
pub fn hs_settle(handle: &External<Arc<Replica>>, seq: f64, revision: f64) -> Result<Float64Array> {
    handle.change(|o: &mut Open| {
        let base = o.base.revision();
        let has = |id: &str| o.base.terrain().zones().get(id).is_some();
        let at = o.overlay.ops.iter().position(|op| op.seq as f64 == seq);
        if let Some(at) = at {
            if revision == -1.0 {
                o.overlay.ops.remove(at);
            } else if revision == -2.0 {
                let gone = !has(&o.overlay.ops[at].id);
                o.overlay.ops[at].committed = Some(if gone { 0 } else { base + 1 });
            } else if revision >= 0.0 && revision.fract() == 0.0 {
                o.overlay.ops[at].committed = Some(revision as u64);
            } else {
                return Err(invalid(format!(
                    "revision: a revision, -1 or -2, got {revision}"
                )));
            }
        }
        Ok(Float64Array::new(o.rebuild()))
    })
}

/// The difficulty rule's towns: `[x0, z0, radius0, x1, ...]` (the game's towns and
/// their safe-zone radii; empty, the original's fallback towns); `null`, the world's
/// listed towns again. Checked as the server checks a world's `towns`: at most
/// [`MAX_TOWNS`], finite centres, finite radii above 0; errors name the town and its
/// key (`towns[2].radius`).
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, towns: Float64Array | null"
)]
pub fn hs_set_towns(handle: &External<Arc<Replica>>, towns: Option<&[f64]>) -> Result<()> {
    let Some(towns) = towns else {
        return handle.change(|o: &mut Open| {
            o.overlay.towns = None;
            Ok(())
        });
    };
    if !towns.len().is_multiple_of(3) {
        return Err(invalid(format!(
            "towns: expected x, z, radius triples, got {} numbers",
            towns.len()
        )));
    }
    let n = towns.len() / 3;
    if n > MAX_TOWNS {
        return Err(invalid(format!(
            "towns: {n} towns exceed the limit of {MAX_TOWNS}"
        )));
    }
    let mut list = Vec::with_capacity(n);
    for (i, t) in towns.chunks_exact(3).enumerate() {
        for (key, v) in [("x", t[0]), ("z", t[1])] {
            if !v.is_finite() {
                return Err(invalid(format!(
                    "towns[{i}].{key}: must be a finite number (got {v})"
                )));
            }
        }
        if !(t[2].is_finite() && t[2] > 0.0) {
            return Err(invalid(format!(
                "towns[{i}].radius: must be a finite number above 0 (got {})",
                t[2]
            )));
        }
        list.push(Town {
            x: t[0],
            z: t[1],
            radius: t[2],
        });
    }
    handle.change(|o: &mut Open| {
        o.overlay.towns = Some(list);
        Ok(())
    })
}

/// The core's own time for the answers the adapter gives, for the benchmarks: `kind`
/// over `points` (`[x0, z0, ...]`; for `sampled` `[sx, sz, ex, ez, ...]`; for `grid`
/// each pair is a grid's first tile, 100 x 100 tiles) `reps` times, computed here in
/// Rust on the view with no call into JavaScript; answers nanoseconds per answer.
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, kind: string, points: Float64Array, reps: number"
)]
pub fn hs_core_time(
    handle: &External<Arc<Replica>>,
    kind: String,
    points: &[f64],
    reps: u32,
) -> Result<f64> {
    use std::hint::black_box;
    let pairs: Vec<(f64, f64)> = pairs(points)?.map(|p| (p[0], p[1])).collect();
    let reps = reps.max(1);
    let towns: Vec<Town> = handle.read(|o| world_towns(&o.source).to_vec())?;
    walking(handle, |s, rule| {
        let terrain = s.terrain();
        let walker = Walker::new(terrain, rule);
        let h = hyperscape(terrain)?;
        let mut answers = 0_u64;
        let start = Instant::now();
        for _ in 0..reps {
            match kind.as_str() {
                "height" => pairs.iter().for_each(|&(x, z)| {
                    black_box(s.height_at(x, z).ok());
                }),
                "procedural" => pairs.iter().for_each(|&(x, z)| {
                    black_box(terrain.procedural(x, z));
                }),
                "normal" => pairs.iter().for_each(|&(x, z)| {
                    black_box(terrain.normal(x, z));
                }),
                "blocked" => pairs.iter().for_each(|&(x, z)| {
                    black_box(walker.blocked(x, z));
                }),
                "info" => pairs.iter().for_each(|&(x, z)| {
                    black_box(walker.info(x, z));
                }),
                "difficulty" => pairs.iter().for_each(|&(x, z)| {
                    let biome = first_biome(h);
                    let tier = tier_of(Some(rule), biome);
                    black_box(difficulty(h.noise(), &towns, biome, tier, x, z));
                }),
                "zoneAt" => pairs.iter().for_each(|&(x, z)| {
                    black_box(terrain.zones().zone_at(x, z).map(|(z, _)| z.id.clone()));
                }),
                "sampled" => pairs.chunks_exact(2).for_each(|seg| {
                    black_box(walker.check_sampled(seg));
                }),
                "grid" => pairs.iter().for_each(|&(x, z)| {
                    black_box(walker.grid(x as i64, z as i64, 100, 100));
                }),
                other => {
                    return Err(invalid(format!("kind: unknown {other:?}")));
                }
            }
            answers += match kind.as_str() {
                "sampled" => (pairs.len() / 2) as u64,
                _ => pairs.len() as u64,
            };
        }
        Ok(start.elapsed().as_nanos() as f64 / answers.max(1) as f64)
    })
}

/// Nothing but a call into the addon and back (`x + z`): the crossing's own cost, for
/// the benchmarks.
#[napi(ts_args_type = "x: number, z: number")]
pub fn hs_crossing(x: f64, z: f64) -> f64 {
    x + z
}

/// [`hs_crossing`] as a function bound to nothing but a closure
/// (`fast::point_fn`'s kind of call): what `getHeightAt` pays to cross.
#[napi(ts_return_type = "(x: number, z: number) => number")]
pub fn hs_crossing_fn(env: &Env) -> Result<Function<'_, (f64, f64), f64>> {
    env.create_function_from_closure(
        "crossing",
        |ctx| Ok(ctx.get::<f64>(0)? + ctx.get::<f64>(1)?),
    )
}
