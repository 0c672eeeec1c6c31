/**
 * Structural validation of one document against DESIRED_STATE_SCHEMA (ajv, draft 2020-12, all errors, compiled once,
 * on first use).
 * Ajv's errors are translated by schema-messages.ts; its own text is never shown.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { LocatedDocument } from './locate.ts';
import { DESIRED_STATE_SCHEMA } from './schema.ts';
import { translate } from './schema-messages.ts';
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
  const errors = (validate.errors ?? []).filter((error) => error.keyword !== 'if');
  const typed = new Set(errors.filter((error) => error.keyword === 'type').map((error) => error.instancePath));
  const kind = (value as { kind?: unknown } | null)?.kind;
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    if (typed.has(error.instancePath) && error.keyword !== 'type') continue;
    // Translation (positions, did-you-mean) is the costly part: a document this broken needs no more detail.
    if (issues.length >= limit) break;
    const issue = translate(located, error, kind);
    const id = `${issue.path}\u0000${issue.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    issues.push(issue);
  }
  return issues;
}
