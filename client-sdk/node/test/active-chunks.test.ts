// `HyperscapeTerrain.getActiveChunks` against a real server with an admin token, the
// adapter opened without one: the server's active tiles as the original's `{x, z}`
// tile keys, following viewers another process reports (over HTTP, with the token),
// again after the server restarts (an `error` event says the stream broke), and the
// error of a terrain made by `wrap`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { HyperscapeTerrain } from "../src/hyperscape";
import { addon } from "../src/native";
import { TestServer } from "./server";

const TOKEN = "lifecycle-admin";

type Chunk = { x: number; z: number };

/** Polls `read` until it equals `want` (deeply), for at most 30 s. */
async function until(read: () => Chunk[], want: Chunk[], what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = read();
    try {
      assert.deepEqual(got, want);
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${what}: ${e instanceof Error ? e.message : e}`);
    }
    await new Promise((ok) => setTimeout(ok, 20));
  }
}

/** The `[[tx, tz], ...]` of a ring, as the original's keys, row-major. */
function keys(ring: [number, number][]): Chunk[] {
  return ring.map(([x, z]) => ({ x, z })).sort((a, b) => a.z - b.z || a.x - b.x);
}

describe("getActiveChunks", () => {
  let server: TestServer;
  let terrain: HyperscapeTerrain;
  const errors: Error[] = [];

  before(async () => {
    server = await TestServer.start({ worlds: ["main:hyperscape:0"], args: ["--admin-token", TOKEN] });
    terrain = await HyperscapeTerrain.open(server.url, "main");
    terrain.on("error", (e: Error) => errors.push(e));
  });

  after(async () => {
    terrain?.close();
    await server?.stop();
  });

  async function putViewer(id: string, x: number, z: number): Promise<[number, number][]> {
    const r = await fetch(`${server.url}/v1/worlds/main/viewers/${id}`, {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ x, z, viewWidth: 100, viewDepth: 100 }),
    });
    assert.equal(r.status, 200, await r.clone().text());
    return ((await r.json()) as { active: [number, number][] }).active;
  }

  async function liveActive(): Promise<Chunk[]> {
    const r = await fetch(`${server.url}/v1/worlds/main/live-tiles`);
    return keys(((await r.json()) as { active: [number, number][] }).active);
  }

  test("no viewer: no active tile; a viewer's active ring arrives, then its move", async () => {
    assert.deepEqual(terrain.getActiveChunks(), []);
    const ring = keys(await putViewer("p1", 0, 0));
    // A 100 m view at the origin: tiles centred on multiples of 100, two beyond it.
    assert.equal(ring.length, 25);
    assert.deepEqual([ring[0], ring[24]], [{ x: -2, z: -2 }, { x: 2, z: 2 }]);
    await until(() => terrain.getActiveChunks(), ring, "the first viewer's ring");
    assert.deepEqual(terrain.getActiveChunks(), await liveActive());

    // Another viewer 1 km east, then the first moves: the union, as live-tiles lists it.
    await putViewer("p2", 1000, 0);
    const moved = await putViewer("p1", 0, 350);
    assert.ok(moved.some(([, z]) => z === 5));
    await until(() => terrain.getActiveChunks(), await liveActive(), "two viewers");
    const union = terrain.getActiveChunks();
    assert.equal(union.length, 25 + 30, "5 x 5 tiles and, for a view at z = 350 (its ring z from 100 to 600), 5 x 6");
    assert.ok(union.some((c) => c.x === 12 && c.z === 0) && union.some((c) => c.x === 0 && c.z === 5));
    assert.ok(!union.some((c) => c.x === 0 && c.z === -2), "the first viewer's old tiles left");

    // Each call answers a new array of new objects: a caller may change what it got.
    const a = terrain.getActiveChunks();
    a[0]!.x = 1e9;
    a.pop();
    assert.deepEqual(terrain.getActiveChunks(), union);

    const gone = await fetch(`${server.url}/v1/worlds/main/viewers/p2`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(gone.status, 204);
    await until(() => terrain.getActiveChunks(), keys(moved), "the second viewer gone");
    assert.deepEqual(errors, []);
  });

  test("after a restart of the server: an error event, then the new server's tiles", async () => {
    assert.ok(terrain.getActiveChunks().length > 0);
    await server.restart();
    // The restarted server has no viewers: the stream, opened again, says so.
    await until(() => terrain.getActiveChunks(), [], "the restarted server's tiles");
    assert.equal(errors.length, 1, errors.map((e) => e.message).join("; "));
    const ring = keys(await putViewer("p3", -500, 0));
    await until(() => terrain.getActiveChunks(), ring, "a viewer on the restarted server");
    assert.equal(errors.length, 1);
  });

  test("a terrain made by wrap has no server's live tiles: an Error that says so", async () => {
    const worlds = (await (await fetch(`${server.url}/v1/worlds`)).json()) as { worlds: { id: string }[] };
    const info = JSON.stringify(worlds.worlds.find((w) => w.id === "main"));
    const offline = HyperscapeTerrain.wrap(addon.LocalTerrain.offline(info, "[]"), { url: server.url });
    try {
      assert.throws(() => offline.getActiveChunks(), /^Error: HyperscapeTerrain\.getActiveChunks: a terrain made by wrap follows no server's live tiles/);
    } finally {
      offline.close();
    }
  });
});
