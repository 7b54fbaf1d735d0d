// The follower's HTTP reads: the world's description, the zone list (every page of
// one listing, so one consistent revision) and single zones, with the errors the
// server answers turned into `FollowError`s that name what failed and say whether
// trying again can cure them (as the Rust SDK's `ClientError::is_transient`).
import type { FetchLike, WorldInfo, ZoneDocument } from "./types.js";

/** The server's error codes (its JSON error body's `code`), plus the follower's own. */
export type FollowErrorCode =
  | "INVALID_ARGUMENT"
  | "NOT_FOUND"
  | "FAILED_PRECONDITION"
  | "ABORTED"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  | "RESOURCE_EXHAUSTED"
  | "UNAVAILABLE"
  | "DEADLINE_EXCEEDED"
  | "PROTOCOL"
  | "CANCELLED"
  | "UNKNOWN";

/** Why a request or the follower failed: `code`, the server's `field` when it named one. */
export class FollowError extends Error {
  override readonly name = "FollowError";
  constructor(
    readonly code: FollowErrorCode,
    message: string,
    readonly field?: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
  ) {
    super(message);
  }

  /**
   * Whether trying again may cure it: the server away or restarting, a timeout, a
   * lost race, or admission's 503 (which asks to retry).
   */
  get transient(): boolean {
    return (
      this.code === "UNAVAILABLE" ||
      this.code === "DEADLINE_EXCEEDED" ||
      this.code === "ABORTED" ||
      (this.code === "RESOURCE_EXHAUSTED" && this.status === 503)
    );
  }
}

/** Where and how to reach the server. */
export interface Http {
  base: string;
  fetch: FetchLike;
  token: string | undefined;
  timeoutMs: number;
  /** Aborted when the follower closes. */
  signal: AbortSignal;
}

/** The code of an answer without the JSON error body (a proxy's, say). */
function codeOfStatus(status: number): FollowErrorCode {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 408:
    case 504:
      return "DEADLINE_EXCEEDED";
    case 429:
      return "RESOURCE_EXHAUSTED";
    default:
      return status >= 500 ? "UNAVAILABLE" : "UNKNOWN";
  }
}

/** A signal aborted by `outer` or after `ms`, and its cleanup. */
function deadline(outer: AbortSignal, ms: number): { signal: AbortSignal; done: () => void; timedOut: () => boolean } {
  const controller = new AbortController();
  let expired = false;
  const abort = (): void => controller.abort();
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, ms);
  if (outer.aborted) controller.abort();
  else outer.addEventListener("abort", abort, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      outer.removeEventListener("abort", abort);
    },
    timedOut: () => expired,
  };
}

/** `GET base + path` as JSON; `what` names the read in errors. */
export async function getJson(http: Http, path: string, what: string): Promise<any> {
  if (http.signal.aborted) throw new FollowError("CANCELLED", `${what}: the follower is closed`);
  const headers: Record<string, string> = { accept: "application/json" };
  if (http.token !== undefined) headers.authorization = `Bearer ${http.token}`;
  const limit = deadline(http.signal, http.timeoutMs);
  const url = `${http.base}${path}`;
  try {
    let response: Response;
    let text: string;
    try {
      response = await http.fetch(url, { headers, signal: limit.signal });
      text = await response.text();
    } catch (e) {
      if (http.signal.aborted) throw new FollowError("CANCELLED", `${what}: the follower is closed`);
      if (limit.timedOut()) {
        throw new FollowError("DEADLINE_EXCEEDED", `${what}: GET ${url}: no answer within ${http.timeoutMs} ms`);
      }
      // fetch says as little on purpose: a refused connection and a CORS refusal
      // look the same to a page.
      throw new FollowError(
        "UNAVAILABLE",
        `${what}: GET ${url} failed: ${describe(e)} (the server is unreachable, or, in a browser, its cors_origins does not list this page's origin)`,
      );
    }
    if (!response.ok) {
      let body: { error?: { code?: string; message?: string; field?: string } } | undefined;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const code = (body?.error?.code as FollowErrorCode | undefined) ?? codeOfStatus(response.status);
      const message = body?.error?.message ?? text.slice(0, 200);
      throw new FollowError(code, `${what}: ${response.status} ${code}: ${message}`, body?.error?.field, response.status);
    }
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new FollowError("PROTOCOL", `${what}: GET ${url} answered ${response.status} with a body that is not JSON: ${describe(e)}`);
    }
  } finally {
    limit.done();
  }
}

/** An error's message, whatever was thrown. */
export function describe(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? `${e.message} (${cause.message})` : e.message;
  }
  return String(e);
}

/** A revision as the protocol carries it: a whole number this runtime holds exactly. */
export function revisionOf(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new FollowError("PROTOCOL", `${what}: revision ${JSON.stringify(value)} is not a whole number below 2^53`);
  }
  return value;
}

/** A zone document as the server answers it, checked for what the follower relies on. */
function zoneOf(value: unknown, what: string): ZoneDocument {
  const zone = value as ZoneDocument | null;
  if (zone === null || typeof zone !== "object" || typeof zone.id !== "string") {
    throw new FollowError("PROTOCOL", `${what}: a zone without an id: ${JSON.stringify(value)?.slice(0, 200)}`);
  }
  revisionOf(zone.revision, `${what}: zone ${JSON.stringify(zone.id)}`);
  return zone;
}

/** Sleeps `ms`, or less when the follower closes. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((ok) => {
    if (signal.aborted) return ok();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      ok();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Reconnection and retry delays: `initialMs`, doubled per failed attempt, at most `maxMs`. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** The delay after failed attempt `attempt` (1-based), as the Rust SDK's `RetryPolicy::backoff`. */
export function backoffDelay(b: Backoff, attempt: number): number {
  return Math.min(b.initialMs * 2 ** Math.max(0, attempt - 1), b.maxMs);
}

/** Runs `call` until it succeeds or fails for good; at most `attempts` tries (Infinity: no limit). */
export async function retrying<T>(http: Http, backoff: Backoff, attempts: number, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof FollowError) || !e.transient || attempt >= attempts || http.signal.aborted) throw e;
      await sleep(backoffDelay(backoff, attempt), http.signal);
    }
  }
}

/** Attempts of one read in all, as the Rust SDK's default `RetryPolicy` (4). */
export const READ_ATTEMPTS = 4;

/** A listing the server could no longer continue is started again at most this often (the Rust SDK's `LIST_RESTARTS`). */
export const LIST_RESTARTS = 3;

/** The world `world` as `GET /v1/worlds` lists it; NOT_FOUND when it is not hosted. */
export async function worldInfo(http: Http, backoff: Backoff, world: string): Promise<WorldInfo> {
  const answer = await retrying(http, backoff, READ_ATTEMPTS, () => getJson(http, "/v1/worlds", "list worlds"));
  const found = (answer?.worlds as WorldInfo[] | undefined)?.find((w) => w.id === world);
  if (found === undefined) {
    throw new FollowError("NOT_FOUND", `world: ${JSON.stringify(world)} is not hosted by ${http.base}`, "world", 404);
  }
  return found;
}

/** Every zone of a world at one revision, in registration order. */
export interface ZoneList {
  zones: ZoneDocument[];
  revision: number;
  epoch: string;
}

/**
 * Every page of one listing of `world`'s zones: one revision throughout (the page
 * token names it). A listing the server can no longer continue (409
 * FAILED_PRECONDITION on a later page: its revision left the history, or the epoch
 * changed) starts again from the first page, at most `LIST_RESTARTS` times; each page
 * is retried like any read.
 */
export async function listZones(http: Http, backoff: Backoff, world: string, pageSize: number | undefined): Promise<ZoneList> {
  const path = (token: string): string => {
    const query = new URLSearchParams();
    if (pageSize !== undefined) query.set("pageSize", String(pageSize));
    if (token !== "") query.set("pageToken", token);
    const q = query.toString();
    return `/v1/worlds/${encodeURIComponent(world)}/flat-zones${q === "" ? "" : `?${q}`}`;
  };
  const page = (token: string, n: number): Promise<any> =>
    retrying(http, backoff, READ_ATTEMPTS, () => getJson(http, path(token), `list the zones of ${JSON.stringify(world)}, page ${n}`));
  for (let restarts = 0; ; restarts++) {
    const first = await page("", 1);
    const revision = revisionOf(first?.revision, "zone list");
    const epoch = typeof first?.epoch === "string" ? first.epoch : "";
    const zones: ZoneDocument[] = [];
    const take = (answer: any, n: number): void => {
      if (!Array.isArray(answer?.zones)) throw new FollowError("PROTOCOL", `zone list page ${n}: no zones array`);
      for (const z of answer.zones) zones.push(zoneOf(z, `zone list page ${n}`));
    };
    take(first, 1);
    let token = typeof first?.nextPageToken === "string" ? first.nextPageToken : "";
    let restart = false;
    for (let n = 2; token !== ""; n++) {
      let next: any;
      try {
        next = await page(token, n);
      } catch (e) {
        if (e instanceof FollowError && e.code === "FAILED_PRECONDITION" && restarts < LIST_RESTARTS) {
          restart = true;
          break;
        }
        throw e;
      }
      const at = revisionOf(next?.revision, `zone list page ${n}`);
      if (at !== revision) {
        throw new FollowError("PROTOCOL", `a page of the zone list of revision ${revision} answered revision ${at}`);
      }
      take(next, n);
      token = typeof next?.nextPageToken === "string" ? next.nextPageToken : "";
    }
    if (!restart) return { zones, revision, epoch };
  }
}

/**
 * Zone `id` as the server holds it now, or `null` when it is absent (removed since the
 * event that named it). A missing world is an error (NOT_FOUND naming `world`).
 */
export async function getZone(http: Http, world: string, id: string): Promise<ZoneDocument | null> {
  const what = `fetch zone ${JSON.stringify(id)} of ${JSON.stringify(world)}`;
  try {
    const answer = await getJson(http, `/v1/worlds/${encodeURIComponent(world)}/flat-zones/${encodeURIComponent(id)}`, what);
    return answer?.zone == null ? null : zoneOf(answer.zone, what);
  } catch (e) {
    if (e instanceof FollowError && e.code === "NOT_FOUND" && e.field !== "world") return null;
    throw e;
  }
}
