/**
 * Update-fight bookkeeping. Per managed object (an alert config, a default server type, an audit-log rotation), the
 * state keeps the run of consecutive applies that found it changed outside this tool (drift) and put it back, with the
 * actors and field paths common to all of those runs. Another automation changing the same object makes this run grow
 * by one on every apply; at FIGHT_RUNS the plan and the report say so (fight-notice.ts). Only objects with a streak
 * are kept, and an apply that finds the object without drift forgets it.
 */
import type { Change, ChangeResult, Plan, TargetRef } from './model.ts';
import { targetKey } from './model.ts';
import type { DriftStreak, ReconcileState } from './ports.ts';
import { organizationState, projectState } from './state.ts';
import { differingPaths } from './unmodelled.ts';

/**
 * Consecutive runs finding an object changed outside this tool after it put the object back, from which the plan and
 * the report warn of an update fight: the third apply that reverts the same kind of change warns, the first two do
 * not (one drift is a hand edit; two can be a coincidence; three in a row is something that will not stop).
 */
export const FIGHT_RUNS = 3;

/** Most field paths a streak keeps (the first in sorted order): a config rewritten whole must not grow the state. */
export const MAX_STREAK_FIELDS = 20;

/** Longest actor name or field path kept; a longer one is cut, the same way every run, so streaks still compare. */
export const MAX_STREAK_TEXT = 200;

/** The field a streak names for an owned object deleted outside this tool (put back by a create). */
export const DELETED_FIELD = '(deleted)';

/** Writes that put a drifted object back as git has it (a delete does not: the object leaves for good). */
const REVERTING: ReadonlySet<string> = new Set(['create', 'update', 'enable', 'disable']);

/** The key of an object in `driftStreaks`: `alertConfig:<key>`, or the singleton's kind. */
export function streakKey(change: Pick<Change, 'kind' | 'key'>): string {
  return change.kind === 'alertConfig' ? `alertConfig:${change.key}` : change.kind;
}

/** True when `change` is a drift this run would put back (so a streak grows when its write is applied). */
export function revertsDrift(change: Change): boolean {
  return change.drift?.detected === true && REVERTING.has(change.action) && change.target.type !== 'global';
}

/**
 * True for an owned alert config whose key left git: its delete, or that delete turned into `blocked` by a safety gate
 * (prune off, protect, maxDeletes), the one blocked change without a desired body (`after`). Such a config keeps
 * differing from what this tool last wrote once the other writer has it, so keeping its streak while that drift stands
 * would keep it for as long as the delete is blocked, and count on from it if the key came back to git.
 */
function leftGit(change: Change): boolean {
  return change.action === 'delete' || (change.action === 'blocked' && change.after === undefined);
}

const cut = (text: string) => (text.length > MAX_STREAK_TEXT ? text.slice(0, MAX_STREAK_TEXT) : text);

/** Distinct, sorted, cut. */
function distinct(values: readonly string[]): string[] {
  return [...new Set(values.map(cut))].sort();
}

/**
 * The actors drift attribution named for `change`, as `apiKey:<publicKey>`, `user:<name>`, or `ownKey:<publicKey>` for
 * this tool's key used outside its runs. An event naming no one says nothing of who, and is left out; so is a key
 * named by its id alone (`keyIdOnly`), which may be this tool's own: its reverts would read as the other writer.
 */
export function streakActors(change: Change): string[] {
  return distinct(
    (change.drift?.attribution ?? []).flatMap((a) => {
      if (a.actorType === 'unknown' || a.keyIdOnly === true) return [];
      return [`${a.viaOwnKey === true ? 'ownKey' : a.actorType}:${a.actor}`];
    }),
  );
}

/** The field paths that differ in `change` (paths only: never a value), or DELETED_FIELD for a re-create. */
export function streakFields(change: Change): string[] {
  const paths = distinct(differingPaths(change.fields));
  if (paths.length === 0 && change.action === 'create') return [DELETED_FIELD];
  return paths.slice(0, MAX_STREAK_FIELDS);
}

/**
 * The streak after one more run that found `change` drifted and reverted it, the run having begun at `at`. It grows
 * while some actor or some field is common to every run of it (the same other automation, or the same setting fought
 * over); a drift sharing neither with the runs before starts a new streak at 1.
 */
export function nextStreak(prev: DriftStreak | undefined, change: Change, at: string): DriftStreak {
  const actors = streakActors(change);
  const fields = streakFields(change);
  if (prev !== undefined) {
    const keptActors = prev.actors.filter((a) => actors.includes(a));
    const keptFields = prev.fields.filter((f) => fields.includes(f));
    if (keptActors.length > 0 || keptFields.length > 0) {
      return { runs: prev.runs + 1, since: prev.since, actors: keptActors, fields: keptFields };
    }
  }
  return { runs: 1, since: at, actors, fields };
}

/** The stored streaks of a target (undefined when it has none, or is not a project or organization). */
export function streaksOf(
  state: ReconcileState | null | undefined,
  target: TargetRef,
): Readonly<Record<string, DriftStreak>> | undefined {
  if (target.type === 'project') return state?.projects[target.id]?.driftStreaks;
  if (target.type === 'organization') return state?.organizations?.[target.id]?.driftStreaks;
  return undefined;
}

/**
 * Updates the streaks of every target the apply planned without failure and was allowed to write (`skipReason`
 * undefined), from its plan's changes and the results of its writes:
 * - a drift reverted (its write `applied`) grows the object's streak (nextStreak);
 * - a drift not reverted (a write failed or skipped, a blocked change, a delete, an unenforced expectation) neither
 *   counts nor resets: this tool did not fight that run;
 * - an object found without drift (in sync, or only a change from git) loses its streak;
 * - an object the plan no longer mentions, or only as a delete (applied or blocked: its key left git), loses it too, so
 *   the state keeps only live streaks.
 * Targets not planned, or planned with a failure, keep theirs as stored.
 */
export function recordStreaks(
  plan: Plan,
  results: readonly ChangeResult[],
  state: ReconcileState,
  skipReason: (targetKey: string) => string | undefined,
): void {
  const applied = new Set(
    results.filter((r) => r.status === 'applied').map((r) => `${targetKey(r.change.target)}|${streakKey(r.change)}`),
  );
  const failed = new Set(plan.failures.map((f) => targetKey(f.target)));
  const byTarget = new Map<string, Change[]>();
  for (const change of plan.changes) {
    const key = targetKey(change.target);
    const list = byTarget.get(key);
    if (list === undefined) byTarget.set(key, [change]);
    else list.push(change);
  }
  for (const key of Object.keys(plan.liveDigests)) {
    if (failed.has(key) || skipReason(key) !== undefined) continue;
    const changes = byTarget.get(key) ?? [];
    const at = key.indexOf(':');
    const type = key.slice(0, at);
    const id = key.slice(at + 1);
    if (type !== 'project' && type !== 'organization') continue;
    const stored = streaksOf(state, { type, id, name: '' }) ?? {};
    const kept: Record<string, DriftStreak> = {};
    for (const change of changes) {
      const object = streakKey(change);
      const prev = stored[object];
      if (revertsDrift(change) && applied.has(`${key}|${object}`)) {
        kept[object] = nextStreak(prev, change, plan.createdAt);
      } else if (change.drift?.detected === true && prev !== undefined && !leftGit(change)) {
        kept[object] = prev;
      }
    }
    if (Object.keys(kept).length > 0) {
      (type === 'project' ? projectState(state, id) : organizationState(state, id)).driftStreaks = kept;
      continue;
    }
    // Nothing to keep: the field goes, and no entry is created for a target the state did not hold.
    const holder = type === 'project' ? state.projects[id] : state.organizations?.[id];
    if (holder !== undefined) delete holder.driftStreaks;
  }
}
