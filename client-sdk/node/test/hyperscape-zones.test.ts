// The Hyperscape adapter's zones against a real server: a zone registered through the
// adapter decides heights in this process at once (before any round trip), reaches
// the server with its tile mask and a second replica through its events; a zone the
// server refuses is withdrawn with an `error` event saying why; removals likewise;
// zones registered by other processes arrive through the replica's events; heights and
// walkability kept per tile block are dropped exactly where zones changed. And the
// rest of the original's surface: its throws, isTileWalkable's collision matrix,
// difficulty's towns and tier, the methods not provided.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { HyperscapeTerrain, NOT_PROVIDED, ZoneCommitError } from "../src/hyperscape";
import type { FlatZone } from "../src/hyperscape";
import { internals } from "../src/native";
import { TestServer, firstBitDifference } from "./server";
import { traceWorlds } from "./hyperscape-data";

const WORLD = "seed0";
const TOKEN = "zones-admin";

/** `n x n` tile centres from tile `(x0, z0)`, and as many points in between. */
function area(x0: number, z0: number, n: number): Float64Array {
  const out = new Float64Array(4 * n * n);
  let k = 0;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      out[k++] = x0 + i + 0.5;
      out[k++] = z0 + j + 0.5;
      out[k++] = x0 + i + 0.25 + 0.37 * ((i * 7 + j * 3) % 5) / 5;
      out[k++] = z0 + j + 0.125 + 0.61 * ((i * 3 + j * 11) % 7) / 7;
    }
  }
  return out;
}

function heightsOf(t: HyperscapeTerrain, points: Float64Array): Float64Array {
  const out = new Float64Array(points.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = t.getHeightAt(points[2 * i]!, points[2 * i + 1]!);
  return out;
}

function assertSameBits(a: Float64Array, b: Float64Array, what: string): void {
  const at = firstBitDifference(a, b);
  assert.equal(at, -1, `${what}: first difference at ${at}: ${a[at]} != ${b[at]}`);
}

/** Every answer the adapter keeps per tile block (heights and walkability at tile
 * centres, walkGrid) equals the addon's point answer computed on the spot. */
function assertBlocksExact(t: HyperscapeTerrain, x0: number, z0: number, n: number, what: string): void {
  const { fast, handle, height } = internals(t.replica);
  const grid = t.walkGrid(x0, z0, n, n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const x = x0 + i + 0.5;
      const z = z0 + j + 0.5;
      const h = height(x, z);
      assert.ok(Object.is(t.getHeightAt(x, z), h), `${what}: height at (${x}, ${z})`);
      const code = fast.hsBlocked(handle, x, z);
      assert.equal(t.isPositionWalkable(x, z).walkable, code === 0, `${what}: walkable at (${x}, ${z})`);
      const f = grid[j * n + i]!;
      assert.equal((f & 1) !== 0, code === 0, `${what}: walkGrid at (${x}, ${z})`);
      assert.equal((f & 2) !== 0, code === 1, `${what}: water at (${x}, ${z})`);
      assert.equal((f & 4) !== 0, code === 2, `${what}: steep at (${x}, ${z})`);
    }
  }
}

/** Reads the tile centres of `n x n` tiles enough times for their blocks to be kept. */
function warm(t: HyperscapeTerrain, x0: number, z0: number, n: number): void {
  for (let r = 0; r < 3; r++) {
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) t.isPositionWalkable(x0 + i + 0.5, z0 + j + 0.5);
  }
}

/** An L-shaped building footprint inside a 20 x 16 rectangle centred on (120, -80). */
function building(id: string, height: number): FlatZone {
  const tiles: { x: number; z: number }[] = [];
  for (let x = 112; x < 126; x++) for (let z = -86; z < -80; z++) tiles.push({ x, z });
  for (let x = 112; x < 118; x++) for (let z = -80; z < -74; z++) tiles.push({ x, z });
  return {
    id,
    centerX: 120,
    centerZ: -80,
    width: 20,
    depth: 16,
    height,
    blendRadius: 4,
    carveInset: 1,
    tileMask: new Set(tiles.map((t) => `${t.x},${t.z}`)),
    tileMaskTiles: tiles,
    tileMaskBounds: { minX: 112, maxX: 125, minZ: -86, maxZ: -75 },
  };
}

describe("HyperscapeTerrain's zones against a real server", () => {
  let server: TestServer;
  let a: HyperscapeTerrain;
  let b: HyperscapeTerrain;
  const errors: Error[] = [];
  before(async () => {
    // A second world with towns of its own (the difficulty's), as the server lists them.
    const towned = `[[worlds]]\nid = "towned"\ngenerator = "hyperscape"\nseed = 0\noverlap = "hyperscape"\nwalkability = "hyperscape"\ntowns = [{ x = 400, z = -250, radius = 40 }, { x = -150, z = 120, radius = 30 }]\n`;
    server = await TestServer.start({ worlds: [], config: `${traceWorlds([0])}\n${towned}`, args: ["--admin-token", TOKEN, "--max-zone-size", "60"] });
    a = await HyperscapeTerrain.open(server.url, WORLD, { token: TOKEN });
    a.on("error", (e: Error) => errors.push(e));
    b = await HyperscapeTerrain.open(server.url, WORLD);
  });
  after(async () => {
    a?.close();
    b?.close();
    await server?.stop();
  });

  test("a zone registered here decides heights at once, reaches the server with its mask and a second replica", async () => {
    const points = area(100, -100, 40);
    const before = heightsOf(a, points);
    assertSameBits(heightsOf(b, points), before, "both replicas agree before");
    const revision = a.revision;
    const zone = building("hall", 31.5);
    a.registerFlatZone(zone);
    // Synchronously, before the server has answered: this process has the zone.
    assert.equal(a.revision, revision, "the server has not answered yet");
    assert.equal(a.getHeightAt(113.5, -84.5), 31.5);
    assert.equal(a.isInFlatZone(113.5, -84.5), true);
    assert.equal(a.getFlatZoneAt(113.5, -84.5), zone, "the game's own object");
    // The notch of the L (inside the rectangle, off the mask, beyond the blend) is plain ground.
    assert.equal(a.isInFlatZone(124.5, -75.5), b.isInFlatZone(124.5, -75.5));
    assertSameBits(heightsOf(b, points), before, "the second replica has not heard yet");
    assert.notEqual(firstBitDifference(heightsOf(a, points), before), -1, "the zone changed heights here");

    await a.flush();
    assert.deepEqual(errors, []);
    const { zone: stored } = await server.json("GET", `/v1/worlds/${WORLD}/flat-zones/hall`);
    assert.equal(stored.height, 31.5);
    assert.deepEqual(new Set((stored.tileMask as [number, number][]).map(([x, z]) => `${x},${z}`)), zone.tileMask);
    assert.ok(a.revision >= stored.revision);
    const served = await server.heights(WORLD, points);
    assert.equal(served.revision, a.revision);
    assertSameBits(heightsOf(a, points), served.heights, "this replica, once the server's revision arrived");
    assert.equal(a.getFlatZoneAt(113.5, -84.5), zone, "still the game's own object");

    await b.replica.waitForRevision(served.revision);
    assertSameBits(heightsOf(b, points), served.heights, "the second replica");
    const there = b.getFlatZoneAt(113.5, -84.5)!;
    assert.notEqual(there, zone);
    assert.deepEqual(
      [there.id, there.centerX, there.centerZ, there.width, there.depth, there.height, there.blendRadius, there.carveInset, there.tileMask],
      [zone.id, zone.centerX, zone.centerZ, zone.width, zone.depth, zone.height, zone.blendRadius, zone.carveInset, zone.tileMask],
    );
    assert.deepEqual(there.tileMaskBounds, zone.tileMaskBounds);
    assertBlocksExact(a, 100, -100, 40, "kept blocks after the zone");
  });

  test("a zone the server refuses is withdrawn here, and an error event says why", async () => {
    const points = area(-200, 150, 30);
    const before = heightsOf(a, points);
    warm(a, -200, 150, 30);
    // Within the adapter's own limits, over the server's --max-zone-size 60.
    a.registerFlatZone({ id: "too_wide", centerX: -185, centerZ: 165, width: 80, depth: 10, height: 40, blendRadius: 2 });
    assert.equal(a.getHeightAt(-185, 165), 40, "decided here at once");
    await a.flush();
    assert.equal(errors.length, 1);
    const e = errors.pop()!;
    assert.ok(e instanceof ZoneCommitError);
    assert.equal(e.zoneId, "too_wide");
    assert.equal(e.operation, "register");
    assert.equal(e.status, 400);
    assert.equal(e.field, "width");
    assert.match(e.message, /registerFlatZone "too_wide": the terrain server refused it \(HTTP 400\).*width.*withdrawn/);
    assertSameBits(heightsOf(a, points), before, "withdrawn");
    assert.equal(a.isInFlatZone(-185, 165), false);
    assertBlocksExact(a, -200, 150, 30, "kept blocks after the withdrawal");
    await assert.rejects(server.json("GET", `/v1/worlds/${WORLD}/flat-zones/too_wide`), /404/);

    // No token: 401. Without an error listener, a process warning.
    const anonymous = await HyperscapeTerrain.open(server.url, WORLD);
    const warned = new Promise<Error>((ok) => process.once("warning", ok));
    anonymous.registerFlatZone({ id: "nobody", centerX: -185, centerZ: 165, width: 10, depth: 10, height: 40, blendRadius: 2 });
    assert.equal(anonymous.getHeightAt(-185, 165), 40);
    await anonymous.flush();
    const warning = (await warned) as ZoneCommitError;
    assert.equal(warning.status, 401);
    assert.equal(anonymous.isInFlatZone(-185, 165), false);
    anonymous.close();
  });

  test("a zone that cannot reach the server is withdrawn after five attempts", async () => {
    const listed = await server.json("GET", "/v1/worlds");
    const info = (listed.worlds as { id: string }[]).find((w) => w.id === WORLD);
    const { LocalTerrain } = await import("../src/index");
    const offline = LocalTerrain.offline(JSON.stringify(info), "[]");
    // Port 1: nothing listens there, every attempt is refused at once.
    const lonely = HyperscapeTerrain.wrap(offline, { url: "http://127.0.0.1:1", token: TOKEN });
    const seen: ZoneCommitError[] = [];
    lonely.on("error", (e: ZoneCommitError) => seen.push(e));
    lonely.registerFlatZone({ id: "island_hut", centerX: 5, centerZ: 5, width: 4, depth: 4, height: 33, blendRadius: 1 });
    assert.equal(lonely.getHeightAt(5, 5), 33);
    await lonely.flush();
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.status, 0);
    assert.match(seen[0]!.message, /could not be reached.*withdrawn/);
    assert.notEqual(lonely.getHeightAt(5, 5), 33);
    // Without a URL, zone changes stay in the process.
    const local = HyperscapeTerrain.wrap(LocalTerrain.offline(JSON.stringify(info), "[]"));
    local.registerFlatZone({ id: "island_hut", centerX: 5, centerZ: 5, width: 4, depth: 4, height: 33, blendRadius: 1 });
    await local.flush();
    assert.equal(local.getHeightAt(5, 5), 33);
    lonely.close();
    local.close();
  });

  test("unregisterFlatZone removes here at once, then on the server and in other replicas", async () => {
    const points = area(100, -100, 40);
    const served = await server.heights(WORLD, points);
    a.unregisterFlatZone("hall");
    assert.equal(a.isInFlatZone(113.5, -84.5), false, "at once");
    assert.equal(a.getFlatZoneAt(113.5, -84.5), null);
    a.unregisterFlatZone("no_such_zone"); // ignored, as the original ignores it
    await a.flush();
    assert.deepEqual(errors, []);
    await assert.rejects(server.json("GET", `/v1/worlds/${WORLD}/flat-zones/hall`), /404/);
    const after = await server.heights(WORLD, points);
    assertSameBits(heightsOf(a, points), after.heights, "this replica");
    assert.notEqual(firstBitDifference(after.heights, served.heights), -1);
    await b.replica.waitForRevision(after.revision);
    assertSameBits(heightsOf(b, points), after.heights, "the second replica");
    assertBlocksExact(a, 100, -100, 40, "kept blocks after the removal");
  });

  test("zones of other processes arrive through events; kept blocks are dropped exactly where they changed", async () => {
    const changes: { zone?: string; kind: string }[] = [];
    a.on("change", (e: { zone?: string; kind: string }) => changes.push(e));
    const { tiles } = internals(a.replica);
    warm(a, -64, -64, 64); // near the zone below
    warm(a, 256, 256, 64); // far from it
    const takenBefore = tiles.taken;
    warm(a, 256, 256, 64);
    assert.equal(tiles.taken, takenBefore, "kept blocks are read, not taken again");
    const put = await fetch(`${server.url}/v1/worlds/${WORLD}/flat-zones/pad`, {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ centerX: -30, centerZ: -30, width: 12, depth: 12, height: 35, blendRadius: 3 }),
    }).then((r) => r.json() as Promise<{ revision: number }>);
    await a.replica.waitForRevision(put.revision);
    assert.equal(a.getHeightAt(-30, -30), 35);
    warm(a, 256, 256, 64);
    assert.equal(tiles.taken, takenBefore, "blocks far from the zone were kept");
    assertBlocksExact(a, -64, -64, 64, "blocks around the zone");
    assert.ok(tiles.taken > takenBefore, "blocks around the zone were taken again");
    const points = area(-64, -64, 64);
    assertSameBits(heightsOf(a, points), (await server.heights(WORLD, points)).heights, "the server's heights");
    // The event reaches the listener on its own turn of the event loop: wait for it (at most 10 s).
    const seen = (): boolean => changes.some((c) => c.zone === "pad" && c.kind === "registered");
    for (const until = Date.now() + 10_000; !seen() && Date.now() < until; ) await new Promise((ok) => setTimeout(ok, 10));
    assert.ok(seen(), JSON.stringify(changes));
    a.removeAllListeners("change");
  });

  test("arguments are refused where and as the original refuses them, naming the field", () => {
    const zone = (over: Partial<FlatZone>): FlatZone => ({ id: "z", centerX: 0, centerZ: 0, width: 4, depth: 4, height: 20, blendRadius: 1, ...over });
    const refused = (z: unknown, message: RegExp, field: string): void => {
      assert.throws(
        () => a.registerFlatZone(z as FlatZone),
        (e: Error & { field?: string }) => message.test(e.message) && e.field === field,
        `${JSON.stringify(z)}`,
      );
    };
    refused(undefined, /^\[TerrainSystem\] registerFlatZone: invalid zone id: undefined$/, "id");
    refused(zone({ id: "" }), /invalid zone id/, "id");
    refused(zone({ centerX: Number.NaN }), /^\[TerrainSystem\] registerFlatZone "z": invalid center \(NaN, 0\)$/, "centerX");
    refused(zone({ centerZ: Number.POSITIVE_INFINITY }), /invalid center \(0, Infinity\)$/, "centerZ");
    refused(zone({ width: 0 }), /^\[TerrainSystem\] registerFlatZone "z": invalid width 0$/, "width");
    refused(zone({ depth: -1 }), /invalid depth -1$/, "depth");
    refused(zone({ height: Number.NaN }), /invalid height NaN$/, "height");
    refused(zone({ blendRadius: -2 }), /invalid blendRadius -2$/, "blendRadius");
    // What the server would refuse too, before anything changes here.
    refused(zone({ id: "bad id!" }), /registerFlatZone "bad id!": invalid id: /, "id");
    refused(zone({ carveInset: -1 }), /invalid carveInset: /, "carveInset");
    refused(zone({ tileMaskTiles: [{ x: 50, z: 0 }] }), /invalid tileMask: /, "tileMask");
    refused(zone({ tileMask: new Set(["0,0"]), tileMaskTiles: [{ x: 1, z: 0 }] }), /invalid tileMaskTiles: not the tiles of tileMask/, "tileMaskTiles");
    refused(zone({ tileMask: new Set(["0;0"]) }), /invalid tileMask key "0;0"/, "tileMask");
    refused(zone({ tileMaskTiles: [{ x: 0.5, z: 0 }] }), /invalid tileMaskTiles\[0\]/, "tileMaskTiles[0]");
    assert.equal(a.isInFlatZone(0, 0) && a.getFlatZoneAt(0, 0)?.id === "z", false, "nothing was registered");

    const coords = (f: () => unknown, message: RegExp, field: string): void => {
      assert.throws(f, (e: Error & { field?: string }) => message.test(e.message) && e.field === field);
    };
    coords(() => a.getHeightAt(Number.NaN, 0), /^\[TerrainSystem\] getHeightAt: invalid coords \(NaN, 0\)$/, "x");
    coords(() => a.getHeightAt(1, Number.NEGATIVE_INFINITY), /invalid coords \(1, -Infinity\)$/, "z");
    coords(() => a.getNormalAt(Number.NaN, 3), /invalid coords \(NaN, 3\)$/, "x");
    coords(() => a.getNormalAt(2, Number.NaN), /invalid coords \(1\.5, NaN\)$/, "z");
    coords(() => a.isPositionWalkable(Number.POSITIVE_INFINITY, 0), /invalid coords \(Infinity, 0\)$/, "x");
    coords(() => a.getTerrainInfoAt(0, Number.NaN), /invalid coords \(0, NaN\)$/, "z");
    coords(() => a.isTileWalkable(Number.NaN, 0), /invalid coords \(NaN, 0\)$/, "x");
    coords(() => a.findWalkablePath(0, 0, Number.NaN, 5), /invalid coords \(NaN, 0\)$/, "x");
    coords(() => a.getHeightAt(1e15, 0), /outside the terrain server's range: x: /, "x");
    // Where the original answers for such input, so does the adapter.
    assert.ok(Number.isNaN(a.getProceduralHeightAt(Number.NaN, 0)));
    assert.equal(a.isInFlatZone(Number.NaN, 0), false);
    assert.equal(a.getFlatZoneAt(0, Number.NaN), null);
    assert.equal(a.getBiomeAtPosition(Number.NaN, 0), "swamp");
    const d = a.getDifficultyAtWorldPosition(Number.NaN, 0);
    assert.deepEqual([d.level, d.scalar, d.biome, d.difficultyTier, d.isSafe], [Number.NaN, Number.NaN, "swamp", 1, false]);

    for (const [args, field] of [
      [[0.5, 0, 10, 10], "minTileX"],
      [[0, 0, 0, 10], "width"],
      [[0, 0, 10, -1], "depth"],
      [[0, 0, 4097, 10], "width"],
    ] as const) {
      assert.throws(() => a.walkGrid(...(args as unknown as [number, number, number, number])), new RegExp(`^RangeError: ${field}: `));
    }
    for (const name of Object.keys(NOT_PROVIDED)) {
      assert.throws(() => (a as unknown as Record<string, () => void>)[name]!(), new RegExp(`^Error: HyperscapeTerrain\\.${name} is not provided by the terrain server \\(`));
    }
  });

  test("isTileWalkable asks the collision matrix first; difficulty takes the game's towns and tier", async () => {
    const asked: [number, number, number][] = [];
    a.collision = {
      hasFlags(x: number, z: number, mask: number): boolean {
        asked.push([x, z, mask]);
        return x === 10 && z === -3;
      },
    };
    assert.equal(a.isTileWalkable(10.7, -2.2), false);
    const open = a.isPositionWalkable(11.5, -2.5).walkable;
    assert.equal(a.isTileWalkable(11.5, -2.5), open);
    assert.deepEqual(asked, [
      [10, -3, 0x01a00300],
      [11, -3, 0x01a00300],
    ]);
    a.collision = null;

    // The fallback towns: the origin's is safe within 25 m; 200 m out it is not.
    assert.equal(a.getDifficultyAtWorldPosition(10, 10).isSafe, true);
    const far = a.getDifficultyAtWorldPosition(200, 150);
    assert.equal(far.isSafe, false);
    assert.ok(far.level >= 1 && far.scalar > 0);
    // The game's towns instead: a town there makes it safe.
    a.setTowns([{ position: { x: 200, z: 150 }, safeZoneRadius: 40 }]);
    assert.equal(a.getDifficultyAtWorldPosition(200, 150).isSafe, true);
    assert.equal(a.getDifficultyAtWorldPosition(10, 10).isSafe, false, "the origin is no town now");
    a.setTowns(null);
    assert.deepEqual(a.getDifficultyAtWorldPosition(200, 150), far, "back to the world's towns (none listed: the fallback towns)");
    // The original's third argument overrides the biome's tier.
    const hard = a.getDifficultyAtWorldPosition(200, 150, 3);
    assert.equal(hard.difficultyTier, 3);
    assert.ok(hard.scalar > far.scalar);
    assert.equal(a.getDifficultyAtWorldPosition(200, 150, 0).isSafe, true);

    const { fast, handle } = internals(a.replica);
    let s = 0x1234567;
    const next = (): number => {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      return (s >>> 0) / 2 ** 32;
    };
    // A NaN tier: the original's arithmetic, NaN level and scalar (core's whole level
    // would saturate to 1).
    const nan = a.getDifficultyAtWorldPosition(200, 150, Number.NaN);
    assert.deepEqual([nan.level, nan.scalar, nan.isSafe], [Number.NaN, Number.NaN, false]);
    a.setTowns(null);
    // The zone lookups answer points away from every zone without the addon: the same
    // answers as the addon's, across zone edges and blend rings.
    for (let i = 0; i < 20_000; i++) {
      const x = -40 + next() * 80;
      const z = -40 + next() * 80;
      assert.equal(a.isInFlatZone(x, z), fast.hsInZone(handle, x, z), `isInFlatZone at (${x}, ${z})`);
      assert.equal(a.getFlatZoneAt(x, z)?.id ?? null, fast.hsZoneAt(handle, x, z), `getFlatZoneAt at (${x}, ${z})`);
    }

    // A world with towns of its own: the adapter's difficulty and normal are the
    // server's terrain info's, bit for bit, with the world's towns and tiers.
    const t = await HyperscapeTerrain.open(server.url, "towned");
    try {
      const pts: number[][] = [[400, -250], [430, -250], [-150, 120]];
      for (let i = 0; i < 500; i++) pts.push([(next() - 0.5) * 1600, (next() - 0.5) * 1600]);
      const info = (await server.json("POST", "/v1/worlds/towned/terrain-info", { points: pts })) as {
        points: { normal: number[]; difficulty: { level: number; scalar: number; biome: string; tier: number; isSafe: boolean } }[];
      };
      pts.forEach(([x, z], i) => {
        const want = info.points[i]!;
        const d = t.getDifficultyAtWorldPosition(x!, z!);
        assert.deepEqual(
          [d.level, d.scalar, d.biome, d.difficultyTier, d.isSafe],
          [want.difficulty.level, want.difficulty.scalar, want.difficulty.biome, want.difficulty.tier, want.difficulty.isSafe],
          `difficulty at (${x}, ${z})`,
        );
        const n = t.getNormalAt(x!, z!);
        assert.ok([n.x, n.y, n.z].every((v, k) => Object.is(v, want.normal[k])), `normal at (${x}, ${z})`);
      });
      assert.equal(t.getDifficultyAtWorldPosition(400, -250).isSafe, true, "the world's town");
    } finally {
      t.close();
    }

    assert.equal(a.getTileSize(), 100);
    assert.equal(a.isReady(), true);
    assert.equal(a.isPhysicsReadyAt(5, 5), true);
    assert.equal(a.getHeightAtPosition(5, 5), a.getHeightAt(5, 5));
    const p = a.findWalkablePath(0, 0, 40, 30);
    if (!p.blocked) {
      assert.equal(p.path.length, 21);
      assert.deepEqual(p.path[20], { x: 0 + (40 / 20) * 20, z: 0 + (30 / 20) * 20 });
    }
  });
});
