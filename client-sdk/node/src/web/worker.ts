// terrain-client/web's tile worker: its own `Replica` of the WebAssembly module (the
// page's compiled module, handed over), kept at the page's zone state by the same calls
// in the same order (src/web/zones.ts), answering tiles (terrain-core's `build_tile`,
// the server's mesh of the tile) and voxel chunks off the main thread. The arrays are
// transferred, not copied.
import { Replica, initSync } from "../../wasm/terrain_wasm.mjs";
import { type FromWorker, type TileMeshData, type ToWorker, ZoneState, zoneList } from "./zones.js";

interface WorkerScope {
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker, transfer: Transferable[]): void;
}
const scope = globalThis as unknown as WorkerScope;

let state: ZoneState | null = null;
/** Why the worker cannot answer (its start failed), if it cannot. */
let broken: string | null = null;

function answer(message: FromWorker, transfer: Transferable[] = []): void {
  scope.postMessage(message, transfer);
}

function tile(s: ZoneState, tx: number, tz: number): TileMeshData {
  const mesh = s.replica.tileMesh(tx, tz);
  try {
    const p = mesh.placement;
    return {
      positions: mesh.positions,
      normals: mesh.normals,
      colors: mesh.colors,
      biomeIds: mesh.biomeIds,
      index: mesh.index,
      placement: [p[0]!, p[1]!, p[2]!],
      resolution: mesh.resolution,
      revision: s.revision,
    };
  } finally {
    mesh.free();
  }
}

function handle(m: ToWorker): void {
  if (m.t === "init") {
    try {
      initSync({ module: m.module });
      const replica = new Replica(m.world, zoneList(m.revision, m.zones));
      state = new ZoneState(
        replica,
        m.revision,
        m.zones.map((doc): [string, string] => [(JSON.parse(doc) as { id: string }).id, doc]),
      );
      for (const [id, body] of m.locals) state.register(id, body);
    } catch (e) {
      broken = `the tile worker could not start: ${e instanceof Error ? e.message : String(e)}`;
    }
    return;
  }
  if (m.t === "tile" || m.t === "chunk") {
    try {
      if (state === null) throw new Error(broken ?? "the tile worker has no replica");
      if (state.revision !== m.revision) {
        throw new Error(`the tile worker is at revision ${state.revision}, asked at ${m.revision}`);
      }
      if (m.t === "tile") {
        const t = tile(state, m.tx, m.tz);
        answer({ n: m.n, tile: t }, [t.positions.buffer, t.normals.buffer, t.colors.buffer, t.biomeIds.buffer, t.index.buffer]);
      } else {
        const blocks = state.replica.chunkBlocks(m.cx, m.cz) ?? null;
        answer({ n: m.n, chunk: blocks }, blocks === null ? [] : [blocks.buffer]);
      }
    } catch (e) {
      answer({ n: m.n, error: e instanceof Error ? e.message : String(e) });
    }
    return;
  }
  if (state === null) return;
  // The page made these calls on its own state already (and they succeeded there).
  switch (m.t) {
    case "reset":
      state.reset(m.revision, m.zones);
      break;
    case "put":
      state.put(m.revision, m.id, m.zone);
      break;
    case "remove":
      state.remove(m.revision, m.id);
      break;
    case "register":
      state.register(m.id, m.body);
      break;
    case "unregister":
      state.unregister(m.id);
      break;
  }
  state.localRects.length = 0;
}

scope.onmessage = (e) => handle(e.data);
