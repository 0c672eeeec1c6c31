/**
 * What a `--markdown` run prints on stdout when it fails before it has a plan to print: a short comment saying that no
 * plan was made, why, and (for an invalid desired state) where. A pipeline that posts stdout as the pull request's plan
 * comment (`plan --markdown > plan.md`) then replaces the last plan with the failure, instead of posting nothing and
 * leaving a plan of an earlier push on the pull request as if it were current (as Atlantis comments a failed plan).
 * The exit code is unchanged; stderr still says it in words.
 */

import { printable } from '../core/printable.ts';
import { escapeMarkdown, MARKDOWN_MAX_CHARS } from '../core/render/plan-markdown.ts';
import { COMMAND_INFO, COMMANDS, type CommandName } from './commands-table.ts';
import type { FailureDocument } from './json-failure.ts';
import { commandWord, flagGiven } from './options.ts';

/** Issues listed one by one before the rest are counted (`validate` lists them all). */
export const MAX_MARKDOWN_ISSUES = 50;

/** Characters of an error message quoted before the rest is only counted (stderr has it whole). */
export const MAX_MARKDOWN_MESSAGE = 4_000;

/** The message, cut by code points (never inside a pair, nor an escape made afterwards) once past the cap. */
function quotedMessage(message: string): string {
  const points = Array.from(message);
  if (points.length <= MAX_MARKDOWN_MESSAGE) return message;
  const left = points.length - MAX_MARKDOWN_MESSAGE;
  return `${points.slice(0, MAX_MARKDOWN_MESSAGE).join('')} ... (${left} more characters: the run's stderr has the whole message)`;
}

/** The fields of a validation issue the comment shows. */
interface IssueAt {
  file?: unknown;
  line?: unknown;
  column?: unknown;
  message?: unknown;
}

function issueLine(issue: unknown): string {
  const { file, line, column, message } = (issue ?? {}) as IssueAt;
  const at = [file, line, column].filter((part) => part !== undefined).join(':');
  const text = printable(`${at === '' ? '' : `${at}: `}${String(message ?? '')}`);
  return `- ${escapeMarkdown(text)}`;
}

/**
 * The failure as GitHub-flavoured Markdown ending with a newline: the heading of the command's comment (`opsman-gitops
 * plan`, `opsman-gitops drift report`), the error with its
 * code, the first MAX_MARKDOWN_ISSUES issues (the rest counted), always within MARKDOWN_MAX_CHARS.
 */
export function renderFailureMarkdown(doc: FailureDocument, command: string): string {
  // The heading the comment has when the run succeeds (run-request.ts), so a pipeline finds and replaces it alike.
  const title = command === 'observe' ? 'drift report' : command;
  const out = [
    `### opsman-gitops ${escapeMarkdown(title)}`,
    '',
    // A stable code of this tool's own (`CLI_USAGE`, `DESIRED_STATE_INVALID`): a code span, with no backtick to close it.
    `**No plan: ${escapeMarkdown(printable(quotedMessage(doc.error.message)))}** (\`${doc.error.code.replaceAll('`', '')}\`)`,
    '',
  ];
  const issues = doc.issues ?? [];
  let used = out.join('\n').length + 200;
  let shown = 0;
  for (const issue of issues) {
    const line = issueLine(issue);
    if (shown >= MAX_MARKDOWN_ISSUES || used + line.length + 1 > MARKDOWN_MAX_CHARS) break;
    out.push(line);
    used += line.length + 1;
    shown++;
  }
  if (issues.length > shown)
    out.push(`- ... ${issues.length - shown} more (\`opsman-gitops validate\` lists them all)`);
  if (issues.length > 0) out.push('');
  out.push('Nothing was planned, and nothing was written.');
  return `${out.join('\n')}\n`;
}

/**
 * True when the command line asks `plan` or `observe` for `--markdown` (and not for `--json`, whose failure document
 * wins): its failure then goes on stdout as a Markdown comment too. Read from argv, as wantsJson does, so that a usage
 * error (which has no parsed options) is covered as well.
 */
export function wantsMarkdown(argv: readonly string[]): boolean {
  const command = commandWord(argv);
  if (command === undefined || !(COMMANDS as readonly string[]).includes(command)) return false;
  if (flagGiven(argv, '--json') || !flagGiven(argv, '--markdown')) return false;
  return COMMAND_INFO[command as CommandName].uses.includes('markdown');
}
