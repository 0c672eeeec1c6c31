/** A counting semaphore: one per client, so every request of every caller shares the same in-flight cap. */

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

  /** Runs `task` once a slot is free, and frees the slot when it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.#acquire();
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  #acquire(): Promise<void> {
    if (this.#active < this.#limit) {
      this.#active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined)
      next(); // the slot passes straight to the next waiter
    else this.#active -= 1;
  }
}
