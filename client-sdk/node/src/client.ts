// TerrainClient: a typed gRPC client of every service in proto/terrain/v1 (TerrainService,
// TerrainEvents, TerrainLifecycle), one lowerCamelCase method per RPC, over Connect's
// gRPC transport for Node (HTTP/2). The message types and service descriptors are
// generated at build time from the protos by protoc-gen-es (src/gen, `npm run generate`).
//
// - Reads (every unary RPC but the mutations) are retried with exponential backoff on
//   UNAVAILABLE, DEADLINE_EXCEEDED and ABORTED, and when the connection failed under
//   the call before the server sent a status (TerrainError.connectionFailed), waiting
//   at least the server's google.rpc.RetryInfo delay when it sends one. Streams and
//   mutations are sent once.
// - Mutations (RegisterFlatZone, UnregisterFlatZone, TrackViewers) carry
//   `authorization: Bearer <token>` when a token is given.
// - Failures are TerrainError: the gRPC code, its name, and the field a
//   google.rpc.BadRequest names.
// - listFlatZones reads every page of the zone list (the server answers a page at a
//   time, AIP-158) and answers them as one response; listFlatZonesPage is the raw RPC.
import { readFileSync } from "node:fs";

import type { DescMethod, DescService } from "@bufbuild/protobuf";
import {
  type CallOptions,
  type Client,
  Code,
  ConnectError,
  type Interceptor,
  type Transport,
  createClient,
} from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { BadRequestSchema, RetryInfoSchema } from "./gen/google/rpc/error_details_pb";
import { TerrainEvents } from "./gen/terrain/v1/events_pb";
import { TerrainLifecycle } from "./gen/terrain/v1/lifecycle_pb";
import { type ListFlatZonesResponse, TerrainService } from "./gen/terrain/v1/terrain_pb";
import { GuardedSessions } from "./sessions";

/** The services a TerrainClient speaks, in proto order. */
export const SERVICES = [TerrainService, TerrainEvents, TerrainLifecycle] as const;

/** The RPCs that change a world or its viewers: sent once, with the bearer token. */
export const MUTATIONS: ReadonlySet<string> = new Set([
  "terrain.v1.TerrainService.RegisterFlatZone",
  "terrain.v1.TerrainService.UnregisterFlatZone",
  "terrain.v1.TerrainLifecycle.TrackViewers",
]);

/**
 * Connect's error for a response that ended without a gRPC status, in its headers or
 * trailers: how a stream the server (or a proxy in between) reset after the response
 * headers reaches the caller, the reset's code lost on the way. Told apart by its
 * message alone; `test/connection-failures.test.ts` pins it for the Connect version
 * this package pins.
 */
const MISSING_STATUS = "protocol error: missing status";

/** The codes a read is retried on. */
export const RETRIED_CODES: ReadonlySet<Code> = new Set([
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.Aborted,
]);

/**
 * Node's error codes for a connection or HTTP/2 stream that failed under a call: the
 * peer reset the stream (`REFUSED_STREAM` as a server stops, ...) or the socket broke.
 */
const CONNECTION_FAILURES: ReadonlySet<string> = new Set([
  "ERR_HTTP2_STREAM_ERROR",
  "ERR_HTTP2_STREAM_CANCEL",
  "ERR_HTTP2_SESSION_ERROR",
  "ERR_HTTP2_GOAWAY_SESSION",
  "ERR_HTTP2_INVALID_SESSION",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
]);

/** How reads are retried: as the Rust SDK's RetryPolicy. */
export interface RetryPolicy {
  /** Attempts in all, including the first: a whole number; 1 (or 0) disables retries. Default 4. */
  maxAttempts: number;
  /** Delay before the second attempt, doubled after each further failure. Default 50. */
  initialBackoffMs: number;
  /** Upper bound of one backoff delay (a longer RetryInfo delay still wins). Default 2000. */
  maxBackoffMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  initialBackoffMs: 50,
  maxBackoffMs: 2_000,
};

export interface ClientOptions {
  /** Bearer token sent with mutations (the server's admin token). */
  token?: string;
  /** PEM file of the CA that signed the server's certificate (`https://` URLs). */
  caFile?: string;
  /** Deadline of one attempt, in milliseconds. Default 30,000; 0 for none; at most {@link MAX_TIMER_MS}. */
  timeoutMs?: number;
  /** Retries of reads; `{ maxAttempts: 1 }` disables them. Backoffs at most {@link MAX_TIMER_MS}. */
  retry?: Partial<RetryPolicy>;
  /** Skip the ListWorlds call `connect` makes to check the server is there. */
  lazy?: boolean;
  /**
   * HTTP/2 keepalive, in milliseconds: while a call or stream is open and nothing has
   * arrived for this long, a PING is sent, and a connection that does not answer it
   * within the same time is closed, failing its calls as `UNAVAILABLE` (reads retry, a
   * `Subscription` reconnects). Without it a connection that died silently (a host
   * gone, a NAT entry dropped) holds a stream open forever. Default 10,000, as the
   * Rust SDK; 0 for none.
   */
  keepaliveMs?: number;
}

/** The longest a Node timer waits: one set longer fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A duration option in milliseconds, 0 to {@link MAX_TIMER_MS}, or an error naming `name`. */
export function durationMs(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0 || v > MAX_TIMER_MS) {
    throw new RangeError(`${name}: must be a finite number of ms, 0 to ${MAX_TIMER_MS} (got ${v})`);
  }
  return v;
}

/**
 * `given` over {@link DEFAULT_RETRY}, or a RangeError naming the field: a NaN or
 * fractional `maxAttempts` would retry without end, a backoff over Node's longest timer
 * would not wait at all. A field given as `undefined` keeps its default.
 */
function retryPolicy(given: Partial<RetryPolicy> = {}): RetryPolicy {
  const maxAttempts = given.maxAttempts ?? DEFAULT_RETRY.maxAttempts;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 0) {
    throw new RangeError(`retry.maxAttempts: must be a whole number, 0 or more (got ${maxAttempts})`);
  }
  return {
    maxAttempts,
    initialBackoffMs: durationMs("retry.initialBackoffMs", given.initialBackoffMs ?? DEFAULT_RETRY.initialBackoffMs),
    maxBackoffMs: durationMs("retry.maxBackoffMs", given.maxBackoffMs ?? DEFAULT_RETRY.maxBackoffMs),
  };
}

/** A failed call: the gRPC code and, when the server named one, the offending field. */
export class TerrainError extends Error {
  override readonly name = "TerrainError";
  /** The gRPC status code (numeric, as @connectrpc/connect's Code). */
  readonly code: Code;
  /** The code's name in gRPC's spelling, e.g. `INVALID_ARGUMENT`. */
  readonly codeName: string;
  /** The field a google.rpc.BadRequest named (e.g. `x`, `points[3]`), or "". */
  readonly field: string;
  /** Every field violation the server sent. */
  readonly violations: readonly { field: string; description: string }[];
  /** The server's google.rpc.RetryInfo delay, in milliseconds, if it sent one. */
  readonly retryDelayMs: number | undefined;
  /** The server's message, without the code prefix. */
  readonly rawMessage: string;
  /** The RPC, `package.Service.Method`. */
  readonly rpc: string;
  /**
   * The connection failed under the call and the server sent no status: the stream
   * was reset or closed (`CANCELED` as Connect reports a closed session, `INTERNAL`
   * for a reset stream) or the socket broke. Not a call the caller cancelled.
   */
  readonly connectionFailed: boolean;

  /** `cancelledByCaller`: the caller's own signal aborted the call. */
  constructor(rpc: string, cause: ConnectError, cancelledByCaller = false) {
    const violations = cause
      .findDetails(BadRequestSchema)
      .flatMap((b) => b.fieldViolations.map((v) => ({ field: v.field, description: v.description })));
    const field = violations[0]?.field ?? "";
    const codeName = codeNameOf(cause.code);
    super(`${rpc}: ${codeName}${field ? ` (field ${field})` : ""}: ${cause.rawMessage}`, { cause });
    this.code = cause.code;
    this.codeName = codeName;
    this.field = field;
    this.violations = violations;
    this.retryDelayMs = retryDelayMs(cause);
    this.rawMessage = cause.rawMessage;
    this.rpc = rpc;
    this.connectionFailed =
      !cancelledByCaller &&
      !cause.metadata.has("grpc-status") &&
      (cause.code === Code.Canceled ||
        (cause.code === Code.Internal &&
          (cause.rawMessage === MISSING_STATUS || nodeCodes(cause).some((c) => CONNECTION_FAILURES.has(c)))));
  }

  /** Whether a later attempt of the same read may succeed. */
  get transient(): boolean {
    return RETRIED_CODES.has(this.code) || this.connectionFailed;
  }
}

/** The `code` of every error down `e`'s chain of causes (Node's system and HTTP/2 codes). */
function nodeCodes(e: unknown): string[] {
  const codes: string[] = [];
  for (let at = e, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
  }
  return codes;
}

function codeNameOf(code: Code): string {
  // Code.InvalidArgument -> "INVALID_ARGUMENT".
  const name = Code[code] ?? `CODE_${code}`;
  return name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

function retryDelayMs(e: ConnectError): number | undefined {
  const info = e.findDetails(RetryInfoSchema)[0];
  const d = info?.retryDelay;
  if (!d) return undefined;
  return Number(d.seconds) * 1_000 + d.nanos / 1_000_000;
}

const sleep = (ms: number): Promise<void> => new Promise((ok) => setTimeout(ok, ms));

/** The delay after failed attempt `attempt` (1-based), at least the server's RetryInfo. */
export function retryDelay(policy: RetryPolicy, attempt: number, error: TerrainError): number {
  const backoff = Math.min(policy.initialBackoffMs * 2 ** (attempt - 1), policy.maxBackoffMs);
  // A server's RetryInfo longer than Node's longest timer would otherwise fire at once.
  return Math.min(Math.max(backoff, error.retryDelayMs ?? 0), MAX_TIMER_MS);
}

type ServiceClients = Client<typeof TerrainService> &
  Client<typeof TerrainEvents> &
  Client<typeof TerrainLifecycle>;

/** The methods of every service, by lowerCamelCase name (see {@link TerrainClient}). */
export interface TerrainClient extends ServiceClients {}

/** How many times {@link TerrainClient.listFlatZones} starts a listing again when the
 * server can no longer continue it (as the Rust SDK's `LIST_RESTARTS`). */
export const LIST_RESTARTS = 3;

type ListPage = Client<typeof TerrainService>["listFlatZones"];

/**
 * Every page of a zone list, from `req.pageToken` (the first page when empty) to the
 * last, through `page` (one `ListFlatZones` call, retried as every read), answered as
 * one response: the zones of every page in order, the listing's revision and epoch,
 * `nextPageToken` empty. A later page the server can no longer serve
 * (`FAILED_PRECONDITION`, field `page_token`: the listing's revision left its
 * history) starts the listing again from the first page, at most
 * {@link LIST_RESTARTS} times; a page of another revision is an error.
 */
export async function listEveryPage(
  page: ListPage,
  req: Parameters<ListPage>[0],
  opts?: CallOptions,
): Promise<ListFlatZonesResponse> {
  const readAll = async (from: Parameters<ListPage>[0]): Promise<ListFlatZonesResponse> => {
    const first = await page(from, opts);
    let token = first.nextPageToken;
    while (token !== "") {
      const next = await page({ ...from, pageToken: token }, opts);
      if (next.revision !== first.revision) {
        throw new Error(`a page of the zone list of revision ${first.revision} answered revision ${next.revision}`);
      }
      first.zones.push(...next.zones);
      token = next.nextPageToken;
    }
    first.nextPageToken = "";
    return first;
  };
  for (let restarts = 0; ; restarts++) {
    try {
      return await readAll(req);
    } catch (e) {
      if (!(e instanceof TerrainError && e.code === Code.FailedPrecondition && restarts < LIST_RESTARTS)) throw e;
      // The listing's revision is no longer served: start again from the first page.
      req = { ...req, pageToken: "" };
    }
  }
}

/**
 * A typed client of the terrain server's gRPC services: `listWorlds`, `getHeight`,
 * `getHeights`, `registerFlatZone`, `subscribe`, `trackViewers`, ... (every RPC of
 * proto/terrain/v1, as protoc-gen-es names them), each taking the request message's
 * fields as a plain object and answering the response message.
 */
export class TerrainClient {
  /** The transport every call goes over. */
  readonly transport: Transport;
  /**
   * One page of `ListFlatZones` as the server answers it (`pageSize`, `pageToken` in;
   * `nextPageToken` out): the raw RPC that {@link listFlatZones} calls for each page.
   */
  declare readonly listFlatZonesPage: ListPage;
  /** The retry policy of reads. */
  readonly retry: RetryPolicy;

  /** A client over `transport` (e.g. an in-process router transport, in tests). */
  constructor(transport: Transport, options: Omit<ClientOptions, "caFile" | "lazy" | "keepaliveMs"> = {}) {
    this.transport = transport;
    this.retry = retryPolicy(options.retry);
    const timeoutMs = durationMs("timeoutMs", options.timeoutMs ?? 30_000);
    const auth = options.token === undefined ? undefined : `Bearer ${options.token}`;
    const self = this as unknown as Record<string, unknown>;
    for (const service of SERVICES as readonly DescService[]) {
      const raw = createClient(service, transport) as unknown as Record<string, (req: unknown, opts?: CallOptions) => unknown>;
      for (const method of service.methods) {
        const call = raw[method.localName];
        if (!call) throw new Error(`no generated method ${method.localName}`);
        if (method.localName in self) throw new Error(`two services define ${method.localName}`);
        self[method.localName] = this.wrap(method, call, timeoutMs, auth);
      }
    }
    // The zone list is paged: listFlatZones reads every page, listFlatZonesPage one.
    const page = self.listFlatZones as ListPage;
    self.listFlatZonesPage = page;
    self.listFlatZones = (req: Parameters<ListPage>[0], opts?: CallOptions) => listEveryPage(page, req, opts);
  }

  /**
   * Connects to `url` (`http://host:port`, or `https://` with `caFile`) over gRPC
   * (HTTP/2) and, unless `lazy`, checks the server answers ListWorlds.
   */
  static async connect(url: string, options: ClientOptions = {}): Promise<TerrainClient> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new TypeError(`invalid URL ${JSON.stringify(url)}`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new TypeError(`invalid URL ${JSON.stringify(url)}: expected http:// or https://`);
    }
    if (options.caFile !== undefined && parsed.protocol !== "https:") {
      throw new TypeError("caFile needs an https:// URL");
    }
    const keepaliveMs = durationMs("keepaliveMs", options.keepaliveMs ?? 10_000);
    const ca = options.caFile === undefined ? undefined : readFileSync(options.caFile);
    const baseUrl = url.replace(/\/+$/, "");
    const sessionManager = new GuardedSessions(baseUrl, keepaliveMs, ca === undefined ? {} : { ca });
    const transport = createGrpcTransport({ baseUrl, sessionManager });
    const { caFile: _ca, lazy, keepaliveMs: _keepalive, ...rest } = options;
    const client = new TerrainClient(transport, rest);
    if (!lazy) await client.listWorlds({});
    return client;
  }

  private wrap(
    method: DescMethod,
    call: (req: unknown, opts?: CallOptions) => unknown,
    timeoutMs: number,
    auth: string | undefined,
  ): (req: unknown, opts?: CallOptions) => unknown {
    const rpc = `${method.parent.typeName}.${method.name}`;
    const mutation = MUTATIONS.has(rpc);
    const options = (opts: CallOptions | undefined): CallOptions => {
      const headers = new Headers(opts?.headers);
      if (mutation && auth !== undefined && !headers.has("authorization")) {
        headers.set("authorization", auth);
      }
      const out: CallOptions = { ...opts, headers };
      if (out.timeoutMs === undefined && timeoutMs > 0 && method.methodKind === "unary") {
        out.timeoutMs = timeoutMs;
      }
      return out;
    };
    const wrapError = (e: unknown, opts: CallOptions | undefined): unknown =>
      e instanceof TerrainError ? e : new TerrainError(rpc, ConnectError.from(e), opts?.signal?.aborted === true);

    if (method.methodKind !== "unary") {
      // Streams: sent once; errors raised while iterating become TerrainError too.
      return (req, opts) => {
        const stream = call(req, options(opts)) as AsyncIterable<unknown>;
        return (async function* () {
          try {
            yield* stream;
          } catch (e) {
            throw wrapError(e, opts);
          }
        })();
      };
    }
    const policy = this.retry;
    const attempts = mutation ? 1 : Math.max(1, policy.maxAttempts);
    return async (req, opts) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await (call(req, options(opts)) as Promise<unknown>);
        } catch (e) {
          const error = wrapError(e, opts) as TerrainError;
          if (attempt >= attempts || !error.transient || opts?.signal?.aborted) throw error;
          await sleep(retryDelay(policy, attempt, error));
        }
      }
    };
  }
}

/** The interceptors type, re-exported for callers building their own transports. */
export type { Interceptor, Transport };
