/**
 * Adoption under ignoreFields: the same candidates as the planner's ClaimIndex (unowned configs, a renamed key's
 * config), grouped by their canonical text without the members one ignoreFields list names (an ignored metricThreshold
 * keeps its metricName), so that a desired config
 * finds a live one equal to it except in those. One index per distinct list, built when a config first asks for it:
 * a project without ignoreFields builds none.
 */
import type { AlertConfig } from '../opsman/types.ts';
import { ClaimIndex } from './claim-index.ts';
import { adoptionLiveText } from './ignore-fields.ts';

/** ClaimIndexes of one candidate list, one per set of ignored members. */
export class IgnoringIndexes<T> {
  readonly #built = new Map<string, ClaimIndex<T>>();

  /** Arguments as ClaimIndex's, with `configOf` giving each candidate's live config. */
  constructor(
    private readonly items: readonly T[],
    private readonly configOf: (item: T) => AlertConfig,
    private readonly idOf: (item: T) => string,
    private readonly claimed: ReadonlySet<string>,
    private readonly order?: (a: T, b: T) => number,
  ) {}

  /** The index of the candidates by `adoptionLiveText(config, fields)`; claims made since it was built still count. */
  of(fields: readonly string[]): ClaimIndex<T> {
    const key = [...fields].sort().join(',');
    let index = this.#built.get(key);
    if (index === undefined) {
      const entries = this.items.map((item): [string, T] => [adoptionLiveText(this.configOf(item), fields), item]);
      index = new ClaimIndex(entries, this.idOf, this.claimed, this.order);
      this.#built.set(key, index);
    }
    return index;
  }
}
