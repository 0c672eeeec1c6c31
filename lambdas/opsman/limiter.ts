/** A counting semaphore: one per client, so every request of every caller shares the same in-flight cap. */

/** Thrown by {@link ConcurrencyLimiter.run} when its signal aborts while the task waits for a slot (never started). */
export class SlotWaitAborted extends Error {
  override name = 'SlotWaitAborted';
}

/** Caps concurrent work at `limit`; waiters are served first in, first out. */
export class ConcurrencyLimiter {
  readonly #limit: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    this.#limit = limit;
  }

  /** Requests in flight right now. */
  get active(): number {
    return this.#active;
  }

  /**
   * Runs `task` once a slot is free, and frees the slot when it settles. When `signal` aborts while the task is still
   * waiting, it leaves the queue and `run` rejects with {@link SlotWaitAborted}: a stopped run must not wait behind
   * requests that may never be answered.
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new SlotWaitAborted('aborted before a slot was free'));
    if (this.#active < this.#limit) {
      this.#active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(new SlotWaitAborted('aborted while waiting for a slot'));
      };
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined)
      next(); // the slot passes straight to the next waiter
    else this.#active -= 1;
  }
}
