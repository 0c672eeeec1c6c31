/**
 * A gate that lets one notice through per quiet period: many requests stall (or wait to retry) together when Ops
 * Manager hangs (or throttles), and one line says it as well as eight, where a line each would bury everything else.
 */

/** Returns a check that is true at most once per `quietMs` (the first call always), by the clock `now`. */
export function quietGate(quietMs: number, now: () => number = Date.now): () => boolean {
  let lastAt = Number.NEGATIVE_INFINITY;
  return () => {
    const at = now();
    if (at - lastAt < quietMs) return false;
    lastAt = at;
    return true;
  };
}
