/**
 * Structural validation of one document against DESIRED_STATE_SCHEMA (ajv, draft 2020-12, all errors, compiled once,
 * on first use).
 * Ajv's errors are translated by schema-messages.ts; its own text is never shown.
 */
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { swappedThreshold } from './alert-rules.ts';
import { asArray, asRecord } from './issue.ts';
import { formatPath, type LocatedDocument, locate } from './locate.ts';
import { DESIRED_STATE_SCHEMA } from './schema.ts';
import { MERGE_KEY, segmentsOf, translate } from './schema-messages.ts';
import type { ValidationIssue } from './types.ts';

export { describeValue, SECRET_REF_FORM } from './schema-messages.ts';

type Validator = ReturnType<Ajv2020['compile']>;
let compiled: Validator | undefined;

/** The schema's validator, compiled on first use (about 0.1 s): a run whose desired state comes from the cache never pays it. */
function validator(): Validator {
  if (compiled === undefined) {
    const ajv = new Ajv2020({
      allErrors: true,
      verbose: true,
      strict: true,
      strictTypes: false,
      strictRequired: false,
    });
    compiled = ajv.compile(DESIRED_STATE_SCHEMA);
  }
  return compiled;
}

/** Most schema issues translated per document. */
export const MAX_SCHEMA_ISSUES = 200;

/** Validates one document's value; returns its issues (empty when the structure is valid). */
export function checkSchema(located: LocatedDocument, value: unknown, limit = MAX_SCHEMA_ISSUES): ValidationIssue[] {
  const validate = validator();
  if (validate(value)) return [];
  const swapped = swappedMembers(value);
  const errors = (validate.errors ?? []).filter(
    (error) =>
      error.keyword !== 'if' &&
      !mergedIn(error) &&
      !swapped.some((member) => error.instancePath === member || error.instancePath.startsWith(`${member}/`)),
  );
  const typed = new Set(errors.filter((error) => error.keyword === 'type').map((error) => error.instancePath));
  const kind = (value as { kind?: unknown } | null)?.kind;
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  let truncated = false;
  for (const error of errors) {
    if (typed.has(error.instancePath) && error.keyword !== 'type') continue;
    // Translation (positions, did-you-mean) is the costly part: a document this broken needs no more detail.
    if (issues.length >= limit) {
      truncated = true;
      break;
    }
    const issue = translate(located, error, kind);
    const id = `${issue.path}\u0000${issue.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    issues.push(issue);
  }
  const shown = withoutMisspeltRequired(issues, errors);
  return truncated ? [...shown, truncationNote(located, limit)] : shown;
}

/**
 * Said when a document's schema issues were cut at `limit`: without it the count line ("200 errors in 1 file") reads
 * as the whole of it, and the next run after fixing them shows as many new ones. At the document's start, so it is
 * read before its issues.
 */
function truncationNote(located: LocatedDocument, limit: number): ValidationIssue {
  const message = `this document has more schema issues than the ${limit} listed (the rest are not shown); fix those and validate again`;
  return { file: located.file, ...locate(located, []), path: '', message };
}

/**
 * A required field missing from a mapping whose `<<` (a YAML 1.1 merge key, refused with its reason) names a mapping
 * that has it: the author wrote it there, and the merge key's issue says why it is not read; "missing typeName" beside
 * it would read as a second mistake.
 */
function mergedIn(error: ErrorObject): boolean {
  if (error.keyword !== 'required') return false;
  const merged = asRecord(error.data)?.[MERGE_KEY];
  const field = String((error.params as Record<string, unknown>).missingProperty);
  // `<<: *a` names one mapping, `<<: [*a, *b]` several.
  return (Array.isArray(merged) ? merged : [merged]).some((source) => {
    const record = asRecord(source);
    return record !== undefined && Object.hasOwn(record, field);
  });
}

/**
 * JSON pointers of the threshold members written under the other's name (alert-rules.ts reports each once, with the
 * name to write): what the schema says inside them would only be the same mistake, field by field.
 */
function swappedMembers(value: unknown): string[] {
  const configs = asRecord(asRecord(value)?.spec)?.alertConfigs;
  return asArray(configs).flatMap((config, i) => {
    const member = swappedThreshold(config);
    return member === undefined ? [] : [`/spec/alertConfigs/${i}/${member}`];
  });
}

/**
 * One misspelt required field (`eventTypName`, `notifcations`) is one mistake: the unknown field whose did-you-mean
 * (or "it belongs in") names a missing required field says so, and the "missing required field" issue it explains is
 * left out, so the reader gets one message with the way out instead of two that look like two problems.
 */
function withoutMisspeltRequired(issues: ValidationIssue[], errors: readonly ErrorObject[]): ValidationIssue[] {
  const missing = new Set(
    errors
      .filter((error) => error.keyword === 'required')
      .map((error) =>
        formatPath([
          ...segmentsOf(error.instancePath),
          String((error.params as Record<string, unknown>).missingProperty),
        ]),
      ),
  );
  if (missing.size === 0) return issues;
  const explained = new Set<string>();
  const merged = issues.map((issue) => {
    const named = namedBy(issue);
    const field = named.find((path) => missing.has(path) && !explained.has(path));
    if (field === undefined) return issue;
    explained.add(field);
    const name = field.slice(field.lastIndexOf('.') + 1);
    const note = `${name} is required and missing`;
    // One parenthesis of explanation: a message that ends with one takes the note inside it.
    const message = issue.message.endsWith(')')
      ? `${issue.message.slice(0, -1)}; ${note})`
      : `${issue.message} (${note})`;
    return { ...issue, message };
  });
  return merged.filter((issue) => !(issue.expected?.startsWith('field "') && explained.has(issue.path)));
}

/**
 * The paths an unknown-field issue points to as the field meant: its did-you-mean names (at its own level) or the
 * place it belongs. Empty for any other issue.
 */
function namedBy(issue: ValidationIssue): string[] {
  const hint = issue.hint;
  const field = issue.found?.slice(1, -1);
  if (hint === undefined || field === undefined || !issue.message.startsWith('unknown field ')) return [];
  const parent = issue.path === field ? '' : issue.path.slice(0, -field.length - 1);
  if (hint.startsWith('did you mean ')) {
    return [...hint.matchAll(/"([^"]+)"/g)].map((match) => (parent === '' ? match[1] : `${parent}.${match[1]}`) ?? '');
  }
  return hint.startsWith('move it to ') ? hint.slice('move it to '.length).split(' or ') : [];
}
