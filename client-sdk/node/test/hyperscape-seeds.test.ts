// The Hyperscape adapter on the seeds the traces do not cover: for seeds 2, 3, 4, 5 and 7
// (core/tests/data/hyperscape/seeds, made by running the original game's code; seeds 2-4
// and 7 have mountain centres, which seed 0 lacks), a server world as the tables were
// made. With no zones, getHeightAt and getProceduralHeightAt at every row of
// heights_seed{S}.csv equal the original's bit for bit; then with the table's 28 zones
// registered through the adapter, getTerrainInfoAt and isPositionWalkable at every row of
// walk_seed{S}.csv equal the original's (numbers with Object.is, strings and booleans
// exactly). Nothing here is specific to a seed: the same code checks each.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";

import { HyperscapeTerrain } from "../src/hyperscape";
import type { FlatZone } from "../src/hyperscape";
import { num, traceWorlds, openHyperscape } from "./hyperscape-data";
import { TestServer } from "./server";

const SEEDS = [2, 3, 4, 5, 7];
const DATA = resolve(__dirname, "..", "..", "..", "..", "core", "tests", "data", "hyperscape", "seeds");

/** The rows of a table: each a record of its columns' text. */
function table(file: string): Record<string, string>[] {
  const lines = readFileSync(join(DATA, file), "utf8").split("\n").filter((l) => l.length > 0);
  const header = lines[0]!.split(",");
  return lines.slice(1).map((line) => {
    const f = line.split(",");
    const row: Record<string, string> = {};
    header.forEach((h, i) => (row[h] = f[i] ?? ""));
    return row;
  });
}

function same(got: unknown, want: unknown, what: string): void {
  assert.ok(Object.is(got, want), `${what}: ${String(got)} (${typeof got}) !== ${String(want)} (${typeof want})`);
}

describe("HyperscapeTerrain against the original's tables of other seeds", () => {
  let server: TestServer;
  const terrains = new Map<number, HyperscapeTerrain>();
  before(async () => {
    server = await TestServer.start({ worlds: [], config: traceWorlds(SEEDS), args: ["--admin-token", "seeds-admin"] });
    for (const seed of SEEDS) {
      terrains.set(seed, await openHyperscape(server.url, `seed${seed}`, { token: "seeds-admin" }));
    }
  });
  after(async () => {
    for (const t of terrains.values()) t.close();
    await server?.stop();
  });

  for (const seed of SEEDS) {
    test(`seed ${seed}: heights, then terrain info and walkability with the zones`, async () => {
      const terrain = terrains.get(seed)!;
      const heights = table(`heights_seed${seed}.csv`);
      assert.equal(heights.length, 2000);
      for (const row of heights) {
        const [x, z] = [num(row.x!), num(row.z!)];
        const at = `seed ${seed} (${row.x}, ${row.z})`;
        same(terrain.getHeightAt(x, z), num(row.final!), `${at} getHeightAt`);
        same(terrain.getProceduralHeightAt(x, z), num(row.procedural!), `${at} getProceduralHeightAt`);
      }

      const zones = JSON.parse(readFileSync(join(DATA, `flat_zones_seed${seed}.json`), "utf8")) as FlatZone[];
      assert.equal(zones.length, 28);
      const errors: Error[] = [];
      terrain.on("error", (e: Error) => errors.push(e));
      for (const zone of zones) terrain.registerFlatZone(zone);
      await terrain.flush();
      assert.deepEqual(errors, [], "no zone refused");

      const walk = table(`walk_seed${seed}.csv`);
      assert.equal(walk.length, 2000);
      let blocked = 0;
      for (const row of walk) {
        const [x, z] = [num(row.x!), num(row.z!)];
        const at = `seed ${seed} (${row.x}, ${row.z})`;
        const info = terrain.getTerrainInfoAt(x, z);
        same(info.height, num(row.height!), `${at} height`);
        same(info.biome, row.biome, `${at} biome`);
        same(info.slope, num(row.slope!), `${at} slope`);
        same(info.underwater, row.underwater === "true", `${at} underwater`);
        same(info.walkable, row.walkable === "true", `${at} walkable`);
        const check = terrain.isPositionWalkable(x, z);
        same(check.walkable, row.walkable === "true", `${at} isPositionWalkable`);
        same(check.reason ?? "", row.reason, `${at} reason`);
        if (!check.walkable) blocked += 1;
      }
      // The table exercises both answers (water and slopes block some of its points).
      assert.ok(blocked > 0 && blocked < walk.length, `seed ${seed}: ${blocked} blocked`);
    });
  }
});
