/**
 * The first check of every document: a mapping with the supported apiVersion and a known kind. Documents failing it
 * get no further checks (their fields mean nothing without a kind).
 */
import { suggestion } from './did-you-mean.ts';
import { API_VERSION, KINDS } from './enums.ts';
import { asRecord, issueAt } from './issue.ts';
import type { ParsedDocument } from './parse.ts';
import { describeValue } from './schema-check.ts';
import { meantTemplateName } from './template-name.ts';
import type { ValidationIssue } from './types.ts';

/** Kind of a document. */
export type Kind = (typeof KINDS)[number];

/** The document's kind, or the issue that stops it. */
export function checkHeader(document: ParsedDocument): { kind: Kind } | { issue: ValidationIssue } {
  const value = asRecord(document.value);
  if (!value) {
    const found = Array.isArray(document.value) ? 'a list' : describeValue(document.value);
    const message = `a desired-state document must be a mapping with apiVersion, kind, metadata and spec; found ${found}`;
    return { issue: issueAt(document, [], message, { expected: 'a mapping', found }) };
  }
  if (value.apiVersion === undefined) {
    const message = `missing apiVersion: every document starts with "apiVersion: ${API_VERSION}"`;
    return { issue: issueAt(document, [], message, { expected: API_VERSION }) };
  }
  if (value.apiVersion !== API_VERSION) {
    const found = describeValue(value.apiVersion);
    const message = `unknown apiVersion ${found}: this version of opsman-gitops reads "${API_VERSION}"`;
    return { issue: issueAt(document, ['apiVersion'], message, { expected: API_VERSION, found }) };
  }
  const kind = value.kind;
  if (typeof kind === 'string' && (KINDS as readonly string[]).includes(kind)) return { kind: kind as Kind };
  if (kind === undefined) {
    const message = `missing kind: one of ${KINDS.join(', ')}`;
    return { issue: issueAt(document, [], message, { expected: KINDS.join(', ') }) };
  }
  const found = describeValue(kind);
  const hint = typeof kind === 'string' ? suggestion(kind, KINDS) : { text: '' };
  const message = `unknown kind ${found}: expected one of ${KINDS.join(', ')}${hint.text}`;
  return {
    issue: issueAt(document, ['kind'], message, {
      expected: KINDS.join(', '),
      found,
      ...(hint.hint ? { hint: hint.hint } : {}),
    }),
  };
}

/**
 * The metadata.name of a document refused by checkHeader that is meant as an AlertTemplate (its kind is AlertTemplate,
 * or a misspelling of it: `AlertTemplat`), or undefined. Projects naming it are not told it is unknown: its own error
 * says what is wrong, and fixing that one error is what makes every reference to it good.
 */
export function refusedTemplateName(document: ParsedDocument): string | undefined {
  const value = asRecord(document.value);
  return meantTemplateName(value?.kind, asRecord(value?.metadata)?.name);
}
