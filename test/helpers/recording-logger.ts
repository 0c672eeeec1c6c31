/**
 * A Powertools Logger stand-in for the tests of the handlers' log lines: it records what it is asked to log (error,
 * warn, info) instead of writing it, and the `drift detected` lines of a run's findings read through it.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Change, RunReport } from '../../lambdas/core/model.ts';
import { logRunFindings } from '../../lambdas/handlers/run-log.ts';

/** One recorded call. */
export type LogCall = { level: 'error' | 'warn' | 'info'; message: string; fields: Record<string, unknown> };

/** A logger that records what it is asked to log. */
export function recordingLogger(): { logger: Logger; calls: LogCall[] } {
  const calls: LogCall[] = [];
  const record = (level: LogCall['level']) => (message: string, fields: Record<string, unknown>) =>
    calls.push({ level, message, fields });
  const fake = { error: record('error'), warn: record('warn'), info: record('info') };
  return { logger: fake as unknown as Logger, calls };
}

/** The fields of the `drift detected` lines logRunFindings writes for an apply whose plan has `changes`. */
export function driftLines(changes: Change[]): Record<string, unknown>[] {
  const { logger, calls } = recordingLogger();
  logRunFindings(logger, { failures: [], plan: { changes }, command: 'apply' } as unknown as RunReport);
  return calls.filter((c) => c.message === 'drift detected').map((c) => c.fields);
}
