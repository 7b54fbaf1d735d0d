// The triangle rule of the surface reads has one source, core's: `heightOnTile`
// (src/surface.ts, what `surfaceHeightAt` evaluates kept tiles with) against core's own
// evaluation of the same float32 vertex heights (the addon's `surfaceRuleHeight`, which
// runs core/src/mesh/surface.rs's `cell_of` and `on_triangle`), with Object.is on every
// answer: random grids (tile sizes, vertices per edge, centred or not), random tiles
// and heights, and points at random, on vertices, on cell edges and diagonals, and the
// doubles either side of each. No server: both sides are pure functions.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fastAddon } from "../src/native";
import { type SurfaceGrid, heightOnTile } from "../src/surface";
import { xorshift as random } from "./server";


/** The double next to `v` towards +inf (`up`) or -inf. */
function nextDouble(v: number, up: boolean): number {
  if (v === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  const f = new Float64Array([v]);
  const b = new BigInt64Array(f.buffer);
  b[0] = b[0]! + ((v > 0) === up ? 1n : -1n);
  return f[0]!;
}

interface Case {
  size: number;
  resolution: number;
  centred: boolean;
}

/** The grids of the three generators, then random ones (a resolution of 2 is one cell:
 * two triangles). */
function grids(next: () => number, count: number): Case[] {
  const out: Case[] = [
    { size: 100, resolution: 64, centred: true },
    { size: 64, resolution: 65, centred: false },
    { size: 32, resolution: 33, centred: false },
  ];
  const sizes = [1, 0.37, 100, 1e4, 3.75];
  while (out.length < count) {
    const size = next() < 0.3 ? sizes[Math.floor(next() * sizes.length)]! : 0.01 + next() * 500;
    const resolution = next() < 0.3 ? 2 : 2 + Math.floor(next() * 70);
    out.push({ size, resolution, centred: next() < 0.5 });
  }
  return out;
}

/** `n * n` float32 vertex heights of one of several kinds (flat runs, large, tiny,
 * negative, whole numbers), so triangles of every shape and scale come up. */
function heights(next: () => number, n: number): Float32Array {
  const h = new Float32Array(n * n);
  const kind = Math.floor(next() * 5);
  for (let i = 0; i < h.length; i++) {
    const r = next() * 2 - 1;
    h[i] =
      kind === 0 ? r * 100 : kind === 1 ? r * 1e7 : kind === 2 ? r * 1e-3 : kind === 3 ? Math.round(r * 10) : 9 + r * 3;
  }
  return h;
}

/** Points of tile `(tx, tz)` and around its edges: random, vertices, cell edges,
 * diagonals, and the neighbouring doubles of each. */
function points(next: () => number, g: SurfaceGrid, tx: number, tz: number, count: number): number[] {
  const half = g.shift === 0 ? 0 : g.size / 2;
  const ox = tx * g.size - half;
  const oz = tz * g.size - half;
  const out: number[] = [];
  while (out.length < 2 * count) {
    const pick = next();
    let x: number;
    let z: number;
    if (pick < 0.4) {
      x = ox + next() * g.size;
      z = oz + next() * g.size;
    } else {
      const i = Math.floor(next() * g.n);
      const j = Math.floor(next() * g.n);
      const vx = ox + i * g.step;
      const vz = oz + j * g.step;
      const f = next();
      [x, z] = pick < 0.55 ? [vx, vz] : pick < 0.7 ? [vx + f * g.step, vz] : pick < 0.85 ? [vx, vz + f * g.step] : [vx + f * g.step, vz + (1 - f) * g.step];
    }
    if (next() < 0.3) {
      x = nextDouble(x, next() < 0.5);
      z = nextDouble(z, next() < 0.5);
    }
    out.push(x, z);
  }
  return out;
}

test("heightOnTile is core's triangle rule bit for bit on random grids, tiles and points", () => {
  const next = random(0x5eed_7a1e);
  let compared = 0;
  let reassociatedDiffers = 0;
  for (const c of grids(next, 400)) {
    const [size, shift, step, n] = fastAddon.surfaceGrid(c.size, c.resolution, c.centred);
    const g: SurfaceGrid = { size: size!, shift: shift!, step: step!, n: n! };
    const tx = Math.floor(next() * 2001) - 1000;
    const tz = Math.floor(next() * 2001) - 1000;
    const h = heights(next, g.n);
    const ps = points(next, g, tx, tz, 300);
    for (let k = 0; k < ps.length; k += 2) {
      const x = ps[k]!;
      const z = ps[k + 1]!;
      // The tile the point is in, as SurfaceTiles.heightAt finds it; core answers
      // null if its own tile_of disagrees.
      const px = Math.floor(x / g.size + g.shift);
      const pz = Math.floor(z / g.size + g.shift);
      const want = fastAddon.surfaceRuleHeight(c.size, c.resolution, c.centred, px, pz, h, x, z);
      assert.notEqual(want, null, `core puts (${x}, ${z}) in another tile than (${px}, ${pz}) of ${JSON.stringify(c)}`);
      const got = heightOnTile(g, h, px, pz, x, z);
      if (!Object.is(got, want)) {
        assert.fail(`${JSON.stringify(c)} tile (${px}, ${pz}) at (${x}, ${z}): heightOnTile ${got}, core ${want}`);
      }
      compared += 1;
      // The same plane with its sum re-associated: not the rule, and the points tell.
      if (!Object.is(reassociated(g, h, px, pz, x, z), want)) reassociatedDiffers += 1;
    }
  }
  assert.equal(compared, 400 * 300);
  assert.ok(reassociatedDiffers > 100, `a re-associated rule differed on only ${reassociatedDiffers} points`);
});

/** `heightOnTile` with `a + ((d - a) * fx + (b - a) * fz)` (and likewise in the other
 * triangle): the same plane in exact arithmetic, other bits in floating point. */
function reassociated(g: SurfaceGrid, h: Float32Array, tx: number, tz: number, x: number, z: number): number {
  const half = g.shift === 0 ? 0 : g.size / 2;
  const gx = (x - (tx * g.size - half)) / g.step;
  const gz = (z - (tz * g.size - half)) / g.step;
  const last = g.n - 2;
  const ix = Math.min(Math.max(Math.floor(gx), 0), last);
  const iz = Math.min(Math.max(Math.floor(gz), 0), last);
  const fx = Math.min(Math.max(gx - ix, 0), 1);
  const fz = Math.min(Math.max(gz - iz, 0), 1);
  const at = iz * g.n + ix;
  const [a, b, c, d] = [h[at]!, h[at + g.n]!, h[at + g.n + 1]!, h[at + 1]!];
  return fx + fz <= 1 ? a + ((d - a) * fx + (b - a) * fz) : c + ((b - c) * (1 - fx) + (d - c) * (1 - fz));
}

test("surfaceRuleHeight refuses heights that are not n x n and answers null off the tile", () => {
  const h = new Float32Array(4).fill(1);
  assert.throws(() => fastAddon.surfaceRuleHeight(100, 2, true, 0, 0, new Float32Array(3), 0, 0), /heights: expected 4/);
  assert.equal(fastAddon.surfaceRuleHeight(100, 2, true, 0, 0, h, 0, 0), 1);
  assert.equal(fastAddon.surfaceRuleHeight(100, 2, true, 0, 0, h, 50, 0), null);
});
