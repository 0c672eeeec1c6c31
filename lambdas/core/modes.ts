/**
 * Modes: observe (write nothing, report differences as drift), plan (plan only), apply. The stricter of the run's cap
 * and the target's own mode wins; the `plan` command never writes, whatever the modes say.
 */
import { type Change, MODES, type Mode } from './model.ts';
import type { RunCommand } from './run-types.ts';

/** The stricter of two modes. */
export function stricter(a: Mode, b: Mode): Mode {
  return MODES.indexOf(a) <= MODES.indexOf(b) ? a : b;
}

/**
 * The mode a run reports: observe for `observe` and for `archive` (it reads Ops Manager and writes nothing there), at
 * most plan for `plan`, the request's cap (or apply) for `apply`.
 */
export function runMode(command: RunCommand, cap: Mode | undefined): Mode {
  if (command === 'observe' || command === 'archive') return 'observe';
  if (command === 'plan') return stricter(cap ?? 'plan', 'plan');
  return cap ?? 'apply';
}

/**
 * The mode in which apply writes a plan it was handed (the one its question showed, or a saved one): the plan's own
 * mode is that of the run that made it (at most plan, for `plan --out` and the question), so it is not; an observe plan
 * holds only drift and writes nothing; else the cap (`--mode`), or apply.
 */
export function applyingMode(planMode: Mode, cap: Mode | undefined): Mode {
  return planMode === 'observe' ? 'observe' : (cap ?? 'apply');
}

/**
 * A target's effective mode: the stricter of the request's cap (`--mode`) and the target's (spec.mode, else
 * Settings.mode). The command is not folded in, so a saved plan records what its targets allow.
 */
export function targetMode(command: RunCommand, cap: Mode | undefined, own: Mode): Mode {
  const capped = stricter(cap ?? 'apply', own);
  return command === 'observe' ? 'observe' : capped;
}

const WRITES: ReadonlySet<string> = new Set(['create', 'update', 'enable', 'disable', 'delete', 'adopt', 'release']);

/** True for an action that writes to Ops Manager (or to state only: adopt without secrets, release). */
export function isWrite(change: Change): boolean {
  return WRITES.has(change.action);
}

/**
 * In observe mode a would-be write becomes `drift`: reported with its fields, never applied. A release stays one: it
 * changes nothing in Ops Manager, so calling it drift would count a difference there is not (apply skips it there).
 */
export function observeOnly(change: Change): Change {
  if (!isWrite(change) || change.action === 'release') return change;
  return { ...change, action: 'drift', reason: `observe mode: would ${change.action}: ${change.reason}` };
}
