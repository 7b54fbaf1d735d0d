// The Hyperscape adapter's memory, in a process of its own (bench/hyperscape.ts runs it):
//
//   node --expose-gc dist/bench/hyperscape-memory.js URL WORLD
//
// The process's resident set and its JavaScript heap plus array buffers (typed arrays:
// the kept tile blocks) after opening the adapter, after registering 1,000 zones through
// it (one in 24 a building footprint of 60 tiles; committed to the server), and after
// visiting a 2 km square (walkGrid twice over it in 128 x 128 pieces: every 64 x 64
// block of it kept, the most the adapter keeps). Prints one Markdown list item.
import { HyperscapeTerrain } from "../src/hyperscape";
import type { FlatZone } from "../src/hyperscape";
import { internals } from "../src/native";

function usage(): { rss: number; js: number } {
  global.gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, js: m.heapUsed + m.arrayBuffers };
}

async function main(): Promise<void> {
  const [url, world] = process.argv.slice(2);
  const terrain = await HyperscapeTerrain.open(url!, world!);
  const m0 = usage();
  let s = 16;
  const next = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  let masks = 0;
  for (let i = 0; i < 1_000; i++) {
    const cx = Math.floor(next() * 1800 - 900) + 0.5;
    const cz = Math.floor(next() * 1800 - 900) + 0.5;
    const zone: FlatZone = { id: `memory_${i}`, centerX: cx, centerZ: cz, width: 11, depth: 9, height: 20 + 10 * next(), blendRadius: 3 };
    if (i % 24 === 0) {
      const tiles: { x: number; z: number }[] = [];
      for (let x = 0; x < 10; x++) for (let z = 0; z < 6; z++) tiles.push({ x: Math.floor(cx) - 5 + x, z: Math.floor(cz) - 3 + z });
      zone.tileMaskTiles = tiles;
      masks++;
    }
    terrain.registerFlatZone(zone);
  }
  await terrain.flush();
  const m1 = usage();
  let sink = 0;
  for (let pass = 0; pass < 2; pass++) {
    for (let z0 = -1024; z0 < 1024; z0 += 128) for (let x0 = -1024; x0 < 1024; x0 += 128) sink += terrain.walkGrid(x0, z0, 128, 128)[0]!;
  }
  const kept = internals(terrain.replica).tiles.kept;
  const m2 = usage();
  const mib = (b: number): string => `${(b / 1048576).toFixed(1)} MiB`;
  console.log(
    `- Memory (a process of its own; resident set, and in brackets the JavaScript heap with array buffers): the adapter open ${mib(m0.rss)} (${mib(m0.js)}); ` +
      `1,000 zones registered through it (${masks} building masks) ${mib(m1.rss - m0.rss)} more (${mib(m1.js - m0.js)}); ` +
      `a 2 km square visited (${kept} blocks of 64 x 64 tiles kept, at most 1,024) ${mib(m2.rss - m1.rss)} more (${mib(m2.js - m1.js)}); ` +
      `${mib(m2.rss)} in all.${Number.isFinite(sink) ? "" : " (non-finite checksum)"}`,
  );
  terrain.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
