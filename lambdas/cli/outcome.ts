/** Exit codes from plans and reports, in one place (docs/cli.md documents them). */
import type { Plan, RunReport } from '../core/model.ts';
import { countChanges, hasChanges, hasWrites } from '../core/render/summary.ts';
import { EXIT } from './errors.ts';

/**
 * 1 when a target failed or a change is blocked. Else 0, or with `detailed`: 2 when apply would write something
 * (plan; drift of an expectation that is not enforced writes nothing, so it is 0 as in Terraform), or when anything
 * drifted (observe, whose every difference is drift).
 */
export function planExitCode(plan: Plan, detailed: boolean, command: 'plan' | 'observe' = 'plan'): number {
  if (plan.failures.length > 0 || countChanges(plan.changes).blocked > 0) return EXIT.error;
  if (!detailed) return EXIT.ok;
  const changed = command === 'observe' ? hasChanges(plan) : hasWrites(plan);
  return changed ? EXIT.changes : EXIT.ok;
}

/** 1 when anything failed, did not converge, was blocked, a target failed, or an archive step failed; else 0. */
export function reportExitCode(report: RunReport): number {
  if ((report.archive?.errors.length ?? 0) > 0) return EXIT.error;
  const bad = report.results.some((r) => r.status === 'failed' || r.status === 'not-converging');
  if (bad || report.failures.length > 0 || report.plan.failures.length > 0) return EXIT.error;
  if (countChanges(report.plan.changes).blocked > 0) return EXIT.error;
  return EXIT.ok;
}
