import { B3DMLoaderBase as e, CMPTLoaderBase as r, I3DMLoaderBase as o, PNTSLoaderBase as L, TilesRendererBase as E } from "./index.core.js";
import { L as d, a as l, T as t } from "./LoaderBase-CfTLVHyZ.js";
import { F as M, c as A, a as B, L as D, b as G, P as n, U as I, d as C, e as R, W as P } from "./constants-BPcXltxX.js";
import { B as U, C as m, a as N, E as p, G as O, I as _, P as F, T as W } from "./CameraTransitionManager-CMaqw78S.js";
import { C as x, E as b, a as c, b as g, G as u, M as v, c as y, O as H, W as h } from "./MemoryUtils-DPE4VZ3R.js";
export {
  U as B3DMLoader,
  e as B3DMLoaderBase,
  x as CAMERA_FRAME,
  m as CMPTLoader,
  r as CMPTLoaderBase,
  N as CameraTransitionManager,
  b as ENU_FRAME,
  c as Ellipsoid,
  g as EllipsoidRegion,
  p as EnvironmentControls,
  M as FAILED,
  u as GeoUtils,
  O as GlobeControls,
  _ as I3DMLoader,
  o as I3DMLoaderBase,
  A as LOADED,
  B as LOADING,
  D as LRUCache,
  d as LoaderBase,
  l as LoaderUtils,
  v as MemoryUtils,
  y as OBB,
  H as OBJECT_FRAME,
  G as PARSING,
  F as PNTSLoader,
  L as PNTSLoaderBase,
  n as PriorityQueue,
  W as TilesRenderer,
  E as TilesRendererBase,
  t as TraversalUtils,
  I as UNLOADED,
  h as WGS84_ELLIPSOID,
  C as WGS84_FLATTENING,
  R as WGS84_HEIGHT,
  P as WGS84_RADIUS
};
//# sourceMappingURL=index.js.map
