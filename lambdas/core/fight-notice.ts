/**
 * Update-fight warnings of a plan: a drifted object this run would put back for at least the FIGHT_RUNS-th
 * consecutive time, each time changed by the same other actor or in the same field, is being managed by something
 * else too (another installation, a script, the Ops Manager UI's bulk tools, a second GitOps tool). Each such change
 * gets `drift.fight` and the plan a warning naming the object, the actors, the runs and the way out. Names and field
 * paths only: never a value, so never a secret.
 */
import { IGNORABLE_FIELDS, type IgnorableField } from './desired/enums.ts';
import { FIGHT_RUNS, nextStreak, revertsDrift, streakKey, streaksOf } from './fight-streak.ts';
import { ignoredOf } from './ignore-fields.ts';
import { type Change, type ChangeResult, type FightActor, type FightNotice, targetKey } from './model.ts';
import type { DriftStreak, ReconcileState } from './ports.ts';

/** First words of every update-fight warning: what a reader (or a log filter) looks for. */
export const UPDATE_FIGHT = 'UPDATE FIGHT';

/** A stored actor (`apiKey:<publicKey>`, `user:<name>`, `ownKey:<publicKey>`) as the plan shows it. */
function fightActor(stored: string): FightActor {
  const at = stored.indexOf(':');
  const kind = stored.slice(0, at);
  const actor = stored.slice(at + 1);
  if (kind === 'user') return { actor, actorType: 'user' };
  return kind === 'ownKey' ? { actor, actorType: 'apiKey', viaOwnKey: true } : { actor, actorType: 'apiKey' };
}

/** The notice of a streak that reached FIGHT_RUNS. */
export function fightNotice(streak: DriftStreak): FightNotice {
  return { runs: streak.runs, since: streak.since, actors: streak.actors.map(fightActor), fields: [...streak.fields] };
}

function objectName(change: Change): string {
  if (change.kind === 'alertConfig') return `alert config "${change.key}"`;
  if (change.kind === 'defaultServerType') return 'the default server type';
  if (change.kind === 'auditLogRotation') return 'the audit-log rotation';
  return change.kind;
}

function actorText(a: FightActor): string {
  if (a.viaOwnKey === true) return `this tool's own API key ${a.actor} (used outside its runs)`;
  return `${a.actorType === 'user' ? 'user' : 'API key'} ${a.actor}`;
}

/** The warning of one fight: the object, the runs, who and what, and what to do. */
export function fightWarning(change: Change, notice: FightNotice): string {
  return fightText(change, notice, ' and put it back');
}

/** What a write that was not `applied` did, by its result's status: why this run did not put the object back. */
const NOT_PUT_BACK: Record<Exclude<ChangeResult['status'], 'applied'>, string> = {
  failed: 'its write failed',
  skipped: 'its write was skipped',
  'not-converging': 'its write was sent but Ops Manager did not show the result',
};

/**
 * The warning of a fight whose write this run did not apply: the plan's warning says "put it back", which the run
 * then did not do (and the streak does not grow, fight-streak.ts recordStreaks), so the run report says what happened.
 */
export function unwrittenFightWarning(
  change: Change,
  notice: FightNotice,
  status: Exclude<ChangeResult['status'], 'applied'>,
): string {
  const before = notice.runs - 1;
  const earlier = `${before} ${before === 1 ? 'run' : 'runs'} before this one`;
  return fightText(change, notice, `; the ${earlier} put it back, this one did not (${NOT_PUT_BACK[status]})`);
}

/**
 * The run report's warnings after an apply: each plan-time fight warning whose change's write was not `applied` is
 * replaced by its unwrittenFightWarning, in place (the plan itself keeps what was planned).
 */
export function rewordUnwrittenFights(warnings: string[], results: readonly ChangeResult[]): void {
  for (const result of results) {
    const fight = result.change.drift?.fight;
    if (fight === undefined || result.status === 'applied') continue;
    const at = warnings.indexOf(fightWarning(result.change, fight));
    if (at >= 0) warnings[at] = unwrittenFightWarning(result.change, fight, result.status);
  }
}

/** A fight's warning text with `putBack` saying what the runs did after finding the object changed. */
function fightText(change: Change, notice: FightNotice, putBack: string): string {
  const target = `${change.target.type} ${change.target.name} (${change.target.id})`;
  const who = notice.actors.length === 0 ? '' : ` by ${notice.actors.map(actorText).join(' and ')}`;
  const what = notice.fields.length === 0 ? '' : ` (each time: ${notice.fields.join(', ')})`;
  // No author common to every run: the events may have named different ones, or none at all (unreadable, or no event:
  // then the value may be changed back by Ops Manager itself, not by a second writer), so both are said.
  const unnamed =
    notice.actors.length === 0
      ? ' (no author was named by the audit events on every one of those runs: when none named anyone, look also for' +
        ' something in Ops Manager itself that changes the value back, and for another installation, script or person' +
        " using this tool's own API key, whose writes made close to its runs are not told from its own)"
      : '';
  return (
    `${UPDATE_FIGHT}: ${objectName(change)} in ${target} keeps being changed outside opsman-gitops: ` +
    `${notice.runs} consecutive runs since ${notice.since} found it changed${who}${what}${putBack}${unnamed}. ` +
    `Two writers manage it and will keep undoing each other's changes: ${fightWayOut(change)}`
  );
}

/**
 * The way out of a fight, as its warning says it: what a change line says itself when that warning is not shown. For
 * an alert config fought over in members ignoreFields may name, the finer way out comes first: ignore just those.
 */
export function fightWayOut(change: Change): string {
  const owner = `give it one owner (${leaveIt(change)}, or stop the other automation, script or installation that changes it)`;
  const members = change.kind === 'alertConfig' ? ignorableMembers(change.drift?.fight?.fields ?? []) : [];
  if (members.length === 0) return owner;
  const list = members.join(', ');
  // A config that ignores members already gets the whole list to write: `ignoreFields: [<new>]` alone would drop those.
  const already = change.after === undefined ? [] : ignoredOf(change.after as { ignoreFields?: IgnorableField[] });
  const add =
    already.length === 0
      ? `add ignoreFields: [${list}] to alert config "${change.key}"`
      : `add ${list} to the ignoreFields of alert config "${change.key}" (ignoreFields: [${[...already, ...members].join(', ')}])`;
  return `to leave ${list} to the other writer and keep managing the rest, ${add}; or ${owner}`;
}

/** The members ignoreFields may name among fought-over field paths (`enabled`, `threshold.threshold`...), in order. */
function ignorableMembers(fields: readonly string[]): string[] {
  const members = new Set<string>();
  for (const path of fields) {
    const member = path.split(/[.[]/, 1)[0] ?? '';
    if ((IGNORABLE_FIELDS as readonly string[]).includes(member)) members.add(member);
  }
  return [...members];
}

/**
 * How to leave the object to the other writer. An alert config is released (spec.release), not removed from git:
 * removed, it would be deleted where prune is on, which destroys the other writer's config instead of handing it over.
 */
function leaveIt(change: Change): string {
  if (change.kind === 'alertConfig')
    return `list "${change.key}" in spec.release to leave it to the other writer (removed from git, it would be deleted where prune is on)`;
  return 'remove it from git to leave it to the other writer';
}

/**
 * Marks the update fights among `changes` (`drift.fight`) from the stored streaks of `state`, counting this run (begun
 * at `at`) as one more; returns their warnings in the order of `changes`. Only a drift this run would put back counts:
 * one that observe mode or a safety gate leaves alone is no fight this run, and neither is one of a target whose mode
 * is not apply (`writes(targetKey)` false: spec.mode plan, `--mode plan`), since apply skips it and its streak waits.
 */
export function markFights(
  changes: readonly Change[],
  state: ReconcileState | null,
  at: string,
  writes: (targetKey: string) => boolean,
): string[] {
  const warnings: string[] = [];
  for (const change of changes) {
    if (!revertsDrift(change) || change.drift === undefined || !writes(targetKey(change.target))) continue;
    const streak = nextStreak(streaksOf(state, change.target)?.[streakKey(change)], change, at);
    if (streak.runs < FIGHT_RUNS) continue;
    const notice = fightNotice(streak);
    change.drift.fight = notice;
    warnings.push(fightWarning(change, notice));
  }
  return warnings;
}
