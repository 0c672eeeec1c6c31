/**
 * The Lambda's counterpart of the CLI's "still waiting for Ops Manager" notice: a warning in the function's log while
 * a request has had no answer for 15 s, so a run against a hung Ops Manager shows in CloudWatch before its deadline
 * (or the function's time limit) ends it, instead of as minutes of silence.
 */
import { quietGate } from '../../shared/quiet-gate.ts';
import type { RequestStallEvent } from '../core/ports.ts';

/** What the log needs of a logger (Powertools' Logger has it). */
export interface WarnSink {
  warn(message: string, ...extra: Record<string, unknown>[]): void;
}

/** Quiet time between two warnings: a hung Ops Manager stalls every request in flight at once, one line says it. */
export const STALL_LOG_QUIET_MS = 15_000;

/** An `onStall` hook that logs one warning per `quietMs` at most. */
export function stallLog(
  logger: WarnSink,
  quietMs = STALL_LOG_QUIET_MS,
  now: () => number = Date.now,
): (event: RequestStallEvent) => void {
  const open = quietGate(quietMs, now);
  return (event) => {
    if (!open()) return;
    // The path has ids filled in and never a query string; nothing secret is in the event.
    logger.warn('Ops Manager has not answered yet', {
      request: { method: event.method, path: event.path },
      waitedMs: event.waitedMs,
      deadlineMs: event.deadlineMs,
    });
  };
}
