/**
 * "Did you mean" suggestions for every field name and enumeration value of the desired state.
 *
 * A typo is not the only way to miss a name: people abbreviate (`PROD_SERVER` for `PRODUCTION_SERVER`), stop short
 * (`eventType` for `eventTypeName`, `PRODUCTION`), write the label instead of the name (`Production Server`) or
 * another spelling convention (`event_type_name`). Each is a tier below; the first tier with a match decides, so a
 * strong match is never outvoted by a loose one.
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

/** Most candidates one suggestion lists; a tier matching more than this is too ambiguous to suggest anything. */
export const MAX_SUGGESTIONS = 3;

/** The words of a name, lower case: split at `_`, `-`, `.`, spaces and lower-to-upper case changes. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
}

/** The name with case and separators ignored: `Event_Type-Name` and `eventTypeName` both become `eventtypename`. */
function squash(name: string): string {
  return nameWords(name).join('');
}

/** Every input word starts the candidate's word at the same place, and the candidate has no more words. */
function abbreviates(input: readonly string[], candidate: readonly string[]): boolean {
  return input.length === candidate.length && input.every((word, i) => (candidate[i] ?? '').startsWith(word));
}

/** One candidate with what the tiers need, computed once per call. */
interface Candidate {
  name: string;
  lower: string;
  squashed: string;
  words: string[];
}

/** The candidates of the best tier, in the order they were given (ties of a distance tier: the nearest only). */
function bestTier(input: string, candidates: readonly Candidate[]): Candidate[] {
  const lower = input.toLowerCase();
  const squashed = squash(input);
  const words = nameWords(input);
  const distances = new Map(candidates.map((c) => [c, levenshtein(lower, c.lower)]));
  const nearest = (limit: number) => {
    const within = candidates.filter((c) => (distances.get(c) ?? Number.POSITIVE_INFINITY) <= limit);
    const best = Math.min(...within.map((c) => distances.get(c) ?? Number.POSITIVE_INFINITY));
    return within.filter((c) => distances.get(c) === best);
  };
  const tiers: Array<() => Candidate[]> = [
    // The same name in another case or separator style, or the label (`Production Server`).
    () => candidates.filter((c) => squashed !== '' && c.squashed === squashed),
    // One slip of the keyboard.
    () => nearest(1),
    // An abbreviation word by word: PROD_SERVER, evtTypeName is not (evt does not start event).
    () => candidates.filter((c) => words.length > 1 && abbreviates(words, c.words)),
    // A few slips, within a third of the length (at least 2) and fewer than half its letters: unrelated names stay
    // without a suggestion (HOST is two letters from PORT, but it starts HOSTNAME: the next tier's match).
    () => nearest(Math.min(Math.max(2, Math.floor(input.length / 3)), Math.ceil(input.length / 2) - 1)),
    // Stopped short (eventType, PRODUCTION) or went on (intervalMinutes): one name starts the other.
    () =>
      candidates.filter(
        (c) =>
          (squashed.length >= 3 && c.squashed.startsWith(squashed)) ||
          (c.squashed.length >= 4 && squashed.startsWith(c.squashed)),
      ),
    // The last words only (`id` for orgId or projectId, `address` for emailAddress): the qualifier was left out.
    () =>
      candidates.filter(
        (c) =>
          words.length > 0 &&
          c.words.length > words.length &&
          words.every((w, i) => c.words[c.words.length - words.length + i] === w),
      ),
  ];
  for (const tier of tiers) {
    const found = tier().filter((c) => c.name !== input);
    if (found.length > 0) return found;
  }
  return [];
}

/**
 * The candidates `input` most likely meant, best first: empty when nothing is close, or when the best kind of match
 * fits more than {@link MAX_SUGGESTIONS} candidates (`GROUP` starts nine roles: naming one would be a guess).
 */
export function suggestionsFor(input: string, candidates: readonly string[]): string[] {
  if (input === '' || candidates.includes(input)) return [];
  const prepared = [...new Set(candidates)].map((name) => ({
    name,
    lower: name.toLowerCase(),
    squashed: squash(name),
    words: nameWords(name),
  }));
  const found = bestTier(input, prepared);
  return found.length > MAX_SUGGESTIONS ? [] : found.map((c) => c.name);
}

/** The candidate `input` most likely meant, or undefined (see {@link suggestionsFor}). */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  return suggestionsFor(input, candidates)[0];
}

/** `"A"`, `"A" or "B"`, `"A", "B" or "C"`. */
function quotedChoice(names: readonly string[]): string {
  const quoted = names.map((name) => `"${name}"`);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** `; did you mean "X"?` (or `"X" or "Y"`) to append to a message, and the same as a hint; empty when none. */
export function suggestion(input: string, candidates: readonly string[]): { text: string; hint?: string } {
  const names = suggestionsFor(input, candidates);
  if (names.length === 0) return { text: '' };
  const hint = `did you mean ${quotedChoice(names)}?`;
  return { text: `; ${hint}`, hint };
}
