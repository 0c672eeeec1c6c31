/**
 * The log lines an operator paged by an alarm searches for, one per finding of a finished run: `target failed` (ERROR,
 * the TargetsFailed alarm) for each failure of a project, organization or of the run's bookkeeping (`global`), and
 * `drift detected` (WARN, the DriftDetected alarm) for each live object that differs from git, and `update fight
 * detected` (WARN, code UPDATE_FIGHT) for each object something else keeps changing back (core/fight-notice.ts), and
 * `change windows ignored` (WARN) for an apply whose caller lifted change windows, and `change blocked` (WARN, code
 * CHANGE_BLOCKED, the Blocked alarm) for each change the run did not write until something is fixed (a secretRef that
 * cannot be resolved, a team missing, a safety gate), and `run warnings` (WARN) with the run's other warnings. Each
 * finding names its target by type, id and name and carries the code and the next step, so a CloudWatch Logs Insights
 * query over these lines alone answers what failed, where, since when and whether it still does (docs/aws.md, "Runbook"). The run's "run
 * finished" line keeps the summary; these repeat no secret (messages and field paths are value-free by construction).
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { holdText } from '../core/change-windows.ts';
import { STATE_WAS_CORRUPT } from '../core/errors.ts';
import { LEASE_RELEASE_FAILED } from '../core/lease.ts';
import {
  type Change,
  type RunReport,
  type TargetFailure,
  type TargetRef,
  targetKey,
  type WindowHold,
} from '../core/model.ts';
import { differingPaths } from '../core/unmodelled.ts';
import { nextStep } from './next-step.ts';

/** A target as every log line names it: its type, id and name, and nothing else the object may carry. */
function logTarget(target: TargetRef): { type: string; id: string; name: string } {
  return { type: target.type, id: target.id, name: target.name };
}

/**
 * Why a drift line's `changedBy` is empty: the reason attribution recorded (`drift.unattributed`: the events read
 * failed, with its code; no event of the object; only the tool's own writes), else why it never ran for this change.
 */
export function unattributedReason(c: Change): string {
  if (c.drift?.unattributed !== undefined) return c.drift.unattributed;
  if (c.drift?.detected !== true) return 'not changed outside this tool since its last write: git differs from live';
  return 'no reason recorded (a plan made by an earlier version)';
}

/** Most `drift detected` lines per run (the rest are counted in the last one; the archived report lists them all). */
export const MAX_DRIFT_LINES = 50;

/** Most `update fight detected` lines per run (the rest are counted in the last one; the report lists them all). */
export const MAX_FIGHT_LINES = 50;

/** The code of an `update fight detected` line, and of its next step (next-step.ts). */
export const UPDATE_FIGHT_CODE = 'UPDATE_FIGHT';

/**
 * Most `target failed` lines per run, and per cause (code, HTTP status and phase). A run with Ops Manager down fails
 * every target with the same cause: its first lines say it, the rest are counted (`more` on the cause's last line); the
 * "run finished" summary and the archived report list them all. The lines are chosen a cause at a time (the first
 * failure of each cause before the second of any), so a different failure is never hidden behind a thousand alike.
 */
export const MAX_FAILURE_LINES = 50;
/** At most this many of those lines per cause (error code), so one cause never fills the list. */
export const MAX_FAILURE_LINES_PER_CAUSE = 5;

/** The cause a failure is counted under: what decides its next step, and where it happened. */
function causeOf(f: TargetFailure): string {
  return `${f.code ?? 'INTERNAL'}|${f.httpStatus ?? ''}|${f.phase}`;
}

/**
 * The failures to log, in report order, each with how many failures of its cause are left unlogged after it (on the
 * cause's last logged line only), and the count of failures whose cause got no line at all (more causes than lines).
 */
export function failureLines(failures: readonly TargetFailure[]): {
  lines: { failure: TargetFailure; more?: number }[];
  unlisted: number;
} {
  const byCause = new Map<string, number[]>();
  failures.forEach((f, index) => {
    const list = byCause.get(causeOf(f));
    if (list === undefined) byCause.set(causeOf(f), [index]);
    else list.push(index);
  });
  const chosen = new Set<number>();
  for (let round = 0; round < MAX_FAILURE_LINES_PER_CAUSE && chosen.size < MAX_FAILURE_LINES; round++) {
    for (const list of byCause.values()) {
      const index = list[round];
      if (index !== undefined && chosen.size < MAX_FAILURE_LINES) chosen.add(index);
    }
  }
  const more = new Map<number, number>();
  let unlisted = 0;
  for (const list of byCause.values()) {
    const shown = list.filter((index) => chosen.has(index));
    const last = shown.at(-1);
    if (last === undefined) unlisted += list.length;
    else if (shown.length < list.length) more.set(last, list.length - shown.length);
  }
  const lines = [...chosen]
    .sort((a, b) => a - b)
    .map((index) => {
      const rest = more.get(index);
      return { failure: failures[index] as TargetFailure, ...(rest === undefined ? {} : { more: rest }) };
    });
  return { lines, unlisted };
}

/** Logs the run's target failures (at most MAX_FAILURE_LINES, see failureLines) and drifted objects of `report`. */
export function logRunFindings(logger: Logger, report: RunReport): void {
  const { lines, unlisted } = failureLines(report.failures);
  lines.forEach(({ failure: f, more }, index) => {
    const code = f.code ?? 'INTERNAL';
    logger.error('target failed', {
      target: logTarget(f.target),
      phase: f.phase,
      code,
      ...(f.httpStatus === undefined ? {} : { httpStatus: f.httpStatus }),
      error: f.message,
      nextStep: nextStep(code, f.httpStatus),
      ...(more === undefined ? {} : { more }),
      // More causes than lines (never seen in practice): the last line counts the failures no line stands for.
      ...(index === lines.length - 1 && unlisted > 0 ? { unlisted } : {}),
    });
  });
  const held = new Map((report.heldByWindows ?? []).map((h) => [targetKey(h.target), h]));
  const drifted = report.plan.changes.filter((c) => c.action === 'drift' || c.drift?.detected === true);
  drifted.slice(0, MAX_DRIFT_LINES).forEach((c, index) => {
    const last = index === MAX_DRIFT_LINES - 1 && drifted.length > MAX_DRIFT_LINES;
    logger.warn('drift detected', {
      target: logTarget(c.target),
      kind: c.kind,
      key: c.key,
      action: c.action,
      // Paths only: a field's before/after could be a secret's note or a value nobody asked to see in a log.
      fields: differingPaths(c.fields),
      changedBy: (c.drift?.attribution ?? []).map((a) => ({
        actor: a.actor,
        actorType: a.actorType,
        at: a.created,
        event: a.eventTypeName,
        ...(a.viaOwnKey === true ? { viaOwnKey: true } : {}),
        ...(a.keyIdOnly === true ? { keyIdOnly: true } : {}),
      })),
      ...(c.drift?.attribution === undefined ? { changedByUnknown: unattributedReason(c) } : {}),
      reason: c.reason,
      nextStep: held.has(targetKey(c.target))
        ? `not corrected: ${holdText(held.get(targetKey(c.target)) as WindowHold)}; the first apply run after it puts it back unless the change is committed to git`
        : report.command === 'apply' && c.action !== 'drift'
          ? 'this run put it back as git has it: if the change was wanted, commit it to git'
          : `not corrected by this ${report.command} run: commit the change to git if it was wanted, else let an apply run put it back`,
      ...(last ? { more: drifted.length - MAX_DRIFT_LINES } : {}),
    });
  });
  logBlocked(logger, report);
  logFights(logger, report);
  logReleases(logger, report);
  logHolds(logger, report);
  logWindowsIgnored(logger, report);
  logOtherWarnings(logger, report);
}

/** Most warnings the `run warnings` line quotes (the summary lists as many; the archived report has them all). */
export const MAX_WARNING_LINES = 20;

/**
 * One WARN line with the run's warnings that no line of their own says (a corrupt state, a lease not released and a
 * window lifted have theirs): an attribution that could not be read, a pending-create marker an earlier release saved,
 * an allow window over for good, a report not written. The `run finished` summary lists them too, but at INFO, and an
 * operator filters on levels. Warnings are value-free like every message of a report.
 */
function logOtherWarnings(logger: Logger, report: RunReport): void {
  const others = (report.warnings ?? []).filter(
    (w) => !w.startsWith(STATE_WAS_CORRUPT) && !w.startsWith(LEASE_RELEASE_FAILED) && !w.startsWith(WINDOW_IGNORED),
  );
  if (others.length === 0) return;
  logger.warn('run warnings', {
    count: others.length,
    warnings: others.slice(0, MAX_WARNING_LINES),
    ...(others.length > MAX_WARNING_LINES ? { more: others.length - MAX_WARNING_LINES } : {}),
  });
}

/** The prefix of the report's warning for each target written despite its change window (core/window-holds-run.ts). */
const WINDOW_IGNORED = 'CHANGE WINDOW IGNORED';

/**
 * One WARN line for an apply that lifted change windows (RunReport.windowsIgnoredBy): who lifted them, and each target
 * written despite a window (its warning; the first MAX_HOLD_LINES, the rest counted). Loud on purpose: a write during a
 * freeze is what an audit of the freeze asks about.
 */
function logWindowsIgnored(logger: Logger, report: RunReport): void {
  if (report.windowsIgnoredBy === undefined) return;
  const written = (report.warnings ?? []).filter((w) => w.startsWith(WINDOW_IGNORED));
  logger.warn('change windows ignored', {
    by: report.windowsIgnoredBy,
    writtenDespiteWindow: written.slice(0, MAX_HOLD_LINES),
    ...(written.length > MAX_HOLD_LINES ? { more: written.length - MAX_HOLD_LINES } : {}),
  });
}

/** Most `writes held by change window` lines per run (the rest are counted in the last one; the report lists them all). */
export const MAX_HOLD_LINES = 50;

/**
 * One INFO line per target whose writes a change window held (Settings.changeWindows): which windows, their kind,
 * until when (absent when no end is known) and how many writes were not made. A freeze is wanted, not an alarm.
 */
function logHolds(logger: Logger, report: RunReport): void {
  const held = report.heldByWindows ?? [];
  held.slice(0, MAX_HOLD_LINES).forEach((h, index) => {
    const last = index === MAX_HOLD_LINES - 1 && held.length > MAX_HOLD_LINES;
    logger.info('writes held by change window', {
      target: logTarget(h.target),
      windows: h.windows,
      kind: h.kind,
      ...(h.until === undefined ? {} : { until: h.until }),
      writes: h.writes,
      hold: holdText(h),
      nextStep:
        'nothing to do: the first scheduled apply after the window writes them (to write now: a manual CLI apply with --ignore-windows, or a manual invocation {"mode": "apply", "ignoreWindows": true})',
      ...(last ? { more: held.length - MAX_HOLD_LINES } : {}),
    });
  });
}

/** Most `change blocked` lines per run (the rest are counted in the last one; the archived report lists them all). */
export const MAX_BLOCKED_LINES = 50;

/** The code of a `change blocked` line, and of its next step (next-step.ts). */
export const CHANGE_BLOCKED_CODE = 'CHANGE_BLOCKED';

/**
 * One WARN line per blocked change of the plan, at most MAX_BLOCKED_LINES: what the change is and its reason, which
 * names what blocks it and what unblocks it (a secretRef whose secret or key is missing or unreadable, with where the
 * reference is written; a team missing; a gate's numbers and override). A blocked change writes nothing, the run
 * still ends `ok`, and the CLI's plan is not there to read: without this line the run's only trace of it is a count.
 * Reasons are value-free by construction (a plan never holds a secret value).
 */
function logBlocked(logger: Logger, report: RunReport): void {
  const blocked = report.plan.changes.filter((c) => c.action === 'blocked');
  blocked.slice(0, MAX_BLOCKED_LINES).forEach((c, index) => {
    const last = index === MAX_BLOCKED_LINES - 1 && blocked.length > MAX_BLOCKED_LINES;
    logger.warn('change blocked', {
      code: CHANGE_BLOCKED_CODE,
      target: logTarget(c.target),
      kind: c.kind,
      key: c.key,
      reason: c.reason,
      nextStep: nextStep(CHANGE_BLOCKED_CODE),
      ...(last ? { more: blocked.length - MAX_BLOCKED_LINES } : {}),
    });
  });
}

/** Most `alert config released` lines per run (the rest are counted in the last one; the report lists them all). */
export const MAX_RELEASE_LINES = 50;

/**
 * One INFO line per release of the plan (spec.release), at most MAX_RELEASE_LINES: `alert config released` when this
 * run forgot the record, `alert config release planned` when it did not (a plan run, a target in plan or observe mode,
 * a release that failed). Nothing was written to Ops Manager either way: the config stays there, unmanaged.
 */
function logReleases(logger: Logger, report: RunReport): void {
  const releases = report.plan.changes.filter((c) => c.action === 'release');
  if (releases.length === 0) return;
  const done = new Set(report.results.filter((r) => r.status === 'applied').map((r) => r.change));
  releases.slice(0, MAX_RELEASE_LINES).forEach((c, index) => {
    const last = index === MAX_RELEASE_LINES - 1 && releases.length > MAX_RELEASE_LINES;
    logger.info(done.has(c) ? 'alert config released' : 'alert config release planned', {
      target: logTarget(c.target),
      kind: c.kind,
      key: c.key,
      ...(c.id === undefined ? {} : { id: c.id }),
      reason: c.reason,
      ...(last ? { more: releases.length - MAX_RELEASE_LINES } : {}),
    });
  });
}

/** One `update fight detected` line per object the plan found fought over (`drift.fight`), at most MAX_FIGHT_LINES. */
function logFights(logger: Logger, report: RunReport): void {
  const fights = report.plan.changes.filter((c) => c.drift?.fight !== undefined);
  fights.slice(0, MAX_FIGHT_LINES).forEach((c, index) => {
    const fight = c.drift?.fight;
    if (fight === undefined) return;
    const last = index === MAX_FIGHT_LINES - 1 && fights.length > MAX_FIGHT_LINES;
    logger.warn('update fight detected', {
      code: UPDATE_FIGHT_CODE,
      target: logTarget(c.target),
      kind: c.kind,
      key: c.key,
      runs: fight.runs,
      since: fight.since,
      // Names and paths only, as on the drift lines: no value, so no secret.
      actors: fight.actors.map((a) => ({
        actor: a.actor,
        actorType: a.actorType,
        ...(a.viaOwnKey === true ? { viaOwnKey: true } : {}),
      })),
      fields: fight.fields,
      nextStep: nextStep(UPDATE_FIGHT_CODE),
      ...(last ? { more: fights.length - MAX_FIGHT_LINES } : {}),
    });
  });
}
