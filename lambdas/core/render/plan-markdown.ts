/**
 * The plan as Markdown for pull-request comments: the summary line, a table of counts per target, and one collapsible
 * section per target whose changes sit in a `diff` code block (GitHub colours the `+` and `-` lines).
 */
import type { Plan } from '../model.ts';
import { changeLines } from './change-lines.ts';
import { failureLine, targetModeNote, unmanagedNote } from './plan-text.ts';
import { PLAIN_STYLE } from './style.ts';
import { countChanges, groupByTarget, hasChanges, summaryLine, targetTitle } from './summary.ts';

/** Escapes text for a Markdown table cell or an HTML summary element. */
export function escapeMarkdown(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('|', '\\|')
    .replaceAll('`', '\\`');
}

/** A code fence longer than any backtick run inside the block, so no content can close it early. */
function fenceFor(lines: readonly string[]): string {
  let longest = 0;
  for (const line of lines) for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Renders a plan as GitHub-flavoured Markdown; the result ends with a newline. */
export function renderPlanMarkdown(plan: Plan, title = 'opsman-gitops plan'): string {
  const out: string[] = [`### ${escapeMarkdown(title)}`, ''];
  const total = countChanges(plan.changes);
  if (plan.mode !== 'apply') out.push(`Mode \`${plan.mode}\`: nothing will be written.`, '');
  for (const warning of plan.warnings ?? []) out.push(`> **Warning:** ${escapeMarkdown(warning)}`, '');
  out.push(`**${summaryLine(total)}**`, '');
  if (!hasChanges(plan) && plan.failures.length === 0)
    out.push('No changes. Ops Manager matches the desired state.', '');
  const groups = groupByTarget(plan.changes);
  if (groups.length > 0) {
    out.push('| Target | Create | Update | Delete | Adopt | Blocked | Drifted | Unchanged |');
    out.push('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const group of groups) {
      const c = countChanges(group.changes);
      out.push(
        `| ${escapeMarkdown(targetTitle(group.target))} | ${c.create} | ${c.update} | ${c.delete} | ${c.adopt} | ` +
          `${c.blocked} | ${c.drifted} | ${c.unchanged} |`,
      );
    }
    out.push('');
  }
  for (const group of groups) {
    const visible = group.changes.filter((c) => c.action !== 'noop' || c.drift?.detected === true);
    if (visible.length === 0) continue;
    const lines = visible.flatMap((change) => changeLines(change, PLAIN_STYLE, ''));
    const fence = fenceFor(lines);
    const c = countChanges(group.changes);
    const counts = [
      [c.create, 'to create'],
      [c.update, 'to update'],
      [c.delete, 'to delete'],
      [c.adopt, 'to adopt'],
      [c.blocked, 'blocked'],
      [c.drifted, 'drifted'],
    ]
      .filter(([n]) => (n as number) > 0)
      .map(([n, what]) => `${n} ${what}`)
      .join(', ');
    const mode = escapeMarkdown(targetModeNote(plan, group.target));
    out.push(`<details><summary><b>${escapeMarkdown(targetTitle(group.target))}</b>${mode}: ${counts}</summary>`, '');
    out.push(`${fence}diff`, ...lines, fence, '');
    const unmanaged = unmanagedNote(plan, group.target);
    if (unmanaged !== '') out.push(escapeMarkdown(unmanaged), '');
    out.push('</details>', '');
  }
  if (plan.failures.length > 0) {
    out.push('**Failures**', '');
    for (const failure of plan.failures) out.push(`- ${escapeMarkdown(failureLine(failure))}`);
    out.push('');
  }
  out.push(
    `<sub>run ${escapeMarkdown(plan.runId)}, desired state ${escapeMarkdown(plan.desired.digest.slice(0, 12))}</sub>`,
  );
  return `${out.join('\n')}\n`;
}
