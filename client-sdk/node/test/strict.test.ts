// The package is as strict as the server: what the server refuses, LocalTerrain and the
// Hyperscape adapter refuse too, at once, with the server's words and field. A walk grid
// over the server's batch limit (`walk-grid` answers 413) is refused before any tile is
// computed; every public method refuses an argument of the wrong type (a string, null,
// a BigInt, an object) with a TypeError naming it, never V8's conversion error or an
// error without a message; the game's towns are held to the server's `towns` rule (at
// most 256, finite centres, radii above 0); a zone's `walkable` must be a boolean and
// reaches the server; `unregisterFlatZone` of a non-string id throws; a zone's mask
// error names the field as the server's answer does, with no parser position.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { HyperscapeTerrain } from "../src/hyperscape";
import type { FlatZone } from "../src/hyperscape";
import { LocalTerrain, MAX_TOWNS, MAX_WALK_GRID_TILES } from "../src/index";
import { traceWorlds } from "./hyperscape-data";
import { TestServer } from "./server";

const WORLD = "seed0";
const TOKEN = "strict-admin";

/** Asserts `f` throws a `kind` naming `field` (`e.field`, and the message names it). */
function refuses(f: () => unknown, kind: ErrorConstructor | TypeErrorConstructor | RangeErrorConstructor, field: string, what: string): Error {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof kind, `${what}: expected a ${kind.name}, got ${caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught)}`);
  const e = caught as Error & { field?: string };
  assert.equal(e.field, field, `${what}: the field of ${JSON.stringify(e.message)}`);
  assert.ok(typeof e.message === "string" && e.message.includes(`${field}: `), `${what}: the message names ${field}: ${e.message}`);
  return e;
}

/** The server's error answer to a request: status, code, field and message. */
async function serverError(server: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; field: string; message: string }> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(60_000) };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, "content-type": "application/json" };
  }
  const r = await fetch(`${server.url}${path}`, init);
  const text = await r.text();
  const error = (JSON.parse(text) as { error: { field: string; message: string } }).error;
  return { status: r.status, field: error.field, message: error.message };
}

/** Values of the wrong type for a number argument. */
const NOT_NUMBERS: unknown[] = ["12", null, 12n, {}, [1], true];

describe("the package refuses what the server refuses", () => {
  let server: TestServer;
  let replica: LocalTerrain;
  let terrain: HyperscapeTerrain;
  const errors: Error[] = [];
  before(async () => {
    server = await TestServer.start({ worlds: [], config: traceWorlds([0]), args: ["--admin-token", TOKEN] });
    replica = await LocalTerrain.open(server.url, WORLD);
    terrain = await HyperscapeTerrain.open(server.url, WORLD, { token: TOKEN });
    terrain.on("error", (e: Error) => errors.push(e));
  });
  after(async () => {
    replica?.close();
    terrain?.close();
    await server?.stop();
  });

  test("a walk grid over the server's batch limit is refused at once, in the server's words", async () => {
    const answer = await serverError(server, "GET", `/v1/worlds/${WORLD}/walk-grid?minTileX=0&minTileZ=0&width=4096&depth=4096`);
    assert.equal(answer.status, 413);
    for (const [name, grid] of [
      ["LocalTerrain", (x: number, z: number, w: number, d: number) => replica.walkGrid(x, z, w, d)],
      ["HyperscapeTerrain", (x: number, z: number, w: number, d: number) => terrain.walkGrid(x, z, w, d)],
    ] as const) {
      const started = performance.now();
      const e = refuses(() => grid(0, 0, 4096, 4096), RangeError, answer.field, `${name}.walkGrid 4096 x 4096`);
      const took = performance.now() - started;
      assert.equal(e.message, answer.message, `${name}: the server's message`);
      assert.ok(took < 100, `${name}: refused in ${took.toFixed(1)} ms, before any tile is computed`);
      // Just over the limit too (the server's default batch limit is the replica's).
      refuses(() => grid(0, 0, 1001, 1000), RangeError, "width", `${name}.walkGrid 1001 x 1000`);
    }
    assert.equal(MAX_WALK_GRID_TILES, 1_000_000);
    const justOver = await serverError(server, "GET", `/v1/worlds/${WORLD}/walk-grid?minTileX=0&minTileZ=0&width=1001&depth=1000`);
    assert.equal(justOver.status, 413, "the server refuses 1001 x 1000 as well");
    // At the limit: answered, by both.
    assert.equal(replica.walkGrid(-500, -500, 1000, 1000).length, 1_000_000);
  });

  test("every public method refuses an argument of the wrong type with a TypeError naming it", async () => {
    const zone: FlatZone = { id: "t", centerX: 0, centerZ: 0, width: 4, depth: 4, height: 20, blendRadius: 1 };
    // [what, call with `v` in the argument's place, the argument's name]
    const cases: [string, (v: any) => unknown, string][] = [
      ["getHeightAt x", (v) => terrain.getHeightAt(v, 0), "x"],
      ["getHeightAt z", (v) => terrain.getHeightAt(0, v), "z"],
      ["getHeightAtPosition", (v) => terrain.getHeightAtPosition(v, 0), "x"],
      ["getProceduralHeightAt", (v) => terrain.getProceduralHeightAt(0, v), "z"],
      ["getNormalAt x", (v) => terrain.getNormalAt(v, 0), "x"],
      ["getNormalAt z", (v) => terrain.getNormalAt(0, v), "z"],
      ["isInFlatZone", (v) => terrain.isInFlatZone(v, 0), "x"],
      ["getFlatZoneAt", (v) => terrain.getFlatZoneAt(0, v), "z"],
      ["isPositionWalkable", (v) => terrain.isPositionWalkable(v, 0), "x"],
      ["isTileWalkable", (v) => terrain.isTileWalkable(0, v), "z"],
      ["getTerrainInfoAt", (v) => terrain.getTerrainInfoAt(v, 0), "x"],
      ["findWalkablePath", (v) => terrain.findWalkablePath(0, 0, 5, v), "endZ"],
      ["getBiomeAtPosition", (v) => terrain.getBiomeAtPosition(v, 0), "x"],
      ["getDifficultyAtWorldPosition x", (v) => terrain.getDifficultyAtWorldPosition(v, 0), "x"],
      ["getDifficultyAtWorldPosition z", (v) => terrain.getDifficultyAtWorldPosition(0, v), "z"],
      ["isPhysicsReadyAt", (v) => terrain.isPhysicsReadyAt(v, 0), "x"],
      ["walkGrid", (v) => terrain.walkGrid(0, 0, v, 4), "width"],
      ["registerFlatZone width", (v) => terrain.registerFlatZone({ ...zone, width: v }), "width"],
      ["registerFlatZone centerX", (v) => terrain.registerFlatZone({ ...zone, centerX: v }), "centerX"],
      ["registerFlatZone blendRadius", (v) => terrain.registerFlatZone({ ...zone, blendRadius: v }), "blendRadius"],
      ["LocalTerrain.heightAt", (v) => replica.heightAt(v, 0), "x"],
      ["LocalTerrain.surfaceHeightAt", (v) => replica.surfaceHeightAt(0, v), "z"],
      ["LocalTerrain.terrainInfo", (v) => replica.terrainInfo(v, 0), "x"],
      ["LocalTerrain.zoneAt", (v) => replica.zoneAt(0, v), "z"],
      ["LocalTerrain.findPath", (v) => replica.findPath(0, 0, v, 0), "toX"],
      ["LocalTerrain.findPath maxNodes", (v) => replica.findPath(0, 0, 1, 0, { maxNodes: v }), "maxNodes"],
      ["LocalTerrain.walkGrid", (v) => replica.walkGrid(v, 0, 4, 4), "minTileX"],
      ["LocalTerrain.heights", (v) => replica.heights(v), "points"],
      ["LocalTerrain.surfaceHeights", (v) => replica.surfaceHeights(v), "points"],
      ["LocalTerrain.terrainInfos", (v) => replica.terrainInfos(v), "points"],
      ["LocalTerrain.checkPath", (v) => replica.checkPath(v), "points"],
      ["LocalTerrain.waitForRevision", (v) => replica.waitForRevision(v), "revision"],
    ];
    for (const [what, call, field] of cases) {
      for (const v of NOT_NUMBERS) {
        // null is no number either, except where a method takes it (none of these).
        const e = refuses(() => call(v), TypeError, field, `${what}(${typeof v === "bigint" ? `${v}n` : JSON.stringify(v)})`);
        assert.doesNotMatch(e.message, /undefined$|Cannot convert|Cannot mix BigInt/, what);
      }
    }
    // The probe's own findings, as they were reported.
    assert.match(refuses(() => terrain.getNormalAt("12" as any, 0), TypeError, "x", "getNormalAt").message, /^\[TerrainSystem\] getNormalAt: x: expected a number, got string "12"$/);
    assert.match(refuses(() => terrain.getNormalAt(null as any, 0), TypeError, "x", "getNormalAt").message, /x: expected a number, got null$/);
    assert.match(refuses(() => terrain.getHeightAt(1n as any, 0), TypeError, "x", "getHeightAt").message, /x: expected a number, got bigint 1n$/);
    // Strings where strings are taken.
    refuses(() => terrain.unregisterFlatZone(undefined as any), TypeError, "id", "unregisterFlatZone(undefined)");
    refuses(() => terrain.unregisterFlatZone(7 as any), TypeError, "id", "unregisterFlatZone(7)");
    refuses(() => terrain.registerFlatZone({ ...zone, id: 7 as any }), TypeError, "id", "registerFlatZone id 7");
    refuses(() => replica.checkPath(new Float64Array([0, 0, 1, 1]), 3 as any), TypeError, "mode", "checkPath mode 3");
    await assert.rejects(HyperscapeTerrain.open(server.url, 5 as any), (e: Error & { field?: string }) => e instanceof TypeError && e.field === "world");
    await assert.rejects(LocalTerrain.open(server.url, WORLD, { connectTimeoutMs: "5" as any }), (e: Error & { field?: string }) => e instanceof TypeError && e.field === "connectTimeoutMs");
    refuses(() => LocalTerrain.offline(1 as any, "[]"), TypeError, "world", "offline(1)");
    refuses(() => HyperscapeTerrain.wrap({} as any), TypeError, "replica", "wrap({})");
    refuses(() => HyperscapeTerrain.wrap(replica, { collision: {} as any }), TypeError, "collision", "wrap collision {}");
    await assert.rejects(terrain.flush("1" as any), (e: Error & { field?: string }) => e instanceof TypeError && e.field === "timeoutMs");
    // The original's own answers for numbers it takes stay: NaN is a number.
    assert.equal(terrain.isInFlatZone(Number.NaN, 0), false);
    assert.equal(terrain.getDifficultyAtWorldPosition(100, 100, null as any).isSafe, true, "the original's null tier");
    refuses(() => terrain.getDifficultyAtWorldPosition(100, 100, "3" as any), TypeError, "overrideDifficultyLevel", "tier \"3\"");
  });

  test("the game's towns are held to the server's towns rule", () => {
    const before = terrain.getDifficultyAtWorldPosition(200, 150);
    refuses(() => terrain.setTowns("x" as any), TypeError, "towns", "setTowns(\"x\")");
    refuses(() => terrain.setTowns([5] as any), TypeError, "towns[0]", "setTowns([5])");
    refuses(() => terrain.setTowns([{ x: 0, z: "1", radius: 5 }] as any), TypeError, "towns[0].z", "a string z");
    refuses(() => terrain.setTowns([{ position: { x: 0, z: 0 }, safeZoneRadius: 1n }] as any), TypeError, "towns[0].safeZoneRadius", "a BigInt radius");
    const town = { x: 200, z: 150, radius: 40 };
    const many = new Array(100_000).fill(town);
    const e = refuses(() => terrain.setTowns(many), RangeError, "towns", "100,000 towns");
    assert.match(e.message, /100000 towns exceed the limit of 256$/);
    assert.equal(MAX_TOWNS, 256);
    refuses(() => terrain.setTowns(new Array(MAX_TOWNS + 1).fill(town)), RangeError, "towns", "257 towns");
    refuses(() => terrain.setTowns([town, { x: 0, z: 0, radius: 0 }]), RangeError, "towns[1].radius", "a radius of 0");
    refuses(() => terrain.setTowns([{ x: Number.NaN, z: 0, radius: 5 }]), RangeError, "towns[0].x", "a NaN x");
    refuses(() => terrain.setTowns([{ position: { x: 0, z: Number.POSITIVE_INFINITY }, safeZoneRadius: 5 }]), RangeError, "towns[0].position.z", "an infinite z");
    refuses(() => terrain.setTowns([{ position: { x: 0, z: 0 }, safeZoneRadius: -1 }]), RangeError, "towns[0].safeZoneRadius", "a negative radius");
    assert.deepEqual(terrain.getDifficultyAtWorldPosition(200, 150), before, "a refused list changes nothing");
    // As many as a world may list: taken.
    terrain.setTowns(new Array(MAX_TOWNS).fill(town));
    assert.equal(terrain.getDifficultyAtWorldPosition(200, 150).isSafe, true);
    terrain.setTowns(null);
    assert.deepEqual(terrain.getDifficultyAtWorldPosition(200, 150), before);
  });

  test("a zone's walkable is a boolean and reaches the server; a mask error names its field without a parser position", async () => {
    const zone: FlatZone = { id: "gate", centerX: 300, centerZ: 300, width: 6, depth: 6, height: 40, blendRadius: 2 };
    const yes = { ...zone, walkable: "yes" } as unknown as FlatZone;
    refuses(() => terrain.registerFlatZone(yes), TypeError, "walkable", "walkable \"yes\"");
    // The server refuses the same body naming `walkable`.
    const body = { centerX: 300, centerZ: 300, width: 6, depth: 6, height: 40, blendRadius: 2, walkable: "yes" };
    const refusedThere = await serverError(server, "PUT", `/v1/worlds/${WORLD}/flat-zones/gate`, body);
    assert.deepEqual([refusedThere.status, refusedThere.field], [400, "walkable"]);
    assert.equal(terrain.isInFlatZone(300, 300), false, "nothing registered");

    // walkable: false is kept, here and at the server.
    terrain.registerFlatZone({ ...zone, walkable: false });
    assert.deepEqual(terrain.isPositionWalkable(300.5, 300.5), { walkable: false, reason: "A structure blocks movement" });
    await terrain.flush();
    const stored = (await server.json("GET", `/v1/worlds/${WORLD}/flat-zones/gate`)) as { zone: { walkable?: boolean } };
    assert.equal(stored.zone.walkable, false, `the server has the flag: ${JSON.stringify(stored)}`);
    assert.equal(terrain.getFlatZoneAt(300, 300)?.walkable, false);
    terrain.unregisterFlatZone("gate");
    await terrain.flush();
    assert.deepEqual(errors, []);

    // A mask the server refuses: the same field and words, no `at line 1 column N`.
    for (const tiles of [[[1e12, 1]], [[0, 2 ** 62]]] as [number, number][][]) {
      const masked = { ...zone, id: "masked", tileMaskTiles: tiles };
      const e = refuses(() => terrain.registerFlatZone(masked), RangeError, "tileMask", `mask ${JSON.stringify(tiles)}`);
      assert.doesNotMatch(e.message, /line \d+ column \d+/);
      const there = await serverError(server, "PUT", `/v1/worlds/${WORLD}/flat-zones/masked`, {
        centerX: 300,
        centerZ: 300,
        width: 6,
        depth: 6,
        height: 40,
        blendRadius: 2,
        tileMask: tiles,
      });
      assert.equal(there.field, "tileMask");
      assert.ok(e.message.endsWith(`: invalid ${there.message}`), `${e.message} against the server's ${there.message}`);
      assert.doesNotMatch(there.message, /line \d+ column \d+/, "the server's own message");
    }
  });
});
