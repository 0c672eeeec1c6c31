/**
 * The closing line about held targets: a target held by a change window, or whose own mode is stricter than the run's,
 * shows its changes with `[mode ...: shown, not applied]` in its header, but the summary line counts them with the
 * rest. A reader who looks only at the end of the plan (or at a Markdown comment whose sections are folded) must
 * learn that some of those creates, updates and deletes will not be written now.
 */
import { holdText } from '../change-windows.ts';
import { type Mode, type Plan, type TargetRef, targetKey } from '../model.ts';
import { isWrite } from '../modes.ts';
import { groupByTarget } from './summary.ts';

/**
 * `Held: 3 changes in 1 target are shown, not applied now (...); the summary counts them.`, or undefined when no target
 * with a write is held. `runMode`: the mode the plan is rendered for (the targets' notes compare with it).
 */
export function heldLine(
  plan: Plan,
  runMode: Mode = plan.mode,
  where = 'see [mode ...] on each target above',
): string | undefined {
  let changes = 0;
  let targets = 0;
  for (const group of groupByTarget(plan.changes)) {
    const writes = group.changes.filter(isWrite).length;
    if (writes === 0 || targetModeNote(plan, group.target, runMode) === '') continue;
    changes += writes;
    targets++;
  }
  if (changes === 0) return undefined;
  const what = `${changes} change${changes === 1 ? '' : 's'} in ${targets} target${targets === 1 ? '' : 's'}`;
  return `Held: ${what} ${changes === 1 ? 'is' : 'are'} shown, not applied now (a change window or the target's mode: ${where}); the summary counts ${changes === 1 ? 'it' : 'them'}.`;
}

/** Per plan: whether some target's own mode writes (cached: the renderers ask once per target). */
const WRITING_TARGETS = new WeakMap<Plan, boolean>();

function someTargetWrites(plan: Plan): boolean {
  let writes = WRITING_TARGETS.get(plan);
  if (writes === undefined) {
    writes = Object.values(plan.targetModes ?? {}).includes('apply');
    WRITING_TARGETS.set(plan, writes);
  }
  return writes;
}

/**
 * ` [mode plan: shown, not applied]` when a target's effective mode is stricter than the run's (`runMode`, default the
 * plan's); ` [mode plan: held by change window ... until ...: shown, not applied]` when a change window holds a target
 * whose mode writes (said by `plan` too: it previews what an apply would write now). A `plan`-mode target keeps its
 * mode note: it is not written when the window closes either.
 *
 * The `plan` command previews an apply, so it marks a target whose own mode (spec.mode, Settings.mode) keeps that
 * apply from writing it, as apply itself would: a reviewer of the plan must see that `payments-staging`'s creates
 * will not happen. Only while some other target writes: a run capped by `--mode plan` (every target `plan`), or an
 * installation in plan mode throughout, says so once in its header instead of on every target.
 */
export function targetModeNote(plan: Plan, target: TargetRef, runMode: Mode = plan.mode): string {
  const mode = plan.targetModes?.[targetKey(target)];
  const hold = plan.windowHolds?.[targetKey(target)];
  if (hold !== undefined && (mode ?? runMode) === 'apply' && runMode !== 'observe')
    return ` [mode plan: ${holdText(hold)}: shown, not applied]`;
  if (mode === undefined || mode === 'apply') return '';
  if (runMode === 'observe' || (runMode === 'plan' && !someTargetWrites(plan))) return '';
  return mode === 'observe'
    ? ' [mode observe: drift is reported, nothing written]'
    : ' [mode plan: shown, not applied]';
}
