// LocalTerrain (the native replica) against a real server: heights bit for bit what
// the server answers, exact and surface mode, on hyperscape, osrs and voxel worlds,
// and a registered zone reaching the replica once waitForRevision resolves.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { LocalTerrain } from "../src/index";
import { TestServer, firstBitDifference, randomPoints } from "./server";

const WORLDS = [
  { id: "hills", spec: "hills:hyperscape:0", span: 3000 },
  { id: "classic", spec: "classic:osrs:0", span: 3000 },
  { id: "blocks", spec: "blocks:voxel:7", span: 400 },
];

function assertSameBits(actual: Float64Array, expected: Float64Array, what: string): void {
  const at = firstBitDifference(actual, expected);
  assert.equal(at, -1, `${what}: first difference at ${at}: ${actual[at]} != ${expected[at]}`);
}

describe("LocalTerrain against a real server", () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ worlds: WORLDS.map((w) => w.spec) });
  });
  after(async () => {
    await server?.stop();
  });

  for (const world of WORLDS) {
    test(`${world.id}: 10,000 heights equal the server's bit for bit (exact and surface)`, async () => {
      const replica = await LocalTerrain.open(server.url, world.id);
      try {
        assert.equal(replica.world, world.id);
        assert.equal(replica.live, true);
        const points = randomPoints(10_000, world.span, 0x1234 + world.id.length);
        const exact = await server.heights(world.id, points, "exact");
        assert.equal(replica.revision, exact.revision, "the replica is at the server's revision");
        assertSameBits(replica.heights(points), exact.heights, "heights()");
        const one = new Float64Array(10_000);
        for (let i = 0; i < one.length; i++) one[i] = replica.heightAt(points[2 * i]!, points[2 * i + 1]!);
        assertSameBits(one, exact.heights, "heightAt()");

        const surface = await server.heights(world.id, points, "surface");
        assertSameBits(replica.surfaceHeights(points), surface.heights, "surfaceHeights()");
        for (let i = 0; i < one.length; i++) one[i] = replica.surfaceHeightAt(points[2 * i]!, points[2 * i + 1]!);
        assertSameBits(one, surface.heights, "surfaceHeightAt()");
        // Clustered points: their few tiles are read often enough to be kept, so the
        // second pass reads kept tiles only; both passes are the server's bits.
        const near = randomPoints(2_000, 30, 0x77);
        const nearSurface = await server.heights(world.id, near, "surface");
        for (let pass = 0; pass < 2; pass++) {
          const got = new Float64Array(2_000);
          for (let i = 0; i < got.length; i++) got[i] = replica.surfaceHeightAt(near[2 * i]!, near[2 * i + 1]!);
          assertSameBits(got, nearSurface.heights, `surfaceHeightAt() on kept tiles, pass ${pass}`);
        }
        // The two modes are different functions: the comparison above can tell them apart.
        assert.notEqual(firstBitDifference(exact.heights, surface.heights), -1, "surface differs from exact somewhere");
      } finally {
        replica.close();
      }
    });
  }

  test("a registered zone changes the replica's heights to the server's new ones", async () => {
    const world = "hills";
    const replica = await LocalTerrain.open(server.url, world);
    try {
      // Points over the zone, its blend ring and beyond.
      const points = randomPoints(10_000, 24, 0xabcdef);
      const before = replica.heights(points);
      const start = replica.revision;
      const put = await server.json("PUT", `/v1/worlds/${world}/flat-zones/node-arena`, {
        centerX: 0,
        centerZ: 0,
        width: 20,
        depth: 20,
        height: 30,
        blendRadius: 4,
      });
      assert.equal(put.change, "registered");
      assert.ok(put.revision > start, `revision ${put.revision} after ${start}`);
      const reached = await replica.waitForRevision(put.revision);
      assert.ok(reached >= put.revision);
      assert.equal(replica.revision, reached);

      const server_ = await server.heights(world, points);
      assert.equal(server_.revision, put.revision);
      const after_ = replica.heights(points);
      assertSameBits(after_, server_.heights, "heights after the zone");
      assert.notEqual(firstBitDifference(before, after_), -1, "the zone changed some heights");
      assert.equal(replica.heightAt(0, 0), 30);
      assert.equal(replica.zoneAt(0, 0), "node-arena");
      const surface = await server.heights(world, points, "surface");
      assertSameBits(replica.surfaceHeights(points), surface.heights, "surface heights after the zone");

      // Removed again: back to the first heights.
      const del = await server.json("DELETE", `/v1/worlds/${world}/flat-zones/node-arena`);
      await replica.waitForRevision(del.revision);
      assertSameBits(replica.heights(points), before, "heights after the removal");
    } finally {
      replica.close();
    }
  });

  test("nextEvent: each change once, in order, when its heights are already the reads'", async () => {
    const world = "hills";
    const replica = await LocalTerrain.open(server.url, world);
    try {
      const zone = { centerX: 200, centerZ: -150, width: 16, depth: 10, height: 44.5, blendRadius: 3 };
      const changes: [string, number][] = [];
      const put = await server.json("PUT", `/v1/worlds/${world}/flat-zones/event-pad`, zone);
      changes.push(["registered", put.revision]);
      const moved = await server.json("PUT", `/v1/worlds/${world}/flat-zones/event-pad`, { ...zone, height: 12 });
      changes.push(["replaced", moved.revision]);
      const del = await server.json("DELETE", `/v1/worlds/${world}/flat-zones/event-pad`);
      changes.push(["removed", del.revision]);
      for (const [kind, revision] of changes) {
        const event = await replica.nextEvent();
        assert.ok(event, "an event");
        assert.equal(event.kind, kind);
        assert.equal(event.revision, revision);
        assert.equal(event.zone, "event-pad");
        const b = event.bounds!;
        assert.ok(b.minX <= 192 && b.maxX >= 208 && b.minZ <= -155 && b.maxZ >= -145, JSON.stringify(b));
        // Read at once: the replica is at least at the event's revision.
        assert.ok(replica.revision >= revision, `replica at ${replica.revision}, event ${revision}`);
      }
      // The last event's heights are the server's now.
      const points = randomPoints(500, 12, 5).map((v, i) => v + (i % 2 === 0 ? 200 : -150));
      const now = await server.heights(world, points);
      assert.equal(now.revision, replica.revision);
      assertSameBits(replica.heights(points), now.heights, "heights after the events");
    } finally {
      replica.close();
    }
    assert.equal(await replica.nextEvent().catch(() => null), null, "closed: null or a throw");
  });

  test("an offline replica from the listed world and zones answers the server's heights", async () => {
    const world = "classic";
    await server.json("PUT", `/v1/worlds/${world}/flat-zones/plaza`, {
      centerX: 10,
      centerZ: -5,
      radius: 12,
      height: 12.5,
      blendRadius: 6,
    });
    const listed = await server.json("GET", "/v1/worlds");
    const worlds: any[] = Array.isArray(listed) ? listed : listed.worlds;
    const info = worlds.find((w) => w.id === world);
    assert.ok(info, JSON.stringify(listed));
    const zones = await server.json("GET", `/v1/worlds/${world}/flat-zones`);
    const replica = LocalTerrain.offline(JSON.stringify(info), JSON.stringify(zones));
    assert.equal(replica.live, false);
    assert.equal(replica.revision, zones.revision);
    const points = randomPoints(10_000, 60, 77);
    const exact = await server.heights(world, points);
    assertSameBits(replica.heights(points), exact.heights, "offline heights()");
    const surface = await server.heights(world, points, "surface");
    assertSameBits(replica.surfaceHeights(points), surface.heights, "offline surfaceHeights()");
    assert.equal(await replica.waitForRevision(zones.revision), zones.revision);
    await assert.rejects(replica.waitForRevision(zones.revision + 1), /offline replica/);
  });

  test("errors: unknown world, odd point arrays, use after close", async () => {
    await assert.rejects(LocalTerrain.open(server.url, "nowhere"), /nowhere/);
    const replica = await LocalTerrain.open(server.url, "hills");
    assert.throws(() => replica.heights(new Float64Array(3)), /pairs/);
    const pending = replica.waitForRevision(replica.revision + 1_000_000);
    replica.close();
    await assert.rejects(pending, /closed/);
    assert.throws(() => replica.heightAt(0, 0), /closed/);
    replica.close();
  });
});

test("offline: a bad description names the field", () => {
  assert.throws(() => LocalTerrain.offline("{}", "[]"), /world: id: required/);
  const world = JSON.stringify({ id: "w", generator: "osrs", seed: 0, tileSize: 64, tileResolution: 65, revision: 0, overlap: "layered", zones: 0 });
  assert.throws(() => LocalTerrain.offline(world, '[{"id":"a","centerX":0,"centerZ":0,"height":1,"blendRadius":1}]'), /zones\[0\]\.width/);
});
