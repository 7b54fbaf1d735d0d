// What the browser tests (and bench/browser.ts) share: a static server of the package
// directory on its own origin (127.0.0.1, port 0: another origin than the terrain
// server's, so every request the page makes to the server is cross-origin and needs the
// server's `--cors-origin`), and the two browsers, each behind one small interface:
// Debian's /usr/bin/chromium through playwright-core, Debian's /usr/bin/firefox-esr
// through puppeteer-core (WebDriver BiDi). No browser is downloaded; a missing one is an
// error (scripts/test-all.sh installs both). Pages record their errors; `check()` fails
// on any.
//
// Numbers cross between Node and the page as base64 of their little-endian bytes
// (page.html's `b64` and `unb64`), never as JSON text, so the bits compared are the bits
// computed.
import { readFile, stat } from "node:fs/promises";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve, sep } from "node:path";

import { type Browser as PwBrowser, type Page as PwPage, chromium } from "playwright-core";
import { type Browser as PpBrowser, type Page as PpPage, launch as ppLaunch } from "puppeteer-core";

/** The package directory (client-sdk/node): what the static server serves. */
export const PACKAGE = resolve(__dirname, "..", "..", "..");
/** The test page, served from the sources. */
export const PAGE = "/test/browser/page.html";

export const CHROMIUM = process.env.TERRAIN_CHROMIUM ?? "/usr/bin/chromium";
export const FIREFOX = process.env.TERRAIN_FIREFOX ?? "/usr/bin/firefox-esr";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
  ".png": "image/png",
  ".ts": "text/plain; charset=utf-8",
};

export interface StaticServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Requests answered 404 (a page asking for a missing file is an error). */
  missing: string[];
  /** The paths served, with their sizes in bytes. */
  served: Map<string, number>;
  close(): Promise<void>;
}

/** Serves `root` (GET and HEAD only, no directory listings, nothing outside it) on 127.0.0.1, port 0. */
export async function serveStatic(root: string = PACKAGE): Promise<StaticServer> {
  const missing: string[] = [];
  const served = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
      if (path === "/favicon.ico") {
        res.writeHead(204).end();
        return;
      }
      const file = normalize(join(root, path));
      if ((req.method !== "GET" && req.method !== "HEAD") || !(file === root || file.startsWith(root + sep))) {
        res.writeHead(405).end();
        return;
      }
      try {
        if (!(await stat(file)).isFile()) throw new Error("not a file");
        const body = await readFile(file);
        res.writeHead(200, {
          "content-type": TYPES[extname(file)] ?? "application/octet-stream",
          "content-length": body.length,
          "cache-control": "no-store",
        });
        res.end(req.method === "HEAD" ? undefined : body);
        served.set(path, body.length);
      } catch {
        missing.push(path);
        res.writeHead(404, { "content-type": "text/plain" }).end(`no ${path}`);
      }
    })();
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => ok());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    missing,
    served,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

export type BrowserName = "chromium" | "firefox";
export const BROWSERS: BrowserName[] = ["chromium", "firefox"];

/** One browser with one page, the same calls whichever drives it. */
export interface Tab {
  name: BrowserName;
  /** The browser's version string. */
  version: string;
  /** Errors the page reported (console errors, uncaught exceptions, failed requests). */
  errors: string[];
  goto(url: string): Promise<void>;
  /** Runs `fn(arg)` in the page (the function's text: no closures, no imports). */
  evaluate<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** Waits until `fn()` is truthy in the page. */
  waitFor(fn: () => unknown, timeoutMs: number): Promise<void>;
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

/** Launches `name` headless with a 1200 x 800 page. */
export async function openTab(name: BrowserName): Promise<Tab> {
  return name === "chromium" ? openChromium() : openFirefox();
}

async function openChromium(): Promise<Tab> {
  const browser: PwBrowser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in CI has no user namespace sandbox; WebGL through SwiftShader.
    args: ["--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader"],
  });
  try {
    const page: PwPage = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => errors.push(`page: ${e.message}`));
    page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
    return {
      name: "chromium",
      version: browser.version(),
      errors,
      goto: async (url) => {
        await page.goto(url, { waitUntil: "load" });
      },
      evaluate: (fn, arg) => page.evaluate(fn as any, arg) as any,
      waitFor: async (fn, timeoutMs) => {
        await page.waitForFunction(fn, undefined, { timeout: timeoutMs, polling: 100 });
      },
      screenshot: async (path) => {
        await page.screenshot({ path });
      },
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

async function openFirefox(): Promise<Tab> {
  const browser: PpBrowser = await ppLaunch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: true,
    defaultViewport: { width: 1200, height: 800 },
    // WebGL without a GPU or a display: headless Firefox creates no GL context unless
    // told to use EGL's surfaceless platform (Mesa's llvmpipe, Debian's libegl-mesa0).
    extraPrefsFirefox: { "webgl.force-enabled": true, "webgl.out-of-process": false, "gfx.x11-egl.force-enabled": true },
    env: { ...process.env, EGL_PLATFORM: "surfaceless", MOZ_WEBGL_FORCE_EGL: "1" },
  });
  try {
    const page: PpPage = await browser.newPage();
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => errors.push(`page: ${e instanceof Error ? e.message : String(e)}`));
    page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
    return {
      name: "firefox",
      version: await browser.version(),
      errors,
      goto: async (url) => {
        await page.goto(url, { waitUntil: "load" });
      },
      evaluate: (fn, arg) => page.evaluate(fn as any, arg) as any,
      waitFor: async (fn, timeoutMs) => {
        await page.waitForFunction(fn, { timeout: timeoutMs, polling: 100 });
      },
      screenshot: async (path) => {
        await page.screenshot({ path: path as `${string}.png` });
      },
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

/** A `Float64Array`'s little-endian bytes as base64 (Node side). */
export function f64ToB64(a: Float64Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");
}

/** base64 of little-endian doubles back to a `Float64Array` (Node side). */
export function b64ToF64(s: string): Float64Array {
  const b = Buffer.from(s, "base64");
  const out = new Float64Array(b.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = b.readDoubleLE(i * 8);
  return out;
}

/** base64 of little-endian float32s back to a `Float32Array` (Node side). */
export function b64ToF32(s: string): Float32Array {
  const b = Buffer.from(s, "base64");
  const out = new Float32Array(b.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
  return out;
}

/** The bytes of a base64 string (Node side). */
export function b64ToBytes(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, "base64"));
}
