// Hostile and careless input to LocalTerrain: every method refuses non-finite and
// out-of-range coordinates with a thrown error naming the argument (`x: must be
// finite`), never a plausible height and never an abort of this process; a property
// test throws random doubles (every bit pattern: NaN payloads, infinities, subnormals,
// the largest magnitudes) and in-range random points at every method, on hyperscape,
// osrs and voxel worlds, live and offline. Bad options are refused at `open`, and
// `waitForRevision` rejects once its timeout passes while the server is down.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { LocalTerrain } from "../src/index";
import { TestServer } from "./server";

const WORLDS = [
  { id: "hills", spec: "hills:hyperscape:0" },
  { id: "classic", spec: "classic:osrs:0" },
  { id: "blocks", spec: "blocks:voxel:7" },
];

/** The largest coordinate any world is defined over (core's COORDINATE_LIMIT, 2^46). */
const LIMIT = 2 ** 46;

/** Coordinates a careless or hostile caller passes, each refused. */
const REFUSED = [Number.NaN, Infinity, -Infinity, 1e300, -1e300, Number.MAX_VALUE, -Number.MAX_VALUE, LIMIT * 2];

/** A seeded stream of 64-bit patterns read as doubles: every kind of double. */
function hostileDoubles(seed: number): () => number {
  let s = BigInt(seed) | 1n;
  const view = new DataView(new ArrayBuffer(8));
  return () => {
    s ^= (s << 13n) & 0xffff_ffff_ffff_ffffn;
    s ^= s >> 7n;
    s ^= (s << 17n) & 0xffff_ffff_ffff_ffffn;
    view.setBigUint64(0, s);
    return view.getFloat64(0);
  };
}

function valid(v: number): boolean {
  return Number.isFinite(v) && Math.abs(v) <= LIMIT;
}

/** Runs `f`: a finite answer when both coordinates are valid, else an error naming `field`. */
function expectRefusal(f: () => unknown, field: RegExp, what: string): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof Error, `${what}: threw ${String(e)}`);
    assert.match(e.message, field, what);
    return true;
  });
}

function heightLike(v: unknown, what: string): void {
  assert.equal(typeof v, "number", what);
  assert.ok(Number.isFinite(v as number), `${what}: ${String(v)}`);
}

/** Every read of `replica` at (x, z), checked: answered when valid, refused naming the bad one. */
function probe(replica: LocalTerrain, x: number, z: number, walks: boolean): void {
  const bad = !valid(x) ? "x" : !valid(z) ? "z" : null;
  const what = `(${x}, ${z})`;
  const field = bad === null ? null : new RegExp(`^${bad}: must be`);
  const pointField = bad === null ? null : new RegExp(`^points\\[${bad === "x" ? 0 : 1}\\]: .*must be`);
  const reads: [string, () => unknown, RegExp | null][] = [
    ["heightAt", () => replica.heightAt(x, z), field],
    ["surfaceHeightAt", () => replica.surfaceHeightAt(x, z), field],
    ["heights", () => replica.heights(new Float64Array([x, z]))[0], pointField],
    ["surfaceHeights", () => replica.surfaceHeights(new Float64Array([x, z]))[0], pointField],
  ];
  for (const [name, f, refusal] of reads) {
    if (refusal === null) heightLike(f(), `${name}${what}`);
    else expectRefusal(f, refusal, `${name}${what}`);
  }
  if (field === null) {
    const zone = replica.zoneAt(x, z);
    assert.ok(zone === null || typeof zone === "string");
  } else {
    expectRefusal(() => replica.zoneAt(x, z), field, `zoneAt${what}`);
  }
  if (!walks) return;
  if (field === null) {
    heightLike(replica.terrainInfo(x, z).height, `terrainInfo${what}`);
    heightLike(replica.terrainInfos(new Float64Array([x, z]))[0]!.height, `terrainInfos${what}`);
  } else {
    expectRefusal(() => replica.terrainInfo(x, z), field, `terrainInfo${what}`);
    expectRefusal(() => replica.terrainInfos(new Float64Array([x, z])), /^points\[[01]\]: [xz] must be/, `terrainInfos${what}`);
    expectRefusal(() => replica.checkPath(new Float64Array([0, 0, x, z])), /^points\[1\]: [xz] must be/, `checkPath${what}`);
    expectRefusal(() => replica.findPath(x, z, 0, 0), /^from: [xz] must be/, `findPath${what}`);
    expectRefusal(() => replica.findPath(0, 0, x, z), /^to: [xz] must be/, `findPath to${what}`);
  }
}

describe("LocalTerrain refuses hostile input and never takes the process down", () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ worlds: WORLDS.map((w) => w.spec) });
  });
  after(async () => {
    await server?.stop();
  });

  for (const world of WORLDS) {
    test(`${world.id}: the issue's inputs are refused naming the argument`, async () => {
      const replica = await LocalTerrain.open(server.url, world.id);
      try {
        expectRefusal(() => replica.heightAt(-Infinity, 0), /^x: must be finite$/, "heightAt(-Infinity, 0)");
        expectRefusal(() => replica.heightAt(0, -Infinity), /^z: must be finite$/, "heightAt(0, -Infinity)");
        expectRefusal(() => replica.heightAt(-1e300, -1e300), /^x: must be within \[-70368744177664, 70368744177664\], got -1e300$/, "heightAt(-1e300, -1e300)");
        expectRefusal(() => replica.zoneAt(-Infinity, 0), /^x: must be finite$/, "zoneAt(-Infinity, 0)");
        expectRefusal(() => replica.heightAt(Number.NaN, 0), /^x: must be finite$/, "heightAt(NaN, 0)");
        expectRefusal(() => replica.heights(new Float64Array([Number.NaN, 0])), /^points\[0\]: must be finite$/, "heights([NaN, 0])");
        expectRefusal(() => replica.heights(new Float64Array([1, 2, 3, -Infinity])), /^points\[3\]: must be finite$/, "heights([.., -Infinity])");
        for (const v of REFUSED) {
          for (const [x, z] of [[v, 0], [0, v], [v, v]] as const) probe(replica, x, z, world.id !== "classic");
        }
        // Still answering after all of that.
        heightLike(replica.heightAt(1, 2), "heightAt(1, 2) afterwards");
      } finally {
        replica.close();
      }
    });

    test(`${world.id}: random doubles of every kind at every method (property)`, async () => {
      const replica = await LocalTerrain.open(server.url, world.id);
      const worldJson = JSON.stringify((await (await fetch(`${server.url}/v1/worlds`)).json()).worlds.find((w: { id: string }) => w.id === world.id));
      const offline = LocalTerrain.offline(worldJson, "[]");
      try {
        const next = hostileDoubles(0x5eed + world.id.length);
        let refused = 0;
        for (let i = 0; i < 3_000; i++) {
          // Mix in-range points (a third), so both outcomes are exercised.
          const x = i % 3 === 0 ? (next() % 1) * 500 || 0 : next();
          const z = i % 5 === 0 ? (next() % 1) * 500 || 0 : next();
          const walks = world.id !== "classic";
          probe(replica, x, z, walks);
          probe(offline, x, z, walks);
          if (!valid(x) || !valid(z)) refused++;
        }
        assert.ok(refused > 500 && refused < 3_000, `refused ${refused} of 3000: both outcomes exercised`);
      } finally {
        replica.close();
        offline.close();
      }
    });
  }

  test("bad options are refused at open, naming them", async () => {
    await assert.rejects(LocalTerrain.open(`ftp://${server.addr}`, "hills"), /scheme must be http:\/\/ or https:\/\//);
    await assert.rejects(
      LocalTerrain.open(server.url, "hills", { connectTimeoutMs: -5 }),
      /^Error: connectTimeoutMs: must be a whole number of milliseconds from 1 to 3600000, got -5$/,
    );
    await assert.rejects(LocalTerrain.open(server.url, "hills", { connectTimeoutMs: Number.NaN }), /connectTimeoutMs: /);
    const replica = await LocalTerrain.open(server.url, "hills", { connectTimeoutMs: 2_000 });
    try {
      assert.throws(() => replica.waitForRevision(-1), /^Error: revision: must be a whole number/);
      assert.throws(() => replica.waitForRevision(Number.NaN), /^Error: revision: must be a whole number/);
      assert.throws(() => replica.waitForRevision(1, 0), /^Error: timeoutMs: must be a whole number/);
    } finally {
      replica.close();
    }
  });

  test("waitForRevision rejects once its timeout passes while the server is down", async () => {
    const own = await TestServer.start({ worlds: ["hills:hyperscape:0"] });
    let replica: LocalTerrain | undefined;
    try {
      replica = await LocalTerrain.open(own.url, "hills");
      const at = replica.revision;
      await own.stop();
      const started = Date.now();
      await assert.rejects(replica.waitForRevision(at + 1, 500), (e: Error) => {
        assert.match(e.message, new RegExp(`^revision ${at + 1}: not reached within 500 ms \\(the replica is at ${at};`));
        return true;
      });
      const took = Date.now() - started;
      assert.ok(took >= 450 && took < 10_000, `rejected after ${took} ms`);
      // Reads still answer (the last state the replica holds) and never abort.
      heightLike(replica.heightAt(3, 4), "heightAt after the server went away");
    } finally {
      replica?.close();
      await own.stop();
    }
  });
});
