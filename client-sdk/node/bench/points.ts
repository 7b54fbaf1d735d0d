// What the benchmarks share: the points they time (those of the original's TIMINGS.md,
// drawn by the tests' seeded xorshift so every run and every benchmark times the same
// points), the timing of their passes and the median of them.
import { xorshift } from "../test/server";

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** A timed figure: wall time and this process's CPU time (`process.cpuUsage`: what the
 * calls cost when other processes share the cores), in ns per call or point. */
export interface Timed {
  ns: number;
  cpuNs: number;
}

/** `passes` timed runs of `pass` (`perPass` calls or points each), after `warm` untimed
 * ones (V8 optimises the pass while they run): the median pass's time per call. */
export function timePasses(passes: number, perPass: number, pass: () => void, warm = 0): Timed {
  for (let p = 0; p < warm; p++) pass();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let p = 0; p < passes; p++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    pass();
    wall.push(Number(process.hrtime.bigint() - t0) / perPass);
    const c = process.cpuUsage(c0);
    cpu.push(((c.user + c.system) * 1000) / perPass);
  }
  return { ns: median(wall), cpuNs: median(cpu) };
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
