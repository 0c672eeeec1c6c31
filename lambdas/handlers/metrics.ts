/**
 * EMF metrics of a run (Powertools Metrics): what the CloudWatch alarms of the stack watch. Names and units are a
 * contract with infra/alarms.ts.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { RunReport } from '../core/model.ts';
import { DEFAULT_SERVICE_NAME } from './logging.ts';

/** Default namespace of the metrics (POWERTOOLS_METRICS_NAMESPACE overrides it; the stack sets it). */
export const METRICS_NAMESPACE = 'OpsmanGitops';

/** Metric names emitted per run. */
export const METRIC = {
  changesPlanned: 'ChangesPlanned',
  changesApplied: 'ChangesApplied',
  driftDetected: 'DriftDetected',
  blocked: 'Blocked',
  targetsFailed: 'TargetsFailed',
  apiCalls: 'ApiCalls',
  runDuration: 'RunDuration',
  lastSuccess: 'LastSuccess',
  runFailed: 'RunFailed',
} as const;

/** A Metrics instance with the service dimension; namespace from POWERTOOLS_METRICS_NAMESPACE or the default. */
export function createMetrics(): Metrics {
  return new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? DEFAULT_SERVICE_NAME,
  });
}

/** Planned changes that would write (everything but noop, blocked and drift). */
export function countPlannedWrites(report: RunReport): number {
  const p = report.summary.planned;
  return p.create + p.update + p.enable + p.disable + p.delete + p.adopt;
}

/** Adds the per-run metrics of a finished report. `LastSuccess` is 1 only when no target failed. */
export function addRunMetrics(metrics: Metrics, report: RunReport, durationMs: number): void {
  const s = report.summary;
  metrics.addMetric(METRIC.changesPlanned, MetricUnit.Count, countPlannedWrites(report));
  metrics.addMetric(METRIC.changesApplied, MetricUnit.Count, s.applied);
  metrics.addMetric(METRIC.driftDetected, MetricUnit.Count, s.drift);
  metrics.addMetric(METRIC.blocked, MetricUnit.Count, s.blocked);
  metrics.addMetric(METRIC.targetsFailed, MetricUnit.Count, s.targetsFailed);
  metrics.addMetric(METRIC.apiCalls, MetricUnit.Count, report.apiCalls.total);
  metrics.addMetric(METRIC.runDuration, MetricUnit.Milliseconds, durationMs);
  if (s.targetsFailed === 0 && s.failed === 0) metrics.addMetric(METRIC.lastSuccess, MetricUnit.Count, 1);
}
