// The live map page: a world picker at /map, the map of one world at /map/{world}.
//
// Map tiles come from GET /v1/worlds/{w}/map/{z}/{x}/{y}.png (zoom z: 2^(4 - z)
// metres a pixel, north up: Leaflet's lat is world z, lng is world x). Overlays,
// each toggled in the layers control: the walkability layer (the same tiles with
// ?layer=walk: transparent PNGs shading unwalkable ground by reason, off by
// default), flat zones, viewers with their rings, the tile grid when zoomed in,
// layout hubs and spokes. A click shows the height (GET .../height) and the terrain
// info (POST .../terrain-info: biome, slope, walkable and its reason). Live: a WebSocket on /v1/worlds/{w}/events for the tiles in view (the
// area follows pans and zooms); each event reloads the map tiles it touches and
// highlights them; viewers are polled from /v1/worlds/{w}/map/viewers every 500 ms.
// 3-D (view3d.js): the whole world streamed from its 3D Tiles tileset (the map's 3-D
// button; on a heightfield world also a click's), with the zones, viewers and tile
// events fed to it (the events' area is then the whole world); a voxel world's chunk
// (a click's 3-D button). The view (world, centre, zoom, the 3-D view's focus or open
// chunk) is kept in the URL fragment.

const api = (path) => fetch(path).then((r) => {
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
});

const status = document.getElementById('status');
function say(html) {
  status.hidden = false;
  status.innerHTML = html;
}

function fragment() {
  const out = {};
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    if (!part) continue;
    const [k, v] = part.split('=');
    out[decodeURIComponent(k)] = decodeURIComponent(v ?? '');
  }
  return out;
}

async function picker() {
  document.getElementById('picker').hidden = false;
  const { worlds } = await api('/v1/worlds');
  const list = document.getElementById('worlds');
  for (const w of worlds) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `/map/${encodeURIComponent(w.id)}`;
    a.textContent = w.id;
    li.append(a, ` (${w.generator}, seed ${w.seed}, ${w.zones} zones${w.layout ? ', layout ' + w.layout.pattern : ''})`);
    list.append(li);
  }
}

const escapeHtml = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

async function worldMap(worldId) {
  const base = `/v1/worlds/${encodeURIComponent(worldId)}`;
  const [{ worlds }, legend] = await Promise.all([api('/v1/worlds'), api(`${base}/map/legend`)]);
  const world = worlds.find((w) => w.id === worldId);
  if (!world) throw new Error(`unknown world ${worldId}`);
  const grid = legend.tileGrid; // {size, resolution, centred}
  const origin = (t) => t * grid.size - (grid.centred ? grid.size / 2 : 0);
  const tileOf = (c) => Math.floor(c / grid.size + (grid.centred ? 0.5 : 0));
  // Leaflet's lat is world z, growing downward (south): its getSouth() is the
  // smallest z, the top of the screen.

  document.getElementById('map').hidden = false;
  const k = 1 / legend.metresPerPixelAtZoom0;
  const crs = L.extend({}, L.CRS.Simple, { transformation: new L.Transformation(k, 0, k, 0) });
  const view = fragment();
  const map = L.map('map', {
    crs,
    minZoom: legend.minZoom,
    maxZoom: legend.maxZoom + 2,
    zoomSnap: 1,
    attributionControl: false,
  });
  window.terrainMap = { map, world: worldId }; // for tests and the console
  map.setView([Number(view.z ?? 0), Number(view.x ?? 0)], Number(view.zoom ?? 3));

  // Map tiles, with a per-tile cache buster bumped when an event touches the tile;
  // the walk layer is the same tiles with ?layer=walk, drawn over them.
  const bust = new Map();
  const MapTiles = L.TileLayer.extend({
    getTileUrl(c) {
      const key = `${c.z}/${c.x}/${c.y}`;
      const b = bust.get(key);
      const query = [this.options.layer ? `layer=${this.options.layer}` : '', b ? `r=${b}` : ''].filter(Boolean);
      return `${base}/map/${key}.png${query.length ? `?${query.join('&')}` : ''}`;
    },
  });
  const tileOptions = {
    tileSize: legend.tilePixels,
    minZoom: legend.minZoom,
    maxZoom: legend.maxZoom + 2,
    maxNativeZoom: legend.maxZoom,
    noWrap: true,
    keepBuffer: 1,
  };
  const tiles = new MapTiles('', tileOptions).addTo(map);
  const walkTiles = new MapTiles('', { ...tileOptions, layer: 'walk', className: 'walk-tiles', zIndex: 2 });
  if (view.walk === '1') walkTiles.addTo(map);
  window.terrainMap.tiles = tiles;
  window.terrainMap.walkTiles = walkTiles;
  window.terrainMap.reloads = [];
  window.terrainMap.messages = [];

  // Legend: the map's colours, the overlays, and the walk layer's shadings while it
  // is shown.
  const legendBox = document.getElementById('legend');
  legendBox.hidden = false;
  const rgba = (c) => `rgba(${c.slice(0, 3).join(',')},${(c[3] / 255).toFixed(3)})`;
  function drawLegend() {
    const walkOn = map.hasLayer(walkTiles);
    legendBox.innerHTML = `<b>${escapeHtml(world.id)}</b> (${escapeHtml(legend.generator)})` +
      legend.entries.map((e) => `<div><span class="swatch" style="background:rgb(${e.rgb.join(',')})"></span>${escapeHtml(e.label)}</div>`).join('') +
      '<div class="key"><span class="swatch" style="border-color:#ff00ff"></span>flat zone</div>' +
      '<div><span class="swatch" style="border-color:#ffeb3b"></span>changed tile</div>' +
      '<div><span class="swatch" style="border-color:#d32f2f"></span>viewer sim / <span style="color:#f57c00">spawn</span> / <span style="color:#1976d2">active</span></div>' +
      (world.layout ? '<div><span class="swatch" style="border-color:#000"></span>layout hubs and spokes</div>' : '') +
      (walkOn
        ? `<div id="walk-legend" class="key"><b>not walkable</b> (rule ${escapeHtml(legend.walk.rule)})` +
          legend.walk.entries.map((e) => `<div class="walk-entry" data-reason="${escapeHtml(e.reason)}"><span class="swatch" style="background:${rgba(e.rgba)}"></span>${escapeHtml(e.label)}</div>`).join('') +
          '</div>'
        : '');
  }
  drawLegend();

  // Flat zones.
  const zoneLayer = L.layerGroup().addTo(map);
  // The open 3-D view of the whole world (heightfield worlds), fed zones, viewers and
  // tile events.
  let world3d = null;
  // Whether a tile changed while the 3-D view covered the map.
  let changedUnder3d = false;
  const zoneShapes = new Map();
  window.terrainMap.zones = zoneShapes;
  let zoneList = [];
  // The outline of a tile mask: every edge of a tile whose neighbour across it is not
  // in the mask, as [z, x] segments.
  function maskOutline(tiles) {
    const set = new Set(tiles.map(([x, z]) => `${x},${z}`));
    const has = (x, z) => set.has(`${x},${z}`);
    const segments = [];
    for (const [x, z] of tiles) {
      if (!has(x - 1, z)) segments.push([[z, x], [z + 1, x]]);
      if (!has(x + 1, z)) segments.push([[z, x + 1], [z + 1, x + 1]]);
      if (!has(x, z - 1)) segments.push([[z, x], [z, x + 1]]);
      if (!has(x, z + 1)) segments.push([[z + 1, x], [z + 1, x + 1]]);
    }
    return segments;
  }
  // Every zone: the list is answered a page at a time, each page naming the next.
  async function allZones() {
    const zones = [];
    let token = '';
    do {
      const query = token ? `?pageToken=${encodeURIComponent(token)}` : '';
      const page = await api(`${base}/flat-zones${query}`);
      zones.push(...page.zones);
      token = page.nextPageToken ?? '';
    } while (token);
    return zones;
  }
  async function loadZones() {
    const zones = await allZones();
    zoneList = zones;
    world3d?.zones(zones);
    zoneLayer.clearLayers();
    zoneShapes.clear();
    for (const z of zones) {
      const style = { color: '#ff00ff', weight: 2, fill: false };
      const rect = [[z.centerZ - z.depth / 2, z.centerX - z.width / 2],
        [z.centerZ + z.depth / 2, z.centerX + z.width / 2]];
      const shape = z.radius !== undefined
        ? L.circle([z.centerZ, z.centerX], { ...style, radius: z.radius })
        : z.tileMask
          // A building footprint: its core is exactly its tiles (solid outline); the
          // rectangle it sits in is only a frame (dashed).
          ? L.featureGroup([
            L.polyline(maskOutline(z.tileMask), style),
            L.rectangle(rect, { ...style, weight: 1, dashArray: '4 4', opacity: 0.6 }),
          ])
          : L.rectangle(rect, style);
      shape.bindTooltip(`zone <b>${escapeHtml(z.id)}</b>${z.tileMask ? ` (${z.tileMask.length} tiles)` : ''}<br>height ${z.height}<br>blend ${z.blendRadius}` +
        `<br>carve ${z.tileMask ? "footprint" : (z.carveInset ?? "none")}<br>priority ${z.priority ?? 0}`, { sticky: true });
      shape.addTo(zoneLayer);
      zoneShapes.set(z.id, shape);
    }
  }
  await loadZones();

  // Viewers and their rings (tile rectangles), polled.
  const viewerLayer = L.layerGroup().addTo(map);
  const viewerMarkers = new Map();
  window.terrainMap.viewers = viewerMarkers;
  const ringColours = { sim: '#d32f2f', spawn: '#f57c00', active: '#1976d2' };
  const rectBounds = (r) => [[origin(r[1]), origin(r[0])], [origin(r[3] + 1), origin(r[2] + 1)]];
  let viewerStamp = '';
  let viewerList = [];
  async function loadViewers() {
    const answer = await api(`${base}/map/viewers`);
    const stamp = JSON.stringify(answer.viewers);
    if (stamp === viewerStamp) return;
    viewerStamp = stamp;
    viewerList = answer.viewers;
    world3d?.viewers(answer.viewers);
    viewerLayer.clearLayers();
    viewerMarkers.clear();
    for (const v of answer.viewers) {
      for (const ring of ['active', 'spawn', 'sim']) {
        L.rectangle(rectBounds(v.rings[ring]), { color: ringColours[ring], weight: 1, fill: false, dashArray: '4 3' })
          .bindTooltip(`${escapeHtml(v.id)}: ${ring} ring`).addTo(viewerLayer);
      }
      const m = L.circleMarker([v.z, v.x], { radius: 7, color: '#fff', weight: 2, fillColor: '#d32f2f', fillOpacity: 1 })
        .bindTooltip(`viewer <b>${escapeHtml(v.id)}</b><br>(${v.x}, ${v.z})<br>view ${v.viewWidth} x ${v.viewDepth}`)
        .addTo(viewerLayer);
      viewerMarkers.set(v.id, m);
    }
  }
  // A failed poll (the server restarting, the page being left) is retried by the next.
  const pollViewers = () => loadViewers().catch((e) => console.warn('viewers', e));
  await pollViewers();
  setInterval(pollViewers, 500);

  // The tile grid, when zoomed in far enough for it to be legible.
  const gridLayer = L.layerGroup().addTo(map);
  function drawGrid() {
    gridLayer.clearLayers();
    const pxPerTile = grid.size * k * 2 ** map.getZoom();
    if (pxPerTile < 48) return;
    const b = map.getBounds();
    const [x0, x1] = [tileOf(b.getWest()), tileOf(b.getEast())];
    const [z0, z1] = [tileOf(b.getSouth()), tileOf(b.getNorth())];
    const lines = [];
    for (let tx = x0; tx <= x1 + 1; tx++) lines.push([[origin(z0), origin(tx)], [origin(z1 + 1), origin(tx)]]);
    for (let tz = z0; tz <= z1 + 1; tz++) lines.push([[origin(tz), origin(x0)], [origin(tz), origin(x1 + 1)]]);
    L.polyline(lines, { color: '#000', weight: 1, opacity: 0.25, interactive: false }).addTo(gridLayer);
    if (pxPerTile >= 96) {
      for (let tz = z0; tz <= z1; tz++) {
        for (let tx = x0; tx <= x1; tx++) {
          L.marker([origin(tz), origin(tx)], {
            interactive: false,
            icon: L.divIcon({ className: 'tile-label', html: `<span style="font-size:10px;color:#0008">${tx},${tz}</span>`, iconAnchor: [-2, -2] }),
          }).addTo(gridLayer);
        }
      }
    }
  }

  // Layout hubs and spokes.
  const layoutLayer = L.layerGroup().addTo(map);

  // The layers control: every overlay can be hidden, the walk layer shown.
  const overlays = { walkability: walkTiles, 'flat zones': zoneLayer, viewers: viewerLayer, 'tile grid': gridLayer };
  if (world.layout) overlays['layout hubs'] = layoutLayer;
  L.control.layers(null, overlays, { collapsed: false, position: 'topright' }).addTo(map);
  map.on('overlayadd overlayremove', (e) => {
    if (e.layer === walkTiles) {
      drawLegend();
      writeFragment();
    }
  });
  async function drawLayout() {
    if (!world.layout) return;
    const b = map.getBounds();
    const q = `minX=${b.getWest()}&minZ=${b.getSouth()}&maxX=${b.getEast()}&maxZ=${b.getNorth()}`;
    let answer;
    try {
      answer = await api(`${base}/layout?${q}`);
    } catch (e) {
      console.warn('layout', e);
      return;
    }
    layoutLayer.clearLayers();
    const hubs = new Map(answer.hubs.map((h) => [h.id, h]));
    for (const s of answer.spokes) {
      const [a, c] = [hubs.get(s.a), hubs.get(s.b)];
      if (a && c) L.polyline([[a.z, a.x], [c.z, c.x]], { color: '#000', weight: 2, opacity: 0.6 }).addTo(layoutLayer);
    }
    for (const h of answer.hubs) {
      L.circle([h.z, h.x], { radius: h.r, color: '#000', weight: 2, fill: false })
        .bindTooltip(`hub <b>${escapeHtml(h.id)}</b>`).addTo(layoutLayer);
    }
  }

  // Click: the exact height, the deciding zone, the zone class, the terrain info
  // (biome, slope, walkable and why not); a button for 3-D.
  map.on('click', async (e) => {
    const x = e.latlng.lng;
    const z = e.latlng.lat;
    const [r, ri] = await Promise.all([
      fetch(`${base}/height?x=${x}&z=${z}`),
      fetch(`${base}/terrain-info`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ points: [[x, z]] }),
      }),
    ]);
    if (!r.ok || !ri.ok) throw new Error(`click at (${x}, ${z}): HTTP ${r.status}, ${ri.status}`);
    const [text, infoText] = await Promise.all([r.text(), ri.text()]);
    const answer = JSON.parse(text);
    const info = JSON.parse(infoText).points[0];
    // The numbers exactly as the API wrote them.
    const raw = (text.match(/"height":(-?[0-9.eE+-]+)/) || [])[1] ?? String(answer.height);
    const rawSlope = (infoText.match(/"slope":(-?[0-9.eE+-]+)/) || [])[1] ?? String(info.slope);
    const shading = legend.walk.entries.find((w) => w.reason === info.reason);
    let cls = '';
    if (world.layout) {
      const c = await api(`${base}/zone-class?x=${x}&z=${z}`);
      cls = `<br>class <b>${escapeHtml(c.class)}</b>${c.hub ? ` (hub ${escapeHtml(c.hub)})` : ''}`;
    }
    const [tx, tz] = [tileOf(x), tileOf(z)];
    const html = `<div class="height-popup">(${x}, ${z})<br>height <code id="clicked-height">${escapeHtml(raw)}</code>` +
      `<br>zone ${answer.zone ? `<b>${escapeHtml(answer.zone)}</b>` : 'none (terrain)'}${cls}` +
      `<br>biome <span id="clicked-biome">${escapeHtml(info.biome ?? 'none')}</span>` +
      `, slope <code id="clicked-slope">${escapeHtml(rawSlope)}</code>` +
      `<br>walkable <b id="clicked-walkable">${info.walkable ? 'yes' : 'no'}</b>` +
      `, reason ${shading ? `<span class="swatch" style="background:${rgba(shading.rgba)}"></span>` : ''}<span id="clicked-reason">${escapeHtml(info.reason ?? 'none')}</span>` +
      `<br>${world.blockKinds ? 'chunk' : 'tile'} ${tx}, ${tz} <button type="button" id="open3d">3-D</button></div>`;
    L.popup().setLatLng(e.latlng).setContent(html).openOn(map);
    window.terrainMap.clicked = { x, z, raw, slope: rawSlope, info };
    document.getElementById('open3d').onclick = () => (world.blockKinds ? openChunk(tx, tz) : openWorld(x, z));
  });

  // 3-D: a voxel world's chunk, or a heightfield world's whole world looking at a
  // point. Either is in the fragment (`tile=cx,cz`, `3d=x,z`).
  let open3dKey = view.tile ? `tile=${view.tile}` : view['3d'] ? `3d=${view['3d']}` : '';
  function closed3d() {
    open3dKey = '';
    writeFragment();
  }
  async function openChunk(cx, cz) {
    open3dKey = `tile=${cx},${cz}`;
    writeFragment();
    const { showChunk } = await import('/map/assets/view3d.js');
    await showChunk(base, cx, cz, closed3d, world.blockKinds);
  }
  async function openWorld(x, z) {
    open3dKey = `3d=${x.toFixed(2)},${z.toFixed(2)}`;
    writeFragment();
    const { showWorld } = await import('/map/assets/view3d.js');
    world3d = await showWorld(base, {
      focus: { x, z },
      // A voxel world's water is blocks, drawn by its contents.
      water: world.blockKinds ? null : (legend.waterThreshold ?? null),
      onClose: () => {
        world3d = null;
        closed3d();
        sendArea();
        // The map tiles are reloaded once the 3-D view is closed, not under it.
        if (changedUnder3d) reloadHeldTiles(heard);
        changedUnder3d = false;
      },
    });
    world3d.zones(zoneList);
    world3d.viewers(viewerList);
    sendArea();
  }
  window.terrainMap.openChunk = openChunk;
  window.terrainMap.openWorld = openWorld;
  {
    // A map button opening the whole world in 3-D at the map's centre.
    const Open3d = L.Control.extend({
      onAdd() {
        const b = L.DomUtil.create('button', 'open-world-3d');
        b.type = 'button';
        b.textContent = '3-D';
        b.title = 'the whole world in 3-D (3D Tiles)';
        L.DomEvent.disableClickPropagation(b);
        b.onclick = () => {
          const c = map.getCenter();
          openWorld(c.lng, c.lat);
        };
        return b;
      },
    });
    new Open3d({ position: 'topleft' }).addTo(map);
  }

  // The view in the fragment.
  function writeFragment() {
    const c = map.getCenter();
    const parts = [`world=${encodeURIComponent(worldId)}`, `x=${c.lng.toFixed(2)}`, `z=${c.lat.toFixed(2)}`, `zoom=${map.getZoom()}`];
    if (map.hasLayer(walkTiles)) parts.push('walk=1');
    if (open3dKey) parts.push(open3dKey);
    history.replaceState(null, '', `#${parts.join('&')}`);
  }

  // Live: events for the tiles in view.
  const flash = L.layerGroup().addTo(map);
  let socket = null;
  function viewArea() {
    const b = map.getBounds();
    return [tileOf(b.getWest()), tileOf(b.getSouth()), tileOf(b.getEast()), tileOf(b.getNorth())];
  }
  // The events' area: the tiles in the map's view, or every tile while the whole
  // world is open in 3-D.
  const area = () => (world3d ? {} : { tiles: viewArea() });
  function sendArea() {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(area()));
  }
  // One held tile fetched again (its cache buster already bumped).
  function reloadTile(layer, held, key, revision) {
    held.el.src = layer.getTileUrl(held.coords);
    window.terrainMap.reloads.push({ key, layer: layer.options.layer ?? 'terrain', revision, at: performance.now() });
  }
  function reloadMapTiles(bounds, revision) {
    const z = Math.min(map.getZoom(), legend.maxZoom);
    const span = legend.tilePixels * legend.metresPerPixelAtZoom0 / 2 ** z;
    // A map tile reads a one-pixel border: grow by a pixel.
    const px = span / legend.tilePixels;
    const [x0, x1] = [Math.floor((bounds.minX - px) / span), Math.floor((bounds.maxX + px) / span)];
    const [y0, y1] = [Math.floor((bounds.minZ - px) / span), Math.floor((bounds.maxZ + px) / span)];
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const key = `${z}/${x}/${y}`;
        // Never back: events an area change replays come after its acknowledgement,
        // which may have bumped the tile past them already.
        bust.set(key, Math.max(bust.get(key) ?? 0, revision));
        for (const layer of [tiles, walkTiles]) {
          const held = map.hasLayer(layer) && layer._tiles[`${x}:${y}:${z}`];
          if (held) reloadTile(layer, held, key, revision);
        }
        const r = L.rectangle([[y * span, x * span], [(y + 1) * span, (x + 1) * span]],
          { className: 'changed-tile', color: '#ffeb3b', weight: 3, fill: true, fillOpacity: 0.15 }).addTo(flash);
        setTimeout(() => flash.removeLayer(r), 1500);
      }
    }
  }
  // Every tile held in view, reloaded at `revision`: an area acknowledged past the
  // last revision the page heard of means events before it were matched against the
  // old area, so tiles that came into view may have changed unheard.
  function reloadHeldTiles(revision) {
    for (const layer of [tiles, walkTiles]) {
      if (!map.hasLayer(layer)) continue;
      for (const held of Object.values(layer._tiles)) {
        // Tiles of another zoom, kept only until Leaflet prunes them, are left alone.
        if (!held.current) continue;
        const { x, y, z } = held.coords;
        const key = `${z}/${x}/${y}`;
        bust.set(key, revision);
        const reload = () => reloadTile(layer, held, key, revision);
        // A tile still loading may be answered from before `revision`: reload it once
        // it has loaded, rather than cut its request off.
        if (held.el.complete) reload();
        else held.el.addEventListener('load', reload, { once: true });
      }
    }
  }
  // The newest revision the page has heard of (events, resyncs, area acknowledgements).
  let heard = null;
  function connect() {
    const { tiles: t } = area();
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${proto}://${location.host}${base}/events${t ? `?tiles=${t.join(',')}` : ''}`);
    // The 3-D view may have opened while the socket was connecting.
    socket.onopen = () => { if (world3d) sendArea(); };
    socket.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      // The last messages, for the browser test's diagnostics.
      const seen = window.terrainMap.messages;
      seen.push({ type: msg.type, revision: msg.revision, bounds: msg.bounds, at: performance.now() });
      if (seen.length > 50) seen.shift();
      const missed = msg.type === 'area' && heard !== null && msg.revision > heard;
      if (typeof msg.revision === 'number') heard = Math.max(heard ?? 0, msg.revision);
      if (msg.type === 'event') {
        // Zones first: the outline should not wait behind the tile reloads.
        loadZones().catch((e) => console.warn('zones', e));
        if (world3d) {
          world3d.changed(msg);
          changedUnder3d = true;
        } else {
          reloadMapTiles(msg.bounds, msg.revision);
        }
        say(`revision ${msg.revision}: zone ${escapeHtml(msg.cause?.zone ?? "?")} ${escapeHtml(msg.cause?.kind ?? "changed")}`);
      } else if (msg.type === 'resync') {
        bust.clear();
        tiles.redraw();
        if (map.hasLayer(walkTiles)) walkTiles.redraw();
        world3d?.reloadAll();
        loadZones().catch((e) => console.warn('zones', e));
      } else if (msg.type === 'area') {
        window.terrainMap.area = msg.area;
        if (missed) {
          loadZones().catch((e) => console.warn('zones', e));
          if (world3d) {
            world3d.reloadAll();
            changedUnder3d = true;
          } else {
            reloadHeldTiles(msg.revision);
          }
        }
      }
    };
    socket.onclose = () => setTimeout(connect, 1000);
  }
  connect();
  window.terrainMap.socket = () => socket;

  map.on('moveend', () => {
    writeFragment();
    drawGrid();
    drawLayout();
    if (!world3d) sendArea();
  });
  drawGrid();
  drawLayout();
  writeFragment();
  if (open3dKey) {
    const [a, b] = open3dKey.split('=')[1].split(',').map(Number);
    if (view.tile && world.blockKinds && Number.isInteger(a) && Number.isInteger(b)) openChunk(a, b);
    else if (view['3d'] && Number.isFinite(a) && Number.isFinite(b)) openWorld(a, b);
  }
  window.terrainMap.ready = true;
}

const match = location.pathname.match(/^\/map\/([^/]+)\/?$/);
const main = match ? worldMap(decodeURIComponent(match[1])) : picker();
main.catch((e) => {
  console.error(e);
  say(`error: ${escapeHtml(e.message)}`);
});
