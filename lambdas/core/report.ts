/** Builds the run report and its summary counts, and writes it through the ArchiveStore. */
import {
  ACTION_ORDER,
  type ChangeResult,
  type Plan,
  type PlanSummary,
  type RunReport,
  type TargetFailure,
  targetKey,
} from './model.ts';
import type { ArchiveStore } from './ports.ts';

/** Counts of a plan by action (every action present, zero when absent). */
export function summarisePlan(plan: Plan): PlanSummary {
  const counts = Object.fromEntries(ACTION_ORDER.map((a) => [a, 0])) as PlanSummary;
  for (const c of plan.changes) counts[c.action]++;
  return counts;
}

/** Every failure of a run: the plan's target failures, apply's, and one per failed change. */
export function collectFailures(plan: Plan, applyFailures: TargetFailure[], results: ChangeResult[]): TargetFailure[] {
  const out = [...plan.failures, ...applyFailures];
  for (const r of results) {
    if (r.status !== 'failed') continue;
    out.push({
      target: r.change.target,
      phase: 'apply',
      message: `${r.change.kind} ${r.change.key}: ${r.change.action} failed: ${r.message ?? 'unknown error'}`,
    });
  }
  return out;
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

/** Writes the report; returns its location. */
export async function writeReport(archive: ArchiveStore, report: RunReport): Promise<string> {
  const put = await archive.put(reportKey(report.startedAt, report.runId), `${JSON.stringify(report, null, 2)}\n`, {
    contentType: 'application/json',
  });
  return put.location;
}
