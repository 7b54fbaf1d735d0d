// TerrainClient: against real servers (plain, with an admin token, with TLS) and, for
// the retry rules, against an in-process router transport whose handlers fail on cue.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";

import { LocalTerrain, TerrainClient, TerrainError, pb } from "../src/index";
import { DEFAULT_RETRY, MAX_TIMER_MS, retryDelay } from "../src/client";
import { BadRequestSchema, RetryInfoSchema } from "../src/gen/google/rpc/error_details_pb";
import { TestServer, firstBitDifference, randomPoints, testCertificates } from "./server";

const ZONE = { centerX: 5, centerZ: -5, width: 16, depth: 12, height: 21.25, blendRadius: 3 };

describe("TerrainClient against a real server", () => {
  let server: TestServer;
  before(async () => {
    server = await TestServer.start({ worlds: ["hills:hyperscape:0", "blocks:voxel:3"], args: ["--admin-token", "s3cret-token"] });
  });
  after(async () => {
    await server?.stop();
  });

  test("one lowerCamelCase method per RPC of every service", async () => {
    const client = await TerrainClient.connect(server.url);
    for (const name of [
      "listWorlds", "getHeight", "getHeights", "getHeightmap", "registerFlatZone", "unregisterFlatZone",
      "getFlatZone", "listFlatZones", "getFlatZoneAt", "getTileMesh", "getTileMeshes", "getChunkBlocks",
      "getChunkInstances", "getTerrainInfo", "checkPath", "findPath", "subscribe", "updateSubscription",
      "trackViewers", "getLiveTiles", "getLayout", "getZoneClass",
    ]) {
      assert.equal(typeof (client as unknown as Record<string, unknown>)[name], "function", name);
    }
    const worlds = await client.listWorlds({});
    assert.deepEqual(worlds.worlds.map((w) => w.id), ["hills", "blocks"]);
  });

  test("getHeight and getHeights answer the replica's bits", async () => {
    const client = await TerrainClient.connect(server.url);
    const replica = await LocalTerrain.open(server.url, "hills");
    try {
      const one = await client.getHeight({ world: "hills", x: 12.5, z: -7.25 });
      assert.ok(Object.is(one.height, replica.heightAt(12.5, -7.25)));
      assert.equal(Number(one.revision), replica.revision);
      const points = randomPoints(2_000, 1500, 99);
      const many = await client.getHeights({ world: "hills", coordinates: Array.from(points) });
      assert.equal(firstBitDifference(Float64Array.from(many.heights), replica.heights(points)), -1);
      const surface = await client.getHeights({ world: "hills", coordinates: Array.from(points), mode: pb.HeightMode.SURFACE });
      assert.equal(firstBitDifference(Float64Array.from(surface.heights), replica.surfaceHeights(points)), -1);
    } finally {
      replica.close();
    }
  });

  test("a non-finite x is INVALID_ARGUMENT naming the field x", async () => {
    const client = await TerrainClient.connect(server.url);
    for (const x of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const e = await client.getHeight({ world: "hills", x, z: 0 }).then(
        () => assert.fail("a non-finite x was accepted"),
        (e: unknown) => e,
      );
      assert.ok(e instanceof TerrainError, String(e));
      assert.equal(e.code, Code.InvalidArgument);
      assert.equal(e.codeName, "INVALID_ARGUMENT");
      assert.equal(e.field, "x");
      assert.equal(e.rpc, "terrain.v1.TerrainService.GetHeight");
    }
    const missing = await client.getHeight({ world: "nowhere", x: 0, z: 0 }).catch((e: unknown) => e);
    assert.ok(missing instanceof TerrainError);
    assert.equal(missing.code, Code.NotFound);
  });

  test("mutations carry the bearer token; without it they are refused", async () => {
    const anonymous = await TerrainClient.connect(server.url);
    const refused = await anonymous
      .registerFlatZone({ world: "hills", zone: { id: "no-token", ...ZONE } })
      .catch((e: unknown) => e);
    assert.ok(refused instanceof TerrainError, String(refused));
    assert.equal(refused.code, Code.Unauthenticated);

    const admin = await TerrainClient.connect(server.url, { token: "s3cret-token" });
    const replica = await LocalTerrain.open(server.url, "hills");
    const events = admin.subscribe({ world: "hills" }, { signal: AbortSignal.timeout(30_000) });
    const iterator = events[Symbol.asyncIterator]();
    try {
      const first = await iterator.next();
      assert.equal(first.value?.kind.case, "subscribed");
      const put = await admin.registerFlatZone({ world: "hills", zone: { id: "with-token", ...ZONE } });
      assert.equal(put.change, "registered");
      assert.equal(put.zone?.height, ZONE.height);
      const event = await iterator.next();
      assert.equal(event.value?.kind.case, "tiles");
      assert.equal(event.value?.kind.value.revision, put.revision);
      await replica.waitForRevision(Number(put.revision));
      const at = await admin.getHeight({ world: "hills", x: 5, z: -5 });
      assert.equal(at.height, ZONE.height);
      assert.equal(at.zone, "with-token");
      assert.ok(Object.is(replica.heightAt(5, -5), at.height));
      const listed = await admin.getFlatZone({ world: "hills", id: "with-token" });
      assert.equal(listed.zone?.id, "with-token");
      await admin.unregisterFlatZone({ world: "hills", id: "with-token" });
    } finally {
      await iterator.return?.();
      replica.close();
    }
  });
});

describe("TerrainClient over TLS", () => {
  let server: TestServer;
  let certs: ReturnType<typeof testCertificates>;
  before(async () => {
    certs = testCertificates();
    server = await TestServer.start({ worlds: ["hills:hyperscape:0"], tls: certs, args: ["--admin-token", "tls-admin"] });
  });
  after(async () => {
    await server?.stop();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  test("https:// with the CA file; refused without it", async () => {
    assert.match(server.url, /^https:/);
    const client = await TerrainClient.connect(server.url, { caFile: certs.ca });
    const worlds = await client.listWorlds({});
    assert.deepEqual(worlds.worlds.map((w) => w.id), ["hills"]);
    await assert.rejects(TerrainClient.connect(server.url, { retry: { maxAttempts: 1 } }), TerrainError);
    await assert.rejects(TerrainClient.connect(server.url.replace("https", "http"), { caFile: certs.ca }), /https/);
    // The replica, over either backend (the addon's gRPC, or the WebAssembly build's
    // HTTP and events WebSocket), trusts the CA file alone and follows a change over TLS.
    await assert.rejects(LocalTerrain.open(server.url, "hills", { caFile: `${certs.dir}/missing.pem`, connectTimeoutMs: 5_000 }), /ca_?[fF]ile .*missing\.pem/);
    await assert.rejects(LocalTerrain.open(server.url.replace("https", "http"), "hills", { caFile: certs.ca, connectTimeoutMs: 5_000 }), /https/);
    await assert.rejects(LocalTerrain.open(server.url, "hills", { connectTimeoutMs: 5_000 }), "refused without the CA");
    const replica = await LocalTerrain.open(server.url, "hills", { caFile: certs.ca });
    try {
      const h = await client.getHeight({ world: "hills", x: 1, z: 2 });
      assert.ok(Object.is(replica.heightAt(1, 2), h.height));
      const admin = await TerrainClient.connect(server.url, { caFile: certs.ca, token: "tls-admin" });
      const { revision } = await admin.registerFlatZone({ world: "hills", zone: { id: "tls-zone", ...ZONE } });
      assert.equal(await replica.waitForRevision(Number(revision), 20_000), Number(revision));
      const at = await client.getHeight({ world: "hills", x: 5, z: -5 });
      assert.equal(at.height, ZONE.height);
      assert.ok(Object.is(replica.heightAt(5, -5), at.height), "the change reached the replica over TLS");
      assert.equal(replica.zoneAt(5, -5), "tls-zone");
    } finally {
      replica.close();
    }
  });
});

describe("TerrainClient retries (in-process router transport)", () => {
  /** A transport whose GetHeight fails `failures` times with `code`, and counts calls. */
  function flaky(failures: number, code: Code, retryDelayMs?: number) {
    const calls = { getHeight: 0, registerFlatZone: 0, at: [] as number[] };
    const error = (): ConnectError =>
      new ConnectError(
        "try again",
        code,
        undefined,
        retryDelayMs === undefined
          ? []
          : [{ desc: RetryInfoSchema, value: { retryDelay: { seconds: 0n, nanos: retryDelayMs * 1_000_000 } } }],
      );
    const transport = createRouterTransport(({ service }) => {
      service(pb.TerrainService, {
        getHeight(req) {
          calls.getHeight++;
          calls.at.push(performance.now());
          if (calls.getHeight <= failures) throw error();
          return create(pb.GetHeightResponseSchema, { x: req.x, z: req.z, height: 42, revision: 7n });
        },
        registerFlatZone() {
          calls.registerFlatZone++;
          throw error();
        },
        getFlatZone() {
          throw new ConnectError("bad id", Code.InvalidArgument, undefined, [
            { desc: BadRequestSchema, value: { fieldViolations: [{ field: "id", description: "bad" }] } },
          ]);
        },
      });
    });
    return { calls, transport };
  }

  test("reads are retried on UNAVAILABLE, waiting the RetryInfo delay", async () => {
    const { calls, transport } = flaky(2, Code.Unavailable, 150);
    const client = new TerrainClient(transport, { retry: { initialBackoffMs: 1 } });
    const answer = await client.getHeight({ world: "w", x: 1, z: 2 });
    assert.equal(answer.height, 42);
    assert.equal(calls.getHeight, 3);
    for (let i = 1; i < calls.at.length; i++) {
      const waited = calls.at[i]! - calls.at[i - 1]!;
      assert.ok(waited >= 140, `attempt ${i + 1} waited ${waited} ms, RetryInfo said 150`);
    }
  });

  test("DEADLINE_EXCEEDED and ABORTED are retried with backoff, up to maxAttempts", async () => {
    for (const code of [Code.DeadlineExceeded, Code.Aborted]) {
      const { calls, transport } = flaky(10, code);
      const client = new TerrainClient(transport, { retry: { maxAttempts: 3, initialBackoffMs: 20 } });
      const e = await client.getHeight({ world: "w", x: 0, z: 0 }).catch((e: unknown) => e);
      assert.ok(e instanceof TerrainError);
      assert.equal(e.code, code);
      assert.equal(calls.getHeight, 3, "three attempts in all");
      assert.ok(calls.at[1]! - calls.at[0]! >= 18 && calls.at[2]! - calls.at[1]! >= 38, `backoff doubles: ${calls.at}`);
    }
  });

  test("a bad timeoutMs or retry field is refused, naming it; one given as undefined keeps its default", async () => {
    const { calls, transport } = flaky(10, Code.Unavailable);
    const refused: [string, object][] = [
      ["timeoutMs", { timeoutMs: Number.NaN }],
      ["timeoutMs", { timeoutMs: -1 }],
      ["timeoutMs", { timeoutMs: 2 ** 31 }],
      ["retry.maxAttempts", { retry: { maxAttempts: Number.NaN } }],
      ["retry.maxAttempts", { retry: { maxAttempts: 1.5 } }],
      ["retry.maxAttempts", { retry: { maxAttempts: -1 } }],
      ["retry.maxAttempts", { retry: { maxAttempts: Number.POSITIVE_INFINITY } }],
      ["retry.initialBackoffMs", { retry: { initialBackoffMs: -5 } }],
      ["retry.maxBackoffMs", { retry: { maxBackoffMs: 2 ** 31 } }],
    ];
    for (const [field, options] of refused) {
      assert.throws(() => new TerrainClient(transport, options), (e: unknown) => {
        assert.ok(e instanceof RangeError, `${JSON.stringify(options)}: ${String(e)}`);
        assert.ok(e.message.startsWith(`${field}: `), e.message);
        return true;
      });
      await assert.rejects(TerrainClient.connect("http://127.0.0.1:1", { lazy: true, ...options }), RangeError);
    }
    // A NaN maxAttempts used to retry without end; undefined fields keep their defaults.
    const client = new TerrainClient(transport, {
      // As plain JavaScript may pass them (the types forbid an explicit undefined).
      retry: { maxAttempts: undefined, initialBackoffMs: 1, maxBackoffMs: undefined } as unknown as typeof DEFAULT_RETRY,
    });
    assert.deepEqual(client.retry, { ...DEFAULT_RETRY, initialBackoffMs: 1 });
    await assert.rejects(client.getHeight({ world: "w", x: 0, z: 0 }), TerrainError);
    assert.equal(calls.getHeight, DEFAULT_RETRY.maxAttempts);
  });

  test("a RetryInfo delay longer than Node's longest timer waits the longest timer, not no time", () => {
    const error = { retryDelayMs: 1e12 } as TerrainError;
    assert.equal(retryDelay(DEFAULT_RETRY, 1, error), MAX_TIMER_MS);
    assert.equal(retryDelay(DEFAULT_RETRY, 1, { retryDelayMs: 300 } as TerrainError), 300);
    assert.equal(retryDelay(DEFAULT_RETRY, 3, { retryDelayMs: undefined } as TerrainError), 200);
  });

  test("mutations are sent once; other codes are not retried", async () => {
    const { calls, transport } = flaky(10, Code.Unavailable, 1);
    const client = new TerrainClient(transport);
    const e = await client.registerFlatZone({ world: "w", zone: { id: "z", ...ZONE } }).catch((e: unknown) => e);
    assert.ok(e instanceof TerrainError);
    assert.equal(e.code, Code.Unavailable);
    assert.equal(e.retryDelayMs, 1);
    assert.equal(calls.registerFlatZone, 1);

    const bad = await client.getFlatZone({ world: "w", id: "?" }).catch((e: unknown) => e);
    assert.ok(bad instanceof TerrainError);
    assert.equal(bad.code, Code.InvalidArgument);
    assert.equal(bad.field, "id");
    assert.deepEqual(bad.violations, [{ field: "id", description: "bad" }]);
  });
});
