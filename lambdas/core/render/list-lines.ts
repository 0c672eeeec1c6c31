/**
 * A change of a list field shown element by element, as `terraform plan` shows a list: only the elements added (`+`),
 * removed (`-`) or changed (`~ before -> after`), never both whole lists for one matcher that differs.
 */
import { isRecord } from '../../../shared/is-record.ts';
import { canonicalJson } from '../canonical.ts';
import { formatValue } from './values.ts';

/** One element's change: added (`before` absent), removed (`after` absent) or changed (both). */
interface ElementChange {
  before?: unknown;
  after?: unknown;
}

/**
 * What pairs a removed element with an added one as one element changed: a matcher's `fieldName` (`TYPE_NAME`
 * EQUALS PRIMARY -> SECONDARY). Elements without it (a role, a list of scalars) are only ever added or removed.
 */
function elementIdentity(element: unknown): string | undefined {
  if (!isRecord(element)) return undefined;
  const name = (element as Record<string, unknown>).fieldName;
  return typeof name === 'string' ? name : undefined;
}

/** `list` less the elements of `other` (each matched once, by canonical JSON), in `list`'s order. */
function without(list: readonly unknown[], other: readonly unknown[]): unknown[] {
  const left = new Map<string, number>();
  for (const element of other) {
    const text = canonicalJson(element);
    left.set(text, (left.get(text) ?? 0) + 1);
  }
  return list.filter((element) => {
    const text = canonicalJson(element);
    const n = left.get(text) ?? 0;
    if (n === 0) return true;
    left.set(text, n - 1);
    return false;
  });
}

/**
 * The elements that differ between two lists, unordered (both sides are normalised, sorted lists): equal elements are
 * left out, a removed and an added element of one identity are paired as changed (in list order), and the rest are
 * added or removed. Deterministic: changed and added follow `after`'s order, then removed follow `before`'s.
 */
export function listElementChanges(before: readonly unknown[], after: readonly unknown[]): ElementChange[] {
  const removed = without(before, after);
  const added = without(after, before);
  const out: ElementChange[] = [];
  const paired = new Set<number>();
  for (const element of added) {
    const id = elementIdentity(element);
    const i = id === undefined ? -1 : removed.findIndex((r, j) => !paired.has(j) && elementIdentity(r) === id);
    if (i < 0) {
      out.push({ after: element });
    } else {
      paired.add(i);
      out.push({ before: removed[i], after: element });
    }
  }
  removed.forEach((element, j) => {
    if (!paired.has(j)) out.push({ before: element });
  });
  return out;
}

/**
 * `path: + element`, `path: - element`, `path: ~ before -> after`: one line per element that differs. Values are
 * formatted (and masked) like any other. Lists that hold the same elements in another order (never two normalised
 * lists) read as both whole lists: an order change is still shown.
 */
export function listChangeLines(path: string, before: readonly unknown[], after: readonly unknown[]): string[] {
  const changes = listElementChanges(before, after);
  if (changes.length === 0) return [`${path}: ${formatValue(before)} -> ${formatValue(after)}`];
  return changes.map((c) => {
    if (!('before' in c)) return `${path}: + ${formatValue(c.after)}`;
    if (!('after' in c)) return `${path}: - ${formatValue(c.before)}`;
    return `${path}: ~ ${formatValue(c.before)} -> ${formatValue(c.after)}`;
  });
}
