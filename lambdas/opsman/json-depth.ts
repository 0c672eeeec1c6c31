/**
 * A bound on how deeply a parsed answer nests. JSON.parse reads any depth, but everything after it that walks a value
 * (normalisation, canonical JSON, digests, state) recurses, and an answer nested some thousands of levels deep would
 * overflow the stack there as a bare RangeError, far from the request that brought it. No Ops Manager answer nests
 * more than a dozen levels, so a deep one is refused where it is read, naming its route.
 */

/** Deepest nesting accepted in an answer (the same bound as the desired state's: core/desired/json-safe.ts). */
export const MAX_ANSWER_DEPTH = 64;

/**
 * Whether `value` (a parsed JSON value) nests objects and arrays more than `max` levels deep. Iterative, so it cannot
 * overflow the stack itself; each member is visited once.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_ANSWER_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > max) return true;
    const members: unknown[] = Array.isArray(current) ? current : Object.values(current);
    for (const member of members) {
      if (member !== null && typeof member === 'object') {
        values.push(member);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The message part for an answer refused by {@link nestsDeeperThan}. */
export const TOO_DEEP = `nests objects and arrays more than ${MAX_ANSWER_DEPTH} levels deep (no Ops Manager answer does)`;
