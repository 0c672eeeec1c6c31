/**
 * "Did you mean" suggestions: the closest candidate by Levenshtein distance, when it is close enough to be a typo.
 */

/** Edit distance between two strings (insertions, deletions, substitutions). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate closest to `input` (case-insensitively), or undefined when none is within a third of the input's
 * length (at least 2 edits allowed), so unrelated names get no suggestion.
 */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = levenshtein(needle, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  if (!best || best.candidate === input) return undefined;
  const allowed = Math.max(2, Math.floor(input.length / 3));
  return best.distance <= allowed ? best.candidate : undefined;
}

/** `; did you mean "X"?` or an empty string. */
export function suggestion(input: string, candidates: readonly string[]): { text: string; hint?: string } {
  const match = didYouMean(input, candidates);
  return match ? { text: `; did you mean "${match}"?`, hint: `did you mean "${match}"?` } : { text: '' };
}
