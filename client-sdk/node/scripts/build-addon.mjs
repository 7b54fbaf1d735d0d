// Builds the native addon (crate terrain-node, client-sdk/node/addon) with cargo and
// copies the library to terrain_node.node beside package.json, where src/native.ts
// loads it, with terrain_node.json saying how it was built (the package's prepack
// check reads it). The library is the one cargo reports building (its
// `compiler-artifact` message), so it is found wherever cargo put it: CARGO_TARGET_DIR
// when set, else the workspace's target/, or wherever a cargo configuration or wrapper
// sends it.
//
// TERRAIN_NODE_PROFILE picks the cargo profile: `node-release` (the default: release
// code without debug info, what the npm package carries), `release`, or `debug` (the
// dev profile: a faster build, slower calls).
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const root = resolve(pkg, "..", "..");
const profile = process.env.TERRAIN_NODE_PROFILE || "node-release";
const profileArgs = { "node-release": ["--profile", "node-release"], release: ["--release"], debug: [], dev: [] }[profile];
if (!profileArgs) {
  console.error(`TERRAIN_NODE_PROFILE: expected node-release, release or debug, got ${JSON.stringify(profile)}`);
  process.exit(2);
}
const env = { ...process.env };
if (env.CARGO_TARGET_DIR) env.CARGO_TARGET_DIR = resolve(root, env.CARGO_TARGET_DIR);

const args = ["build", "-p", "terrain-node", "--message-format=json-render-diagnostics", ...profileArgs];
console.log(`cargo ${args.join(" ")} (CARGO_TARGET_DIR ${env.CARGO_TARGET_DIR ?? "unset"})`);
const run = spawnSync("cargo", args, {
  cwd: root,
  stdio: ["inherit", "pipe", "inherit"],
  env,
  maxBuffer: 256 * 1024 * 1024,
});
if (run.error) throw run.error;
if (run.status !== 0) process.exit(run.status ?? 1);

const suffix = { linux: ".so", darwin: ".dylib", win32: ".dll" }[process.platform];
if (!suffix) throw new Error(`unsupported platform ${process.platform}`);
let built;
for (const line of run.stdout.toString().split("\n")) {
  if (!line.startsWith("{")) continue;
  const message = JSON.parse(line);
  if (message.reason !== "compiler-artifact" || message.target?.name !== "terrain_node") continue;
  if (!message.target.kind?.includes("cdylib")) continue;
  built = message.filenames?.find((f) => f.endsWith(suffix)) ?? built;
}
if (!built || !existsSync(built)) throw new Error(`cargo reported no terrain-node library (${built ?? "none"})`);
const dest = join(pkg, "terrain_node.node");
copyFileSync(built, dest);
const libc = process.platform === "linux" ? (process.report?.getReport()?.header?.glibcVersionRuntime ? "glibc" : "musl") : null;
const meta = { profile: profile === "dev" ? "debug" : profile, platform: process.platform, arch: process.arch, libc };
writeFileSync(join(pkg, "terrain_node.json"), `${JSON.stringify(meta, null, 2)}\n`);
console.log(`copied ${built} -> ${dest} (${JSON.stringify(meta)})`);
