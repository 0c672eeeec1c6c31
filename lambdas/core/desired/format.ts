/**
 * Issues as a compiler prints them: `file:line:col: message`, one per line, then a count.
 */
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

/** Renders issues, one `file:line:col: message` line each, and a final `N errors in M files` line. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  const lines = issues.map((issue) => `${issue.file}:${issue.line}:${issue.column}: ${issue.message}`);
  const files = new Set(issues.map((issue) => issue.file)).size;
  const n = issues.length;
  lines.push(`${n} ${n === 1 ? 'error' : 'errors'} in ${files} ${files === 1 ? 'file' : 'files'}`);
  return `${lines.join('\n')}\n`;
}
