/**
 * Orderings shared by the loader, the cache and the sources: by code unit, never by locale, so that a sort gives the
 * same order on every machine (keys and digests are built from sorted lists).
 */

/** Orders anything with a `path` by that path, code unit by code unit. */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** The run of ASCII digits in `s` starting at `i`: where it ends. */
function digitsEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
  return j;
}

/**
 * Orders strings code unit by code unit, except that runs of digits compare as numbers (`host-down-2` before
 * `host-down-10`, as `export` numbers its keys); strings equal so (`x-02`, `x-2`) fall back to plain code-unit order.
 * Locale-free, like byPath.
 */
export function byNumberedText(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const endA = digitsEnd(a, i);
    const endB = digitsEnd(b, j);
    if (endA > i && endB > j) {
      const x = a.slice(i, endA).replace(/^0+/, '');
      const y = b.slice(j, endB).replace(/^0+/, '');
      if (x.length !== y.length) return x.length - y.length;
      if (x !== y) return x < y ? -1 : 1;
      i = endA;
      j = endB;
      continue;
    }
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (ca !== cb) return ca - cb;
    i++;
    j++;
  }
  if (i < a.length || j < b.length) return i < a.length ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}
