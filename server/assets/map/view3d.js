// The 3-D view of one tile, lit from the north-west like the map, with orbit controls.
// - Heightfield worlds: the tile's glb from GET /v1/worlds/{w}/tiles/{tx}/{tz}/mesh.glb,
//   with its vertex colours (COLOR_0), or coloured by height when it has none.
// - Voxel worlds: the chunk's visible blocks from GET .../tiles/{cx}/{cz}/instances,
//   drawn as the seed draws them: one instanced cube mesh per block kind, each instance
//   in its own colour (linear RGB, as served); kinds that do not occlude (water, ice,
//   leaves, ...) translucent.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

let current = null;

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

async function heightfieldTile(base, tx, tz) {
  const gltf = await new GLTFLoader().loadAsync(`${base}/tiles/${tx}/${tz}/mesh.glb`);
  const root = gltf.scene;
  let minY = Infinity, maxY = -Infinity;
  root.traverse((o) => {
    if (!o.isMesh) return;
    const pos = o.geometry.getAttribute('position');
    for (let i = 0; i < pos.count; i++) { minY = Math.min(minY, pos.getY(i)); maxY = Math.max(maxY, pos.getY(i)); }
    if (!o.geometry.getAttribute('color')) {
      const colours = new Float32Array(pos.count * 3);
      const lo = new THREE.Color(0x4f8a3c), hi = new THREE.Color(0xb89f73), c = new THREE.Color();
      for (let i = 0; i < pos.count; i++) {
        c.copy(lo).lerp(hi, (pos.getY(i) - minY) / Math.max(1e-6, maxY - minY));
        colours.set([c.r, c.g, c.b], i * 3);
      }
      o.geometry.setAttribute('color', new THREE.BufferAttribute(colours, 3));
    }
    o.material = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.95, side: THREE.DoubleSide });
  });
  return { root, meshes: [{ kind: 'glb' }] };
}

// `blockKinds`: the world's block kinds (from GET /v1/worlds) on a voxel world, else
// undefined.
export async function showTile(base, tx, tz, onClose, blockKinds) {
  if (current) current.dispose();
  const box = document.getElementById('viewer3d');
  const canvas = document.getElementById('viewer3d-canvas');
  box.hidden = false;
  document.getElementById('viewer3d-title').textContent = `${blockKinds ? 'chunk' : 'tile'} ${tx}, ${tz}`;
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x87a9c9);
  const camera = new THREE.PerspectiveCamera(50, 1, 0.1, 10000);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x445544, 1.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.0);
  sun.position.set(-1, 1.4142, -1); // north-west, 45 degrees up
  scene.add(sun);

  const { root, meshes } = blockKinds
    ? await voxelChunk(base, tx, tz, blockKinds)
    : await heightfieldTile(base, tx, tz);
  scene.add(root);
  const bounds = new THREE.Box3().setFromObject(root);
  const centre = bounds.getCenter(new THREE.Vector3());
  const size = bounds.getSize(new THREE.Vector3()).length();
  camera.position.copy(centre).add(new THREE.Vector3(-0.6, 0.6, -0.6).multiplyScalar(size));
  camera.near = size / 1000;
  camera.far = size * 10;
  camera.updateProjectionMatrix();
  const controls = new OrbitControls(camera, canvas);
  controls.target.copy(centre);
  controls.update();

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
    renderer.render(scene, camera);
    requestAnimationFrame(frame);
  }
  frame();
  current = {
    dispose() {
      running = false;
      controls.dispose();
      renderer.dispose();
      box.hidden = true;
      current = null;
    },
  };
  document.getElementById('viewer3d-close').onclick = () => { current?.dispose(); onClose(); };
  window.terrainMap.view3d = { tile: [tx, tz], meshes, rendered: true };
}
