// The argument checks of the package's public methods, in one place: every refusal
// is a TypeError (not the kind of value the method takes) or a RangeError (the right
// kind, out of range) whose message starts with the argument's name (`x: expected a
// number, got string "12"`) and which carries it as `field`, as the server's errors
// name their fields. `LocalTerrain` (src/native.ts) and `HyperscapeTerrain`
// (src/hyperscape.ts) check through these, so the same mistake gets the same answer
// from either.

/** An error of the package that names the argument at fault (`field`). */
export type ArgumentError = (TypeError | RangeError | Error) & { field: string };

type Kind = ErrorConstructor | TypeErrorConstructor | RangeErrorConstructor;

/** An error of kind `kind` with `message` as it is, naming `field`. */
export function fieldError(message: string, field: string, kind: Kind = Error): ArgumentError {
  const e = new kind(message) as ArgumentError;
  e.field = field;
  return e;
}

/** An error of kind `kind` saying `message` about argument `field` (`where`, when
 * given, is put first: the method, as the Hyperscape adapter's errors say it). */
export function argumentError(kind: Kind, field: string, message: string, where?: string): ArgumentError {
  return fieldError(`${where === undefined ? "" : `${where}: `}${field}: ${message}`, field, kind);
}

/** What `v` is, for a message: its type and, for a short primitive, its value. */
export function describe(v: unknown): string {
  switch (typeof v) {
    case "string":
      return `string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
    case "bigint":
      return `bigint ${v}n`;
    case "number":
    case "boolean":
      return `${typeof v} ${String(v)}`;
    case "undefined":
      return "undefined";
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
    default: {
      if (v === null) return "null";
      let text: string | undefined;
      try {
        text = JSON.stringify(v);
      } catch {
        // a BigInt inside, or a cycle
      }
      if (text !== undefined && text.length <= 60) return text;
      return Array.isArray(v) ? "an array" : `an object (${Object.prototype.toString.call(v).slice(8, -1)})`;
    }
  }
}

/** `v` when it is a number (NaN and infinities included: what a method does with them
 * is its own rule), else a TypeError naming `field`. */
export function numberArg(field: string, v: unknown, where?: string): number {
  if (typeof v !== "number") throw argumentError(TypeError, field, `expected a number, got ${describe(v)}`, where);
  return v;
}

/** Each of `values` a number (`names[i]` naming it), else a TypeError naming the first
 * that is not. */
export function numberArgs(names: readonly string[], values: readonly unknown[], where?: string): void {
  for (let i = 0; i < names.length; i++) {
    if (typeof values[i] !== "number") numberArg(names[i]!, values[i], where);
  }
}

/** `v` when it is a whole number from `min` to `max`: else a TypeError (not a number)
 * or a RangeError, naming `field`. */
export function wholeArg(field: string, v: unknown, min: number, max: number, where?: string): number {
  const n = numberArg(field, v, where);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw argumentError(RangeError, field, `must be a whole number from ${min} to ${max}, got ${n}`, where);
  }
  return n;
}

/** `v` when it is a string, else a TypeError naming `field`. */
export function stringArg(field: string, v: unknown, where?: string): string {
  if (typeof v !== "string") throw argumentError(TypeError, field, `expected a string, got ${describe(v)}`, where);
  return v;
}

/** `v` when it is a boolean, else a TypeError naming `field`. */
export function booleanArg(field: string, v: unknown, where?: string): boolean {
  if (typeof v !== "boolean") throw argumentError(TypeError, field, `expected a boolean, got ${describe(v)}`, where);
  return v;
}

/** `v` when it is a `Float64Array`, else a TypeError naming `field`. */
export function pointsArg(field: string, v: unknown, where?: string): Float64Array {
  if (!(v instanceof Float64Array)) {
    throw argumentError(TypeError, field, `expected a Float64Array of x, z pairs, got ${describe(v)}`, where);
  }
  return v;
}

/** `v` when it is a plain object (or absent: `undefined` or `null`), else a TypeError
 * naming `field`. */
export function optionsArg(field: string, v: unknown, where?: string): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) {
    throw argumentError(TypeError, field, `expected an object, got ${describe(v)}`, where);
  }
  return v as Record<string, unknown>;
}

/** The addon's refusal `e` (`field: why`, crate terrain-node's errors) as an error of
 * kind `kind` naming the field (`rename` maps the addon's name of it to the caller's);
 * `prefix` goes before the field's name in the message (`invalid ` for the Hyperscape
 * adapter's zone errors, in the original's words). Anything else is passed on. */
export function refusal(e: unknown, where: string, kind: Kind, rename?: (field: string) => string, prefix = ""): unknown {
  const message = e instanceof Error ? e.message : String(e);
  const m = /^([A-Za-z0-9_.[\]]+): (.*)$/s.exec(message);
  if (!m) return e;
  const field = rename ? rename(m[1]!) : m[1]!;
  return fieldError(`${where}: ${prefix}${field}: ${m[2]}`, field, kind);
}

/** The answer `h` of a point read of the WebAssembly module, which answers NaN for a
 * point it refuses (a plain number is cheaper to return than an error): then
 * `module.refusal` throws why, naming the axis (`x: must be finite`). */
export function moduleAnswer(h: number, module: { refusal(x: number, z: number): number }, x: number, z: number): number {
  return h === h ? h : module.refusal(x, z);
}
