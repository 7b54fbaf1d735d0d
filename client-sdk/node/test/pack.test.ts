// The package as users install it: `npm pack` (its prepack check included), the tarball
// installed into an empty project with a PATH that holds no cargo, and the game server
// of the installed package's README run from it with Node against a real server: its
// heights are the server's, bit for bit, and the building it registers through the
// adapter reaches a second process's replica (the README's watcher). The package's
// types compile in a TypeScript project, and `require("./client-sdk/node/hyperscape")`
// works from the repository root; the browser entry imports from the installed package
// (every file of its module graph packed). And the package on a platform its native addon does not
// match: the same tarball with `terrain_node.node` taken out, installed without cargo,
// loads the WebAssembly build and answers the server's bits (the trace's heights) and
// follows a zone change (`TERRAIN_CLIENT_WASM=0`, which forbids WebAssembly, then fails to
// load: the addon is really gone).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";

import { TestServer, firstBitDifference } from "./server";
import { num, traceRows, traceWorlds } from "./hyperscape-data";

const PKG = resolve(__dirname, "..", "..");
const ROOT = resolve(PKG, "..", "..");
const TOKEN = "pack-admin";

/** Node's and npm's directory and the system's, nothing else: no ~/.cargo/bin. */
const PATH = [...new Set([dirname(process.execPath), "/usr/bin", "/bin"])].join(delimiter);
const ENV: NodeJS.ProcessEnv = { HOME: process.env.HOME, PATH, npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? tmpdir(), ".npm") };

/** The addon was built by `npm run build` (what the package must carry). */
function packable(): string | undefined {
  const meta = join(PKG, "terrain_node.json");
  if (!existsSync(meta)) return "no terrain_node.json: the addon was not built by npm run build";
  const m = JSON.parse(readFileSync(meta, "utf8")) as { profile: string };
  return m.profile === "node-release" ? undefined : `the addon was built with the ${m.profile} profile (npm run build makes node-release)`;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = ENV): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** `node file args` in `cwd` with the cargo-less PATH, asynchronously (this process reads
 * the server's log, which must keep flowing): its standard output. */
function node(file: string, args: string[], cwd: string): Promise<string> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [file, ...args], { cwd, env: ENV, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) ok(out);
      else fail(new Error(`node ${file} exited ${code}:\n${out}\n${err}`));
    });
  });
}

/** The code block between `<!-- name:start -->` and `<!-- name:end -->` of a README. */
function snippet(readme: string, name: string): string {
  const m = new RegExp(`<!-- ${name}:start -->\\s*\`\`\`js\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(readme);
  assert.ok(m, `the README's ${name} snippet`);
  return m[1]!;
}

describe("the packed package, installed without cargo", { skip: packable() }, () => {
  let server: TestServer;
  let dir: string;
  let project: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "terrain-pack-"));
    project = join(dir, "game");
    mkdirSync(project);
    server = await TestServer.start({ worlds: [], config: traceWorlds([0]), args: ["--admin-token", TOKEN] });
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("npm pack, npm install into an empty project, the README's game server and a second process's replica", async () => {
    assert.equal(spawnSync("cargo", ["--version"], { env: ENV }).error?.message.includes("ENOENT"), true, "no cargo on the PATH the project sees");
    // The package's own prepack check runs with the full PATH (npm pack in the package).
    const packed = run("npm", ["pack", "--pack-destination", dir, "--silent"], PKG, process.env).trim().split("\n").pop()!;
    const tarball = join(dir, packed);
    assert.ok(existsSync(tarball), tarball);
    const listing = run("tar", ["-tzf", tarball], dir).split("\n");
    for (const f of ["package/terrain_node.node", "package/terrain_node.json", "package/dist/src/hyperscape.js", "package/dist/src/hyperscape.d.ts", "package/dist/src/addon.d.ts", "package/dist/src/gen/terrain/v1/terrain_pb.js", "package/hyperscape.js", "package/README.md"]) {
      assert.ok(listing.includes(f), `the tarball holds ${f}`);
    }
    assert.ok(!listing.some((f) => f.startsWith("package/dist/test/") || f.startsWith("package/addon/") || f.startsWith("package/src/")), "no tests or sources");

    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "game", version: "1.0.0", private: true }));
    run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], project);
    const installed = join(project, "node_modules", "terrain-client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    assert.equal(manifest.private, undefined);
    const readme = readFileSync(join(installed, "README.md"), "utf8");
    writeFileSync(join(project, "game-server.js"), snippet(readme, "game-server"));
    writeFileSync(join(project, "watcher.js"), snippet(readme, "watcher"));

    const out = JSON.parse(await node("game-server.js", [server.url, "seed0", TOKEN], project)) as {
      revision: number;
      players: { x: number; z: number; y: number; canStand: boolean }[];
      house: number;
    };
    const points = new Float64Array(out.players.flatMap((p) => [p.x, p.z]));
    const served = await server.heights("seed0", points);
    assert.equal(served.revision, out.revision, "the server is at the game server's last revision");
    const at = firstBitDifference(new Float64Array(out.players.map((p) => p.y)), served.heights);
    assert.equal(at, -1, `player ${at}: ${out.players[at]?.y} != the server's ${served.heights[at]}`);
    const { zone } = await server.json("GET", "/v1/worlds/seed0/flat-zones/house_1");
    assert.equal(zone.tileMask.length, 48, "the footprint reached the server");
    assert.equal(out.house, zone.height, "the floor decided in the game server at once");

    const seen = JSON.parse(await node("watcher.js", [server.url, "seed0", String(out.revision)], project)) as { zone: string; height: number };
    assert.deepEqual(seen, { zone: "house_1", height: zone.height }, "a second process's replica has the building");

    // The browser entry's module graph is all in the tarball: importing it resolves every
    // file it imports (dist/web, what it shares from dist/, the module's ES glue).
    const web = run(process.execPath, ["--input-type=module", "-e", 'const m = await import("terrain-client/web"); console.log(typeof m.HyperscapeTerrain.open, typeof m.attachTerrainServer)'], project);
    assert.equal(web.trim(), "function function", "terrain-client/web imports from the installed package");

    // The types: a TypeScript project using both entry points (package exports, node16).
    writeFileSync(
      join(project, "check.ts"),
      [
        'import { HyperscapeTerrain, type FlatZone, type DifficultySample } from "terrain-client/hyperscape";',
        'import { LocalTerrain, TerrainClient, pb } from "terrain-client";',
        "export async function check(url: string): Promise<number> {",
        '  const t = await HyperscapeTerrain.open(url, "seed0", { token: "x" });',
        '  const zone: FlatZone = { id: "a", centerX: 0, centerZ: 0, width: 4, depth: 4, height: 1, blendRadius: 1, tileMask: new Set(["0,0"]) };',
        "  t.registerFlatZone(zone);",
        "  const d: DifficultySample = t.getDifficultyAtWorldPosition(1, 2);",
        "  const grid: Uint8Array = t.walkGrid(0, 0, 4, 4);",
        '  const r: LocalTerrain = await LocalTerrain.open(url, "seed0");',
        "  void TerrainClient; void pb.HeightMode.SURFACE;",
        "  return t.getHeightAt(1, 2) + d.level + grid[0]! + r.heightAt(0, 0);",
        "}",
        "",
      ].join("\n"),
    );
    const tsc = join(PKG, "node_modules", "typescript", "bin", "tsc");
    const types = join(PKG, "node_modules", "@types");
    run(process.execPath, [tsc, "--noEmit", "--strict", "--module", "node16", "--moduleResolution", "node16", "--target", "es2022", "--lib", "es2022,dom", "--typeRoots", types, "--types", "node", "check.ts"], project);
  });

  test("require(\"./client-sdk/node/hyperscape\") from the repository root", () => {
    const out = run(process.execPath, ["-e", 'const { HyperscapeTerrain, NOT_PROVIDED } = require("./client-sdk/node/hyperscape"); console.log(typeof HyperscapeTerrain.open, Object.keys(NOT_PROVIDED).length > 0)'], ROOT, process.env);
    assert.equal(out.trim(), "function true");
  });
});

/** The WebAssembly build and the compiled JavaScript are in place (`npm run build`). */
function wasmBuilt(): string | undefined {
  for (const f of ["wasm/terrain_wasm_bg.wasm", "wasm/terrain_wasm_node.js", "dist/src/index.js"]) {
    if (!existsSync(join(PKG, f))) return `${f} is missing: npm run build makes it`;
  }
  return undefined;
}

/** The installed package's probe: a replica opened from the server, the heights of the
 * points in points.json, then a zone PUT (with the token) and the heights once the
 * replica reached its revision; which backend answered. */
const PROBE = `const { LocalTerrain, usingWasm } = require("terrain-client");
const { readFileSync } = require("node:fs");
async function main() {
  const [url, world, token] = process.argv.slice(2);
  const points = new Float64Array(JSON.parse(readFileSync("points.json", "utf8")));
  const terrain = await LocalTerrain.open(url, world);
  const before = { revision: terrain.revision, heights: Array.from(terrain.heights(points)) };
  const r = await fetch(url + "/v1/worlds/" + world + "/flat-zones/plaza", {
    method: "PUT",
    headers: { authorization: "Bearer " + token, "content-type": "application/json" },
    body: JSON.stringify({ centerX: 0, centerZ: 0, width: 30, depth: 30, height: 33, blendRadius: 5 }),
  });
  if (!r.ok) throw new Error("PUT: " + r.status + " " + (await r.text()));
  const { revision } = await r.json();
  await terrain.waitForRevision(revision);
  const after = { revision: terrain.revision, heights: Array.from(terrain.heights(points)), zone: terrain.zoneAt(0, 0) };
  terrain.close();
  console.log(JSON.stringify({ usingWasm, before, after }));
}
main().catch((e) => { console.error(e); process.exit(1); });
`;

describe("the packed package without its native addon: WebAssembly, installed without cargo", { skip: wasmBuilt() }, () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "terrain-pack-wasm-"));
    server = await TestServer.start({ worlds: [], config: traceWorlds([0]), args: ["--admin-token", TOKEN] });
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("npm pack, the addon removed from the tarball, npm install: the trace's heights and a zone change, over WebAssembly", async () => {
    // The prepack check asks for the optimised addon, which this tarball drops anyway.
    const packed = run("npm", ["pack", "--ignore-scripts", "--pack-destination", dir, "--silent"], PKG, process.env).trim().split("\n").pop()!;
    const unpacked = join(dir, "unpacked");
    mkdirSync(unpacked);
    run("tar", ["-xzf", join(dir, packed), "-C", unpacked], dir);
    rmSync(join(unpacked, "package", "terrain_node.node"), { force: true });
    const tarball = join(dir, "terrain-client-no-addon.tgz");
    run("tar", ["-czf", tarball, "-C", unpacked, "package"], dir);
    const listing = run("tar", ["-tzf", tarball], dir).split("\n");
    assert.ok(!listing.some((f) => f.endsWith(".node")), "no native addon in the tarball");
    for (const f of ["package/wasm/terrain_wasm_bg.wasm", "package/wasm/terrain_wasm_node.js", "package/dist/src/index.js"]) {
      assert.ok(listing.includes(f), `the tarball holds ${f}`);
    }
    const manifest = JSON.parse(readFileSync(join(unpacked, "package", "package.json"), "utf8"));
    assert.equal(manifest.os, undefined, "no os restriction: the package installs on any OS");
    assert.equal(manifest.cpu, undefined, "no cpu restriction: the package installs on any CPU");

    const project = join(dir, "game");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "game", version: "1.0.0", private: true }));
    run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], project);
    assert.ok(!existsSync(join(project, "node_modules", "terrain-client", "terrain_node.node")), "installed without the addon");
    // With WebAssembly forbidden, nothing loads: the addon is really gone.
    const forbidden = spawnSync(process.execPath, ["-e", 'require("terrain-client")'], {
      cwd: project,
      env: { ...ENV, TERRAIN_CLIENT_WASM: "0" },
      encoding: "utf8",
    });
    assert.notEqual(forbidden.status, 0, "TERRAIN_CLIENT_WASM=0 without an addon fails");
    assert.match(forbidden.stderr, /cannot load the native addon/);

    const { rows } = traceRows(0);
    const trace = rows.flatMap((r) => [num(r.x!), num(r.z!)]);
    // And points on the plaza the probe registers, and its blend ring.
    for (let x = -20; x <= 20; x += 2.5) trace.push(x, x / 3);
    const points = new Float64Array(trace);
    writeFileSync(join(project, "points.json"), JSON.stringify(trace));
    writeFileSync(join(project, "probe.js"), PROBE);
    const first = await server.heights("seed0", points);
    assert.equal(first.revision, 0);

    const out = JSON.parse(await node("probe.js", [server.url, "seed0", TOKEN], project)) as {
      usingWasm: boolean;
      before: { revision: number; heights: number[] };
      after: { revision: number; heights: number[]; zone: string | null };
    };
    assert.equal(out.usingWasm, true, "the installed package runs over WebAssembly");
    assert.equal(out.before.revision, 0);
    let at = firstBitDifference(Float64Array.from(out.before.heights), first.heights);
    assert.equal(at, -1, `point ${at}: ${out.before.heights[at]} != the server's ${first.heights[at]}`);
    const then = await server.heights("seed0", points);
    assert.equal(then.revision, out.after.revision, "the server is at the revision the replica reached");
    at = firstBitDifference(Float64Array.from(out.after.heights), then.heights);
    assert.equal(at, -1, `after the zone, point ${at}: ${out.after.heights[at]} != the server's ${then.heights[at]}`);
    assert.equal(out.after.zone, "plaza");
    const moved = out.after.heights.filter((h, i) => !Object.is(h, out.before.heights[i])).length;
    assert.ok(moved > 0 && out.after.heights[rows.length + 8] === 33, `the plaza moved ${moved} points, its centre to 33 m`);
    console.log(`over WebAssembly, installed without the addon: ${rows.length} trace points and ${points.length / 2 - rows.length} plaza points the server's bits; ${moved} moved with the zone`);
  });
});
