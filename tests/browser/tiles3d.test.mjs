// The map's 3-D mode in a real Chromium (Debian's /usr/bin/chromium driven by
// playwright-core): the hyperscape island streamed from its 3D Tiles tileset by
// 3DTilesRendererJS. Starts the real server binary on 127.0.0.1 with a free port,
// opens the 3-D mode with the map's button, and checks:
//   the flight: the camera placed from 2 km out and 1 km up down to 8 m above the
//   ground in steps, each step waited on until its contents have loaded; contents of
//   at least three levels requested, and nearer views drawing finer levels; the canvas
//   not blank; the zone outlines and a viewer's marker drawn;
//   live reload: a flat zone PUT under the camera's view; the loaded contents covering
//   its tiles are requested again and answered 200 with a new ETag, the first of them
//   and the full-detail one within 1 s of the PUT's answer; the frame rate and every
//   content's reload time are printed; every loaded content reloaded with nothing
//   changed is answered 304;
//   no console error and no failed request.
// Screenshots (far, near, after the zone) go to target/browser/.
//
// Usage: node tiles3d.test.mjs [path/to/terrain-server]  (or TERRAIN_SERVER_BIN)

import { check, run, settle3d, sleep, viewerColours } from './harness.mjs';

// The focus of the flight: land in tile (0, 0), near the spawn.
const focus = { x: 20, z: 20 };

await run('tiles3d', ['main:hyperscape:0'], async ({ origin, api, page, shot }) => {
  // The page's own timings of its content requests (epoch ms), as its resource timing
  // entries give them.
  await page.addInitScript(() => {
    window.contentTimings = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (!/\/3dtiles\/content\//.test(e.name)) continue;
        window.contentTimings.push({
          url: e.name,
          start: performance.timeOrigin + e.startTime,
          end: performance.timeOrigin + e.responseEnd,
          // A 304 transfers its headers alone: less than the body the browser holds.
          revalidated: e.transferSize < e.encodedBodySize,
        });
      }
    }).observe({ type: 'resource', buffered: true });
  });
  // Content requests and answers: {url, level, at, status, etag}.
  const contentPath = /\/3dtiles\/content\/(\d+)\/(\d+)\/(\d+)\.glb$/;
  const requests = [];
  const answers = [];
  page.on('request', (r) => {
    const m = r.url().match(contentPath);
    if (m) requests.push({ url: r.url(), level: Number(m[1]), at: Date.now() });
  });
  page.on('response', async (r) => {
    if (contentPath.test(r.url())) {
      answers.push({ url: r.url(), at: Date.now(), status: r.status(), etag: await r.headerValue('etag') });
    }
  });

  // A viewer and a zone already registered, to be drawn.
  await api('PUT', '/v1/worlds/main/viewers/scout', { x: focus.x - 40, z: focus.z, viewWidth: 200, viewDepth: 200 });
  await api('PUT', '/v1/worlds/main/flat-zones/browser-plaza',
    { centerX: focus.x - 60, centerZ: focus.z - 30, width: 30, depth: 20, heightOffset: 1, blendRadius: 6 });

  // 1. The map, then its 3-D button: the whole world, its events' area everything.
  await page.goto(`${origin}/map/main#zoom=3&x=${focus.x}&z=${focus.z}`);
  await page.waitForFunction(() => window.terrainMap?.ready);
  await page.click('.open-world-3d');
  await page.waitForFunction(() => window.terrainMap.view3d?.world && window.terrainMap.view3d.layout(), null, { timeout: 60000 });
  const layout = await page.evaluate(() => window.terrainMap.view3d.layout());
  check(layout.levels === 7, `the tileset's levels read from tileset.json: ${JSON.stringify(layout)}`);
  check(await page.evaluate(() => window.terrainMap.view3d.sea()), 'the sea drawn at the water height');
  check(page.url().includes('3d='), `the 3-D view is in the URL fragment (${page.url()})`);

  // 2. The flight, in steps: each waited on until the renderer has nothing to load.
  const settle = (what) => settle3d(page, what, 180);
  const steps = [0, 0.2, 0.4, 0.6, 0.75, 0.9, 1];
  const flight = [];
  for (const t of steps) {
    const before = requests.length;
    const began = Date.now();
    await page.evaluate((t) => window.terrainMap.view3d.fly(t), t);
    await settle(`flight at t = ${t}`);
    const step = requests.slice(before);
    const perLevel = {};
    for (const r of step) perLevel[r.level] = (perLevel[r.level] ?? 0) + 1;
    const seen = await page.evaluate(() => {
      const v = window.terrainMap.view3d;
      const p = v.camera.position;
      return { camera: [p.x, p.y, p.z].map((c) => Math.round(c)), visible: v.visibleLevels() };
    });
    const finest = Math.max(...seen.visible);
    flight.push({ t, perLevel, finest, visible: seen.visible.length, camera: seen.camera, ms: Date.now() - began });
    console.log(`  t = ${t}: camera ${seen.camera}, ${step.length} content requests by level ${JSON.stringify(perLevel)}, ` +
      `${seen.visible.length} contents drawn, finest level ${finest}, settled in ${Date.now() - began} ms`);
    if (t === 0) {
      check((await viewerColours(page)) > 20, 'the far view is not blank');
      await shot('tiles3d-01-far');
    }
  }
  const levels = new Set(requests.map((r) => r.level));
  check(levels.size >= 3, `contents of ${levels.size} levels requested over the flight: ${[...levels].sort((a, b) => a - b)}`);
  check(flight.every((s, i) => i === 0 || s.finest >= flight[i - 1].finest) && flight.at(-1).finest > flight[0].finest,
    `nearer views draw finer levels: ${flight.map((s) => s.finest).join(', ')}`);
  check(flight.at(-1).finest === layout.levels, `the view near the ground draws full-detail contents (level ${flight.at(-1).finest})`);
  const colours = await viewerColours(page);
  check(colours > 20, `the near view is not blank: ${colours} distinct colours`);
  const fps = await page.evaluate(async () => {
    const v = window.terrainMap.view3d;
    const [n, t] = [v.frames(), performance.now()];
    await new Promise((r) => setTimeout(r, 2000));
    return ((v.frames() - n) * 1000) / (performance.now() - t);
  });
  console.log(`  the near view renders at ${fps.toFixed(1)} frames/s`);
  await page.waitForFunction(() => window.terrainMap.view3d.zoneOutlines() === 1
    && window.terrainMap.view3d.viewerMarkers().includes('scout'), null, { timeout: 10000 });
  check(true, 'the zone outline and the viewer marker are drawn');
  await shot('tiles3d-02-near');

  // 3. Live reload: a flat zone under the camera's view. The socket's area is the
  // whole world once acknowledged.
  await page.waitForFunction(() => window.terrainMap.area && !window.terrainMap.area.tiles
    && window.terrainMap.socket()?.readyState === WebSocket.OPEN, null, { timeout: 30000 });
  const tagBefore = new Map(answers.filter((a) => a.status === 200).map((a) => [a.url, a.etag]));
  const loaded = await page.evaluate(() => [...window.terrainMap.view3d.tiles.lruCache.itemSet.keys()]
    .map((t) => t.content?.uri).filter((u) => u && u.endsWith('.glb')).length);
  const afterAt = answers.length;
  const requestsAt = requests.length;
  const reloadsAt = await page.evaluate(() => window.terrainMap.view3d.reloads.length);
  const put = await api('PUT', '/v1/worlds/main/flat-zones/browser-pad',
    { centerX: focus.x, centerZ: focus.z, width: 16, depth: 16, heightOffset: 2, blendRadius: 4 });
  const putAt = Date.now();
  const zone = JSON.parse(put);
  const changedTiles = zone.tileRects ?? zone.tiles;
  // The first changed content answered: 200 with a tag other than the one held.
  let first = null;
  for (let i = 0; !first; i++) {
    first = answers.slice(afterAt).find((a) => a.status === 200 && tagBefore.has(a.url) && a.etag !== tagBefore.get(a.url));
    if (first) break;
    if (Date.now() - putAt > 30000) {
      throw new Error(`FAILED: no changed content answered 30 s after the PUT; answers since: ${JSON.stringify(answers.slice(afterAt))}`);
    }
    await sleep(10);
  }
  const latency = first.at - putAt;
  const asked = requests.slice(requestsAt)[0];
  // The page hears of the event on its socket, so it may ask before the PUT's answer is read.
  console.log(`  zone ${JSON.stringify(changedTiles)}: first content re-requested ${asked.at - putAt} ms from the PUT's answer; ` +
    `first changed content ${first.url.replace(origin, '')} ${first.etag} answered after ${latency} ms`);
  // The dropped contents' copies drawn meanwhile: one at least, all gone once settled.
  const ghosted = await page.evaluate(() => window.terrainMap.view3d.ghosts());
  await settle('after the zone');
  const ghostsLeft = await page.evaluate(() => window.terrainMap.view3d.ghosts());
  const reloaded = await page.evaluate((n) => window.terrainMap.view3d.reloads.slice(n).map((r) => r.uri), reloadsAt);
  const again = answers.slice(afterAt);
  const changed = again.filter((a) => a.status === 200 && tagBefore.has(a.url) && a.etag !== tagBefore.get(a.url));
  const sameTag = again.filter((a) => a.status === 304 || (tagBefore.has(a.url) && a.etag === tagBefore.get(a.url)));
  check(reloaded.length > 0 && reloaded.length < loaded,
    `${reloaded.length} of ${loaded} loaded contents reloaded: ${reloaded.map((u) => u.match(/content\/(.*)\.glb/)[1]).join(' ')}`);
  check(ghostsLeft === 0, `the reloaded contents' old meshes were drawn until their new answers (${ghosted} on screen after the first answer, ${ghostsLeft} once settled)`);
  check(requests.length - requestsAt >= reloaded.length, `${requests.length - requestsAt} content requests after the zone`);
  check(changed.length > 0, `${changed.length} reloaded contents answered 200 with a new ETag, ${sameTag.length} kept their tag`);
  check(latency <= 1000, `the first changed content answered ${latency} ms after the PUT's answer (at most 1000 ms)`);
  const byLevel = changed.map((a) => `${a.url.match(contentPath)[1]}: ${a.at - putAt} ms`);
  console.log(`  changed contents answered, by level, after the PUT's answer: ${byLevel.join(', ')}`);
  const timings = await page.evaluate((t) => window.contentTimings.filter((e) => e.end >= t), putAt - 1000);
  console.log(`  in the page's resource timings: ${timings.map((e) => `${e.url.match(contentPath)[1]}: asked ${Math.round(e.start - putAt)}, answered ${Math.round(e.end - putAt)} ms${e.revalidated ? ' (304)' : ''}`).join('; ')}`);
  const finest = changed.find((a) => Number(a.url.match(contentPath)[1]) === layout.levels);
  check(finest && finest.at - putAt <= 1000,
    `the full-detail content under the zone answered 200 with a new ETag ${finest?.at - putAt} ms after the PUT's answer (at most 1000 ms)`);
  await page.waitForFunction(() => window.terrainMap.view3d.zoneOutlines() === 2, null, { timeout: 10000 });
  check(true, 'the new zone is outlined');
  check((await viewerColours(page)) > 20, 'the view after the zone is not blank');
  await shot('tiles3d-03-zone');

  // 4. Every loaded content reloaded with nothing changed (what a resync does): those
  // requested again (the ones the view uses) revalidate, answered 304 with their tag.
  const timingsAt = await page.evaluate(() => window.contentTimings.length);
  const answersAt = answers.length;
  const reloadsBefore = await page.evaluate(() => window.terrainMap.view3d.reloads.length);
  const tagsHeld = new Map(answers.map((a) => [a.url, a.etag]));
  await page.evaluate(() => window.terrainMap.view3d.reloadAll());
  await settle('after reloading everything');
  const everything = await page.evaluate((n) => window.terrainMap.view3d.reloads.length - n, reloadsBefore);
  const revalidations = await page.evaluate((n) => window.contentTimings.slice(n), timingsAt);
  const sameTags = answers.slice(answersAt).every((a) => a.etag === tagsHeld.get(a.url));
  check(everything > 0 && revalidations.length > 0 && revalidations.every((e) => e.revalidated) && sameTags,
    `${everything} loaded contents reloaded with nothing changed: the ${revalidations.length} requested again all answered 304 with their tag`);
});
