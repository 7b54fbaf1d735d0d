// Writes node_values.txt: JavaScript's own Math.pow, Math.sin and Math.cos at random
// arguments, as the bits of each double (16 hex digits), for tests/jsmath_node.rs.
// Run with Node 20 (the engine the original ran on): node node_values.js [count]
const n = Number(process.argv[2] || 2000);
let s = 0x2545f491 >>> 0;
const rnd = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
const hex = (v) => { const b = Buffer.alloc(8); b.writeDoubleBE(v); return b.toString('hex'); };
const out = [];
for (let i = 0; i < n; i++) {
  const h = rnd();
  out.push(['pow', hex(h), hex(1.1), hex(Math.pow(h, 1.1))].join(' '));
  const x = rnd() * 8, y = (rnd() - 0.5) * 20;
  out.push(['pow', hex(x), hex(y), hex(Math.pow(x, y))].join(' '));
  const a = (rnd() * 2 - 1) * Math.PI;
  out.push(['sin', hex(a), hex(Math.sin(a))].join(' '), ['cos', hex(a), hex(Math.cos(a))].join(' '));
  const b = (rnd() * 2 - 1) * 1e5;
  out.push(['sin', hex(b), hex(Math.sin(b))].join(' '), ['cos', hex(b), hex(Math.cos(b))].join(' '));
}
require('fs').writeFileSync(__dirname + '/node_values.txt', out.join('\n') + '\n');
