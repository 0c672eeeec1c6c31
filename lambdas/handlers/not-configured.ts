/**
 * The answer of a function whose environment is invalid (CONFIG_INVALID), whatever started it: shared by the reconcile
 * and archive handlers.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { AppContext } from './app-context.ts';
import { classifyError, type HandlerError } from './errors.ts';
import { METRIC } from './metrics.ts';
import { nextStep } from './next-step.ts';
import type { RunSummary } from './summary.ts';

/**
 * Logs `not configured` and answers `failed`. Never rethrown for an asynchronous trigger: every attempt meets the same
 * environment, so Lambda's two retries could only fail again and put each scheduled run into FailedInvocations.
 * Counted as RunFailed instead (its alarm pages), as the other failures no retry gets past are (a malformed
 * credentials secret, an invalid desired state).
 */
export function notConfigured(
  app: Pick<AppContext, 'logger' | 'metrics'>,
  error: HandlerError,
  trigger: string,
): RunSummary {
  const outcome = classifyError(error);
  app.logger.error('not configured', { error: outcome, code: outcome.code, nextStep: nextStep(outcome.code) });
  app.metrics.addMetric(METRIC.runFailed, MetricUnit.Count, 1);
  return { status: 'failed', trigger, error: outcome };
}
