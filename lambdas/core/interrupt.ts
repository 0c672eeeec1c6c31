/**
 * A graceful stop of a run: when the run's signal is aborted (the CLI's first Ctrl-C, a Lambda running out of time),
 * no new target is planned and no new write starts; writes in flight finish (a Lambda's, only until its requests
 * must end: OpsManagerApi.withEndBy), the state is saved and the lease released. Planning interrupted means nothing was written: the reads in flight are abandoned at once (the run plans
 * through `OpsManagerApi.withSignal`) and the run fails with RunInterruptedError. An apply interrupted reports every
 * write it did not start as skipped with INTERRUPTED_MESSAGE.
 */
import { ReconcileError } from './errors.ts';

/** The message of every change an interrupted apply did not start. */
export const INTERRUPTED_MESSAGE = 'not written: the run was interrupted before this write started';

/** Why the signal stopped the run, for messages: its reason when that is a string. */
export function interruptReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return typeof reason === 'string' && reason !== '' ? reason : 'interrupted';
}

/** The run was stopped while planning: nothing was written. */
export class RunInterruptedError extends ReconcileError {
  override name = 'RunInterruptedError';

  constructor(signal: AbortSignal | undefined) {
    super('INTERRUPTED', `the run was stopped while planning (${interruptReason(signal)}): nothing was written`);
  }
}
