/**
 * Tells the observer, once, when a request has waited `afterMs` for an answer: a person watching a run against a hung
 * Ops Manager otherwise sees nothing until the deadline (120 s by default, per request). One notice per stall: the
 * watch is re-armed only by an answer (a 503 before a retry), not by a retry after a timeout, so a request that never
 * gets an answer is reported once however many attempts it makes.
 */
import type { RequestStallEvent } from '../core/ports.ts';

/** The stall watch of one logical request. Uses real timers: the injectable clock has no way to schedule one. */
export class StallWatch {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #reported = false;

  constructor(
    private readonly afterMs: number,
    private readonly event: Omit<RequestStallEvent, 'waitedMs'>,
    private readonly onStall: ((event: RequestStallEvent) => void) | undefined,
  ) {}

  /** An attempt starts waiting for an answer: arms the watch unless it is armed or this stall was reported. */
  waiting(): void {
    if (this.onStall === undefined || this.#timer !== undefined || this.#reported) return;
    const since = Date.now();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#reported = true;
      try {
        this.onStall?.({ ...this.event, waitedMs: Date.now() - since });
      } catch {
        // An observer's bug must not fail the request it observes.
      }
    }, this.afterMs);
    this.#timer.unref();
  }

  /** The request got an answer (any status): the next wait, if any, is a new stall. */
  answered(): void {
    this.stop();
    this.#reported = false;
  }

  /** The request is over. */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
