/**
 * The reconcile Lambda: validates the trigger (Scheduler, S3 ObjectCreated on a YAML key, or a manual invocation),
 * runs the pipeline, publishes metrics and returns the run summary. Asynchronous triggers (Scheduler, S3) rethrow
 * retryable failures so Lambda retries them and the on-failure destination records the last one; manual invocations
 * always get an answer.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { Mode } from '../core/model.ts';
import { stricter } from '../core/modes.ts';
import { runReconcile } from '../core/run.ts';
import type { RunCommand } from '../core/run-types.ts';
import { type AppContext, createAppContext } from './app-context.ts';
import { classifyError, HandlerError } from './errors.ts';
import { PROJECTS_FIELD, parseReconcileEvent, type ReconcileTrigger } from './events.ts';
import { METRIC } from './metrics.ts';
import { type RunFn, runOnce } from './run-once.ts';
import type { RunSummary } from './summary.ts';

/** The command a mode allows: observe reads, plan plans, apply applies. */
export function commandFor(mode: Mode): RunCommand {
  return mode;
}

/** Builds a reconcile handler over an app context (module scope in production; tests build their own). */
export function createReconcileHandler(app: AppContext, run: RunFn = runReconcile) {
  return async (event: unknown, context: Context): Promise<RunSummary> => {
    const { logger, metrics, runtime } = app;
    logger.addContext(context);
    metrics.captureColdStartMetric(context.functionName);
    try {
      let trigger: ReconcileTrigger;
      try {
        trigger = parseReconcileEvent(
          event,
          runtime instanceof HandlerError
            ? { desiredPrefix: '' }
            : { desiredPrefix: runtime.config.desiredPrefix, desiredBucket: runtime.config.desiredBucket },
        );
      } catch (error) {
        const outcome = classifyError(error);
        logger.error('event rejected', { error: outcome });
        metrics.addMetric(METRIC.eventRejected, MetricUnit.Count, 1);
        return { status: 'rejected', trigger: 'unknown', error: outcome };
      }
      if (trigger.kind === 'ignored') {
        logger.info('event ignored', { reason: trigger.reason });
        return { status: 'ignored', trigger: 's3', reason: trigger.reason };
      }
      if (runtime instanceof HandlerError) {
        const outcome = classifyError(runtime);
        logger.error('not configured', { error: outcome });
        if (trigger.kind !== 'manual') throw new Error(outcome.message);
        return { status: 'failed', trigger: trigger.kind, error: outcome };
      }
      if (trigger.kind === 's3') logger.info('desired state changed', { bucket: trigger.bucket, keys: trigger.keys });
      const cap =
        trigger.kind === 'manual' && trigger.mode ? stricter(trigger.mode, runtime.config.mode) : runtime.config.mode;
      const command: RunCommand = trigger.kind === 'manual' && trigger.dryRun ? dryRunCommand(cap) : commandFor(cap);
      const summary = await runOnce({
        runtime,
        run,
        logger,
        metrics,
        context,
        trigger: trigger.kind,
        request: {
          command,
          mode: cap,
          ...(trigger.kind === 'manual' && trigger.projects
            ? { projects: trigger.projects, projectsField: PROJECTS_FIELD }
            : {}),
        },
      });
      // Async triggers: a retryable failure is rethrown (Lambda retries, then the on-failure queue); a lease held by a
      // run in progress is fine for the schedule (the holder does the work) but not for an upload it may have missed.
      const rethrow =
        summary.error?.retryable &&
        ((trigger.kind === 'schedule' && summary.status === 'failed') ||
          (trigger.kind === 's3' && summary.status !== 'ok'));
      if (rethrow && summary.error) throw new Error(`${summary.error.code}: ${summary.error.message}`);
      return summary;
    } finally {
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
  };
}

/** dryRun: never more than plan. */
function dryRunCommand(mode: Mode): RunCommand {
  return mode === 'observe' ? 'observe' : 'plan';
}

const app = createAppContext();

/** The Lambda entry point. */
export const handler = createReconcileHandler(app);
