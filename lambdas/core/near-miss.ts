/**
 * Why a create did not adopt: adoption takes an unmanaged live config only when it equals the desired one in every
 * non-secret field, so a config made by hand with one field off (disabled, another interval) is not taken over and
 * `apply` makes a second one beside it. Such a near miss is named on the create, with the fields that keep it from
 * matching, so the user can make the YAML equal it (or the live config equal the YAML) before that second alert exists.
 * Only the paths are named, never their values: a field may hold a secret's place.
 */
import type { AlertConfig } from '../opsman/types.ts';
import { diffAlert } from './diff.ts';
import type { NormalAlert } from './normalise.ts';

/** At most this many unmanaged configs of the event type are compared with one create (one diff each). */
export const NEAR_MISS_CANDIDATES = 20;

/**
 * At most this many comparisons per project: thousands of creates beside thousands of unmanaged configs of their type
 * (a first run over hand-written YAML) would otherwise cost seconds for a hint. Creates past it get no note.
 */
export const NEAR_MISS_BUDGET = 2_000;

/** A config differing in more fields than this is another alert, not a near miss of this one. */
export const NEAR_MISS_MAX_FIELDS = 3;

/** An unmanaged live config a create could have adopted, with its normal form (computed on first use). */
export interface NearMissCandidate {
  config: AlertConfig;
  normal: () => NormalAlert;
}

/** Whether `path` is, or lies under, one of the members the desired config ignores. */
function ignoredPath(path: string, ignored: readonly string[]): boolean {
  return ignored.some((member) => path === member || path.startsWith(`${member}.`));
}

/** The unmanaged configs of one project, grouped by event type, and what is left of the project's budget. */
export class NearMissFinder {
  readonly #byType = new Map<string, NearMissCandidate[]>();
  #budget: number;

  /** `candidates`: the project's unmanaged live configs (neither owned nor claimed by a key). */
  constructor(candidates: readonly NearMissCandidate[], budget = NEAR_MISS_BUDGET) {
    this.#budget = budget;
    for (const c of candidates) {
      const list = this.#byType.get(c.config.eventTypeName);
      if (list === undefined) this.#byType.set(c.config.eventTypeName, [c]);
      else list.push(c);
    }
    for (const list of this.#byType.values()) {
      list.sort((a, b) => (a.config.id < b.config.id ? -1 : a.config.id > b.config.id ? 1 : 0));
      list.length = Math.min(list.length, NEAR_MISS_CANDIDATES);
    }
  }

  /** Whether a create of this event type could get a note (some candidate of the type, budget left). */
  covers(eventTypeName: string): boolean {
    return this.#budget > 0 && this.#byType.has(eventTypeName);
  }

  /**
   * The note appended to a create's reason when an unmanaged config of its event type differs from it in few fields:
   * the one differing in the fewest non-ignored fields (at most NEAR_MISS_MAX_FIELDS; the lower id on a
   * tie) among the first NEAR_MISS_CANDIDATES of that type in id order. Undefined when there is none, or when the
   * budget is spent. A candidate differing in no such field is not a near miss (adoption looked at it and something
   * else decided, such as a claim by another key).
   */
  noteFor(desired: NormalAlert, ignored: readonly string[] = []): string | undefined {
    let best: { id: string; paths: string[] } | undefined;
    for (const candidate of this.#byType.get(desired.eventTypeName) ?? []) {
      if (this.#budget <= 0) break;
      this.#budget--;
      const paths = [
        ...new Set(
          // A secret's path is named when live lacks it (adoption compares its presence); its value never is, and
          // normal forms hold no secret values, so a replaced secret is no difference here.
          diffAlert(desired, candidate.normal())
            .filter((f) => !ignoredPath(f.path, ignored))
            .map((f) => f.path),
        ),
      ];
      if (paths.length === 0 || paths.length > NEAR_MISS_MAX_FIELDS) continue;
      if (best === undefined || paths.length < best.paths.length) best = { id: candidate.config.id, paths };
    }
    if (best === undefined) return undefined;
    return `; unmanaged ${desired.eventTypeName} config ${best.id} differs only in ${best.paths.join(', ')} (YAML equal to it would adopt it, not add a second)`;
  }
}
