// The Hyperscape island's procedural height (`getProceduralHeightAt`: noise layers,
// island mask with its noisy coastline, pond, ocean floor, mountain boost; no zones, no
// shoreline) written for the browser test from the specification
// (/work/shared/reference/hyperscape/ALGORITHM.md, sections 1-4; this repository's
// docs/src/reference/height.md), in JavaScript doubles as the original computes, with
// the maths functions passed in: the host's `Math`, or the engine maths the
// WebAssembly module exports. Test code only (test/browser/terrain.test.ts, test (g)):
// with Node 20's Math (V8's, the original's engine) it gives the original's heights;
// with a browser's Math it shows where that browser's Math rounds otherwise.

/**
 * `procedural(x, z)` of the island of `seed` computed with `M`'s `floor`, `sqrt`, `pow`,
 * `exp`, `atan2`, `sin` and `cos`.
 */
export function islandHeight(seed, M) {
  // §1: the permutation table (an LCG shuffle, exact in doubles), duplicated.
  const perm = new Array(256);
  for (let k = 0; k < 256; k++) perm[k] = k;
  let r = seed;
  for (let i = 255; i >= 1; i--) {
    r = (r * 1664525 + 1013904223) % 4294967296;
    const j = Math.floor((r / 4294967296) * (i + 1));
    const t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  const p = new Array(512);
  for (let k = 0; k < 512; k++) p[k] = perm[k & 255];
  const wrap = (n) => ((n % 256) + 256) % 256;
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
  const smooth = (t) => t * t * (3 - 2 * t);

  // §2.1: gradient noise.
  const grad = (h, a, b) => {
    switch (h % 4) {
      case 0:
        return a + b;
      case 3:
        return -(a + b);
      default:
        return b - a;
    }
  };
  const lerp = (t, a, b) => a + t * (b - a);
  const fade = (t) => t * t * t * (t * (t * 6 - 15) + 10);
  const perlin = (x, y) => {
    const xf0 = M.floor(x);
    const yf0 = M.floor(y);
    const X = wrap(xf0);
    const Y = wrap(yf0);
    const fx = x - xf0;
    const fy = y - yf0;
    const u = fade(fx);
    const v = fade(fy);
    const A = p[X] + Y;
    const B = p[X + 1] + Y;
    const n00 = grad(p[p[A]], fx, fy);
    const n10 = grad(p[p[B]], fx - 1, fy);
    const n01 = grad(p[p[A + 1]], fx, fy - 1);
    const n11 = grad(p[p[B + 1]], fx - 1, fy - 1);
    return clamp(lerp(v, lerp(u, n00, n10), lerp(u, n01, n11)), -1, 1);
  };

  // §2.2: simplex noise.
  const F2 = 0.5 * (M.sqrt(3) - 1);
  const G2 = (3 - M.sqrt(3)) / 6;
  const G = [
    [1, 1], [-1, 1], [1, -1], [-1, -1], [1, 0], [-1, 0],
    [1, 0], [-1, 0], [0, 1], [0, -1], [0, 1], [0, -1],
  ];
  const corner = (gi, dx, dy) => {
    const t = 0.5 - dx * dx - dy * dy;
    if (t < 0) return 0;
    const q = t * t;
    return q * q * (G[gi][0] * dx + G[gi][1] * dy);
  };
  const simplex = (x, y) => {
    const s = (x + y) * F2;
    const i = M.floor(x + s);
    const j = M.floor(y + s);
    const t = (i + j) * G2;
    const x0 = x - (i - t);
    const y0 = y - (j - t);
    const [i1, j1] = x0 > y0 ? [1, 0] : [0, 1];
    const x1 = x0 - i1 + G2;
    const y1 = y0 - j1 + G2;
    const x2 = x0 - 1 + 2 * G2;
    const y2 = y0 - 1 + 2 * G2;
    const ii = wrap(i);
    const jj = wrap(j);
    const n0 = corner(p[ii + p[jj]] % 12, x0, y0);
    const n1 = corner(p[ii + i1 + p[jj + j1]] % 12, x1, y1);
    const n2 = corner(p[ii + 1 + p[jj + 1]] % 12, x2, y2);
    return 70 * (n0 + n1 + n2);
  };

  // §2.3-2.5.
  const ridge = (x, y) => 1 - Math.abs(clamp(perlin(x, y), -1, 1));
  const fractal = (x, y, octaves, persistence, lacunarity) => {
    let value = 0;
    let amp = 1;
    let freq = 1;
    let norm = 0;
    for (let o = 0; o < octaves; o++) {
      value += perlin(x * freq, y * freq) * amp;
      norm += amp;
      amp *= persistence;
      freq *= lacunarity;
    }
    return value / norm;
  };
  const erosion = (x, y, iterations) => {
    let h = fractal(x, y, 6, 0.5, 2);
    const d = 0.01;
    const c = perlin(x, y);
    const gx = (perlin(x + d, y) - c) / d;
    const gz = (perlin(x, y + d) - c) / d;
    const e = Math.min(1, M.sqrt(gx * gx + gz * gz) * 2);
    for (let k = 0; k < iterations; k++) h = h * (1 - e * 0.1);
    return h;
  };

  // §3: the base height.
  const base = (x, z) => {
    let h = 0;
    h = h + fractal(x * 0.0008, z * 0.0008, 5, 0.7, 2) * 0.35;
    h = h + ridge(x * 0.003, z * 0.003) * 0.15;
    h = h + fractal(x * 0.02, z * 0.02, 4, 0.6, 2.2) * 0.25;
    h = h + erosion(x * 0.005, z * 0.005, 3) * 0.1;
    h = h + fractal(x * 0.04, z * 0.04, 2, 0.3, 2.5) * 0.08;
    h = (h + 1) * 0.5;
    h = clamp(h, 0, 1);
    h = M.pow(h, 1.1);
    const dist = M.sqrt(x * x + z * z);
    const ang = M.atan2(z, x);
    const cx = M.cos(ang) * 2;
    const cz = M.sin(ang) * 2;
    const variation = fractal(cx, cz, 3, 0.5, 2) * 0.2 + fractal(cx * 3, cz * 3, 2, 0.5, 2) * 0.08 + simplex(cx * 8, cz * 8) * 0.02;
    const R = 350 * (1 + variation);
    let m = 1;
    if (dist > R - 100) m = 1 - smooth(Math.min(1, (dist - (R - 100)) / 100));
    const dp = M.sqrt((x + 80) * (x + 80) + (z - 60) * (z - 60));
    let pond = 0;
    if (dp < 100) {
      const f = 1 - dp / 100;
      pond = f * f * 0.55;
    }
    h = h * m;
    h = h * 0.2 + 0.42 * m;
    h = h - pond;
    if (m === 0) h = 0.05;
    return h * 50;
  };

  // §4: the biome centres (their own LCG state, divisor 2^32 - 1) and the mountain boost.
  const W = 10000;
  const C = W / 3;
  const TYPES = ["plains", "plains", "plains", "forest", "forest", "valley", "mountains", "mountains", "desert", "swamp", "tundra"];
  let s = seed;
  const draw = () => {
    s = (s * 1664525 + 1013904223) % 4294967296;
    return s / 4294967295;
  };
  const mountains = [];
  for (let gx = 0; gx < 3; gx++) {
    for (let gz = 0; gz < 3; gz++) {
      const x = (gx + 0.5) * C - W / 2 + (draw() - 0.5) * 2 * 0.35 * C;
      const z = (gz + 0.5) * C - W / 2 + (draw() - 0.5) * 2 * 0.35 * C;
      const type = TYPES[Math.floor(draw() * 11)];
      const influence = 2000 + draw() * 1500;
      if (type === "mountains") mountains.push({ x, z, influence });
    }
  }
  return (x, z) => {
    let hn = base(x, z) / 50;
    let boost = 0;
    for (const c of mountains) {
      const dx = x - c.x;
      const dz = z - c.z;
      const nd = M.sqrt(dx * dx + dz * dz) / c.influence;
      if (nd < 2.5) boost = Math.max(boost, M.exp(-nd * nd * 0.3));
    }
    hn = hn * (1 + boost * 0.5);
    hn = Math.min(1, hn);
    return hn * 50;
  };
}
