/**
 * Paces short synchronous file-system calls so they never hold the event loop for long.
 *
 * Why: reading a thousand small files through fs.promises costs four thread-pool round trips and a FileHandle per
 * file (open, fstat, read, close), several hundred milliseconds of main-thread CPU at 1,000 files; the same calls made
 * synchronously on page-cached files cost a few microseconds each. A caller makes its synchronous calls one small
 * step at a time and awaits `pace()` between steps: once `budgetMs` of synchronous work has accumulated since the
 * last yield, `pace()` yields to the event loop (setImmediate), so timers and I/O callbacks wait at most about one
 * budget plus one step.
 */

/** Options of SyncPacer. */
export interface SyncPacerOptions {
  /** Synchronous work allowed between two yields to the event loop, in milliseconds. Default 5. */
  budgetMs: number;
}

/** Defaults of SyncPacerOptions. */
export const DEFAULT_SYNC_PACER_OPTIONS: SyncPacerOptions = { budgetMs: 5 };

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counts time since the last yield; `pace()` yields when the budget is spent. */
export class SyncPacer {
  readonly #budgetMs: number;
  #since = performance.now();
  /** How many times pace() yielded (for tests and benchmarks). */
  yields = 0;

  constructor(options: Partial<SyncPacerOptions> = {}) {
    const { budgetMs } = { ...DEFAULT_SYNC_PACER_OPTIONS, ...options };
    if (!(budgetMs >= 0) || !Number.isFinite(budgetMs)) throw new RangeError('SyncPacer budgetMs must be >= 0');
    this.#budgetMs = budgetMs;
  }

  /**
   * Undefined while the budget lasts (no await needed: `const p = pacer.pace(); if (p) await p;`), else a promise
   * that resolves after the event loop has had a turn; the budget starts again then.
   */
  pace(): Promise<void> | undefined {
    if (performance.now() - this.#since < this.#budgetMs) return undefined;
    this.yields++;
    return yieldToLoop().then(() => {
      this.#since = performance.now();
    });
  }
}
