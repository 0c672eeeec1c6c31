/**
 * The caller's stop signal, as the executor meets it outside an exchange: in a backoff wait, and in messages. (In a
 * slot queue the limiter handles it; in flight, the attempt's own AbortController relays it to undici.)
 */
import type { ClientClock } from './options.ts';

/** The reason an AbortSignal gives, for a message: its string reason, an Error's message, else `aborted`. */
export function stopReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  if (typeof reason === 'string' && reason !== '') return reason;
  if (reason instanceof Error && reason.message !== '') return reason.message;
  return 'aborted';
}

/** Waits `ms` on `clock`; resolves to false as soon as `signal` aborts (a stopped run does not sit out a backoff). */
export async function sleepUnlessStopped(
  clock: Pick<ClientClock, 'sleep'>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  if (signal === undefined) {
    await clock.sleep(ms);
    return true;
  }
  if (signal.aborted) return false;
  let onAbort = (): void => undefined;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    // The signal goes to the clock too, so that the real one clears its timer instead of holding the process open.
    return await Promise.race([clock.sleep(ms, signal).then(() => !signal.aborted), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
