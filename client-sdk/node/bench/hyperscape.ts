// `npm run bench:hyperscape`: the Hyperscape adapter beside the original TerrainSystem's
// own figures (core/tests/data/hyperscape/adapter/TIMINGS.md: the original run under
// Node 20 on this machine class at load below 1, seed 0 with its 28 reference zones,
// 10,000 calls after 500 warm-up calls, median of three runs) and beside terrain-core's
// own time for the same answers, measured in this run on the same points.
//
//   npm run bench:hyperscape                 # starts the debug terrain-server itself
//
// Every row times passes over its points one by one and reports the median pass, in
// wall time and in this process's CPU time; the core's time is `hsCoreTime` (the same
// computation in Rust on the replica's view, no call into JavaScript), median of seven
// passes. Prints a Markdown table, then the path search, walkGrid and memory figures.
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";

import { HyperscapeTerrain } from "../src/hyperscape";
import { internals, usingWasm } from "../src/native";
import { gamePathSearch, gameZones, openHyperscape, traceWorlds } from "../test/hyperscape-data";
import { TestServer, xorshift as rng } from "../test/server";
import { type Timed, disc, median, tileCentres, timePasses } from "./points";

/** The original's medians from TIMINGS.md, microseconds a call. */
const ORIGINAL = {
  heightDisc: 8.36,
  heightTiles: 9.94,
  walkableDisc: 44.2,
  walkableTiles: 76.4,
  infoDisc: 94.3,
  pathSegments: 709,
};

/** `passes` timed runs of `pass` (`perPass` calls each): the median's time per call. */
const time = (passes: number, perPass: number, pass: () => void): Timed => timePasses(passes, perPass, pass);

function fmt(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(0)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}


interface Row {
  call: string;
  points: string;
  original?: number;
  target?: number;
  adapter: Timed;
  core?: number;
}

async function main(): Promise<void> {
  const server = await TestServer.start({ worlds: [], config: traceWorlds([0]) });
  const rows: Row[] = [];
  const lines: string[] = [];
  try {
    // (Over WebAssembly, TERRAIN_CLIENT_WASM=1: the world built offline from the server.)
    const terrain = await openHyperscape(server.url, "seed0");
    // The original's setting: seed 0 with its 28 reference zones (the first 28 of the
    // trace's zones: the stations and arenas, heights as the original resolves them).
    for (const zone of gameZones(0).slice(0, 28)) terrain.registerFlatZone(zone);
    await terrain.flush();
    const { fast, handle, tiles } = internals(terrain.replica);
    const n = 10_000;
    const inDisc = disc(n, 350, 11);
    const centres = tileCentres(n, 12);
    let sink = 0;
    const core = (kind: string, points: Float64Array): number => median(Array.from({ length: 7 }, () => fast.hsCoreTime(handle, kind, points, 1)));

    // Warm-up: V8 optimises the callers; tile centres read often enough take their blocks.
    for (let r = 0; r < 5; r++) {
      for (let i = 0; i < n; i++) {
        sink += terrain.getHeightAt(inDisc[2 * i]!, inDisc[2 * i + 1]!);
        sink += terrain.getHeightAt(centres[2 * i]!, centres[2 * i + 1]!);
        sink += terrain.isPositionWalkable(centres[2 * i]!, centres[2 * i + 1]!).walkable ? 1 : 0;
      }
    }
    for (let i = 0; i < 1_000; i++) {
      sink += terrain.isPositionWalkable(inDisc[2 * i]!, inDisc[2 * i + 1]!).walkable ? 1 : 0;
      sink += terrain.getTerrainInfoAt(inDisc[2 * i]!, inDisc[2 * i + 1]!).slope;
      sink += terrain.getNormalAt(inDisc[2 * i]!, inDisc[2 * i + 1]!).y;
      sink += terrain.getDifficultyAtWorldPosition(inDisc[2 * i]!, inDisc[2 * i + 1]!).scalar;
      sink += terrain.getFlatZoneAt(inDisc[2 * i]!, inDisc[2 * i + 1]!) === null ? 0 : 1;
    }

    const passes = 21;
    rows.push({
      call: "`getHeightAt`",
      points: "uniform in the 350 m disc",
      original: ORIGINAL.heightDisc,
      target: 15,
      adapter: time(passes, n, () => {
        for (let i = 0; i < n; i++) sink += terrain.getHeightAt(inDisc[2 * i]!, inDisc[2 * i + 1]!);
      }),
      core: core("height", inDisc),
    });
    rows.push({
      call: "`getHeightAt`",
      points: "1 m tile centres in the 100 m square",
      original: ORIGINAL.heightTiles,
      target: 100,
      adapter: time(passes, n, () => {
        for (let i = 0; i < n; i++) sink += terrain.getHeightAt(centres[2 * i]!, centres[2 * i + 1]!);
      }),
      core: core("height", centres),
    });
    const few = 2_000;
    rows.push({
      call: "`isPositionWalkable`",
      points: "the 350 m disc",
      original: ORIGINAL.walkableDisc,
      adapter: time(9, few, () => {
        for (let i = 0; i < few; i++) sink += terrain.isPositionWalkable(inDisc[2 * i]!, inDisc[2 * i + 1]!).walkable ? 1 : 0;
      }),
      core: core("blocked", inDisc.subarray(0, 2 * few)),
    });
    rows.push({
      call: "`isPositionWalkable`",
      points: "the tile centres",
      original: ORIGINAL.walkableTiles,
      target: 100,
      adapter: time(passes, n, () => {
        for (let i = 0; i < n; i++) sink += terrain.isPositionWalkable(centres[2 * i]!, centres[2 * i + 1]!).walkable ? 1 : 0;
      }),
      core: core("blocked", centres),
    });
    rows.push({
      call: "`getTerrainInfoAt`",
      points: "the 350 m disc",
      original: ORIGINAL.infoDisc,
      adapter: time(9, few, () => {
        for (let i = 0; i < few; i++) sink += terrain.getTerrainInfoAt(inDisc[2 * i]!, inDisc[2 * i + 1]!).slope;
      }),
      core: core("info", inDisc.subarray(0, 2 * few)),
    });
    // 1,000 segments of 100 m starting in the 300 m disc.
    const starts = disc(1_000, 300, 13);
    const r = rng(14);
    const segments = new Float64Array(4_000);
    for (let i = 0; i < 1_000; i++) {
      const a = 2 * Math.PI * r();
      segments.set([starts[2 * i]!, starts[2 * i + 1]!, starts[2 * i]! + 100 * Math.cos(a), starts[2 * i + 1]! + 100 * Math.sin(a)], 4 * i);
    }
    rows.push({
      call: "`findWalkablePath`",
      points: "1,000 segments of 100 m from the 300 m disc",
      original: ORIGINAL.pathSegments,
      adapter: time(5, 1_000, () => {
        for (let i = 0; i < 1_000; i++) sink += terrain.findWalkablePath(segments[4 * i]!, segments[4 * i + 1]!, segments[4 * i + 2]!, segments[4 * i + 3]!).blocked ? 1 : 0;
      }),
      core: core("sampled", segments),
    });
    rows.push({
      call: "`getNormalAt`",
      points: "the 350 m disc",
      adapter: time(9, few, () => {
        for (let i = 0; i < few; i++) sink += terrain.getNormalAt(inDisc[2 * i]!, inDisc[2 * i + 1]!).y;
      }),
      core: core("normal", inDisc.subarray(0, 2 * few)),
    });
    rows.push({
      call: "`getDifficultyAtWorldPosition`",
      points: "the 350 m disc",
      adapter: time(passes, n, () => {
        for (let i = 0; i < n; i++) sink += terrain.getDifficultyAtWorldPosition(inDisc[2 * i]!, inDisc[2 * i + 1]!).scalar;
      }),
      core: core("difficulty", inDisc),
    });
    rows.push({
      call: "`getFlatZoneAt`",
      points: "the 350 m disc",
      adapter: time(passes, n, () => {
        for (let i = 0; i < n; i++) sink += terrain.getFlatZoneAt(inDisc[2 * i]!, inDisc[2 * i + 1]!) === null ? 0 : 1;
      }),
      core: core("zoneAt", inDisc),
    });
    rows.push({
      call: "`getProceduralHeightAt`",
      points: "the 350 m disc",
      adapter: time(passes, n, () => {
        for (let i = 0; i < n; i++) sink += terrain.getProceduralHeightAt(inDisc[2 * i]!, inDisc[2 * i + 1]!);
      }),
      core: core("procedural", inDisc),
    });
    rows.push({
      call: "a bare call into the addon (`hsCrossing`)",
      points: "",
      adapter: time(passes, n, () => {
        for (let i = 0; i < n; i++) sink += fast.hsCrossing(i, 1);
      }),
    });
    // The kind of call `getHeightAt` and `getProceduralHeightAt` make: a function the
    // addon made from a closure, with no handle and no argument borrow scope.
    const crossingFn = fast.hsCrossingFn();
    rows.push({
      call: "a bare call into a bound function (`hsCrossingFn`)",
      points: "",
      adapter: time(passes, n, () => {
        for (let i = 0; i < n; i++) sink += crossingFn(i, 1);
      }),
    });

    // The game's path search, 1,000 times: breadth-first over 1 m tiles (radius 128, at
    // most 8,000 iterations, eight directions, isPositionWalkable at each tile's centre)
    // between walkable tiles near the spawn, 10 to 60 tiles apart.
    const table = terrain.walkGrid(-256, -256, 512, 512);
    const tableWalkable = (tx: number, tz: number): boolean => {
      const i = tx + 256;
      const j = tz + 256;
      return i >= 0 && j >= 0 && i < 512 && j < 512 && (table[j * 512 + i]! & 1) !== 0;
    };
    const pr = rng(15);
    const searches: [{ x: number; z: number }, { x: number; z: number }][] = [];
    while (searches.length < 1_000) {
      const a = { x: Math.floor(pr() * 200 - 100), z: Math.floor(pr() * 200 - 100) };
      const d = 10 + pr() * 50;
      const t = 2 * Math.PI * pr();
      const b = { x: a.x + Math.round(d * Math.cos(t)), z: a.z + Math.round(d * Math.sin(t)) };
      if (tableWalkable(a.x, a.z) && tableWalkable(b.x, b.z)) searches.push([a, b]);
    }
    let calls = 0;
    const counted = (tx: number, tz: number): boolean => {
      calls++;
      return tableWalkable(tx, tz);
    };
    for (const [a, b] of searches.slice(0, 50)) gamePathSearch(a, b, counted);
    calls = 0;
    const overhead = time(1, 1, () => {
      for (const [a, b] of searches) gamePathSearch(a, b, counted);
    });
    const tableCalls = calls;
    const viaAdapter = (tx: number, tz: number): boolean => terrain.isPositionWalkable(tx + 0.5, tz + 0.5).walkable;
    for (const [a, b] of searches.slice(0, 50)) gamePathSearch(a, b, viaAdapter);
    let found = 0;
    const searchTimes = time(3, 1, () => {
      found = 0;
      for (const [a, b] of searches) if (gamePathSearch(a, b, viaAdapter) !== null) found++;
    });
    const originalSearch = overhead.ns + tableCalls * ORIGINAL.walkableTiles * 1_000;
    lines.push(
      `- The game's path search x 1,000 (${found} reached their goal; ${tableCalls.toLocaleString("en")} isPositionWalkable calls): ` +
        `${fmt(searchTimes.ns)} through the adapter (CPU ${fmt(searchTimes.cpuNs)}); the same searches over a table cost ${fmt(overhead.ns)}, ` +
        `so with the original's 76.4 µs per call at tile centres they would take at least ${fmt(originalSearch)}: ` +
        `${(originalSearch / searchTimes.ns).toFixed(0)}x (target 100x: ${originalSearch / searchTimes.ns >= 100 ? "met" : "missed"}).`,
    );

    // walkGrid of 100 x 100 tiles on the island (nine areas 256 m apart, no block
    // shared): the first call on tiles never read computes the rectangle; the second
    // takes the blocks it covers (64 x 64 tiles each: the cost of keeping them); later
    // ones copy from kept blocks. Beside 10,000 of the original's isPositionWalkable
    // calls at tile centres.
    const areas = Array.from({ length: 9 }, (_, k) => [-448 + 256 * (k % 3) + 37, -448 + 256 * Math.floor(k / 3) + 21] as const);
    const grids = (): number[] =>
      areas.map(([x0, z0]) => {
        const t0 = process.hrtime.bigint();
        sink += terrain.walkGrid(x0, z0, 100, 100)[0]!;
        return Number(process.hrtime.bigint() - t0);
      });
    const cold = median(grids());
    const taking = median(grids());
    const warmGrid = median(Array.from({ length: 21 }, () => median(grids())));
    const coreGrid = median(Array.from({ length: 3 }, () => fast.hsCoreTime(handle, "grid", new Float64Array(areas.flat()), 1)));
    const originalGrid = 10_000 * ORIGINAL.walkableTiles * 1_000;
    const gridTarget = originalGrid / cold >= 200 ? "met" : "missed";
    lines.push(
      `- walkGrid of 100 x 100 tiles: ${fmt(cold)} on tiles never read (core's Walker::grid alone: ${fmt(coreGrid)}), ` +
        `${fmt(taking)} for the call that takes their blocks, ${fmt(warmGrid)} from kept blocks; 10,000 of the original's ` +
        `isPositionWalkable calls at tile centres take ${fmt(originalGrid)}: ${(originalGrid / cold).toFixed(0)}x, ` +
        `${(originalGrid / taking).toFixed(0)}x and ${(originalGrid / warmGrid).toFixed(0)}x (target 200x on tiles never read: ${gridTarget}).`,
    );
    terrain.close();

    // Memory, in a process of its own (bench/hyperscape-memory.ts): 1,000 zones
    // registered through the adapter and a 2 km square visited.
    // (Asynchronously: this process reads the server's log, which must keep flowing.)
    // (Not over WebAssembly: it opens a following replica, the follower's work.)
    if (usingWasm) {
      lines.push("- Memory: not measured over WebAssembly (the benchmark follows a server).");
    } else {
      const child = spawn(process.execPath, ["--expose-gc", join(__dirname, "hyperscape-memory.js"), server.url, "seed0"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let memory = "";
      child.stdout.on("data", (c: Buffer) => (memory += c.toString()));
      const code = await new Promise<number | null>((ok) => child.on("exit", ok));
      if (code !== 0) throw new Error(`the memory benchmark exited with ${code}`);
      lines.push(memory.trim());
    }

    console.log(`\nNode ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}; the original's figures from TIMINGS.md (its own run, load below 1)\n`);
    console.log("| call | points | original (TIMINGS.md) | adapter (CPU time) | vs the original | target | core's own time | adapter / core |");
    console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const row of rows) {
      const original = row.original === undefined ? "" : `${row.original} µs`;
      const ratio = row.original === undefined ? "" : `${((row.original * 1000) / row.adapter.ns).toFixed(1)}x`;
      const target = row.target === undefined ? "" : `${row.target}x: ${(row.original! * 1000) / row.adapter.ns >= row.target ? "met" : "missed"}`;
      const core = row.core === undefined ? "" : fmt(row.core);
      const vsCore = row.core === undefined ? "" : `${(row.adapter.ns / row.core).toFixed(2)}`;
      console.log(`| ${row.call} | ${row.points} | ${original} | ${fmt(row.adapter.ns)} (${fmt(row.adapter.cpuNs)}) | ${ratio} | ${target} | ${core} | ${vsCore} |`);
    }
    console.log("");
    for (const line of lines) console.log(line);
    console.log(`- Tile blocks taken by the timed replica: ${tiles.taken}.`);
    if (!Number.isFinite(sink)) console.log("(non-finite checksum)");
  } finally {
    await server.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
