// A server that comes back with another history of its world (restarted on an empty
// data directory, as after a restore) takes more changes than a client had seen, so
// revision numbers alone would let a resume through and apply the other history's
// events on top of the old state. The replica rebuilds from the server's current
// state and says `rebuilt`, then answers the server's heights bit for bit; a
// Subscription gets a `resync` and carries the new epoch on.
import assert from "node:assert/strict";
import { test } from "node:test";

import { LocalTerrain, Subscription, TerrainClient } from "../src/index";
import { TestServer, firstBitDifference, randomPoints } from "./server";

function zone(x: number, z: number, height: number): Record<string, number> {
  return { centerX: x, centerZ: z, width: 18, depth: 12, height, blendRadius: 3 };
}

test("a replica and a subscription follow the server into another history", async () => {
  const server = await TestServer.start({ worlds: ["hills:hyperscape:0"] });
  let replica: LocalTerrain | undefined;
  let sub: Subscription | undefined;
  try {
    for (const [i, x] of [70, -40, 120].entries()) {
      await server.json("PUT", `/v1/worlds/hills/flat-zones/old${i}`, zone(x, 10, 30));
    }
    replica = await LocalTerrain.open(server.url, "hills");
    assert.equal(replica.revision, 3);
    const client = await TerrainClient.connect(server.url);
    sub = await Subscription.open(client, "hills", { fromRevision: 3n });
    const oldEpoch = sub.epoch;
    assert.equal(oldEpoch?.length, 16);

    await server.restartEmpty();
    for (const [i, x] of [70, -200, -40, 10, 0].entries()) {
      await server.json("PUT", `/v1/worlds/hills/flat-zones/new${i}`, zone(x + 3, 12, 22));
    }
    const list = await server.json("GET", "/v1/worlds/hills/flat-zones");
    assert.notEqual(list.epoch, oldEpoch);

    for (;;) {
      const event = await replica.nextEvent();
      assert.ok(event !== null, "the replica keeps following");
      if (event.kind === "rebuilt") break;
      assert.ok(!event.zone?.startsWith("new") || event.revision > 3, `a new-history event on the old state: ${JSON.stringify(event)}`);
    }
    await replica.waitForRevision(5, 30_000);
    const points = randomPoints(4_000, 300, 0x5151);
    const served = await server.heights("hills", points);
    assert.equal(replica.revision, served.revision);
    const at = firstBitDifference(replica.heights(points), served.heights);
    assert.equal(at, -1, `the replica answers the new history's heights (first difference at ${at})`);

    const resync = await sub.next();
    assert.equal(resync.kind, "resync", JSON.stringify(resync, (_, v) => (typeof v === "bigint" ? String(v) : v)));
    assert.equal(sub.epoch, list.epoch);
    assert.equal(sub.lastRevision, 5n);
  } finally {
    replica?.close();
    sub?.close();
    await server.stop();
  }
});
