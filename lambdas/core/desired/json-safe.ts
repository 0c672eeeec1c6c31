/**
 * Whether a value survives JSON.stringify -> JSON.parse unchanged. A cached DesiredState is only written when it
 * does, so a cache hit can never differ from a cold load: values JSON would alter are refused, not fixed up.
 */

/**
 * True when `value` is made only of null, booleans, strings, finite numbers other than -0, dense arrays, and plain
 * objects (prototype Object.prototype, no symbol keys, no undefined values). Anything else (undefined vs absent,
 * NaN and Infinity from YAML `.nan`/`.inf`, -0, Map, Date, class instances) would not round-trip.
 */
export function isJsonSafe(value: unknown): boolean {
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case 'string':
      case 'boolean':
        continue;
      case 'number':
        if (!Number.isFinite(v) || Object.is(v, -0)) return false;
        continue;
      case 'object': {
        if (v === null) continue;
        // A shared sub-object is fine (it becomes an equal copy). A cycle is skipped here: JSON.stringify refuses it.
        if (seen.has(v)) continue;
        seen.add(v);
        if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++) {
            if (!(i in v)) return false;
            stack.push(v[i]);
          }
          continue;
        }
        if (Object.getPrototypeOf(v) !== Object.prototype) return false;
        if (Object.getOwnPropertySymbols(v).length > 0) return false;
        for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
        continue;
      }
      default:
        // undefined, bigint, symbol, function.
        return false;
    }
  }
  return true;
}
