// `waitForRevision` as every replica of the package answers it (the native addon's
// messages): the arguments checked before a promise exists, then the follower's wait
// bounded by a timeout. Shared by Node over WebAssembly (src/wasm.ts, src/wasm-follow.ts)
// and the browser entry (src/web/link.ts); no runtime-specific imports.

/** The longest timeout an option may give (one hour), as the native addon's. */
export const MAX_TIMEOUT_MS = 3_600_000;

/** How long `waitForRevision` waits when not told: 30 s, the SDK's request timeout. */
export const DEFAULT_WAIT_MS = 30_000;

/** Throws unless `ms` is a whole number of milliseconds from 1 to an hour, naming `field`. */
export function checkTimeoutMs(field: string, ms: unknown): void {
  if (!(Number.isInteger(ms) && (ms as number) >= 1 && (ms as number) <= MAX_TIMEOUT_MS)) {
    throw new Error(`${field}: must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${String(ms)}`);
  }
}

/** `waitForRevision`'s arguments checked: the timeout to use. */
export function checkWait(revision: number, timeoutMs: number | null | undefined): number {
  if (!(Number.isInteger(revision) && revision >= 0 && revision <= Number.MAX_SAFE_INTEGER)) {
    throw new Error(`revision: must be a whole number from 0 to 2^53 - 1, got ${revision}`);
  }
  const wait = timeoutMs ?? DEFAULT_WAIT_MS;
  checkTimeoutMs("timeoutMs", wait);
  return wait;
}

/** `reached` (a follower's wait for `revision`), rejected once `timeoutMs` passes,
 * naming the revision `at()` then reports. */
export function within(revision: number, timeoutMs: number, reached: Promise<number>, at: () => number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`revision ${revision}: not reached within ${timeoutMs} ms (the replica is at ${at()}; is the server reachable?)`),
        ),
      timeoutMs,
    );
    reached.then(
      (r) => {
        clearTimeout(timer);
        resolve(r);
      },
      (e: Error) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
