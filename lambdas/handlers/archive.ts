/**
 * The archive Lambda (daily, from the Scheduler): archives the version manifest and the usage snapshots
 * (`runReconcile` with command `archive`). Takes any Scheduler event or `{}`; a scheduled run rethrows retryable
 * failures, and a partial archive whose failures are all retryable, so Lambda retries them.
 */

import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { isRecord } from '../../shared/is-record.ts';
import { runReconcile } from '../core/run.ts';
import { type AppContext, createAppContext } from './app-context.ts';
import { classifyError, HandlerError, InvalidEventError } from './errors.ts';
import { fieldList } from './event-text.ts';
import { METRIC } from './metrics.ts';
import { ARCHIVE_INVALID_EVENT_STEP } from './next-step.ts';
import { notConfigured } from './not-configured.ts';
import { type RunFn, runOnce } from './run-once.ts';
import { isScheduledEvent, scheduledEventProblem } from './scheduled-event.ts';
import type { RunSummary } from './summary.ts';

/** Builds an archive handler over an app context. */
export function createArchiveHandler(app: AppContext, run: RunFn = runReconcile) {
  return async (event: unknown, context: Context): Promise<RunSummary> => {
    const { logger, metrics, runtime } = app;
    logger.addContext(context);
    metrics.captureColdStartMetric(context.functionName);
    try {
      const problem = archiveEventProblem(event);
      if (problem) {
        const outcome = classifyError(new InvalidEventError(problem));
        // Its own step: the reconcile function's names options (mode, projects...) that this one refuses.
        logger.error('event rejected', { error: outcome, code: outcome.code, nextStep: ARCHIVE_INVALID_EVENT_STEP });
        metrics.addMetric(METRIC.eventRejected, MetricUnit.Count, 1);
        return { status: 'rejected', trigger: 'unknown', error: outcome };
      }
      const trigger = isScheduledEvent(event as Record<string, unknown>) ? 'schedule' : 'manual';
      if (runtime instanceof HandlerError) return notConfigured(app, runtime, trigger);
      const summary = await runOnce({
        runtime,
        run,
        logger,
        metrics,
        context,
        trigger,
        request: { command: 'archive' },
      });
      if (trigger === 'schedule' && summary.status === 'failed' && summary.error?.retryable) {
        throw new Error(`${summary.error.code}: ${summary.error.message}`);
      }
      // A scheduled archive that failed in part on errors a retry can pass (an S3 put throttled, Ops Manager
      // unavailable) is rethrown too: otherwise the daily archive waits a whole day. Running it again is safe: the
      // version manifest is content-addressed (a copy written only when absent, the index and latest completed by the
      // next run: core/archive-manifest.ts) and the month's usage documents are read and written whole again, carrying
      // over what the run did not read (core/archive-usage.ts); each attempt writes its own report.
      if (trigger === 'schedule' && summary.status === 'partial' && summary.retryable === true) {
        const first = summary.failures?.[0]?.message ?? 'see the run report';
        throw new Error(`ARCHIVE_PARTIAL: the archive failed in part, on errors a retry can pass: ${first}`);
      }
      return summary;
    } finally {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
  };
}

/** Why an archive event is refused: it must be a Scheduler event or an empty object (manual run). */
export function archiveEventProblem(event: unknown): string | undefined {
  if (!isRecord(event)) return 'expected a Scheduler event or {}';
  const record = event as Record<string, unknown>;
  if (isScheduledEvent(record)) return scheduledEventProblem(record, 'a scheduled archive takes no options');
  const keys = Object.keys(record);
  return keys.length === 0 ? undefined : `unexpected field(s) ${fieldList(keys)}; expected a Scheduler event or {}`;
}

const app = createAppContext();

/** The Lambda entry point. */
export const handler = createArchiveHandler(app);
