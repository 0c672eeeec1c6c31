/**
 * Orderings shared by the loader, the cache and the sources: by code unit, never by locale, so that a sort gives the
 * same order on every machine (keys and digests are built from sorted lists).
 */

/** Orders anything with a `path` by that path, code unit by code unit. */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
