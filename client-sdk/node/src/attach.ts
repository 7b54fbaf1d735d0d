// `attachTerrainServer`: the game keeps its own `TerrainSystem` object (its lifecycle,
// events, tiles, meshes, spawns, roads, persistence) and this product answers the
// questions whose answers it owns. The instance's methods are shadowed by own
// properties that ask a `HyperscapeTerrain` over a replica of the server's world; since
// the original calls those methods inside itself (its tile builders call
// `getHeightAtComputed`, its spawner `getTerrainInfoAt`, its normals and slopes
// `getHeightAt`), its own meshes and placements then stand on the replica's ground.
//
// Zones flow both ways. The server's zones (another process's, an admin's, a restore's)
// are entered in the instance's own index through its own `registerFlatZone`, so its
// tile builder carves and flattens them and its own path regenerates their tiles;
// zones the game registers go to the replica at once, to the server when a token is
// given, and into its index as before. `detach()` takes back everything it did. The
// routing, the index entries and `detach` are src/attach-common.ts (the browser's
// attach, src/web/attach.ts, is the same code); this file is Node's side of it.
import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

import type * as Addon from "./addon";
import { argumentError, optionsArg, stringArg } from "./args";
import { AttachCore, checkTerrainSystem } from "./attach-common";
import { HyperscapeTerrain, type ZoneCommitError } from "./hyperscape";
import { addon, internals } from "./native";

/** Options of {@link attachTerrainServer}. */
export interface AttachOptions {
  /** The terrain server (`http://host:port` or `https://`: its one port). */
  url: string;
  /** The world on the server: a hyperscape world with the game's seed. */
  world: string;
  /** The server's admin token. With it, zones the game registers are committed to the
   * server; without it they stay in this process (a browser's, or a read-only peer). */
  token?: string;
  /** PEM CA of an `https://` server's certificate. */
  caFile?: string;
  /** Connect timeout of the replica, milliseconds (default 5,000). */
  connectTimeoutMs?: number;
}

export { ROUTED } from "./attach-common";

/** What {@link attachTerrainServer} resolves to. */
export class TerrainAttachment extends EventEmitter {
  /** The adapter over the replica that answers the routed methods. */
  readonly terrain: HyperscapeTerrain;
  /** The routing, the index entries and `detach` (src/attach-common.ts, shared with
   * the browser's attach). */
  private readonly core: AttachCore;

  /** @internal */
  constructor(
    /** The game's `TerrainSystem` instance. */
    readonly system: object,
    terrain: HyperscapeTerrain,
    list: () => Promise<{ ids: string[]; revision: number }>,
  ) {
    super();
    this.terrain = terrain;
    const { fast, handle } = internals(terrain.replica);
    this.core = new AttachCore(system, {
      terrain,
      zoneDoc: (id) => fast.hsZone(handle, id),
      list,
      reach: async (revision) => {
        if (terrain.replica.live) await terrain.replica.waitForRevision(revision);
      },
      fail: (e) => this.fail(e),
    });
  }

  /** Shadows the routed methods and takes in the zones the game already holds. */
  route(): void {
    this.core.route();
    this.terrain.on("change", (e: Addon.LocalEvent) => this.changed(e));
    this.terrain.on("error", (e: ZoneCommitError) => this.refused(e));
  }

  /** Enters every zone the server holds (listed over HTTP, read from the replica once
   * it reached the listing's revision), and takes out those it does not. */
  reconcileAll(): Promise<void> {
    return this.core.reconcileAll();
  }

  private changed(e: Addon.LocalEvent): void {
    if (this.core.detached) return;
    if (e.kind === "rebuilt" || e.kind === "lagged") this.core.rebuilt();
    else if (e.zone !== undefined) this.core.reconcile(e.zone);
    this.emit("change", e);
  }

  /** A zone change the server refused was withdrawn from the replica: the index follows. */
  private refused(e: ZoneCommitError): void {
    if (typeof e.zoneId === "string") this.core.reconcile(e.zoneId);
    this.fail(e);
  }

  private fail(e: Error): void {
    if (this.listenerCount("error") > 0) this.emit("error", e);
    else process.emitWarning(e);
  }

  /** Resolves once every zone change made so far was answered by the server and the
   * replica (and so the instance's index) reflects the answers. */
  async flush(timeoutMs?: number): Promise<void> {
    await this.terrain.flush(timeoutMs);
    await this.core.settled();
  }

  /** Ids of the zones entered in the instance's index (the game's and the server's). */
  zoneIds(): string[] {
    return this.core.zoneIds();
  }

  /**
   * Gives the instance back as it was: its own methods (the same functions), and its
   * index without the server's zones (the game's own zones of before attaching as it
   * had them; those it registered since stay, as it registered them). Closes the replica.
   */
  detach(): void {
    if (!this.core.detach()) return;
    this.terrain.removeAllListeners("change");
    this.terrain.close();
  }
}

/** One JSON GET (node:http or node:https with the given CA), 30 s at most. */
function getJson(url: string, token: string | undefined, ca: Buffer | undefined): Promise<any> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const u = new URL(url);
    const options = { method: "GET", headers, timeout: 30_000, ...(ca === undefined ? {} : { ca }) };
    const req = (u.protocol === "https:" ? httpsRequest : httpRequest)(u, options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
          reject(new Error(`GET ${url}: HTTP ${res.statusCode}: ${text}`));
          return;
        }
        try {
          resolve(JSON.parse(text));
        } catch (e) {
          reject(e);
        }
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url}: no answer within 30 s`)));
    req.on("error", reject);
    req.end();
  });
}

/** Every page of one listing of the world's zones: their ids and its revision. */
async function listZoneIds(base: string, world: string, token: string | undefined, ca: Buffer | undefined): Promise<{ ids: string[]; revision: number }> {
  const path = `${base}/v1/worlds/${encodeURIComponent(world)}/flat-zones`;
  const ids: string[] = [];
  let page = await getJson(path, token, ca);
  const revision = Number(page.revision ?? 0);
  for (;;) {
    for (const z of page.zones ?? []) ids.push(String(z.id));
    const next = typeof page.nextPageToken === "string" ? page.nextPageToken : "";
    if (next === "") return { ids, revision };
    page = await getJson(`${path}?pageToken=${encodeURIComponent(next)}`, token, ca);
  }
}

/**
 * Attaches the terrain server's world to the game's own `TerrainSystem` instance (after
 * its construction, before or after its `init`): the routed methods ({@link ROUTED})
 * answer from a replica of the world, the server's zones enter its own index, and zones
 * it registers go to the server (with `token`). Resolves once the replica holds the
 * server's zones and the instance's index has them.
 */
export async function attachTerrainServer(terrainSystem: object, options: AttachOptions): Promise<TerrainAttachment> {
  const where = "attachTerrainServer";
  checkTerrainSystem(terrainSystem, where);
  const o = optionsArg("options", options, where);
  if (o === undefined) throw argumentError(TypeError, "options", "expected { url, world, token? }", where);
  const url = stringArg("url", o.url, where).replace(/\/+$/, "");
  const world = stringArg("world", o.world, where);
  const token = o.token === undefined ? undefined : stringArg("token", o.token, where);
  const caFile = o.caFile === undefined ? undefined : stringArg("caFile", o.caFile, where);
  const open: Addon.OpenOptions = {};
  if (caFile !== undefined) open.caFile = caFile;
  if (o.connectTimeoutMs !== undefined) open.connectTimeoutMs = o.connectTimeoutMs as number;
  const ca = caFile === undefined ? undefined : readFileSync(caFile);
  const replica = await addon.LocalTerrain.open(url, world, open);
  let attachment: TerrainAttachment | undefined;
  try {
    // Without a token nothing is ever written to the server: the adapter has no URL.
    const terrain =
      token === undefined
        ? HyperscapeTerrain.wrap(replica, caFile === undefined ? {} : { caFile })
        : HyperscapeTerrain.wrap(replica, { url, token, ...(caFile === undefined ? {} : { caFile }) });
    attachment = new TerrainAttachment(terrainSystem, terrain, () => listZoneIds(url, world, token, ca));
    attachment.route();
    await attachment.reconcileAll();
    return attachment;
  } catch (e) {
    if (attachment !== undefined) attachment.detach();
    else replica.close();
    throw e;
  }
}
