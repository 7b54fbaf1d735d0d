// attachTerrainServer against a stand-in of the game's TerrainSystem (test/standin-terrain.ts:
// the original's method names and internal calls, maths of its own). For seeds 0 and 6, a
// server world as the traces were made; the 44 zones of zones_seed{S}.json are PUT over
// HTTP by "another process" (the admin token), half before attaching and half after.
// Then: the zones are in the instance's own index in the game's shape, its loaded tiles
// were regenerated through its own path and carve as carve_seed{S}.json says, and every
// row of trace_seed{S}.csv answers the original's values through the instance's methods
// and through its internal callers (spawner, difficulty, tile builder). Also: zones the
// game registers reach the server with a token and never without one, a refusal is
// withdrawn from the index, and detach gives back every method and the index as it was.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { type FlatZone, HyperscapeTerrain, ROUTED, type TerrainAttachment, attachTerrainServer } from "../src/hyperscape";
import { indexSnapshot, zonesHeld } from "../src/game-index";
import { DATA, gameZones, num, traceRows, traceWorlds, zoneBody } from "./hyperscape-data";
import { TestServer } from "./server";
import { StandInTerrainSystem } from "./standin-terrain";

const SEEDS = [0, 6];
const TOKEN = "attach-admin";

function same(got: unknown, want: unknown, what: string): void {
  assert.ok(Object.is(got, want), `${what}: ${String(got)} (${typeof got}) !== ${String(want)} (${typeof want})`);
}

interface CarveTile {
  tile: [number, number];
  index: number;
  carved: [number, number][];
}

function carveTable(seed: number): CarveTile[] {
  return (JSON.parse(readFileSync(join(DATA, `carve_seed${seed}.json`), "utf8")) as { tiles: CarveTile[] }).tiles;
}

/** PUT by another process (plain HTTP with the admin token): the revision it made. */
async function put(server: TestServer, world: string, zone: FlatZone, token = TOKEN): Promise<number> {
  const r = await fetch(`${server.url}/v1/worlds/${world}/flat-zones/${encodeURIComponent(zone.id)}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(zoneBody(zone)),
  });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  return (JSON.parse(text) as { revision: number }).revision;
}

async function listed(server: TestServer, world: string): Promise<{ revision: number; ids: string[] }> {
  const answer = await server.json("GET", `/v1/worlds/${world}/flat-zones`);
  return { revision: answer.revision, ids: answer.zones.map((z: { id: string }) => z.id) };
}

/** Waits until `check` holds (the attachment's events arrive between tasks). */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 10));
  }
}

/** The carved cells of a tile's index: the cells of 63 x 63 its triangles left out. */
function carvedCells(index: number[]): Set<string> {
  const kept = new Set<string>();
  for (let k = 0; k < index.length; k += 6) {
    const a = index[k]!;
    kept.add(`${a % 64},${Math.floor(a / 64)}`);
  }
  const out = new Set<string>();
  for (let iz = 0; iz < 63; iz++) for (let ix = 0; ix < 63; ix++) if (!kept.has(`${ix},${iz}`)) out.add(`${ix},${iz}`);
  return out;
}

describe("attachTerrainServer on the game's own instance (a stand-in)", () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ worlds: [], config: traceWorlds([...SEEDS, 1]), args: ["--admin-token", TOKEN] });
  });
  after(async () => {
    await server?.stop();
  });

  for (const seed of SEEDS) {
    test(`seed ${seed}: server zones enter the index in the game's shape, tiles carve as the original, the trace replays`, async () => {
      const world = `seed${seed}`;
      const zones = gameZones(seed);
      const half = 22;
      for (const zone of zones.slice(0, half)) await put(server, world, zone);
      const system = new StandInTerrainSystem();
      system.init();
      system.start();
      const carve = carveTable(seed);
      for (const t of carve) system.loadTile(t.tile[0], t.tile[1]);
      const attachment = await attachTerrainServer(system, { url: server.url, world, token: TOKEN });
      try {
        assert.deepEqual([...zonesHeld(system).keys()], zones.slice(0, half).map((z) => z.id), "the listed zones, in the server's order");
        let revision = 0;
        for (const zone of zones.slice(half)) revision = await put(server, world, zone);
        await attachment.terrain.replica.waitForRevision(revision);
        await until(() => zonesHeld(system).size === zones.length, "every zone in the index");
        assert.deepEqual([...zonesHeld(system).keys()], zones.map((z) => z.id), "in the order the server got them");

        // The game's shape: masks as a Set with the list and bounds; carveInset only
        // where the zone has one.
        const held = zonesHeld(system);
        for (const zone of zones) {
          const got = held.get(zone.id)!;
          for (const k of ["centerX", "centerZ", "width", "depth", "height", "blendRadius"] as const) same(got[k], zone[k], `${zone.id} ${k}`);
          assert.equal("carveInset" in got, zone.carveInset !== undefined, `${zone.id} has carveInset`);
          if (zone.carveInset !== undefined) same(got.carveInset, zone.carveInset, `${zone.id} carveInset`);
          if (zone.tileMask) {
            assert.ok(got.tileMask instanceof Set, `${zone.id} tileMask is a Set`);
            assert.deepEqual([...got.tileMask].sort(), [...zone.tileMask].sort(), `${zone.id} tileMask`);
            assert.deepEqual(got.tileMaskTiles, zone.tileMaskTiles, `${zone.id} tileMaskTiles`);
            assert.deepEqual(got.tileMaskBounds, zone.tileMaskBounds, `${zone.id} tileMaskBounds`);
          } else {
            assert.equal(got.tileMask, undefined, `${zone.id} has no mask`);
          }
        }

        // Regenerated through the game's own path, then carved as the original carves.
        const regenerated = () => system.emitted.filter((e) => e.type === "TERRAIN_TILE_REGENERATED").length;
        system.update();
        assert.ok(regenerated() >= carve.length, `${regenerated()} tiles regenerated`);
        let carvedCount = 0;
        for (const t of carve) {
          const tile = system.getTile(t.tile[0], t.tile[1])!;
          assert.equal(tile.index.length, t.index, `tile ${t.tile} index length`);
          assert.deepEqual(carvedCells(tile.index), new Set(t.carved.map(([x, z]) => `${x},${z}`)), `tile ${t.tile} carved cells`);
          carvedCount += t.carved.length;
          // The tile builder stood on the replica's ground.
          for (let v = 0; v < 64 * 64; v += 97) {
            const wx = tile.positions[3 * v]! + tile.x * 100;
            const wz = tile.positions[3 * v + 2]! + tile.z * 100;
            same(tile.heightData[v], Math.fround(attachment.terrain.getHeightAt(wx, wz)), `tile ${t.tile} vertex ${v}`);
          }
        }
        assert.ok(carvedCount > 1000, `${carvedCount} cells carved`);

        // The trace through the instance's own methods and its internal callers.
        const { rows } = traceRows(seed);
        assert.equal(rows.length, 2700);
        const s = system as unknown as Record<string, (...a: number[]) => any>;
        for (const row of rows) {
          const [x, z] = [num(row.x!), num(row.z!)];
          const at = `seed ${seed} (${row.x}, ${row.z})`;
          same(system.getHeightAt(x, z), num(row.getHeightAt!), `${at} getHeightAt`);
          same(s.getHeightAtComputed!(x, z), num(row.getHeightAt!), `${at} getHeightAtComputed`);
          same(system.getProceduralHeightAt(x, z), num(row.getProceduralHeightAt!), `${at} getProceduralHeightAt`);
          const n = system.getNormalAt(x, z);
          same(n.x, num(row.normalX!), `${at} normal x`);
          same(n.y, num(row.normalY!), `${at} normal y`);
          same(n.z, num(row.normalZ!), `${at} normal z`);
          same(system.isInFlatZone(x, z), row.isInFlatZone === "true", `${at} isInFlatZone`);
          const w = system.isPositionWalkable(x, z);
          same(w.walkable, row.walkable === "true", `${at} walkable`);
          same(w.reason ?? "", row.reason, `${at} reason`);
          const info = system.getTerrainInfoAt(x, z);
          same(info.height, num(row.info_height!), `${at} info height`);
          same(info.biome, row.info_biome, `${at} info biome`);
          same(info.slope, num(row.info_slope!), `${at} info slope`);
          same(info.underwater, row.info_underwater === "true", `${at} info underwater`);
          same(info.walkable, row.info_walkable === "true", `${at} info walkable`);
          // Internal callers: the spawner (getTerrainInfoAt), the difficulty (the private
          // getBiomeAtWorldPosition), the biome lookup (the private getBiomeAt).
          const [spawn] = system.spawnCandidates([[x, z]]);
          same(spawn!.y, num(row.info_height!), `${at} spawner height`);
          same(spawn!.biome, row.info_biome, `${at} spawner biome`);
          same(spawn!.ok, row.info_walkable === "true" && row.info_underwater !== "true", `${at} spawner ok`);
          const d = system.getDifficultyAtWorldPosition(x, z);
          same(d.biome, row.difficulty_biome, `${at} difficulty biome`);
          same(d.difficultyTier, num(row.difficulty_tier!), `${at} difficulty tier`);
          same(system.getBiomeAtPosition(x, z), row.info_biome, `${at} getBiomeAtPosition`);
        }
        // The hotspots the game's boss system finds stand on the replica's ground.
        for (const h of system.getBossHotspots()) same(h.y, attachment.terrain.getHeightAt(h.x, h.z), `hotspot (${h.x}, ${h.z})`);
      } finally {
        attachment.detach();
      }
    });
  }

  test("one answer everywhere: a loaded tile no longer changes a point's height", async () => {
    const system = new StandInTerrainSystem();
    const [x, z] = [12.3, -40.7];
    const unloaded = system.getHeightAt(x, z);
    system.loadTile(0, 0);
    assert.notEqual(system.getHeightAt(x, z), unloaded, "the stand-in answers from its stored grid once loaded");
    const attachment = await attachTerrainServer(system, { url: server.url, world: "seed1" });
    try {
      const want = attachment.terrain.replica.heightAt(x, z);
      same(system.getHeightAt(x, z), want, "loaded");
      system.destroy();
      same(system.getHeightAt(x, z), want, "unloaded");
    } finally {
      attachment.detach();
    }
  });

  test("the game's zones: to the server with a token, in the index as the game's own object; a refusal is withdrawn", async () => {
    const town: FlatZone = { id: "town_init", centerX: 150, centerZ: 150, width: 20, depth: 20, height: 31, blendRadius: 4 };
    const system = new StandInTerrainSystem([town]);
    system.init(); // registered before attaching: the server gets it at attach
    system.loadTile(2, 2);
    const attachment = await attachTerrainServer(system, { url: server.url, world: "seed1", token: TOKEN });
    const errors: Error[] = [];
    attachment.on("error", (e: Error) => errors.push(e));
    try {
      const arena: FlatZone = { id: "arena", centerX: 210, centerZ: 190, width: 12, depth: 8, height: 33.25, blendRadius: 3, carveInset: 1 };
      const before = system.emitted.length;
      system.registerFlatZone(arena);
      assert.equal(system.getHeightAt(210, 190), 33.25, "answered at once");
      assert.equal(zonesHeld(system).get("arena"), arena, "the game's own object in its index");
      system.update();
      assert.ok(system.emitted.slice(before).some((e) => e.type === "TERRAIN_TILE_REGENERATED"), "its tile regenerated");
      await attachment.flush();
      const l = await listed(server, "seed1");
      assert.ok(l.ids.includes("arena") && l.ids.includes("town_init"), `server lists ${l.ids}`);
      assert.equal(zonesHeld(system).get("arena"), arena, "still the game's object once committed");
      system.unregisterFlatZone("arena");
      await attachment.flush();
      assert.ok(!(await listed(server, "seed1")).ids.includes("arena"), "removed on the server");
      assert.equal(zonesHeld(system).has("arena"), false);
      assert.deepEqual(errors, []);
    } finally {
      attachment.detach();
    }
    // A token the server refuses: the zone is withdrawn from the replica and the index.
    const refused = new StandInTerrainSystem();
    const bad = await attachTerrainServer(refused, { url: server.url, world: "seed1", token: "not-the-token" });
    const errs: Error[] = [];
    bad.on("error", (e: Error) => errs.push(e));
    try {
      refused.registerFlatZone({ id: "refused", centerX: -150, centerZ: 80, width: 10, depth: 10, height: 40, blendRadius: 2 });
      assert.equal(refused.isInFlatZone(-150, 80), true);
      await bad.flush();
      assert.equal(errs.length, 1, "one error event");
      assert.equal((errs[0] as Error & { zoneId: string }).zoneId, "refused");
      assert.equal(zonesHeld(refused).has("refused"), false, "withdrawn from the index");
      assert.equal(refused.isInFlatZone(-150, 80), false, "withdrawn from the replica");
    } finally {
      bad.detach();
    }
  });

  test("attached before init: the zones init registers go through the routed method", async () => {
    const town: FlatZone = { id: "town_before_init", centerX: -210, centerZ: 30, width: 14, depth: 14, height: 32.5, blendRadius: 3 };
    const system = new StandInTerrainSystem([town]);
    const attachment = await attachTerrainServer(system, { url: server.url, world: "seed1", token: TOKEN });
    try {
      system.init();
      system.start();
      same(system.getHeightAt(-210, 30), 32.5, "answered by the replica at once");
      assert.equal(zonesHeld(system).get("town_before_init"), town, "the game's object in its index");
      await attachment.flush();
      assert.ok((await listed(server, "seed1")).ids.includes("town_before_init"), "committed to the server");
      system.unregisterFlatZone("town_before_init");
      await attachment.flush();
    } finally {
      attachment.detach();
    }
  });

  test("without a token nothing is written to the server", async () => {
    const before = await listed(server, "seed1");
    const system = new StandInTerrainSystem([{ id: "local_town", centerX: -120, centerZ: -120, width: 20, depth: 20, height: 30, blendRadius: 4 }]);
    system.init();
    const attachment = await attachTerrainServer(system, { url: server.url, world: "seed1" });
    const errors: Error[] = [];
    attachment.on("error", (e: Error) => errors.push(e));
    try {
      system.registerFlatZone({ id: "local_arena", centerX: -60, centerZ: 130, width: 10, depth: 10, height: 29.5, blendRadius: 2 });
      assert.equal(system.getHeightAt(-60, 130), 29.5, "the replica has it");
      assert.equal(system.getHeightAt(-120, -120), 30, "and the zone of before attaching");
      system.unregisterFlatZone("local_town");
      await attachment.flush();
      await new Promise((ok) => setTimeout(ok, 200));
      assert.deepEqual(await listed(server, "seed1"), before, "the server's zones and revision unchanged");
      assert.deepEqual(errors, []);
      assert.deepEqual([...zonesHeld(system).keys()].sort(), ["local_arena", ...before.ids].sort());
    } finally {
      attachment.detach();
    }
  });

  test("detach gives back every method and the index as it was", async () => {
    const town: FlatZone = { id: "town_keep", centerX: 40, centerZ: -260, width: 16, depth: 16, height: 28, blendRadius: 4 };
    const system = new StandInTerrainSystem([town]);
    system.init();
    system.loadTile(1, -1);
    const names = new Set<string>([...ROUTED, ...Object.getOwnPropertyNames(StandInTerrainSystem.prototype)]);
    const s = system as unknown as Record<string, unknown>;
    const methods = new Map([...names].map((n) => [n, s[n]]));
    const own = Object.getOwnPropertyNames(system).sort();
    const index = indexSnapshot(system);
    const attachment = await attachTerrainServer(system, { url: server.url, world: "seed1", token: TOKEN });
    await attachment.flush();
    assert.equal(zonesHeld(system).get("town_keep"), town, "the game's town, committed");
    // Another process's version of the game's town displaces its object while attached.
    await attachment.terrain.replica.waitForRevision(await put(server, "seed1", { ...town, height: 35 }));
    await until(() => zonesHeld(system).get("town_keep")?.height === 35, "the server's version in the index");
    same(system.getHeightAt(40, -260), 35, "and in the answers");
    assert.ok(zonesHeld(system).size > 1, "the server's zones entered");
    for (const name of ROUTED) if (name in system) assert.notEqual(s[name], methods.get(name), `${name} routed`);
    attachment.detach();
    for (const [name, fn] of methods) assert.equal(s[name], fn, `${name} restored`);
    assert.deepEqual(Object.getOwnPropertyNames(system).sort(), own, "no property left behind");
    const after = indexSnapshot(system);
    assert.equal(after.length, index.length, "as many index entries");
    for (let i = 0; i < index.length; i++) {
      const [m, k, v] = index[i]!;
      const found = after.find(([m2, k2]) => m2 === m && k2 === k);
      assert.ok(found, `entry ${String(k)} back`);
      if (Array.isArray(v)) {
        assert.equal((found![2] as unknown[]).length, v.length, `${String(k)} list length`);
        v.forEach((z, j) => assert.equal((found![2] as unknown[])[j], z, `${String(k)}[${j}] the same object`));
      } else assert.equal(found![2], v, `${String(k)} the same object`);
    }
    assert.equal(zonesHeld(system).get("town_keep"), town, "the game's own town object");
    assert.ok(HyperscapeTerrain.prototype.CONFIG === undefined);
  });

  test("a zone removed by another process leaves the index, no cell list left holding it", async () => {
    const system = new StandInTerrainSystem();
    const attachment = await attachTerrainServer(system, { url: server.url, world: "seed1" });
    try {
      // Filed under cell 1 by floor((v + 50) / 100); the original's removal clears cell 0.
      const zone: FlatZone = { id: "edge_zone", centerX: 80, centerZ: 80, width: 10, depth: 10, height: 31, blendRadius: 5 };
      await attachment.terrain.replica.waitForRevision(await put(server, "seed1", zone));
      await until(() => zonesHeld(system).has("edge_zone"), "the zone in the index");
      const entered = zonesHeld(system).get("edge_zone")!;
      assert.ok(indexSnapshot(system).some(([, , v]) => Array.isArray(v) && v.includes(entered)), "listed in a cell");
      const r = await fetch(`${server.url}/v1/worlds/seed1/flat-zones/edge_zone`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
      const revision = (JSON.parse(await r.text()) as { revision: number }).revision;
      await attachment.terrain.replica.waitForRevision(revision);
      await until(() => !zonesHeld(system).has("edge_zone"), "the zone out of the index");
      assert.ok(!indexSnapshot(system).some(([, , v]) => v === entered || (Array.isArray(v) && v.includes(entered))), "no list holds it");
      assert.equal(system.isInFlatZone(80, 80), false);
    } finally {
      attachment.detach();
    }
  });

  test("a server that comes back with a fresh history: the index follows the rebuilt replica", async () => {
    const fresh = await TestServer.start({ worlds: [], config: traceWorlds([1]), args: ["--admin-token", TOKEN] });
    const system = new StandInTerrainSystem();
    try {
      await put(fresh, "seed1", { id: "before_restart", centerX: -30, centerZ: 60, width: 8, depth: 8, height: 30, blendRadius: 2 });
      const attachment = await attachTerrainServer(system, { url: fresh.url, world: "seed1" });
      try {
        assert.ok(zonesHeld(system).has("before_restart"));
        await fresh.restartEmpty();
        await put(fresh, "seed1", { id: "after_restart", centerX: 30, centerZ: -60, width: 8, depth: 8, height: 29, blendRadius: 2 });
        await until(() => zonesHeld(system).has("after_restart") && !zonesHeld(system).has("before_restart"), "the rebuilt zones in the index", 60_000);
        assert.deepEqual([...zonesHeld(system).keys()], ["after_restart"]);
      } finally {
        attachment.detach();
      }
    } finally {
      await fresh.stop();
    }
  });

  test("HyperscapeTerrain: CONFIG.TILE_SIZE and getBiomeAtWorldPosition", async () => {
    for (const seed of SEEDS) {
      const t = await HyperscapeTerrain.open(server.url, `seed${seed}`);
      try {
        assert.equal(t.CONFIG.TILE_SIZE, 100);
        const { rows } = traceRows(seed);
        for (const row of rows) same(t.getBiomeAtWorldPosition(num(row.x!), num(row.z!)), row.difficulty_biome, `seed ${seed} (${row.x}, ${row.z})`);
        same(t.getBiomeAtWorldPosition(Number.NaN, 0), "plains", "NaN");
      } finally {
        t.close();
      }
    }
  });
});

export type { TerrainAttachment };
