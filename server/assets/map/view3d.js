// The 3-D view of one tile: its glb from GET /v1/worlds/{w}/tiles/{tx}/{tz}/mesh.glb,
// lit from the north-west like the map, with orbit controls. Vertex colours are used
// when the mesh carries them (COLOR_0); otherwise the surface is coloured by height.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

let current = null;

export async function showTile(base, tx, tz, onClose) {
  if (current) current.dispose();
  const box = document.getElementById('viewer3d');
  const canvas = document.getElementById('viewer3d-canvas');
  box.hidden = false;
  document.getElementById('viewer3d-title').textContent = `tile ${tx}, ${tz}`;
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x87a9c9);
  const camera = new THREE.PerspectiveCamera(50, 1, 0.1, 10000);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x445544, 1.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.0);
  sun.position.set(-1, 1.4142, -1); // north-west, 45 degrees up
  scene.add(sun);

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
  window.terrainMap.view3d = { tile: [tx, tz], rendered: true };
}
