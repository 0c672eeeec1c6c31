// Scenario: the handler's answer (also the `run finished` log line) stays small when a run fails everywhere: Ops
// Manager down for 1,000 projects lists 20 failures and counts the rest, so the line stays whole JSON in CloudWatch.
import { describe, expect, it } from 'vitest';
import type { RunReport, TargetFailure } from '../../../lambdas/core/model.ts';
import { MAX_LISTED_FAILURES, summarise } from '../../../lambdas/handlers/summary.ts';

function report(failures: TargetFailure[]): RunReport {
  // Only what summarise reads.
  return {
    runId: 'run-1',
    mode: 'apply',
    failures,
    results: [],
    apiCalls: { total: 1000, byEndpoint: {} },
    plan: { desired: { digest: 'd', files: [] }, changes: [] },
    summary: { planned: {}, applied: 0, failed: 0, drift: 0, blocked: 0, targetsFailed: failures.length },
  } as unknown as RunReport;
}

describe('summarise', () => {
  it('lists the first 20 failures of 1,000 and counts the others, in a line far under 256 KB', () => {
    const failures: TargetFailure[] = Array.from({ length: 1000 }, (_, i) => ({
      target: { type: 'project', id: `p${i}`, name: `project-${i}` },
      phase: 'read',
      message: `GET /groups/{groupId}/alertConfigs: no answer after 4 attempts: connect ECONNREFUSED 10.0.0.1:8443 ${'x'.repeat(200)}`,
      code: 'OPSMAN_TRANSPORT_ERROR',
    }));
    const summary = summarise(report(failures), 'schedule', 'apply', 1);
    expect(summary.failures).toHaveLength(MAX_LISTED_FAILURES);
    expect(summary.failures?.[0]?.target).toBe('project:project-0');
    expect(summary.failuresNotListed).toBe(980);
    expect(summary.targetsFailed).toBe(1000);
    expect(JSON.stringify(summary).length).toBeLessThan(16_000);
  });

  it('says nothing of unlisted failures when all are listed', () => {
    const one: TargetFailure = { target: { type: 'project', id: 'p', name: 'p' }, phase: 'plan', message: 'm' };
    expect(summarise(report([one]), 'schedule', 'apply', 1).failuresNotListed).toBeUndefined();
  });

  it('says a run limited to some projects was, with their count and the first 20 ids', () => {
    const full = report([]);
    expect(summarise(full, 'manual', 'apply', 1).projects).toBeUndefined();
    const ids = Array.from({ length: 30 }, (_, i) => i.toString(16).padStart(24, '0'));
    const limited = { ...full, plan: { ...full.plan, projects: ids } } as RunReport;
    expect(summarise(limited, 'manual', 'apply', 1).projects).toEqual({ count: 30, ids: ids.slice(0, 20) });
  });
});
