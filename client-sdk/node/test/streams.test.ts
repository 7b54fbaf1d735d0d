// Subscription and ViewerTracker against a real server: a subscription cut by a server
// restart resumes from its last revision and delivers every revision once, in order; a
// viewer tracker gets its snapshot, the tiles its viewer's rings enter, and a refusal
// naming the field.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { Subscription, type SubscriptionEvent, TerrainClient, ViewerTracker } from "../src/index";
import { TestServer } from "./server";

const TOKEN = "stream-admin";

let server: TestServer;
before(async () => {
  server = await TestServer.start({ worlds: ["main:hyperscape:0"], args: ["--admin-token", TOKEN] });
});
after(async () => {
  await server?.stop();
});

const zone = (id: string, centerX: number) => ({
  id,
  centerX,
  centerZ: 40,
  width: 12,
  depth: 12,
  height: 30,
  blendRadius: 2,
});

/** The next `n` events of `sub`, failing after `ms`. */
async function take(sub: Subscription, n: number, ms: number): Promise<SubscriptionEvent[]> {
  const out: SubscriptionEvent[] = [];
  const deadline = setTimeout(() => sub.close(), ms);
  try {
    while (out.length < n) out.push(await sub.next());
  } catch (e) {
    throw new Error(`after ${out.length} of ${n} events: ${String(e)}`);
  } finally {
    clearTimeout(deadline);
  }
  return out;
}

test("a subscription cut by a server restart resumes and gets every revision once, in order", async () => {
  const before = await TerrainClient.connect(server.url, { token: TOKEN });
  const sub = await Subscription.open(before, "main");
  const opened = sub.lastRevision;
  assert.equal(typeof opened, "bigint");

  const revisions: bigint[] = [];
  for (const id of ["r-a", "r-b"]) {
    revisions.push((await before.registerFlatZone({ world: "main", zone: zone(id, revisions.length * 30) })).revision);
  }
  // Nothing read yet: the two events are in flight or lost with the connection when
  // the server goes down; either way they must arrive exactly once.
  await server.restart();
  const afterRestart = await TerrainClient.connect(server.url, { token: TOKEN });
  for (const id of ["r-c", "r-d"]) {
    revisions.push((await afterRestart.registerFlatZone({ world: "main", zone: zone(id, revisions.length * 30) })).revision);
  }

  const events = await take(sub, 4, 60_000);
  try {
    assert.deepEqual(
      events.map((e) => (e.kind === "tiles" ? e.event.revision : e.kind)),
      revisions,
    );
    assert.deepEqual(
      events.map((e) => (e.kind === "tiles" ? e.event.cause?.zone : undefined)),
      ["r-a", "r-b", "r-c", "r-d"],
    );
    assert.ok(revisions.every((r, i) => i === 0 || r > revisions[i - 1]!), `${revisions}`);
    assert.ok(sub.reconnects >= 1, `reconnects ${sub.reconnects}`);
    assert.equal(sub.lastRevision, revisions[3]);
  } finally {
    sub.close();
  }
  await assert.rejects(sub.next(), /closed/);
});

test("a subscription from an old revision replays what it missed, then goes live", async () => {
  const client = await TerrainClient.connect(server.url, { token: TOKEN });
  const start = (await client.listFlatZones({ world: "main" })).revision;
  const first = (await client.registerFlatZone({ world: "main", zone: zone("replay-1", 200) })).revision;
  const sub = await Subscription.open(client, "main", { fromRevision: start });
  try {
    const second = (await client.registerFlatZone({ world: "main", zone: zone("replay-2", 230) })).revision;
    const events = await take(sub, 2, 30_000);
    assert.deepEqual(events.map((e) => (e.kind === "tiles" ? e.event.revision : e.kind)), [first, second]);
    // Each names the 3D Tiles contents it changed, one rectangle per level of the island's
    // tileset (levels 0 to 7, tiles -64 to 63): at the finest level, tile (tx, tz) is
    // content (tx + 64, 127 - (tz + 64)).
    for (const e of events) {
      assert.ok(e.kind === "tiles");
      const rects = e.event.tilesetContents.map((c) => [c.level, c.minX, c.minY, c.maxX, c.maxY].map(Number));
      assert.deepEqual(rects.map((r) => r[0]), [0, 1, 2, 3, 4, 5, 6, 7]);
      assert.deepEqual(rects[0], [0, 0, 0, 0, 0]);
      assert.equal(e.event.tileRects.length, 1);
      const [x0, z0, x1, z1] = [e.event.tileRects[0]!].flatMap((r) => [r.minTx, r.minTz, r.maxTx, r.maxTz].map(Number)) as [number, number, number, number];
      assert.deepEqual(rects[7], [7, x0 + 64, 127 - (z1 + 64), x1 + 64, 127 - (z0 + 64)]);
    }
  } finally {
    sub.close();
  }
});

test("an unknown world fails at open, not later", async () => {
  const client = await TerrainClient.connect(server.url);
  await assert.rejects(Subscription.open(client, "nowhere"), (e: Error & { codeName?: string }) => e.codeName === "NOT_FOUND");
});

test("a viewer tracker: snapshot first, the viewer's tiles entered, a refusal naming the field", { timeout: 30_000 }, async () => {
  const client = await TerrainClient.connect(server.url, { token: TOKEN });
  const tracker = ViewerTracker.open(client, "main");
  try {
    const snapshot = await tracker.next();
    assert.equal(snapshot?.kind.case, "snapshot");
    tracker.upsert({ id: "cam-1", x: 50, z: 50, viewWidth: 100, viewDepth: 100 });
    // The viewer at (50, 50) stands on tile (0, 0) of the 100 m tiles: it enters, in
    // one of the transition batches the ring's tiles arrive in (the test's timeout
    // fails it if it never does).
    const entered = new Set<string>();
    while (!entered.has("0,0")) {
      const event = await tracker.next();
      assert.ok(event !== undefined, `the stream ended; entered: ${[...entered].join(" ")}`);
      if (event.kind.case !== "transitions") continue;
      for (const t of event.kind.value.transitions) {
        if (t.kind === 1 && t.tile) entered.add(`${t.tile.x},${t.tile.z}`);
      }
    }

    tracker.upsert({ id: "cam-2", x: 0, z: 0, viewWidth: -1, viewDepth: 10 });
    for (;;) {
      const event = await tracker.next();
      assert.ok(event !== undefined, "the stream ended");
      if (event.kind.case !== "rejected") continue;
      assert.equal(event.kind.value.viewerId, "cam-2");
      assert.equal(event.kind.value.field, "view_width");
      break;
    }
  } finally {
    tracker.close();
  }
  const live = await client.getLiveTiles({ world: "main" });
  assert.ok(live, "GetLiveTiles answers after the tracker closed");
});
