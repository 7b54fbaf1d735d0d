// The island around the spawn, drawn with three.js from terrain-client/web's tiles:
// each tile's mesh (positions, normals, colours, index) is the server's own mesh of that
// tile, computed by the WebAssembly replica in a Web Worker. A zone change on the server
// (or one registered in this page) names the tiles it regenerates; those are asked again
// and their meshes replaced.
//
// Query string: ?server=http://127.0.0.1:8080&world=main[&radius=3]. Once drawn, the
// page sets window.exampleReady = true and window.exampleRevision (the revision shown).
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { HyperscapeTerrain } from "terrain-client/web";

const query = new URLSearchParams(location.search);
const server = query.get("server") ?? "http://127.0.0.1:8080";
const world = query.get("world") ?? "main";
/** Tiles drawn on each side of the spawn's tile. */
const radius = Math.max(0, Math.min(6, Number(query.get("radius") ?? 3)));
const status = document.getElementById("status");

function say(text, error = false) {
  status.textContent = text;
  status.className = error ? "error" : "";
}

const material = new THREE.MeshLambertMaterial({ vertexColors: true });
const plain = new THREE.MeshLambertMaterial({ color: 0x7a9a5a });
/** The drawn tiles: "tx,tz" -> mesh. */
const meshes = new Map();

/** The renderer, the scene, the camera and its controls (throws without WebGL 2). */
function setup() {
  const renderer = new THREE.WebGLRenderer({ antialias: true });
  renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
  renderer.setSize(window.innerWidth, window.innerHeight);
  document.body.appendChild(renderer.domElement);

  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x9cc7e8);
  scene.fog = new THREE.Fog(0x9cc7e8, 400, 1400);
  scene.add(new THREE.HemisphereLight(0xdde8ff, 0x4a4030, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 2.2);
  sun.position.set(-300, 500, 200);
  scene.add(sun);

  const camera = new THREE.PerspectiveCamera(55, window.innerWidth / window.innerHeight, 1, 4000);
  const controls = new OrbitControls(camera, renderer.domElement);
  const render = () => renderer.render(scene, camera);
  controls.addEventListener("change", render);
  window.addEventListener("resize", () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
    render();
  });
  return { scene, camera, controls, render };
}

/** A tile's mesh from terrain-client/web's arrays. */
function meshOf(tile) {
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.BufferAttribute(tile.positions, 3));
  g.setAttribute("normal", new THREE.BufferAttribute(tile.normals, 3));
  const coloured = tile.colors.length === tile.positions.length;
  if (coloured) {
    // The mesh's colours are sRGB; three.js lights in linear space.
    const c = new THREE.Color();
    const rgb = tile.colors;
    for (let i = 0; i < rgb.length; i += 3) {
      c.setRGB(rgb[i], rgb[i + 1], rgb[i + 2], THREE.SRGBColorSpace);
      rgb[i] = c.r;
      rgb[i + 1] = c.g;
      rgb[i + 2] = c.b;
    }
    g.setAttribute("color", new THREE.BufferAttribute(rgb, 3));
  }
  g.setIndex(new THREE.BufferAttribute(tile.index, 1));
  g.computeBoundingSphere();
  const mesh = new THREE.Mesh(g, coloured ? material : plain);
  mesh.position.set(tile.placement[0], tile.placement[1], tile.placement[2]);
  return mesh;
}

/** Draws tile (tx, tz) as the replica has it now, replacing what was drawn there. */
async function draw(scene, terrain, tx, tz) {
  const tile = await terrain.tile(tx, tz);
  const key = `${tx},${tz}`;
  const old = meshes.get(key);
  if (old) {
    scene.remove(old);
    old.geometry.dispose();
  }
  const mesh = meshOf(tile);
  meshes.set(key, mesh);
  scene.add(mesh);
  return tile.revision;
}

try {
  const { scene, camera, controls, render } = setup();
  const started = performance.now();
  const terrain = await HyperscapeTerrain.open(server, world);
  const opened = performance.now() - started;

  // The spawn: the island's centre, at the server's height there (a synchronous read).
  const spawn = { x: 0, z: 0 };
  const ground = terrain.getHeightAt(spawn.x, spawn.z);
  const size = terrain.getTileSize();
  const centre = { tx: Math.round(spawn.x / size), tz: Math.round(spawn.z / size) };
  const wanted = [];
  for (let tz = centre.tz - radius; tz <= centre.tz + radius; tz++) {
    for (let tx = centre.tx - radius; tx <= centre.tx + radius; tx++) wanted.push([tx, tz]);
  }

  // The sea at the world's water level, when it lists one.
  const waterLevel = terrain.worldInfo.walkability?.waterLevel;
  if (typeof waterLevel === "number") {
    const extent = (2 * radius + 1) * size;
    const water = new THREE.Mesh(
      new THREE.PlaneGeometry(extent, extent),
      new THREE.MeshLambertMaterial({ color: 0x2f6fa8, transparent: true, opacity: 0.7 }),
    );
    water.rotation.x = -Math.PI / 2;
    water.position.set(centre.tx * size, waterLevel, centre.tz * size);
    scene.add(water);
  }

  // A marker standing on the ground at the spawn.
  const marker = new THREE.Mesh(new THREE.ConeGeometry(3, 10, 12), new THREE.MeshLambertMaterial({ color: 0xd03030 }));
  marker.position.set(spawn.x, ground + 5, spawn.z);
  scene.add(marker);

  const reach = (radius + 0.5) * size;
  camera.position.set(spawn.x + 0.55 * reach, ground + 0.9 * reach, spawn.z + 1.0 * reach);
  controls.target.set(spawn.x, ground, spawn.z);
  controls.update();

  let revision = terrain.revision;
  const t0 = performance.now();
  await Promise.all(wanted.map(([tx, tz]) => draw(scene, terrain, tx, tz).then((r) => (revision = Math.max(revision, r)))));
  const drawnMs = performance.now() - t0;
  render();
  const info = () =>
    `world ${world} at revision ${revision}\n` +
    `${meshes.size} tiles of ${size} m around the spawn (height ${ground.toFixed(2)} m)\n` +
    `opened in ${opened.toFixed(0)} ms, tiles built in the worker in ${drawnMs.toFixed(0)} ms`;
  say(info());
  window.exampleRevision = revision;
  window.exampleReady = true;

  // Live: a change names the tiles it regenerates; draw those again (ones in view).
  let queue = Promise.resolve();
  terrain.on("tiles", (event) => {
    const mine = event.tiles.filter(([tx, tz]) => meshes.has(`${tx},${tz}`));
    queue = queue.then(async () => {
      await Promise.all(mine.map(([tx, tz]) => draw(scene, terrain, tx, tz)));
      revision = Math.max(revision, event.revision);
      render();
      say(`${info()}\nlast change: ${event.change} ${event.zone}${event.local ? " (this page)" : ""}, ${mine.length} tiles redrawn`);
      window.exampleRevision = revision;
    });
  });
  terrain.on("rebuilt", () => {
    queue = queue.then(async () => {
      await Promise.all([...meshes.keys()].map((k) => draw(scene, terrain, ...k.split(",").map(Number))));
      revision = terrain.revision;
      render();
      say(`${info()}\nrebuilt from the server's zone list`);
      window.exampleRevision = revision;
    });
  });
  terrain.on("error", (e) => say(`${info()}\nstopped following the server: ${e.message}`, true));
  window.terrain = terrain;
} catch (e) {
  console.error(e);
  window.exampleError = String(e?.message ?? e);
  say(`could not draw the terrain: ${window.exampleError}`, true);
}
