// `npm run bench:browser`: terrain-client/web in headless Chromium (Debian's
// /usr/bin/chromium through playwright-core), against the debug terrain-server the tests
// use, in the original's setting (seed 0 with its 28 reference zones, committed through
// Node's adapter). The page is test/browser/page.html on another origin, as in the tests.
//
//   npm run bench:browser              # after npm run build and the web build
//   RUNS=5 npm run bench:browser
//
// Each run is a fresh browser and page; each figure is the median of the runs' medians:
// - load: navigation to the module loaded and initialised (page.html's `readyAt`);
// - open: `HyperscapeTerrain.open(url, "seed0")` to the first `getHeightAt` answer;
// - getHeightAt at 10,000 points uniform in the 350 m disc around the spawn and at
//   10,000 1 m tile centres `(floor(u) + 0.5)` in the 100 m square around it (20
//   warm-up passes, then 11 timed passes with performance.now(); median pass, per call:
//   a page that has played a while, see WARM_PASSES);
// - tile: `tile(tx, tz)` of 24 distinct tiles one after another (computed in the Web
//   Worker; the first, which starts it, apart), and Node's replica's `tileMesh` of the
//   same tiles;
// - size: the browser entry's bytes (every file the page fetched but the test's: the module,
//   its ES glue, dist/web, the modules it imports, the worker), raw and gzipped at level 9.
// The original TerrainSystem's figures for the same calls (TIMINGS.md) were taken under
// Node 20, not in a browser: beside these, not a ratio measured side by side.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

import { HyperscapeTerrain } from "../src/hyperscape";
import { internals, usingWasm } from "../src/native";
import { gameZones, traceWorlds } from "../test/hyperscape-data";
import { TestServer } from "../test/server";
import { disc, median, tileCentres, timePasses } from "./points";
import { PACKAGE, PAGE, type Tab, f64ToB64, openTab, serveStatic } from "../test/browser/harness";

/** Untimed passes over the points (10,000 calls each) before the timed ones. Chromium
 * compiles the module's functions quickly first and runs optimised code for the hot
 * ones only once its background compiler has made it: after two passes the disc's
 * heights still ran partly unoptimised (970-1,200 ns a height against 650-670 ns after
 * twenty, in alternating runs on 2026-12-07). A game's page calls `getHeightAt` for
 * its camera, players and minimap all the time; twenty passes take about 0.2 s. */
const WARM_PASSES = 20;

const TOKEN = "bench-admin";

interface Run {
  loadMs: number;
  openMs: number;
  discNs: number;
  centresNs: number;
  firstTileMs: number;
  tileMs: number;
  /** The same calls through Node's adapter in this process, right after the page's. */
  nodeDiscNs: number;
  nodeCentresNs: number;
  /** Node's replica's `tileMesh` of the same tiles (the second to the last: median). */
  nodeTileMs: number;
  /** terrain-core's own time for the same heights, in Rust with no call from
   * JavaScript (the addon's `hsCoreTime`, median of 7). */
  coreDiscNs: number;
  coreCentresNs: number;
}

/** `getHeightAt` through Node's adapter over `pts`: WARM_PASSES untimed passes, the median of 11. */
function timeNode(node: HyperscapeTerrain, pts: Float64Array): number {
  const n = pts.length / 2;
  let sink = 0;
  const t = timePasses(11, n, () => {
    for (let i = 0; i < n; i++) sink += node.getHeightAt(pts[2 * i]!, pts[2 * i + 1]!);
  }, WARM_PASSES);
  if (Number.isNaN(sink)) throw new Error("a NaN height");
  return t.ns;
}

async function run(tab: Tab, origin: string, url: string, node: HyperscapeTerrain): Promise<Run> {
  await tab.goto(`${origin}${PAGE}`);
  await tab.waitFor(() => (window as any).pageReady === true, 60_000);
  const { loadMs, openMs, webError } = await tab.evaluate(
    async ({ url }) => {
      const w = window as any;
      if (!w.web) return { loadMs: 0, openMs: 0, webError: String(w.webError) };
      const t0 = performance.now();
      w.terrain = await w.web.HyperscapeTerrain.open(url, "seed0");
      w.first = w.terrain.getHeightAt(70, 92);
      return { loadMs: w.readyAt as number, openMs: performance.now() - t0, webError: undefined };
    },
    { url },
  );
  if (webError !== undefined) throw new Error(`terrain-client/web did not load: ${webError}`);
  const time = (pts: Float64Array): Promise<number> =>
    tab.evaluate(
      ({ pts, warm }) => {
        const w = window as any;
        const t = w.terrain;
        const p: Float64Array = w.unb64f64(pts);
        const n = p.length / 2;
        let sink = 0;
        // Warm-up (WARM_PASSES): the engine tiers the module's hot functions up lazily.
        for (let pass = 0; pass < warm; pass++) for (let i = 0; i < n; i++) sink += t.getHeightAt(p[2 * i], p[2 * i + 1]);
        const passes: number[] = [];
        for (let pass = 0; pass < 11; pass++) {
          const t0 = performance.now();
          for (let i = 0; i < n; i++) sink += t.getHeightAt(p[2 * i], p[2 * i + 1]);
          passes.push(((performance.now() - t0) * 1e6) / n);
        }
        w.sink = sink;
        passes.sort((a, b) => a - b);
        return passes[5]!;
      },
      { pts: f64ToB64(pts), warm: WARM_PASSES },
    );
  const discPoints = disc(10_000, 350, 11);
  const centrePoints = tileCentres(10_000, 12);
  const discNs = await time(discPoints);
  const centresNs = await time(centrePoints);
  const nodeDiscNs = timeNode(node, discPoints);
  const nodeCentresNs = timeNode(node, centrePoints);
  const tiles = await tab.evaluate(async () => {
    const t = (window as any).terrain;
    const times: number[] = [];
    for (let k = 0; k < 25; k++) {
      const t0 = performance.now();
      const m = await t.tile((k % 5) - 2, Math.floor(k / 5) - 2);
      if (m.positions.length !== 64 * 64 * 3) throw new Error("not a 64 x 64 tile");
      times.push(performance.now() - t0);
    }
    return times;
  }, null);
  const { fast, handle } = internals(node.replica);
  const core = (pts: Float64Array): number => median(Array.from({ length: 7 }, () => fast.hsCoreTime(handle, "height", pts, 1)));
  const coreDiscNs = core(discPoints);
  const coreCentresNs = core(centrePoints);
  const nodeTiles: number[] = [];
  for (let k = 0; k < 25; k++) {
    const t0 = process.hrtime.bigint();
    const mesh = node.replica.tileMesh((k % 5) - 2, Math.floor(k / 5) - 2);
    if (mesh.positions.length !== 64 * 64 * 3) throw new Error("not a 64 x 64 tile");
    nodeTiles.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return {
    loadMs,
    openMs,
    discNs,
    centresNs,
    firstTileMs: tiles[0]!,
    tileMs: median(tiles.slice(1)),
    nodeDiscNs,
    nodeCentresNs,
    nodeTileMs: median(nodeTiles.slice(1)),
    coreDiscNs,
    coreCentresNs,
  };
}

/** The browser entry's files: every file the pages fetched but the test's own (the
 * module, its ES glue, dist/web and the modules it imports, the worker's script). */
function entrySize(served: Iterable<string>): { files: number; raw: number; gzip: number; wasmGzip: number } {
  const files = [...served].filter((p) => !p.startsWith("/test/"));
  let raw = 0;
  let gzip = 0;
  let wasmGzip = 0;
  for (const f of files) {
    const bytes = readFileSync(join(PACKAGE, f));
    const z = gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gzip += z;
    if (f.endsWith(".wasm")) wasmGzip += z;
  }
  return { files: files.length, raw, gzip, wasmGzip };
}

async function main(): Promise<void> {
  const runs = Number(process.env.RUNS ?? 3);
  const pages = await serveStatic();
  const server = await TestServer.start({ worlds: [], config: traceWorlds([0]), args: ["--admin-token", TOKEN, "--cors-origin", pages.origin] });
  const results: Run[] = [];
  let version = "";
  let node: HyperscapeTerrain | undefined;
  try {
    node = await HyperscapeTerrain.open(server.url, "seed0", { token: TOKEN });
    for (const zone of gameZones(0).slice(0, 28)) node.registerFlatZone(zone);
    await node.flush();
    for (let r = 0; r < runs; r++) {
      const tab = await openTab("chromium");
      try {
        version = tab.version;
        results.push(await run(tab, pages.origin, server.url, node));
        if (tab.errors.length > 0) throw new Error(`page errors: ${tab.errors.join("; ")}`);
      } finally {
        await tab.close();
      }
      console.error(`run ${r + 1}: ${JSON.stringify(results[results.length - 1])}`);
    }
  } finally {
    node?.close();
    await server.stop();
    await pages.close();
  }
  const m = (k: keyof Run): number => median(results.map((r) => r[k]));
  const range = (k: keyof Run, digits = 0): string => `${Math.min(...results.map((r) => r[k])).toFixed(digits)}-${Math.max(...results.map((r) => r[k])).toFixed(digits)}`;
  const size = entrySize(pages.served.keys());
  console.error(`the entry: ${[...pages.served.keys()].filter((p) => !p.startsWith("/test/")).join(" ")}`);
  const load = loadavg().map((l) => l.toFixed(2)).join(" ");
  console.log(`Chromium ${version}, ${new Date().toISOString().slice(0, 16)}Z, load ${load}, median of ${runs} runs:\n`);
  console.log(`Node's adapter timed in the same runs: ${usingWasm ? "over WebAssembly" : "the native addon"}.\n`);
  console.log("| figure | terrain-client/web in Chromium | Node's adapter, same runs | terrain-core, same runs | the original (Node 20, TIMINGS.md, another day) |");
  console.log("|---|---:|---:|---:|---:|");
  console.log(`| \`getHeightAt\`, uniform in the 350 m disc | ${m("discNs").toFixed(0)} ns (${range("discNs")}) | ${m("nodeDiscNs").toFixed(0)} ns (${range("nodeDiscNs")}) | ${m("coreDiscNs").toFixed(0)} ns (${range("coreDiscNs")}) | 8.36 µs (7.24-8.78) |`);
  console.log(`| \`getHeightAt\`, 1 m tile centres in the 100 m square | ${m("centresNs").toFixed(0)} ns (${range("centresNs")}) | ${m("nodeCentresNs").toFixed(0)} ns (${range("nodeCentresNs")}) | ${m("coreCentresNs").toFixed(0)} ns (${range("coreCentresNs")}) | 9.94 µs (9.72-10.50) |`);
  console.log(`| \`tile(tx, tz)\` in the worker, 64 x 64 vertices (Node: the replica's \`tileMesh\`) | ${m("tileMs").toFixed(1)} ms (${range("tileMs", 1)}; the first, starting the worker: ${m("firstTileMs").toFixed(0)} ms) | ${m("nodeTileMs").toFixed(1)} ms (${range("nodeTileMs", 1)}) | | |`);
  console.log(`| \`open\` to the first \`getHeightAt\` answer | ${m("openMs").toFixed(0)} ms (${range("openMs")}; page load to the module ready: ${m("loadMs").toFixed(0)} ms) | | | |`);
  console.log(`| the entry's size (the ${size.files} files the page fetched: module, glue, dist/web and what it imports) | ${size.raw.toLocaleString("en")} B, ${size.gzip.toLocaleString("en")} B gzipped (module alone ${size.wasmGzip.toLocaleString("en")} B) | | | |`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
