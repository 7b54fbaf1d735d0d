// surfaceHeightAt from kept tiles (over the addon, the addon's tiles kept in the
// module's SurfaceStore by src/surface.ts; over WebAssembly, the module's own) against
// a real server's surface-mode heights, bit for bit: hyperscape, osrs and voxel worlds,
// on random points, on tile corners and edges, on vertices, cell edges and cell
// diagonals (and the doubles either side of each), inside a zone's carved floor, and
// across zone changes: every read at every revision the replica shows is the server's
// at that revision, so no kept tile outlives the view it was taken at.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { LocalTerrain } from "../src/index";
import { keptSurfaceTiles } from "../src/native";
import { surfaceTileReads } from "../src/wasm";
import { TestServer, firstBitDifference, randomPoints, xorshift } from "./server";

const SURFACE_TILE_READS = surfaceTileReads();

const WORLDS = [
  { id: "hills", spec: "hills:hyperscape:0" },
  { id: "classic", spec: "classic:osrs:0" },
  { id: "blocks", spec: "blocks:voxel:7" },
];

interface Layout {
  size: number;
  n: number;
  centred: boolean;
}

function assertSameBits(actual: Float64Array, expected: Float64Array, what: string, points?: Float64Array): void {
  const at = firstBitDifference(actual, expected);
  const where = points && at >= 0 ? ` at (${points[2 * at]}, ${points[2 * at + 1]})` : "";
  assert.equal(at, -1, `${what}: first difference at ${at}${where}: ${actual[at]} != ${expected[at]}`);
}

/** The double next to `v` towards +inf (`up`) or -inf. */
function nextDouble(v: number, up: boolean): number {
  const f = new Float64Array([v]);
  const b = new BigInt64Array(f.buffer);
  if (v === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  b[0] = b[0]! + ((v > 0) === up ? 1n : -1n);
  return f[0]!;
}

/** core's TileGrid::tile_of. */
function tileOf(layout: Layout, c: number): number {
  return Math.floor(c / layout.size + (layout.centred ? 0.5 : 0));
}

/** core's border_coord: vertex `i` of tile `t` on one axis. */
function vertex(layout: Layout, t: number, i: number): number {
  const step = layout.size / (layout.n - 1);
  const offset = layout.centred ? layout.size / 2 : 0;
  return -offset + i * step + t * layout.size;
}

/**
 * Points of tiles `keys`: random ones, every tile corner and points along every tile
 * edge, vertices, points on cell edges and on cell diagonals, each with the doubles
 * either side of it.
 */
function tilePoints(layout: Layout, keys: [number, number][], seed: number): Float64Array {
  const next = xorshift(seed);
  const out: number[] = [];
  const push = (x: number, z: number, around = false): void => {
    out.push(x, z);
    if (around) {
      for (const ux of [false, true]) for (const uz of [false, true]) out.push(nextDouble(x, ux), nextDouble(z, uz));
    }
  };
  const step = layout.size / (layout.n - 1);
  const last = layout.n - 1;
  for (const [tx, tz] of keys) {
    const x0 = vertex(layout, tx, 0);
    const z0 = vertex(layout, tz, 0);
    for (let k = 0; k < 300; k++) push(x0 + next() * layout.size, z0 + next() * layout.size);
    // Tile corners, and along the tile's edges.
    for (const i of [0, last]) for (const j of [0, last]) push(vertex(layout, tx, i), vertex(layout, tz, j), true);
    for (let k = 0; k < 20; k++) {
      const f = next() * layout.size;
      push(x0, z0 + f, true);
      push(x0 + f, z0, true);
      push(vertex(layout, tx, last), z0 + f, true);
      push(x0 + f, vertex(layout, tz, last), true);
    }
    // Vertices, cell edges through them, cell diagonals.
    for (let k = 0; k < 60; k++) {
      const i = Math.floor(next() * layout.n);
      const j = Math.floor(next() * layout.n);
      const vx = vertex(layout, tx, i);
      const vz = vertex(layout, tz, j);
      push(vx, vz, true);
      push(vx + next() * step, vz, true);
      push(vx, vz + next() * step, true);
      const f = next();
      push(vx + f * step, vz + (1 - f) * step, true);
    }
  }
  return Float64Array.from(out);
}

/** `surfaceHeightAt` over `points`, one read each. */
function readEach(replica: LocalTerrain, points: Float64Array): Float64Array {
  const out = new Float64Array(points.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = replica.surfaceHeightAt(points[2 * i]!, points[2 * i + 1]!);
  return out;
}

/** The tiles `points` fall in, with how many points fall in each. */
function tilesOf(layout: Layout, points: Float64Array): Map<string, number> {
  const keys = new Map<string, number>();
  for (let i = 0; i < points.length; i += 2) {
    const key = `${tileOf(layout, points[i]!)},${tileOf(layout, points[i + 1]!)}`;
    keys.set(key, (keys.get(key) ?? 0) + 1);
  }
  return keys;
}

describe("surfaceHeightAt from tiles kept in JavaScript", () => {
  let server: TestServer;
  const layouts = new Map<string, Layout>();
  before(async () => {
    server = await TestServer.start({ worlds: WORLDS.map((w) => w.spec) });
    const listed = await server.json("GET", "/v1/worlds");
    const worlds: any[] = Array.isArray(listed) ? listed : listed.worlds;
    for (const w of worlds) layouts.set(w.id, { size: w.tileSize, n: Math.max(w.tileResolution, 2), centred: w.generator === "hyperscape" });
  });
  after(async () => {
    await server?.stop();
  });

  for (const world of WORLDS) {
    test(`${world.id}: kept tiles answer the server's bits on tile corners, edges, vertices and diagonals`, async () => {
      const layout = layouts.get(world.id)!;
      assert.ok(layout, `layout of ${world.id}`);
      const replica = await LocalTerrain.open(server.url, world.id);
      try {
        const keys: [number, number][] = [[0, 0], [-1, 0], [0, -1], [-1, -1], [2, -3], [-4, 1]];
        const points = tilePoints(layout, keys, 0x51 + world.id.length);
        assert.equal(points.length / 2, 11_520);
        const want = await server.heights(world.id, points, "surface");
        assert.equal(want.revision, replica.revision);
        // Pass 0 reads each tile's first points on the spot, then keeps the tile; pass
        // 1 reads every point from a kept tile.
        for (let pass = 0; pass < 2; pass++) {
          assertSameBits(readEach(replica, points), want.heights, `${world.id} pass ${pass}`, points);
        }
        // Kept: every tile the two passes read SURFACE_TILE_READS times or more (the
        // tiles beyond the edges that only the doubles past an edge fall in are not).
        const tiles = tilesOf(layout, points);
        const often = [...tiles].filter(([, count]) => 2 * count >= SURFACE_TILE_READS);
        assert.ok(often.length >= keys.length, `${often.length} tiles read often`);
        assert.equal(keptSurfaceTiles(replica), often.length, `the tiles read often are kept (${often.map(([k]) => k).join(" ")})`);
        // Reads in walking order (the last tile's shortcut) and backwards.
        const order = [...Array(points.length / 2).keys()].sort((a, b) => points[2 * a + 1]! - points[2 * b + 1]! || points[2 * a]! - points[2 * b]!);
        for (const walk of [order, [...order].reverse()]) {
          const got = new Float64Array(walk.length);
          const expected = new Float64Array(walk.length);
          walk.forEach((p, i) => {
            got[i] = replica.surfaceHeightAt(points[2 * p]!, points[2 * p + 1]!);
            expected[i] = want.heights[p]!;
          });
          assertSameBits(got, expected, `${world.id} in walking order`);
        }
        // The batch through the addon's own tiles agrees, and exact mode is another function.
        assertSameBits(replica.surfaceHeights(points), want.heights, `${world.id} surfaceHeights`);
        const exact = await server.heights(world.id, points, "exact");
        assert.notEqual(firstBitDifference(exact.heights, want.heights), -1, "surface differs from exact somewhere");
      } finally {
        replica.close();
      }
    });
  }

  test("a zone's carved floor: kept tiles answer the server's surface there", async () => {
    for (const world of ["hills", "blocks"]) {
      const layout = layouts.get(world)!;
      const replica = await LocalTerrain.open(server.url, world);
      try {
        const zone = { centerX: 37, centerZ: -21, width: 30, depth: 22, height: 31.25, blendRadius: 5, carveInset: 2 };
        const put = await server.json("PUT", `/v1/worlds/${world}/flat-zones/carved-floor`, zone);
        await replica.waitForRevision(put.revision);
        // Inside the floor, its blend ring, and the tiles around.
        const inside = randomPoints(3_000, 1, 0xc0ffee).map((v, i) => (i % 2 === 0 ? 37 + v * 14 : -21 + v * 10));
        const around = randomPoints(3_000, 30, 0xbeef).map((v, i) => v + (i % 2 === 0 ? 37 : -21));
        const points = new Float64Array([...inside, ...around]);
        const want = await server.heights(world, points, "surface");
        assert.equal(want.revision, put.revision);
        for (let pass = 0; pass < 2; pass++) {
          assertSameBits(readEach(replica, points), want.heights, `${world} carved floor pass ${pass}`, points);
        }
        assert.ok(keptSurfaceTiles(replica) >= tilesOf(layout, inside).size, "the floor's tiles are kept");
        // The floor's interior is flat on the surface too: the exact height there (the
        // zone's, 31.25 m; the voxel world's block top under it).
        assert.equal(replica.surfaceHeightAt(37, -21), replica.heightAt(37, -21));
        if (world === "hills") assert.equal(replica.surfaceHeightAt(37, -21), 31.25);
        const del = await server.json("DELETE", `/v1/worlds/${world}/flat-zones/carved-floor`);
        await replica.waitForRevision(del.revision);
      } finally {
        replica.close();
      }
    }
  });

  test("across zone changes every read is the server's at the revision the replica shows", async () => {
    const world = "hills";
    const replica = await LocalTerrain.open(server.url, world);
    try {
      // 2,000 points over a few tiles, read every turn of the event loop, so their
      // tiles are kept from the first turn on.
      const points = randomPoints(2_000, 60, 0x5eed).map((v, i) => v + (i % 2 === 0 ? 400 : -300));
      const expected = new Map<number, Float64Array>();
      const first = await server.heights(world, points, "surface");
      assert.equal(first.revision, replica.revision);
      expected.set(first.revision, first.heights);

      const ticks: { revision: number; heights: Float64Array }[] = [];
      let running = true;
      const reader = (async () => {
        while (running) {
          const revision = replica.revision;
          ticks.push({ revision, heights: readEach(replica, points) });
          await new Promise<void>((ok) => setImmediate(ok));
        }
      })();

      const changes: { body?: object; remove?: boolean }[] = [
        { body: { centerX: 400, centerZ: -300, width: 40, depth: 30, height: 55, blendRadius: 8 } },
        { body: { centerX: 410, centerZ: -290, width: 40, depth: 30, height: 20.5, blendRadius: 8, carveInset: 1 } },
        { body: { centerX: 380, centerZ: -320, radius: 25, height: 48, blendRadius: 10 } },
        { remove: true },
      ];
      let last = first.revision;
      const zoned: number[] = [];
      for (const change of changes) {
        const path = `/v1/worlds/${world}/flat-zones/moving-arena`;
        const answer = change.remove ? await server.json("DELETE", path) : await server.json("PUT", path, change.body);
        const now = await server.heights(world, points, "surface");
        assert.equal(now.revision, answer.revision, "no other change meanwhile");
        expected.set(now.revision, now.heights);
        last = answer.revision;
        if (!change.remove) zoned.push(answer.revision);
        // Let the replica show it for a few turns before the next change.
        await replica.waitForRevision(answer.revision);
        const shown = ticks.length;
        while (ticks.length < shown + 3) await new Promise<void>((ok) => setImmediate(ok));
      }
      running = false;
      await reader;

      const seen = new Set(ticks.map((t) => t.revision));
      assert.deepEqual([...seen].sort((a, b) => a - b), [...expected.keys()].sort((a, b) => a - b), "the reads saw every revision");
      assert.ok(seen.has(last));
      for (const [k, t] of ticks.entries()) {
        const want = expected.get(t.revision);
        assert.ok(want, `tick ${k} at revision ${t.revision}`);
        assertSameBits(t.heights, want, `tick ${k} at revision ${t.revision}`, points);
      }
      // Each zone moved these points' surface (and the removal moved it back): a
      // stale tile would have been caught.
      let previous = first.heights;
      for (const r of zoned) {
        const h = expected.get(r)!;
        assert.notEqual(firstBitDifference(h, previous), -1, `revision ${r} changed the surface`);
        previous = h;
      }
      assertSameBits(expected.get(last)!, first.heights, "the removal restored the surface");
      assert.ok(keptSurfaceTiles(replica) > 0, "tiles kept at the last revision");
    } finally {
      replica.close();
    }
  });

  test("nextEvent and waitForRevision: surfaceHeightAt already answers the new surface", async () => {
    const world = "classic";
    const replica = await LocalTerrain.open(server.url, world);
    try {
      const points = randomPoints(1_500, 40, 0xfeed).map((v, i) => v + (i % 2 === 0 ? -100 : 90));
      for (let pass = 0; pass < SURFACE_TILE_READS; pass++) readEach(replica, points);
      const kept = keptSurfaceTiles(replica);
      assert.ok(kept > 0);
      const put = await server.json("PUT", `/v1/worlds/${world}/flat-zones/event-floor`, {
        centerX: -100, centerZ: 90, width: 50, depth: 50, height: 61, blendRadius: 6,
      });
      const want = await server.heights(world, points, "surface");
      assert.equal(want.revision, put.revision);
      const event = await replica.nextEvent();
      assert.equal(event?.revision, put.revision);
      // Read at once, in the turn the event arrived in.
      assert.equal(replica.revision, put.revision);
      assertSameBits(readEach(replica, points), want.heights, "surfaceHeightAt at the event", points);
      assert.equal(replica.surfaceHeightAt(-100, 90), 61);

      const del = await server.json("DELETE", `/v1/worlds/${world}/flat-zones/event-floor`);
      const back = await server.heights(world, points, "surface");
      assert.equal(back.revision, del.revision);
      assert.equal(await replica.waitForRevision(del.revision), del.revision);
      assertSameBits(readEach(replica, points), back.heights, "surfaceHeightAt after waitForRevision", points);
      // The tiles kept before the change are taken again at once, not after 16 reads.
      assert.equal(keptSurfaceTiles(replica), kept);
    } finally {
      replica.close();
    }
  });

  test("offline replicas keep tiles too; a closed replica throws, kept tiles or not", async () => {
    const world = "blocks";
    const listed = await server.json("GET", "/v1/worlds");
    const worlds: any[] = Array.isArray(listed) ? listed : listed.worlds;
    const zones = await server.json("GET", `/v1/worlds/${world}/flat-zones`);
    const offline = LocalTerrain.offline(JSON.stringify(worlds.find((w) => w.id === world)), JSON.stringify(zones));
    const points = tilePoints(layouts.get(world)!, [[0, 0], [3, -2]], 9);
    const want = await server.heights(world, points, "surface");
    for (let pass = 0; pass < 2; pass++) assertSameBits(readEach(offline, points), want.heights, `offline pass ${pass}`, points);
    assert.ok(keptSurfaceTiles(offline) > 0);
    offline.close();
    assert.throws(() => offline.surfaceHeightAt(points[0]!, points[1]!), /closed/);

    const live = await LocalTerrain.open(server.url, world);
    for (let pass = 0; pass < 2; pass++) readEach(live, points);
    assert.ok(keptSurfaceTiles(live) > 0);
    live.close();
    assert.throws(() => live.surfaceHeightAt(points[0]!, points[1]!), /closed/);
    // Far-out points go to the addon, which answers what core does (as the addon's
    // batch does); non-finite ones are refused naming the axis, kept tiles or not.
    const far = LocalTerrain.offline(JSON.stringify(worlds.find((w) => w.id === "hills")), "[]");
    const odd = new Float64Array([1e12, 5, -3e11, 2e11, 3.5e8, -7]);
    for (let pass = 0; pass < SURFACE_TILE_READS + 1; pass++) {
      assertSameBits(readEach(far, odd), far.surfaceHeights(odd), `far points, pass ${pass}`);
      assert.throws(() => far.surfaceHeightAt(Number.NaN, 0), /^Error: x: must be finite/);
      assert.throws(() => far.surfaceHeightAt(0, Number.POSITIVE_INFINITY), /^Error: z: must be finite/);
      assert.throws(() => far.surfaceHeights(new Float64Array([0, 0, Number.NaN, 0])), /points\[2\]: must be finite/);
    }
    far.close();
  });
});
