// The "Nobody sinks" example (examples/nobody-sinks.ts) against a real server: after the
// arena floor's revision no entity on the floor is below it, and every snapped height
// equals the server's GetHeights answer at the tick's revision, bit for bit.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { run } from "../examples/nobody-sinks";
import { TerrainClient } from "../src/index";
import { TestServer, firstBitDifference } from "./server";

let server: TestServer;
before(async () => {
  server = await TestServer.start({ worlds: ["main:hyperscape:0"], args: ["--admin-token", "arena-admin"] });
});
after(async () => {
  await server?.stop();
});

test("nobody sinks: 1,000 entities stand on the floor once its revision arrives", async () => {
  const result = await run({ url: server.url, world: "main", token: "arena-admin", entities: 1_000, ticks: 40, floorAtTick: 10 });
  const { floor, floorRevision, ticks } = result;
  assert.equal(ticks.length, 40);
  assert.ok(floorRevision > 0);
  const onFloor = (x: number, z: number): boolean =>
    Math.abs(x - floor.centerX) <= floor.width / 2 && Math.abs(z - floor.centerZ) <= floor.depth / 2;

  const before = ticks.filter((t) => t.revision < floorRevision);
  const after = ticks.filter((t) => t.revision >= floorRevision);
  assert.ok(before.length >= 10, `${before.length} ticks before the floor`);
  assert.ok(after.length >= 10, `only ${after.length} ticks reached the floor's revision`);

  // Before the floor, the ground under the arena is lower than the floor will be (the
  // floor is 3 m above its highest point): the check below can tell the difference.
  const below = before.flatMap((t) =>
    Array.from(t.heights).filter((h, i) => onFloor(t.points[2 * i]!, t.points[2 * i + 1]!) && h < floor.height),
  );
  assert.ok(below.length > 1_000, `${below.length} entity heights below the floor level before it`);

  const client = await TerrainClient.connect(server.url);
  let standing = 0;
  for (const t of after) {
    for (let i = 0; i < t.heights.length; i++) {
      const [x, z, y] = [t.points[2 * i]!, t.points[2 * i + 1]!, t.heights[i]!];
      if (onFloor(x, z)) {
        standing++;
        assert.ok(y >= floor.height, `entity ${i} at (${x}, ${z}) is at ${y}, below the floor at ${floor.height}`);
      }
    }
    const answer = await client.getHeights({ world: "main", coordinates: Array.from(t.points) });
    assert.equal(Number(answer.revision), t.revision, "the server is at the tick's revision");
    const at = firstBitDifference(t.heights, Float64Array.from(answer.heights));
    assert.equal(at, -1, `tick at revision ${t.revision}: entity ${at} snapped to ${t.heights[at]}, the server says ${answer.heights[at]}`);
  }
  assert.ok(standing > 1_000, `${standing} entity positions on the floor after its revision`);
});
