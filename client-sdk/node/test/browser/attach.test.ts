// terrain-client/web's attachTerrainServer in real browsers (headless Chromium and
// Firefox ESR, test/browser/harness.ts), on the stand-in of the game's TerrainSystem
// (test/standin-terrain.ts: the original's method names and internal calls, maths of its
// own) loaded into the page from its build (dist/test/standin-terrain.js, which imports
// nothing, run with an `exports` object). One real terrain-server, one seed-0 world per
// browser as the traces were made, the page on another origin. In each browser:
//
// (1) the 44 zones of zones_seed0.json PUT by Node over HTTP (the admin token), half
//     before the page attaches and half after, reach the instance's own index in the
//     game's shape; its loaded tiles are regenerated through its own path and carve the
//     cells of carve_seed0.json; every row of trace_seed0.csv answers the original's
//     values bit for bit through the instance's methods and its internal callers
//     (spawner, difficulty biome, biome lookup), and its boss hotspots stand on the
//     replica's ground;
// (2) the game's zones (one registered before attaching, a duel arena registered and
//     unregistered while attached) decide its heights, meshes and index in the page and
//     send nothing to the server: its zone list and revision are unchanged and every
//     request the page made (fetch and XMLHttpRequest, counted in the page) was a GET;
// (3) detach() gives back every method (the same functions), no own property left, the
//     index as it was (the same objects), and the stand-in's own answers.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import type { FlatZone } from "../../src/hyperscape";
import { DATA, gameZones, num, traceRows, traceWorlds } from "../hyperscape-data";
import { TestServer } from "../server";
import { BROWSERS, type BrowserName, PAGE, type StaticServer, type Tab, b64ToF64, f64ToB64, openTab, serveStatic } from "./harness";

const TOKEN = "browser-attach-admin";
const world = (name: BrowserName): string => `attach-${name}`;
const CONFIG = BROWSERS.map((name) => traceWorlds([0]).replace('id = "seed0"', `id = "${world(name)}"`)).join("\n");
/** The game's town, registered by its `init` before attaching (far from the trace). */
const TOWN = { id: "town_page", centerX: 1200, centerZ: -1200, width: 16, depth: 16, height: 31.5, blendRadius: 4 };
/** The duel arena the game registers while attached and unregisters at its shutdown. */
const ARENA = { id: "duel_arena", centerX: 1300, centerZ: 1310, width: 12, depth: 8, height: 55.25, blendRadius: 3, carveInset: 1 };
/** A point the stand-in answers from its own maths (no zone): compared after detach. */
const PLAIN: [number, number] = [512.25, -640.75];

function same(got: unknown, want: unknown, what: string): void {
  assert.ok(Object.is(got, want), `${what}: ${String(got)} (${typeof got}) !== ${String(want)} (${typeof want})`);
}

/** The server's body of a game zone (its mask as `[x, z]` tiles). */
function body(zone: FlatZone): Record<string, unknown> {
  const b: Record<string, unknown> = { centerX: zone.centerX, centerZ: zone.centerZ, width: zone.width, depth: zone.depth, height: zone.height, blendRadius: zone.blendRadius };
  if (zone.carveInset !== undefined) b.carveInset = zone.carveInset;
  if (zone.tileMaskTiles) b.tileMask = zone.tileMaskTiles.map((t) => (Array.isArray(t) ? t : [t.x, t.z]));
  return b;
}

/** PUT by Node (plain HTTP with the admin token): the revision it made. */
async function put(server: TestServer, w: string, zone: FlatZone): Promise<number> {
  const r = await fetch(`${server.url}/v1/worlds/${w}/flat-zones/${encodeURIComponent(zone.id)}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body(zone)),
  });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  return (JSON.parse(text) as { revision: number }).revision;
}

async function listed(server: TestServer, w: string): Promise<{ revision: number; ids: string[] }> {
  const answer = await server.json("GET", `/v1/worlds/${w}/flat-zones`);
  return { revision: answer.revision, ids: answer.zones.map((z: { id: string }) => z.id) };
}

interface CarveTile {
  tile: [number, number];
  index: number;
  carved: [number, number][];
}

describe("terrain-client/web attachTerrainServer in Chromium and Firefox", () => {
  let server: TestServer;
  let pages: StaticServer;
  const tabs = new Map<BrowserName, Tab>();
  const zones = gameZones(0);
  const carve = (JSON.parse(readFileSync(join(DATA, "carve_seed0.json"), "utf8")) as { tiles: CarveTile[] }).tiles;

  before(async () => {
    pages = await serveStatic();
    server = await TestServer.start({ worlds: [], config: CONFIG, args: ["--admin-token", TOKEN, "--cors-origin", pages.origin] });
    for (const name of BROWSERS) {
      const tab = await openTab(name);
      tabs.set(name, tab);
      await tab.goto(`${pages.origin}${PAGE}`);
      await tab.waitFor(() => (window as any).pageReady === true, 60_000);
      const loaded = await tab.evaluate(async () => {
        const w = window as any;
        if (!w.web) throw new Error(`terrain-client/web did not load: ${w.webError}`);
        // The stand-in's build (CommonJS text that requires nothing), run in the page.
        const text = await (await fetch("/dist/test/standin-terrain.js")).text();
        const module = { exports: {} as Record<string, unknown> };
        new Function("exports", "module", "require", text)(module.exports, module, (m: string) => {
          throw new Error(`the stand-in requires ${m}`);
        });
        w.StandIn = module.exports.StandInTerrainSystem;
        // The game-index helpers of the browser build (zonesHeld, indexSnapshot).
        w.gameIndex = await (new Function("s", "return import(s)") as (s: string) => Promise<unknown>)("/dist/game-index.js");
        // Every request the page makes from now on, by method.
        w.requests = [] as string[];
        const fetch0 = w.fetch.bind(w);
        w.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
          const method = init?.method ?? (input instanceof Request ? input.method : "GET");
          w.requests.push(`${method.toUpperCase()} ${input instanceof Request ? input.url : String(input)}`);
          return fetch0(input, init);
        };
        const open0 = XMLHttpRequest.prototype.open;
        XMLHttpRequest.prototype.open = function (this: XMLHttpRequest, method: string, url: string | URL, ...rest: unknown[]) {
          w.requests.push(`${method.toUpperCase()} ${String(url)}`);
          return (open0 as (...a: unknown[]) => void).call(this, method, url, ...rest);
        } as typeof open0;
        return typeof w.StandIn === "function" && typeof w.web.attachTerrainServer === "function" && typeof w.gameIndex.zonesHeld === "function";
      }, null);
      assert.equal(loaded, true, `${name}: the stand-in, the browser's attach and the index helpers load`);
      console.log(`${name} ${tab.version}: page ready`);
    }
  });

  after(async () => {
    for (const tab of tabs.values()) await tab.close().catch(() => undefined);
    await server?.stop();
    await pages?.close();
  });

  for (const name of BROWSERS) {
    describe(name, () => {
      const tab = (): Tab => tabs.get(name)!;
      const w = world(name);

      test("(1) the server's zones enter the instance's index, its tiles carve as the original's, the trace replays through it", async () => {
        const half = 22;
        for (const zone of zones.slice(0, half)) await put(server, w, zone);
        const attached = await tab().evaluate(
          async ({ url, world, tiles, town, plain }) => {
            const g = window as any;
            const system = new g.StandIn([town]);
            system.init();
            system.start();
            for (const [tx, tz] of tiles) system.loadTile(tx, tz);
            system.loadTile(13, 13); // under the duel arena of (2)
            // What (3) compares after detach.
            const s = system as Record<string, unknown>;
            const names = new Set<string>([...Object.getOwnPropertyNames(Object.getPrototypeOf(system)), "getHeightAt", "getHeightAtComputed", "getBiomeAt"]);
            g.saved = {
              methods: new Map([...names].map((n) => [n, s[n]])),
              own: Object.getOwnPropertyNames(system).sort(),
              index: g.gameIndex.indexSnapshot(system),
              plain: system.getHeightAt(plain[0], plain[1]),
              town: g.gameIndex.zonesHeld(system).get("town_page"),
            };
            g.system = system;
            g.attachment = await g.web.attachTerrainServer(system, { url, world });
            return {
              held: [...g.gameIndex.zonesHeld(system).keys()] as string[],
              routed: g.web.ROUTED.filter((n: string) => typeof s[n] === "function" && s[n] !== g.saved.methods.get(n)).length as number,
              own: Object.getOwnPropertyNames(system).length - g.saved.own.length,
            };
          },
          { url: server.url, world: w, tiles: carve.map((t) => t.tile), town: TOWN, plain: PLAIN },
        );
        assert.deepEqual(attached.held, ["town_page", ...zones.slice(0, half).map((z) => z.id)], `${name}: the game's town, then the listed zones in the server's order`);
        same(attached.routed, 14, `${name}: the 14 routed methods shadowed`);
        same(attached.own, 14, `${name}: as own properties`);

        // The other half, PUT by Node while the page is attached.
        let revision = 0;
        for (const zone of zones.slice(half)) revision = await put(server, w, zone);
        const t0 = Date.now();
        await tab().evaluate(({ revision }) => (window as any).attachment.terrain.waitForRevision(revision, 30_000), { revision });
        await tab().waitFor(() => (window as any).gameIndex.zonesHeld((window as any).system).size === 45, 30_000);
        console.log(`${name}: 22 zones PUT by Node after attaching reached the page's index in ${Date.now() - t0} ms (revision ${revision})`);
        const held = await tab().evaluate(() => {
          const g = window as any;
          return [...g.gameIndex.zonesHeld(g.system).values()].map((z: any) => ({
            id: z.id,
            centerX: z.centerX,
            centerZ: z.centerZ,
            width: z.width,
            depth: z.depth,
            height: z.height,
            blendRadius: z.blendRadius,
            hasInset: "carveInset" in z,
            carveInset: z.carveInset ?? null,
            maskIsSet: z.tileMask instanceof Set,
            mask: z.tileMask === undefined ? null : [...z.tileMask].sort(),
            tileMaskTiles: z.tileMaskTiles ?? null,
            tileMaskBounds: z.tileMaskBounds ?? null,
          }));
        }, null);
        assert.deepEqual(held.map((z) => z.id), ["town_page", ...zones.map((z) => z.id)], `${name}: every zone, in the order the server got them`);
        for (const zone of zones) {
          const got = held.find((z) => z.id === zone.id)!;
          for (const k of ["centerX", "centerZ", "width", "depth", "height", "blendRadius"] as const) same(got[k], zone[k], `${name} ${zone.id} ${k}`);
          same(got.hasInset, zone.carveInset !== undefined, `${name} ${zone.id} has carveInset`);
          if (zone.carveInset !== undefined) same(got.carveInset, zone.carveInset, `${name} ${zone.id} carveInset`);
          if (zone.tileMask) {
            same(got.maskIsSet, true, `${name} ${zone.id} tileMask is a Set`);
            assert.deepEqual(got.mask, [...zone.tileMask].sort(), `${name} ${zone.id} tileMask`);
            assert.deepEqual(got.tileMaskTiles, zone.tileMaskTiles, `${name} ${zone.id} tileMaskTiles`);
            assert.deepEqual(got.tileMaskBounds, zone.tileMaskBounds, `${name} ${zone.id} tileMaskBounds`);
          } else {
            same(got.mask, null, `${name} ${zone.id} has no mask`);
          }
        }

        // Regenerated through the game's own path, carved as the original carves, built
        // on the replica's ground.
        const tiles = await tab().evaluate(
          ({ keys }) => {
            const g = window as any;
            const system = g.system;
            const before = system.emitted.length;
            system.update();
            const regenerated = system.emitted.slice(before).filter((e: any) => e.type === "TERRAIN_TILE_REGENERATED").length as number;
            let vertices = 0;
            let off = 0;
            const out = keys.map(([tx, tz]: [number, number]) => {
              const tile = system.getTile(tx, tz);
              const kept = new Set<number>();
              for (let k = 0; k < tile.index.length; k += 6) kept.add(tile.index[k]);
              const carved: [number, number][] = [];
              for (let iz = 0; iz < 63; iz++) for (let ix = 0; ix < 63; ix++) if (!kept.has(ix + 64 * iz)) carved.push([ix, iz]);
              for (let v = 0; v < 64 * 64; v += 97) {
                const wx = tile.positions[3 * v] + tile.x * 100;
                const wz = tile.positions[3 * v + 2] + tile.z * 100;
                vertices++;
                if (!Object.is(tile.heightData[v], Math.fround(g.attachment.terrain.getHeightAt(wx, wz)))) off++;
              }
              return { index: tile.index.length as number, carved };
            });
            return { regenerated, tiles: out, vertices, off };
          },
          { keys: carve.map((t) => t.tile) },
        );
        assert.ok(tiles.regenerated >= carve.length, `${name}: ${tiles.regenerated} tiles regenerated through the game's path`);
        let cells = 0;
        carve.forEach((t, i) => {
          const got = tiles.tiles[i]!;
          same(got.index, t.index, `${name} tile ${t.tile} index length`);
          assert.deepEqual(got.carved, [...t.carved].sort((a, b) => a[1] - b[1] || a[0] - b[0]), `${name} tile ${t.tile} carved cells`);
          cells += got.carved.length;
        });
        assert.ok(cells > 1000, `${cells} cells carved`);
        same(tiles.off, 0, `${name}: of ${tiles.vertices} tile vertices, those not on the replica's ground`);

        // Every trace row through the instance's own methods and its internal callers.
        const { rows } = traceRows(0);
        assert.equal(rows.length, 2700);
        const started = Date.now();
        const BATCH = 500;
        for (let from = 0; from < rows.length; from += BATCH) {
          const batch = rows.slice(from, from + BATCH);
          const pts = new Float64Array(batch.flatMap((r) => [num(r.x!), num(r.z!)]));
          const out = await tab().evaluate(
            ({ pts }) => {
              const g = window as any;
              const s = g.system;
              const p: Float64Array = g.unb64f64(pts);
              const n = p.length / 2;
              const nums = new Float64Array(n * 10);
              const strs: unknown[][] = [];
              for (let i = 0; i < n; i++) {
                const x = p[2 * i]!;
                const z = p[2 * i + 1]!;
                const nm = s.getNormalAt(x, z);
                const info = s.getTerrainInfoAt(x, z);
                const wk = s.isPositionWalkable(x, z);
                const [spawn] = s.spawnCandidates([[x, z]]);
                const d = s.getDifficultyAtWorldPosition(x, z);
                nums.set([s.getHeightAt(x, z), s.getHeightAtComputed(x, z), s.getProceduralHeightAt(x, z), nm.x, nm.y, nm.z, info.height, info.slope, spawn.y, d.difficultyTier], i * 10);
                strs.push([s.isInFlatZone(x, z), wk.walkable, wk.reason ?? "", info.biome, info.underwater, info.walkable, spawn.biome, spawn.ok, d.biome, s.getBiomeAtPosition(x, z), nm === s.normal]);
              }
              return { nums: g.b64(nums) as string, strs };
            },
            { pts: f64ToB64(pts) },
          );
          const nums = b64ToF64(out.nums);
          batch.forEach((r, i) => {
            const at = `${name} (${r.x}, ${r.z})`;
            const v = (k: number): number => nums[i * 10 + k]!;
            same(v(0), num(r.getHeightAt!), `getHeightAt ${at}`);
            same(v(1), num(r.getHeightAt!), `getHeightAtComputed ${at}`);
            same(v(2), num(r.getProceduralHeightAt!), `getProceduralHeightAt ${at}`);
            same(v(3), num(r.normalX!), `normal x ${at}`);
            same(v(4), num(r.normalY!), `normal y ${at}`);
            same(v(5), num(r.normalZ!), `normal z ${at}`);
            same(v(6), num(r.info_height!), `info height ${at}`);
            same(v(7), num(r.info_slope!), `info slope ${at}`);
            same(v(8), num(r.info_height!), `spawner height ${at}`);
            same(v(9), num(r.difficulty_tier!), `difficulty tier ${at}`);
            const [inZone, walkable, reason, biome, underwater, infoWalkable, spawnBiome, spawnOk, dBiome, biomeAt, shared] = out.strs[i]!;
            same(inZone, r.isInFlatZone === "true", `isInFlatZone ${at}`);
            same(walkable, r.walkable === "true", `walkable ${at}`);
            same(reason, r.reason, `reason ${at}`);
            same(biome, r.info_biome, `info biome ${at}`);
            same(underwater, r.info_underwater === "true", `info underwater ${at}`);
            same(infoWalkable, r.info_walkable === "true", `info walkable ${at}`);
            same(spawnBiome, r.info_biome, `spawner biome ${at}`);
            same(spawnOk, r.info_walkable === "true" && r.info_underwater !== "true", `spawner ok ${at}`);
            same(dBiome, r.difficulty_biome, `difficulty biome (the private getBiomeAtWorldPosition) ${at}`);
            same(biomeAt, r.info_biome, `getBiomeAtPosition (the private getBiomeAt) ${at}`);
            same(shared, true, `getNormalAt answers in the instance's own vector ${at}`);
          });
        }
        const hotspots = await tab().evaluate(() => {
          const g = window as any;
          const hs = g.system.getBossHotspots() as { x: number; z: number; y: number }[];
          return { n: hs.length, off: hs.filter((h) => !Object.is(h.y, g.attachment.terrain.getHeightAt(h.x, h.z))).length };
        }, null);
        assert.ok(hotspots.n > 0, `${name}: ${hotspots.n} boss hotspots`);
        same(hotspots.off, 0, `${name}: hotspots off the replica's ground`);
        console.log(`${name}: 2,700 trace rows x 21 answers through the instance equal in ${Date.now() - started} ms; ${carve.length} tiles carve ${cells} cells as the original; ${hotspots.n} hotspots`);
      });

      test("(2) the game's zones stay in the page: nothing is sent to the server", async () => {
        const before = await listed(server, w);
        assert.equal(before.ids.length, 44);
        assert.ok(!before.ids.includes("town_page"), "the town registered before attaching is not on the server");
        const served = await server.heights(w, new Float64Array([ARENA.centerX, ARENA.centerZ]));
        const during = await tab().evaluate(
          ({ arena }) => {
            const g = window as any;
            const s = g.system;
            const sent = g.requests.length;
            g.arena = { ...arena };
            const emitted = s.emitted.length;
            s.registerFlatZone(g.arena);
            const height = s.getHeightAt(arena.centerX, arena.centerZ);
            const inIndex = g.gameIndex.zonesHeld(s).get("duel_arena") === g.arena;
            s.update();
            const regenerated = s.emitted.slice(emitted).filter((e: any) => e.type === "TERRAIN_TILE_REGENERATED").map((e: any) => `${e.data.tileX},${e.data.tileZ}`);
            const tile = s.getTile(13, 13);
            return {
              height,
              inIndex,
              regenerated,
              carvedTriangles: 63 * 63 * 2 - tile.index.length / 3,
              town: s.getHeightAt(1200, -1200),
              townIsGames: g.gameIndex.zonesHeld(s).get("town_page") === g.saved.town,
              attachmentIds: g.attachment.zoneIds() as string[],
              requests: g.requests.length - sent,
            };
          },
          { arena: ARENA },
        );
        same(during.height, ARENA.height, `${name}: the arena decides the instance's height at once`);
        same(during.inIndex, true, `${name}: the game's own arena object in its index`);
        assert.ok(during.regenerated.includes("13,13"), `${name}: its tile regenerated through the game's path (${during.regenerated})`);
        assert.ok(during.carvedTriangles > 0, `${name}: ${during.carvedTriangles} triangles carved under the arena`);
        same(during.town, TOWN.height, `${name}: the town of before attaching decides its height`);
        same(during.townIsGames, true, `${name}: the town is the game's own object`);
        assert.ok(during.attachmentIds.includes("duel_arena") && during.attachmentIds.includes("town_page"));
        same(during.requests, 0, `${name}: requests made by registering`);
        await new Promise((ok) => setTimeout(ok, 300));
        assert.deepEqual(await listed(server, w), before, `${name}: the server's zones and revision unchanged by the page's register`);

        // The game's shutdown: the arena unregistered; still nothing on the server.
        const gone = await tab().evaluate(
          ({ arena }) => {
            const g = window as any;
            const s = g.system;
            const sent = g.requests.length;
            s.unregisterFlatZone("duel_arena");
            return {
              height: s.getHeightAt(arena.centerX, arena.centerZ),
              inIndex: g.gameIndex.zonesHeld(s).has("duel_arena"),
              listed: g.gameIndex.indexSnapshot(s).some(([, , v]: [unknown, unknown, unknown]) => v === g.arena || (Array.isArray(v) && v.includes(g.arena))),
              requests: g.requests.length - sent,
              all: g.requests as string[],
            };
          },
          { arena: ARENA },
        );
        same(gone.height, served.heights[0], `${name}: the server's ground again at the arena's centre`);
        same(gone.inIndex, false, `${name}: the arena out of the index`);
        same(gone.listed, false, `${name}: no cell list left holding it`);
        same(gone.requests, 0, `${name}: requests made by unregistering`);
        await new Promise((ok) => setTimeout(ok, 300));
        assert.deepEqual(await listed(server, w), before, `${name}: the server's zones and revision unchanged by the page's unregister`);
        // Every request the page made since before it attached: GETs, some to the server.
        const toServer = gone.all.filter((r) => r.includes(server.url));
        assert.ok(toServer.length > 0, `${name}: the page's requests to the server were counted (${gone.all.join("; ")})`);
        assert.deepEqual(gone.all.filter((r) => !r.startsWith("GET ")), [], `${name}: requests other than GET`);
        console.log(`${name}: the page's ${gone.all.length} requests (${toServer.length} to the server) all GETs; the server's list of ${before.ids.length} zones at revision ${before.revision} unchanged`);
      });

      test("(3) detach gives back every method, the index as it was and the stand-in's own answers", async () => {
        const r = await tab().evaluate(
          ({ plain }) => {
            const g = window as any;
            const s = g.system as Record<string, any>;
            const attachedHeight = s.getHeightAt(plain[0], plain[1]);
            g.attachment.detach();
            const methods: string[] = [];
            for (const [n, fn] of g.saved.methods as Map<string, unknown>) if (s[n] !== fn) methods.push(n);
            const after = g.gameIndex.indexSnapshot(s) as [unknown, unknown, unknown][];
            const index: string[] = [];
            for (const [m, k, v] of g.saved.index as [unknown, unknown, unknown][]) {
              const found = after.find(([m2, k2]) => m2 === m && k2 === k);
              if (found === undefined) index.push(`${String(k)} missing`);
              else if (Array.isArray(v)) {
                const list = found[2] as unknown[];
                if (list.length !== v.length || v.some((z, j) => list[j] !== z)) index.push(`${String(k)} other objects`);
              } else if (found[2] !== v) index.push(`${String(k)} another object`);
            }
            let closed = false;
            try {
              g.attachment.terrain.getHeightAt(0, 0);
            } catch {
              closed = true;
            }
            return {
              checked: (g.saved.methods as Map<string, unknown>).size,
              methods,
              own: JSON.stringify(Object.getOwnPropertyNames(s).sort()) === JSON.stringify(g.saved.own),
              entries: [after.length, (g.saved.index as unknown[]).length],
              index,
              held: [...g.gameIndex.zonesHeld(s).keys()],
              town: g.gameIndex.zonesHeld(s).get("town_page") === g.saved.town,
              plain: [s.getHeightAt(plain[0], plain[1]), g.saved.plain, attachedHeight],
              closed,
            };
          },
          { plain: PLAIN },
        );
        assert.ok(r.checked >= 40, `${name}: ${r.checked} methods compared`);
        assert.deepEqual(r.methods, [], `${name}: methods not restored`);
        same(r.own, true, `${name}: no own property left behind`);
        same(r.entries[0], r.entries[1], `${name}: as many index entries`);
        assert.deepEqual(r.index, [], `${name}: index entries not as they were`);
        assert.deepEqual(r.held, ["town_page"], `${name}: the server's zones out of the index`);
        same(r.town, true, `${name}: the game's own town object`);
        same(r.plain[0], r.plain[1], `${name}: the stand-in's own height again`);
        assert.ok(!Object.is(r.plain[0], r.plain[2]), `${name}: which is not the replica's (${r.plain[0]} against ${r.plain[2]})`);
        same(r.closed, true, `${name}: the page's replica closed`);
      });
    });
  }

  test("no page error, no missing file", () => {
    for (const [name, tab] of tabs) assert.deepEqual(tab.errors, [], `${name}'s page`);
    assert.deepEqual(pages.missing, []);
  });
});
