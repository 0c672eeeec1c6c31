// Scenario: the client's concurrency limiter on its own: never more tasks running than its limit (also after a slot
// passes straight to a waiter), waiters served first in, first out, an already-stopped caller refused without running,
// and a limit that is no positive integer refused.
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter, SlotWaitAborted } from '../../../lambdas/opsman/limiter.ts';

/** A task that runs until `finish()` is called; `started` tells whether it began. */
function gate() {
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const state = { started: false, finish: () => finish() };
  const task = async (): Promise<void> => {
    state.started = true;
    await done;
  };
  return { state, task };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrencyLimiter', () => {
  it('a slot passed to a waiter stays taken: a later task still waits', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const [a, b, c, d] = [gate(), gate(), gate(), gate()];
    const runs = [limiter.run(a.task), limiter.run(b.task), limiter.run(c.task)];
    await tick();
    expect([a.state.started, b.state.started, c.state.started]).toEqual([true, true, false]);
    a.state.finish();
    await runs[0];
    await tick();
    expect(c.state.started).toBe(true);
    expect(limiter.active).toBe(2);
    const late = limiter.run(d.task);
    await tick();
    expect(d.state.started).toBe(false);
    b.state.finish();
    c.state.finish();
    await tick();
    expect(d.state.started).toBe(true);
    d.state.finish();
    await Promise.all([...runs, late]);
    expect(limiter.active).toBe(0);
  });

  it('serves waiters first in, first out', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const order: string[] = [];
    const first = gate();
    const running = limiter.run(first.task);
    const queued = ['b', 'c', 'd'].map((name) => limiter.run(async () => void order.push(name)));
    await tick();
    first.state.finish();
    await Promise.all([running, ...queued]);
    expect(order).toEqual(['b', 'c', 'd']);
  });

  it('refuses a caller already stopped, even with a slot free, and never runs its task', async () => {
    const limiter = new ConcurrencyLimiter(1);
    let ran = false;
    const stopped = AbortSignal.abort();
    await expect(
      limiter.run(async () => {
        ran = true;
      }, stopped),
    ).rejects.toBeInstanceOf(SlotWaitAborted);
    expect(ran).toBe(false);
    expect(limiter.active).toBe(0);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses the limit %s', (limit) => {
    expect(() => new ConcurrencyLimiter(limit)).toThrow(RangeError);
  });
});
