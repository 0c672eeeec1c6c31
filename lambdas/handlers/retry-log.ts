/**
 * The Lambda's counterpart of the CLI's retry notice: a warning in the function's log when the client waits a second
 * or more before retrying (a 429 with Retry-After, a 503 burst), so a slow run shows why in CloudWatch.
 */
import { quietGate } from '../../shared/quiet-gate.ts';
import type { RequestRetryEvent } from '../core/ports.ts';
import { RETRY_WAIT_NOTICE_MIN_MS } from '../opsman/options.ts';
import type { WarnSink } from './stall-log.ts';

/** Quiet time between two warnings: a throttled Ops Manager answers every request in flight alike. */
export const RETRY_LOG_QUIET_MS = 15_000;

/** An `onRetryWait` hook that logs one warning per `quietMs` at most, for waits of a second or more. */
export function retryLog(
  logger: WarnSink,
  quietMs = RETRY_LOG_QUIET_MS,
  now: () => number = Date.now,
): (event: RequestRetryEvent) => void {
  const open = quietGate(quietMs, now);
  return (event) => {
    if (event.waitMs < RETRY_WAIT_NOTICE_MIN_MS || !open()) return;
    // A status and error code or a transport code, a path without query string: nothing secret is in the event.
    logger.warn('Ops Manager request will be retried', {
      request: { method: event.method, path: event.path },
      got: event.got,
      attempt: event.attempt,
      maxAttempts: event.maxAttempts,
      waitMs: event.waitMs,
      retryAfter: event.retryAfter,
    });
  };
}
