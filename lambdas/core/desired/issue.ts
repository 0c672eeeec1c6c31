/**
 * Helpers of the checks: safe access to unvalidated document values, and issues at a path of a document.
 */
import { isRecord } from '../../../shared/is-record.ts';
import { formatPath, type LocatedDocument, locate, type PathSegment } from './locate.ts';
import type { ValidationIssue } from './types.ts';

/** The value as a plain mapping, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

/** The value as a list, or an empty list. */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The value as a string, or undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** An issue at `segments` of a document (the key's position with `on: 'key'`). */
export function issueAt(
  located: LocatedDocument,
  segments: readonly PathSegment[],
  message: string,
  extra: Pick<ValidationIssue, 'expected' | 'found' | 'hint'> = {},
  on: 'value' | 'key' = 'value',
): ValidationIssue {
  const issue: ValidationIssue = {
    file: located.file,
    ...locate(located, segments, on),
    path: formatPath(segments),
    message,
  };
  if (extra.expected !== undefined) issue.expected = extra.expected;
  if (extra.found !== undefined) issue.found = extra.found;
  if (extra.hint !== undefined) issue.hint = extra.hint;
  return issue;
}

/** `payments.yaml:12` for messages that point at another place. */
export function where(located: LocatedDocument, segments: readonly PathSegment[]): string {
  return `${located.file}:${locate(located, segments).line}`;
}
