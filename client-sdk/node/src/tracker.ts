// ViewerTracker: one TrackViewers stream (bidirectional), as the Rust SDK's
// (client-sdk/src/lifecycle.rs). Report viewers with `upsert` and `remove`, read the
// world's lifecycle events (a `snapshot` first, then `transitions`, and `rejected` for
// a refused update) with `next()` or `for await`. The stream's viewers are removed when
// it closes. It does not reconnect: after an error, open a new one and report the
// viewers again (its first message is a fresh snapshot). The server ends a stream that
// sends nothing for its `viewer_ttl` (60 s by default): a viewer standing still
// re-sends its position at least that often.
import type { MessageInitShape } from "@bufbuild/protobuf";

import type { TerrainClient } from "./client";
import type { LifecycleEvent, ViewerSchema, ViewerUpdateSchema } from "./gen/terrain/v1/lifecycle_pb";

/** A viewer: `{ id, x, z, viewWidth, viewDepth, velocityX?, velocityZ? }`. */
export type Viewer = MessageInitShape<typeof ViewerSchema>;

type UpdateInit = MessageInitShape<typeof ViewerUpdateSchema>;

/** An unbounded async queue of requests that ends when closed. */
class Outbox implements AsyncIterable<UpdateInit> {
  private readonly queued: UpdateInit[] = [];
  private wake: (() => void) | undefined;
  private ended = false;

  push(update: UpdateInit): void {
    if (this.ended) throw new Error("viewer stream closed");
    this.queued.push(update);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  get closed(): boolean {
    return this.ended;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<UpdateInit> {
    for (;;) {
      const next = this.queued.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((ok) => {
        this.wake = ok;
      });
      this.wake = undefined;
    }
  }
}

/** A TrackViewers stream of one world; see the module comment. */
export class ViewerTracker implements AsyncIterable<LifecycleEvent> {
  private readonly events: AsyncIterator<LifecycleEvent>;

  private constructor(
    readonly world: string,
    private readonly outbox: Outbox,
    events: AsyncIterable<LifecycleEvent>,
    private readonly abort: AbortController,
  ) {
    this.events = events[Symbol.asyncIterator]();
  }

  /** Opens a TrackViewers stream for `world` (reporting viewers on it needs the admin token
   * when the server has one; a stream that only listens needs none). */
  static open(client: TerrainClient, world: string): ViewerTracker {
    const outbox = new Outbox();
    // The first message names the world and changes nothing.
    outbox.push({ world });
    const abort = new AbortController();
    const events = client.trackViewers(outbox, { signal: abort.signal });
    return new ViewerTracker(world, outbox, events, abort);
  }

  /** Adds or moves a viewer; a refusal comes back as a `rejected` event. */
  upsert(viewer: Viewer): void {
    this.outbox.push({ world: this.world, update: { case: "upsert", value: viewer } });
  }

  /** Removes a viewer this stream reported. */
  remove(id: string): void {
    this.outbox.push({ world: this.world, update: { case: "remove", value: id } });
  }

  /** The next lifecycle event, or `undefined` once the server ended the stream. */
  async next(): Promise<LifecycleEvent | undefined> {
    const r = await this.events.next();
    return r.done ? undefined : r.value;
  }

  /** Ends the stream (the server drops its viewers). Idempotent. */
  close(): void {
    if (!this.outbox.closed) this.outbox.end();
    this.abort.abort();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LifecycleEvent> {
    for (;;) {
      const event = await this.next();
      if (event === undefined) return;
      yield event;
    }
  }
}
