// Builds the native addon (crate terrain-node, client-sdk/node/addon) with cargo and
// copies the library to terrain_node.node beside package.json, where src/native.ts
// loads it. The target directory is CARGO_TARGET_DIR when set, else the workspace's
// target/ (../../target from here). TERRAIN_NODE_PROFILE=release builds optimised.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const root = resolve(pkg, "..", "..");
const release = process.env.TERRAIN_NODE_PROFILE === "release";
const target = process.env.CARGO_TARGET_DIR
  ? resolve(root, process.env.CARGO_TARGET_DIR)
  : join(root, "target");

const args = ["build", "-p", "terrain-node", ...(release ? ["--release"] : [])];
console.log(`cargo ${args.join(" ")} (target dir ${target})`);
const run = spawnSync("cargo", args, {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, CARGO_TARGET_DIR: target },
});
if (run.error) throw run.error;
if (run.status !== 0) process.exit(run.status ?? 1);

const file = {
  linux: "libterrain_node.so",
  darwin: "libterrain_node.dylib",
  win32: "terrain_node.dll",
}[process.platform];
if (!file) throw new Error(`unsupported platform ${process.platform}`);
const built = join(target, release ? "release" : "debug", file);
if (!existsSync(built)) throw new Error(`cargo built no ${built}`);
const dest = join(pkg, "terrain_node.node");
copyFileSync(built, dest);
console.log(`copied ${built} -> ${dest}`);
