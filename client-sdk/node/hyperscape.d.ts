// Types of hyperscape.js (for TypeScript resolving `terrain-client/hyperscape` without
// package exports, moduleResolution "node").
export * from "./dist/src/hyperscape";
