// "Nobody sinks": 1,000 entities wander over a world and are snapped to the ground every
// tick from a LocalTerrain replica (synchronous, in-process reads: no request per
// entity). Mid-run an arena floor is registered over them, higher than the ground:
// once the replica reaches the floor's revision, every entity standing on it is on the
// floor, none below, and every snapped height is the server's at that revision.
//
//   node dist/examples/nobody-sinks.js http://127.0.0.1:8080 main [admin-token]
//
// `run` is what the test calls (test/nobody-sinks.test.ts).
import { LocalTerrain, TerrainClient } from "../src/index";

export interface Entity {
  x: number;
  z: number;
  /** The snapped height: the ground under (x, z) at `revision`. */
  y: number;
}

export interface Tick {
  /** The replica revision every entity of this tick was snapped at. */
  revision: number;
  /** `[x0, z0, x1, z1, ...]` of this tick. */
  points: Float64Array;
  /** The snapped heights, one per entity. */
  heights: Float64Array;
}

export interface Floor {
  id: string;
  centerX: number;
  centerZ: number;
  width: number;
  depth: number;
  height: number;
  blendRadius: number;
}

export interface RunOptions {
  url: string;
  world: string;
  token?: string;
  entities?: number;
  ticks?: number;
  /** The tick whose start registers the floor. */
  floorAtTick?: number;
  tickMs?: number;
  /** Entities start and stay within this many metres of the origin. */
  area?: number;
  seed?: number;
  /** Called once per tick with what it snapped. */
  onTick?: (tick: Tick, index: number) => void;
}

export interface RunResult {
  floor: Floor;
  /** The revision RegisterFlatZone answered for the floor. */
  floorRevision: number;
  ticks: Tick[];
}

/** Runs the example: see the file's comment. */
export async function run(options: RunOptions): Promise<RunResult> {
  const count = options.entities ?? 1_000;
  const ticks = options.ticks ?? 40;
  const floorAtTick = options.floorAtTick ?? 10;
  const tickMs = options.tickMs ?? 20;
  const area = options.area ?? 40;
  const clientOptions = options.token === undefined ? {} : { token: options.token };
  const client = await TerrainClient.connect(options.url, clientOptions);
  const terrain = await LocalTerrain.open(options.url, options.world);
  try {
    let s = (options.seed ?? 0x5eed) >>> 0 || 1;
    const random = (): number => {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      return s / 0x1_0000_0000;
    };
    const entities: Entity[] = Array.from({ length: count }, () => ({
      x: (random() * 2 - 1) * area,
      z: (random() * 2 - 1) * area,
      y: 0,
    }));

    // The floor: a 40 x 40 m arena at the centre, 3 m above the highest ground under it.
    const probe = new Float64Array(2 * 41 * 41);
    for (let i = 0; i <= 40; i++) {
      for (let j = 0; j <= 40; j++) {
        probe[2 * (i * 41 + j)] = -20 + i;
        probe[2 * (i * 41 + j) + 1] = -20 + j;
      }
    }
    const highest = terrain.heights(probe).reduce((a, b) => Math.max(a, b), -Infinity);
    const floor: Floor = {
      id: "arena-floor",
      centerX: 0,
      centerZ: 0,
      width: 40,
      depth: 40,
      height: Math.ceil(highest) + 3,
      blendRadius: 6,
    };

    let floorRevision = -1;
    const result: Tick[] = [];
    for (let t = 0; t < ticks; t++) {
      if (t === floorAtTick) {
        // Registered mid-run; the replica hears of it through its event stream. The
        // loop does not wait for it: ticks go on at whatever revision the replica is.
        const { id, ...zone } = floor;
        const put = await client.registerFlatZone({ world: options.world, zone: { id, ...zone } });
        floorRevision = Number(put.revision);
      }
      // Wander: each entity steps up to 1 m, staying in the area.
      for (const e of entities) {
        e.x = Math.max(-area, Math.min(area, e.x + (random() * 2 - 1)));
        e.z = Math.max(-area, Math.min(area, e.z + (random() * 2 - 1)));
      }
      // Snap: one synchronous read per entity, all at one revision (the revision is
      // read before and after; a swap between them is retried so a tick is consistent).
      const points = new Float64Array(2 * count);
      entities.forEach((e, i) => {
        points[2 * i] = e.x;
        points[2 * i + 1] = e.z;
      });
      let revision: number;
      let heights: Float64Array;
      do {
        revision = terrain.revision;
        heights = new Float64Array(count);
        for (let i = 0; i < count; i++) {
          const e = entities[i]!;
          e.y = terrain.heightAt(e.x, e.z);
          heights[i] = e.y;
        }
      } while (terrain.revision !== revision);
      const tick = { revision, points, heights };
      result.push(tick);
      options.onTick?.(tick, t);
      await new Promise((ok) => setTimeout(ok, tickMs));
    }
    // The floor must have reached the replica by the end; wait for it if the run was short.
    if (floorRevision >= 0) await terrain.waitForRevision(floorRevision);
    return { floor, floorRevision, ticks: result };
  } finally {
    terrain.close();
  }
}

if (require.main === module) {
  const [url = "http://127.0.0.1:8080", world = "main", token] = process.argv.slice(2);
  const options: RunOptions = {
    url,
    world,
    onTick: (tick, i) => {
      let lowest = Infinity;
      for (const h of tick.heights) lowest = Math.min(lowest, h);
      console.log(`tick ${i}: revision ${tick.revision}, lowest entity at ${lowest.toFixed(3)} m`);
    },
  };
  if (token !== undefined) options.token = token;
  run(options).then(
    (r) => console.log(`floor ${r.floor.id} at ${r.floor.height} m, revision ${r.floorRevision}`),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
