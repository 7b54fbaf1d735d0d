// (h) The example page (examples/web/index.html: three.js over terrain-client/web) in
// Chromium and Firefox against a real terrain-server (world `main`, the island with its
// station and arena zones): it loads from another origin than the server, draws
// (`window.exampleReady`), follows a zone PUT on the server live (it redraws the tiles the
// change names and shows the change's revision), reports no error, and its screenshot
// (saved under the OS temp directory, taken after that change) is not blank: many
// distinct colours, most of the frame not one colour.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { TestServer } from "../server";
import { BROWSERS, type StaticServer, openTab, serveStatic } from "./harness";

const TOKEN = "example-admin";

describe("the example page (examples/web)", () => {
  let server: TestServer;
  let pages: StaticServer;
  before(async () => {
    pages = await serveStatic();
    server = await TestServer.start({ worlds: ["main:hyperscape:0"], args: ["--cors-origin", pages.origin, "--admin-token", TOKEN] });
  });
  after(async () => {
    await server?.stop();
    await pages?.close();
  });

  for (const name of BROWSERS) {
    test(`${name}: the page draws the island`, async () => {
      const tab = await openTab(name);
      try {
        const started = Date.now();
        await tab.goto(`${pages.origin}/examples/web/index.html?server=${encodeURIComponent(server.url)}&world=main`);
        // Drawn, or failed: a page error or a missing file ends the wait at once.
        for (;;) {
          if (await tab.evaluate(() => (window as any).exampleReady === true, null)) break;
          assert.deepEqual(tab.errors, [], `${name}: the page's errors while loading`);
          assert.deepEqual(pages.missing, [], `${name}: files the page asked for`);
          assert.ok(Date.now() - started < 180_000, `${name}: not drawn in 180 s`);
          await new Promise((ok) => setTimeout(ok, 250));
        }
        const ms = Date.now() - started;
        // A plateau raised near the spawn, by another client: the page redraws its tiles.
        const put = await fetch(`${server.url}/v1/worlds/main/flat-zones/example-${name}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ centerX: 40, centerZ: 40, width: 40, depth: 30, heightOffset: 12, blendRadius: 8 }),
        });
        const answer = (await put.json()) as { revision: number };
        assert.equal(put.status, 200, JSON.stringify(answer));
        const changed = Date.now();
        for (;;) {
          const shown = await tab.evaluate(() => (window as any).exampleRevision as number, null);
          if (shown >= answer.revision) break;
          assert.deepEqual(tab.errors, [], `${name}: the page's errors while following`);
          assert.ok(Date.now() - changed < 30_000, `${name}: revision ${answer.revision} not drawn in 30 s (shows ${shown})`);
          await new Promise((ok) => setTimeout(ok, 100));
        }
        console.log(`${name}: the zone PUT at revision ${answer.revision} drawn ${Date.now() - changed} ms later`);
        const shot = join(tmpdir(), `terrain-client-web-example-${name}.png`);
        await tab.screenshot(shot);
        const png = readFileSync(shot).toString("base64");
        // The screenshot decoded by the page itself (no PNG decoder in Node): distinct
        // colours among every 7th pixel, and the share of the most common one.
        const { colours, top, pixels } = await tab.evaluate(async (png) => {
          const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
          const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
          const c = document.createElement("canvas");
          c.width = bitmap.width;
          c.height = bitmap.height;
          const g = c.getContext("2d")!;
          g.drawImage(bitmap, 0, 0);
          const d = g.getImageData(0, 0, c.width, c.height).data;
          const counts = new Map<string, number>();
          let pixels = 0;
          for (let i = 0; i < d.length; i += 4 * 7) {
            const k = `${d[i]},${d[i + 1]},${d[i + 2]}`;
            counts.set(k, (counts.get(k) ?? 0) + 1);
            pixels++;
          }
          return { colours: counts.size, top: Math.max(...counts.values()), pixels };
        }, png);
        console.log(`${name}: drawn in ${ms} ms; ${shot}: ${colours} distinct colours, the commonest on ${((100 * top) / pixels).toFixed(1)} % of the sampled pixels`);
        assert.ok(colours > 200, `${name}: ${colours} distinct colours in ${shot}`);
        assert.ok(top < pixels * 0.9, `${name}: one colour covers ${top} of ${pixels} sampled pixels`);
        assert.deepEqual(tab.errors, [], `${name}: the page's errors`);
      } finally {
        await tab.close();
      }
    });
  }

  test("no missing file", () => {
    assert.deepEqual(pages.missing, []);
  });
});
