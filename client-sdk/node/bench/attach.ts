// `getHeightAt` through a game's TerrainSystem instance with attachTerrainServer, beside
// the same kind of instance left alone, in one process. The game's own code is not in
// this repository, so both instances are the tests' stand-in (test/standin-terrain.ts:
// the original's method names and internal calls, maths of its own, much cheaper than
// the original's); the original's own figures (TIMINGS.md, measured by running it) are
// printed beside, and the ratio against them is the one the targets are about.
//
// Seed 0 with its 28 reference zones (the first 28 of zones_seed0.json), registered by
// the game in `init`; attached with a token, so they reach the server. Points as in
// TIMINGS.md: uniform in the 350 m disc around the spawn, and 1 m tile centres
// `(floor(u) + 0.5)` uniform in the 100 m square around it; 10,000 points a pass after
// 500 warm-up calls, the median of 15 passes (wall time).
import { attachTerrainServer } from "../src/hyperscape";
import { gameZones, traceWorlds } from "../test/hyperscape-data";
import { TestServer } from "../test/server";
import { type Timed, disc, median, tileCentres, timePasses } from "./points";
import { StandInTerrainSystem } from "../test/standin-terrain";

/** The original's medians from TIMINGS.md, microseconds a call. */
const ORIGINAL = { disc: 8.36, tiles: 9.94 };
const TARGET = { disc: 10, tiles: 100 };

let sink = 0;

/** Median ns a call of `fn` over `points` (x, z pairs), 15 passes after one untimed:
 * wall and CPU time. */
function time(fn: (x: number, z: number) => number, points: Float64Array): Timed {
  return timePasses(15, points.length / 2, () => {
    for (let i = 0; i < points.length; i += 2) sink += fn(points[i]!, points[i + 1]!);
  }, 1);
}

const fmt = (ns: number): string => (ns < 1000 ? `${ns.toFixed(0)} ns` : `${(ns / 1000).toFixed(2)} µs`);
const both = (t: Timed): string => `${fmt(t.ns)} (${fmt(t.cpuNs)})`;

async function main(): Promise<void> {
  const server = await TestServer.start({ worlds: [], config: traceWorlds([0]), args: ["--admin-token", "bench"] });
  try {
    const zones = gameZones(0).slice(0, 28);
    const alone = new StandInTerrainSystem(zones);
    alone.init();
    const attached = new StandInTerrainSystem(gameZones(0).slice(0, 28));
    attached.init();
    const attachment = await attachTerrainServer(attached, { url: server.url, world: "seed0", token: "bench" });
    await attachment.flush();
    const sets = { disc: disc(10_000, 350, 11), tiles: tileCentres(10_000, 12) };
    const names = { disc: "uniform in the 350 m disc", tiles: "1 m tile centres in the 100 m square" };
    console.log(`Node ${process.version}, load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" ")}`);
    console.log("| points | stand-in alone | stand-in attached | HyperscapeTerrain alone | attached vs stand-in | original (TIMINGS.md) | attached vs original | target |");
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    const terrain = attachment.terrain;
    for (const key of ["tiles", "disc"] as const) {
      const own = time((x, z) => alone.getHeightAt(x, z), sets[key]);
      const via = time((x, z) => attached.getHeightAt(x, z), sets[key]);
      const direct = time((x, z) => terrain.getHeightAt(x, z), sets[key]);
      const vsOriginal = (ORIGINAL[key] * 1000) / via.ns;
      const met = vsOriginal >= TARGET[key] ? "met" : "NOT met";
      console.log(
        `| ${names[key]} | ${both(own)} | ${both(via)} | ${both(direct)} | ${(own.ns / via.ns).toFixed(1)}x | ${ORIGINAL[key]} µs | ${vsOriginal.toFixed(1)}x | ${TARGET[key]}x: ${met} |`,
      );
    }
    attachment.detach();
  } finally {
    await server.stop();
  }
  if (sink === 42) console.log("");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
