// Scenario: mapLimit, the bounded concurrency of per-target planning and applying. Results keep the input order and at
// most `limit` calls run at once; once a call throws, no further item starts, and the error reaches the caller only
// when the calls in flight have settled (nothing keeps working after the caller has moved on).
import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../../lambdas/core/concurrency.ts';

/** A promise with its resolve and reject. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('mapLimit', () => {
  it('keeps the input order and never runs more than the limit at once', async () => {
    let active = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, n));
      active--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });

  it('after a call throws, starts no further item and rejects only once the calls in flight have settled', async () => {
    const slow = deferred<string>();
    const started: number[] = [];
    let slowSettled = false;
    const run = mapLimit([0, 1, 2, 3, 4], 2, async (i) => {
      started.push(i);
      if (i === 0) {
        const v = await slow.promise;
        slowSettled = true;
        return v;
      }
      throw new Error(`item ${i} failed`);
    });
    let rejected: unknown;
    run.catch((e: unknown) => {
      rejected = e;
    });
    await new Promise((r) => setTimeout(r, 5));
    // Item 1 failed while item 0 was in flight: nothing else started, and the caller has not heard yet.
    expect(started).toEqual([0, 1]);
    expect(rejected).toBeUndefined();
    slow.resolve('done');
    await expect(run).rejects.toThrow('item 1 failed');
    expect(slowSettled).toBe(true);
    expect(started).toEqual([0, 1]);
  });

  it('throws the first error when several calls fail', async () => {
    const gate = deferred<void>();
    const run = mapLimit([0, 1], 2, async (i) => {
      if (i === 1) await gate.promise;
      throw new Error(`item ${i}`);
    });
    gate.resolve();
    await expect(run).rejects.toThrow('item 0');
  });
});
