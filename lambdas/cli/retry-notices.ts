/**
 * The notice a person sees on stderr while the client waits to retry, instead of a silent pause: `Ops Manager answered
 * 429 RATE_LIMITED to GET /api/public/v1.0/groups/<id>/alertConfigs: retrying in 30 s, as its Retry-After asks
 * (attempt 2 of 4)`. Only waits of a second or more are told: the client's own backoff is mostly shorter, and a line
 * per short wait would bury the progress lines. Never on stdout, so `--json` output stays a document.
 */
import { quietGate } from '../../shared/quiet-gate.ts';
import type { RequestRetryEvent } from '../core/ports.ts';
import { RETRY_WAIT_NOTICE_MIN_MS } from '../opsman/index.ts';
import type { TextSink } from './io.ts';

/** At most one notice per this long: a throttled Ops Manager answers every request in flight (eight) alike. */
export const RETRY_NOTICE_QUIET_MS = 10_000;

/** `30 s`, `1.5 s`. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The line for one retry wait. */
export function retryNotice(event: RequestRetryEvent): string {
  const answered = event.got.startsWith('no response')
    ? `Ops Manager gave ${event.got} to ${event.method} ${event.path}`
    : `Ops Manager answered ${event.got} to ${event.method} ${event.path}`;
  const why = event.retryAfter ? ', as its Retry-After asks' : '';
  return `${answered}: retrying in ${seconds(event.waitMs)}${why} (attempt ${event.attempt + 1} of ${event.maxAttempts})`;
}

/** Prints retry notices on `stderr`: waits of RETRY_WAIT_NOTICE_MIN_MS or more, one per `quietMs` at most. */
export class RetryNotices {
  readonly #open: () => boolean;

  constructor(
    private readonly stderr: TextSink,
    quietMs = RETRY_NOTICE_QUIET_MS,
    now: () => number = Date.now,
  ) {
    this.#open = quietGate(quietMs, now);
  }

  /** The observer hook (`RequestObserver.onRetryWait`). */
  onRetryWait(event: RequestRetryEvent): void {
    if (event.waitMs < RETRY_WAIT_NOTICE_MIN_MS || !this.#open()) return;
    this.stderr.write(`  · ${retryNotice(event)}\n`);
  }
}
