// `npm run bench`: what one height costs from Node, the replica beside the server.
//
//   npm run bench                          # starts the debug terrain-server itself
//   npm run bench -- http://127.0.0.1:8080 main
//
// Replica: heightAt and surfaceHeightAt per call, heights and surfaceHeights over
// 10,000 points per point (over WebAssembly also the module's Replica.surfaceHeightAt
// called directly, the package's method's one call); each row times its passes over the
// points one by one (after untimed ones) and reports the median pass (a build elsewhere on the machine slows some passes, not the
// call), in wall time and in this process's CPU time (`process.cpuUsage`: what the
// calls cost when other processes share the cores). Server, from the same process over loopback: GetHeight (gRPC, TerrainClient)
// and GET /v1/worlds/{w}/height (HTTP, fetch) per call, one at a time, and GetHeights
// over 10,000 points per point, each timed whole. Prints a Markdown table.
import { LocalTerrain, TerrainClient, pb } from "../src/index";
import { usingWasm } from "../src/native";
import { wasmPath } from "../src/wasm";
import { TestServer, randomPoints } from "../test/server";
import { timePasses } from "./points";

interface Row {
  what: string;
  calls: number;
  nsPer: number;
  /** CPU time per call or point (replica rows). */
  cpuNsPer?: number;
  unit: string;
}

/** Untimed runs of a row's `pass` before its timed ones: V8 optimises the pass itself
 * (a new function per row) while they run, so the timed runs time the calls, not V8's
 * tiers (without them, a row's first passes ran unoptimised: 90 ns where its later
 * ones took 60). */
const WARM_PASSES = 10;

/** A row of `passes` timed runs of `pass` (`perPass` calls or points each), after `warm`
 * untimed ones: the median's time per call. */
function time(what: string, unit: string, passes: number, perPass: number, pass: () => void, warm = WARM_PASSES): Row {
  const t = timePasses(passes, perPass, pass, warm);
  return { what, calls: passes * perPass, nsPer: t.ns, cpuNsPer: t.cpuNs, unit };
}

async function timeAsync(what: string, unit: string, calls: number, f: () => Promise<void>): Promise<Row> {
  const start = process.hrtime.bigint();
  await f();
  const ns = Number(process.hrtime.bigint() - start);
  return { what, calls, nsPer: ns / calls, unit };
}

function format(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(0)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const [givenUrl, givenWorld] = process.argv.slice(2);
  const server = givenUrl ? undefined : await TestServer.start({ worlds: ["main:hyperscape:0"] });
  const url = givenUrl ?? server!.url;
  const world = givenWorld ?? "main";
  try {
    const terrain = await LocalTerrain.open(url, world);
    const client = await TerrainClient.connect(url);
    const points = randomPoints(10_000, 2_000, 4242);
    const n = points.length / 2;
    let sink = 0;
    const rows: Row[] = [];

    // Warm-up: the first pass touches every tile the points fall in; then heightAt a
    // few passes, for V8 to optimise its caller.
    terrain.heights(points);
    terrain.surfaceHeights(points);
    for (let i = 0; i < n; i++) sink += terrain.surfaceHeightAt(points[2 * i]!, points[2 * i + 1]!);
    for (let r = 0; r < 3; r++) {
      for (let i = 0; i < n; i++) sink += terrain.heightAt(points[2 * i]!, points[2 * i + 1]!);
    }

    const rounds = 20;
    rows.push(
      time("replica heightAt(x, z)", "per call", rounds, n, () => {
        for (let i = 0; i < n; i++) sink += terrain.heightAt(points[2 * i]!, points[2 * i + 1]!);
      }),
    );
    // Entities clustered where they play: 10,000 points within 200 m (25 of
    // hyperscape's 100 m tiles), read ten times so that each tile is read often enough
    // to be kept, then timed.
    const near = randomPoints(10_000, 200, 777);
    for (let r = 0; r < 10; r++) {
      for (let i = 0; i < n; i++) sink += terrain.surfaceHeightAt(near[2 * i]!, near[2 * i + 1]!);
    }
    rows.push(
      time("replica surfaceHeightAt(x, z), cached tiles", "per call", rounds, n, () => {
        for (let i = 0; i < n; i++) sink += terrain.surfaceHeightAt(near[2 * i]!, near[2 * i + 1]!);
      }),
    );
    // Over WebAssembly, the same reads through the module's Replica.surfaceHeightAt
    // called directly (the package's method makes that one call, after its argument
    // checks): what the package's wrapping costs.
    if (usingWasm) {
      const info = ((await (await fetch(`${url}/v1/worlds`)).json()) as { worlds: { id: string }[] }).worlds.find((w) => w.id === world);
      const zones = await (await fetch(`${url}/v1/worlds/${world}/flat-zones`)).text();
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const module = require(wasmPath) as { Replica: new (world: string, zones: string) => { surfaceHeightAt(x: number, z: number): number; free(): void } };
      const replica = new module.Replica(JSON.stringify(info), zones);
      for (let r = 0; r < 10; r++) {
        for (let i = 0; i < n; i++) sink += replica.surfaceHeightAt(near[2 * i]!, near[2 * i + 1]!);
      }
      rows.push(
        time("module surfaceHeightAt(x, z), cached tiles (called directly)", "per call", rounds, n, () => {
          for (let i = 0; i < n; i++) sink += replica.surfaceHeightAt(near[2 * i]!, near[2 * i + 1]!);
        }),
      );
      replica.free();
    }
    // Reads all over 4 km (1,600 tiles, more than are kept), after the cached row so
    // that they do not fill the kept tiles before it.
    rows.push(
      time("replica surfaceHeightAt(x, z), points all over 4 km", "per call", 5, n, () => {
        for (let i = 0; i < n; i++) sink += terrain.surfaceHeightAt(points[2 * i]!, points[2 * i + 1]!);
      }, 0),
    );
    rows.push(
      time("replica surfaceHeights(10,000 points over 25 tiles)", "per point", rounds, n, () => {
        sink += terrain.surfaceHeights(near)[0]!;
      }),
    );
    rows.push(
      time("replica heights(10,000 points)", "per point", rounds, n, () => {
        sink += terrain.heights(points)[0]!;
      }),
    );
    rows.push(
      time("replica surfaceHeights(10,000 points all over 4 km)", "per point", rounds, n, () => {
        sink += terrain.surfaceHeights(points)[0]!;
      }, 0),
    );

    const calls = 500;
    for (let i = 0; i < 20; i++) await client.getHeight({ world, x: points[2 * i]!, z: points[2 * i + 1]! });
    rows.push(
      await timeAsync("server GetHeight (gRPC, one at a time)", "per call", calls, async () => {
        for (let i = 0; i < calls; i++) {
          sink += (await client.getHeight({ world, x: points[2 * i]!, z: points[2 * i + 1]! })).height;
        }
      }),
    );
    rows.push(
      await timeAsync("server GetHeight mode surface (gRPC)", "per call", calls, async () => {
        for (let i = 0; i < calls; i++) {
          const a = await client.getHeight({ world, x: points[2 * i]!, z: points[2 * i + 1]!, mode: pb.HeightMode.SURFACE });
          sink += a.height;
        }
      }),
    );
    rows.push(
      await timeAsync("server GET /height (HTTP, one at a time)", "per call", calls, async () => {
        for (let i = 0; i < calls; i++) {
          const r = await fetch(`${url}/v1/worlds/${world}/height?x=${points[2 * i]}&z=${points[2 * i + 1]}`);
          sink += ((await r.json()) as { height: number }).height;
        }
      }),
    );
    const coordinates = Array.from(points);
    const batches = 5;
    rows.push(
      await timeAsync("server GetHeights(10,000 points) (gRPC)", "per point", batches * n, async () => {
        for (let r = 0; r < batches; r++) sink += (await client.getHeights({ world, coordinates })).heights[0]!;
      }),
    );
    terrain.close();

    console.log(`\nNode ${process.version}, ${url} world ${world}, 10,000 random points within 2 km\n`);
    console.log("| what | calls | time | CPU time |");
    console.log("| --- | ---: | ---: | ---: |");
    for (const r of rows) {
      const cpu = r.cpuNsPer === undefined ? "" : `${format(r.cpuNsPer)} ${r.unit}`;
      console.log(`| ${r.what} | ${r.calls.toLocaleString("en")} | ${format(r.nsPer)} ${r.unit} | ${cpu} |`);
    }
    if (!Number.isFinite(sink)) console.log("(non-finite checksum)");
  } finally {
    await server?.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
