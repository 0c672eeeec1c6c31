/**
 * JSON output with a stable key order: known keys of the plan and report first in a fixed order, every other key
 * sorted, so two runs with the same plan print byte-identical JSON (diffable, cacheable, reviewable).
 */
import type { Plan, RunReport } from '../model.ts';
import { printableLines } from '../printable.ts';

/** Keys printed first, in this relative order, wherever they occur; the rest follow sorted. */
export const KEY_ORDER: readonly string[] = [
  'formatVersion',
  'runId',
  'startedAt',
  'finishedAt',
  'createdAt',
  'mode',
  'summary',
  'desired',
  'digest',
  'files',
  'liveDigests',
  'stateVersion',
  'plan',
  'results',
  'changes',
  'failures',
  'change',
  'status',
  'target',
  'type',
  'kind',
  'key',
  'action',
  'phase',
  'id',
  'name',
  'path',
  'before',
  'after',
  'fields',
  'secret',
  'note',
  'reason',
  'message',
  'drift',
];

const RANK = new Map(KEY_ORDER.map((key, index) => [key, index]));

/** A deep copy whose object keys follow KEY_ORDER, then sort; undefined values are dropped. */
export function canonicalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalize);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  entries.sort(([a], [b]) => {
    const ra = RANK.get(a) ?? Number.MAX_SAFE_INTEGER;
    const rb = RANK.get(b) ?? Number.MAX_SAFE_INTEGER;
    if (ra !== rb) return ra - rb;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  const out: Record<string, unknown> = {};
  for (const [key, inner] of entries) out[key] = canonicalize(inner);
  return out;
}

/**
 * Any value as stable, indented JSON ending with a newline. JSON.stringify escapes C0 controls only; the C1 controls,
 * bidi and zero-width characters it leaves raw are escaped too (`\u202e`), so `plan --json` on a terminal shows them
 * inert. The text parses to the same value: JSON allows any character as its escape, and a raw newline in the text is
 * only ever the indentation's.
 */
export function renderJson(value: unknown): string {
  return `${printableLines(JSON.stringify(canonicalize(value), null, 2))}\n`;
}

/** The plan value as JSON (what `plan --json` prints and `plan --out` saves). */
export function renderPlanJson(plan: Plan): string {
  return renderJson(plan);
}

/** The run report as JSON (what `apply --json` prints). */
export function renderReportJson(report: RunReport): string {
  return renderJson(report);
}
