// `terrain-client/follow`: a follower of one world's zones over HTTP and the events
// WebSocket, for runtimes without gRPC (browsers; Node running the WebAssembly
// build). It uses only `fetch` and a `WebSocket` constructor: nothing from Node.
export { Follower } from "./follower.js";
export { FollowError, type FollowErrorCode } from "./http.js";
export type {
  FetchLike,
  FollowerEvent,
  FollowerOptions,
  TileEvent,
  WebSocketConstructor,
  WebSocketLike,
  WorldInfo,
  ZoneDocument,
  ZoneSink,
} from "./types.js";
