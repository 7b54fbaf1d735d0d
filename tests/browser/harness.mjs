// What the browser tests share: the real server binary on 127.0.0.1 with a free port,
// Debian's /usr/bin/chromium (driven by playwright-core, WebGL by SwiftShader), a page
// whose console errors, page errors, failed requests and HTTP errors are collected (the
// run fails on any), and the checks and screenshots.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where screenshots go. */
export const shots = join(repo, 'target', 'browser');

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function check(ok, what) {
  if (!ok) throw new Error(`FAILED: ${what}`);
  console.log(`ok - ${what}`);
}

async function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** Distinct colours among a sample of the 3-D view's canvas pixels (a blank canvas has 1). */
export function viewerColours(page) {
  return page.evaluate(() => {
    const src = document.getElementById('viewer3d-canvas');
    const c = document.createElement('canvas');
    c.width = src.width;
    c.height = src.height;
    const g = c.getContext('2d');
    g.drawImage(src, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const set = new Set();
    for (let i = 0; i < d.length; i += 4 * 53) set.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return set.size;
  });
}

/**
 * Waits until the open 3-D view of the whole world has drawn a few frames with nothing
 * left to load (the renderer's queues empty, no reload pending); fails naming `what`
 * after `seconds`.
 */
export async function settle3d(page, what, seconds) {
  const start = await page.evaluate(() => window.terrainMap.view3d.frames());
  await page.waitForFunction((n) => {
    const v = window.terrainMap.view3d;
    return v.frames() > n + 3 && !v.loading();
  }, start, { timeout: seconds * 1000, polling: 100 }).catch((e) => {
    throw new Error(`${what}: contents still loading after ${seconds} s (${e.message})`);
  });
}

/**
 * Runs `body({ origin, api, page, errors, shot })` against the server binary named by
 * the command line (or TERRAIN_SERVER_BIN) serving `worlds` (`--world` values), once it
 * is ready, with a 1200 x 800 page; then checks that no error was collected. The
 * browser, the server and its data directory go whatever happens.
 */
export async function run(name, worlds, body) {
  const bin = process.argv[2] ?? process.env.TERRAIN_SERVER_BIN;
  if (!bin) throw new Error(`usage: node ${name}.test.mjs path/to/terrain-server`);
  mkdirSync(shots, { recursive: true });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const data = mkdtempSync(join(tmpdir(), `terrain-${name}-`));
  const server = spawn(bin, ['--listen', `127.0.0.1:${port}`, '--data-dir', data,
    ...worlds.flatMap((w) => ['--world', w])], { stdio: ['ignore', 'inherit', 'inherit'] });
  const errors = [];
  let browser;

  async function api(method, path, body) {
    const r = await fetch(origin + path, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return text;
  }

  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${origin}/readyz`)).ok) break;
      } catch { /* not listening yet */ }
      if (i > 600) throw new Error('server not ready in 60 s');
      await sleep(100);
    }
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless=new', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox'],
    });
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      else if (process.env.MAP_TEST_VERBOSE) console.log(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    // A request of a document the page has since left (a poll in flight, or sent while
    // the next page loaded, as a test opens another world's map) is cancelled by the
    // browser: ERR_ABORTED is a failure only for a request of the current document.
    // Counted once all events are in, as the cancellations may come before the commit.
    let documents = 0;
    let loading = false;
    const openedIn = new WeakMap();
    const aborted = [];
    page.on('request', (r) => {
      if (r.isNavigationRequest() && r.frame() === page.mainFrame()) loading = true;
      else openedIn.set(r, documents);
    });
    page.on('framenavigated', (f) => {
      // A new document, not a change of the fragment (which sends no request).
      if (f === page.mainFrame() && loading) {
        loading = false;
        documents++;
      }
    });
    page.on('requestfailed', (r) => {
      const error = r.failure()?.errorText;
      const failure = `request failed: ${r.url()} ${error}`;
      if (error === 'net::ERR_ABORTED' && openedIn.has(r)) aborted.push({ failure, document: openedIn.get(r) });
      else errors.push(failure);
    });
    page.on('response', (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
    const shot = (file) => page.screenshot({ path: join(shots, `${file}.png`) });

    await body({ origin, api, page, errors, shot });
    errors.push(...aborted.filter((a) => a.document === documents).map((a) => a.failure));

    check(errors.length === 0, `no console error and no failed request${errors.length ? ':\n  ' + errors.join('\n  ') : ''}`);
    console.log(`screenshots in ${shots}`);
  } catch (e) {
    console.error(`errors seen so far:\n  ${errors.join('\n  ')}`);
    throw e;
  } finally {
    if (browser) await browser.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(data, { recursive: true, force: true });
  }
}
