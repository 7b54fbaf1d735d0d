// The suite runs on the Node it is meant to: scripts/test-all.sh runs it under every
// Node LTS line the package supports (20, 22, 24) and says which in
// TERRAIN_NODE_EXPECT; a PATH that put another node first would otherwise pass the
// same suite on the same Node three times. The trace test (test/hyperscape.test.ts)
// holds every difficulty scalar to the original's bits, so under each version it
// checks that no answer depends on the host's maths.
import assert from "node:assert/strict";
import { test } from "node:test";

test("runs on the Node version TERRAIN_NODE_EXPECT names", (t) => {
  const want = process.env.TERRAIN_NODE_EXPECT;
  if (want === undefined) {
    t.skip("TERRAIN_NODE_EXPECT is not set (scripts/test-all.sh sets it)");
    return;
  }
  assert.equal(process.version, want);
  const major = Number(/^v(\d+)\./.exec(process.version)?.[1]);
  const engines = (require("../../package.json") as { engines: { node: string } }).engines.node;
  const floor = Number(/^>=(\d+)$/.exec(engines)?.[1]);
  assert.ok(major >= floor, `Node ${process.version} is within the package's engines (${engines})`);
});
