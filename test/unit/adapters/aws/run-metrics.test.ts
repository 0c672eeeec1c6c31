// Scenario: the per-run metrics of the handlers: LastSuccess only for a run that finished without failures, and a run
// stopped near its time limit counts as RunInterrupted instead (so the staleness alarm still fires when no run ever
// finishes in time).
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../../../lambdas/core/model.ts';
import { addRunMetrics } from '../../../../lambdas/handlers/metrics.ts';

function recorder(): { metrics: Metrics; seen: Map<string, number> } {
  const seen = new Map<string, number>();
  const metrics = { addMetric: (name: string, _unit: string, value: number) => seen.set(name, value) };
  return { metrics: metrics as unknown as Metrics, seen };
}

function report(extra: Partial<RunReport> = {}, failed = 0): RunReport {
  const planned = { create: 2, update: 0, enable: 0, disable: 0, delete: 0, adopt: 0, noop: 3, blocked: 0, drift: 0 };
  return {
    summary: { planned, applied: 1, failed, drift: 0, blocked: 0, targetsFailed: 0 },
    apiCalls: { total: 9, byEndpoint: {} },
    ...extra,
  } as unknown as RunReport;
}

describe('addRunMetrics', () => {
  it('a finished run without failures is a LastSuccess', () => {
    const { metrics, seen } = recorder();
    addRunMetrics(metrics, report(), 120);
    expect(seen.get('LastSuccess')).toBe(1);
    expect(seen.has('RunInterrupted')).toBe(false);
    expect(seen.get('ChangesPlanned')).toBe(2);
  });

  it('a run stopped near its time limit is RunInterrupted, never LastSuccess', () => {
    const { metrics, seen } = recorder();
    addRunMetrics(
      metrics,
      report({ interrupted: { reason: "the Lambda's time limit is 60 s away", notStarted: 4 } }),
      1,
    );
    expect(seen.get('RunInterrupted')).toBe(1);
    expect(seen.has('LastSuccess')).toBe(false);
  });

  it('a run with a failed change is not a LastSuccess', () => {
    const { metrics, seen } = recorder();
    addRunMetrics(metrics, report({}, 1), 1);
    expect(seen.has('LastSuccess')).toBe(false);
    // The run's other metrics are still sent: only the success is withheld.
    expect(seen.get('ChangesApplied')).toBe(1);
    expect(seen.get('TargetsFailed')).toBe(0);
  });

  // The archive shares the namespace and the service dimension: its daily success must not keep NoSuccessfulRun quiet
  // while the reconcile no longer succeeds.
  it.each(['observe', 'plan', 'apply'])('a clean %s run is a LastSuccess', (command) => {
    const { metrics, seen } = recorder();
    addRunMetrics(metrics, report({ command }), 1);
    expect(seen.get('LastSuccess')).toBe(1);
  });

  it('a clean archive run is no LastSuccess (the heartbeat is the reconcile one), its other metrics are sent', () => {
    const { metrics, seen } = recorder();
    addRunMetrics(metrics, report({ command: 'archive' }), 1);
    expect(seen.has('LastSuccess')).toBe(false);
    expect(seen.get('TargetsFailed')).toBe(0);
    expect(seen.get('RunDuration')).toBe(1);
  });

  it('a run with a failed target (its changes not even tried) is not a LastSuccess', () => {
    const { metrics, seen } = recorder();
    const failedTarget = report();
    failedTarget.summary.targetsFailed = 1;
    addRunMetrics(metrics, failedTarget, 1);
    expect(seen.has('LastSuccess')).toBe(false);
    expect(seen.get('TargetsFailed')).toBe(1);
  });
});

describe('the metric values of a run', () => {
  it('ChangesPlanned counts every planned write (each kind of action once), not noop, blocked or drift', () => {
    const { metrics, seen } = recorder();
    const r = report();
    // Powers of two: a kind left out or counted twice shows in the sum.
    r.summary.planned = {
      create: 1,
      update: 2,
      enable: 4,
      disable: 8,
      delete: 16,
      release: 32,
      adopt: 64,
      noop: 128,
      blocked: 256,
      drift: 512,
    } as RunReport['summary']['planned'];
    addRunMetrics(metrics, r, 1);
    expect(seen.get('ChangesPlanned')).toBe(127);
  });

  it('sends drift, blocked and API call counts as the report has them', () => {
    const { metrics, seen } = recorder();
    const r = report();
    r.summary.drift = 3;
    r.summary.blocked = 2;
    addRunMetrics(metrics, r, 7);
    expect(Object.fromEntries(seen)).toMatchObject({ DriftDetected: 3, Blocked: 2, ApiCalls: 9, RunDuration: 7 });
  });

  it('does not send again a metric the core already reported through the Reporter port', () => {
    const { metrics, seen } = recorder();
    addRunMetrics(metrics, report(), 1, new Set(['ApiCalls', 'ChangesApplied']));
    expect(seen.has('ApiCalls')).toBe(false);
    expect(seen.has('ChangesApplied')).toBe(false);
    expect(seen.get('ChangesPlanned')).toBe(2);
  });
});
