/**
 * Whether a value survives JSON.stringify -> JSON.parse unchanged. A cached DesiredState is only written when it
 * does, so a cache hit can never differ from a cold load: values JSON would alter are refused, not fixed up.
 */

/** Deeper than any DesiredState nests; also what stops a cycle (no visited set: it would cost memory per node). */
const MAX_DEPTH = 64;

/**
 * True when `value` is made only of null, booleans, strings, finite numbers other than -0, dense arrays, and plain
 * objects (prototype Object.prototype, no symbol keys, no undefined values), nested at most MAX_DEPTH deep. Anything
 * else (undefined vs absent, NaN and Infinity from YAML `.nan`/`.inf`, -0, Map, Date, class instances, cycles) would
 * not round-trip. A sub-object shared by several parents is fine: it comes back as equal copies.
 */
export function isJsonSafe(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          if (!(i in value) || !isJsonSafe(value[i], depth + 1)) return false;
        }
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      if (Object.getOwnPropertySymbols(value).length > 0) return false;
      for (const key in value) {
        if (!isJsonSafe((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      // undefined, bigint, symbol, function.
      return false;
  }
}
