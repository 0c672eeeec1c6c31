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
  /** A run that did not complete (not counting a lease held by a run in progress: that one is skipped). */
  runFailed: 'RunFailed',
  runInterrupted: 'RunInterrupted',
  /**
   * A run stopped because the desired state did not match its snapshot manifest (DESIRED_STATE_IN_TRANSIT): a run
   * that met an upload still in progress (a schedule during `cdk deploy`, or a YAML key's event from a deployment
   * that sends them); not a RunFailed. A torn state that persists (an interrupted upload) keeps failing the
   * scheduled runs, which rethrow (the Errors alarm), and then NoSuccessfulRun.
   */
  desiredStateInTransit: 'DesiredStateInTransit',
  /** An invocation whose event was refused before any run (a schedule's payload edited by hand, a bad manual event). */
  eventRejected: 'EventRejected',
} as const;

/** A Metrics instance with the service dimension; namespace from POWERTOOLS_METRICS_NAMESPACE or the default. */
export function createMetrics(): Metrics {
  return new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
    serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? DEFAULT_SERVICE_NAME,
  });
}

/** Planned changes that would write (everything but noop, blocked and drift; a release writes the state only). */
export function countPlannedWrites(report: RunReport): number {
  const p = report.summary.planned;
  // `?? 0`: a summary of a report made before releases existed has no such count.
  return p.create + p.update + p.enable + p.disable + p.delete + (p.release ?? 0) + p.adopt;
}

/**
 * Adds the per-run metrics of a finished report, except those the core already reported through the Reporter port
 * (`alreadyReported`), so no metric is counted twice. `LastSuccess` is 1 only when no target and no change failed, and
 * only for a reconcile run (observe, plan, apply), never an archive.
 */
export function addRunMetrics(
  metrics: Metrics,
  report: RunReport,
  durationMs: number,
  alreadyReported: ReadonlySet<string> = new Set(),
): void {
  const s = report.summary;
  const add = (name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number) => {
    if (!alreadyReported.has(name)) metrics.addMetric(name, unit, value);
  };
  add(METRIC.changesPlanned, MetricUnit.Count, countPlannedWrites(report));
  add(METRIC.changesApplied, MetricUnit.Count, s.applied);
  add(METRIC.driftDetected, MetricUnit.Count, s.drift);
  add(METRIC.blocked, MetricUnit.Count, s.blocked);
  add(METRIC.targetsFailed, MetricUnit.Count, s.targetsFailed);
  add(METRIC.apiCalls, MetricUnit.Count, report.apiCalls.total);
  add(METRIC.runDuration, MetricUnit.Milliseconds, durationMs);
  // A run stopped near its time limit left writes undone: not a success, or a function that never finishes in time
  // would keep the staleness alarm quiet.
  if (report.interrupted !== undefined) add(METRIC.runInterrupted, MetricUnit.Count, 1);
  // LastSuccess is the reconcile's heartbeat (the NoSuccessfulRun alarm): the archive shares the namespace and the
  // service dimension, so its daily success would otherwise hide a reconcile that no longer succeeds (with
  // noSuccessHours 24, for ever). Its failures still count: RunFailed, TargetsFailed, ArchiveErrors.
  else if (report.command !== 'archive' && s.targetsFailed === 0 && s.failed === 0) {
    add(METRIC.lastSuccess, MetricUnit.Count, 1);
  }
}
