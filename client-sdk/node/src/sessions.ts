// The HTTP/2 connections of a TerrainClient: Connect's session manager (one connection,
// reopened as needed, with keepalive PINGs when asked), each session it hands out given
// an `error` listener of its own.
//
// Why: when a keepalive PING goes unanswered, Connect destroys the session with an
// error, and Node emits that error only after the session's streams have closed, by
// which time Connect has stopped listening to the session. An `error` event with no
// listener is raised as an uncaught exception, which ends the process: a game server
// would go down because its terrain connection died. The listener added here ignores
// the event; the session's calls and streams still fail with the error (UNAVAILABLE),
// so reads retry and a Subscription reconnects.
import type http2 from "node:http2";

import { Http2SessionManager } from "@connectrpc/connect-node";

/** A session manager for `createGrpcTransport`'s `sessionManager` (see the module comment). */
export class GuardedSessions {
  private readonly sessions: Http2SessionManager;
  private readonly guarded = new WeakSet<http2.Http2Session>();

  /** Connections to `url`; `keepaliveMs` 0 sends no PINGs; `options` go to `http2.connect`. */
  constructor(url: string, keepaliveMs: number, options: http2.SecureClientSessionOptions) {
    const pings = keepaliveMs > 0 ? { pingIntervalMs: keepaliveMs, pingTimeoutMs: keepaliveMs } : {};
    this.sessions = new Http2SessionManager(url, pings, options);
  }

  get authority(): string {
    return this.sessions.authority;
  }

  async request(
    method: string,
    path: string,
    headers: http2.OutgoingHttpHeaders,
    options: Omit<http2.ClientSessionRequestOptions, "signal">,
  ): Promise<http2.ClientHttp2Stream> {
    const stream = await this.sessions.request(method, path, headers, options);
    const session = stream.session;
    if (session !== undefined && !this.guarded.has(session)) {
      this.guarded.add(session);
      session.on("error", () => {});
    }
    return stream;
  }

  notifyResponseByteRead(stream: http2.ClientHttp2Stream): void {
    this.sessions.notifyResponseByteRead(stream);
  }
}
