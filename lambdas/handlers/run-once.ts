/**
 * One run from a handler: take the adapters from the runtime, call `runReconcile`, publish metrics, map the result or
 * the error (in one place, classifyError) to a summary. Shared by the reconcile and archive handlers.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { RunReport } from '../core/model.ts';
import type { Reporter } from '../core/ports.ts';
import { newRunId } from '../core/run-id.ts';
import type { RunDependencies, RunRequest } from '../core/run-types.ts';
import { classifyError } from './errors.ts';
import { addRunMetrics, METRIC } from './metrics.ts';
import { type Runtime, SYSTEM_CLOCK } from './runtime.ts';
import { listedIssues, type RunSummary, summarise } from './summary.ts';

/** The core entry point (runReconcile), passed in so this module stays independent of run.ts' load order. */
export type RunFn = (request: RunRequest, deps: RunDependencies) => Promise<RunReport>;

/** Reporter over Powertools: progress as info lines, metrics into the EMF buffer (names recorded in `reported`). */
export function powertoolsReporter(logger: Logger, metrics: Metrics, reported: Set<string> = new Set()): Reporter {
  return {
    progress: (message, fields) => logger.info(message, fields ?? {}),
    metric: (name, value, unit) => {
      reported.add(name);
      metrics.addMetric(name, (unit ?? 'Count') as (typeof MetricUnit)[keyof typeof MetricUnit], value);
    },
  };
}

/**
 * How long before the Lambda's timeout a run stops starting writes (core/interrupt.ts), so that it still saves its
 * state and releases its lease instead of being killed mid-apply. A quarter of the time left at most, for short limits.
 */
export const STOP_BEFORE_TIMEOUT_MS = 60_000;

/** Longest wait setTimeout honours (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A signal aborted STOP_BEFORE_TIMEOUT_MS before the Lambda's deadline (already aborted when the time left is 0 or
 * less); none without a deadline.
 */
export function deadlineSignal(context: Partial<Pick<Context, 'getRemainingTimeInMillis'>>): {
  signal?: AbortSignal;
  clear(): void;
} {
  const remaining =
    typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Number.NaN;
  if (Number.isNaN(remaining) || remaining === Number.POSITIVE_INFINITY) return { clear() {} };
  const reason = (margin: number) =>
    `the Lambda's time limit is ${margin >= 1000 ? `${Math.round(margin / 1000)} s` : `${Math.round(margin)} ms`} away`;
  const controller = new AbortController();
  // A limit already reached stops the run before it starts anything (not: runs it with no limit at all).
  if (remaining <= 0) {
    controller.abort(reason(0));
    return { signal: controller.signal, clear() {} };
  }
  const margin = Math.min(STOP_BEFORE_TIMEOUT_MS, remaining / 4);
  // setTimeout fires at once past 2^31-1 ms; a limit that far away (no Lambda has one) cannot be reached by a run.
  if (remaining - margin > MAX_TIMER_MS) return { clear() {} };
  const timer = setTimeout(() => controller.abort(reason(margin)), remaining - margin);
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** Runs one request; never throws: failures come back as `status: 'failed'` with a classified error. */
export async function runOnce(input: {
  runtime: Runtime;
  run: RunFn;
  logger: Logger;
  metrics: Metrics;
  context: Pick<Context, 'functionName' | 'awsRequestId'> & Partial<Pick<Context, 'getRemainingTimeInMillis'>>;
  trigger: string;
  request: Omit<RunRequest, 'runId' | 'owner' | 'leaseWaitMs'>;
}): Promise<RunSummary> {
  const { runtime, logger, metrics, context, trigger, request } = input;
  const started = Date.now();
  const runId = newRunId(new Date(started));
  logger.appendKeys({ runId, trigger });
  runtime.calls.reset();
  const deadline = deadlineSignal(context);
  try {
    const { api, fingerprintKey, publicKey } = await runtime.api();
    const full: RunRequest = {
      ...request,
      runId,
      owner: `lambda:${context.functionName}/${context.awsRequestId}`,
      leaseWaitMs: runtime.config.leaseWaitMs,
      ...(deadline.signal === undefined ? {} : { signal: deadline.signal }),
    };
    const reported = new Set<string>();
    logger.info('run starting', { command: full.command, mode: full.mode, projects: full.projects });
    const report = await input.run(full, {
      source: runtime.source,
      api,
      secrets: runtime.secrets,
      state: runtime.state,
      archive: runtime.archive,
      clock: SYSTEM_CLOCK,
      reporter: powertoolsReporter(logger, metrics, reported),
      fingerprintKey,
      actorPublicKey: publicKey,
      apiCalls: () => runtime.calls.snapshot(),
      ...(runtime.desiredCache ? { desiredCache: runtime.desiredCache } : {}),
      desiredSnapshot: runtime.config.desiredSnapshot,
    });
    const durationMs = Date.now() - started;
    addRunMetrics(metrics, report, durationMs, reported);
    const summary = summarise(report, trigger, full.command, durationMs);
    logger.info('run finished', { summary });
    return summary;
  } catch (error) {
    const outcome = classifyError(error);
    // A lease held by a run in progress skips this one: no failure (the RunFailed alarm would fire on every overlap).
    // A torn upload is counted apart: the runs an upload's first files start meet one on every upload.
    if (outcome.code === 'DESIRED_STATE_IN_TRANSIT')
      metrics.addMetric(METRIC.desiredStateInTransit, MetricUnit.Count, 1);
    else if (outcome.code !== 'LEASE_HELD') metrics.addMetric(METRIC.runFailed, MetricUnit.Count, 1);
    const expected = outcome.code === 'LEASE_HELD' || outcome.code === 'DESIRED_STATE_IN_TRANSIT';
    const log = expected ? logger.warn.bind(logger) : logger.error.bind(logger);
    const issues = listedIssues(error);
    const details: Record<string, unknown> = {
      error: outcome,
      errorName: error instanceof Error ? error.name : typeof error,
      ...(issues ? { issues } : {}),
    };
    // Only unexpected errors get their stack (masked by the replacer); ours have value-free messages already.
    if (outcome.code === 'INTERNAL' && error instanceof Error) details.stack = error.stack;
    log('run failed', details);
    return {
      status: outcome.code === 'LEASE_HELD' ? 'skipped' : 'failed',
      trigger,
      runId,
      command: request.command,
      durationMs: Date.now() - started,
      error: outcome,
      ...(issues ? { issues } : {}),
    };
  } finally {
    deadline.clear();
    logger.removeKeys(['runId', 'trigger']);
  }
}
