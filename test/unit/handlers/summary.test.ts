// Scenario: the handler's answer (also the `run finished` log line) stays small when a run fails everywhere: Ops
// Manager down for 1,000 projects lists 20 failures and counts the rest, so the line stays whole JSON in CloudWatch.
import { describe, expect, it } from 'vitest';
import type { Change, ChangeResult, RunReport, TargetFailure } from '../../../lambdas/core/model.ts';
import {
  MAX_LISTED_CHANGES,
  MAX_LISTED_FAILURES,
  MAX_LISTED_FILES,
  MAX_LISTED_WARNINGS,
  summarise,
} from '../../../lambdas/handlers/summary.ts';

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

  it('lists the first 500 desired files of 10,000 (one per project) with their ETags and counts the others, in a line under 256 KB', () => {
    // 10,000 is the loader's file limit (DEFAULT_LOAD_OPTIONS.maxFiles); every file listed made the line about 870 KB.
    const files = Array.from({ length: 10_000 }, (_, i) => ({
      path: `projects/project-${String(i).padStart(5, '0')}.yaml`,
      sha256: 'a'.repeat(64),
      version: `9b2cf535f27731c974343645a39${String(i).padStart(5, '0')}`,
    }));
    const base = report([]);
    const r = { ...base, plan: { ...base.plan, desired: { digest: 'd', files } } } as RunReport;
    const summary = summarise(r, 'schedule', 'apply', 1);
    expect(summary.desired?.files).toHaveLength(MAX_LISTED_FILES);
    expect(summary.desired?.files[499]).toEqual({ path: 'projects/project-00499.yaml', version: files[499]?.version });
    expect(summary.desired?.filesNotListed).toBe(9_500);
    expect(summary.desired?.digest).toBe('d');
    expect(JSON.stringify({ summary }).length).toBeLessThan(64 * 1024);
    // Exactly the limit: all listed, nothing said of unlisted files.
    const limit = {
      ...base,
      plan: { ...base.plan, desired: { digest: 'd', files: files.slice(0, 500) } },
    } as RunReport;
    expect(summarise(limit, 'schedule', 'apply', 1).desired).not.toHaveProperty('filesNotListed');
    const few = { ...base, plan: { ...base.plan, desired: { digest: 'd', files: files.slice(0, 3) } } } as RunReport;
    expect(summarise(few, 'schedule', 'apply', 1).desired).toEqual({
      digest: 'd',
      files: files.slice(0, 3).map(({ path, version }) => ({ path, version })),
    });
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

const target = { type: 'project' as const, id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };

function change(key: string): Change {
  return { target, kind: 'alertConfig', key, action: 'update', fields: [], reason: '' } as unknown as Change;
}

describe('the status and the lists of a summary', () => {
  it.each([
    ['a failed target', { targetsFailed: 1 }, {}],
    ['a failed change', { failed: 1 }, {}],
    ['an interrupted run', {}, { interrupted: { reason: "the Lambda's time limit is 60 s away", notStarted: 3 } }],
  ])('%s makes the run partial', (_name, counts, extra) => {
    const base = report([]);
    const r = { ...base, ...extra, summary: { ...base.summary, ...counts } } as RunReport;
    expect(summarise(r, 'schedule', 'apply', 1).status).toBe('partial');
  });

  it("an archive's answer lists its usage keys sorted (stable, whatever order the writes ended in), without locations", () => {
    const archive = {
      manifest: { sha256: 'ab'.repeat(32), key: 'k', changed: false, location: '/a/k' },
      usage: { month: '2026-11', keys: ['usage/2026-11/physical-hosts.json', 'usage/2026-11/host-assignments.json'] },
      errors: [],
    };
    expect(summarise({ ...report([]), archive } as RunReport, 'schedule', 'archive', 1).archive).toEqual({
      manifest: { sha256: 'ab'.repeat(32), changed: false },
      usage: { month: '2026-11', keys: ['usage/2026-11/host-assignments.json', 'usage/2026-11/physical-hosts.json'] },
    });
    expect(summarise(report([]), 'schedule', 'apply', 1)).not.toHaveProperty('archive');
  });

  it('a run without failures nor interruption is ok', () => {
    expect(summarise(report([]), 'schedule', 'apply', 1).status).toBe('ok');
  });

  it('lists the failed and the not-converging changes, with message, code and HTTP status, and nothing else', () => {
    const results: ChangeResult[] = [
      { change: change('applied'), status: 'applied', durationMs: 1 },
      {
        change: change('refused'),
        status: 'failed',
        durationMs: 1,
        message: 'PUT refused',
        code: 'OPSMAN_API_ERROR',
        httpStatus: 409,
      },
      { change: change('drifting'), status: 'not-converging', durationMs: 1, message: 'threshold differs after write' },
      { change: change('held'), status: 'skipped', durationMs: 1, message: 'not deleted' },
    ];
    const summary = summarise({ ...report([]), results } as RunReport, 'schedule', 'apply', 1);
    expect(summary.failedChanges).toEqual([
      {
        target: 'project:payments-prod',
        kind: 'alertConfig',
        key: 'refused',
        action: 'update',
        status: 'failed',
        message: 'PUT refused',
        code: 'OPSMAN_API_ERROR',
        httpStatus: 409,
      },
      {
        target: 'project:payments-prod',
        kind: 'alertConfig',
        key: 'drifting',
        action: 'update',
        status: 'not-converging',
        message: 'threshold differs after write',
      },
    ]);
  });

  it('lists the first 20 failed changes and the first 20 warnings only', () => {
    const results: ChangeResult[] = Array.from({ length: 30 }, (_, i) => ({
      change: change(`k${i}`),
      status: 'failed',
      durationMs: 1,
    }));
    const warnings = Array.from({ length: 30 }, (_, i) => `warning ${i}`);
    const summary = summarise({ ...report([]), results, warnings } as RunReport, 'schedule', 'apply', 1);
    expect(summary.failedChanges?.map((c) => c.key)).toEqual(
      results.slice(0, MAX_LISTED_CHANGES).map((r) => r.change.key),
    );
    expect(summary.failedChangesNotListed).toBe(10);
    expect(summary.warnings).toEqual(warnings.slice(0, MAX_LISTED_WARNINGS));
    // Exactly the limit: all listed, nothing said of unlisted ones.
    const limit = summarise({ ...report([]), results: results.slice(0, 20) } as RunReport, 'schedule', 'apply', 1);
    expect(limit).not.toHaveProperty('failedChangesNotListed');
  });

  it("gives a failure's HTTP status, the count of targets a window held, and whether an archive can be retried", () => {
    const failure: TargetFailure = {
      target,
      phase: 'read',
      message: 'GET failed',
      code: 'OPSMAN_API_ERROR',
      httpStatus: 503,
    };
    const r = {
      ...report([failure]),
      heldByWindows: [{ target }, { target: { ...target, id: 'p2', name: 'p2' } }],
      archive: { retryable: true },
    } as unknown as RunReport;
    const summary = summarise(r, 'schedule', 'archive', 1);
    expect(summary.failures).toEqual([
      {
        target: 'project:payments-prod',
        phase: 'read',
        message: 'GET failed',
        code: 'OPSMAN_API_ERROR',
        httpStatus: 503,
      },
    ]);
    expect(summary.heldByWindows).toBe(2);
    expect(summary.retryable).toBe(true);
    expect(summarise(report([]), 'schedule', 'apply', 1)).not.toHaveProperty('heldByWindows');
  });
});
