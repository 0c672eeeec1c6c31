/** Exit codes from plans and reports, in one place (docs/cli.md documents them). */
import type { Plan, RunReport } from '../core/model.ts';
import { countChanges, hasChanges } from '../core/render/summary.ts';
import { EXIT } from './errors.ts';

/** 1 when a target failed or a change is blocked; else 0, or with `detailed` 2 when there is anything to show. */
export function planExitCode(plan: Plan, detailed: boolean): number {
  if (plan.failures.length > 0 || countChanges(plan.changes).blocked > 0) return EXIT.error;
  if (detailed && hasChanges(plan)) return EXIT.changes;
  return EXIT.ok;
}

/** 1 when anything failed, did not converge, was blocked, or a target failed; else 0. */
export function reportExitCode(report: RunReport): number {
  const bad = report.results.some((r) => r.status === 'failed' || r.status === 'not-converging');
  if (bad || report.failures.length > 0 || report.plan.failures.length > 0) return EXIT.error;
  if (countChanges(report.plan.changes).blocked > 0) return EXIT.error;
  return EXIT.ok;
}
