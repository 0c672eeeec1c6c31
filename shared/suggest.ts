/**
 * "Did you mean": the closest candidate within a small edit distance. Used by the `opsman-gitops` command and the
 * emulator's own flags alike (it knows nothing of Ops Manager, so sharing it shares no protocol bug).
 */

/** The candidate closest to `input`, when it is within max(1, length/3) edits; else undefined. */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const d = editDistance(input, name);
    if (best === undefined || d < best.distance) best = { name, distance: d };
  }
  return best !== undefined && best.distance <= Math.max(1, Math.floor(input.length / 3)) ? best.name : undefined;
}

/** Optimal-string-alignment distance: edits plus adjacent transpositions (`jsno` is one step from `json`). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}
