// A real terrain-server for the tests: the debug binary of the workspace's target
// directory (as `cargo metadata` reports it: CARGO_TARGET_DIR, else ../../target;
// TERRAIN_SERVER_BIN overrides), started on 127.0.0.1 port 0 with a temporary data
// directory, as the Rust process tests start it (server/tests/process/common.rs): no
// TERRAIN_* variables from the caller, the bound address read from the `listening on
// ADDR` log line, then ready once /readyz answers 200. Only this process's own child is ever signalled.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get as httpsGet } from "node:https";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const root = resolve(__dirname, "..", "..", "..", "..");

/**
 * The workspace's target directory as cargo resolves it (`cargo metadata`: it follows
 * CARGO_TARGET_DIR, cargo configuration and wrappers alike), else CARGO_TARGET_DIR,
 * else ../../target.
 */
function targetDir(): string {
  const env = { ...process.env };
  if (env.CARGO_TARGET_DIR) env.CARGO_TARGET_DIR = resolve(root, env.CARGO_TARGET_DIR);
  const r = spawnSync("cargo", ["metadata", "--format-version", "1", "--no-deps", "--offline"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "ignore"],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status === 0) {
    const dir = (JSON.parse(r.stdout.toString()) as { target_directory?: string }).target_directory;
    if (dir) return dir;
  }
  return env.CARGO_TARGET_DIR ?? join(root, "target");
}

/** The server binary the tests run: TERRAIN_SERVER_BIN, else the target's debug build. */
export function serverBinary(): string {
  if (process.env.TERRAIN_SERVER_BIN) return process.env.TERRAIN_SERVER_BIN;
  return join(targetDir(), "debug", "terrain-server");
}

const WAIT_MS = 120_000;

export interface StartOptions {
  /** `ID:GENERATOR[:SEED]` each (`--world`). */
  worlds: string[];
  /** More command-line arguments. */
  args?: string[];
  /** A configuration file's text (TOML, e.g. `[[worlds]]` with `overlap` and
   * `walkability`), written to the temporary data directory and passed as `--config`. */
  config?: string;
  /** TLS on both surfaces: the server's PEM files, and the CA readiness is checked with. */
  tls?: { cert: string; key: string; ca: string };
}

/** How {@link TestServer.restart} stops and starts the server. */
export interface RestartOptions {
  /** The signal that stops it: SIGTERM (the default, an operator's restart) or SIGKILL (a crash). */
  signal?: NodeJS.Signals;
  /** The worlds it comes back with (`--world` each), instead of the ones it had. */
  worlds?: string[];
}

export class TestServer {
  private constructor(
    private child: ChildProcess,
    private readonly data: string,
    /** `127.0.0.1:PORT` */
    readonly addr: string,
    readonly log: string[],
    private readonly ca: string | undefined,
    /** The arguments after `--listen ADDR`. */
    private readonly args: string[],
  ) {}

  get url(): string {
    return `${this.ca === undefined ? "http" : "https"}://${this.addr}`;
  }

  static async start(options: StartOptions): Promise<TestServer> {
    const bin = serverBinary();
    if (!existsSync(bin)) {
      throw new Error(`no server binary at ${bin}: build it with cargo build -p terrain-server`);
    }
    const data = mkdtempSync(join(tmpdir(), "terrain-node-test-"));
    const args = ["--data-dir", join(data, "data")];
    if (options.config !== undefined) {
      writeFileSync(join(data, "config.toml"), options.config);
      args.push("--config", join(data, "config.toml"));
    }
    for (const w of options.worlds) args.push("--world", w);
    if (options.tls) args.push("--tls-cert", options.tls.cert, "--tls-key", options.tls.key);
    args.push(...(options.args ?? []));
    let spawned: { child: ChildProcess; addr: string; log: string[] };
    try {
      spawned = await spawnServer(bin, ["--listen", "127.0.0.1:0", ...args]);
    } catch (e) {
      rmSync(data, { recursive: true, force: true });
      throw e;
    }
    const server = new TestServer(spawned.child, data, spawned.addr, spawned.log, options.tls?.ca, args);
    try {
      await server.ready();
    } catch (e) {
      await server.stop();
      throw e;
    }
    return server;
  }

  /**
   * Stops this server (SIGTERM, as an operator's restart, unless `options.signal`
   * says otherwise) and starts it again on the same address and data directory
   * (with `options.worlds` instead of its worlds, when given); resolves once it is
   * ready again.
   */
  async restart(options: RestartOptions = {}): Promise<void> {
    await this.terminate(options.signal);
    let args = this.args;
    if (options.worlds !== undefined) {
      args = [];
      for (let i = 0; i < this.args.length; i++) {
        if (this.args[i] === "--world") i++;
        else args.push(this.args[i]!);
      }
      for (const w of options.worlds) args.push("--world", w);
    }
    this.child = (await spawnServer(serverBinary(), ["--listen", this.addr, ...args], this.log)).child;
    await this.ready();
  }

  /**
   * Stops this server and starts it again on the same address with an empty data
   * directory (another history of its worlds); resolves once it is ready again.
   */
  async restartEmpty(): Promise<void> {
    await this.terminate();
    rmSync(join(this.data, "data"), { recursive: true, force: true });
    this.child = (await spawnServer(serverBinary(), ["--listen", this.addr, ...this.args], this.log)).child;
    await this.ready();
  }

  /** Waits for /readyz 200: the worlds are baked. */
  private async ready(): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      try {
        if ((await this.readyz()) === 200) return;
      } catch {
        // not yet
      }
      if (Date.now() > deadline) throw new Error(`not ready in ${WAIT_MS} ms`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }

  /** `GET /readyz`'s status, over TLS with the test CA when the server has TLS. */
  private async readyz(): Promise<number> {
    if (this.ca === undefined) {
      const r = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
      await r.arrayBuffer();
      return r.status;
    }
    const ca = readFileSync(this.ca);
    return new Promise((ok, fail) => {
      const req = httpsGet(`${this.url}/readyz`, { ca, timeout: 5_000 }, (res) => {
        res.resume();
        res.on("end", () => ok(res.statusCode ?? 0));
      });
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", fail);
    });
  }

  /** SIGTERM to this server's own process (SIGKILL after 15 s), then removes its data. */
  async stop(): Promise<void> {
    await this.terminate();
    rmSync(this.data, { recursive: true, force: true });
  }

  /** `signal` (SIGTERM unless told) to this server's own process (SIGKILL after 15 s); waits for it to exit. */
  private async terminate(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }
  }

  /** A JSON request; throws on a non-2xx answer. */
  async json(method: string, path: string, body?: unknown): Promise<any> {
    const init: RequestInit = { method, signal: AbortSignal.timeout(60_000) };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { "content-type": "application/json" };
    }
    const r = await fetch(`${this.url}${path}`, init);
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return JSON.parse(text);
  }

  /**
   * The server's heights of `points` over HTTP in binary (little-endian f64 pairs in,
   * little-endian f64 heights out), with the revision they were computed at.
   */
  async heights(world: string, points: Float64Array, mode: "exact" | "surface" = "exact"): Promise<{ heights: Float64Array; revision: number }> {
    const body = Buffer.alloc(points.length * 8);
    points.forEach((v, i) => body.writeDoubleLE(v, i * 8));
    const r = await fetch(`${this.url}/v1/worlds/${world}/heights?mode=${mode}`, {
      method: "POST",
      body,
      headers: { "content-type": "application/octet-stream" },
      signal: AbortSignal.timeout(120_000),
    });
    const bytes = Buffer.from(await r.arrayBuffer());
    if (!r.ok) throw new Error(`heights: ${r.status} ${bytes.toString()}`);
    const heights = new Float64Array(bytes.length / 8);
    for (let i = 0; i < heights.length; i++) heights[i] = bytes.readDoubleLE(i * 8);
    return { heights, revision: Number(r.headers.get("x-terrain-revision")) };
  }
}

/**
 * Starts `bin` with `args` (no TERRAIN_* variables from the caller), its log lines
 * appended to `log`, and resolves with the address of its `listening on ADDR` line.
 */
async function spawnServer(bin: string, args: string[], log: string[] = []): Promise<{ child: ChildProcess; addr: string; log: string[] }> {
  const env: NodeJS.ProcessEnv = { ...process.env, RUST_LOG: "info" };
  for (const key of Object.keys(env)) {
    if (key.startsWith("TERRAIN_")) delete env[key];
  }
  const child = spawn(bin, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const lines = createInterface({ input: child.stderr! });
  try {
    const addr = await new Promise<string>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`no 'listening on' line in ${WAIT_MS} ms:\n${log.join("\n")}`)), WAIT_MS);
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        fail(new Error(`terrain-server exited (${code ?? signal}) before listening:\n${log.join("\n")}`));
      });
      lines.on("line", (line) => {
        log.push(line);
        const at = line.indexOf("listening on ");
        if (at >= 0) {
          clearTimeout(timer);
          ok(line.slice(at + "listening on ".length).split(/\s/)[0] ?? "");
        }
      });
    });
    return { child, addr, log };
  } catch (e) {
    if (child.exitCode === null) child.kill("SIGKILL");
    throw e;
  }
}

/** A seeded xorshift: numbers in [0, 1), the same sequence for the same seed. */
export function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x1_0000_0000;
  };
}

/** `n` points `[x0, z0, ...]` from a seeded xorshift, within `span` metres of the origin. */
export function randomPoints(n: number, span: number, seed = 0x9e3779b9): Float64Array {
  const next = xorshift(seed);
  const out = new Float64Array(n * 2);
  for (let i = 0; i < out.length; i++) out[i] = (next() * 2 - 1) * span;
  return out;
}

/** The first index where two arrays differ bit for bit (NaN payloads included), or -1. */
export function firstBitDifference(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  const x = new BigUint64Array(a.buffer, a.byteOffset, a.length);
  const y = new BigUint64Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return i;
  return -1;
}

/**
 * A throwaway CA and a server certificate it signed for 127.0.0.1 and localhost (openssl),
 * in a new temporary directory: `{ dir, ca, cert, key }` paths.
 */
export function testCertificates(): { dir: string; ca: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "terrain-node-tls-"));
  const p = (f: string): string => join(dir, f);
  const openssl = (...args: string[]): void => {
    const r = spawnSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
    if (r.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${r.stderr?.toString()}`);
  };
  openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
    "-keyout", p("ca.key"), "-out", p("ca.pem"), "-days", "2", "-subj", "/CN=terrain-node test CA");
  openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
    "-keyout", p("server.key"), "-out", p("server.csr"), "-subj", "/CN=127.0.0.1");
  writeFileSync(p("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n");
  openssl("x509", "-req", "-in", p("server.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"),
    "-CAcreateserial", "-out", p("server.pem"), "-days", "2", "-extfile", p("ext.cnf"));
  return { dir, ca: p("ca.pem"), cert: p("server.pem"), key: p("server.key") };
}
