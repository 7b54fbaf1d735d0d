// The follower (`terrain-client/follow`) against a real server, through a sink that
// records every call: the snapshot read over several pages, changes reaching the sink
// in order with the server's revisions, a zone changed faster than the follower
// fetches it (the ahead rule: every state the sink commits is the server's state at
// that revision, checked against the history the test writes), a server restarted
// empty (another history: rebuilt), a server killed and restarted on the same data
// (resumed without loss), a world gone (stopped), and the WebSocket's Origin check.
// The server has an admin token throughout; the follower reads without it (one test
// sends it). The follower gets the runtime's own WebSocket where there is one (Node 22
// and later: the browsers' API, as undici implements it), else the `ws` package's.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import WebSocket from "ws";

import { FollowError, Follower, type FollowerEvent, type WebSocketConstructor, type ZoneDocument, type ZoneSink } from "../src/follow";
import { TestServer } from "./server";

const TOKEN = "follow-test-token";
/**
 * The socket the follower is given: the runtime's own where it has one (Node 22 and
 * later: undici's, the browsers' API), else the `ws` package's (Node 20).
 */
const Socket: WebSocketConstructor = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ?? WebSocket;
const WORLD = "hills";

/** A rectangle zone at `(x, z)`, `height` metres high. */
function zone(x: number, z: number, height: number): Record<string, number> {
  return { centerX: x, centerZ: z, width: 12, depth: 10, height, blendRadius: 2 };
}

/** A mutation with the admin token; the server's answer. */
async function admin(server: TestServer, method: "PUT" | "DELETE", id: string, body?: unknown): Promise<any> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const r = await fetch(`${server.url}/v1/worlds/${WORLD}/flat-zones/${id}`, init);
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${id}: ${r.status} ${text}`);
  return JSON.parse(text);
}

/** Every zone of the world now, by reading every page. */
async function serverZones(server: TestServer): Promise<{ zones: ZoneDocument[]; revision: number; epoch: string }> {
  const zones: ZoneDocument[] = [];
  let token = "";
  let first: any;
  do {
    const page = await server.json("GET", `/v1/worlds/${WORLD}/flat-zones?pageSize=1000${token ? `&pageToken=${token}` : ""}`);
    first ??= page;
    zones.push(...page.zones);
    token = page.nextPageToken;
  } while (token !== "");
  return { zones, revision: first.revision, epoch: first.epoch };
}

/** A zone set as comparable text: sorted by id. */
function text(zones: Iterable<ZoneDocument>): string {
  return JSON.stringify([...zones].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
}

/** A sink that keeps zones and records every call and every committed state. */
class RecordingSink implements ZoneSink {
  zones = new Map<string, ZoneDocument>();
  calls: string[] = [];
  /** Each committed state: its revision, its zones as `text`, and how many resets came before it. */
  commits: { revision: number; zones: string; generation: number }[] = [];
  private generation = 0;

  reset(revision: number, zones: ZoneDocument[]): void {
    this.calls.push(`reset ${revision} ${zones.map((z) => z.id).join(",")}`);
    this.generation++;
    this.zones = new Map(zones.map((z) => [z.id, z]));
  }
  put(revision: number, zone: ZoneDocument): void {
    this.calls.push(`put ${revision} ${zone.id}@${zone.revision}`);
    this.zones.set(zone.id, zone);
  }
  remove(revision: number, id: string): void {
    assert.ok(this.zones.has(id), `remove ${revision} ${id}: the sink holds no such zone`);
    this.calls.push(`remove ${revision} ${id}`);
    this.zones.delete(id);
  }
  commit(revision: number): void {
    this.calls.push(`commit ${revision}`);
    this.commits.push({ revision, zones: text(this.zones.values()), generation: this.generation });
  }
}

/** The zone sets the test wrote, by revision: the one writer's record of the server's history. */
class History {
  private readonly states = new Map<number, Map<string, ZoneDocument>>();
  private latest: Map<string, ZoneDocument>;

  constructor(list: { zones: ZoneDocument[]; revision: number }) {
    this.latest = new Map(list.zones.map((z) => [z.id, z]));
    this.states.set(list.revision, this.latest);
  }
  async put(server: TestServer, id: string, body: unknown): Promise<number> {
    const answer = await admin(server, "PUT", id, body);
    this.latest = new Map(this.latest).set(id, answer.zone);
    this.states.set(answer.revision, this.latest);
    return answer.revision;
  }
  async remove(server: TestServer, id: string): Promise<number> {
    const answer = await admin(server, "DELETE", id);
    this.latest = new Map(this.latest);
    this.latest.delete(id);
    this.states.set(answer.revision, this.latest);
    return answer.revision;
  }
  at(revision: number): string {
    const state = this.states.get(revision);
    assert.ok(state, `no recorded state at revision ${revision}`);
    return text(state.values());
  }
}

/** Every event the follower says, in order. */
function record(follower: Follower): FollowerEvent[] {
  const events: FollowerEvent[] = [];
  follower.on("tiles", (e) => events.push(e));
  follower.on("rebuilt", (e) => events.push(e));
  follower.on("stopped", (e) => events.push(e));
  return events;
}

/** Waits until `check` holds, polling. */
async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 20));
  }
}

describe("Follower against a real server", { timeout: 120_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ worlds: [`${WORLD}:hyperscape:0`, "other:hyperscape:1"], args: ["--admin-token", TOKEN] });
  });
  after(async () => {
    await server?.stop();
  });

  test("the snapshot over several pages, then each change in order with the server's revision", async () => {
    for (let i = 0; i < 7; i++) await admin(server, "PUT", `start${i}`, zone(30 * i, 5, 20 + i));
    const listed = await serverZones(server);
    const sink = new RecordingSink();
    let described: unknown;
    const made = (world: unknown): ZoneSink => {
      described = world;
      return sink;
    };
    const follower = await Follower.open({ url: server.url, world: WORLD, sink: made, WebSocket: Socket, pageSize: 2 });
    try {
      const events = record(follower);
      assert.equal(described, follower.world, "the sink is made from the world's entry");
      assert.equal(follower.world.id, WORLD);
      assert.equal(follower.world.generator, "hyperscape");
      assert.equal(follower.revision, listed.revision);
      assert.deepEqual(sink.calls, [`reset ${listed.revision} ${listed.zones.map((z) => z.id).join(",")}`, `commit ${listed.revision}`]);
      assert.equal(text(sink.zones.values()), text(listed.zones), "the snapshot is the server's, every page of it");

      const history = new History(listed);
      const added = await history.put(server, "added", zone(-50, -50, 31));
      const replaced = await history.put(server, "start3", zone(90, 5, 40));
      const removed = await history.remove(server, "start0");
      assert.equal(await follower.waitForRevision(removed), removed);
      assert.deepEqual(sink.calls.slice(2), [
        `put ${added} added@${added}`,
        `commit ${added}`,
        `put ${replaced} start3@${replaced}`,
        `commit ${replaced}`,
        `remove ${removed} start0`,
        `commit ${removed}`,
      ]);
      for (const c of sink.commits) assert.equal(c.zones, history.at(c.revision), `the sink at ${c.revision}`);
      assert.equal(text(sink.zones.values()), text((await serverZones(server)).zones));
      assert.deepEqual(
        events.map((e) => (e.kind === "tiles" ? `${e.event.revision} ${e.event.change} ${e.event.zone}` : e.kind)),
        [`${added} registered added`, `${replaced} replaced start3`, `${removed} removed start0`],
      );
      const first = events[0];
      assert.ok(first?.kind === "tiles");
      assert.ok(first.event.bounds.minX <= -56 && first.event.bounds.maxX >= -44, JSON.stringify(first.event.bounds));
      assert.equal(first.event.epoch, listed.epoch);
    } finally {
      follower.close();
    }
  });

  test("a zone changed faster than it is fetched: the sink only ever holds the server's states", async () => {
    const sink = new RecordingSink();
    // Every zone fetch waits, so it sees the changes made meanwhile: the ahead rule.
    const slowFetch = async (input: string, init?: RequestInit): Promise<Response> => {
      // (`brief` longer: it is removed right after it is registered, and the fetch
      // must come after that.)
      if (/\/flat-zones\/[^?]+$/.test(input)) await new Promise((ok) => setTimeout(ok, input.endsWith("/brief") ? 1_000 : 150));
      return fetch(input, init);
    };
    const follower = await Follower.open({ url: server.url, world: WORLD, sink, WebSocket: Socket, fetch: slowFetch, token: TOKEN });
    try {
      const events = record(follower);
      const history = new History(await serverZones(server));
      assert.equal(follower.revision, (await serverZones(server)).revision);
      let last = 0;
      for (let round = 0; round < 4; round++) {
        await history.put(server, "busy", zone(200, 200, 10 + round));
        await history.put(server, "busy", zone(200, 200, 20 + round));
        await history.remove(server, "busy");
        await history.put(server, "busy", zone(200, 210, 30 + round));
        await history.put(server, `calm${round}`, zone(-200, 40 * round, 12));
        last = await history.put(server, "busy", zone(200, 220, 40 + round));
      }
      // Removed before its registration's fetch: the fetch finds nothing, and the
      // follower waits for the removal's event.
      await history.put(server, "brief", zone(-100, -100, 9));
      last = await history.remove(server, "brief");
      await follower.waitForRevision(last);
      for (const c of sink.commits) assert.equal(c.zones, history.at(c.revision), `the sink's state at ${c.revision} is the server's`);
      assert.ok(!sink.calls.some((c) => c.includes("brief")), `a zone that was never there at a published revision never reached the sink: ${sink.calls.filter((c) => c.includes("brief"))}`);
      const tiles = events.filter((e) => e.kind === "tiles").map((e) => (e.kind === "tiles" ? e.event.revision : 0));
      const start = sink.commits[0]!.revision;
      assert.deepEqual(tiles, Array.from({ length: last - start }, (_, i) => start + 1 + i), "every revision once, in order");
      assert.ok(sink.commits.length < tiles.length + 1, `some states were held back (${sink.commits.length} commits for ${tiles.length} events)`);
      assert.equal(sink.commits.at(-1)?.revision, last);
      assert.equal(text(sink.zones.values()), text((await serverZones(server)).zones));
    } finally {
      follower.close();
    }
  });

  test("a server killed and restarted on the same data: resumed without loss", async () => {
    const sink = new RecordingSink();
    const follower = await Follower.open({ url: server.url, world: WORLD, sink, WebSocket: Socket, maxBackoffMs: 500 });
    try {
      const events = record(follower);
      const history = new History(await serverZones(server));
      const start = follower.revision;
      await history.put(server, "before-kill", zone(-300, -300, 15));
      await server.restart({ signal: "SIGKILL" });
      // Changed before the follower is back: the resume replays them.
      let last = 0;
      for (let i = 0; i < 5; i++) last = await history.put(server, `after-kill${i}`, zone(-300 + 30 * i, 300, 16 + i));
      last = await history.remove(server, "before-kill");
      await follower.waitForRevision(last);
      assert.ok(follower.reconnects >= 1, `reconnected (${follower.reconnects})`);
      const revisions = events.map((e) => (e.kind === "tiles" ? e.event.revision : e.kind));
      assert.deepEqual(revisions, Array.from({ length: last - start }, (_, i) => start + 1 + i), "every revision once, in order, none rebuilt");
      for (const c of sink.commits) assert.equal(c.zones, history.at(c.revision), `the sink at ${c.revision}`);
      assert.equal(text(sink.zones.values()), text((await serverZones(server)).zones));

      // And after an operator's restart (SIGTERM: the server closes the socket).
      await server.restart();
      last = await history.put(server, "after-term", zone(0, -400, 14));
      await follower.waitForRevision(last);
      assert.equal(text(sink.zones.values()), history.at(last));
    } finally {
      follower.close();
    }
  });

  test("a server restarted empty holds another history: rebuilt from it", async () => {
    const sink = new RecordingSink();
    const follower = await Follower.open({ url: server.url, world: WORLD, sink, WebSocket: Socket, maxBackoffMs: 500 });
    try {
      const events = record(follower);
      const oldRevision = follower.revision;
      assert.ok(oldRevision > 10, `the old history is long (${oldRevision})`);
      await server.restartEmpty();
      const fresh = new History(await serverZones(server));
      let last = 0;
      for (let i = 0; i < 3; i++) last = await fresh.put(server, `new${i}`, zone(10 * i, 0, 25));
      await until(() => events.some((e) => e.kind === "rebuilt"), "rebuilt");
      const rebuilt = events.find((e) => e.kind === "rebuilt");
      assert.ok(rebuilt?.kind === "rebuilt" && rebuilt.revision <= last, JSON.stringify(rebuilt));
      // Revisions restart lower: waiting for a revision is not enough, the state is.
      await until(() => text(sink.zones.values()) === fresh.at(last), "the new history's zones");
      assert.equal(follower.revision, last);
      // Nothing of the new history was applied on the old state: from the second
      // reset on, every committed state is the new history's.
      const reset = sink.calls.findIndex((c, i) => i > 0 && c.startsWith("reset "));
      assert.ok(reset > 0, sink.calls.join("\n"));
      assert.ok(sink.calls.slice(1, reset).every((c) => c === `commit ${oldRevision}`), sink.calls.join("\n"));
      for (const c of sink.commits.filter((c) => c.generation > 1)) {
        assert.equal(c.zones, fresh.at(c.revision), `the sink at ${c.revision} of the new history`);
      }
      // Live after the rebuild.
      const more = await fresh.put(server, "new-live", zone(0, 60, 26));
      await follower.waitForRevision(more);
      assert.equal(text(sink.zones.values()), fresh.at(more));
      assert.equal(follower.stopped, null);
    } finally {
      follower.close();
    }
  });

  test("a world gone from the server: stopped, and waitForRevision fails with why", async () => {
    const sink = new RecordingSink();
    const follower = await Follower.open({ url: server.url, world: WORLD, sink, WebSocket: Socket, maxBackoffMs: 500 });
    const events = record(follower);
    const waiting = assert.rejects(
      follower.waitForRevision(follower.revision + 1_000),
      (e: unknown) => e instanceof FollowError && e.code === "NOT_FOUND" && e.field === "world",
    );
    try {
      await server.restart({ worlds: ["other:hyperscape:1"] });
      await waiting;
      const stopped = events.at(-1);
      assert.ok(stopped?.kind === "stopped", JSON.stringify(events));
      assert.match(stopped.reason, /world/);
      assert.equal(follower.stopped?.code, "NOT_FOUND");
      await assert.rejects(follower.waitForRevision(follower.revision + 1), /world/);
    } finally {
      follower.close();
      await server.restart({ worlds: [`${WORLD}:hyperscape:0`, "other:hyperscape:1"] });
    }
  });

  test("refusals at open name what failed", async () => {
    const sink = new RecordingSink();
    await assert.rejects(
      Follower.open({ url: server.url, world: "nowhere", sink, WebSocket: Socket }),
      (e: unknown) => e instanceof FollowError && e.code === "NOT_FOUND" && e.field === "world" && /nowhere/.test(e.message),
    );
    if ((globalThis as { WebSocket?: unknown }).WebSocket === undefined) {
      await assert.rejects(
        Follower.open({ url: server.url, world: WORLD, sink }),
        (e: unknown) => e instanceof FollowError && e.field === "WebSocket",
        "Node 20 has no global WebSocket",
      );
    } else {
      // Node 22 and later: the global one (undici's, the browsers' API) is taken.
      const global = await Follower.open({ url: server.url, world: WORLD, sink: new RecordingSink() });
      try {
        const r = await admin(server, "PUT", "global-socket", zone(600, 600, 10));
        assert.equal(await global.waitForRevision(r.revision), r.revision);
      } finally {
        global.close();
      }
    }
    await assert.rejects(Follower.open({ url: "ftp://x", world: WORLD, sink, WebSocket: Socket }), /url: must be/);
    await assert.rejects(Follower.open({ url: server.url, world: WORLD, sink, WebSocket: Socket, pageSize: 0 }), /pageSize/);
    await assert.rejects(
      Follower.open({ url: "http://127.0.0.1:9", world: WORLD, sink, WebSocket: Socket, initialBackoffMs: 1 }),
      (e: unknown) => e instanceof FollowError && e.code === "UNAVAILABLE" && /list worlds: GET http:\/\/127\.0\.0\.1:9\/v1\/worlds failed/.test(e.message),
    );
    const throwing: ZoneSink = {
      reset() {},
      put() {
        throw new Error("the terrain refused it");
      },
      remove() {},
    };
    const follower = await Follower.open({ url: server.url, world: WORLD, sink: throwing, WebSocket: Socket });
    const events = record(follower);
    try {
      const r = await admin(server, "PUT", "refused-by-sink", zone(500, 500, 10));
      await assert.rejects(follower.waitForRevision(r.revision), /sink\.put\(\d+, zone "refused-by-sink"\) threw: the terrain refused it/);
      assert.equal(events.at(-1)?.kind, "stopped");
    } finally {
      follower.close();
    }
  });
});

describe("Follower and a server that no longer holds what it missed", { timeout: 120_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ worlds: [`${WORLD}:hyperscape:0`], args: ["--admin-token", TOKEN, "--event-history", "2"] });
  });
  after(async () => {
    await server?.stop();
  });

  test("a resume past the server's event history: resync, rebuilt from a fresh listing", async () => {
    const sink = new RecordingSink();
    // Away long enough after the restart for the changes below to be made meanwhile.
    const follower = await Follower.open({ url: server.url, world: WORLD, sink, WebSocket: Socket, initialBackoffMs: 3_000, maxBackoffMs: 3_000 });
    try {
      const events = record(follower);
      const history = new History(await serverZones(server));
      const start = follower.revision;
      await server.restart({ signal: "SIGKILL" });
      let last = 0;
      for (let i = 0; i < 6; i++) last = await history.put(server, `missed${i}`, zone(20 * i, -90, 18 + i));
      assert.ok(follower.revision === start, "the follower was away while they were made");
      await follower.waitForRevision(last);
      assert.deepEqual(events.map((e) => e.kind), ["rebuilt"], "no replay: the history is pruned");
      assert.ok(events[0]?.kind === "rebuilt" && events[0].revision === last);
      assert.equal(sink.calls.at(-2), `reset ${last} ${Array.from({ length: 6 }, (_, i) => `missed${i}`).join(",")}`);
      for (const c of sink.commits) assert.equal(c.zones, history.at(c.revision), `the sink at ${c.revision}`);
      const more = await history.put(server, "live", zone(0, 90, 20));
      await follower.waitForRevision(more);
      assert.deepEqual(events.map((e) => (e.kind === "tiles" ? e.event.revision : e.kind)), ["rebuilt", more]);
    } finally {
      follower.close();
    }
  });
});

describe("Follower and the WebSocket's Origin check (cors_origins)", { timeout: 60_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ worlds: [`${WORLD}:hyperscape:0`], args: ["--cors-origin", "https://game.example"] });
  });
  after(async () => {
    await server?.stop();
  });

  /** `ws` as a browser on page `origin` opens it: with that `Origin` header. */
  const socketFrom = (origin: string) =>
    class extends WebSocket {
      constructor(url: string) {
        super(url, { origin });
      }
    };
  /**
   * `fetch` as a browser on page `origin` does it: with that `Origin` header, and the
   * answer withheld (a TypeError, all a page learns) unless the server allows the origin.
   */
  const fetchFrom =
    (origin: string) =>
    async (input: string, init?: RequestInit): Promise<Response> => {
      const r = await fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin } });
      if (r.headers.get("access-control-allow-origin") !== origin) throw new TypeError("Failed to fetch");
      return r;
    };

  test("a page of a listed origin follows; another is refused (HTTP by CORS, the WebSocket with 403)", async () => {
    const game = "https://game.example";
    const sink = new RecordingSink();
    const follower = await Follower.open({ url: server.url, world: WORLD, sink, WebSocket: socketFrom(game), fetch: fetchFrom(game) });
    try {
      const r = await server.json("PUT", `/v1/worlds/${WORLD}/flat-zones/cors`, zone(0, 0, 20));
      await follower.waitForRevision(r.revision);
      assert.deepEqual([...sink.zones.keys()], ["cors"]);
    } finally {
      follower.close();
    }
    const elsewhere = "https://elsewhere.example";
    await assert.rejects(
      Follower.open({ url: server.url, world: WORLD, sink, WebSocket: socketFrom(elsewhere), fetch: fetchFrom(elsewhere) }),
      (e: unknown) => e instanceof FollowError && e.code === "UNAVAILABLE" && /list worlds: .* failed: Failed to fetch .*cors_origins/.test(e.message),
    );
    // The socket alone (a page whose reads went through, say a proxy's): refused before the upgrade.
    await assert.rejects(
      Follower.open({ url: server.url, world: WORLD, sink, WebSocket: socketFrom(elsewhere) }),
      (e: unknown) => e instanceof FollowError && /events: ws:\/\/.*: socket error: Unexpected server response: 403/.test(e.message),
    );
  });
});
