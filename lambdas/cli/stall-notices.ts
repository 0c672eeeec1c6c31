/**
 * The notice a person sees on stderr while Ops Manager does not answer, instead of minutes of silence:
 * `still waiting for Ops Manager: GET /api/public/v1.0/groups/<id>/alertConfigs has not answered for 15 s (deadline
 * 120 s, --request-timeout to change)`. Never on stdout, so `--json` output stays a document.
 */
import { quietGate } from '../../shared/quiet-gate.ts';
import type { RequestStallEvent } from '../core/ports.ts';
import { DEFAULT_STALL_AFTER_MS } from '../opsman/index.ts';
import type { TextSink } from './io.ts';

/**
 * When to tell: after the client's default (15 s), or half the deadline when that is shorter (a notice at or after the
 * deadline would say nothing the error does not).
 */
export function stallNoticeAfterMs(deadlineMs: number): number {
  return Math.max(1, Math.min(DEFAULT_STALL_AFTER_MS, Math.floor(deadlineMs / 2)));
}

/** `15 s`, `1.5 s`. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The line for one stall. */
export function stallNotice(event: RequestStallEvent): string {
  return `still waiting for Ops Manager: ${event.method} ${event.path} has not answered for ${seconds(event.waitedMs)} (deadline ${seconds(event.deadlineMs)}, --request-timeout to change)`;
}

/**
 * Prints stall notices on `stderr`, at most one per `quietMs`: a hung Ops Manager stalls every request in flight at
 * once (eight by default), and one line says it as well as eight; a slow one stalls request after request, and a line
 * every few seconds would bury the progress lines.
 */
export class StallNotices {
  readonly #open: () => boolean;

  constructor(
    private readonly stderr: TextSink,
    quietMs: number,
    now: () => number = Date.now,
  ) {
    this.#open = quietGate(quietMs, now);
  }

  /** The observer hook (`RequestObserver.onStall`). */
  onStall(event: RequestStallEvent): void {
    if (!this.#open()) return;
    this.stderr.write(`  · ${stallNotice(event)}\n`);
  }
}
