// Loads the native addon built by scripts/build-addon.mjs (terrain_node.node beside
// package.json), typed by the hand-written addon.d.ts.
import { join } from "node:path";
import type * as Addon from "./addon";

/** Path of the addon: TERRAIN_NODE_ADDON when set, else the package's build. */
export const addonPath: string =
  process.env.TERRAIN_NODE_ADDON ?? join(__dirname, "..", "..", "terrain_node.node");

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const addon: typeof Addon = require(addonPath) as typeof Addon;
