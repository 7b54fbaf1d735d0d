// Builds the native addon (crate terrain-node, client-sdk/node/addon) with cargo and
// copies the library to terrain_node.node beside package.json, where src/native.ts
// loads it. The library is the one cargo reports building (its `compiler-artifact`
// message), so it is found wherever cargo put it: CARGO_TARGET_DIR when set, else the
// workspace's target/, or wherever a cargo configuration or wrapper sends it.
// TERRAIN_NODE_PROFILE=release builds optimised.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const root = resolve(pkg, "..", "..");
const release = process.env.TERRAIN_NODE_PROFILE === "release";
const env = { ...process.env };
if (env.CARGO_TARGET_DIR) env.CARGO_TARGET_DIR = resolve(root, env.CARGO_TARGET_DIR);

const args = ["build", "-p", "terrain-node", "--message-format=json-render-diagnostics", ...(release ? ["--release"] : [])];
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
console.log(`copied ${built} -> ${dest}`);
