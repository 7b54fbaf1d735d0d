// LocalTerrain.tileMesh and chunkBlocks against a real server, over whichever backend
// runs (the native addon, or the WebAssembly replica with TERRAIN_CLIENT_WASM=1;
// scripts/test-all.sh runs this file both ways):
// - a tile's mesh is the server's JSON mesh of that tile (`GET .../tiles/{tx}/{tz}/mesh`)
//   bit for bit, every float32 of positions, normals and colours, every biome id and
//   index, the placement and the resolution: hyperscape seed 0 tiles before any zone,
//   after the original's 44 zones (zones_seed0.json) were PUT and `waitForRevision`
//   returned, and after one of them was replaced; osrs map squares too;
// - the original game's carving (carve_seed0.json, carve_seed6.json: every tile its
//   zones touch, core/tests/carve_reference.rs reads the same tables) holds cell for cell
//   through `tileMesh`, and every other tile a zone reaches keeps every cell;
// - a voxel world's chunk blocks are the server's binary blocks byte for byte, before and
//   after a zone flattens them;
// - bad indices are refused as the other methods refuse them (a TypeError or RangeError
//   naming the argument), and as the server refuses them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { LocalTerrain, type TileMesh } from "../src/index";
import { usingWasm } from "../src/native";
import { DATA, gameZones, traceWorlds, zoneBody } from "./hyperscape-data";
import type { FlatZone } from "../src/hyperscape";
import { TestServer } from "./server";

const TOKEN = "mesh-admin";
const BACKEND = usingWasm ? "WebAssembly" : "native";

interface ServedMesh {
  tileX: number;
  tileZ: number;
  revision: number;
  resolution: number;
  placement: number[];
  positions: number[];
  normals: number[];
  indices: number[];
  colours?: number[];
  biomes?: number[];
}

interface CarveTile {
  tile: [number, number];
  index: number;
  carved: [number, number][];
}

function carveTable(seed: number): { resolution: number; tiles: CarveTile[] } {
  return JSON.parse(readFileSync(join(DATA, `carve_seed${seed}.json`), "utf8")) as { resolution: number; tiles: CarveTile[] };
}

/** The first index where the float32 bit patterns of `got` and `want` differ, or -1. */
function firstF32Difference(got: Float32Array, want: number[]): number {
  const w = new Uint32Array(Float32Array.from(want).buffer);
  const g = new Uint32Array(got.buffer, got.byteOffset, got.length);
  if (g.length !== w.length) return Math.min(g.length, w.length);
  for (let i = 0; i < g.length; i++) if (g[i] !== w[i]) return i;
  return -1;
}

function firstDifference(got: ArrayLike<number>, want: number[]): number {
  if (got.length !== want.length) return Math.min(got.length, want.length);
  for (let i = 0; i < got.length; i++) if (!Object.is(got[i], want[i])) return i;
  return -1;
}

/** `mesh` is `served`, bit for bit. */
function sameMesh(mesh: TileMesh, served: ServedMesh, what: string): void {
  assert.ok(mesh.positions instanceof Float32Array && mesh.normals instanceof Float32Array && mesh.colors instanceof Float32Array, what);
  assert.ok(mesh.biomeIds instanceof Uint8Array && mesh.index instanceof Uint32Array && mesh.placement instanceof Float64Array, what);
  assert.equal(mesh.resolution, served.resolution, `${what}: resolution`);
  assert.deepEqual([...mesh.placement], served.placement, `${what}: placement`);
  assert.equal(mesh.positions.length, 3 * served.resolution * served.resolution, `${what}: vertices`);
  for (const [name, got, want] of [
    ["positions", mesh.positions, served.positions],
    ["normals", mesh.normals, served.normals],
    ["colors", mesh.colors, served.colours ?? []],
  ] as const) {
    const at = firstF32Difference(got, want);
    assert.equal(at, -1, `${what}: ${name}[${at}] ${got[at]} != the server's ${want[at]} (${got.length} against ${want.length})`);
  }
  const biome = firstDifference(mesh.biomeIds, served.biomes ?? []);
  assert.equal(biome, -1, `${what}: biomeIds[${biome}]`);
  const index = firstDifference(mesh.index, served.indices);
  assert.equal(index, -1, `${what}: index[${index}] (${mesh.index.length} against ${served.indices.length})`);
}

/** The cells `(ix, iz)` a mesh leaves out: each kept cell's first index is its corner
 * `ix + n * iz` (two triangles, six indices, a cell). */
function carvedCells(mesh: TileMesh): Set<string> {
  const n = mesh.resolution;
  const kept = new Set<number>();
  for (let k = 0; k < mesh.index.length; k += 6) kept.add(mesh.index[k]!);
  const out = new Set<string>();
  for (let iz = 0; iz < n - 1; iz++) {
    for (let ix = 0; ix < n - 1; ix++) if (!kept.has(ix + n * iz)) out.add(`${ix},${iz}`);
  }
  return out;
}

describe(`LocalTerrain.tileMesh and chunkBlocks (${BACKEND})`, () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({
      worlds: [],
      config: `${traceWorlds([0, 6])}\n[[worlds]]\nid = "classic"\ngenerator = "osrs"\nseed = 0\n\n[[worlds]]\nid = "blocks"\ngenerator = "voxel"\nseed = 7\n`,
      args: ["--admin-token", TOKEN],
    });
  });
  after(async () => {
    await server?.stop();
  });

  async function put(world: string, id: string, zone: Record<string, unknown>): Promise<number> {
    const r = await fetch(`${server.url}/v1/worlds/${world}/flat-zones/${encodeURIComponent(id)}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(zone),
    });
    const text = await r.text();
    assert.equal(r.status, 200, text);
    return (JSON.parse(text) as { revision: number }).revision;
  }

  async function served(world: string, tx: number, tz: number): Promise<ServedMesh> {
    return (await server.json("GET", `/v1/worlds/${world}/tiles/${tx}/${tz}/mesh`)) as ServedMesh;
  }

  /** Every tile of `tiles` at `replica`'s view equals the server's, which is at the same revision. */
  async function sameAsServer(replica: LocalTerrain, world: string, tiles: [number, number][], what: string): Promise<number> {
    for (const [tx, tz] of tiles) {
      const want = await served(world, tx, tz);
      assert.equal(want.revision, replica.revision, `${what}: the server answers at the replica's revision`);
      sameMesh(replica.tileMesh(tx, tz), want, `${what}, tile (${tx}, ${tz})`);
    }
    return tiles.length;
  }

  test("hyperscape seed 0: the server's meshes before the zones, after they were PUT, after one was replaced; the original's carving", async () => {
    const table = carveTable(0);
    const zoned = table.tiles.map((t) => t.tile);
    // Tiles no zone reaches (the zones lie within 400 m of the origin).
    const plain: [number, number][] = [[9, 9], [-12, 5], [30, -30]];
    const replica = await LocalTerrain.open(server.url, "seed0");
    try {
      let compared = await sameAsServer(replica, "seed0", [...zoned.slice(0, 6), ...plain], "no zones");

      // The original's 44 zones, PUT in file order by another process.
      const zones = gameZones(0);
      assert.equal(zones.length, 44);
      let revision = 0;
      for (const zone of zones) revision = await put("seed0", zone.id, zoneBody(zone));
      assert.equal(await replica.waitForRevision(revision), revision);
      compared += await sameAsServer(replica, "seed0", [...zoned, ...plain], "the 44 zones");

      // The original's carving, cell for cell.
      assert.equal(table.resolution, 64);
      let cells = 0;
      for (const entry of table.tiles) {
        const mesh = replica.tileMesh(entry.tile[0], entry.tile[1]);
        assert.equal(mesh.resolution, 64);
        const got = carvedCells(mesh);
        const want = new Set(entry.carved.map(([x, z]) => `${x},${z}`));
        assert.deepEqual([...got].sort(), [...want].sort(), `seed 0 tile (${entry.tile}): the carved cells`);
        assert.equal(mesh.index.length, entry.index, `seed 0 tile (${entry.tile}): the index length`);
        cells += got.size;
      }
      assert.equal(cells, 2275, "the table's cells (carve_seed0.json)");

      // One zone replaced (raised 3 m): the mesh moves with it once waitForRevision returned.
      const arena = zones.find((z) => z.carveInset !== undefined && replica.zoneAt(z.centerX, z.centerZ) === z.id)!;
      assert.ok(arena, "a carving zone that decides the height at its centre");
      const tile: [number, number] = [Math.floor((arena.centerX + 50) / 100), Math.floor((arena.centerZ + 50) / 100)];
      const before = replica.tileMesh(...tile);
      const raised = await put("seed0", arena.id, zoneBody({ ...arena, height: arena.height + 3 }));
      assert.equal(await replica.waitForRevision(raised), raised);
      const moved = replica.tileMesh(...tile);
      assert.notEqual(firstF32Difference(moved.positions, [...before.positions]), -1, `the replaced zone ${arena.id} moved tile (${tile})'s vertices`);
      compared += await sameAsServer(replica, "seed0", [tile, ...zoned.slice(0, 4)], "a zone replaced");
      console.log(`${BACKEND}: ${compared} hyperscape seed 0 tiles equal the server's bit for bit; ${table.tiles.length} tiles and ${cells} carved cells as carve_seed0.json`);
    } finally {
      replica.close();
    }
  });

  test("hyperscape seed 6: the original's carving cell for cell", async () => {
    const table = carveTable(6);
    let revision = 0;
    for (const zone of gameZones(6)) revision = await put("seed6", zone.id, zoneBody(zone));
    const replica = await LocalTerrain.open(server.url, "seed6");
    try {
      await replica.waitForRevision(revision);
      let cells = 0;
      const listed = new Set<string>();
      for (const entry of table.tiles) {
        const mesh = replica.tileMesh(entry.tile[0], entry.tile[1]);
        const got = carvedCells(mesh);
        const want = new Set(entry.carved.map(([x, z]) => `${x},${z}`));
        assert.deepEqual([...got].sort(), [...want].sort(), `seed 6 tile (${entry.tile}): the carved cells`);
        assert.equal(mesh.index.length, entry.index, `seed 6 tile (${entry.tile}): the index length`);
        cells += got.size;
        listed.add(String(entry.tile));
      }
      assert.equal(table.tiles.length, 22);
      assert.equal(cells, 2174, "the table's cells (carve_seed6.json)");
      // Tiles the zones touch that the original carves nothing in keep every cell.
      const uncarved = table.tiles.filter((t) => t.carved.length === 0).length;
      assert.equal(uncarved, 7);
      // And the carved tiles are the server's, bit for bit.
      await sameAsServer(replica, "seed6", table.tiles.slice(0, 5).map((t) => t.tile), "seed 6");
      console.log(`${BACKEND}: seed 6: ${table.tiles.length} tiles and ${cells} carved cells as carve_seed6.json (${uncarved} of the tiles carve nothing)`);
    } finally {
      replica.close();
    }
  });

  test("osrs map squares: the server's meshes (65 x 65, no colours)", async () => {
    const replica = await LocalTerrain.open(server.url, "classic");
    try {
      await sameAsServer(replica, "classic", [[0, 0], [-3, 7], [40, 40]], "osrs");
      const mesh = replica.tileMesh(0, 0);
      assert.equal(mesh.resolution, 65);
      assert.equal(mesh.colors.length, 0);
      assert.equal(mesh.biomeIds.length, 0);
      assert.equal(replica.chunkBlocks(0, 0), null, "no blocks on a heightfield world");
    } finally {
      replica.close();
    }
  });

  test("a voxel world's chunk blocks are the server's bytes, before and after a zone flattens them", async () => {
    const replica = await LocalTerrain.open(server.url, "blocks");
    const chunks: [number, number][] = [[0, 0], [-1, 0], [3, -2], [-40, 17]];
    const blocks = async (cx: number, cz: number): Promise<{ bytes: Uint8Array; revision: number }> => {
      const r = await fetch(`${server.url}/v1/worlds/blocks/tiles/${cx}/${cz}/blocks?format=binary`);
      assert.equal(r.status, 200);
      return { bytes: new Uint8Array(await r.arrayBuffer()), revision: Number(r.headers.get("x-terrain-revision")) };
    };
    const same = async (what: string): Promise<void> => {
      for (const [cx, cz] of chunks) {
        const want = await blocks(cx, cz);
        assert.equal(want.revision, replica.revision, `${what}: the server answers at the replica's revision`);
        const got = replica.chunkBlocks(cx, cz);
        assert.ok(got instanceof Uint8Array, `${what}: chunk (${cx}, ${cz})`);
        assert.ok(got.length > 23 && Buffer.from(got.subarray(0, 4)).toString() === "VXC1", `${what}: chunk (${cx}, ${cz}) in the binary form`);
        assert.ok(Buffer.from(got).equals(Buffer.from(want.bytes)), `${what}: chunk (${cx}, ${cz}): ${got.length} bytes against the server's ${want.bytes.length}`);
      }
    };
    try {
      await same("no zones");
      const before = replica.chunkBlocks(0, 0)!;
      const revision = await put("blocks", "plaza", { centerX: 16, centerZ: 16, width: 20, depth: 20, height: 40, blendRadius: 6 });
      assert.equal(await replica.waitForRevision(revision), revision);
      const after = replica.chunkBlocks(0, 0)!;
      assert.ok(!Buffer.from(after).equals(Buffer.from(before)), "the zone changed chunk (0, 0)'s blocks");
      await same("a zone");
      assert.throws(() => replica.tileMesh(0, 0), (e: Error & { field?: string }) => e.field === "world" && /^world: /.test(e.message));
    } finally {
      replica.close();
    }
  });

  test("bad tile and chunk indices are refused naming the argument, as the server refuses them", async () => {
    const world = await (await fetch(`${server.url}/v1/worlds`)).json() as { worlds: { id: string }[] };
    const listing = JSON.stringify(world.worlds.find((w) => w.id === "seed0"));
    const blocksListing = JSON.stringify(world.worlds.find((w) => w.id === "blocks"));
    const offline = LocalTerrain.offline(listing, "[]");
    const voxel = LocalTerrain.offline(blocksListing, "[]");
    try {
      const refuses = (f: () => unknown, kind: typeof TypeError | typeof RangeError, field: string, what: string) =>
        assert.throws(f, (e: unknown) => {
          assert.ok(e instanceof kind, `${what}: ${String(e)} is a ${kind.name}`);
          assert.equal((e as { field?: string }).field, field, what);
          assert.ok((e as Error).message.startsWith(`${field}: `), `${what}: ${(e as Error).message}`);
          return true;
        });
      for (const v of ["1", null, undefined, 1n, {}]) {
        refuses(() => offline.tileMesh(v as number, 0), TypeError, "tx", `tileMesh(${String(v)}, 0)`);
        refuses(() => offline.tileMesh(0, v as number), TypeError, "tz", `tileMesh(0, ${String(v)})`);
        refuses(() => voxel.chunkBlocks(v as number, 0), TypeError, "cx", `chunkBlocks(${String(v)}, 0)`);
        refuses(() => voxel.chunkBlocks(0, v as number), TypeError, "cz", `chunkBlocks(0, ${String(v)})`);
      }
      for (const v of [0.5, Number.NaN, Infinity, -Infinity, 2 ** 40, -(2 ** 40)]) {
        refuses(() => offline.tileMesh(v, 0), RangeError, "tx", `tileMesh(${v}, 0)`);
        refuses(() => offline.tileMesh(0, v), RangeError, "tz", `tileMesh(0, ${v})`);
      }
      for (const v of [0.5, Number.NaN, Infinity, 2 ** 20 + 1, -(2 ** 20) - 1]) {
        refuses(() => voxel.chunkBlocks(v, 0), RangeError, "cx", `chunkBlocks(${v}, 0)`);
        refuses(() => voxel.chunkBlocks(0, v), RangeError, "cz", `chunkBlocks(0, ${v})`);
      }
      // The largest chunk the server serves is answered; the next is refused there too.
      assert.ok(voxel.chunkBlocks(2 ** 20, -(2 ** 20)) instanceof Uint8Array);
      const beyond = await fetch(`${server.url}/v1/worlds/blocks/tiles/${2 ** 20 + 1}/0/blocks`);
      assert.equal(beyond.status, 400);
      assert.match(await beyond.text(), /"field":"cx"/);
      const half = await fetch(`${server.url}/v1/worlds/seed0/tiles/0.5/0/mesh`);
      assert.equal(half.status, 400);
      assert.match(await half.text(), /"field":"tx"/);
      // An offline replica without zones builds the server's mesh of a tile no zone reaches.
      sameMesh(offline.tileMesh(30, -30), await served("seed0", 30, -30), "offline, tile (30, -30)");
      offline.close();
      voxel.close();
      assert.throws(() => offline.tileMesh(0, 0), /closed/);
      assert.throws(() => voxel.chunkBlocks(0, 0), /closed/);
    } finally {
      offline.close();
      voxel.close();
    }
  });
});
