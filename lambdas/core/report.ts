/** Builds the run report and its summary counts, and writes it through the ArchiveStore. */

import { encodeChunks, jsonChunks } from './json-chunks.ts';
import {
  ACTION_ORDER,
  type Change,
  type ChangeResult,
  type Plan,
  type PlanSummary,
  type RunReport,
  type TargetFailure,
  type TargetRef,
  targetKey,
} from './model.ts';
import type { ArchiveStore } from './ports.ts';

/**
 * Above this many plan changes plus results, a stored report is compact JSON (no indentation): the same document,
 * about 40% smaller. A first apply of 1,000 projects x 20 alert configs holds 20,000 changes twice (in the plan and in
 * the results), 38 MB indented.
 */
export const COMPACT_REPORT_ENTRIES = 2_000;

/** Counts of a plan by action (every action present, zero when absent). */
export function summarisePlan(plan: Plan): PlanSummary {
  const counts = Object.fromEntries(ACTION_ORDER.map((a) => [a, 0])) as PlanSummary;
  for (const c of plan.changes) counts[c.action]++;
  return counts;
}

/**
 * The target an archive run records each archive error under in `failures`, so `targetsFailed` and the Lambda's
 * metrics count a failed archive; a renderer that lists `archive.errors` leaves these out (they are the same errors).
 */
export const ARCHIVE_TARGET: Readonly<TargetRef> = Object.freeze({ type: 'global', id: 'global', name: 'archive' });

/** The target a run records a failed state save under in `failures`: titled `state`, never as Ops Manager. */
export const STATE_TARGET: Readonly<TargetRef> = Object.freeze({ type: 'global', id: 'state', name: 'state' });

/** Whether `failure` is an archive error recorded under {@link ARCHIVE_TARGET}. */
export function isArchiveFailure(failure: TargetFailure): boolean {
  return failure.target.type === ARCHIVE_TARGET.type && failure.target.name === ARCHIVE_TARGET.name;
}

/** Start of the run warning that says the run report was not written (the rest says where and why). */
export const REPORT_NOT_WRITTEN = 'the run report could not be written';

/** The failure entry a failed write adds to a run's `failures` (collectFailures). */
export function failedWriteFailure(result: ChangeResult): TargetFailure {
  const change = result.change;
  return {
    target: change.target,
    phase: 'apply',
    message: `${change.kind} ${change.key}: ${change.action} failed: ${result.message ?? 'unknown error'}`,
    ...(result.code === undefined ? {} : { code: result.code }),
    ...(result.httpStatus === undefined ? {} : { httpStatus: result.httpStatus }),
  };
}

/** Every failure of a run: the plan's target failures, apply's, and one per failed change. */
export function collectFailures(plan: Plan, applyFailures: TargetFailure[], results: ChangeResult[]): TargetFailure[] {
  const out = [...plan.failures, ...applyFailures];
  for (const r of results) if (r.status === 'failed') out.push(failedWriteFailure(r));
  return out;
}

/**
 * `failures` less the entries that only repeat a failed write of `results` (failedWriteFailure): a summary that lists
 * each result already says it failed, and why. Each entry left out matches one failed write, once.
 */
export function failuresBeyondWrites(
  failures: readonly TargetFailure[],
  results: readonly ChangeResult[],
): TargetFailure[] {
  const text = (f: TargetFailure) => `${targetKey(f.target)}|${f.phase}|${f.code ?? ''}|${f.message}`;
  const repeats = new Map<string, number>();
  for (const r of results) {
    if (r.status !== 'failed') continue;
    const key = text(failedWriteFailure(r));
    repeats.set(key, (repeats.get(key) ?? 0) + 1);
  }
  return failures.filter((f) => {
    const left = repeats.get(text(f)) ?? 0;
    if (left === 0) return true;
    repeats.set(text(f), left - 1);
    return false;
  });
}

/** The summary block of a report. */
export function summariseRun(plan: Plan, results: ChangeResult[], failures: TargetFailure[]): RunReport['summary'] {
  return {
    planned: summarisePlan(plan),
    applied: results.filter((r) => r.status === 'applied').length,
    failed: results.filter((r) => r.status === 'failed' || r.status === 'not-converging').length,
    drift: plan.changes.filter((c) => c.action === 'drift' || c.drift?.detected === true).length,
    blocked: plan.changes.filter((c) => c.action === 'blocked').length,
    targetsFailed: new Set(failures.map((f) => targetKey(f.target))).size,
  };
}

/** The archive key of a run's report: `reports/<YYYY-MM-DD>/<runId>.json`. */
export function reportKey(startedAt: string, runId: string): string {
  return `reports/${startedAt.slice(0, 10)}/${runId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
}

/** A report as archived: its plan's plain in-sync changes counted per target (`plan.inSync`) instead of listed. */
export type StoredRunReport = Omit<RunReport, 'plan'> & { plan: Plan & { inSync?: Record<string, number> } };

/** A change that says nothing but "in sync": a noop with no differing field and no drift. */
function plainInSync(change: Change): boolean {
  return change.action === 'noop' && change.fields.length === 0 && change.drift === undefined;
}

/**
 * The report as it is archived. A scheduled no-op run of 1,000 projects x 20 alert configs would otherwise store
 * 20,000 identical "in sync" entries (about 4 MB) every few minutes; their number per target is what an audit needs,
 * and the summary already counts them. Everything else is stored as it is: every other change (a noop with
 * differing fields, as an unenforced audit-log rotation, included), results, failures, warnings.
 */
export function storedReport(report: RunReport): StoredRunReport {
  const inSync: Record<string, number> = {};
  let omitted = 0;
  const changes: Change[] = [];
  for (const change of report.plan.changes) {
    if (plainInSync(change)) {
      const key = targetKey(change.target);
      inSync[key] = (inSync[key] ?? 0) + 1;
      omitted++;
    } else changes.push(change);
  }
  if (omitted === 0) return report;
  return { ...report, plan: { ...report.plan, changes, inSync } };
}

/** The stored text of a report in pieces: JSON, indented by 2 unless the report is large (COMPACT_REPORT_ENTRIES). */
function reportPieces(report: RunReport): Iterable<string> {
  const stored = storedReport(report);
  const large = stored.plan.changes.length + stored.results.length > COMPACT_REPORT_ENTRIES;
  return jsonChunks(stored, { indent: large ? 0 : 2, splitDepth: 3 });
}

/**
 * The stored bytes of a report (storedReport): its JSON ending with a newline, encoded piece by piece straight into
 * one byte array (no string of the whole report exists).
 */
export function reportBytes(report: RunReport): Uint8Array {
  return encodeChunks(reportPieces(report), '\n');
}

function* withNewline(pieces: Iterable<string>): Generator<string> {
  yield* pieces;
  yield '\n';
}

/** Writes the report (streamed when the store can, else as bytes); returns its location. */
export async function writeReport(archive: ArchiveStore, report: RunReport): Promise<string> {
  const key = reportKey(report.startedAt, report.runId);
  const options = { contentType: 'application/json' };
  const put =
    archive.putPieces === undefined
      ? await archive.put(key, reportBytes(report), options)
      : await archive.putPieces(key, withNewline(reportPieces(report)), options);
  return put.location;
}
