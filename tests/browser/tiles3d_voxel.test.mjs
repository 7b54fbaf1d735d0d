// The map's 3-D mode on a voxel world (seed 3, default parameters) in a real Chromium:
// the map's 3-D button streams the world's 3D Tiles tileset by 3DTilesRendererJS
// (coarse levels the top-block heightfield grids, the finest the chunks' greedy
// meshes). Starts the real server binary on 127.0.0.1 with a free port and checks:
//   the tileset's levels read from tileset.json; no sea plane (a voxel world's water is
//   blocks, drawn by its contents);
//   a far view and a near one, each waited on until its contents have loaded: coarse
//   contents far away, full-detail chunks near the ground, every content answered 200;
//   the canvas not blank in both;
//   no console error and no failed request.
// Screenshots (far, near) go to target/browser/.
//
// Usage: node tiles3d_voxel.test.mjs [path/to/terrain-server]  (or TERRAIN_SERVER_BIN)

import { check, run, settle3d, viewerColours } from './harness.mjs';

// The focus of the flight: the ground by the origin.
const focus = { x: 20, z: 20 };

await run('tiles3d-voxel', ['vox:voxel:3'], async ({ origin, page, shot }) => {
  const contentPath = /\/3dtiles\/content\/(\d+)\/(\d+)\/(\d+)\.glb$/;
  const answers = [];
  page.on('response', (r) => {
    const m = r.url().match(contentPath);
    if (m) answers.push({ level: Number(m[1]), status: r.status() });
  });

  await page.goto(`${origin}/map/vox#zoom=3&x=${focus.x}&z=${focus.z}`);
  await page.waitForFunction(() => window.terrainMap?.ready);
  await page.click('.open-world-3d');
  await page.waitForFunction(() => window.terrainMap.view3d?.world && window.terrainMap.view3d.layout(), null, { timeout: 60000 });
  const layout = await page.evaluate(() => window.terrainMap.view3d.layout());
  check(layout.levels >= 5, `the voxel tileset's levels read from tileset.json: ${JSON.stringify(layout)}`);
  check(page.url().includes('3d='), `the 3-D view is in the URL fragment (${page.url()})`);

  const settle = (what) => settle3d(page, what, 240);
  const views = [];
  for (const [t, name] of [[0, 'far'], [1, 'near']]) {
    const began = Date.now();
    await page.evaluate((t) => window.terrainMap.view3d.fly(t), t);
    await settle(`the ${name} view`);
    const visible = await page.evaluate(() => window.terrainMap.view3d.visibleLevels());
    const colours = await viewerColours(page);
    views.push({ name, finest: Math.max(...visible), coarsest: Math.min(...visible), colours });
    console.log(`  ${name} view: ${visible.length} contents drawn, levels ${Math.min(...visible)} to ${Math.max(...visible)}, ` +
      `${colours} distinct colours, settled in ${Date.now() - began} ms`);
    check(colours > 20, `the ${name} view is not blank: ${colours} distinct colours`);
    await shot(`tiles3d-voxel-${t === 0 ? '01' : '02'}-${name}`);
  }
  check(views[1].finest === layout.levels && views[0].finest < layout.levels,
    `the near view draws full-detail chunks (level ${views[1].finest}), the far one coarser contents (finest ${views[0].finest})`);
  const levels = new Set(answers.map((a) => a.level));
  check(levels.size >= 3 && answers.every((a) => a.status === 200),
    `${answers.length} contents of ${levels.size} levels answered, all 200`);
  check(!(await page.evaluate(() => window.terrainMap.view3d.sea())), 'no sea plane over a voxel world');
});
