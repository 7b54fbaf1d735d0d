// The Hyperscape adapter's point answers, written once for both adapters: Node's
// (src/hyperscape.ts, over the addon or the WebAssembly module) and the page's
// (src/web/index.ts, over the module; hence a runtime-neutral module with `.js`
// imports). The original's argument checks and errors, the 1 m tile-centre answers
// from the blocks kept in JavaScript (src/tiles.ts) and the answer objects, over a
// replica's reads (`PointReads`), which throw the replica's refusal of a point.
import { fieldError } from "./args.js";
import {
  type DifficultySample,
  type Normal,
  REASONS,
  type TerrainInfoAt,
  type WalkableCheck,
  type WalkablePath,
  biomeAtPosition,
  coordError,
  coords,
  difficultySample,
  walkablePath,
} from "./hyperscape-common.js";
import { STEEP, STEP, type TileCache, WALKABLE, WATER, ZONE_BLOCKED } from "./tiles.js";

/** A replica's reads of one point, as the addon and the module answer them. */
export interface PointReads {
  /** The final height. */
  height(x: number, z: number): number;
  /** The procedural height (no zones, no shoreline). */
  procedural(x: number, z: number): number;
  /** The normal into `out[0..3]`. */
  normal(x: number, z: number, out: Float64Array): void;
  /** 0 when walkable, else the index of the reason in `REASONS`. */
  blocked(x: number, z: number): number;
  /** `[height, slope, underwater, blocked, biome index]` into `out`. */
  info(x: number, z: number, out: Float64Array): void;
  /** The index of the first blocked point of `[x0, z0, ...]`, or -1. */
  firstBlocked(points: Float64Array): number;
  /** The difficulty's numbers into `out` (`has`: an override tier is given). */
  difficulty(x: number, z: number, has: boolean, tier: number, out: Float64Array): void;
}

/** What the adapters read of a world (the addon's `hsWorld`, the module's
 * `worldFacts`), checked to be a hyperscape world. */
export interface WorldFacts {
  firstBiome: string;
  firstBiomeTier: number;
  biomes: string[];
}

/** The facts of world `id` from their JSON, or an error naming `world` when it is not a
 * hyperscape world. */
export function worldFacts(json: string, id: string): WorldFacts {
  const facts = JSON.parse(json) as { generator: string; firstBiome: string | null; firstBiomeTier: number | null; biomes: string[] };
  if (facts.generator !== "hyperscape") {
    throw fieldError(`world ${id}: the Hyperscape adapter needs a hyperscape world, this one is ${facts.generator}`, "world");
  }
  return { firstBiome: facts.firstBiome ?? "plains", firstBiomeTier: facts.firstBiomeTier ?? 0, biomes: facts.biomes };
}

/** The point methods both adapters answer with, the original's names and answers. */
export class PointAnswers {
  private readonly out = new Float64Array(8);
  private readonly samples = new Float64Array(42);

  constructor(
    private readonly reads: PointReads,
    private readonly tiles: TileCache,
    readonly facts: WorldFacts,
  ) {}

  /** The final height at `(x, z)`: zones, then the shoreline-adjusted procedural
   * height. Throws the original's error for non-finite coordinates. */
  getHeightAt(x: number, z: number): number {
    coords("getHeightAt", x, z);
    const tx = Math.floor(x);
    const tz = Math.floor(z);
    if (x - tx === 0.5 && z - tz === 0.5) {
      const h = this.tiles.heightAt(tx, tz);
      if (h === h) return h;
    }
    try {
      return this.reads.height(x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
  }

  /** The original's wrapper of {@link getHeightAt}. */
  getHeightAtPosition(x: number, z: number): number {
    coords("getHeightAtPosition", x, z);
    return this.getHeightAt(x, z);
  }

  /** The procedural height with the mountain boost: no zones, no shoreline. NaN for
   * non-finite coordinates (the original's arithmetic gives NaN). */
  getProceduralHeightAt(x: number, z: number): number {
    coords("getProceduralHeightAt", x, z);
    if (!Number.isFinite(x) || !Number.isFinite(z)) return Number.NaN;
    try {
      return this.reads.procedural(x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
  }

  /** The surface normal (central differences at 0.5 m, normalised as three.js does):
   * a new plain `{x, y, z}` per call. */
  getNormalAt(x: number, z: number): Normal {
    coords("getNormalAt", x, z);
    if (!Number.isFinite(x) || !Number.isFinite(z)) throw coordError(x - 0.5, z, undefined);
    const out = this.out;
    try {
      this.reads.normal(x, z, out);
    } catch (e) {
      throw coordError(x, z, e);
    }
    return { x: out[0]!, y: out[1]!, z: out[2]! };
  }

  /** Whether an entity may stand at `(x, z)`, with the original's reason strings
   * (`reason` only when not walkable). */
  isPositionWalkable(x: number, z: number): WalkableCheck {
    coords("isPositionWalkable", x, z);
    const tx = Math.floor(x);
    const tz = Math.floor(z);
    if (x - tx === 0.5 && z - tz === 0.5) {
      const f = this.tiles.flagsAt(tx, tz);
      if (f >= 0) {
        if (f & WALKABLE) return { walkable: true };
        const code = f & WATER ? 1 : f & STEEP ? 2 : f & ZONE_BLOCKED ? 3 : f & STEP ? 4 : 3;
        return { walkable: false, reason: REASONS[code] as string };
      }
    }
    let code: number;
    try {
      code = this.reads.blocked(x, z);
    } catch (e) {
      throw coordError(x, z, e);
    }
    return code === 0 ? { walkable: true } : { walkable: false, reason: REASONS[code] as string };
  }

  /** Height, biome, walkability, slope and water at `(x, z)`. */
  getTerrainInfoAt(x: number, z: number): TerrainInfoAt {
    coords("getTerrainInfoAt", x, z);
    const out = this.out;
    try {
      this.reads.info(x, z, out);
    } catch (e) {
      throw coordError(x, z, e);
    }
    return {
      height: out[0]!,
      biome: this.facts.biomes[out[4]!] ?? "plains",
      walkable: out[3] === 0,
      slope: out[1]!,
      underwater: out[2] === 1,
    };
  }

  /** The original's straight-line check: 21 samples from start to end, blocked at the
   * first unwalkable one (`path` empty), else the samples. */
  findWalkablePath(startX: number, startZ: number, endX: number, endZ: number): WalkablePath {
    return walkablePath(startX, startZ, endX, endZ, this.samples, (pts) => this.reads.firstBlocked(pts));
  }

  /** The biome of the position's 100 m tile: plains in the five starter towns' tile
   * blocks, else the type of the seed's first biome centre (the original's lookup). */
  getBiomeAtPosition(x: number, z: number): string {
    coords("getBiomeAtPosition", x, z);
    return biomeAtPosition(x, z, this.facts.firstBiome);
  }

  /** The original's (private) world-position biome: the seed's first biome centre's
   * type wherever the point is, `"plains"` for non-finite coordinates. */
  getBiomeAtWorldPosition(x: number, z: number): string {
    coords("getBiomeAtWorldPosition", x, z);
    return Number.isFinite(x) && Number.isFinite(z) ? this.facts.firstBiome : "plains";
  }

  /** The difficulty at `(x, z)` (terrain-core's formula, with its own `pow`). */
  getDifficultyAtWorldPosition(x: number, z: number, overrideDifficultyLevel?: number): DifficultySample {
    return difficultySample(x, z, overrideDifficultyLevel, this.facts.firstBiome, this.facts.firstBiomeTier, this.out, (has, tier, out) =>
      this.reads.difficulty(x, z, has, tier, out),
    );
  }
}
