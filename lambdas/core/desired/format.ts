/**
 * Issues as a compiler prints them: `file:line:col: message`, one per line, then a count.
 */
import { printable } from '../printable.ts';
import type { ValidationIssue } from './types.ts';

/**
 * Orders issues by file, line, column, then message (the order `loadDesiredState` returns), dropping exact repeats
 * (an aliased node reached twice reports once).
 */
export function sortIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  const seen = new Set<string>();
  const unique = issues.filter((issue) => {
    const id = `${issue.file}\u0000${issue.line}\u0000${issue.column}\u0000${issue.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return unique.sort(
    (a, b) => cmp(a.file, b.file) || cmp(a.line, b.line) || cmp(a.column, b.column) || cmp(a.message, b.message),
  );
}

/**
 * An issue whose every text (file, path, message, expected, found, hint) is printable: the loader returns only such
 * issues, whatever a check quoted from the files (a key, a name, a template or alert key, a file name).
 */
export function printableIssue(issue: ValidationIssue): ValidationIssue {
  const out: ValidationIssue = {
    ...issue,
    file: printable(issue.file),
    path: printable(issue.path),
    message: printable(issue.message),
  };
  if (issue.expected !== undefined) out.expected = printable(issue.expected);
  if (issue.found !== undefined) out.found = printable(issue.found);
  if (issue.hint !== undefined) out.hint = printable(issue.hint);
  return out;
}

/** Renders issues, one `file:line:col: message` line each, and a final `N errors in M files` line. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  const lines = issues.map((issue) => `${issue.file}:${issue.line}:${issue.column}: ${issue.message}`);
  const files = new Set(issues.map((issue) => issue.file)).size;
  const n = issues.length;
  lines.push(`${n} ${n === 1 ? 'error' : 'errors'} in ${files} ${files === 1 ? 'file' : 'files'}`);
  return `${lines.join('\n')}\n`;
}
