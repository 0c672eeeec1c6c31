/** Hand-built Plan and RunReport values for renderer and exit-code tests. */
import {
  type Change,
  type ChangeResult,
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlanSummary,
  type RunReport,
  type TargetRef,
} from '../../lambdas/core/model.ts';

/** payments-prod as a target. */
export const PAYMENTS: TargetRef = { type: 'project', id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };
/** analytics-dev as a target. */
export const ANALYTICS: TargetRef = { type: 'project', id: '5e2211c17a3e5a48f5497de6', name: 'analytics-dev' };
/** acme as a target. */
export const ACME: TargetRef = { type: 'organization', id: '5e2211c17a3e5a48f5497de0', name: 'acme' };

/** A change with defaults: an alert config noop in payments-prod. */
export function change(overrides: Partial<Change> = {}): Change {
  return { target: PAYMENTS, kind: 'alertConfig', key: 'k', action: 'noop', fields: [], reason: '', ...overrides };
}

/** A plan around some changes. */
export function plan(changes: Change[], overrides: Partial<Plan> = {}): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: '20261121T100000Z-abcdef',
    createdAt: '2026-11-21T10:00:00.000Z',
    mode: 'apply',
    desired: { digest: 'd'.repeat(64), files: [{ path: 'projects/payments.yaml', sha256: 'a'.repeat(64) }] },
    liveDigests: { [PAYMENTS.id]: 'b'.repeat(64) },
    changes,
    failures: [],
    ...overrides,
  };
}

const EMPTY_SUMMARY: PlanSummary = {
  create: 0,
  update: 0,
  enable: 0,
  disable: 0,
  delete: 0,
  release: 0,
  adopt: 0,
  noop: 0,
  blocked: 0,
  drift: 0,
};

/** A report of applying a plan with the given results. */
export function report(p: Plan, results: ChangeResult[], overrides: Partial<RunReport> = {}): RunReport {
  const planned = { ...EMPTY_SUMMARY };
  for (const c of p.changes) planned[c.action]++;
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: p.runId,
    startedAt: '2026-11-21T10:00:00.000Z',
    finishedAt: '2026-11-21T10:00:01.500Z',
    mode: p.mode,
    plan: p,
    results,
    failures: p.failures,
    summary: {
      planned,
      applied: results.filter((r) => r.status === 'applied').length,
      failed: results.filter((r) => r.status === 'failed').length,
      drift: planned.drift,
      blocked: planned.blocked,
      targetsFailed: p.failures.length,
    },
    apiCalls: { total: 12, byEndpoint: { 'GET /groups/{groupId}/alertConfigs': 2 } },
    durationsMs: { total: 1500 },
    ...overrides,
  };
}
