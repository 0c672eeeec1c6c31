/** Exit codes from plans and reports, in one place (docs/cli.md documents them). */
import { holdText } from '../core/change-windows.ts';
import { type Plan, type RunReport, targetKey } from '../core/model.ts';
import { printable } from '../core/printable.ts';
import { countChanges, hasChanges, hasWrites } from '../core/render/summary.ts';
import { isArchiveFailure, STATE_TARGET } from '../core/report.ts';
import { EXIT } from './errors.ts';

/**
 * 1 when a target failed or a change is blocked, with or without `detailed`: as in Terraform, --detailed-exitcode only
 * splits success into 0 and 2 and never turns an error into 2, so 1 wins over 2. Else 0, or with `detailed`: 2 when
 * apply would write something (a plan run; drift of an expectation that is not enforced writes nothing, so it is 0),
 * or when anything drifted (a run in observe mode, `observe` or `plan --mode observe`, whose every difference is
 * drift: the same plan gives the same code whichever command made it).
 */
export function planExitCode(plan: Plan, detailed: boolean, command: 'plan' | 'observe' = 'plan'): number {
  if (plan.failures.length > 0 || countChanges(plan.changes).blocked > 0) return EXIT.error;
  if (!detailed) return EXIT.ok;
  const observing = command === 'observe' || plan.mode === 'observe';
  const changed = observing ? hasChanges(plan) : hasWrites(plan);
  return changed ? EXIT.changes : EXIT.ok;
}

/** 1 when anything failed, did not converge, was blocked, a target failed, or an archive step failed; else 0. */
export function reportExitCode(report: RunReport): number {
  if (report.interrupted !== undefined) return EXIT.interrupted;
  if ((report.archive?.errors.length ?? 0) > 0) return EXIT.error;
  const bad = report.results.some((r) => r.status === 'failed' || r.status === 'not-converging');
  if (bad || report.failures.length > 0 || report.plan.failures.length > 0) return EXIT.error;
  if (countChanges(report.plan.changes).blocked > 0) return EXIT.error;
  if ((report.heldByWindows?.length ?? 0) > 0) return EXIT.held;
  return EXIT.ok;
}

/** Most targets the held-writes lines name (the report lists them all). */
const HELD_LINES = 10;

/**
 * Stderr lines naming each target whose writes a change window held (`held: 2 writes to payments-prod
 * (project:...) not made: held by change window year-end-freeze (deny) until ...`) and how to write anyway; none
 * when nothing was held. `savedPlan`: the run applied `--plan FILE`, which the held run made stale (it recorded
 * itself in the state), so the way on is a new plan, not that file again.
 */
export function heldLines(report: RunReport, savedPlan = false): string[] {
  const held = report.heldByWindows ?? [];
  if (held.length === 0) return [];
  const targets = `${held.length} target${held.length === 1 ? '' : 's'} held by change windows (exit ${EXIT.held})`;
  return [
    ...heldTargetLines(held),
    savedPlan
      ? `${targets}: this saved plan is now stale (this run was recorded in the state): when the window allows, make a new one (plan --out) and apply it, or to write now, apply without --plan with --ignore-windows`
      : `${targets}: run apply again when the window allows, or pass --ignore-windows to write now`,
  ];
}

/**
 * One `held: N writes to <target> (<key>) not made: <hold>` line per held target: the first 10, then how many more and
 * `where` the rest are listed.
 */
export function heldTargetLines(held: NonNullable<RunReport['heldByWindows']>, where = 'see the report'): string[] {
  const lines = held.slice(0, HELD_LINES).map((h) => {
    const writes = `${h.writes} write${h.writes === 1 ? '' : 's'}`;
    return printable(`held: ${writes} to ${h.target.name} (${targetKey(h.target)}) not made: ${holdText(h)}`);
  });
  if (held.length > HELD_LINES) lines.push(`held: ... and ${held.length - HELD_LINES} more targets (${where})`);
  return lines;
}

/**
 * One stderr line naming what made a run exit 1 (the details are in the plan or report on stdout, which CI may have
 * redirected to a file, so the line does not say "above"): `error: 1 target failed, 2 changes blocked (details on
 * stdout)`. A state that could not be saved after an apply's writes is said apart, first (not as "1 target failed":
 * someone who redirected stdout must learn that the writes landed unrecorded). Undefined when nothing did.
 */
export function problemsLine(plan: Plan, report?: RunReport): string | undefined {
  const parts: string[] = [];
  // Targets, not failure entries: an apply can record several failures of one target (one per write). Archive
  // errors are counted below as such, not again as a failed target.
  const all = [...plan.failures, ...(report?.failures ?? [])].filter((f) => !isArchiveFailure(f));
  const state = targetKey(STATE_TARGET);
  const unsaved = (report?.failures ?? []).some((f) => f.phase === 'apply' && targetKey(f.target) === state);
  if (unsaved) parts.push('the state could not be saved (the writes that landed are adopted by the next run)');
  const failures = new Set(
    all.filter((f) => !(unsaved && targetKey(f.target) === state)).map((f) => targetKey(f.target)),
  ).size;
  if (failures > 0) parts.push(`${failures} target${failures === 1 ? '' : 's'} failed`);
  const blocked = countChanges(plan.changes).blocked;
  if (blocked > 0) parts.push(`${blocked} change${blocked === 1 ? '' : 's'} blocked`);
  const failed = report?.results.filter((r) => r.status === 'failed').length ?? 0;
  if (failed > 0) parts.push(`${failed} write${failed === 1 ? '' : 's'} failed`);
  const stuck = report?.results.filter((r) => r.status === 'not-converging').length ?? 0;
  if (stuck > 0) parts.push(`${stuck} not converging`);
  const archive = report?.archive?.errors.length ?? 0;
  if (archive > 0) parts.push(`${archive} archive error${archive === 1 ? '' : 's'}`);
  const stopped = report?.interrupted;
  if (stopped !== undefined) {
    parts.unshift(
      `interrupted (${stopped.reason}): ${stopped.notStarted} write${stopped.notStarted === 1 ? '' : 's'} not started`,
    );
  }
  return parts.length === 0 ? undefined : `error: ${parts.join(', ')} (details on stdout)`;
}
