// The map's 3-D mode, lit from the north-west like the map, with orbit controls.
// - The whole world (heightfield and voxel worlds) streamed from its 3D Tiles tileset
//   (GET /v1/worlds/{w}/3dtiles/tileset.json) by 3DTilesRendererJS: coarse contents far
//   away, the full-detail tile meshes near the camera. A flight from 2 km out down to
//   the ground, the flat zones' outlines and the viewers drawn over it; a tile event
//   reloads exactly the loaded contents its `tilesetContents` names (each revalidates
//   with its ETag: the changed ones answer 200, the others 304).
// - A voxel world's chunk: its visible blocks from GET .../tiles/{cx}/{cz}/instances,
//   drawn as the seed draws them: one instanced cube mesh per block kind, each instance
//   in its own colour (linear RGB, as served); kinds that do not occlude (water, ice,
//   leaves, ...) translucent.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { FAILED, LOADED, TilesRenderer, UNLOADED } from '3d-tiles-renderer';
import { ImplicitTilingPlugin } from '3d-tiles-renderer/core/plugins';

let current = null;

// The doubles of a subtree file's tile metadata (the server's one property, the
// `TILE_GEOMETRIC_ERROR` each tile declares, in the subtree's tile order), or null when
// it has none: subtrees of squares over 128 x 128 tiles, whose coarse levels take
// sampled grids, carry them (docs: tiles3d.md, "Declared errors").
function declaredErrors(buffer) {
  const head = new DataView(buffer);
  const jsonLength = Number(head.getBigUint64(8, true));
  const doc = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 24, jsonLength)));
  if (doc.tileMetadata === undefined) return null;
  const table = doc.propertyTables[doc.tileMetadata];
  const view = doc.bufferViews[Object.values(table.properties)[0].values];
  const at = 24 + jsonLength + view.byteOffset;
  return new Float64Array(buffer.slice(at, at + view.byteLength));
}

// 3DTilesRendererJS's implicit tiling halves the root's error per level and reads no
// tile metadata; this one gives each tile of a subtree the error it declares, so a
// coarse content over sampled grids is refined by what is proven of it.
class DeclaredErrorTiling extends ImplicitTilingPlugin {
  parseTile(buffer, tile, extension) {
    const parsed = super.parseTile(buffer, tile, extension);
    if (!parsed) return parsed;
    return parsed.then(() => {
      const errors = declaredErrors(buffer);
      if (!errors) return;
      // The plugin expands the subtree under its placeholder: the subtree's root, then
      // its levels; the next subtrees' placeholders lie one level below them.
      const root = tile.children[0];
      const levels = tile.__implicitRoot.implicitTiling.subtreeLevels;
      const stack = [root];
      while (stack.length) {
        const t = stack.pop();
        const d = t.__level - root.__level;
        if (d >= levels) continue;
        const [x, y] = [t.__x - root.__x * 2 ** d, t.__y - root.__y * 2 ** d];
        let morton = 0;
        for (let b = 0; b < d; b++) morton += (((x >> b) & 1) + 2 * ((y >> b) & 1)) * 4 ** b;
        const e = errors[(4 ** d - 1) / 3 + morton];
        if (e !== undefined) t.geometricError = e;
        stack.push(...t.children);
      }
    });
  }
}

// The viewer box: a renderer, a scene lit from the north-west, a camera with orbit
// controls, and a frame loop calling `onFrame` before each render.
function openViewer(title, onClose) {
  if (current) current.dispose();
  const box = document.getElementById('viewer3d');
  const canvas = document.getElementById('viewer3d-canvas');
  box.hidden = false;
  document.getElementById('viewer3d-title').textContent = title;
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x87a9c9);
  const camera = new THREE.PerspectiveCamera(50, 1, 0.1, 10000);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x445544, 1.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.0);
  sun.position.set(-1, 1.4142, -1); // north-west, 45 degrees up
  scene.add(sun);
  const controls = new OrbitControls(camera, canvas);
  const view = { renderer, scene, camera, controls, canvas, onFrame: () => {}, onDispose: () => {} };

  let running = true;
  function frame() {
    if (!running) return;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== w || canvas.height !== h) {
      renderer.setSize(w, h, false);
      camera.aspect = w / Math.max(1, h);
      camera.updateProjectionMatrix();
    }
    controls.update();
    view.onFrame();
    renderer.render(scene, camera);
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
  current = {
    dispose() {
      running = false;
      view.onDispose();
      controls.dispose();
      renderer.dispose();
      box.hidden = true;
      current = null;
    },
  };
  document.getElementById('viewer3d-close').onclick = () => { current?.dispose(); onClose(); };
  document.getElementById('viewer3d-fly').hidden = true;
  return view;
}

// The chunk's instances as one THREE.InstancedMesh per block kind.
async function voxelChunk(base, cx, cz, kinds) {
  const r = await fetch(`${base}/tiles/${cx}/${cz}/instances`);
  if (!r.ok) throw new Error(`instances of chunk ${cx}, ${cz}: HTTP ${r.status}`);
  const answer = await r.json();
  const occludes = new Map(kinds.map((k) => [k.id, k.occludes]));
  const root = new THREE.Group();
  const cube = new THREE.BoxGeometry(1, 1, 1);
  const m = new THREE.Matrix4();
  const c = new THREE.Color();
  const meshes = [];
  for (const kind of answer.kinds) {
    const solid = occludes.get(kind.kind) ?? true;
    const material = new THREE.MeshStandardMaterial({
      roughness: 0.9,
      transparent: !solid,
      opacity: solid ? 1 : 0.6,
      depthWrite: solid,
    });
    const mesh = new THREE.InstancedMesh(cube, material, kind.count);
    mesh.name = kind.name;
    for (let i = 0; i < kind.count; i++) {
      const [x, y, z] = kind.positions.slice(3 * i, 3 * i + 3);
      m.makeTranslation(x + 0.5, y + 0.5, z + 0.5);
      mesh.setMatrixAt(i, m);
      // Served linear: three's working colour space is linear sRGB.
      c.setRGB(kind.colours[3 * i], kind.colours[3 * i + 1], kind.colours[3 * i + 2]);
      mesh.setColorAt(i, c);
    }
    mesh.instanceMatrix.needsUpdate = true;
    if (mesh.instanceColor) mesh.instanceColor.needsUpdate = true;
    if (!solid) mesh.renderOrder = 1;
    root.add(mesh);
    meshes.push({ kind: kind.name, count: kind.count });
  }
  return { root, meshes };
}

// Chunk (cx, cz) of a voxel world in 3-D; `blockKinds`: the world's block kinds (from
// GET /v1/worlds).
export async function showChunk(base, cx, cz, onClose, blockKinds) {
  const { scene, camera, controls } = openViewer(`chunk ${cx}, ${cz}`, onClose);
  const { root, meshes } = await voxelChunk(base, cx, cz, blockKinds);
  scene.add(root);
  const bounds = new THREE.Box3().setFromObject(root);
  const centre = bounds.getCenter(new THREE.Vector3());
  const size = bounds.getSize(new THREE.Vector3()).length();
  camera.position.copy(centre).add(new THREE.Vector3(-0.6, 0.6, -0.6).multiplyScalar(size));
  camera.near = size / 1000;
  camera.far = size * 10;
  camera.updateProjectionMatrix();
  controls.target.copy(centre);
  controls.update();
  window.terrainMap.view3d = { chunk: [cx, cz], meshes, rendered: true };
}

// Heights of world points [[x, z], ...], as POST .../heights answers them.
async function heightsAt(base, points) {
  if (points.length === 0) return [];
  const r = await fetch(`${base}/heights`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ points }),
  });
  if (!r.ok) throw new Error(`heights: HTTP ${r.status}`);
  return (await r.json()).heights;
}

// Points along a zone's outline (its flat core): a rectangle's sides or a circle.
function outlinePoints(z) {
  const out = [];
  if (z.radius !== undefined) {
    const n = Math.min(256, Math.max(32, Math.ceil((2 * Math.PI * z.radius) / 4)));
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n;
      out.push([z.centerX + z.radius * Math.cos(a), z.centerZ + z.radius * Math.sin(a)]);
    }
    return out;
  }
  const [x0, x1] = [z.centerX - z.width / 2, z.centerX + z.width / 2];
  const [z0, z1] = [z.centerZ - z.depth / 2, z.centerZ + z.depth / 2];
  const corners = [[x0, z0], [x1, z0], [x1, z1], [x0, z1]];
  for (let c = 0; c < 4; c++) {
    const [a, b] = [corners[c], corners[(c + 1) % 4]];
    const n = Math.min(64, Math.max(1, Math.ceil(Math.hypot(b[0] - a[0], b[1] - a[1]) / 4)));
    for (let i = 0; i < n; i++) out.push([a[0] + ((b[0] - a[0]) * i) / n, a[1] + ((b[1] - a[1]) * i) / n]);
  }
  return out;
}

// The whole world of a heightfield world in 3-D, streamed from its tileset, the camera
// at the start of a flight towards `focus` ({x, z}); `water` the height the map draws
// water below (the legend's `waterThreshold`, null for none).
// Answers the handle map.js feeds zones, viewers and tile events to.
export async function showWorld(base, { focus, water, onClose }) {
  const view = openViewer('world (3D Tiles)', onClose);
  const { renderer, scene, camera, controls } = view;
  camera.fov = 60;
  controls.maxPolarAngle = Math.PI * 0.49;

  const tiles = new TilesRenderer(`${base}/3dtiles/tileset.json`);
  tiles.registerPlugin(new DeclaredErrorTiling());
  // Every content request revalidates what the browser holds with its ETag.
  tiles.fetchOptions = { cache: 'no-cache' };
  // Downloads start as soon as they are queued, not at the next animation frame (a
  // frame of the software renderer can take a few hundred milliseconds).
  tiles.downloadQueue.schedulingCallback = (run) => setTimeout(run, 0);
  tiles.group.rotation.x = -Math.PI / 2; // the tileset frame is z up; three.js is y up
  tiles.setCamera(camera);
  scene.add(tiles.group);

  // The tileset's levels below the root, once it has loaded.
  let layout = null;
  // The sea plane, when the world's water is a height (not a voxel world's blocks).
  let sea = null;
  tiles.addEventListener('load-tile-set', ({ tileSet }) => {
    if (layout || !tileSet.root?.implicitTiling) return;
    const b = tileSet.root.boundingVolume.box;
    layout = { levels: tileSet.root.implicitTiling.availableLevels - 1 };
    // The sea, as the map draws it: a plane at the water height over the square.
    if (typeof water === 'number') {
      sea = new THREE.Mesh(new THREE.PlaneGeometry(2 * b[3], 2 * b[7]),
        new THREE.MeshStandardMaterial({ color: 0x2f5f9a, roughness: 0.8, transparent: true, opacity: 0.85 }));
      sea.rotation.x = -Math.PI / 2;
      sea.position.set(b[0], water, -b[1]);
      scene.add(sea);
    }
  });

  // The flight: from 2 km east of the focus and 1 km above its ground to 30 m east and
  // 8 m above, each offset shrinking geometrically (the camera slows as it nears).
  const [ground, focusGround] = await heightsAt(base, [[focus.x + 30, focus.z], [focus.x, focus.z]]);
  const target = new THREE.Vector3(focus.x, focusGround, focus.z);
  function place(t) {
    const east = 2000 * (30 / 2000) ** t;
    const up = 1000 * (8 / 1000) ** t;
    camera.position.set(focus.x + east, ground + up, focus.z);
    controls.target.copy(target);
    controls.update();
  }
  let flight = null;
  function fly(t) {
    flight = null;
    place(t);
  }
  function startFlight(seconds = 12) {
    flight = { from: performance.now(), ms: seconds * 1000 };
  }
  controls.addEventListener('start', () => { flight = null; });
  const flyButton = document.getElementById('viewer3d-fly');
  flyButton.hidden = false;
  flyButton.onclick = () => startFlight();

  // Overlays: zone outlines and viewer markers, at the ground's heights.
  const zoneGroup = new THREE.Group();
  const viewerGroup = new THREE.Group();
  scene.add(zoneGroup, viewerGroup);
  const disposeChildren = (g) => {
    for (const o of g.children) { o.geometry.dispose(); o.material.dispose(); }
    g.clear();
  };
  let zoneCall = 0;
  async function drawZones(zones) {
    const call = ++zoneCall;
    const outlines = zones.map(outlinePoints);
    const hs = await heightsAt(base, outlines.flat());
    if (call !== zoneCall) return;
    disposeChildren(zoneGroup);
    let k = 0;
    for (const pts of outlines) {
      const v = pts.map(([x, z]) => new THREE.Vector3(x, hs[k++] + 0.3, z));
      const line = new THREE.LineLoop(new THREE.BufferGeometry().setFromPoints(v),
        new THREE.LineBasicMaterial({ color: 0xff00ff }));
      zoneGroup.add(line);
    }
  }
  let viewerCall = 0;
  async function drawViewers(viewers) {
    const call = ++viewerCall;
    const hs = await heightsAt(base, viewers.map((v) => [v.x, v.z]));
    if (call !== viewerCall) return;
    disposeChildren(viewerGroup);
    viewers.forEach((v, i) => {
      const ball = new THREE.Mesh(new THREE.SphereGeometry(2, 16, 12), new THREE.MeshBasicMaterial({ color: 0xd32f2f }));
      ball.position.set(v.x, hs[i] + 2, v.z);
      ball.name = v.id;
      const pole = new THREE.Line(new THREE.BufferGeometry().setFromPoints(
        [new THREE.Vector3(v.x, hs[i], v.z), new THREE.Vector3(v.x, hs[i] + 60, v.z)]),
      new THREE.LineBasicMaterial({ color: 0xd32f2f }));
      viewerGroup.add(ball, pole);
    });
  }

  // Live reload. Loaded contents are dropped from the renderer's cache, so its next
  // update requests them again; one still loading may be answered from before the
  // change, so it is dropped once it has loaded. The contents on screen go first; the
  // others (coarser ones kept for zooming out) once those have been drawn again, so the
  // server builds what is seen first. A dropped content on screen leaves a copy of its
  // meshes (a ghost, in the tiles' frame) drawn until its new answer is drawn, or until
  // the renderer has nothing left to load (it was not needed again).
  const ghosts = new THREE.Group();
  ghosts.rotation.x = -Math.PI / 2;
  scene.add(ghosts);
  const ghostOf = new Map();
  function unghost(tile) {
    const ghost = ghostOf.get(tile);
    ghostOf.delete(tile);
    ghosts.remove(ghost);
    // The ghost shares the dropped meshes' geometry and materials: drawing it uploaded
    // them again.
    ghost.traverse((o) => {
      if (o.isMesh) { o.geometry.dispose(); o.material.dispose(); }
    });
  }
  const contentOf = (tile) => {
    const m = tile.content?.uri?.match(/content\/(\d+)\/(\d+)\/(\d+)\.glb$/);
    return m ? m.slice(1, 4).map(Number) : null;
  };
  const stale = new Set();
  const reloads = [];
  function drop(tile) {
    const state = tile.__loadingState;
    if (state === LOADED || state === FAILED) {
      const shown = tile.cached.scene;
      if (shown?.parent && !ghostOf.has(tile)) {
        const ghost = shown.clone();
        ghosts.add(ghost);
        ghostOf.set(tile, ghost);
      }
      tiles.lruCache.remove(tile);
      reloads.push({ uri: tile.content.uri, at: performance.now() });
    } else if (state !== UNLOADED) {
      stale.add(tile);
    }
  }
  const later = new Set();
  function reloadWhere(covers) {
    for (const tile of tiles.lruCache.itemSet.keys()) {
      const c = contentOf(tile);
      if (!c || !covers(c)) continue;
      if (tile.cached.scene?.parent) drop(tile);
      else later.add(tile);
    }
    // Request them again now rather than at the next frame.
    tiles.update();
  }
  // An event names the contents it changed: [level, minX, minY, maxX, maxY] per level.
  function changed(msg) {
    const named = msg.tilesetContents ?? [];
    reloadWhere(([level, x, y]) =>
      named.some(([l, x0, y0, x1, y1]) => l === level && x >= x0 && x <= x1 && y >= y0 && y <= y1));
  }

  let frames = 0;
  view.onFrame = () => {
    if (flight) {
      const t = Math.min(1, (performance.now() - flight.from) / flight.ms);
      place(t);
      if (t === 1) flight = null;
    }
    for (const tile of stale) {
      const state = tile.__loadingState;
      if (state === UNLOADED) stale.delete(tile);
      else if (state === LOADED || state === FAILED) {
        stale.delete(tile);
        drop(tile);
      }
    }
    // Near enough for the ground a metre away, far enough for the whole square.
    const above = Math.max(1, camera.position.y - ground);
    camera.near = Math.min(10, Math.max(0.1, above / 100));
    camera.far = 40000;
    camera.updateProjectionMatrix();
    camera.updateMatrixWorld();
    tiles.setResolutionFromRenderer(camera, renderer);
    tiles.update();
    for (const tile of ghostOf.keys()) {
      const state = tile.__loadingState;
      if (state === LOADED || state === FAILED || (state === UNLOADED && !tiles.isLoading)) unghost(tile);
    }
    if (ghostOf.size === 0 && stale.size === 0 && later.size > 0) {
      for (const tile of later) drop(tile);
      later.clear();
    }
    frames++;
  };
  view.onDispose = () => {
    tiles.dispose();
    scene.traverse((o) => {
      if (o.isMesh || o.isLine) { o.geometry.dispose(); o.material.dispose(); }
    });
  };

  place(0);
  startFlight();
  const reloadAll = () => reloadWhere(() => true);
  const handle = {
    zones: (zones) => drawZones(zones).catch((e) => console.warn('zones in 3-D', e)),
    viewers: (viewers) => drawViewers(viewers).catch((e) => console.warn('viewers in 3-D', e)),
    changed,
    reloadAll,
  };
  // For tests and the console.
  window.terrainMap.view3d = {
    world: true,
    tiles,
    camera,
    reloads,
    fly,
    startFlight,
    reloadAll,
    frames: () => frames,
    loading: () => !layout || tiles.isLoading || tiles.stats.downloading > 0 || tiles.stats.parsing > 0 || stale.size > 0 || later.size > 0,
    layout: () => layout,
    sea: () => sea !== null,
    visibleLevels: () => [...tiles.visibleTiles].map(contentOf).filter(Boolean).map((c) => c[0]),
    ghosts: () => ghostOf.size,
    zoneOutlines: () => zoneGroup.children.length,
    viewerMarkers: () => viewerGroup.children.filter((o) => o.isMesh).map((o) => o.name),
    rendered: true,
  };
  return handle;
}
