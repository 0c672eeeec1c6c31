/**
 * The reconcile Lambda: validates the trigger (Scheduler, S3 ObjectCreated on a YAML key or the snapshot manifest, or a
 * manual invocation), runs the pipeline, publishes metrics and returns the run summary. Asynchronous triggers
 * (Scheduler, S3) rethrow retryable failures so Lambda retries them and the on-failure destination records the last
 * one, except an upload in transit seen from a YAML key's notification (the manifest's own notification follows);
 * manual invocations always get an answer.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { SnapshotPolicy } from '../core/desired/snapshot-check.ts';
import { SNAPSHOT_FILE } from '../core/desired/snapshot-manifest.ts';
import type { Mode } from '../core/model.ts';
import { stricter } from '../core/modes.ts';
import { runReconcile } from '../core/run.ts';
import type { RunCommand } from '../core/run-types.ts';
import { type AppContext, createAppContext } from './app-context.ts';
import { classifyError, HandlerError } from './errors.ts';
import { IGNORE_WINDOWS_FIELD, PROJECTS_FIELD, parseReconcileEvent, type ReconcileTrigger } from './events.ts';
import { METRIC } from './metrics.ts';
import { nextStep } from './next-step.ts';
import { notConfigured } from './not-configured.ts';
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
            : {
                desiredPrefix: runtime.config.desiredPrefix,
                desiredBucket: runtime.config.desiredBucket,
                deploymentMode: runtime.config.mode,
              },
        );
      } catch (error) {
        const outcome = classifyError(error);
        logger.error('event rejected', { error: outcome, code: outcome.code, nextStep: nextStep(outcome.code) });
        metrics.addMetric(METRIC.eventRejected, MetricUnit.Count, 1);
        return { status: 'rejected', trigger: 'unknown', error: outcome };
      }
      if (runtime instanceof HandlerError) {
        // Before the "ignored" answer: unconfigured, the event was read without the desired-state prefix, so even the
        // snapshot manifest's own notification would look like another key and be ignored without a word.
        return notConfigured(app, runtime, trigger.kind === 'ignored' ? 's3' : trigger.kind);
      }
      if (trigger.kind === 'ignored') {
        logger.info('event ignored', { reason: trigger.reason });
        return { status: 'ignored', trigger: 's3', reason: trigger.reason };
      }
      if (trigger.kind === 's3') logger.info('desired state changed', { bucket: trigger.bucket, keys: trigger.keys });
      const cap =
        trigger.kind === 'manual' && trigger.mode ? stricter(trigger.mode, runtime.config.mode) : runtime.config.mode;
      const command: RunCommand = trigger.kind === 'manual' && trigger.dryRun ? dryRunCommand(cap) : commandFor(cap);
      // parseReconcileEvent refused "ignoreWindows": true wherever the command could not be apply.
      const ignoreWindows = trigger.kind === 'manual' && trigger.ignoreWindows === true && command === 'apply';
      if (ignoreWindows) {
        logger.warn('change windows ignored by a manual event', {
          by: IGNORE_WINDOWS_FIELD,
          detail:
            'this apply writes targets a change window holds; each one written is a CHANGE WINDOW IGNORED warning',
        });
      }
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
          ...(ignoreWindows ? { ignoreWindows: true, ignoreWindowsBy: IGNORE_WINDOWS_FIELD } : {}),
        },
      });
      // Async triggers: a retryable failure is rethrown (Lambda retries, then the on-failure queue); a lease held by a
      // run in progress is fine for the schedule (the holder does the work) but not for an upload it may have missed.
      if (trigger.kind === 's3' && deferredToManifest(summary, trigger.keys, runtime.config)) {
        // Not rethrown: the stack writes the snapshot manifest after the files, and its own notification starts the
        // run that sees the upload whole. Retrying this one would only raise the Errors alarm on every upload.
        logger.info('upload in progress: the snapshot manifest notification starts the run that sees it whole', {
          code: summary.error?.code,
        });
        return summary;
      }
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

/**
 * True when a run started by YAML keys alone found the upload in transit, under a deployment that requires the
 * snapshot manifest (the stack: it writes the manifest last and is notified of it). A run started by the manifest's
 * own key is retried as any other (an interrupted upload then keeps failing and raises the alarms).
 */
export function deferredToManifest(
  summary: { error?: { code: string } },
  keys: readonly string[],
  config: { desiredPrefix: string; desiredSnapshot: SnapshotPolicy },
): boolean {
  if (summary.error?.code !== 'DESIRED_STATE_IN_TRANSIT' || config.desiredSnapshot !== 'required') return false;
  return !keys.includes(`${config.desiredPrefix}${SNAPSHOT_FILE}`);
}

/** dryRun: never more than plan. */
function dryRunCommand(mode: Mode): RunCommand {
  return mode === 'observe' ? 'observe' : 'plan';
}

const app = createAppContext();

/** The Lambda entry point. */
export const handler = createReconcileHandler(app);
