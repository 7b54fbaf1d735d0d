// `attachTerrainServer` in the browser: the game's client keeps its own `TerrainSystem`
// object and its methods answer from the page's WebAssembly replica, as Node's attach
// (src/attach.ts) does over the Node replica: the same code (src/attach-common.ts)
// routes the methods, enters the server's zones in the instance's own index through its
// own `registerFlatZone` (its meshes carve and flatten them, its own path regenerates
// their tiles) and takes everything back on `detach()`. What differs is the page's: the
// zones come from the page's follower (`tiles` and `rebuilt` events), and zones the game
// registers stay in the page (the page's `HyperscapeTerrain` never writes to the server:
// no PUT, no DELETE, whatever the token).
import { argumentError, describe, optionsArg, stringArg } from "../args.js";
import { AttachCore, checkTerrainSystem } from "../attach-common.js";
import { HyperscapeTerrain } from "./index.js";
import type { TilesEvent } from "./link.js";

/** Options of the browser's {@link attachTerrainServer}. */
export interface WebAttachOptions {
  /** The terrain server (`http://host:port` or `https://`); a page on another origin
   * needs it in the server's `cors_origins`. */
  url: string;
  /** The world on the server: a hyperscape world with the game's seed. */
  world: string;
  /** Accepted for Node's signature, never sent: a page writes nothing to the server. */
  token?: string;
}

/** What the browser's {@link attachTerrainServer} resolves to. */
export class TerrainAttachment {
  /** The page's adapter over the replica that answers the routed methods. */
  readonly terrain: HyperscapeTerrain;
  private readonly core: AttachCore;
  private readonly errorListeners = new Set<(error: Error) => void>();
  private readonly onTiles = (e: TilesEvent): void => {
    // The page's own zone changes are entered by the routed methods themselves.
    if (!e.local && !this.core.detached) this.core.reconcile(e.zone);
  };
  private readonly onRebuilt = (): void => {
    if (!this.core.detached) this.core.rebuilt();
  };

  /** @internal */
  constructor(
    /** The game's `TerrainSystem` instance. */
    readonly system: object,
    terrain: HyperscapeTerrain,
  ) {
    this.terrain = terrain;
    this.core = new AttachCore(system, {
      terrain,
      zoneDoc: (id) => terrain.zoneDocument(id),
      // The replica's own copy of the server's list: it is at the revision it names.
      list: async () => ({ ids: terrain.serverZoneIds(), revision: terrain.revision }),
      reach: async () => undefined,
      fail: (e) => this.fail(e),
    });
  }

  /** @internal Shadows the routed methods and takes in the zones the game holds. */
  route(): void {
    this.core.route();
    this.terrain.on("tiles", this.onTiles);
    this.terrain.on("rebuilt", this.onRebuilt);
  }

  /** @internal Enters every zone of the server the replica holds, takes out the rest. */
  reconcileAll(): Promise<void> {
    return this.core.reconcileAll();
  }

  /** Calls `listener` with every failure to enter a zone in the instance's index (else
   * they go to `console.error`). */
  on(name: "error", listener: (error: Error) => void): this {
    if (name !== "error") throw argumentError(TypeError, "name", `expected "error", got ${describe(name)}`, "TerrainAttachment.on");
    this.errorListeners.add(listener);
    return this;
  }

  off(name: "error", listener: (error: Error) => void): this {
    if (name === "error") this.errorListeners.delete(listener);
    return this;
  }

  private fail(e: Error): void {
    if (this.errorListeners.size === 0) console.error(e);
    for (const listener of [...this.errorListeners]) listener(e);
  }

  /** Resolves once the index reflects the replica after any rebuild in flight (the
   * page has no writes to wait for). */
  flush(): Promise<void> {
    return this.core.settled();
  }

  /** Ids of the zones entered in the instance's index (the game's and the server's). */
  zoneIds(): string[] {
    return this.core.zoneIds();
  }

  /**
   * Gives the instance back as it was: its own methods (the same functions), and its
   * index without the server's zones (the game's own zones of before attaching as it
   * had them; those it registered since stay). Closes the page's replica.
   */
  detach(): void {
    if (!this.core.detach()) return;
    this.terrain.off("tiles", this.onTiles);
    this.terrain.off("rebuilt", this.onRebuilt);
    this.terrain.close();
  }
}

/**
 * Attaches the terrain server's world to the game's own `TerrainSystem` instance in the
 * page (after its construction, before or after its `init`): the routed methods
 * (`ROUTED`) answer from the page's replica, the server's zones enter its own index and
 * follow the server, and zones the game registers stay in this page. Resolves once the
 * instance's index holds the server's zones.
 */
export async function attachTerrainServer(terrainSystem: object, options: WebAttachOptions): Promise<TerrainAttachment> {
  const where = "attachTerrainServer";
  checkTerrainSystem(terrainSystem, where);
  const o = optionsArg("options", options, where);
  if (o === undefined) throw argumentError(TypeError, "options", "expected { url, world }", where);
  const url = stringArg("url", o.url, where).replace(/\/+$/, "");
  const world = stringArg("world", o.world, where);
  if (o.token !== undefined) stringArg("token", o.token, where);
  const terrain = await HyperscapeTerrain.open(url, world);
  const attachment = new TerrainAttachment(terrainSystem, terrain);
  try {
    attachment.route();
    await attachment.reconcileAll();
    return attachment;
  } catch (e) {
    attachment.detach();
    throw e;
  }
}
