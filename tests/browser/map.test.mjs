// The live map in a real Chromium: Debian's /usr/bin/chromium driven by
// playwright-core (no browser is downloaded). Starts the real server binary on
// 127.0.0.1 with a free port, then checks, step by step, writing a screenshot per step
// under target/browser/:
//   the picker; the map (no console error, no failed request, tiles not blank, water
//   exactly where GET .../height is below 9 m); a zone registered through the API
//   (outline and re-requested tiles within 1 s), then removed; a viewer moved (its
//   marker moves); a click (the height shown is the API's, digit for digit, and the
//   biome, slope, walkable and reason are POST .../terrain-info's); the click's 3-D
//   button opening the whole world in 3-D at the clicked point (canvas not blank; the
//   3-D mode itself is tiles3d.test.mjs's); the walkability layer turned on in the layers
//   control (its legend shown, its ?layer=walk tiles loaded with shaded pixels, each
//   sampled pixel shaded exactly where terrain-info at its centre says not walkable,
//   in its reason's colour; a click on steep ground showing reason slope as the API
//   does; a zone registered with walkable false reloading the layer's tiles and
//   shading its core); an osrs world; a voxel world (map
//   pixels in block colours, water exactly the water block's colour, chunk (0, 0) in
//   3-D as one instanced mesh per block kind of its instances, canvas not blank).
//
// Usage: node map.test.mjs [path/to/terrain-server]  (or TERRAIN_SERVER_BIN)

import { check, run, sleep, viewerColours } from './harness.mjs';

await run('map', ['main:hyperscape:0', 'classic:osrs', 'blocks:voxel:1'], async ({ origin, api, page, errors, shot }) => {
  const tileRequests = [];
  page.on('request', (r) => { if (r.url().includes('/map/') && r.url().includes('.png')) tileRequests.push({ url: r.url(), at: Date.now() }); });

  // The click panel's terrain info against POST .../terrain-info at the clicked point.
  async function checkPanel(clicked, world = 'main') {
    const text = await api('POST', `/v1/worlds/${world}/terrain-info`, { points: [[clicked.x, clicked.z]] });
    const info = JSON.parse(text).points[0];
    const rawSlope = text.match(/"slope":(-?[0-9.eE+-]+)/)[1];
    const panel = await page.evaluate(() => Object.fromEntries(['biome', 'slope', 'walkable', 'reason']
      .map((k) => [k, document.getElementById(`clicked-${k}`)?.textContent])));
    const want = { biome: info.biome ?? 'none', slope: rawSlope, walkable: info.walkable ? 'yes' : 'no', reason: info.reason ?? 'none' };
    check(JSON.stringify(panel) === JSON.stringify(want),
      `panel at (${clicked.x}, ${clicked.z}) shows ${JSON.stringify(panel)}, terrain-info says ${JSON.stringify(want)}`);
    return info;
  }

  // 1. The picker.
  await page.goto(`${origin}/map`);
  await page.waitForSelector('#worlds li a');
  const worlds = await page.$$eval('#worlds li a', (as) => as.map((a) => a.textContent));
  check(worlds.includes('main') && worlds.includes('classic'), `picker lists the worlds (${worlds})`);
  await shot('01-picker');

  // 2. The map: tiles load and are not blank.
  await page.goto(`${origin}/map/main#zoom=3&x=0&z=0`);
  await page.waitForFunction(() => window.terrainMap?.ready);
  const allLoaded = () => page.waitForFunction(() => {
    const imgs = [...document.querySelectorAll('img.leaflet-tile')];
    return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth === 256);
  }, null, { timeout: 30000 });
  await allLoaded();
  // Pixels of every loaded tile: [{key, pixels (RGBA)}].
  const tilePixels = () => page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = c.height = 256;
    const g = c.getContext('2d', { willReadFrequently: true });
    const out = [];
    for (const [key, t] of Object.entries(window.terrainMap.tiles._tiles)) {
      if (!t.el.complete) continue;
      g.drawImage(t.el, 0, 0);
      out.push({ key, pixels: Array.from(g.getImageData(0, 0, 256, 256).data) });
    }
    return out;
  });
  const loaded = await tilePixels();
  const colours = new Set();
  for (const t of loaded) for (let i = 0; i < t.pixels.length; i += 4 * 97) colours.add(t.pixels.slice(i, i + 3).join(','));
  check(loaded.length >= 4 && colours.size > 20, `${loaded.length} map tiles loaded, ${colours.size} distinct colours`);
  await shot('02-map');

  // 3. The coast where the heights say: pixel centres of zoom 3 tiles (2 m a pixel).
  let water = 0, land = 0;
  for (const t of loaded) {
    const [x, y, z] = t.key.split(':').map(Number);
    const m = 16 / 2 ** z;
    const points = [];
    for (let j = 5; j < 256; j += 25) for (let i = 3; i < 256; i += 23) points.push([i, j]);
    const body = { points: points.map(([i, j]) => [(x * 256 + i + 0.5) * m, (y * 256 + j + 0.5) * m]) };
    const { heights } = JSON.parse(await api('POST', '/v1/worlds/main/heights', body));
    points.forEach(([i, j], n) => {
      const k = (j * 256 + i) * 4;
      const [r, g, b] = t.pixels.slice(k, k + 3);
      const blue = b > r && b > g;
      if (heights[n] < 9) water++; else land++;
      check(blue === (heights[n] < 9) || false, `tile ${t.key} pixel (${i}, ${j}): height ${heights[n]}, rgb ${r},${g},${b}`);
    });
  }
  check(water > 10 && land > 10, `coast matches heights: ${water} water and ${land} land samples`);

  // 4. A zone registered through the API: outline and tiles re-requested within 1 s.
  const t0 = Date.now();
  const before = tileRequests.length;
  await api('PUT', '/v1/worlds/main/flat-zones/browser-pad',
    { centerX: 40, centerZ: 40, width: 60, depth: 40, height: 30, blendRadius: 8, priority: 2 });
  await page.waitForFunction(() => window.terrainMap.zones.has('browser-pad'), null, { timeout: 1000 });
  await page.waitForFunction((n) => window.terrainMap.reloads.length > n, 0, { timeout: 1000 });
  const rerequested = tileRequests.slice(before).filter((r) => r.url.includes('?r='));
  check(rerequested.length > 0 && rerequested[0].at - t0 < 1000,
    `zone outline shown and ${rerequested.length} tiles re-requested, first after ${rerequested[0]?.at - t0} ms`);
  await allLoaded();
  await page.hover('#map', { position: { x: 600 + 40 * 2, y: 400 + 20 * 2 } }).catch(() => {});
  await shot('03-zone-registered');
  await api('DELETE', '/v1/worlds/main/flat-zones/browser-pad');
  await page.waitForFunction(() => !window.terrainMap.zones.has('browser-pad'), null, { timeout: 1000 });
  check(true, 'zone outline gone after DELETE');
  await allLoaded();
  await shot('04-zone-removed');

  // 5. A viewer moved through the API: its marker moves.
  await api('PUT', '/v1/worlds/main/viewers/scout', { x: -100, z: -50, viewWidth: 200, viewDepth: 200 });
  await page.waitForFunction(() => window.terrainMap.viewers.has('scout'), null, { timeout: 3000 });
  const at = () => page.evaluate(() => window.terrainMap.viewers.get('scout')?.getLatLng());
  const p1 = await at();
  check(p1.lat === -50 && p1.lng === -100, `viewer marker at (${p1.lng}, ${p1.lat})`);
  await shot('05-viewer');
  await api('PUT', '/v1/worlds/main/viewers/scout', { x: 120, z: 80, viewWidth: 200, viewDepth: 200 });
  await page.waitForFunction(() => {
    const p = window.terrainMap.viewers.get('scout')?.getLatLng();
    return p && p.lat === 80 && p.lng === 120;
  }, null, { timeout: 3000 });
  check(true, 'viewer marker moved to (120, 80)');
  await shot('06-viewer-moved');

  // 6. Click a point: the height shown is the API's, digit for digit.
  const box = await page.locator('#map').boundingBox();
  const pt = await page.evaluate(() => window.terrainMap.map.latLngToContainerPoint([13.37, 21.5]));
  await page.mouse.click(box.x + pt.x, box.y + pt.y);
  await page.waitForSelector('#clicked-height');
  const shown = await page.textContent('#clicked-height');
  const clicked = await page.evaluate(() => window.terrainMap.clicked);
  const text = await api('GET', `/v1/worlds/main/height?x=${clicked.x}&z=${clicked.z}`);
  const raw = text.match(/"height":(-?[0-9.eE+-]+)/)[1];
  check(shown === raw, `clicked (${clicked.x}, ${clicked.z}): page shows ${shown}, API says ${raw}`);
  await checkPanel(clicked);
  await shot('07-click-height');

  // 7. The click's 3-D button: the whole world in 3-D, looking at the clicked point.
  const tile = await page.evaluate(() => {
    const t = document.querySelector('.height-popup').textContent.match(/tile (-?\d+), (-?\d+)/);
    return [Number(t[1]), Number(t[2])];
  });
  check(tile[0] === 0 && tile[1] === 0, `the clicked point is in tile ${tile}`);
  await page.click('#open3d');
  await page.waitForFunction(() => window.terrainMap.view3d?.world, null, { timeout: 30000 });
  // Its flight's first view loaded (closing it mid-load would cut requests off).
  await page.evaluate(() => window.terrainMap.view3d.fly(0));
  await page.waitForFunction((n) => window.terrainMap.view3d.frames() > n && !window.terrainMap.view3d.loading(),
    await page.evaluate(() => window.terrainMap.view3d.frames() + 3), { timeout: 120000 });
  const canvasColours = await viewerColours(page);
  check(canvasColours > 20, `3-D canvas of the world not blank: ${canvasColours} distinct colours`);
  const focus = `3d=${clicked.x.toFixed(2)},${clicked.z.toFixed(2)}`;
  check(page.url().includes(focus), `the 3-D view's focus is in the URL fragment (${page.url()})`);
  await shot('08-world-3d');

  // 8. The walkability layer, turned on in the layers control.
  await page.click('#viewer3d-close');
  const legendJson = JSON.parse(await api('GET', '/v1/worlds/main/map/legend'));
  const shadings = legendJson.walk.entries;
  check(JSON.stringify(shadings.map((e) => e.reason)) === '["water","slope","zone"]',
    `the slope rule shades ${shadings.map((e) => e.reason)}`);
  // Zoom 5 (0.5 m a pixel) over the coast and the steep ground north-east of the spawn.
  await page.evaluate(() => { window.terrainMap.map.closePopup(); window.terrainMap.map.setView([200, 200], 5); });
  await allLoaded();
  await page.click('.leaflet-control-layers label:has-text("walkability")');
  await page.waitForSelector('#walk-legend', { state: 'visible' });
  const legendText = await page.textContent('#walk-legend');
  check(shadings.every((e) => legendText.includes(e.label)) && legendText.includes('slope'),
    `walk legend shown: ${legendText}`);
  const walkLoaded = () => page.waitForFunction(() => {
    const imgs = [...document.querySelectorAll('.walk-tiles img.leaflet-tile')];
    return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth === 256);
  }, null, { timeout: 30000 });
  await walkLoaded();
  check(page.url().includes('walk=1'), `the walk layer is in the URL fragment (${page.url()})`);
  const walkPixels = () => page.evaluate(() => {
    const c = document.createElement('canvas');
    c.width = c.height = 256;
    const g = c.getContext('2d', { willReadFrequently: true });
    const out = [];
    for (const [key, t] of Object.entries(window.terrainMap.walkTiles._tiles)) {
      if (!t.el.complete) continue;
      g.clearRect(0, 0, 256, 256);
      g.drawImage(t.el, 0, 0);
      out.push({ key, src: t.el.src, pixels: Array.from(g.getImageData(0, 0, 256, 256).data) });
    }
    return out;
  });
  // The reason a pixel's RGBA shows (a canvas reads semi-transparent colours back
  // within a few units), or null for a clear pixel.
  const reasonOf = (p) => {
    if (p[3] === 0) return null;
    const near = shadings.find((e) => e.rgba.every((v, k) => Math.abs(v - p[k]) <= 3));
    return near ? near.reason : `unknown ${p.join(',')}`;
  };
  const walkTiles = await walkPixels();
  check(walkTiles.length >= 4 && walkTiles.every((t) => t.src.includes('layer=walk')),
    `${walkTiles.length} walk tiles loaded with ?layer=walk`);
  const counts = {};
  let steep = null;
  for (const t of walkTiles) {
    const [x, y, z] = t.key.split(':').map(Number);
    const m = 16 / 2 ** z;
    const points = [];
    for (let j = 2; j < 254; j += 5) for (let i = 4; i < 254; i += 5) points.push([i, j]);
    const body = { points: points.map(([i, j]) => [(x * 256 + i + 0.5) * m, (y * 256 + j + 0.5) * m]) };
    const infos = JSON.parse(await api('POST', '/v1/worlds/main/terrain-info', body)).points;
    const bad = [];
    points.forEach(([i, j], n) => {
      const k = (j * 256 + i) * 4;
      const got = reasonOf(t.pixels.slice(k, k + 4));
      counts[got ?? 'walkable'] = (counts[got ?? 'walkable'] ?? 0) + 1;
      if (got !== infos[n].reason) bad.push(`(${body.points[n]}): pixel ${got}, terrain-info ${infos[n].reason}`);
      // Steep ground with steep pixels all around it, for a click.
      if (!steep && got === 'slope' && i > 8 && j > 8) {
        const around = [[-1, 0], [1, 0], [0, -1], [0, 1], [-1, -1], [1, 1], [-1, 1], [1, -1]].every(([di, dj]) =>
          reasonOf(t.pixels.slice(((j + dj) * 256 + i + di) * 4, ((j + dj) * 256 + i + di) * 4 + 4)) === 'slope');
        if (around) steep = body.points[n];
      }
    });
    check(bad.length === 0, `walk tile ${t.key}: ${points.length} pixels shaded as terrain-info says${bad.length ? ':\n  ' + bad.slice(0, 10).join('\n  ') : ''}`);
  }
  check((counts.walkable ?? 0) > 20 && (counts.water ?? 0) > 20 && (counts.slope ?? 0) > 5,
    `walk layer shows ${JSON.stringify(counts)}`);
  await shot('09-walk-layer');

  // A click on steep ground: the panel says why it is not walkable, as the API does.
  check(steep !== null, `steep ground found at ${steep}`);
  await page.evaluate(([x, z]) => window.terrainMap.map.setView([z, x], 7), steep);
  await allLoaded();
  await walkLoaded();
  const sp = await page.evaluate(([x, z]) => window.terrainMap.map.latLngToContainerPoint([z, x]), steep);
  await page.mouse.click(box.x + sp.x, box.y + sp.y);
  await page.waitForFunction(([x, z]) => {
    const c = window.terrainMap.clicked;
    return c && Math.abs(c.x - x) < 1 && Math.abs(c.z - z) < 1 && document.getElementById('clicked-reason');
  }, steep);
  const steepInfo = await checkPanel(await page.evaluate(() => window.terrainMap.clicked));
  check(steepInfo.reason === 'slope' && !steepInfo.walkable, `the clicked steep ground is reason ${steepInfo.reason}`);
  await shot('10-walk-click');

  // A zone registered with walkable false: the layer's tiles reload and shade its core.
  await page.evaluate(() => { window.terrainMap.map.closePopup(); window.terrainMap.map.setView([40, 40], 5); });
  await allLoaded();
  await walkLoaded();
  const walkAt = (x, z) => page.evaluate(([x, z]) => {
    const zoom = window.terrainMap.map.getZoom();
    const m = 16 / 2 ** zoom;
    const [tx, ty] = [Math.floor(x / (256 * m)), Math.floor(z / (256 * m))];
    const t = window.terrainMap.walkTiles._tiles[`${tx}:${ty}:${zoom}`];
    if (!t || !t.el.complete) return null;
    const c = document.createElement('canvas');
    c.width = c.height = 256;
    const g = c.getContext('2d', { willReadFrequently: true });
    g.drawImage(t.el, 0, 0);
    const [i, j] = [Math.floor(x / m) - tx * 256, Math.floor(z / m) - ty * 256];
    return Array.from(g.getImageData(i, j, 1, 1).data);
  }, [x, z]);
  // The pixel once the view's walk tile holding it has loaded.
  const walkAtLoaded = async (x, z) => {
    for (let i = 0; ; i++) {
      const p = await walkAt(x, z);
      if (p) return p;
      if (i > 100) throw new Error(`FAILED: no walk tile loaded at (${x}, ${z}) in 10 s`);
      await sleep(100);
    }
  };
  const beforeHall = await walkAtLoaded(40.1, 40.1);
  check(reasonOf(beforeHall) !== 'zone', `(40.1, 40.1) before the hall: ${reasonOf(beforeHall) ?? 'walkable'}`);
  const reloadsBefore = await page.evaluate(() => window.terrainMap.reloads.length);
  const hallPut = await api('PUT', '/v1/worlds/main/flat-zones/browser-hall',
    { centerX: 40, centerZ: 40, width: 10, depth: 10, heightOffset: 0.5, blendRadius: 2, walkable: false });
  // The zone event reloads the walk tiles it touches; when the page moved its area
  // while the event was published, the area acknowledged past it reloads the view.
  const putAt = Date.now();
  for (let i = 0; ; i++) {
    const p = await walkAt(40.1, 40.1);
    if (p && reasonOf(p) === 'zone') break;
    if (i > 150) {
      const seen = await page.evaluate((n) => ({
        reloads: window.terrainMap.reloads.slice(n),
        socket: window.terrainMap.socket()?.readyState,
        area: window.terrainMap.area,
        messages: window.terrainMap.messages.slice(-5),
      }), reloadsBefore);
      seen.put = JSON.parse(hallPut).revision;
      throw new Error(`FAILED: the hall's core not shaded zone after 15 s: ${p} ${JSON.stringify(seen)}`);
    }
    await sleep(100);
  }
  const walkReloads = await page.evaluate((n) => window.terrainMap.reloads.slice(n).filter((r) => r.layer === 'walk').length, reloadsBefore);
  check(walkReloads > 0, `${walkReloads} walk tiles reloaded after the zone change; the hall's core shaded after ${Date.now() - putAt} ms`);
  await walkLoaded();
  await sleep(1700); // past the changed-tile highlight, so the shading shows
  await shot('11-walk-zone');
  // Removed: the layer's tile reloads, and the core is clear again, before the layer
  // is turned off (so no reload is left in flight).
  await api('DELETE', '/v1/worlds/main/flat-zones/browser-hall');
  for (let i = 0; ; i++) {
    const p = await walkAt(40.1, 40.1);
    if (p && reasonOf(p) !== 'zone') break;
    if (i > 100) throw new Error(`FAILED: the hall's core still shaded 10 s after DELETE: ${p}`);
    await sleep(100);
  }
  await allLoaded();
  await walkLoaded();
  check(true, 'the hall removed: its core is clear again');

  // A building footprint: a tile-mask zone (an L of 1 m tiles inside its rectangle)
  // that blocks. Its core is exactly its tiles: the walk layer shades them and not the
  // L's notch, which lies inside the rectangle; the outline follows the tiles.
  const footprint = [];
  for (let x = 30; x < 50; x++) for (let z = 32; z < 38; z++) footprint.push([x, z]);
  for (let x = 30; x < 36; x++) for (let z = 38; z < 48; z++) footprint.push([x, z]);
  await api('PUT', '/v1/worlds/main/flat-zones/browser-building',
    { centerX: 40, centerZ: 40, width: 24, depth: 20, heightOffset: 0.5, blendRadius: 6,
      walkable: false, tileMask: footprint });
  await page.waitForFunction(() => window.terrainMap.zones.has('browser-building'), null, { timeout: 3000 });
  for (let i = 0; ; i++) {
    const p = await walkAt(32.5, 45.5);
    if (p && reasonOf(p) === 'zone') break;
    if (i > 150) throw new Error(`FAILED: the building's footprint not shaded zone after 15 s: ${p}`);
    await sleep(100);
  }
  await walkLoaded();
  const inNotch = await walkAtLoaded(45.5, 45.5);
  const onTile = await walkAtLoaded(45.5, 35.5);
  check(reasonOf(onTile) === 'zone' && reasonOf(inNotch) !== 'zone',
    `footprint: a mask tile shaded ${reasonOf(onTile)}, the L's notch inside the rectangle ${reasonOf(inNotch) ?? 'walkable'}`);
  const segments = await page.evaluate(() => {
    let n = 0;
    window.terrainMap.zones.get('browser-building').eachLayer(() => { n++; });
    return n;
  });
  check(segments === 2, `the footprint is drawn as its outline and its dashed rectangle (${segments} layers)`);
  // Close up (6 cm a pixel): the outline and the shading on the tiles, the notch open.
  await page.evaluate(() => window.terrainMap.map.setView([40, 40], 8));
  await allLoaded();
  await walkLoaded();
  await sleep(1700);
  await shot('12-building-footprint');
  await page.evaluate(() => window.terrainMap.map.setView([40, 40], 5));
  await allLoaded();
  await walkLoaded();
  await api('DELETE', '/v1/worlds/main/flat-zones/browser-building');
  await page.waitForFunction(() => !window.terrainMap.zones.has('browser-building'), null, { timeout: 3000 });
  for (let i = 0; ; i++) {
    const p = await walkAt(32.5, 45.5);
    if (p && reasonOf(p) !== 'zone') break;
    if (i > 100) throw new Error(`FAILED: the footprint still shaded 10 s after DELETE: ${p}`);
    await sleep(100);
  }
  await allLoaded();
  await walkLoaded();
  await page.click('.leaflet-control-layers label:has-text("walkability")');
  await page.waitForFunction(() => !document.getElementById('walk-legend'));
  check(true, 'walk layer off: its legend is gone');

  // 9. An osrs world.
  await page.goto(`${origin}/map/classic#zoom=2&x=0&z=0`);
  await page.waitForFunction(() => window.terrainMap?.ready);
  await allLoaded();
  const osrs = await tilePixels();
  const osrsColours = new Set();
  for (const t of osrs) for (let i = 0; i < t.pixels.length; i += 4 * 89) osrsColours.add(t.pixels.slice(i, i + 3).join(','));
  check(osrsColours.size > 10, `osrs map not blank: ${osrsColours.size} distinct colours`);
  await shot('12-osrs');

  // 10. A voxel world: coloured by the block seen from above.
  const { worlds: listed } = JSON.parse(await api('GET', '/v1/worlds'));
  const kinds = listed.find((w) => w.id === 'blocks').blockKinds;
  const colourOf = new Map(kinds.map((k) => [k.colour.join(','), k.name]));
  await page.goto(`${origin}/map/blocks#zoom=6&x=16&z=16`);
  await page.waitForFunction(() => window.terrainMap?.ready);
  await allLoaded();
  const voxelTiles = await tilePixels();
  const seen = new Map();
  for (const t of voxelTiles) {
    for (let i = 0; i < t.pixels.length; i += 4 * 7) {
      const rgb = t.pixels.slice(i, i + 3).join(',');
      seen.set(rgb, (seen.get(rgb) ?? 0) + 1);
    }
  }
  // Water is drawn flat, so its pixels are the water block's colour exactly; land is
  // shaded, so several colours per kind.
  const flat = [...seen.keys()].filter((rgb) => colourOf.has(rgb)).map((rgb) => colourOf.get(rgb));
  check(seen.size > 20, `voxel map not blank: ${seen.size} distinct colours`);
  // The columns of chunk (0, 0) as the API answers them: the water in it shows.
  const chunk = JSON.parse(await api('GET', '/v1/worlds/blocks/tiles/0/0/blocks'));
  const wet = chunk.columns.filter((c) => c.waterDepth > 0).length;
  if (wet > 0) check(flat.includes('water') || flat.includes('ice'), `chunk (0, 0) has ${wet} wet columns: the map shows flat ${flat}`);
  await shot('13-voxel');

  await page.evaluate(() => window.terrainMap.openChunk(0, 0));
  await page.waitForFunction(() => window.terrainMap.view3d?.rendered, null, { timeout: 30000 });
  await sleep(500);
  const instances = JSON.parse(await api('GET', '/v1/worlds/blocks/tiles/0/0/instances'));
  const drawn = await page.evaluate(() => window.terrainMap.view3d.meshes);
  check(JSON.stringify(drawn) === JSON.stringify(instances.kinds.map((k) => ({ kind: k.name, count: k.count }))),
    `chunk (0, 0) drawn as one instanced mesh per kind: ${drawn.map((d) => `${d.kind} x${d.count}`).join(', ')}`);
  const voxelCanvas = await viewerColours(page);
  check(voxelCanvas > 20, `3-D canvas of chunk (0, 0) not blank: ${voxelCanvas} distinct colours`);
  await shot('14-chunk-3d');
});
