// LocalTerrain's movement answers (terrainInfo, terrainInfos, checkPath, findPath)
// against a real server's HTTP answers, field for field and bit for bit (JSON numbers
// carry f64 exactly), for live (open) and offline replicas, on a hyperscape world
// (the `slope` rule) with a building registered and a voxel world (`block-step`) with
// plateaus a two-block rise apart.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { LocalTerrain, type PathCheck, type TerrainInfo } from "../src/index";
import { TestServer, randomPoints } from "./server";

const WORLDS = [
  { id: "hills", spec: "hills:hyperscape:0", span: 400, reach: 20 },
  { id: "blocks", spec: "blocks:voxel:7", span: 120, reach: 12 },
];

/** Zones registered before the comparison, per world. */
const ZONES: Record<string, ({ id: string } & Record<string, unknown>)[]> = {
  hills: [{ id: "hall", centerX: -30, centerZ: 20, width: 12, depth: 10, heightOffset: 0.5, blendRadius: 2, walkable: false }],
  blocks: [
    { id: "a", centerX: 5, centerZ: 5, width: 10, depth: 10, height: 40, blendRadius: 0 },
    { id: "b", centerX: 15, centerZ: 5, width: 10, depth: 10, height: 42, blendRadius: 0 },
  ],
};

function bits(v: number): bigint {
  return new BigUint64Array(new Float64Array([v]).buffer)[0]!;
}

function assertSameNumber(got: number, want: number, what: string): void {
  assert.equal(bits(got), bits(want), `${what}: ${got} != ${want}`);
}

function assertSamePath(got: Float64Array, want: number[][], what: string): void {
  assert.equal(got.length, want.length * 2, `${what}: length`);
  want.forEach(([x, z], i) => {
    assertSameNumber(got[2 * i]!, x!, `${what}[${i}].x`);
    assertSameNumber(got[2 * i + 1]!, z!, `${what}[${i}].z`);
  });
}

function assertSameInfo(got: TerrainInfo, want: any, what: string): void {
  assertSameNumber(got.height, want.height, `${what} height`);
  assertSameNumber(got.slope, want.slope, `${what} slope`);
  assert.deepEqual(
    [got.biome, got.underwater, got.walkable, got.reason],
    [want.biome, want.underwater, want.walkable, want.reason],
    what,
  );
}

function assertSameCheck(got: PathCheck, want: any, what: string): void {
  assert.equal(got.blocked, want.blocked, `${what} blocked`);
  assert.equal(got.reason, want.reason, `${what} reason`);
  if (want.at === null) assert.equal(got.at, null, `${what} at`);
  else assertSamePath(new Float64Array(got.at!), [want.at], `${what} at`);
  assertSamePath(got.path, want.path, `${what} path`);
}

/** A seeded stream in [-span/2, span/2). */
function stream(seed: number): (span: number) => number {
  const points = randomPoints(10_000, 0.5, seed);
  let i = 0;
  return (span) => points[i++ % points.length]! * span;
}

describe("LocalTerrain's movement answers against a real server", () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ worlds: WORLDS.map((w) => w.spec) });
    for (const [world, zones] of Object.entries(ZONES)) {
      for (const { id, ...zone } of zones) await server.json("PUT", `/v1/worlds/${world}/flat-zones/${id}`, zone);
    }
  });
  after(async () => {
    await server?.stop();
  });

  for (const world of WORLDS) {
    for (const kind of ["open", "offline"] as const) {
      test(`${world.id} (${kind}): terrain info, path checks and searches equal the server's`, async () => {
        const listed = (await server.json("GET", "/v1/worlds")).worlds.find((w: any) => w.id === world.id);
        const zones = await server.json("GET", `/v1/worlds/${world.id}/flat-zones`);
        const replica =
          kind === "open"
            ? await LocalTerrain.open(server.url, world.id)
            : LocalTerrain.offline(JSON.stringify(listed), JSON.stringify(zones));
        try {
          assert.equal(replica.revision, zones.revision);
          assert.equal(listed.walkability.name, world.id === "blocks" ? "block-step" : "slope");

          const points = randomPoints(2000, world.span, 0x5151 + world.id.length);
          const pairs: number[][] = [];
          for (let i = 0; i < points.length; i += 2) pairs.push([points[i]!, points[i + 1]!]);
          const info = await server.json("POST", `/v1/worlds/${world.id}/terrain-info`, { points: pairs });
          assert.equal(info.revision, replica.revision);
          const local = replica.terrainInfos(points);
          assert.equal(local.length, 2000);
          let unwalkable = 0;
          local.forEach((got, i) => {
            assertSameInfo(got, info.points[i], `terrainInfos ${pairs[i]}`);
            if (!got.walkable) unwalkable++;
          });
          for (let i = 0; i < 200; i++) {
            assertSameInfo(replica.terrainInfo(pairs[i]![0]!, pairs[i]![1]!), info.points[i], `terrainInfo ${pairs[i]}`);
          }
          assert.ok(unwalkable > 0 && unwalkable < 2000, `${unwalkable} of 2000 unwalkable`);

          const next = stream(0x77 + world.id.length);
          const reasons: Record<string, number> = {};
          for (let i = 0; i < 120; i++) {
            const line: number[][] = [[next(world.span), next(world.span)]];
            for (let k = 0; k < 1 + (i % 3); k++) {
              const [x, z] = line[line.length - 1]!;
              line.push([x! + next(2 * world.reach), z! + next(2 * world.reach)]);
            }
            if (i === 0 && world.id === "blocks") line.splice(0, line.length, [5.5, 5.5], [15.5, 5.5]);
            for (const mode of ["hyperscape", "exact"] as const) {
              const want = await server.json("POST", `/v1/worlds/${world.id}/paths/check`, { points: line, mode });
              const got = replica.checkPath(new Float64Array(line.flat()), mode);
              assertSameCheck(got, want, `${mode} ${JSON.stringify(line)}`);
              reasons[want.reason ?? "clear"] = (reasons[want.reason ?? "clear"] ?? 0) + 1;
            }
          }
          assert.ok((reasons.clear ?? 0) > 0, JSON.stringify(reasons));
          if (world.id === "blocks") assert.ok((reasons.step ?? 0) > 0, JSON.stringify(reasons));

          let found = 0;
          for (let i = 0; i < 10; i++) {
            const from = [next(world.span), next(world.span)];
            const to = [from[0]! + next(2 * world.reach), from[1]! + next(2 * world.reach)];
            const want = await server.json("POST", `/v1/worlds/${world.id}/paths/find`, { from, to, maxNodes: 20_000 });
            const got = replica.findPath(from[0]!, from[1]!, to[0]!, to[1]!, { maxNodes: 20_000 });
            const what = `findPath ${from} -> ${to}`;
            assert.equal(got.found, want.found, what);
            assert.equal(got.reason, want.reason, what);
            assert.equal(got.expanded, want.expanded, what);
            assertSameNumber(got.length, want.length, what);
            assertSamePath(got.waypoints, want.waypoints, what);
            if (got.found) found++;
          }
          assert.ok(found > 0, "no search found a path");

          // Bad input names the field.
          assert.throws(() => replica.checkPath(new Float64Array([0, 0, 1]), "exact"), /points/);
          assert.throws(() => replica.checkPath(new Float64Array([0, 0]), "sideways" as any), /mode/);
          assert.throws(() => replica.checkPath(new Float64Array([0, NaN]), "exact"), /points\[0\]/);
          assert.throws(() => replica.findPath(0, 0, 4000, 0, { maxDistance: 100 }), /to/);
          assert.throws(() => replica.findPath(0, 0, 1, 0, { maxNodes: 0 }), /maxNodes/);
        } finally {
          replica.close();
        }
      });
    }
  }
});
