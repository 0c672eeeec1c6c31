/**
 * The human plan, like `terraform plan`: one section per target with its changes (`+` create, `~` update, `-` delete,
 * `=>` release, `<=` adopt, `!` blocked, `?` drift), field-level before -> after, failures, notes, and the summary
 * line.
 */

import { type Change, type Mode, type Plan, type TargetFailure, type TargetRef, targetKey } from '../model.ts';
import { printable } from '../printable.ts';
import { blockedRecap } from './blocked-lines.ts';
import { changeLines } from './change-lines.ts';
import { heldLine, targetModeNote } from './held-recap.ts';
import { PLAIN_STYLE, type Style } from './style.ts';
import { countChanges, groupByTarget, hasChanges, summaryLine, targetTitle } from './summary.ts';

/** Options of the human renderers. */
export interface TextRenderOptions {
  /** Colours (ANSI_STYLE) or none (PLAIN_STYLE, the default). */
  style?: Style;
  /** List targets whose every change is a noop as a one-line "no changes" (default true). */
  showUnchangedTargets?: boolean;
  /**
   * The mode the plan is shown for (default: its own). `apply` passes the mode it writes in when it shows a plan made
   * for it (its question, a saved plan), whose own mode is the planning run's (`plan`: "nothing will be written").
   */
  mode?: Mode;
  /**
   * Most targets without changes listed one by one; when there are more, they are counted in one line instead, so
   * that the one project that changes among a thousand is not buried in three thousand lines (default 20).
   */
  maxUnchangedTargets?: number;
}

/** Default options of the human renderers. */
export const DEFAULT_TEXT_RENDER_OPTIONS: Required<Omit<TextRenderOptions, 'mode'>> = {
  style: PLAIN_STYLE,
  showUnchangedTargets: true,
  maxUnchangedTargets: 20,
};

/** One failed target as a line: `Project x (id) [read]: message (CODE)`; printable (the message may quote Ops Manager). */
export function failureLine(failure: TargetFailure): string {
  const code = failure.code !== undefined ? ` (${failure.code})` : '';
  return printable(`${targetTitle(failure.target)} [${failure.phase}]: ${failure.message}${code}`);
}

/** Failures of one code and phase shown one by one before the rest of them are counted in one line. */
export const FAILURES_SHOWN_PER_CAUSE = 3;

/**
 * The `x ...` lines of `failures`. When more than FAILURES_SHOWN_PER_CAUSE targets fail with the same code in the same
 * phase (a refused API key, Ops Manager down), the first ones are shown and the rest counted, so a thousand projects
 * do not print a thousand identical lines; every one stays in the JSON plan and the run report.
 */
export function failureLines(failures: readonly TargetFailure[], style: Style, indent = '  '): string[] {
  const cause = (f: TargetFailure) => `${f.code ?? ''}|${f.phase}`;
  const total = new Map<string, number>();
  for (const f of failures) total.set(cause(f), (total.get(cause(f)) ?? 0) + 1);
  const shown = new Map<string, number>();
  const out: string[] = [];
  for (const f of failures) {
    const key = cause(f);
    const n = (shown.get(key) ?? 0) + 1;
    shown.set(key, n);
    const all = total.get(key) ?? 0;
    if (all <= FAILURES_SHOWN_PER_CAUSE + 1 || n <= FAILURES_SHOWN_PER_CAUSE) {
      out.push(`${indent}${style.error(`x ${failureLine(f)}`)}`);
    } else if (n === FAILURES_SHOWN_PER_CAUSE + 1) {
      const rest = all - FAILURES_SHOWN_PER_CAUSE;
      const code = f.code !== undefined ? ` with ${f.code}` : '';
      out.push(
        `${indent}${style.error(printable(`x ... and ${rest} more failed${code} [${f.phase}] (each is listed in --json and the run report)`))}`,
      );
    }
  }
  return out;
}

/**
 * The number of unmanaged objects of each target (by `targetKey`), counted in one pass: a renderer asks for every
 * target's note, and scanning the whole list per target grew with targets times unmanaged objects.
 */
export function unmanagedCounts(plan: Plan): Map<string, number> {
  const counts = new Map<string, number>();
  for (const u of plan.unmanaged ?? []) {
    const key = targetKey(u.target);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * `(3 unmanaged alert configs left alone)` for a target, or '' when it has none. `counts` is
 * {@link unmanagedCounts} of the same plan, when the caller has it already.
 */
export function unmanagedNote(
  plan: Plan,
  target: TargetRef,
  counts: ReadonlyMap<string, number> = unmanagedCounts(plan),
): string {
  const n = counts.get(targetKey(target)) ?? 0;
  if (n === 0) return '';
  return `(${n} unmanaged object${n === 1 ? '' : 's'} left alone: Ops Manager defaults, hand-made or released configs, those of other tools)`;
}

/** Renders a plan for a terminal; the result ends with a newline. */
export function renderPlanText(plan: Plan, options: TextRenderOptions = {}): string {
  const { style, showUnchangedTargets, maxUnchangedTargets } = { ...DEFAULT_TEXT_RENDER_OPTIONS, ...options };
  const mode = options.mode ?? plan.mode;
  const out: string[] = [];
  const writes = mode === 'apply' ? '' : ` (mode ${mode}: nothing will be written)`;
  out.push(style.dim(`opsman-gitops plan ${plan.runId}${writes}`), '');
  for (const warning of plan.warnings ?? []) out.push(style.error(printable(`Warning: ${warning}`)));
  if ((plan.warnings ?? []).length > 0) out.push('');
  const unmanagedOf = unmanagedCounts(plan);
  const shown = (c: Change) => c.action !== 'noop' || c.drift?.detected === true;
  const groups = groupByTarget(plan.changes);
  const unchanged = groups.filter((g) => !g.changes.some(shown)).length;
  const listUnchanged = showUnchangedTargets && unchanged <= maxUnchangedTargets;
  for (const group of groups) {
    const visible = group.changes.filter(shown);
    const counts = countChanges(group.changes);
    const title = style.bold(targetTitle(group.target)) + style.dim(targetModeNote(plan, group.target, mode));
    const unmanaged = unmanagedNote(plan, group.target, unmanagedOf);
    if (visible.length === 0) {
      if (!listUnchanged) continue;
      out.push(`${title}: no changes (${counts.unchanged} unchanged)`);
    } else {
      out.push(title);
      for (const change of visible) out.push(...changeLines(change, style));
    }
    if (unmanaged !== '') out.push(`  ${style.dim(unmanaged)}`);
    out.push('');
  }
  if (showUnchangedTargets && !listUnchanged) {
    out.push(
      style.dim(
        `${unchanged} targets with no changes are not listed (more than ${maxUnchangedTargets}; --json lists them)`,
      ),
      '',
    );
  }
  const held = heldLine(plan, mode);
  if (held !== undefined) out.push(style.dim(printable(held)), '');
  const blocked = blockedRecap(plan.changes, 'under each change above');
  if (blocked !== undefined) {
    out.push(style.blocked(style.bold(blocked.heading)));
    for (const entry of [...blocked.entries, ...(blocked.more === undefined ? [] : [blocked.more])])
      out.push(`  ${style.blocked(`! ${entry}`)}`);
    out.push('');
  }
  if (plan.failures.length > 0) {
    out.push(style.error(style.bold('Failures:')));
    out.push(...failureLines(plan.failures, style));
    out.push('');
  }
  // Notes ask for nothing (a released key with nothing to release): dim, before the summary, never among warnings.
  for (const note of plan.notes ?? []) out.push(style.dim(printable(`Note: ${note}`)));
  if ((plan.notes ?? []).length > 0) out.push('');
  if (!hasChanges(plan) && plan.failures.length === 0)
    out.push(style.ok('No changes. Ops Manager matches the desired state.'));
  out.push(style.bold(summaryLine(countChanges(plan.changes))));
  return `${out.join('\n')}\n`;
}
