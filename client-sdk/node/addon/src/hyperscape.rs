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
//! Local zone changes (`registerFlatZone`, `unregisterFlatZone`) are terrain-client's
//! [`terrain_client::view`]: the view is the server's state with the changes made in
//! this process on top, and every change answers the rectangles where its zones
//! changed. The answers themselves are computed there too, shared with the
//! WebAssembly build (client-sdk/wasm); this module only converts arguments.

use std::{sync::Arc, time::Instant};

use napi::{
    Env, Result,
    bindgen_prelude::{External, Float64Array, Function},
};
use napi_derive::napi;
use terrain_client::{
    Snapshot, check_point,
    view::{self, first_biome, hyperscape, tier_of},
};
use terrain_core::{
    Terrain,
    walk::{Town, WalkRule, Walker, difficulty::difficulty},
    zones::ZoneDoc,
};

use crate::errors::{invalid, js_error, pairs, point_error, sdk_error};
use crate::fast::point_fn;
use crate::replica::{Open, Replica, Source};

pub use terrain_client::view::{BIOMES, OVERLAY_REVISION, Overlay, changed_bounds};

/// A point, refused as the replica refuses it (`x: must be finite`).
fn point(x: f64, z: f64) -> Result<()> {
    check_point(x, z).map_err(sdk_error)
}

/// `f` over the view and the world's walkability rule.
fn walking<T>(replica: &Replica, f: impl FnOnce(&Snapshot, &WalkRule) -> Result<T>) -> Result<T> {
    replica.read(|o| f(&o.view, o.source.walk_rule()?))?
}

/// terrain-client's [`view::hyperscape`], its refusal a JavaScript error.
fn hyperscape_of(terrain: &Terrain) -> Result<&terrain_core::generator::hyperscape::Hyperscape> {
    hyperscape(terrain).map_err(invalid)
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
        let rule = o.source.walk_rule().ok();
        view::world_facts(o.view.terrain(), rule, world_towns(&o.source))
    })
}

/// The outer bounds of every zone of the view, `[minX, minZ, maxX, maxZ, ...]`: no zone
/// decides the height outside its own (`src/hyperscape.ts` answers the zone lookups of
/// points outside all of them without calling in).
#[napi(catch_unwind, ts_args_type = "handle: unknown")]
pub fn hs_zone_bounds(handle: &External<Arc<Replica>>) -> Result<Float64Array> {
    handle.read(|o| Float64Array::new(view::zone_bounds(o.view.terrain())))
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
        Ok(view::reason_code(
            Walker::new(s.terrain(), rule).blocked(x, z),
        ))
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
        Ok(view::info_answer(s.terrain(), rule, x, z))
    })?;
    out[..5].copy_from_slice(&info);
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
    let d = handle.read(|o| {
        let towns = o.overlay.towns().unwrap_or_else(|| world_towns(&o.source));
        let tier = has_tier.then_some(tier);
        let rule = o.source.walk_rule().ok();
        view::difficulty_answer(o.view.terrain(), rule, towns, tier, x, z).map_err(invalid)
    })??;
    out[..5].copy_from_slice(&d);
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
    let pairs: Vec<(f64, f64)> = pairs(points)?.map(|p| (p[0], p[1])).collect();
    for (i, &(x, z)) in pairs.iter().enumerate() {
        check_point(x, z).map_err(|e| point_error(i, e))?;
    }
    walking(handle, |s, rule| {
        Ok(view::first_blocked(s.terrain(), rule, &pairs))
    })
}

/// The walk grid of the `w x d` movement tiles (1 m) from tile `(x0, z0)` into
/// `flags` (row-major, z rising; terrain-core's `tile_flags`, the bytes of the
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
    view::check_walk_grid(x0, z0, w, d, flags.len(), heights.len()).map_err(invalid)?;
    walking(handle, |s, rule| {
        view::walk_grid(s.terrain(), rule, x0, z0, w, d, flags, heights).map_err(invalid)
    })
}

/// Registers zone `id` (its body as the HTTP API takes it: `centerX`, `width`, an
/// absolute `height`, `tileMask`, ...) in this process: the view has it at once.
/// Checked as the server checks it with its default limits; a refusal names the
/// field (`width: must be above 0`). Answers `[seq, epoch, n, rectangles...]`: the
/// operation's number (for [`hs_settle`]) and `View::rebuild`'s answer.
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, id: string, body: string"
)]
pub fn hs_register(
    handle: &External<Arc<Replica>>,
    id: String,
    body: String,
) -> Result<Float64Array> {
    let zone = view::local_zone(&id, &body).map_err(invalid)?;
    handle.change(|o: &mut Open| Ok(Float64Array::new(o.change(id, Some(zone)))))
}

/// Removes zone `id` in this process (the view loses it at once, if it had it).
/// Answers as [`hs_register`].
#[napi(catch_unwind, ts_args_type = "handle: unknown, id: string")]
pub fn hs_unregister(handle: &External<Arc<Replica>>, id: String) -> Result<Float64Array> {
    handle.change(|o: &mut Open| Ok(Float64Array::new(o.change(id, None))))
}

/// Local operation `seq`'s fate at the server: `revision >= 0`, the revision that
/// holds it (dropped once the base reaches it); `-1`, refused (withdrawn now); `-2`,
/// a removal of a zone the server does not have (dropped once the base lacks it too,
/// after its next revision at most). Answers `View::rebuild`'s answer. An unknown
/// `seq` (already dropped) changes nothing.
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, seq: number, revision: number"
)]
pub fn hs_settle(handle: &External<Arc<Replica>>, seq: f64, revision: f64) -> Result<Float64Array> {
    handle.change(|o: &mut Open| {
        o.settle(seq, revision)
            .map(Float64Array::new)
            .map_err(invalid)
    })
}

/// The difficulty rule's towns: `[x0, z0, radius0, x1, ...]` (the game's towns and
/// their safe-zone radii; empty, the original's fallback towns); `null`, the world's
/// listed towns again. Checked as the server checks a world's `towns`: at most
/// `MAX_TOWNS`, finite centres, finite radii above 0; errors name the town and its
/// key (`towns[2].radius`).
#[napi(
    catch_unwind,
    ts_args_type = "handle: unknown, towns: Float64Array | null"
)]
pub fn hs_set_towns(handle: &External<Arc<Replica>>, towns: Option<&[f64]>) -> Result<()> {
    let towns = towns.map(view::towns_of).transpose().map_err(invalid)?;
    handle.change(|o: &mut Open| {
        o.overlay.set_towns(towns);
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
        let h = hyperscape_of(terrain)?;
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
