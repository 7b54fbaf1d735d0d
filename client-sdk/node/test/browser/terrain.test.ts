// terrain-client/web in real browsers: headless Chromium (Debian's, playwright-core) and
// Firefox ESR (Debian's, puppeteer-core over WebDriver BiDi), each with the test page
// (page.html) served from another origin than the terrain server (which allows it with
// --cors-origin). One real terrain-server serves five worlds: the traces' seeds 0 and 6
// (overlap and walkability `hyperscape`) with the 44 zones of zones_seed{S}.json
// committed through Node's own adapter, seed 0 again without zones (local0, for zones
// registered in the page), a hyperscape world the zone test changes, and a voxel world.
// In each browser:
//
// (a) every method of HyperscapeTerrain at every row of trace_seed{0,6}.csv is the
//     original's answer bit for bit (numbers as float64 bits), and the same again with
//     the 44 zones registered in the page alone (registerFlatZone, page-local) on a
//     world without zones, which unregisterFlatZone gives back as the server's ground;
//     walkGrid and isPositionWalkable at every tile of grid_seed{S}.txt are the
//     original's and the server's walk-grid bytes; the methods without a trace column
//     (findWalkablePath, isTileWalkable, getFlatZoneAt, getBiomeAtWorldPosition, ...)
//     answer as Node's adapter; LocalTerrain's exact and surface heights are the server's;
// (b) the worker's tiles carve the cells of carve_seed{0,6}.json and no others;
// (c) a worker tile is the server's JSON mesh of that tile, bit for bit;
// (d) a zone PUT from Node (admin token) reaches the page: one `tiles` event with the
//     server's tiles, and after waitForRevision its heights and the worker's tile are
//     the server's new ones;
// (e) a voxel chunk's blocks are the server's bytes;
// (f) 4,096 heights are the server's (batch and single-point routes), the same bits in
//     both browsers;
// (g) the browser's own Math.sin, Math.cos and Math.pow differ from the engine maths
//     the module computes with (terrain-core's jsmath, exported by client-sdk/wasm's
//     maths.rs) at some arguments; and the island's procedural height written from the
//     specification (procedural.mjs, our own code) with the maths passed in is the
//     original's at every trace row with the engine's maths (checked in Node) and the
//     module's at every point in the page, while with the browser's Math it agrees at
//     most points and differs at some; the module's heights are the server's at all.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { HyperscapeTerrain } from "../../src/hyperscape";
import { DATA, gameZones, gridRegions, num, traceRows, traceWorlds } from "../hyperscape-data";
import { TestServer, firstBitDifference, randomPoints } from "../server";
import { BROWSERS, type BrowserName, PACKAGE, PAGE, type StaticServer, type Tab, b64ToBytes, b64ToF32, b64ToF64, f64ToB64, openTab, serveStatic } from "./harness";

const TOKEN = "browser-admin";
const SEEDS = [0, 6];
/** The worlds each page opens (HyperscapeTerrain.open) before the tests. */
const WORLDS = ["seed0", "seed6", "zoned", "blocks", "local0"];
const CONFIG =
  traceWorlds(SEEDS) +
  `\n[[worlds]]\nid = "zoned"\ngenerator = "hyperscape"\nseed = 3\n` +
  `\n[[worlds]]\nid = "local0"\ngenerator = "hyperscape"\nseed = 0\noverlap = "hyperscape"\nwalkability = "hyperscape"\n` +
  `\n[[worlds]]\nid = "blocks"\ngenerator = "voxel"\nseed = 7\n`;

/** `import()` of an ES module from this CommonJS file (tsc would make it a require). */
const importEsm = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<unknown>;

function same(got: unknown, want: unknown, what: string): void {
  assert.ok(Object.is(got, want), `${what}: ${String(got)} (${typeof got}) !== ${String(want)} (${typeof want})`);
}

/** `got` (float32s) against the JSON's numbers: the JSON writes each float32 as its
 * shortest decimal, so rounded back to float32 they are its bits. */
function sameF32(what: string, got: Float32Array, want: number[]): void {
  assert.equal(got.length, want.length, `${what}: length`);
  const w32 = new Float32Array(want);
  const a = new Uint32Array(got.buffer, got.byteOffset, got.length);
  const b = new Uint32Array(w32.buffer);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) assert.fail(`${what}[${i}]: ${got[i]} !== ${w32[i]}`);
}

/** Tile `(tx, tz)` of `world` from the page's worker: its positions (base64) and revision. */
async function pageTile(tab: Tab, world: string, tx: number, tz: number): Promise<{ positions: Float32Array; revision: number }> {
  const r = await tab.evaluate(
    async ({ world, tx, tz }) => {
      const w = window as any;
      const m = await w.terrains[world].tile(tx, tz);
      return { positions: w.b64(m.positions) as string, revision: m.revision as number };
    },
    { world, tx, tz },
  );
  return { positions: b64ToF32(r.positions), revision: r.revision };
}

/** Opens `world` in the page as `window.terrains[world]`: terrain-client/web's
 * HyperscapeTerrain, or its LocalTerrain for a voxel world (the Hyperscape adapter
 * refuses other generators). */
async function openIn(tab: Tab, url: string, world: string): Promise<number> {
  return tab.evaluate(
    async ({ url, world }) => {
      const w = window as any;
      if (!w.web) throw new Error(`terrain-client/web did not load: ${w.webError}`);
      w.terrains ??= {};
      const t0 = performance.now();
      w.terrains[world] = await (world === "blocks" ? w.web.LocalTerrain : w.web.HyperscapeTerrain).open(url, world);
      return performance.now() - t0;
    },
    { url, world },
  );
}

/**
 * Every method of the page's HyperscapeTerrain `world` at every row of
 * trace_seed{seed}.csv, in batches of 500 rows: the original's answer bit for bit
 * (numbers as float64 bits); the methods without a trace column as `node` (Node's
 * adapter over the same world and zones) answers.
 */
async function replayTrace(tab: Tab, world: string, seed: number, node: HyperscapeTerrain): Promise<number> {
  const { rows } = traceRows(seed);
  assert.equal(rows.length, 2700);
  const BATCH = 500;
  for (let from = 0; from < rows.length; from += BATCH) {
    const batch = rows.slice(from, from + BATCH);
    const pts = new Float64Array(batch.length * 2);
    batch.forEach((r, i) => {
      pts[2 * i] = num(r.x!);
      pts[2 * i + 1] = num(r.z!);
    });
    const out = await tab.evaluate(
      ({ world, pts }) => {
        const w = window as any;
        const t = w.terrains[world];
        const p: Float64Array = w.unb64f64(pts);
        const n = p.length / 2;
        const nums = new Float64Array(n * 11);
        const strs: unknown[][] = [];
        for (let i = 0; i < n; i++) {
          const x = p[2 * i]!;
          const z = p[2 * i + 1]!;
          const nm = t.getNormalAt(x, z);
          const info = t.getTerrainInfoAt(x, z);
          const d = t.getDifficultyAtWorldPosition(x, z);
          const wk = t.isPositionWalkable(x, z);
          nums.set([t.getHeightAt(x, z), t.getProceduralHeightAt(x, z), nm.x, nm.y, nm.z, info.height, info.slope, d.level, d.scalar, d.difficultyTier, t.getHeightAtPosition(x, z)], i * 11);
          strs.push([
            t.isInFlatZone(x, z),
            wk.walkable,
            wk.reason ?? "",
            "reason" in wk,
            info.biome,
            info.underwater,
            info.walkable,
            t.getBiomeAtPosition(x, z),
            d.biome,
            d.isSafe,
            Object.keys(info).join(),
            Object.keys(d).join(),
            t.getFlatZoneAt(x, z)?.id ?? null,
            t.getBiomeAtWorldPosition(x, z),
            t.isPhysicsReadyAt(x, z),
          ]);
        }
        return { nums: w.b64(nums) as string, strs };
      },
      { world, pts: f64ToB64(pts) },
    );
    const nums = b64ToF64(out.nums);
    batch.forEach((r, i) => {
      const at = `${tab.name} ${world} (${r.x}, ${r.z})`;
      const g = (k: number): number => nums[i * 11 + k]!;
      same(g(0), num(r.getHeightAt!), `getHeightAt ${at}`);
      same(g(1), num(r.getProceduralHeightAt!), `getProceduralHeightAt ${at}`);
      same(g(2), num(r.normalX!), `normalX ${at}`);
      same(g(3), num(r.normalY!), `normalY ${at}`);
      same(g(4), num(r.normalZ!), `normalZ ${at}`);
      same(g(5), num(r.info_height!), `info.height ${at}`);
      same(g(6), num(r.info_slope!), `info.slope ${at}`);
      same(g(7), num(r.difficulty_level!), `difficulty.level ${at}`);
      same(g(8), num(r.difficulty_scalar!), `difficulty.scalar ${at}`);
      same(g(9), num(r.difficulty_tier!), `difficulty.tier ${at}`);
      const [inZone, walkable, reason, hasReason, biome, underwater, infoWalkable, biomeAt, dBiome, isSafe, infoKeys, dKeys, zoneId, biomeAtWorld, physics] = out.strs[i]!;
    const x = num(r.x!);
    const z = num(r.z!);
    same(g(10), g(0), `getHeightAtPosition ${at}`);
    same(zoneId, node.getFlatZoneAt(x, z)?.id ?? null, `getFlatZoneAt as Node's ${at}`);
    same(biomeAtWorld, node.getBiomeAtWorldPosition(x, z), `getBiomeAtWorldPosition as Node's ${at}`);
    same(physics, true, `isPhysicsReadyAt ${at}`);
      same(String(inZone), r.isInFlatZone, `isInFlatZone ${at}`);
      same(String(walkable), r.walkable, `walkable ${at}`);
      same(reason, r.reason, `reason ${at}`);
      same(hasReason, !walkable, `a reason property only when blocked ${at}`);
      same(biome, r.info_biome, `info.biome ${at}`);
      same(String(underwater), r.info_underwater, `info.underwater ${at}`);
      same(String(infoWalkable), r.info_walkable, `info.walkable ${at}`);
      same(biomeAt, r.info_biome, `getBiomeAtPosition ${at}`);
      same(dBiome, r.difficulty_biome, `difficulty.biome ${at}`);
      same(String(isSafe), r.difficulty_isSafe, `difficulty.isSafe ${at}`);
      same(infoKeys, "height,biome,walkable,slope,underwater", `info's keys ${at}`);
      same(dKeys, "level,scalar,biome,difficultyTier,isSafe", `difficulty's keys ${at}`);
    });
  }
  return rows.length;
}

describe("terrain-client/web in Chromium and Firefox", () => {
  let server: TestServer;
  let pages: StaticServer;
  const tabs = new Map<BrowserName, Tab>();
  /** Node's own adapter (the native addon) over each trace world: the reference for
   * the methods the traces have no column for. */
  const nodeTerrains = new Map<number, HyperscapeTerrain>();
  /** What each browser answered for test (f), by browser. */
  const fHeights = new Map<BrowserName, Float64Array>();

  before(async () => {
    pages = await serveStatic();
    server = await TestServer.start({ worlds: [], config: CONFIG, args: ["--admin-token", TOKEN, "--cors-origin", pages.origin] });
    // The traces' zones, committed as the game commits them: through Node's adapter.
    for (const seed of SEEDS) {
      const t = await HyperscapeTerrain.open(server.url, `seed${seed}`, { token: TOKEN });
      const errors: Error[] = [];
      t.on("error", (e: Error) => errors.push(e));
      for (const zone of gameZones(seed)) t.registerFlatZone(zone);
      await t.flush();
      assert.deepEqual(errors, [], "no zone refused");
      nodeTerrains.set(seed, t);
    }
    for (const name of BROWSERS) {
      const tab = await openTab(name);
      tabs.set(name, tab);
      await tab.goto(`${pages.origin}${PAGE}`);
      await tab.waitFor(() => (window as any).pageReady === true, 60_000);
      const failed = await tab.evaluate(() => ({ wasm: (window as any).wasmError, web: (window as any).webError }), null);
      assert.deepEqual(failed, { wasm: undefined, web: undefined }, `${name}: the page's modules load`);
      const opened: string[] = [];
      for (const world of WORLDS) opened.push(`${world} ${(await openIn(tab, server.url, world)).toFixed(0)} ms`);
      console.log(`${name} ${tab.version}: opened ${opened.join(", ")}`);
    }
  });

  after(async () => {
    for (const tab of tabs.values()) await tab.close().catch(() => undefined);
    for (const t of nodeTerrains.values()) t.close();
    await server?.stop();
    await pages?.close();
  });

  for (const name of BROWSERS) {
    describe(name, () => {
      const tab = (): Tab => tabs.get(name)!;

      test("(a) every method at every trace row is the original's answer", async () => {
        for (const seed of SEEDS) {
          const started = Date.now();
          const rows = await replayTrace(tab(), `seed${seed}`, seed, nodeTerrains.get(seed)!);
          console.log(`${name} seed ${seed}: ${rows} rows x 26 answers equal in ${Date.now() - started} ms`);
        }
      });

      test("(a) zones registered in the page alone give the trace's answers; unregistered, the server's ground", async () => {
        // World local0: seed 0 as the traces were made, no zone on the server. The page
        // registers the 44 zones itself (the game's objects: tileMask a Set of keys).
        const raw = readFileSync(join(DATA, "zones_seed0.json"), "utf8");
        const registered = await tab().evaluate(
          ({ raw }) => {
            const t = (window as any).terrains.local0;
            const zones = JSON.parse(raw) as any[];
            for (const z of zones) {
              if (z.tileMaskTiles) {
                z.tileMaskTiles = z.tileMaskTiles.map(([x, zz]: [number, number]) => ({ x, z: zz }));
                z.tileMask = new Set(z.tileMaskTiles.map((q: { x: number; z: number }) => `${q.x},${q.z}`));
              }
              t.registerFlatZone(z);
            }
            return zones.length;
          },
          { raw },
        );
        assert.equal(registered, 44);
        const started = Date.now();
        await replayTrace(tab(), "local0", 0, nodeTerrains.get(0)!);
        const listed = await server.json("GET", "/v1/worlds/local0/flat-zones");
        assert.deepEqual(listed.zones, [], "the page's zones stay in the page");
        // Unregistered again: the server's ground at every trace point.
        const { rows } = traceRows(0);
        const pts = new Float64Array(rows.flatMap((r) => [num(r.x!), num(r.z!)]));
        const heights = await tab().evaluate(
          ({ raw, pts }) => {
            const w = window as any;
            const t = w.terrains.local0;
            for (const z of JSON.parse(raw) as { id: string }[]) t.unregisterFlatZone(z.id);
            const p: Float64Array = w.unb64f64(pts);
            const out = new Float64Array(p.length / 2);
            for (let i = 0; i < out.length; i++) out[i] = t.getHeightAt(p[2 * i], p[2 * i + 1]);
            return w.b64(out) as string;
          },
          { raw, pts: f64ToB64(pts) },
        );
        const served = await server.heights("local0", pts);
        same(firstBitDifference(b64ToF64(heights), served.heights), -1, `${name}: local0 without the page's zones is the server's`);
        const changed = rows.filter((r, i) => !Object.is(served.heights[i], num(r.getHeightAt!))).length;
        assert.ok(changed > 1000, `${changed} trace heights are the zones' doing`);
        console.log(`${name}: 44 zones registered in the page: 2,700 rows equal in ${Date.now() - started} ms; unregistered, the server's (${changed} heights differ from the zoned ones)`);
      });

      test("(a) LocalTerrain: heights and surface heights of 4,096 points are the server's", async () => {
        const pts = randomPoints(4096, 400, 0x10ca1);
        const got = await tab().evaluate(
          async ({ url, pts }) => {
            const w = window as any;
            const t = await w.web.LocalTerrain.open(url, "seed0");
            try {
              const p: Float64Array = w.unb64f64(pts);
              const single = new Float64Array(p.length);
              for (let i = 0; i < p.length / 2; i++) {
                single[2 * i] = t.heightAt(p[2 * i], p[2 * i + 1]);
                single[2 * i + 1] = t.surfaceHeightAt(p[2 * i], p[2 * i + 1]);
              }
              return { exact: w.b64(t.heights(p)) as string, surface: w.b64(t.surfaceHeights(p)) as string, single: w.b64(single) as string, revision: t.revision as number };
            } finally {
              t.close();
            }
          },
          { url: server.url, pts: f64ToB64(pts) },
        );
        const exact = await server.heights("seed0", pts, "exact");
        const surface = await server.heights("seed0", pts, "surface");
        same(got.revision, exact.revision, `${name}: LocalTerrain at the server's revision`);
        same(firstBitDifference(b64ToF64(got.exact), exact.heights), -1, `${name}: heights`);
        same(firstBitDifference(b64ToF64(got.surface), surface.heights), -1, `${name}: surfaceHeights`);
        const single = b64ToF64(got.single);
        same(firstBitDifference(single.filter((_, i) => i % 2 === 0), exact.heights), -1, `${name}: heightAt`);
        same(firstBitDifference(single.filter((_, i) => i % 2 === 1), surface.heights), -1, `${name}: surfaceHeightAt`);
        assert.ok(firstBitDifference(exact.heights, surface.heights) >= 0, "exact and surface differ somewhere");
      });

      test("(a) walkGrid and isPositionWalkable at every tile of the grid tables; the other methods as Node's adapter", async () => {
        for (const seed of SEEDS) {
          const world = `seed${seed}`;
          const node = nodeTerrains.get(seed)!;
          let tiles = 0;
          let paths = 0;
          for (const region of gridRegions(seed)) {
            const got = await tab().evaluate(
              ({ world, r }) => {
                const w = window as any;
                const t = w.terrains[world];
                const grid: Uint8Array = t.walkGrid(r.minTileX, r.minTileZ, r.width, r.depth);
                let cells = "";
                let tileWalkable = "";
                for (let j = 0; j < r.depth; j++) {
                  for (let i = 0; i < r.width; i++) {
                    const x = r.minTileX + i + 0.5;
                    const z = r.minTileZ + j + 0.5;
                    const reason = t.isPositionWalkable(x, z).reason;
                    cells += reason === undefined ? "." : reason.startsWith("Water") ? "w" : reason.startsWith("Steep") ? "s" : reason.startsWith("Lake") ? "l" : "?";
                    tileWalkable += t.isTileWalkable(x, z) ? "1" : "0";
                  }
                }
                return { grid: w.b64(grid) as string, cells, tileWalkable, size: t.getTileSize(), ready: t.isReady() };
              },
              { world, r: { minTileX: region.minTileX, minTileZ: region.minTileZ, width: region.width, depth: region.depth } },
            );
            assert.equal(got.cells, region.cells, `${name} ${world} ${region.name}: isPositionWalkable at every tile centre`);
            const grid = b64ToBytes(got.grid);
            assert.deepEqual(grid, node.walkGrid(region.minTileX, region.minTileZ, region.width, region.depth), `${name} ${world} ${region.name}: walkGrid as Node's`);
            const served = await fetch(
              `${server.url}/v1/worlds/${world}/walk-grid?minTileX=${region.minTileX}&minTileZ=${region.minTileZ}&width=${region.width}&depth=${region.depth}`,
            );
            assert.deepEqual(grid, new Uint8Array(await served.arrayBuffer()), `${name} ${world} ${region.name}: the server's walk-grid bytes`);
            let flagged = "";
            for (const f of grid) flagged += f & 1 ? "." : f & 2 ? "w" : f & 4 ? "s" : "?";
            assert.equal(flagged, region.cells, `${name} ${world} ${region.name}: walkGrid's flags are the table's`);
            let nodeTile = "";
            for (let j = 0; j < region.depth; j++) {
              for (let i = 0; i < region.width; i++) nodeTile += node.isTileWalkable(region.minTileX + i + 0.5, region.minTileZ + j + 0.5) ? "1" : "0";
            }
            assert.equal(got.tileWalkable, nodeTile, `${name} ${world} ${region.name}: isTileWalkable as Node's`);
            same(got.size, 100, "getTileSize");
            same(got.ready, true, "isReady");
            tiles += region.width * region.depth;

            // findWalkablePath between 100 seeded pairs of points in the region.
            let s = 0x5eed + seed;
            const next = (): number => {
              s ^= s << 13;
              s ^= s >>> 17;
              s ^= s << 5;
              return (s >>> 0) / 0x1_0000_0000;
            };
            const pairs = new Float64Array(400);
            for (let k = 0; k < 100; k++) {
              pairs[4 * k] = region.minTileX + next() * region.width;
              pairs[4 * k + 1] = region.minTileZ + next() * region.depth;
              pairs[4 * k + 2] = region.minTileX + next() * region.width;
              pairs[4 * k + 3] = region.minTileZ + next() * region.depth;
            }
            const found = await tab().evaluate(
              ({ world, pairs }) => {
                const w = window as any;
                const t = w.terrains[world];
                const p: Float64Array = w.unb64f64(pairs);
                const out: { blocked: boolean; path: string }[] = [];
                for (let k = 0; k < p.length / 4; k++) {
                  const r = t.findWalkablePath(p[4 * k], p[4 * k + 1], p[4 * k + 2], p[4 * k + 3]);
                  const xs = new Float64Array(r.path.length * 2);
                  r.path.forEach((q: { x: number; z: number }, i: number) => {
                    xs[2 * i] = q.x;
                    xs[2 * i + 1] = q.z;
                  });
                  out.push({ blocked: r.blocked, path: w.b64(xs) });
                }
                return out;
              },
              { world, pairs: f64ToB64(pairs) },
            );
            let blocked = 0;
            for (let k = 0; k < 100; k++) {
              const want = node.findWalkablePath(pairs[4 * k]!, pairs[4 * k + 1]!, pairs[4 * k + 2]!, pairs[4 * k + 3]!);
              const wantXs = new Float64Array(want.path.flatMap((q) => [q.x, q.z]));
              same(found[k]!.blocked, want.blocked, `${name} ${world} findWalkablePath ${k} blocked`);
              same(firstBitDifference(b64ToF64(found[k]!.path), wantXs), -1, `${name} ${world} findWalkablePath ${k}: the path's bits`);
              if (want.blocked) blocked++;
              paths++;
            }
            console.log(`${name} ${world} ${region.name}: ${blocked} of 100 straight paths blocked`);
          }
          console.log(`${name} ${world}: ${tiles} grid tiles, ${paths} paths equal`);
        }
      });

      test("(b) the worker's tiles carve the original's cells (carve_seed0/6.json)", async () => {
        for (const seed of SEEDS) {
          const table = JSON.parse(readFileSync(join(DATA, `carve_seed${seed}.json`), "utf8")) as {
            resolution: number;
            tiles: { tile: [number, number]; index: number; carved: [number, number][] }[];
          };
          assert.equal(table.resolution, 64);
          const keys = table.tiles.map((e) => e.tile);
          // Every other tile of the 7 x 7 around the origin (every zone lies within it)
          // keeps every cell.
          const others: [number, number][] = [];
          for (let tx = -3; tx <= 3; tx++) for (let tz = -3; tz <= 3; tz++) if (!keys.some(([x, z]) => x === tx && z === tz)) others.push([tx, tz]);
          const zones = (await server.json("GET", `/v1/worlds/seed${seed}/flat-zones`)).zones as { centerX: number; centerZ: number; width: number; depth: number; blendRadius: number }[];
          assert.equal(zones.length, 44);
          for (const z of zones) assert.ok(Math.max(Math.abs(z.centerX), Math.abs(z.centerZ)) + Math.max(z.width, z.depth) / 2 + z.blendRadius < 350, `${z.centerX}, ${z.centerZ} within the 7 x 7 tiles`);
          const started = Date.now();
          const got = await tab().evaluate(
            async ({ world, tiles }) => {
              const w = window as any;
              const t = w.terrains[world];
              const meshes = await Promise.all(tiles.map(([tx, tz]: [number, number]) => t.tile(tx, tz)));
              return meshes.map((m: any) => {
                const n = m.resolution;
                const kept = new Set<number>();
                for (let k = 0; k < m.index.length; k += 6) kept.add(m.index[k]);
                const carved: [number, number][] = [];
                for (let iz = 0; iz < n - 1; iz++) for (let ix = 0; ix < n - 1; ix++) if (!kept.has(ix + n * iz)) carved.push([ix, iz]);
                return { resolution: n, index: m.index.length, carved };
              });
            },
            { world: `seed${seed}`, tiles: [...keys, ...others] },
          );
          let cells = 0;
          table.tiles.forEach((e, i) => {
            const g = got[i]!;
            same(g.resolution, 64, `${name} seed ${seed} tile ${e.tile} resolution`);
            assert.deepEqual(g.carved, [...e.carved].sort((a, b) => a[1] - b[1] || a[0] - b[0]), `${name} seed ${seed} tile ${e.tile}: carved cells`);
            same(g.index, e.index, `${name} seed ${seed} tile ${e.tile}: index length`);
            cells += g.carved.length;
          });
          others.forEach((k, i) => {
            const g = got[table.tiles.length + i]!;
            same(g.index, 63 * 63 * 6, `${name} seed ${seed} tile ${k}: nothing carved`);
          });
          console.log(`${name} seed ${seed}: ${table.tiles.length} carved tiles (${cells} cells) and ${others.length} uncarved ones from the worker in ${Date.now() - started} ms`);
          assert.deepEqual([table.tiles.length, cells], seed === 0 ? [25, 2275] : [22, 2174]);
          assert.ok(pages.served.has("/dist/web/worker.js"), "the tiles came from the Web Worker (its script was loaded)");
        }
      });

      test("(c) a worker tile is the server's JSON mesh bit for bit", async () => {
        for (const [world, tx, tz] of [
          ["seed0", 0, 0],
          ["seed0", -1, 2],
          ["seed6", 1, -1],
        ] as const) {
          const mesh = await tab().evaluate(
            async ({ world, tx, tz }) => {
              const w = window as any;
              const m = await w.terrains[world].tile(tx, tz);
              return {
                positions: w.b64(m.positions) as string,
                normals: w.b64(m.normals) as string,
                colors: w.b64(m.colors) as string,
                biomeIds: w.b64(m.biomeIds) as string,
                index: Array.from(m.index as Uint32Array),
                placement: w.b64(new Float64Array(m.placement)) as string,
                resolution: m.resolution as number,
                revision: m.revision as number,
              };
            },
            { world, tx, tz },
          );
          const served = await server.json("GET", `/v1/worlds/${world}/tiles/${tx}/${tz}/mesh`);
          const at = `${name} ${world} tile (${tx}, ${tz})`;
          same(mesh.resolution, served.resolution, `${at} resolution`);
          same(mesh.revision, served.revision, `${at} revision`);
          assert.equal(firstBitDifference(b64ToF64(mesh.placement), new Float64Array(served.placement)), -1, `${at} placement`);
          sameF32(`${at} positions`, b64ToF32(mesh.positions), served.positions);
          sameF32(`${at} normals`, b64ToF32(mesh.normals), served.normals);
          sameF32(`${at} colours`, b64ToF32(mesh.colors), served.colours);
          assert.deepEqual([...b64ToBytes(mesh.biomeIds)], served.biomes, `${at} biomes`);
          assert.deepEqual(mesh.index, served.indices, `${at} indices`);
          assert.equal(mesh.positions.length > 0 && served.positions.length, 64 * 64 * 3);
        }
      });

      test("(d) a zone PUT on the server reaches the page: its heights are the server's after waitForRevision", async () => {
        const world = "zoned";
        const pts = new Float64Array(2 * 41 * 41);
        let k = 0;
        for (let j = 0; j <= 40; j++) for (let i = 0; i <= 40; i++) ((pts[k++] = 200 + i * 1.25 + 0.125), (pts[k++] = -150 + j * 1.25 + 0.0625));
        const read = (): Promise<{ heights: Float64Array; revision: number }> =>
          tab()
            .evaluate(
              ({ world, pts }) => {
                const w = window as any;
                const t = w.terrains[world];
                const p: Float64Array = w.unb64f64(pts);
                const out = new Float64Array(p.length / 2);
                for (let i = 0; i < out.length; i++) out[i] = t.getHeightAt(p[2 * i], p[2 * i + 1]);
                return { heights: w.b64(out) as string, revision: t.revision as number };
              },
              { world, pts: f64ToB64(pts) },
            )
            .then((r) => ({ heights: b64ToF64(r.heights), revision: r.revision }));
        // The page has followed whatever the other browser's run changed here.
        const current = (await server.json("GET", `/v1/worlds/${world}/flat-zones`)).revision as number;
        await tab().evaluate(({ world, r }) => (window as any).terrains[world].waitForRevision(r, 30_000), { world, r: current });
        const before = await read();
        const servedBefore = await server.heights(world, pts);
        same(before.revision, servedBefore.revision, `${name}: the page's revision is the server's`);
        same(firstBitDifference(before.heights, servedBefore.heights), -1, `${name}: heights before the zone`);
        const id = `browser-${name}`;
        await tab().evaluate(
          ({ world }) => {
            const w = window as any;
            w.zoneEvents = [];
            w.terrains[world].on("tiles", (e: unknown) => w.zoneEvents.push(e));
          },
          { world },
        );
        const put = await fetch(`${server.url}/v1/worlds/${world}/flat-zones/${id}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ centerX: 225, centerZ: -125, width: 30, depth: 24, height: 41.375, blendRadius: 6 }),
        });
        const answer = (await put.json()) as { revision: number; tiles: [number, number][] };
        assert.equal(put.status, 200, JSON.stringify(answer));
        const t0 = Date.now();
        await tab().evaluate(({ world, r }) => (window as any).terrains[world].waitForRevision(r, 30_000), { world, r: answer.revision });
        const waited = Date.now() - t0;
        const after = await read();
        const servedAfter = await server.heights(world, pts);
        same(servedAfter.revision, answer.revision, "the server answered at the zone's revision");
        same(after.revision, answer.revision, `${name}: the page is at the zone's revision`);
        same(firstBitDifference(after.heights, servedAfter.heights), -1, `${name}: heights after the zone are the server's`);
        let changed = 0;
        let flat = 0;
        for (let i = 0; i < after.heights.length; i++) {
          if (!Object.is(after.heights[i], before.heights[i])) changed++;
          if (after.heights[i] === 41.375) flat++;
        }
        assert.ok(flat >= 400 && changed > flat, `${name}: ${changed} heights changed, ${flat} on the zone's level`);
        // The page was told which tiles to draw again: the server's list.
        const events = await tab().evaluate(() => (window as any).zoneEvents as { revision: number; zone: string; change: string; tiles: [number, number][] }[], null);
        assert.equal(events.length, 1, `${name}: one tiles event`);
        assert.deepEqual(
          { revision: events[0]!.revision, zone: events[0]!.zone, change: events[0]!.change, tiles: [...events[0]!.tiles].sort() },
          { revision: answer.revision, zone: id, change: "registered", tiles: [...answer.tiles].sort() },
          `${name}: the tiles event`,
        );
        // The worker's tile under the zone is the server's new mesh.
        const tile = await pageTile(tab(), world, 2, -1);
        const mesh = await server.json("GET", `/v1/worlds/${world}/tiles/2/-1/mesh`);
        same(tile.revision, answer.revision, `${name}: the worker's tile is of the zone's revision`);
        same(mesh.revision, answer.revision, "the server's mesh is of the zone's revision");
        sameF32(`${name}: ${world} tile (2, -1) after the zone`, tile.positions, mesh.positions);
        console.log(`${name}: zone at revision ${answer.revision} reached the page in ${waited} ms; ${changed} of ${after.heights.length} heights changed, all the server's`);
        // Removed again (the other browser starts from the same ground).
        const del = await fetch(`${server.url}/v1/worlds/${world}/flat-zones/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
        const removed = (await del.json()) as { revision: number };
        await tab().evaluate(({ world, r }) => (window as any).terrains[world].waitForRevision(r, 30_000), { world, r: removed.revision });
        const back = await read();
        same(firstBitDifference(back.heights, before.heights), -1, `${name}: the ground is back after the removal`);
      });

      test("(e) a voxel chunk's blocks are the server's bytes", async () => {
        for (const [cx, cz] of [
          [0, 0],
          [-3, 2],
        ] as const) {
          const got = await tab().evaluate(
            async ({ cx, cz }) => {
              const w = window as any;
              const b = await w.terrains.blocks.chunkBlocks(cx, cz);
              return w.b64(b) as string;
            },
            { cx, cz },
          );
          const r = await fetch(`${server.url}/v1/worlds/blocks/tiles/${cx}/${cz}/blocks?format=binary`);
          assert.equal(r.status, 200);
          const want = new Uint8Array(await r.arrayBuffer());
          const bytes = b64ToBytes(got);
          assert.ok(want.length > 1000 && String.fromCharCode(...want.subarray(0, 4)) === "VXC1");
          assert.deepEqual(bytes, want, `${name} chunk (${cx}, ${cz}): ${bytes.length} bytes against ${want.length}`);
        }
      });

      test("(f) 4,096 heights in and around the island are the server's", async () => {
        const pts = randomPoints(4096, 700, 0x51ed);
        const got = await tab().evaluate(
          ({ pts }) => {
            const w = window as any;
            const t = w.terrains.seed0;
            const p: Float64Array = w.unb64f64(pts);
            const out = new Float64Array(p.length / 2);
            for (let i = 0; i < out.length; i++) out[i] = t.getHeightAt(p[2 * i], p[2 * i + 1]);
            return w.b64(out) as string;
          },
          { pts: f64ToB64(pts) },
        );
        const heights = b64ToF64(got);
        const served = await server.heights("seed0", pts);
        same(firstBitDifference(heights, served.heights), -1, `${name}: the batch route's bits`);
        for (let i = 0; i < 64; i++) {
          const single = await server.json("GET", `/v1/worlds/seed0/height?x=${pts[2 * i]}&z=${pts[2 * i + 1]}`);
          same(heights[i], single.height, `${name}: /height at (${pts[2 * i]}, ${pts[2 * i + 1]})`);
        }
        fHeights.set(name, heights);
        console.log(`${name}: sha256 of 4,096 heights ${createHash("sha256").update(heights).digest("hex").slice(0, 16)}`);
      });

      test("(g) the browser's own Math differs from the engine maths the module computes with", async () => {
        // Arguments where the height field uses them: sin and cos of angles (the
        // coastline's noise, the pond), pow(h, 1.1) of heights in [0, 1) (the island's curve).
        const n = 20_000;
        const args = new Float64Array(n);
        const next = (() => {
          let s = 0x2545f491;
          return () => {
            s ^= s << 13;
            s ^= s >>> 17;
            s ^= s << 5;
            return (s >>> 0) / 0x1_0000_0000;
          };
        })();
        for (let i = 0; i < n; i++) args[i] = (next() * 2 - 1) * 8;
        const got = await tab().evaluate(
          ({ xs }) => {
            const w = window as any;
            const x: Float64Array = w.unb64f64(xs);
            const engine: Float64Array = w.wasm.engineMaths(x, 1.1);
            const own = new Float64Array(x.length * 3);
            for (let i = 0; i < x.length; i++) {
              own[3 * i] = Math.sin(x[i]!);
              own[3 * i + 1] = Math.cos(x[i]!);
              own[3 * i + 2] = Math.pow(Math.abs(x[i]!) % 1, 1.1);
            }
            return { engine: w.b64(engine) as string, own: w.b64(own) as string };
          },
          { xs: f64ToB64(args) },
        );
        const engine = b64ToF64(got.engine);
        const own = b64ToF64(got.own);
        const diff = [0, 0, 0];
        let farthest = 0;
        for (let i = 0; i < engine.length; i++) {
          // The module's engine maths is Node 20's (V8's, the original's engine) here too.
          const x = args[Math.floor(i / 3)]!;
          const node = [Math.sin(x), Math.cos(x), Math.pow(Math.abs(x) % 1, 1.1)][i % 3]!;
          if (process.version.startsWith("v20.")) same(engine[i], node, `engine maths is Node 20's at ${x}`);
          if (!Object.is(engine[i], own[i])) {
            diff[i % 3]!++;
            const ulps = Math.abs(Number(new BigInt64Array(new Float64Array([engine[i]!]).buffer)[0]! - new BigInt64Array(new Float64Array([own[i]!]).buffer)[0]!));
            farthest = Math.max(farthest, ulps);
          }
        }
        console.log(`${name}: Math.sin differs from the engine's at ${diff[0]}, Math.cos at ${diff[1]}, Math.pow(h, 1.1) at ${diff[2]} of ${n} arguments (at most ${farthest} ulp apart)`);
        assert.ok(diff[0]! + diff[1]! + diff[2]! > 0, `${name}: the browser's Math is not the engine's somewhere`);
        assert.ok(farthest <= 2, "only rounding: the same functions");
        // ... while the module's heights are the server's ((f) above; again here, where
        // the noise is richest: the island's coast and mountains).
        const pts = randomPoints(2048, 350, 0xc0a57);
        const heights = await tab().evaluate(
          ({ pts }) => {
            const w = window as any;
            const p: Float64Array = w.unb64f64(pts);
            const out = new Float64Array(p.length / 2);
            for (let i = 0; i < out.length; i++) out[i] = w.terrains.seed6.getProceduralHeightAt(p[2 * i], p[2 * i + 1]);
            return w.b64(out) as string;
          },
          { pts: f64ToB64(pts) },
        );
        const served = await fetch(`${server.url}/v1/worlds/seed6/heights?mode=procedural`, {
          method: "POST",
          body: pts.buffer as ArrayBuffer,
          headers: { "content-type": "application/octet-stream" },
        });
        assert.equal(served.status, 200);
        const want = new Float64Array(new Uint8Array(await served.arrayBuffer()).buffer);
        same(firstBitDifference(b64ToF64(heights), want), -1, `${name}: procedural heights are the server's`);
      });

      test("(g) heights computed with the browser's Math the original's way differ from the module's at some points", async () => {
        // test/browser/procedural.mjs: the island's procedural height written from the
        // specification with the maths functions passed in. With the module's engine
        // maths it is the original's at every trace row (checked here in Node), so it is
        // the same function; in the page, with the browser's Math, it is not everywhere.
        const { islandHeight } = (await importEsm(join(PACKAGE, "test", "browser", "procedural.mjs"))) as {
          islandHeight: (seed: number, M: Record<string, (...a: number[]) => number>) => (x: number, z: number) => number;
        };
        // The module's engine maths in Node (its CommonJS glue; the wasm/ beside package.json).
        const wasm = require(join(PACKAGE, "wasm", "terrain_wasm_node.js")) as typeof import("../../wasm/terrain_wasm_node");
        const engineMath = { floor: Math.floor, sqrt: Math.sqrt, exp: wasm.engineExp, atan2: wasm.engineAtan2, sin: wasm.engineSin, cos: wasm.engineCos, pow: wasm.enginePow } as unknown as Record<string, (...a: number[]) => number>;
        let agree = 0;
        let differ = 0;
        let points = 0;
        for (const seed of SEEDS) {
          const { rows } = traceRows(seed);
          const reference = islandHeight(seed, engineMath);
          for (const r of rows) same(reference(num(r.x!), num(r.z!)), num(r.getProceduralHeightAt!), `the port with the engine's maths, seed ${seed} (${r.x}, ${r.z})`);
          const disc = randomPoints(1000, 450, 0xd15c + seed);
          const pts = new Float64Array([...rows.flatMap((r) => [num(r.x!), num(r.z!)]), ...disc]);
          const got = await tab().evaluate(
            ({ seed, pts }) => {
              const w = window as any;
              const p: Float64Array = w.unb64f64(pts);
              const n = p.length / 2;
              const own = w.islandHeight(seed, Math);
              const engine = w.islandHeight(seed, {
                floor: Math.floor,
                sqrt: Math.sqrt,
                exp: w.wasm.engineExp,
                atan2: w.wasm.engineAtan2,
                sin: w.wasm.engineSin,
                cos: w.wasm.engineCos,
                pow: w.wasm.enginePow,
              });
              const t = w.terrains[`seed${seed}`];
              const out = new Float64Array(3 * n);
              for (let i = 0; i < n; i++) {
                out[i] = own(p[2 * i], p[2 * i + 1]);
                out[n + i] = engine(p[2 * i], p[2 * i + 1]);
                out[2 * n + i] = t.getProceduralHeightAt(p[2 * i], p[2 * i + 1]);
              }
              return w.b64(out) as string;
            },
            { seed, pts: f64ToB64(pts) },
          );
          const all = b64ToF64(got);
          const n = pts.length / 2;
          const own = all.subarray(0, n);
          const engine = all.subarray(n, 2 * n);
          const module = all.subarray(2 * n);
          const served = await fetch(`${server.url}/v1/worlds/seed${seed}/heights?mode=procedural`, {
            method: "POST",
            body: pts.buffer as ArrayBuffer,
            headers: { "content-type": "application/octet-stream" },
          });
          assert.equal(served.status, 200);
          const want = new Float64Array(new Uint8Array(await served.arrayBuffer()).buffer);
          same(firstBitDifference(module, want), -1, `${name} seed ${seed}: the module's procedural heights are the server's everywhere`);
          same(firstBitDifference(engine, module), -1, `${name} seed ${seed}: the port with the engine's maths in the page is the module everywhere`);
          let worst = 0;
          for (let i = 0; i < n; i++) {
            if (Object.is(own[i], module[i])) agree++;
            else {
              differ++;
              worst = Math.max(worst, Math.abs(own[i]! - module[i]!));
            }
          }
          points += n;
          console.log(`${name} seed ${seed}: heights with the browser's Math differ from the module's (the server's) at ${n - [...own].filter((v, i) => Object.is(v, module[i])).length} of ${n} points, by at most ${worst.toExponential(2)} m`);
        }
        assert.ok(agree > points * 0.5, `${name}: the same function: ${agree} of ${points} heights agree`);
        assert.ok(differ > 0, `${name}: the browser's Math gives other heights somewhere (${differ} of ${points})`);
      });
    });
  }

  test("(f) both browsers give the same bits", () => {
    const a = fHeights.get("chromium");
    const b = fHeights.get("firefox");
    assert.ok(a && b, "both browsers answered (f)");
    same(firstBitDifference(a, b), -1, "Chromium's heights are Firefox's");
    const hash = (h: Float64Array): string => createHash("sha256").update(h).digest("hex");
    assert.equal(hash(a), hash(b));
  });

  test("no page error, no missing file", () => {
    for (const [name, tab] of tabs) assert.deepEqual(tab.errors, [], `${name}'s page`);
    assert.deepEqual(pages.missing, []);
  });
});
