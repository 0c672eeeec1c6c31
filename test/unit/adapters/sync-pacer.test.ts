// Scenario: the pacer lets synchronous work run until its budget is spent, then yields to the event loop once and starts again.
import { describe, expect, it } from 'vitest';
import { SyncPacer } from '../../../lambdas/adapters/local/sync-pacer.ts';

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: stands for synchronous file-system calls
  }
}

describe('SyncPacer', () => {
  it('yields nothing while the budget lasts', () => {
    const pacer = new SyncPacer({ budgetMs: 60_000 });
    for (let i = 0; i < 1000; i++) expect(pacer.pace()).toBeUndefined();
    expect(pacer.yields).toBe(0);
  });

  it('yields to the event loop once the budget is spent, so a queued callback runs, then starts a new budget', async () => {
    const pacer = new SyncPacer({ budgetMs: 1 });
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    spin(2);
    const paced = pacer.pace();
    expect(paced).toBeInstanceOf(Promise);
    await paced;
    expect(ran).toBe(true);
    expect(pacer.yields).toBe(1);
  });

  it('a zero budget yields at every step', async () => {
    const pacer = new SyncPacer({ budgetMs: 0 });
    for (let i = 0; i < 3; i++) await pacer.pace();
    expect(pacer.yields).toBe(3);
  });

  it.each([[-1], [Number.NaN], [Number.POSITIVE_INFINITY]])('refuses a budget of %s', (budgetMs) => {
    expect(() => new SyncPacer({ budgetMs })).toThrow(RangeError);
  });
});
