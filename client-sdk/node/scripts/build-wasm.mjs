// Builds the WebAssembly replica (crate terrain-wasm, client-sdk/wasm) into wasm/ beside
// package.json: ONE module, terrain_wasm_bg.wasm, for every browser and for Node on
// every OS, and two thin JavaScript glues generated for it by wasm-bindgen:
// - terrain_wasm_node.js: CommonJS for Node (src/wasm.ts requires it; it reads the
//   module beside it synchronously);
// - terrain_wasm.mjs (+ .d.ts): an ES module for browsers and bundlers (`initSync({
//   module: bytes })` or `await init(url)`).
// Both target the same .wasm (wasm-bindgen emits the same module for both; checked).
//
// Steps: `cargo build -p terrain-wasm --target wasm32-unknown-unknown --profile
// wasm-release`; wasm-bindgen (the CLI of the crate's pinned version: installed with
// `cargo install wasm-bindgen-cli --version V` when missing or another version); then
// `wasm-opt -O3` (Debian's binaryen; installed with apt-get when missing and we are
// root). TERRAIN_WASM_OPT=0 skips wasm-opt.
//
// wasm-opt's module is kept only if the Node glue loads it and it answers: Debian
// bookworm's binaryen (108) turns wasm-bindgen's `externref` table into a `funcref` one
// even when only reading and writing the module (the glue's first `table.set` throws),
// and wasm-bindgen 0.2.130 needs that table. Then the module ships as rustc made it
// (release, fat LTO, one codegen unit), and the build says so.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const root = resolve(pkg, "..", "..");
const out = join(pkg, "wasm");
const env = { ...process.env };
if (env.CARGO_TARGET_DIR) env.CARGO_TARGET_DIR = resolve(root, env.CARGO_TARGET_DIR);

function run(cmd, args, options = {}) {
  console.log(`${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: ["inherit", "inherit", "inherit"], env, ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) process.exit(r.status ?? 1);
  return r;
}

function output(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, env, encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

// The wasm-bindgen version the crate pins (`wasm-bindgen = "=x.y.z"`).
const manifest = readFileSync(join(root, "client-sdk", "wasm", "Cargo.toml"), "utf8");
const version = /^wasm-bindgen = "=([0-9.]+)"/m.exec(manifest)?.[1];
if (!version) throw new Error("client-sdk/wasm/Cargo.toml: no pinned wasm-bindgen version");

// The target, the CLI and wasm-opt, when missing.
if (!(output("rustup", ["target", "list", "--installed"]) ?? "").split("\n").includes("wasm32-unknown-unknown")) {
  run("rustup", ["target", "add", "wasm32-unknown-unknown"]);
}
if (output("wasm-bindgen", ["--version"]) !== `wasm-bindgen ${version}`) {
  // --locked first; its lock file may name a crate version the registry no longer
  // serves, and then the newest compatible ones.
  const locked = spawnSync("cargo", ["install", "wasm-bindgen-cli", "--version", version, "--locked"], { stdio: "inherit", env });
  if (locked.status !== 0) run("cargo", ["install", "wasm-bindgen-cli", "--version", version]);
}
const optimise = env.TERRAIN_WASM_OPT !== "0";
if (optimise && output("wasm-opt", ["--version"]) === null) {
  if (process.getuid?.() === 0) run("apt-get", ["install", "-y", "binaryen"]);
  else throw new Error("wasm-opt (Debian's binaryen) is missing: apt-get install binaryen, or TERRAIN_WASM_OPT=0");
}

// The module.
const build = spawnSync(
  "cargo",
  ["build", "-p", "terrain-wasm", "--target", "wasm32-unknown-unknown", "--profile", "wasm-release", "--message-format=json-render-diagnostics"],
  { cwd: root, stdio: ["inherit", "pipe", "inherit"], env, maxBuffer: 256 * 1024 * 1024 },
);
if (build.error) throw build.error;
if (build.status !== 0) process.exit(build.status ?? 1);
let built;
for (const line of build.stdout.toString().split("\n")) {
  if (!line.startsWith("{")) continue;
  const m = JSON.parse(line);
  if (m.reason === "compiler-artifact" && m.target?.name === "terrain_wasm") {
    built = m.filenames?.find((f) => f.endsWith(".wasm")) ?? built;
  }
}
if (!built || !existsSync(built)) throw new Error(`cargo reported no terrain_wasm.wasm (${built ?? "none"})`);

// The glues, from one module.
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const web = join(out, "web");
run("wasm-bindgen", ["--target", "web", "--out-dir", web, "--out-name", "terrain_wasm", built]);
const node = join(out, "node");
run("wasm-bindgen", ["--target", "nodejs", "--out-dir", node, "--out-name", "terrain_wasm", built]);
const module = readFileSync(join(web, "terrain_wasm_bg.wasm"));
if (!module.equals(readFileSync(join(node, "terrain_wasm_bg.wasm")))) {
  throw new Error("wasm-bindgen emitted different modules for the web and nodejs targets");
}
// The Node glue reads the one module beside it.
const glue = readFileSync(join(node, "terrain_wasm.js"), "utf8");
const path = "`${__dirname}/terrain_wasm_bg.wasm`";
if (glue.split(path).length !== 2) throw new Error(`the nodejs glue: expected one ${path}`);
writeFileSync(join(out, "terrain_wasm_node.js"), glue);
renameSync(join(node, "terrain_wasm.d.ts"), join(out, "terrain_wasm_node.d.ts"));
rmSync(node, { recursive: true, force: true });
renameSync(join(web, "terrain_wasm.js"), join(out, "terrain_wasm.mjs"));
renameSync(join(web, "terrain_wasm.d.ts"), join(out, "terrain_wasm.d.mts"));
const wasm = join(out, "terrain_wasm_bg.wasm");
copyFileSync(join(web, "terrain_wasm_bg.wasm"), wasm);
let optimised = false;
if (optimise) {
  const opt = join(out, "terrain_wasm_opt.wasm");
  run("wasm-opt", ["-O3", wasm, "-o", opt]);
  copyFileSync(opt, wasm);
  rmSync(opt);
  const check = spawnSync(process.execPath, ["-e", `require(${JSON.stringify(join(out, "terrain_wasm_node.js"))}).maxTowns()`], {
    encoding: "utf8",
  });
  optimised = check.status === 0;
  if (!optimised) {
    const why = (check.stderr.split("\n").find((l) => /Error/.test(l)) ?? "").trim();
    console.warn(`wasm-opt's module does not load (${why}): keeping rustc's (see the top of this script)`);
    copyFileSync(join(web, "terrain_wasm_bg.wasm"), wasm);
  }
}
rmSync(web, { recursive: true, force: true });
const size = readFileSync(wasm).length;
console.log(`built ${wasm} (${size} bytes${optimised ? ", wasm-opt -O3" : ""}) from ${built}`);
