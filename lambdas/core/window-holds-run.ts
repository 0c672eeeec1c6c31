/**
 * Change windows in an apply run: holds are evaluated again when the apply's writes start (a saved plan made inside a
 * window and applied after it closed is written, one made outside and applied inside is held; a saved plan gets the
 * windows of the desired state of that moment first, saved-plan-windows.ts), `--ignore-windows` (or a manual Lambda
 * event's `"ignoreWindows": true`) lifts them with a warning, and the report lists each target whose writes a window held.
 */
import { holdText, windowHolds } from './change-windows.ts';
import { type ChangeResult, type Plan, type RunReport, targetKey } from './model.ts';
import { isWrite, stricter } from './modes.ts';
import type { RunRequest } from './run-types.ts';

/** True when the target's mode, capped by the request's (`--mode`), lets this apply write it (windows aside). */
function modeWrites(plan: Plan, cap: RunRequest['mode'], key: string): boolean {
  return stricter(plan.targetModes?.[key] ?? plan.mode, cap ?? 'apply') === 'apply';
}

/** How a warning names the override when the request does not (RunRequest.ignoreWindowsBy). */
export const IGNORE_WINDOWS_DEFAULT_BY = '--ignore-windows';

/** The override that lifts this run's change windows, by its caller's name for it; undefined when none does. */
export function windowsIgnoredBy(
  request: Pick<RunRequest, 'command' | 'ignoreWindows' | 'ignoreWindowsBy'>,
): string | undefined {
  if (request.command !== 'apply' || request.ignoreWindows !== true) return undefined;
  return request.ignoreWindowsBy ?? IGNORE_WINDOWS_DEFAULT_BY;
}

/**
 * The plan an apply writes from: its `windowHolds` evaluated from its own `changeWindows` at `at` (when the writes
 * start), or none when `ignoredBy` names the override that lifts them (`--ignore-windows`, a manual event's
 * `"ignoreWindows": true`); `warnings` then gets a line per target that a window would have held and that this apply
 * writes (it has writes, and its mode capped by `cap` lets them be made), naming the override.
 */
export function withApplyHolds(
  plan: Plan,
  at: string,
  ignoredBy: string | undefined,
  warnings: string[],
  cap: RunRequest['mode'],
): Plan {
  const { windowHolds: _previous, ...rest } = plan;
  const holds = windowHolds(plan.changeWindows, Object.keys(plan.targetModes ?? plan.liveDigests), at);
  if (ignoredBy !== undefined) {
    // Said only where it matters: a held target with nothing to write, or whose mode keeps it from being written, is
    // written by nobody either way ("written anyway" would be untrue).
    const writing = new Set(
      plan.changes
        .filter(isWrite)
        .map((c) => targetKey(c.target))
        .filter((key) => modeWrites(plan, cap, key)),
    );
    for (const [key, hold] of Object.entries(holds)) {
      if (writing.has(key))
        warnings.push(`CHANGE WINDOW IGNORED (${ignoredBy}): ${key} ${holdText(hold)}; written anyway`);
    }
    return rest;
  }
  return Object.keys(holds).length === 0 ? rest : { ...rest, windowHolds: holds };
}

/**
 * The targets whose planned writes a change window held in this apply (their mode, capped by `--mode`, would have
 * written them), each with its hold and the number of writes not made. Empty when none.
 */
export function heldByWindows(
  plan: Plan,
  cap: RunRequest['mode'],
  results: readonly ChangeResult[],
): NonNullable<RunReport['heldByWindows']> {
  const held: NonNullable<RunReport['heldByWindows']> = [];
  for (const [key, hold] of Object.entries(plan.windowHolds ?? {})) {
    if (!modeWrites(plan, cap, key)) continue;
    const skipped = results.filter(
      (r) => r.status === 'skipped' && isWrite(r.change) && targetKey(r.change.target) === key,
    );
    const first = skipped[0];
    if (first === undefined) continue;
    held.push({ target: first.change.target, ...hold, writes: skipped.length });
  }
  return held;
}

/** The writes of a plan not applied yet, by what its window holds would do to them (`plannedWrites`). */
export interface PlannedWrites {
  /** Writes the apply would make: their target is not held and its mode, capped by `--mode`, writes it. */
  made: number;
  /** Per held target whose mode would write it, its hold and its writes: made by nobody while the hold lasts. */
  held: NonNullable<RunReport['heldByWindows']>;
}

/**
 * The plan's writes split by its `windowHolds` (evaluated at its start), for a question asked before the apply: how
 * many would be made and which are held. Writes of a target its mode keeps unwritten are in neither.
 */
export function plannedWrites(plan: Plan, cap: RunRequest['mode']): PlannedWrites {
  const result: PlannedWrites = { made: 0, held: [] };
  const byKey = new Map<string, NonNullable<RunReport['heldByWindows']>[number]>();
  for (const change of plan.changes.filter(isWrite)) {
    const key = targetKey(change.target);
    if (!modeWrites(plan, cap, key)) continue;
    const hold = plan.windowHolds?.[key];
    if (hold === undefined) {
      result.made++;
      continue;
    }
    const entry = byKey.get(key);
    if (entry === undefined) {
      const held = { target: change.target, ...hold, writes: 1 };
      byKey.set(key, held);
      result.held.push(held);
    } else entry.writes++;
  }
  return result;
}
