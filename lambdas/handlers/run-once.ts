/**
 * One run from a handler: take the adapters from the runtime, call `runReconcile`, publish metrics, map the result or
 * the error (in one place, classifyError) to a summary. Shared by the reconcile and archive handlers.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { errorHttpStatus } from '../core/concurrency.ts';
import { STATE_WAS_CORRUPT } from '../core/errors.ts';
import { LEASE_RELEASE_FAILED } from '../core/lease.ts';
import type { RunReport } from '../core/model.ts';
import type { Reporter } from '../core/ports.ts';
import { newRunId } from '../core/run-id.ts';
import type { RunDependencies, RunRequest } from '../core/run-types.ts';
import { AWS_TIMEOUTS } from './aws-connections.ts';
import { classifyError } from './errors.ts';
import { addRunMetrics, METRIC } from './metrics.ts';
import { nextStep } from './next-step.ts';
import { logRunFindings } from './run-log.ts';
import { type Runtime, SYSTEM_CLOCK } from './runtime.ts';
import { listedIssues, MAX_LISTED_FAILURES, type RunSummary, summarise } from './summary.ts';

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
 * state and releases its lease instead of being killed mid-apply. A quarter of the time left at most, for short limits
 * (tests: a deployed function has at least 4 minutes, infra/settings.ts, so it always keeps the full 60 s).
 */
export const STOP_BEFORE_TIMEOUT_MS = 60_000;

/**
 * How long before the Lambda's timeout every Ops Manager request of the run has ended (OpsManagerApi.withEndBy): an
 * attempt in flight is cut then, and none starts past it. What is left is for the state save and the lease release in
 * S3: one S3 request whose three attempts all time out takes 3 x (3 + 10) s (AWS_TIMEOUTS), about 40 s. Without it a
 * write started just before STOP_BEFORE_TIMEOUT_MS could wait 60 s for its headers, and 120 s with its retries (the
 * client's timeouts), and Lambda would kill the run before its state is saved and its lease released. Writes in flight
 * when the run stops starting them keep the 20 s between the two to get their answers (two thirds of a margin shortened
 * for a short limit).
 */
export const REQUESTS_END_BEFORE_TIMEOUT_MS = 3 * (AWS_TIMEOUTS.connectMs + AWS_TIMEOUTS.idleMs) + 1_000;

/** Longest wait setTimeout honours (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** When a run's Ops Manager requests must have ended (OpsManagerApi.withEndBy), and why. */
export interface RequestsEnd {
  at: Date;
  reason: string;
}

/**
 * A signal aborted STOP_BEFORE_TIMEOUT_MS before the Lambda's deadline (already aborted when the time left is 0 or
 * less), and the time the run's Ops Manager requests must have ended by (REQUESTS_END_BEFORE_TIMEOUT_MS before it);
 * neither without a deadline.
 */
export function deadlineSignal(context: Partial<Pick<Context, 'getRemainingTimeInMillis'>>): {
  signal?: AbortSignal;
  requestsEnd?: RequestsEnd;
  clear(): void;
} {
  const remaining =
    typeof context.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Number.NaN;
  if (Number.isNaN(remaining) || remaining === Number.POSITIVE_INFINITY) return { clear() {} };
  const away = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms)} ms`);
  const reason = (margin: number) => `the Lambda's time limit is ${away(margin)} away`;
  const controller = new AbortController();
  // A limit already reached stops the run before it starts anything (not: runs it with no limit at all).
  const now = Date.now();
  if (remaining <= 0) {
    controller.abort(reason(0));
    return { signal: controller.signal, requestsEnd: { at: new Date(now), reason: reason(0) }, clear() {} };
  }
  const margin = Math.min(STOP_BEFORE_TIMEOUT_MS, remaining / 4);
  // setTimeout fires at once past 2^31-1 ms; a limit that far away (no Lambda has one) cannot be reached by a run.
  if (remaining - margin > MAX_TIMER_MS) return { clear() {} };
  const timer = setTimeout(() => controller.abort(reason(margin)), remaining - margin);
  timer.unref();
  // The writes in flight keep their 20 s, or two thirds of a short margin (tests), to get their answers.
  const reserve = margin - Math.min(STOP_BEFORE_TIMEOUT_MS - REQUESTS_END_BEFORE_TIMEOUT_MS, (margin * 2) / 3);
  const requestsEnd = {
    at: new Date(now + remaining - reserve),
    reason: `the run must save its state before the Lambda's time limit, ${away(reserve)} away`,
  };
  return { signal: controller.signal, requestsEnd, clear: () => clearTimeout(timer) };
}

/** One attempt of a run: its id and start, what it ended with, and the metrics its reporter gave (not yet added). */
interface Attempt {
  runId: string;
  started: number;
  outcome: { report: RunReport } | { error: unknown };
  metrics: { name: string; value: number; unit: Parameters<Reporter['metric']>[2] }[];
}

type RunOnceInput = {
  runtime: Runtime;
  run: RunFn;
  logger: Logger;
  metrics: Metrics;
  context: Pick<Context, 'functionName' | 'awsRequestId'> & Partial<Pick<Context, 'getRemainingTimeInMillis'>>;
  trigger: string;
  request: Omit<RunRequest, 'runId' | 'owner' | 'leaseWaitMs'>;
};

/**
 * Runs one request; never throws: failures come back as `status: 'failed'` with a classified error. A run Ops Manager
 * refused the API key of, before it sent any write, is run once more when the credentials secret, read again past its
 * cache, holds another key (a rotation): see {@link rotatedAfterRefusal}.
 */
export async function runOnce(input: RunOnceInput): Promise<RunSummary> {
  input.runtime.beginRun();
  const deadline = deadlineSignal(input.context);
  try {
    let attempt = await attemptRun(input, deadline);
    if (await rotatedAfterRefusal(input.runtime, input.logger, attempt)) {
      attempt = await attemptRun(input, deadline);
    }
    return finish(input, attempt);
  } finally {
    deadline.clear();
    input.logger.removeKeys(['runId', 'trigger']);
  }
}

/** Runs the request once; an error is returned, not thrown. */
async function attemptRun(
  input: RunOnceInput,
  { signal, requestsEnd }: { signal?: AbortSignal; requestsEnd?: RequestsEnd },
): Promise<Attempt> {
  const { runtime, logger, context, trigger, request } = input;
  const started = Date.now();
  const runId = newRunId(new Date(started));
  logger.appendKeys({ runId, trigger });
  runtime.calls.reset();
  const metrics: Attempt['metrics'] = [];
  try {
    const { api: client, fingerprintKey, publicKey } = await runtime.api();
    // Every Ops Manager request of the run (its reads, its writes) ends in time for the state save.
    const api = requestsEnd === undefined ? client : (client.withEndBy?.(requestsEnd.at, requestsEnd.reason) ?? client);
    const full: RunRequest = {
      ...request,
      runId,
      owner: `lambda:${context.functionName}/${context.awsRequestId}`,
      leaseWaitMs: runtime.config.leaseWaitMs,
      ...(signal === undefined ? {} : { signal }),
    };
    logger.info('run starting', {
      command: full.command,
      mode: full.mode,
      // As the summary says it: an event may name thousands of ids, and a line over 256 KB is cut by CloudWatch.
      ...(full.projects === undefined
        ? {}
        : { projects: { count: full.projects.length, ids: full.projects.slice(0, MAX_LISTED_FAILURES) } }),
      ...(full.ignoreWindows === true ? { ignoreWindows: full.ignoreWindowsBy ?? true } : {}),
    });
    const report = await input.run(full, {
      source: runtime.source,
      api,
      secrets: runtime.secrets,
      state: runtime.state,
      archive: runtime.archive,
      clock: SYSTEM_CLOCK,
      // Metrics wait for the attempt that counts: a run repeated with a rotated key must not count twice.
      reporter: {
        progress: (message, fields) => logger.info(message, fields ?? {}),
        metric: (name, value, unit) => metrics.push({ name, value, unit }),
      },
      fingerprintKey,
      actorPublicKey: publicKey,
      opsManagerUrl: runtime.config.opsManagerBaseUrl,
      apiCalls: () => runtime.calls.snapshot(),
      ...(runtime.desiredCache ? { desiredCache: runtime.desiredCache } : {}),
      desiredSnapshot: runtime.config.desiredSnapshot,
      isRetryable: (error) => classifyError(error).retryable,
    });
    return { runId, started, outcome: { report }, metrics };
  } catch (error) {
    return { runId, started, outcome: { error }, metrics };
  }
}

/**
 * True when the attempt should be run again with a rotated API key: it did not end clean, Ops Manager refused its key
 * (a 401 answer, or a failure coded OPSMAN_AUTH_ERROR), it sent no write to Ops Manager, and the credentials secret,
 * read again past its 5-minute cache, now holds another key. Without this a warm container keeps the old key until the
 * cache expires, and every run in between fails. An unchanged secret (a wrong or revoked key) costs that one read and
 * the run fails as before. Running again is safe because nothing was written to Ops Manager: what the attempt did write
 * (its state bookkeeping and report, its lease taken and released) is what any later run redoes, as a Lambda retry of a
 * failed run would. An attempt that sent a write is never repeated.
 */
async function rotatedAfterRefusal(runtime: Runtime, logger: Logger, attempt: Attempt): Promise<boolean> {
  const { outcome } = attempt;
  const clean = 'report' in outcome && outcome.report.failures.length === 0;
  if (clean || !(runtime.calls.authRefusals > 0 || refusedKey(outcome))) return false;
  if (runtime.calls.writesSent > 0) return false;
  let changed: boolean;
  try {
    changed = await runtime.reloadCredentials();
  } catch {
    // The secret cannot be read now: the attempt's own outcome stands (the next run reads it again).
    return false;
  }
  if (changed) {
    logger.warn('Ops Manager refused the API key; the credentials secret holds a new one: running again with it', {
      refusedRunId: attempt.runId,
    });
  }
  return changed;
}

/** True when the run failed, or a target failed, on the refused API key. */
function refusedKey(outcome: Attempt['outcome']): boolean {
  if ('error' in outcome) return (outcome.error as { code?: unknown } | null)?.code === AUTH_ERROR;
  return outcome.report.failures.some((f) => f.code === AUTH_ERROR);
}

const AUTH_ERROR = 'OPSMAN_AUTH_ERROR';

/** Adds the attempt's metrics and maps its outcome to the summary (logged). */
function finish(input: RunOnceInput, attempt: Attempt): RunSummary {
  const { logger, metrics, trigger, request } = input;
  const { runId, started, outcome } = attempt;
  const reported = new Set<string>();
  const reporter = powertoolsReporter(logger, metrics, reported);
  for (const m of attempt.metrics) reporter.metric(m.name, m.value, m.unit);
  if ('report' in outcome) {
    const durationMs = Date.now() - started;
    addRunMetrics(metrics, outcome.report, durationMs, reported);
    const summary = summarise(outcome.report, trigger, request.command, durationMs);
    logRunFindings(logger, outcome.report);
    logger.info('run finished', { summary });
    const { interrupted } = outcome.report;
    if (interrupted !== undefined) {
      // The run is `partial` and emits RunInterrupted, not LastSuccess: its writes not started wait for the next run.
      // Said at WARN with the way out, since an operator filters on levels, and a run that keeps stopping is a
      // function too short for the installation or an Ops Manager too slow, which no retry fixes.
      logger.warn('run interrupted', {
        code: 'INTERRUPTED',
        reason: interrupted.reason,
        notStarted: interrupted.notStarted,
        nextStep: nextStep('INTERRUPTED'),
      });
    }
    const corrupt = outcome.report.warnings?.find((w) => w.startsWith(STATE_WAS_CORRUPT));
    if (corrupt !== undefined) {
      // The run went on (ownership recovered by adoption, nothing pruned) and may end ok: said at WARN all the same,
      // since what the lost state recorded can only be restored by hand, from the state object's previous version.
      logger.warn('state was corrupt', {
        code: 'STATE_CORRUPT',
        warning: corrupt,
        nextStep: nextStep('STATE_CORRUPT'),
      });
    }
    const unreleased = outcome.report.warnings?.find((w) => w.startsWith(LEASE_RELEASE_FAILED));
    if (unreleased !== undefined) {
      // The run's work is done (its status stands), but the lease stays until it expires: the runs until then end
      // `skipped` (LEASE_HELD), which is no failure and raises no alarm. Said here, where an operator looks.
      logger.warn('lease not released: runs are skipped (LEASE_HELD) until it expires', { warning: unreleased });
    }
    return summary;
  }
  const { error } = outcome;
  const result = classifyError(error);
  // A lease held by a run in progress skips this one: no failure (the RunFailed alarm would fire on every overlap).
  // A torn upload is counted apart: the runs an upload's first files start meet one on every upload.
  if (result.code === 'DESIRED_STATE_IN_TRANSIT') metrics.addMetric(METRIC.desiredStateInTransit, MetricUnit.Count, 1);
  else if (result.code !== 'LEASE_HELD') metrics.addMetric(METRIC.runFailed, MetricUnit.Count, 1);
  const expected = result.code === 'LEASE_HELD' || result.code === 'DESIRED_STATE_IN_TRANSIT';
  const log = expected ? logger.warn.bind(logger) : logger.error.bind(logger);
  const issues = listedIssues(error);
  const httpStatus = errorHttpStatus(error);
  const details: Record<string, unknown> = {
    error: result,
    code: result.code,
    ...(httpStatus === undefined ? {} : { httpStatus }),
    nextStep: nextStep(result.code, httpStatus),
    errorName: error instanceof Error ? error.name : typeof error,
    ...(issues ? { issues } : {}),
  };
  // Only unexpected errors get their stack (masked by the replacer); ours have value-free messages already.
  if (result.code === 'INTERNAL' && error instanceof Error) details.stack = error.stack;
  log('run failed', details);
  return {
    status: result.code === 'LEASE_HELD' ? 'skipped' : 'failed',
    trigger,
    runId,
    command: request.command,
    durationMs: Date.now() - started,
    error: result,
    ...(issues ? { issues } : {}),
  };
}
