// `npm pack` / `npm publish` run this first: the package carries the built addon and the
// compiled JavaScript, so both must be there, and the addon must be the optimised one
// for linux-x64 (glibc), the platform the package declares. `npm run build` makes them.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const fail = (why) => {
  console.error(`npm pack: ${why}; run \`npm run build\` first (it builds the addon optimised with cargo)`);
  process.exit(1);
};
for (const f of ["terrain_node.node", "wasm/terrain_wasm_bg.wasm", "wasm/terrain_wasm_node.js", "wasm/terrain_wasm.mjs", "dist/src/index.js", "dist/src/addon.d.ts", "dist/src/hyperscape.js", "dist/src/gen/terrain/v1/terrain_pb.js"]) {
  if (!existsSync(join(pkg, f))) fail(`${f} is missing`);
}
if (!existsSync(join(pkg, "terrain_node.json"))) fail("terrain_node.json (how the addon was built) is missing");
const meta = JSON.parse(readFileSync(join(pkg, "terrain_node.json"), "utf8"));
if (meta.profile !== "node-release") fail(`the addon was built with the ${meta.profile} profile, not node-release`);
if (meta.platform !== "linux" || meta.arch !== "x64" || meta.libc !== "glibc") {
  fail(`the addon was built for ${meta.platform}-${meta.arch}${meta.libc ? `-${meta.libc}` : ""}; the package carries linux-x64-glibc`);
}
console.log(`npm pack: carrying the ${meta.profile} addon for ${meta.platform}-${meta.arch}-${meta.libc}`);
