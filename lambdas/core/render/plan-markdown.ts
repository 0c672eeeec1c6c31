/**
 * The plan as Markdown for pull-request comments: the summary line, a table of counts per target, and one collapsible
 * section per target whose changes sit in a `diff` code block (GitHub colours the `+` and `-` lines).
 */

import { fightWarning } from '../fight-notice.ts';
import type { Change, Plan } from '../model.ts';
import { printable } from '../printable.ts';
import { blockedRecap } from './blocked-lines.ts';
import { changeLines } from './change-lines.ts';
import { heldLine, targetModeNote } from './held-recap.ts';
import { failureLines, unmanagedCounts, unmanagedNote } from './plan-text.ts';
import { PLAIN_STYLE } from './style.ts';
import { countChanges, groupByTarget, hasChanges, summaryLine, targetTitle } from './summary.ts';

/**
 * Escapes text for Markdown (a table cell, a quoted warning, a list item): HTML, the cell separator, code spans, the
 * marks of emphasis and strikethrough (a change window named `*freeze*` or a message quoting a mask `***abc` must read
 * as written, not in italics or struck through), and link brackets (a Slack channel `x](https://evil.example)` in a
 * field path would otherwise turn `notifications[SLACK:x](...)` into a link). A backslash first, so that one in the
 * text stays one. GitHub references are defused as in escapeHtml.
 */
export function escapeMarkdown(text: string): string {
  return escapeHtml(text.replaceAll('\\', '\\\\').replace(/[*_~[\]]/g, '\\$&'))
    .replaceAll('|', '\\|')
    .replaceAll('`', '\\`');
}

/**
 * Escapes text for inside an HTML element (the `<summary>` of a target's section): `&`, `<` and `>`; GitHub renders no
 * Markdown in an HTML line, so a backslash escape there would be shown as a backslash (a change window
 * `year_end|freeze` read `year\_end\|freeze`), and a `|` or a backtick is plain text in it already. GitHub still
 * links references there, as in Markdown: a zero-width space (`&#8203;`, as Renovate writes them) after a mention's `@`
 * and before an issue number keeps a Slack channel `@jdoe` or `@acme/dba` (a DM or a user group) in a field path from pinging the
 * GitHub user or team of that name, and `#12` from cross-referencing issue 12; the text reads the same.
 */
export function escapeHtml(text: string): string {
  return (
    text
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replace(/#(?=[0-9])/g, '#&#8203;')
      // After the issue numbers: the entity this inserts has a `#` before a digit itself. An `@` after a letter, digit or
      // `_` mentions nobody (an email address), and is left as it is.
      .replace(/(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])/g, '@&#8203;')
  );
}

/** A code fence longer than any backtick run inside the block, so no content can close it early. */
function fenceFor(lines: readonly string[]): string {
  let longest = 0;
  for (const line of lines) for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * GitHub refuses an issue or pull-request comment longer than 65,536 characters; the default budget stays under it
 * so that a CI step posting the plan never fails on a large one.
 */
export const MARKDOWN_MAX_CHARS = 65_000;

/** Rows of the counts table beyond which unchanged targets are folded into one row. */
const MAX_TABLE_ROWS = 100;

/** Warnings quoted one by one before the rest are counted. */
const MAX_WARNINGS = 20;

/**
 * The shares of the budget the quoted warnings, the notes and the failures may take (each of them, at most). Twenty
 * warnings, or three failures per cause, are no bound on their length: 40 causes of 700-character Ops Manager errors
 * made a 249,000-character comment, which GitHub refuses, exactly when the reviewer most needs to read it.
 */
const WARNINGS_SHARE = 1 / 6;
const NOTES_SHARE = 1 / 12;
const FAILURES_SHARE = 1 / 6;

/**
 * The leading `lines` whose lengths (each plus `gap`, the newlines after it) add up to `budget` characters at most, at
 * most `max` of them; the rest are counted, never cut in the middle (a clipped escape or code span would garble it).
 */
function fitted(
  lines: readonly string[],
  budget: number,
  options: { max?: number; gap?: number } = {},
): { shown: string[]; left: number } {
  const { max = Number.POSITIVE_INFINITY, gap = 1 } = options;
  const shown: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (shown.length >= max || used + line.length + gap > budget) break;
    shown.push(line);
    used += line.length + gap;
  }
  return { shown, left: lines.length - shown.length };
}

/** A change shown in a target's section: anything but an in-sync noop. */
function isVisible(change: Change): boolean {
  return change.action !== 'noop' || change.drift?.detected === true;
}

/** What targetSection returns for a section longer than its budget (left out, only counted). */
const TOO_LONG = Symbol('too long');

/** One collapsible section per target with changes; TOO_LONG once its change lines pass `budget` characters. */
function targetSection(
  plan: Plan,
  group: ReturnType<typeof groupByTarget>[number],
  unmanagedOf: ReadonlyMap<string, number>,
  shownWarnings: ReadonlySet<string>,
  budget: number,
): string | undefined | typeof TOO_LONG {
  const visible = group.changes.filter(isVisible);
  if (visible.length === 0) return undefined;
  const lines: string[] = [];
  // The change lines alone, each with its newline, are shorter than the section: once they pass the budget left, the
  // section is left out whatever follows, so the rest of a project of thousands of changes is never rendered.
  let length = 0;
  for (const change of visible) {
    // A fight whose warning is past the twenty quoted: its line says the way out itself (never "see the warning").
    const fight = change.drift?.fight;
    const shown = fight === undefined || shownWarnings.has(fightWarning(change, fight));
    for (const line of changeLines(change, PLAIN_STYLE, '', shown)) {
      lines.push(line);
      length += line.length + 1;
    }
    if (length > budget) return TOO_LONG;
  }
  const fence = fenceFor(lines);
  const c = countChanges(group.changes);
  const counts = [
    [c.create, 'to create'],
    [c.update, 'to update'],
    [c.delete, 'to delete'],
    [c.release, 'to release'],
    [c.adopt, 'to adopt'],
    [c.blocked, 'blocked'],
    [c.drifted, 'drifted'],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, what]) => `${n} ${what}`)
    .join(', ');
  const mode = escapeHtml(targetModeNote(plan, group.target));
  const out = [`<details><summary><b>${escapeHtml(targetTitle(group.target))}</b>${mode}: ${counts}</summary>`, ''];
  out.push(`${fence}diff`);
  // One by one: a project of thousands of creates has more lines than a spread's arguments may hold (RangeError).
  for (const line of lines) out.push(line);
  out.push(fence, '');
  const unmanaged = unmanagedNote(plan, group.target, unmanagedOf);
  if (unmanaged !== '') out.push(escapeMarkdown(unmanaged), '');
  out.push('</details>', '');
  return out.join('\n');
}

/**
 * The counts table: every target, or when there are many, those with something to say and one row for the rest; rows
 * past `budget` characters are counted in a last row too. A Release column follows Delete when the plan releases a key.
 */
function countsTable(groups: ReturnType<typeof groupByTarget>, budget: number, releases: boolean): string[] {
  const out = releases
    ? [
        '| Target | Create | Update | Delete | Release | Adopt | Blocked | Drifted | Unchanged |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ]
    : [
        '| Target | Create | Update | Delete | Adopt | Blocked | Drifted | Unchanged |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
      ];
  const blank = releases ? ' | | | | | | | | |' : ' | | | | | | | |';
  let used = out.join('\n').length;
  let quietFolded = 0;
  let cut = 0;
  for (const group of groups) {
    const c = countChanges(group.changes);
    const quiet = c.create + c.update + c.delete + c.release + c.adopt + c.blocked + c.drifted === 0;
    if (quiet && groups.length > MAX_TABLE_ROWS) {
      quietFolded++;
      continue;
    }
    const row =
      `| ${escapeMarkdown(targetTitle(group.target))} | ${c.create} | ${c.update} | ${c.delete} | ` +
      (releases ? `${c.release} | ` : '') +
      `${c.adopt} | ` +
      `${c.blocked} | ${c.drifted} | ${c.unchanged} |`;
    if (cut > 0 || used + row.length + 1 > budget) {
      cut++;
      continue;
    }
    out.push(row);
    used += row.length + 1;
  }
  if (cut > 0) out.push(`| ${cut} more targets with changes (in the summary line's counts)${blank}`);
  if (quietFolded > 0) out.push(`| ${quietFolded} more targets, nothing to change${blank}`);
  out.push('');
  return out;
}

/**
 * Renders a plan as GitHub-flavoured Markdown; the result ends with a newline and stays within `maxChars` (default
 * MARKDOWN_MAX_CHARS): target sections that do not fit are counted in a closing note instead, failures are shown three
 * per cause (plan-text.ts) and warnings twenty, each within its share of the budget (the rest counted), and the counts
 * table takes a third of the budget at most (a table of more than MAX_TABLE_ROWS targets also folds the unchanged ones).
 */
export function renderPlanMarkdown(plan: Plan, title = 'opsman-gitops plan', maxChars = MARKDOWN_MAX_CHARS): string {
  const out: string[] = [`### ${escapeMarkdown(title)}`, ''];
  const total = countChanges(plan.changes);
  if (plan.mode !== 'apply') out.push(`Mode \`${plan.mode}\`: nothing will be written.`, '');
  const warnings = plan.warnings ?? [];
  // Each quoted line is followed by an empty one (gap 2).
  const warningLines = warnings.map((w) => `> **Warning:** ${escapeMarkdown(printable(w))}`);
  const quoted = fitted(warningLines, maxChars * WARNINGS_SHARE, { max: MAX_WARNINGS, gap: 2 });
  // A fight's change says "see the warning" only when that warning is quoted.
  const shownWarnings = new Set(warnings.slice(0, quoted.shown.length));
  for (const line of quoted.shown) out.push(line, '');
  if (quoted.left > 0) out.push(`> ${quoted.left} more warnings (in the JSON plan)`, '');
  out.push(`**${summaryLine(total)}**`, '');
  // The failures close the comment, after every folded section: a reviewer reading the counts above must learn here
  // that they leave targets out (a read-only key refused a default server type: 6 targets, none of them counted).
  if (plan.failures.length > 0) {
    const failed = new Set(plan.failures.map((f) => `${f.target.type}:${f.target.id}`)).size;
    out.push(
      `**Incomplete: ${failed} target${failed === 1 ? '' : 's'} could not be planned; ${failed === 1 ? 'its' : 'their'} changes are neither shown nor counted (Failures, at the end).**`,
      '',
    );
  }
  // Notes ask for nothing (a released key with nothing to release): quoted quietly, after the counts line.
  const noteLines = (plan.notes ?? []).map((n) => `> Note: ${escapeMarkdown(printable(n))}`);
  const notes = fitted(noteLines, maxChars * NOTES_SHARE, { max: MAX_WARNINGS, gap: 2 });
  for (const line of notes.shown) out.push(line, '');
  if (notes.left > 0) out.push(`> ${notes.left} more notes (in the JSON plan)`, '');
  if (!hasChanges(plan) && plan.failures.length === 0)
    out.push('No changes. Ops Manager matches the desired state.', '');
  const groups = groupByTarget(plan.changes);
  if (groups.length > 0) out.push(...countsTable(groups, Math.floor(maxChars / 3), total.release > 0));
  const held = heldLine(plan, plan.mode, "see each target's header below");
  if (held !== undefined) out.push(escapeMarkdown(held), '');
  // Blocked changes named above the folded sections: a reviewer who opens none of them still sees what will not happen.
  const blocked = blockedRecap(plan.changes, 'in the sections below');
  if (blocked !== undefined) {
    out.push(`**${escapeMarkdown(blocked.heading)}**`, '');
    for (const entry of blocked.entries) out.push(`- ${escapeMarkdown(entry)}`);
    if (blocked.more !== undefined) out.push(`- ${escapeMarkdown(blocked.more)}`);
    out.push('');
  }
  const tail: string[] = [];
  if (plan.failures.length > 0) {
    tail.push('**Failures**', '');
    // Plain, unindented lines start with "x ": a list item replaces the mark.
    const lines = failureLines(plan.failures, PLAIN_STYLE, '').map((line) => `- ${escapeMarkdown(line.slice(2))}`);
    const failures = fitted(lines, maxChars * FAILURES_SHARE);
    tail.push(...failures.shown);
    if (failures.left > 0)
      tail.push(
        `- ... ${failures.left} more failure line(s) not shown, to keep this comment short (each failure is listed in --json and the run report)`,
      );
    tail.push('');
  }
  tail.push(
    `<sub>run ${escapeMarkdown(plan.runId)}, desired state ${escapeMarkdown(plan.desired.digest.slice(0, 12))}</sub>`,
  );
  // Room kept for the failures, the footer and the note on what was left out.
  let used = out.join('\n').length + tail.join('\n').length + 400;
  let omitted = 0;
  const unmanagedOf = unmanagedCounts(plan);
  for (const group of groups) {
    // Once one section is left out, so is every later one: they are counted, not rendered.
    if (omitted > 0) {
      if (group.changes.some(isVisible)) omitted++;
      continue;
    }
    const section = targetSection(plan, group, unmanagedOf, shownWarnings, maxChars - used - 1);
    if (section === undefined) continue;
    if (section === TOO_LONG || used + section.length + 1 > maxChars) {
      omitted++;
      continue;
    }
    out.push(section);
    used += section.length + 1;
  }
  if (omitted > 0) {
    out.push(
      `_${omitted} more target(s) with changes are not shown, to keep this comment under ${maxChars.toLocaleString('en-US')} characters (GitHub refuses longer ones). ` +
        'The counts above are complete; `opsman-gitops plan` prints every change, and `plan --out plan.json` saves them._',
      '',
    );
  }
  out.push(...tail);
  return `${out.join('\n')}\n`;
}
