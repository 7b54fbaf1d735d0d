// TerrainClient.listFlatZones against a real server whose zone list is larger than
// 4 MiB (tile masks): it reads every page and answers the whole list, every zone once
// in registration order, of one revision; listFlatZonesPage is one page, each under
// the 4 MiB a default gRPC client receives; a stale page token is refused naming
// page_token and a fresh listing starts over.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { toBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";

// The client alone (src/index also loads the native addon, which these tests do not use).
import { TerrainClient, TerrainError } from "../src/client";
import { ListFlatZonesResponseSchema } from "../src/gen/terrain/v1/terrain_pb";
import { TestServer } from "./server";

const TOKEN = "pages-admin";
const MASKS = 12;
const SMALL = 60;
const FOUR_MIB = 4 * 1024 * 1024;

let server: TestServer;
before(async () => {
  server = await TestServer.start({
    worlds: ["main:hyperscape:0"],
    // A short history: a page token three changes old is no longer served.
    args: ["--admin-token", TOKEN, "--asof-revisions", "2"],
  });
});
after(async () => {
  await server?.stop();
});

/** A 256 x 256-tile mask zone whose tiles start at (x0, z0), indices near 100,000. */
function maskZone(id: string, x0: number, z0: number) {
  const tileMask: number[] = [];
  for (let i = 0; i < 256; i++) for (let j = 0; j < 256; j++) tileMask.push(x0 + i, z0 + j);
  return { id, centerX: x0 + 128, centerZ: z0 + 128, width: 260, depth: 260, height: 30, blendRadius: 4, tileMask };
}

const smallZone = (id: string, i: number) => ({
  id,
  centerX: -5000 + 30 * i,
  centerZ: -5000,
  width: 8,
  depth: 8,
  height: 12,
  blendRadius: 2,
});

test("listFlatZones reads every page of a list larger than 4 MiB", async () => {
  const client = await TerrainClient.connect(server.url, { token: TOKEN });
  const ids: string[] = [];
  for (let i = 0; i < MASKS + SMALL; i++) {
    const zone = i % 6 === 0 && ids.length / 6 < MASKS ? maskZone(`mask-${i / 6}`, 100_000 + 300 * (i / 6), 100_000) : smallZone(`small-${i}`, i);
    ids.push(zone.id);
    await client.registerFlatZone({ world: "main", zone });
  }

  // One page at a time, as the server answers: each far under 4 MiB, together over it.
  const sizes: number[] = [];
  const paged: string[] = [];
  let token = "";
  let revision: bigint | undefined;
  do {
    const page = await client.listFlatZonesPage({ world: "main", pageToken: token });
    revision ??= page.revision;
    assert.equal(page.revision, revision, "every page of the listing's revision");
    sizes.push(toBinary(ListFlatZonesResponseSchema, page).length);
    paged.push(...page.zones.map((z) => z.id));
    token = page.nextPageToken;
  } while (token !== "");
  assert.ok(sizes.length > 1, `pages: ${sizes.length}`);
  assert.ok(sizes.every((s) => s < FOUR_MIB), `page sizes ${sizes}`);
  assert.ok(sizes.reduce((a, b) => a + b, 0) > FOUR_MIB, `total ${sizes}`);
  assert.deepEqual(paged, ids);

  // listFlatZones: the whole list as one answer.
  const all = await client.listFlatZones({ world: "main" });
  assert.deepEqual(
    all.zones.map((z) => z.id),
    ids,
  );
  assert.equal(all.revision, revision);
  assert.equal(all.nextPageToken, "");
  assert.equal(all.zones.filter((z) => z.tileMask.length === 2 * 65_536).length, MASKS);
  // From a page size of 7 too.
  const bySeven = await client.listFlatZones({ world: "main", pageSize: 7 });
  assert.deepEqual(
    bySeven.zones.map((z) => z.id),
    ids,
  );
});

test("a stale page token is refused naming page_token, and listFlatZones starts over", async () => {
  const client = await TerrainClient.connect(server.url, { token: TOKEN });
  const first = await client.listFlatZonesPage({ world: "main", pageSize: 1 });
  assert.notEqual(first.nextPageToken, "");
  for (const id of ["stale-a", "stale-b", "stale-c"]) {
    await client.registerFlatZone({ world: "main", zone: smallZone(id, 200) });
  }
  await assert.rejects(
    client.listFlatZonesPage({ world: "main", pageSize: 1, pageToken: first.nextPageToken }),
    (e: unknown) =>
      e instanceof TerrainError &&
      e.code === Code.FailedPrecondition &&
      e.field === "page_token" &&
      e.rawMessage.startsWith("page_token: ") &&
      e.rawMessage.includes("list again from the first page"),
  );
  await assert.rejects(
    client.listFlatZonesPage({ world: "main", pageToken: "nonsense" }),
    (e: unknown) => e instanceof TerrainError && e.code === Code.InvalidArgument && e.field === "page_token",
  );
  await assert.rejects(
    client.listFlatZonesPage({ world: "main", pageSize: 1001 }),
    (e: unknown) => e instanceof TerrainError && e.code === Code.InvalidArgument && e.field === "page_size",
  );
  // Continuing the stale listing through listFlatZones starts it again: complete.
  const all = await client.listFlatZones({ world: "main", pageSize: 50, pageToken: first.nextPageToken });
  const ids = all.zones.map((z) => z.id);
  assert.equal(ids.length, new Set(ids).size);
  assert.equal(ids.at(-1), "stale-c");
  assert.equal(ids[0], "mask-0");
});
