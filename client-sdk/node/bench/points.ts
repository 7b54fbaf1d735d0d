// What the benchmarks share: the points they time (those of the original's TIMINGS.md,
// drawn by the tests' seeded xorshift so every run and every benchmark times the same
// points) and the median of their passes.
import { xorshift } from "../test/server";

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** `n` points `[x, z, ...]` uniform in the disc of `radius` around the spawn. */
export function disc(n: number, radius: number, seed: number): Float64Array {
  const r = xorshift(seed);
  const out = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    const d = radius * Math.sqrt(r());
    const a = 2 * Math.PI * r();
    out[2 * i] = d * Math.cos(a);
    out[2 * i + 1] = d * Math.sin(a);
  }
  return out;
}

/** `n` 1 m tile centres `(floor(u) + 0.5)` uniform in the 100 m square around the spawn. */
export function tileCentres(n: number, seed: number): Float64Array {
  const r = xorshift(seed);
  const out = new Float64Array(2 * n);
  for (let i = 0; i < 2 * n; i++) out[i] = Math.floor(r() * 100 - 50) + 0.5;
  return out;
}
