/**
 * Candidates grouped by canonical text, for the planner's "which live config equals this desired one" questions
 * (adoption of an unowned config, a renamed key's config). Built once per project: looking a text up costs the size
 * of its group, not a scan of every live config for every desired key (which was quadratic in a project's configs).
 */

/** One text's candidates in their fixed order, and how many at the front are known to be claimed. */
interface Group<T> {
  items: T[];
  claimedBefore: number;
}

/** Candidates of each text, in the order given (stable within a text), minus the ones claimed since. */
export class ClaimIndex<T> {
  readonly #groups = new Map<string, Group<T>>();
  readonly #idOf: (item: T) => string;
  readonly #claimed: ReadonlySet<string>;

  /**
   * `claimed` is the planner's live set of claimed ids: an item whose id it holds is never returned. `order`, when
   * given, sorts each text's candidates (a stable sort, so ties keep the order they were added in).
   */
  constructor(
    entries: Iterable<readonly [text: string, item: T]>,
    idOf: (item: T) => string,
    claimed: ReadonlySet<string>,
    order?: (a: T, b: T) => number,
  ) {
    this.#idOf = idOf;
    this.#claimed = claimed;
    for (const [text, item] of entries) {
      const group = this.#groups.get(text);
      if (group === undefined) this.#groups.set(text, { items: [item], claimedBefore: 0 });
      else group.items.push(item);
    }
    if (order !== undefined) for (const group of this.#groups.values()) group.items.sort(order);
  }

  /** The first unclaimed candidate of `text`, or undefined. */
  first(text: string): T | undefined {
    const group = this.#groups.get(text);
    if (group === undefined) return undefined;
    // Claimed items at the front are skipped once and for all: a claim is never undone during a plan.
    while (group.claimedBefore < group.items.length) {
      const item = group.items[group.claimedBefore] as T;
      if (!this.#claimed.has(this.#idOf(item))) return item;
      group.claimedBefore++;
    }
    return undefined;
  }

  /** Every unclaimed candidate of `text`, in order. */
  all(text: string): T[] {
    if (this.first(text) === undefined) return [];
    const group = this.#groups.get(text) as Group<T>;
    return group.items.slice(group.claimedBefore).filter((item) => !this.#claimed.has(this.#idOf(item)));
  }
}
